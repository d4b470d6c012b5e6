# Sourced by the report tests that take SOURCE_DIR alone (reference_reports.sh,
# narrowed_run_report.sh): the source folder, a scratch folder removed on exit, a report
# environment with no choice of reference and no PDF, the tally of checks, and copy_package.
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

# copy_package DEST: the package's own files as a clean checkout has them (tracked, or new and
# not ignored); without git (a container, an unpacked archive), the tree less what a build adds.
copy_package() {
  mkdir -p "$1" || return 1
  if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    (cd "$src" && git ls-files -co --exclude-standard -z | xargs -0 -r tar -cf -) | tar -xf - -C "$1"
  else
    tar -C "$src" --exclude=./build --exclude='./build-*' --exclude=./report/build --exclude='./figures/*.svg' \
      --exclude=./.git -cf - . | tar -xf - -C "$1"
  fi
}
