#!/usr/bin/env bash
# The PDF beside the HTML, and the seeds cited from report/references.yaml. A tiny run of
# experiment 01, plus experiment 07 from the committed reference results (its tables have
# eleven columns, the widest of the report), rendered by scripts/build-report with
# REPORT_PDF=yes. Then:
#   - report.pdf exists, is a PDF, and no word of it lies outside the page's margins
#     (pdftotext -bbox): wide tables, the environment table and the figures fit;
#   - the environment table's field names are not broken across lines;
#   - the PDF ends with the References, which name the seeds' titles;
#   - the HTML has a References section with every entry of report/references.yaml, each
#     cited in the text, and no unresolved citation;
#   - REPORT_PDF=no writes no PDF.
#   tests/pdf_report.sh BUILD_DIR SOURCE_DIR     exit 0 pass, 1 fail, 77 skip (no PDF tools)
# check && pass || fail is safe here: pass only echoes.
# shellcheck disable=SC2015
set -uo pipefail

[[ $# -eq 2 ]] || { echo "usage: $0 BUILD_DIR SOURCE_DIR" >&2; exit 1; }
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
exp=$build/experiments/exp-01-cpu-opt-levels

for tool in weasyprint rsvg-convert python3 pdftotext; do
  command -v "$tool" >/dev/null || { echo "skip: $tool not found (scripts/install-deps installs it)"; exit 77; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pdf-report.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp REFERENCE_DIR=$tmp/ref
mkdir -p "$REFERENCE_DIR"

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }

if ! "$exp" --sizes 2^5..2^7 --budget 0.05 --out "$tmp/results" > "$tmp/exp.log" 2>&1; then
  cat "$tmp/exp.log" >&2
  echo "FAIL: $exp did not run" >&2
  exit 1
fi
only=01
ref07=$(ls -d "$src"/results/reference/*/07-gpu-element-types.csv 2>/dev/null | head -n 1)
if [[ -n $ref07 ]]; then
  mkdir -p "$REFERENCE_DIR/gpu"
  cp "${ref07%.csv}"* "$REFERENCE_DIR/gpu/"
  [[ -f $(dirname "$ref07")/env.json ]] && cp "$(dirname "$ref07")/env.json" "$REFERENCE_DIR/gpu/"
  only="01 07"
else
  echo "note: no committed results of experiment 07; experiment 01 alone"
fi

out=$tmp/out
if ! REPORT_PDF=yes ONLY_EXPERIMENTS=$only REPORT_OUT=$out FIGURES_OUT=$tmp/figures \
    "$src/scripts/build-report" "$tmp/results" > "$tmp/render.log" 2>&1; then
  cat "$tmp/render.log" >&2
  echo "FAIL: build-report with REPORT_PDF=yes failed" >&2
  exit 1
fi
html=$out/report.html pdf=$out/report.pdf

# ---- the PDF ------------------------------------------------------------------------------
[[ -s $pdf ]] && pass "report.pdf written" || fail "no $pdf"
[[ $(head -c 5 "$pdf" 2>/dev/null) == %PDF- ]] && pass "report.pdf is a PDF" || fail "$pdf does not start with %PDF-"
grep -q "build-report: wrote $pdf (" "$tmp/render.log" && pass "build-report names the PDF and its time" ||
  fail "build-report did not say it wrote $pdf"

# Every word inside the page's margins (A4, 13 mm = 36.85 pt left and right; 1 pt of slack).
pdftotext -bbox "$pdf" "$tmp/bbox.html" 2> /dev/null || fail "pdftotext -bbox cannot read $pdf"
awk '
  /<page / { p++; match($0, /width="[0-9.]+"/); w = substr($0, RSTART + 7, RLENGTH - 8) + 0 }
  /<word / {
    match($0, /xMin="[0-9.]+"/); x0 = substr($0, RSTART + 6, RLENGTH - 7) + 0
    match($0, /xMax="[0-9.]+"/); x1 = substr($0, RSTART + 6, RLENGTH - 7) + 0
    if (x0 < 35.8 || x1 > w - 35.8) {
      word = $0; sub(/.*">/, "", word); sub(/<.*/, "", word)
      printf "page %d: \"%s\" at x %.1f..%.1f of %.1f\n", p, word, x0, x1, w; bad++
    }
  }
  END { exit bad > 0 }' "$tmp/bbox.html" > "$tmp/outside.txt"
