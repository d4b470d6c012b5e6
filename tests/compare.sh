#!/usr/bin/env bash
# The machine comparison end to end: a tiny CPU run of experiment 01 beside the committed H100
# reference, through scripts/build-compare; the HTML must exist and name both machines, and
# the data beside it must hold both. Then the failures: tlab-compare and build-compare must
# answer a missing folder, a folder with no CSV and an unreadable CSV with exit code 2, one
# line naming the path, and nothing written. Everything goes under a temporary folder; the
# repository is only read.
#   tests/compare.sh BUILD_DIR SOURCE_DIR        exit 0 pass, 1 fail
# check && pass || fail is safe here: pass only echoes.
# shellcheck disable=SC2015
set -uo pipefail

[[ $# -eq 2 ]] || { echo "usage: $0 BUILD_DIR SOURCE_DIR" >&2; exit 1; }
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
tool=$build/src/tlab-compare
exp=$build/experiments/exp-01-cpu-opt-levels
reference=$src/results/reference/nvidia-h100-80gb-hbm3

tmp=$(mktemp -d "${TMPDIR:-/tmp}/compare-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp BUILD_DIR=$build
marker=$tmp/started
touch "$marker"

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }

for f in "$tool" "$exp"; do [[ -x $f ]] || { echo "FAIL: $f not built" >&2; exit 1; }; done
[[ -f $reference/06-gpu-roofline.csv ]] || { echo "FAIL: no reference results in $reference" >&2; exit 1; }

# label ENV_JSON: the machine label tlab-compare gives a folder (GPU model, else CPU model).
label() {
  local gpu cpu
  gpu=$(sed -n 's/.*"gpu"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p' "$1" | head -n 1)
  cpu=$(sed -n 's/.*"cpu_model"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p' "$1" | head -n 1)
  if [[ -n $gpu && $gpu != none* ]]; then echo "$gpu"; else echo "$cpu"; fi
}
html_escape() { sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g'; }

# ---- a good comparison ------------------------------------------------------------------
if ! "$exp" --sizes 2^5..2^6 --budget 0.01 --out "$tmp/cpu" > "$tmp/exp.log" 2>&1; then
  cat "$tmp/exp.log" >&2
  echo "FAIL: $exp did not run" >&2
  exit 1
fi

if "$src/scripts/build-compare" "$tmp/html" "$reference" "$tmp/cpu" > "$tmp/good.log" 2>&1; then
  html=$tmp/html/compare.html
  [[ -s $html ]] && pass "compare.html written" || fail "no $html"
  for env in "$reference/env.json" "$tmp/cpu/env.json"; do
    name=$(label "$env" | html_escape)
    # A label repeated by both folders gets the folder's name added, so a prefix match.
    [[ -n $name ]] && grep -qF -- "$name" "$html" && pass "the report names '$name'" ||
      fail "the report does not name the machine of $env ('$name')"
  done
  grep -q 'data-csv-src="compare-machines.csv"' "$html" && pass "machines table rendered" ||
    fail "no machines table in the HTML"
  grep -q 'data-csv-src="compare-01-cpu-opt-levels.csv"' "$html" && pass "CPU (experiment 01) table rendered" ||
    fail "no experiment 01 table in the HTML"
  grep -q 'data-csv-src="compare-06-gpu-roofline.csv"' "$html" && pass "GPU (experiment 06) table rendered" ||
    fail "no experiment 06 table in the HTML"
  grep -q 'src="data:image/svg+xml' "$html" && pass "figure embedded" || fail "no embedded figure"
  grep -Eq '<td[^>]*>seed004-a800-lab</td>' "$html" && pass "seed 004's rows name its citation key" ||
    fail "no seed 004 row naming seed004-a800-lab (data/published/004-a800.csv, column source)"
  csv=$tmp/html/compare.csv
  grep -q '^01-cpu-opt-levels,measured,.*,none,NA,NA,' "$csv" && pass "CPU rows carry norm none" ||
    fail "no CPU rows with norm=none in compare.csv"
  grep -q '^06-gpu-roofline,measured,.*,roofline,peer-memcpy,gpu/memcpy,float,.*,memcpy,100,' "$csv" &&
    pass "the H100 memcpy is 100% of itself" || fail "no memcpy roofline row for 06 in compare.csv"
  [[ $(wc -l < "$tmp/html/compare-machines.csv") -eq 3 ]] && pass "one machine row per folder" ||
    fail "compare-machines.csv should have a header and 2 rows"
else
  cat "$tmp/good.log" >&2
  fail "build-compare failed on the reference and a CPU run"
fi

# ---- failures: exit 2, one line naming the path, nothing written ---------------------------
# expect_2 LABEL PATH_NAMED ARGS...: tlab-compare into a fresh OUT_DIR.
expect_2() {
  local what=$1 named=$2 out=$tmp/out-$1 rc
  shift 2
  "$tool" "$out" "$@" > /dev/null 2> "$tmp/$what.err"
  rc=$?
  if [[ $rc -ne 2 ]]; then
    fail "tlab-compare, $what: exit $rc, not 2"
  elif [[ $(grep -c . "$tmp/$what.err") -ne 1 ]] || ! grep -qF -- "$named" "$tmp/$what.err"; then
    fail "tlab-compare, $what: stderr is not one line naming $named: $(head -c 300 "$tmp/$what.err")"
  elif [[ -e $out ]]; then
    fail "tlab-compare, $what: $out was created"
  else
    pass "tlab-compare, $what: exit 2, names $named, writes nothing"
  fi
}
expect_2 missing "$tmp/no-such-folder" "$reference" "$tmp/no-such-folder"
mkdir -p "$tmp/empty" && cp "$tmp/cpu/env.json" "$tmp/empty/"
expect_2 no-csv "$tmp/empty" "$tmp/empty"
cp -r "$tmp/cpu" "$tmp/broken" && sed -i '1s/,gbs,/,bandwidth,/' "$tmp/broken/01-cpu-opt-levels.csv"
expect_2 bad-csv "$tmp/broken/01-cpu-opt-levels.csv" "$tmp/cpu" "$tmp/broken"

# An existing OUT_DIR keeps its previous files untouched.
mkdir -p "$tmp/keep" && echo previous > "$tmp/keep/compare.csv"
"$tool" "$tmp/keep" "$tmp/no-such-folder" 2> /dev/null
rc=$?
[[ $rc -eq 2 && $(cat "$tmp/keep/compare.csv") == previous && ! -e $tmp/keep/compare-machines.csv ]] &&
  pass "a failed run leaves an existing OUT_DIR as it was" || fail "a failed run changed $tmp/keep (exit $rc)"

"$src/scripts/build-compare" "$tmp/html-missing" "$reference" "$tmp/no-such-folder" > /dev/null 2> "$tmp/bc.err"
rc=$?
[[ $rc -eq 2 && ! -e $tmp/html-missing ]] && grep -qF "$tmp/no-such-folder" "$tmp/bc.err" &&
  pass "build-compare: a missing folder is exit 2, named, nothing written" ||
  fail "build-compare with a missing folder: exit $rc, or output written, or the path not named"

# ---- the repository is only read ---------------------------------------------------------
for f in report/build/compare.html report/build/compare.csv report/build/compare-machines.csv; do
  [[ ! -e $src/$f || ! $src/$f -nt $marker ]] || fail "$f in the repository was written"
done
changed=$(find "$src/results" "$src/figures" "$src/data" -newer "$marker" 2>/dev/null | head -n 5)
[[ -z $changed ]] && pass "nothing written under results/, figures/, data/" || fail "written in the repository: $changed"

if [[ $failures -gt 0 ]]; then
  echo "compare: $failures check(s) failed" >&2
  exit 1
fi
echo "compare: all checks passed"
