# Sourced by the report tests that take SOURCE_DIR alone (reference_reports.sh,
# narrowed_run_report.sh): the source folder, a scratch folder removed on exit, a report
# environment with no choice of reference and no PDF, and the tally of checks.
#   . "$(dirname "$0")/report_test_env.sh" NAME "$@"
# check && pass || fail is safe where this is used: pass only echoes.
# shellcheck shell=bash disable=SC2034
set -uo pipefail
[[ $# -eq 2 ]] || { echo "usage: $0 SOURCE_DIR" >&2; exit 1; }
src=$(cd "$2" && pwd) || exit 1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp REPORT_PDF=no
unset REFERENCE REFERENCE_DIR ONLY_EXPERIMENTS

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }
