#!/usr/bin/env bash
# Every committed reference folder renders the whole report alone: no build, nothing run, from
# a copy of the package's files unpacked inside another git repository (as a reader who
# downloaded an archive into their own checkout would have it). The copy must name no commit
# of that enclosing repository.
#   tests/reference_reports.sh SOURCE_DIR        exit 0 pass, 1 fail, 77 no reference folder
# check && pass || fail is safe here: pass only echoes.
# shellcheck disable=SC2015
# shellcheck source-path=SCRIPTDIR source=report_test_env.sh
. "$(dirname "$0")/report_test_env.sh" reference-reports "$@"

# The enclosing repository, with a commit of its own.
outer=$tmp/outer
git init -q "$outer" && git -C "$outer" -c user.email=t@example.invalid -c user.name=t \
  commit -q --allow-empty -m outer || { echo "FAIL: cannot make a git repository" >&2; exit 1; }
outer_commit=$(git -C "$outer" rev-parse --short=10 HEAD)
copy=$outer/transpose-lab
copy_package "$copy" || { echo "FAIL: cannot copy the package's files" >&2; exit 1; }
[[ -d $copy/results/reference ]] || { echo "skip: no results/reference in the package"; exit 77; }

sections=$(ls -d "$copy"/experiments/[0-9][0-9]-*/section.md 2>/dev/null | wc -l)
folders=0
for ref in "$copy"/results/reference/*/; do
  ref=${ref%/} label=$(basename "$ref")
  ls "$ref"/[0-9][0-9]-*.csv >/dev/null 2>&1 || continue
  folders=$((folders + 1))
  out=$tmp/out-$label
  if ! (cd "$copy" && REPORT_OUT=$out FIGURES_OUT=$tmp/fig-$label scripts/build-report "results/reference/$label") \
      > "$tmp/$label.log" 2>&1; then
    tail -n 5 "$tmp/$label.log" >&2
    fail "$label: the report does not render from this reference folder alone"
    continue
  fi
  pass "$label: report.html rendered with nothing built or run"
  n=$(wc -l < "$out/data-sources.tsv")
  [[ $n -eq $sections ]] && pass "$label: all $sections experiment sections are in the report" ||
    fail "$label: $n of $sections sections are in the report"
  # A section no folder holds is allowed only where the experiment says how to run it
  # (experiments/NN-name/unmeasured.md), and the report must say it was not measured.
  unmeasured=$(awk -F'\t' '$4 == "unmeasured"' "$out/data-sources.tsv" | cut -f1 | tr '\n' ' ')
  if [[ -n $unmeasured ]]; then
    bad=""
    for u in $unmeasured; do
      [[ -f $copy/experiments/$u/unmeasured.md ]] && grep -qF "holds <code>$u.csv</code>" "$out/report.html" || bad+="$u "
    done
    [[ -z $bad ]] && pass "$label: no folder holds ${unmeasured% }; the report says it was not measured" ||
      fail "$label: sections without data that do not say so: $bad"
  fi
  # Each section takes this folder's data, or says which folder it took instead and why.
  own=$(awk -F'\t' -v d="$ref" '$3 == d && $4 == "named"' "$out/data-sources.tsv" | wc -l)
  other=$(awk -F'\t' -v d="$ref" '$3 != d && $4 != "unmeasured"' "$out/data-sources.tsv" | cut -f1 | tr '\n' ' ')
  [[ $own -gt 0 ]] && pass "$label: $own sections from this folder${other:+; from other reference folders: $other}" ||
    fail "$label: no section took this folder's data"
  if [[ -n $other ]]; then
    awk -F'\t' -v d="$ref" '$3 != d && $4 !~ /^named-lacks:/ && $4 != "unmeasured"' "$out/data-sources.tsv" | grep -q . &&
      fail "$label: a section took another folder without saying this one lacks it" ||
      pass "$label: every section from another folder says this one lacks it"
  fi
  grep -q "not a git checkout" "$out/report.html" && ! grep -q "$outer_commit" "$out/report.html" &&
    pass "$label: the report names the package version, not the enclosing repository's commit" ||
    fail "$label: the report's source line names the enclosing repository, or no version"
  grep -qi "warning" "$tmp/$label.log" && { grep -i warning "$tmp/$label.log" | head -n 3 >&2; fail "$label: warnings while rendering"; } ||
    pass "$label: no warnings while rendering"
done
[[ $folders -gt 0 ]] || { echo "skip: no reference folder holds experiment results"; exit 77; }

if [[ $failures -gt 0 ]]; then
  echo "reference_reports: $failures check(s) failed" >&2
  exit 1
fi
echo "reference_reports: all $folders reference folder(s) render alone"
