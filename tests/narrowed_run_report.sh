#!/usr/bin/env bash
# A report renders from a run of its own results folder that lacks configurations the text
# quotes (a run narrowed by --quick or --sizes, or one that skipped what the machine cannot
# hold): each value it lacks reads "not measured", and a note under the section's
# data box counts them and names the options that narrowed it. A reference folder that lacks
# the same rows still stops the report, naming the file and the selector (a reference is the
# full run, so a selector that matches nothing there is an error in the text).
# The narrowed run is made from a committed GPU reference: each experiment's CSVs cut to the
# first shape they list, and its command line given the --sizes that would have done it.
#   tests/narrowed_run_report.sh SOURCE_DIR       exit 0 pass, 1 fail, 77 no GPU reference
# check && pass || fail is safe here: pass only echoes.
# shellcheck disable=SC2015
# shellcheck source=tests/report_test_env.sh
. "$(dirname "$0")/report_test_env.sh" narrowed-run "$@"

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
  counted=$(grep -o 'Not measured in this run:</strong> *[0-9]*' "$tmp/one-line.html" | awk '{ n += $NF } END { print n + 0 }')
  notes=$(grep -o 'class="data-lacking"' "$tmp/one-line.html" | wc -l)
  [[ $marked -gt 0 ]] && pass "$marked values and tables read \"not measured\"" ||
    fail "no value is marked as not measured, though the run lacks rows"
  [[ $marked -eq $counted ]] && pass "the sections' notes count them all ($notes notes, $counted in all)" ||
    fail "the notes count $counted, the report marks $marked"
  grep -q 'narrows it (<code>--sizes</code>)' "$tmp/one-line.html" &&
    pass "the notes name the option that narrowed the run" || fail "no note names --sizes"
  values=$(grep -o 'class="csv-value"' "$tmp/one-line.html" | wc -l)
  [[ $values -gt 0 ]] && pass "$values values the run holds still read as numbers" || fail "no value was rendered at all"
else
  tail -n 5 "$tmp/run.log" >&2
  fail "the report does not render from a run that lacks rows its text quotes"
fi

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
