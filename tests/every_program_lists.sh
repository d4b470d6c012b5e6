#!/usr/bin/env bash
# Every experiment program answers --list with exit code 0 and writes nothing, in any build:
# with CUDA or without it (there a GPU experiment says "skipping: this build has no CUDA"),
# with a GPU or without one. `make report` on a machine without nvcc depends on it.
# usage: tests/every_program_lists.sh BUILD_DIR
set -uo pipefail
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0 n=0
for p in "$build"/experiments/exp-[0-9][0-9]-*; do
  [[ -f $p && -x $p ]] || continue
  n=$((n + 1))
  "$p" --list --quick --out "$tmp/out" > "$tmp/stdout" 2> "$tmp/stderr"
  rc=$?
  if [[ $rc -ne 0 ]]; then
    echo "FAIL: $(basename "$p") --list -> exit $rc:"; sed 's/^/    /' "$tmp/stderr" | head -3
    failures=$((failures + 1))
  fi
  if [[ -n $(find "$tmp/out" -type f 2>/dev/null) ]]; then
    echo "FAIL: $(basename "$p") --list wrote files"; failures=$((failures + 1))
  fi
  rm -rf "$tmp/out"
done
[[ $n -gt 0 ]] || { echo "FAIL: no experiment programs in $build"; exit 1; }
echo "every_program_lists: $n programs, $failures failures"
[[ $failures -eq 0 ]]
