#!/usr/bin/env bash
# A report renders from a run of its own results folder that lacks configurations the text
# quotes (a run narrowed by --quick or --sizes, or one that skipped what the machine cannot
# hold): each value it lacks reads "not measured", and a note under the section's
# data box counts them and names the options that narrowed it. A reference folder that lacks
# the same rows still stops the report, naming the file and the selector (a reference is the
# full run, so a selector that matches nothing there is an error in the text).
# The narrowed run is made from a committed GPU reference: each experiment's CSVs cut to the
# first shape they list, and its command line given the --sizes that would have done it.
#   tests/narrowed_run_report.sh SOURCE_DIR       exit 0 pass, 1 fail, 77 no reference folder
#                                                 with experiment 13, or no python3
# check && pass || fail is safe here: pass only echoes.
# shellcheck disable=SC2015
# shellcheck source-path=SCRIPTDIR source=report_test_env.sh
. "$(dirname "$0")/report_test_env.sh" narrowed-run "$@"

command -v python3 >/dev/null || { echo "skip: no python3 to narrow the copied run"; exit 77; }
ref=""
for d in "$src"/results/reference/*/; do
  [[ -f $d/13-best-transpose.csv ]] && { ref=${d%/}; break; }
done
[[ -n $ref ]] || { echo "skip: no reference folder with experiment 13"; exit 77; }
run=$tmp/run
mkdir -p "$run"
cp "$ref"/*.csv "$ref"/*.json "$run"/ || { echo "FAIL: cannot copy $ref" >&2; exit 1; }

# Each NN-name.csv and its summary kept to the first shape of NN-name.csv (summary rows that
# name no shape stay); the command line then says --sizes ROWSxCOLS.
python3 - "$run" <<'PY' || { echo "FAIL: cannot narrow the copied run" >&2; exit 1; }
import csv, glob, json, os, re, sys
run = sys.argv[1]
for main in sorted(glob.glob(os.path.join(run, "[0-9][0-9]-*.csv"))):
    if main.endswith("-summary.csv"):
        continue
    name = os.path.basename(main)[:-4]
    env_path = os.path.join(run, name + ".env.json")
    if not os.path.exists(env_path):  # a side table (04's counters): left whole
        continue
    with open(main, newline="") as f:
        first = next(csv.DictReader(f))
    shape = (first["rows"], first["cols"])
    cut = {}
    for path in (main, os.path.join(run, name + "-summary.csv")):
        if not os.path.exists(path):
            continue
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
        head = rows[0]
        r, c = head.index("rows"), head.index("cols")
        cut[path] = [head] + [x for x in rows[1:] if (x[r], x[c]) == shape or (x[r] == "" and x[c] == "")]
    if any(len(rows) < 2 for rows in cut.values()):  # its summary names other shapes: left whole
        continue
    for path, rows in cut.items():
        with open(path, "w", newline="") as f:
            csv.writer(f, lineterminator="\n").writerows(rows)
    with open(env_path) as f:
        text = f.read()
    env = json.loads(text)
    assert json.dumps(env["command_line"]) in text, env_path
    narrowed = env["command_line"] + " --sizes %sx%s" % shape
    text = text.replace(json.dumps(env["command_line"]), json.dumps(narrowed), 1)
    with open(env_path, "w") as f:
        f.write(text)
PY

out=$tmp/out
if (cd "$src" && REPORT_OUT=$out FIGURES_OUT=$tmp/fig scripts/build-report "$run") > "$tmp/run.log" 2>&1; then
  pass "the report renders from a run that lacks rows its text quotes"
  # Pandoc breaks lines anywhere between words: the HTML as one line.
  tr '\n' ' ' < "$out/report.html" > "$tmp/one-line.html"
  marked=$(grep -o 'class="csv-[a-z]* not-measured"' "$tmp/one-line.html" | wc -l)
  counted=$(grep -o 'Not measured in this run:</strong> this run holds no row for [0-9]*' "$tmp/one-line.html" |
    awk '{ n += $NF } END { print n + 0 }')
  notes=$(grep -o 'class="data-lacking"' "$tmp/one-line.html" | wc -l)
  [[ $marked -gt 0 ]] && pass "$marked values and tables read \"not measured\"" ||
    fail "no value is marked as not measured, though the run lacks rows"
  [[ $marked -eq $counted ]] && pass "the sections' notes count them all ($notes notes, $counted in all)" ||
    fail "the notes count $counted, the report marks $marked"
  # The div opened just before each note is its section's data box (which holds no div).
  under=$(grep -o '<div class="[a-z-]*"' "$tmp/one-line.html" | grep -B1 'data-lacking' | grep -c provenance)
  [[ $notes -gt 0 && $under -eq $notes ]] && pass "each note sits under its section's data box" ||
    fail "$under of $notes notes sit under their section's data box"
  grep -q 'narrows it (<code>--sizes</code>)' "$tmp/one-line.html" &&
    pass "the notes name the option that narrowed the run" || fail "no note names --sizes"
  values=$(grep -o 'class="csv-value"' "$tmp/one-line.html" | wc -l)
  [[ $values -gt 0 ]] && pass "$values values the run holds still read as numbers" || fail "no value was rendered at all"
else
  tail -n 5 "$tmp/run.log" >&2
  fail "the report does not render from a run that lacks rows its text quotes"
fi

# What stays loud in a run of one's own: a lookup into committed data (a path with a slash)
# that matches nothing, and a typo in a pick column or a value expression, rows or not. Each is
# appended to experiment 13's section in a copy of the package, alone.
copy=$tmp/package
copy_package "$copy" || { echo "FAIL: cannot copy the package's files" >&2; exit 1; }
section=$copy/experiments/13-best-transpose/section.md
cp "$section" "$tmp/section.md"
loud() {  # LABEL SPAN WHAT: with SPAN appended, the narrowed run must stop and say WHAT
  { cat "$tmp/section.md"; printf '\n%s\n' "$2"; } > "$section"
  if (cd "$copy" && REPORT_OUT=$tmp/out-$1 FIGURES_OUT=$tmp/fig-$1 ONLY_EXPERIMENTS=13 scripts/build-report "$run") \
      > "$tmp/$1.log" 2>&1; then
    fail "$1: the narrowed run rendered"
  else
    grep -qF -- "$3" "$tmp/$1.log" && pass "$1: still stops the report, naming '$3'" ||
      { tail -n 3 "$tmp/$1.log" >&2; fail "$1: stopped without naming '$3'"; }
  fi
}
loud committed '[]{.csv-value src="docs/measurements/waves-probe-wide-write-h200-9c5cdbb.csv" where="rows=1" value="median_us"}' \
  'waves-probe-wide-write-h200-9c5cdbb.csv: no row matches where="rows=1"'
loud pick-typo '[]{.csv-value src="13-best-transpose-summary.csv" where="rows=1" pick="max:valu" value="value"}' "column 'valu'"
loud expr-typo '[]{.csv-value src="13-best-transpose-summary.csv" where="rows=1" value="=valeu*2"}' "no column 'valeu'"

# The same folder as a reference among the package's own: strict.
mkdir -p "$tmp/ref"
ln -s "$src"/results/reference/* "$tmp/ref/"
cp -r "$run" "$tmp/ref/narrowed"
if (cd "$src" && REFERENCE_DIR=$tmp/ref REPORT_OUT=$tmp/out-ref FIGURES_OUT=$tmp/fig-ref \
    scripts/build-report "$tmp/ref/narrowed") > "$tmp/ref.log" 2>&1; then
  fail "a reference folder that lacks quoted rows rendered"
else
  grep -q 'csv-data: .*no row matches where=' "$tmp/ref.log" &&
    pass "a reference folder that lacks them stops the report, naming the file and selector" ||
    { tail -n 3 "$tmp/ref.log" >&2; fail "the reference folder failed for another reason"; }
fi

if [[ $failures -gt 0 ]]; then
  echo "narrowed_run_report: $failures check(s) failed" >&2
  exit 1
fi
echo "narrowed_run_report: all checks passed"
