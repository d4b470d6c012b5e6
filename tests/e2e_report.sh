#!/usr/bin/env bash
# End-to-end check of the report pipeline: a tiny run of experiment 01, then
# scripts/build-report into a temporary folder; the HTML must hold experiment 01's table
# (with a value taken from the CSV) and an embedded figure. Then the failures that must be
# loud: a missing CSV, a CSV with the wrong columns, an empty CSV, and, in a reference folder,
# a lookup that matches no row must each stop the build, name the file, and leave no report
# behind. The same lookup in a run of one's own (narrowed here by --sizes) reads "not measured",
# counted in a note that names --sizes.
#   tests/e2e_report.sh BUILD_DIR SOURCE_DIR        exit 0 pass, 1 fail
# check && pass || fail is safe here: pass only echoes.
# shellcheck disable=SC2015
set -uo pipefail

[[ $# -eq 2 ]] || { echo "usage: $0 BUILD_DIR SOURCE_DIR" >&2; exit 1; }
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
exp=$build/experiments/exp-01-cpu-opt-levels
name=01-cpu-opt-levels

tmp=$(mktemp -d "${TMPDIR:-/tmp}/e2e-report.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# Everything the pipeline writes goes under $tmp: outputs, figures, its own scratch space.
# No reference results: the failure cases must not be rescued by a committed fallback.
export TMPDIR=$tmp REPORT_PDF=no ONLY_EXPERIMENTS=01 REFERENCE_DIR=$tmp/no-reference
mkdir -p "$REFERENCE_DIR"

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }

# render LABEL RESULTS: runs build-report into $tmp/out-LABEL; its stderr in $tmp/LABEL.log.
render() {
  REPORT_OUT=$tmp/out-$1 FIGURES_OUT=$tmp/figures-$1 "$src/scripts/build-report" "$2" \
    > "$tmp/$1.log" 2>&1
}

# column FILE NAME: the index of a header column (awk's $N).
column() { head -n 1 "$1" | tr ',' '\n' | grep -nx "$2" | cut -d: -f1; }

repo_report=$src/report/build/report.html
repo_stamp=$(stat -c %Y "$repo_report" 2>/dev/null || echo none)

# ---- a good run -------------------------------------------------------------------------
# With sysfs hidden, as in many VMs and containers: the machine facts come from elsewhere.
mkdir -p "$tmp/no-sysfs"
if ! TLAB_SYSFS_ROOT=$tmp/no-sysfs "$exp" --sizes 2^5..2^7 --budget 0.05 --out "$tmp/results" > "$tmp/exp.log" 2>&1; then
  cat "$tmp/exp.log" >&2
  echo "FAIL: $exp did not run" >&2
  exit 1
fi
csv=$tmp/results/$name.csv

if render good "$tmp/results"; then
  html=$tmp/out-good/report.html
  if [[ -s $html ]]; then pass "report.html written"; else fail "no $html"; fi
  grep -q "class=\"csv-table\" data-csv-src=\"$name.csv\"" "$html" &&
    pass "experiment 01's table is there" || fail "no csv-table from $name.csv in the HTML"
  # A bandwidth the -O3 table must show, formatted as section.md asks (%.2f).
  v=$(column "$csv" variant) r=$(column "$csv" rows) g=$(column "$csv" gbs)
  want=$(awk -F, -v v="$v" -v r="$r" -v g="$g" \
    '$v == "cpu/inplace-naive@O3" && $r == 128 { printf "%.2f", $g }' "$csv")
  if [[ -n $want ]] && grep -qF ">$want<" "$html"; then
    pass "table cell $want (cpu/inplace-naive@O3, 128) comes from the CSV"
  else
    fail "value '$want' of cpu/inplace-naive@O3 at 128 not in the HTML"
  fi
  grep -q 'src="data:image/svg+xml' "$html" && pass "figure embedded as an SVG data URI" ||
    fail "no embedded SVG figure in the HTML"
  [[ -s $tmp/figures-good/$name-bandwidth.svg ]] && pass "figures written to FIGURES_OUT" ||
    fail "no $name-bandwidth.svg in FIGURES_OUT"
  grep -q "^$name	results	" "$tmp/out-good/data-sources.tsv" && pass "data source recorded" ||
    fail "data-sources.tsv does not say $name came from the results folder"
else
  cat "$tmp/good.log" >&2
  fail "build-report failed on a good run"
fi

# ---- failures that must be loud -----------------------------------------------------------
# expect_failure LABEL RESULTS WHAT: build-report must fail, say WHAT, and write no report.
expect_failure() {
  if render "$1" "$2"; then
    fail "$1: build-report succeeded"
  elif ! grep -qF -- "$3" "$tmp/$1.log"; then
    cat "$tmp/$1.log" >&2
    fail "$1: the error does not name '$3'"
  elif [[ -e $tmp/out-$1/report.html ]]; then
    fail "$1: a report was written anyway"
  else
    pass "$1: fails and names '$3'"
  fi
}
variant() { rm -rf "${tmp:?}/$1"; cp -r "$tmp/results" "$tmp/$1"; }

variant missing
rm "$tmp/missing/$name.csv"
expect_failure missing "$tmp/missing" "$name.csv"

variant columns
sed -i '1s/,gbs,/,bandwidth,/' "$tmp/columns/$name.csv"
expect_failure columns "$tmp/columns" "$tmp/columns/$name.csv: header lacks column(s) gbs"

variant empty
: > "$tmp/empty/$name.csv"
expect_failure empty "$tmp/empty" "$tmp/empty/$name.csv"

variant norow
sed -i '/,speedup-O0-to-O3,cpu\/inplace-naive,/d' "$tmp/norow/$name-summary.csv"
if render norow "$tmp/norow"; then
  # Pandoc breaks lines inside tags: the HTML as one line.
  one=$(tr '\n' ' ' < "$tmp/out-norow/report.html")
  [[ $one =~ data-csv-where=\"metric=speedup-O0-to-O3,subject=cpu/inplace-naive\"[^\>]*\>\<em\>not\ measured\</em\> &&
     $one == *"narrows it (<code>--sizes</code>)"* ]] &&
    pass "norow in a run of one's own: the value reads \"not measured\", and the note names --sizes" ||
    fail "norow in a run of one's own: no value marked \"not measured\", or no note naming --sizes"
else
  cat "$tmp/norow.log" >&2
  fail "norow in a run of one's own: build-report failed"
fi
# The same folder as a committed reference (the full run): strict.
mkdir -p "$tmp/norow-ref"
cp -r "$tmp/norow" "$tmp/norow-ref/"
REFERENCE_DIR=$tmp/norow-ref expect_failure norow-reference "$tmp/norow-ref/norow" \
  "$name-summary.csv (from $tmp/norow-ref/norow): no row matches where=\"metric=speedup-O0-to-O3,subject=cpu/inplace-naive\""

# ---- the committed-reference fallback: newest of two reference folders, named in the report
mkdir -p "$tmp/ref/old" "$tmp/ref/new" "$tmp/noexp"
cp "$tmp/results/$name"* "$tmp/ref/old/" && cp "$tmp/results/$name"* "$tmp/ref/new/"
sed -i 's/"date": "[^"]*"/"date": "2001-01-01T00:00:00Z"/' "$tmp/ref/old/$name.env.json"
sed -i 's/"date": "[^"]*"/"date": "2999-01-01T00:00:00Z"/' "$tmp/ref/new/$name.env.json"
if REFERENCE_DIR=$tmp/ref render reference "$tmp/noexp"; then
  grep -q "committed reference results from" "$tmp/out-reference/report.html" &&
    grep -q "2999-01-01T00:00:00Z" "$tmp/out-reference/report.html" &&
    grep -q "^$name	reference	$tmp/ref/new	newest:2$" "$tmp/out-reference/data-sources.tsv" &&
    pass "reference fallback: newest folder used and named" ||
    fail "reference fallback: provenance or data-sources.tsv wrong"
else
  cat "$tmp/reference.log" >&2
  fail "reference fallback: build-report failed"
fi

# REFERENCE= picks the older folder, and the report says it was asked for; a name that is no
# folder stops the build and lists the folders there are.
if REFERENCE=old REFERENCE_DIR=$tmp/ref render chosen "$tmp/noexp"; then
  grep -q "^$name	reference	$tmp/ref/old	named$" "$tmp/out-chosen/data-sources.tsv" &&
    grep -q "2001-01-01T00:00:00Z" "$tmp/out-chosen/report.html" &&
    tr '\n' ' ' < "$tmp/out-chosen/report.html" | grep -q "the reference folder this report was asked for" &&
    pass "REFERENCE=old: that folder used and named" || fail "REFERENCE=old: not used or not named"
else
  cat "$tmp/chosen.log" >&2
  fail "REFERENCE=old: build-report failed"
fi
REFERENCE=no-such-folder REFERENCE_DIR=$tmp/ref expect_failure badref "$tmp/noexp" "REFERENCE=no-such-folder is neither"
grep -q "there: new old" "$tmp/badref.log" && pass "bad REFERENCE lists the folders there are" ||
  fail "bad REFERENCE: the message does not list old and new"

# ---- an environment record with nothing but what the report cannot do without -----------
# A VM without sysfs caches, an Arm CPU without a model name, a copy without git: every
# machine fact may be missing. The report still renders and says "not recorded".
variant bare
for f in "$tmp/bare/$name.env.json" "$tmp/bare/env.json"; do [[ -f $f ]] && echo '{}' > "$f"; done
if render bare "$tmp/bare"; then
  html=$tmp/out-bare/report.html
  n=$(grep -o 'class="env-value not-recorded"' "$html" | wc -l)
  [[ $n -ge 3 ]] && pass "env.json without optional keys: $n facts shown as not recorded" ||
    fail "env.json without optional keys: expected the cache sizes shown as not recorded, found $n"
  grep -q "CPU not recorded" "$html" && pass "provenance says the CPU is not recorded" ||
    fail "provenance does not say the CPU is not recorded"
  grep -q ">not recorded<" "$html" || fail "no 'not recorded' text in the HTML"
else
  cat "$tmp/bare.log" >&2
  fail "env.json without optional keys: build-report failed"
fi

[[ $(stat -c %Y "$repo_report" 2>/dev/null || echo none) == "$repo_stamp" ]] ||
  fail "the repository's report/build/report.html changed"

if [[ $failures -gt 0 ]]; then
  echo "e2e_report: $failures check(s) failed" >&2
  exit 1
fi
echo "e2e_report: all checks passed"
