#!/usr/bin/env bash
# An experiment interrupted mid-run (SIGINT, SIGTERM, SIGKILL) leaves no partial CSV: the
# previous complete file stays, byte for byte, or there is none; a rerun completes.
# usage: tests/interrupt.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
set -m  # job control: background jobs must not ignore SIGINT, as they do by default
build=$1 src=$2
exp="$build/experiments/exp-01-cpu-opt-levels"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# A first, complete run.
"$exp" --sizes 2^5 --budget 0.01 --out "$tmp/r" 2>/dev/null || fail "tiny run failed"
csv="$tmp/r/01-cpu-opt-levels.csv"
[[ -s $csv ]] || fail "no CSV after a complete run"
before=$(md5sum < "$csv")

for sig in INT TERM KILL; do
  # A long run into the same folder, interrupted after it has started measuring.
  "$exp" --sizes 2^9..2^11 --budget 2 --out "$tmp/r" 2>"$tmp/err" &
  pid=$!
  for _ in $(seq 50); do grep -q '\] 2/' "$tmp/err" 2>/dev/null && break; sleep 0.1; done
  kill -"$sig" "$pid"
  wait "$pid" 2>/dev/null
  [[ $(md5sum < "$csv") == "$before" ]] || fail "SIG$sig changed the complete CSV"
  ls "$tmp/r" | grep -q '\.tmp\.' && fail "SIG$sig left a temporary file"
done

# An interrupted run into an empty folder leaves no CSV at all.
"$exp" --sizes 2^9..2^11 --budget 2 --out "$tmp/empty" 2>"$tmp/err" &
pid=$!
for _ in $(seq 50); do grep -q '\] 2/' "$tmp/err" 2>/dev/null && break; sleep 0.1; done
kill -INT "$pid"
wait "$pid" 2>/dev/null
ls "$tmp/empty"/*.csv >/dev/null 2>&1 && fail "an interrupted first run left a CSV"

# A leftover temporary file (as SIGKILL during the rename could leave) is cleared by the
# results runner, and a rerun completes.
touch "$tmp/r/01-cpu-opt-levels.csv.tmp.ABC123"
bash "$src/scripts/run-experiments" "$build" "$tmp/r" "--sizes 2^5 --budget 0.01" 01 2>/dev/null || fail "rerun failed"
ls "$tmp/r" | grep -q '\.tmp\.' && fail "run-experiments left the stale temporary file"
[[ $(wc -l < "$csv") -gt 1 ]] || fail "rerun wrote no rows"
echo "interrupt: all checks passed"