if [[ -s $tmp/bbox.html && ! -s $tmp/outside.txt ]]; then
  pass "no word outside the page margins ($(grep -c '<page ' "$tmp/bbox.html") pages)"
else
  fail "words outside the page margins:"; head -n 10 "$tmp/outside.txt" >&2
fi
# The environment table's field column does not wrap: its longest name is one word.
grep -q '>load_average_1min_at_start</word>' "$tmp/bbox.html" &&
  pass "environment field names on one line (load_average_1min_at_start)" ||
  fail "the environment table's field load_average_1min_at_start is broken across lines in the PDF"
if [[ $only == *07* ]]; then
  grep -q '>16384×1024</word>' "$tmp/bbox.html" && pass "experiment 07's wide table headers whole" ||
    fail "the shape header 16384×1024 of experiment 07 is broken or missing in the PDF"
fi

# The References are the last section, and the seeds' titles are in them.
pdftotext "$pdf" "$tmp/report.txt" 2> /dev/null
last=$(grep -c '<page ' "$tmp/bbox.html")
pdftotext -f "$last" -l "$last" "$pdf" "$tmp/last.txt" 2> /dev/null
grep -qx 'References' "$tmp/last.txt" && pass "References on the last page" || fail "no References heading on the PDF's last page"
# One line of text; a line ending in a hyphen (Row-Wise broken after Row-) joins the next.
refs_text=$(sed -n '/^References$/,$p' "$tmp/report.txt" |
  awk '{ printf (prev ~ /-$/ ? "%s" : " %s"), $0; prev = $0 }' | sed 's/  */ /g')
n=0
while IFS= read -r title; do
  n=$((n + 1))
  [[ ${refs_text,,} == *"${title,,}"* ]] && pass "PDF References name \"$title\"" ||
    fail "PDF References lack the title \"$title\""
done < <(awk '/^- id: /{seed = ($3 ~ /^seed/)} seed && /^  title: /{sub(/^  title: /, ""); print}' "$src/report/references.yaml")
[[ $n -eq 5 ]] && pass "report/references.yaml has the five seeds" || fail "report/references.yaml has $n seed titles, not 5"

# ---- the HTML -----------------------------------------------------------------------------
grep -q '<h1 class="unnumbered" id="references">References</h1>' "$html" && pass "HTML References heading" ||
  fail "no References heading in the HTML"
grep -q '<div id="refs"' "$html" && pass "HTML refs div filled" || fail "no refs div in the HTML"
while IFS= read -r key; do
  grep -q "id=\"ref-$key\"" "$html" && grep -Eq "data-cites=\"([^\"]* )?$key( [^\"]*)?\"" "$html" &&
    pass "$key cited and listed" || fail "$key not both cited in the text and listed under References"
done < <(sed -n 's/^- id: \(seed.*\)/\1/p' "$src/report/references.yaml")  # other works are cited by sections not rendered here
# Nothing after the refs div but the closing of the document.
tail_text=$(sed -n '/<div id="refs"/,$p' "$html" | grep -c '<h[1-6]')
[[ $tail_text -eq 0 ]] && pass "References come last" || fail "$tail_text heading(s) after the References in the HTML"
grep -q '?)</span>' "$html" && fail "an unresolved citation (key?) in the HTML" || pass "every citation resolved"

# ---- REPORT_PDF=no ------------------------------------------------------------------------
if REPORT_PDF=no ONLY_EXPERIMENTS=01 REPORT_OUT=$tmp/out-no FIGURES_OUT=$tmp/figures-no \
    "$src/scripts/build-report" "$tmp/results" > "$tmp/no.log" 2>&1; then
  [[ -s $tmp/out-no/report.html && ! -e $tmp/out-no/report.pdf ]] && pass "REPORT_PDF=no: HTML only" ||
    fail "REPORT_PDF=no: expected report.html and no report.pdf"
else
  cat "$tmp/no.log" >&2; fail "build-report with REPORT_PDF=no failed"
fi

if [[ $failures -gt 0 ]]; then
  echo "pdf_report: $failures check(s) failed" >&2
  exit 1
fi
echo "pdf_report: all checks passed"
