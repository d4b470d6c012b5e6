#!/usr/bin/env bash
# Two ranks, each its own process (scripts/dist-launch), transpose shapes that two does not
# divide, every element type, exact; then one rank per GPU where the machine has more than two.
# Exit 77 (skipped) without two GPUs or without NCCL.
# usage: tests/gpu/dist_processes.sh TLAB_DIST SOURCE_DIR
set -uo pipefail
prog=$1 root=$2
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
if [[ ${gpus:-0} -lt 2 ]]; then
  echo "SKIP: one process per GPU needs two GPUs, ${gpus:-0} here"
  exit 77
fi
failures=0
one_run() {  # RANKS TYPE SHAPE CHUNKS
  local out rc
  out=$("$root/scripts/dist-launch" "$1" "$prog" "$@" 2>&1)
  rc=$?
  [[ $rc -eq 77 ]] && { echo "SKIP: $out"; exit 77; }
  if [[ $rc -ne 0 ]]; then
    echo "FAIL: $1 processes, ${*:2} -> exit $rc:"; sed 's/^/    /' <<< "$out" | head -5
    failures=$((failures + 1))
  else
    echo "$out"
  fi
}
for args in "uint8 999x1001 3" "uint16 1001x999 1" "float 4097x3001 4" "double 3x5 2" "complex128 1000x257 16"; do
  # shellcheck disable=SC2086  # the arguments are words
  one_run 2 $args
done
if [[ $gpus -gt 2 ]]; then
  for args in "uint8 1001x999 5" "float 4097x3001 2" "complex128 257x1000 1"; do
    # shellcheck disable=SC2086  # the arguments are words
    one_run "$gpus" $args
  done
fi
# A third rank where only two were asked for by the environment is refused by every process.
out=$(TLAB_DIST_RANK=0 TLAB_DIST_RANKS=2 TLAB_DIST_ID_FILE=/nonexistent/id "$prog" 3 float 64 2>&1)
rc=$?
[[ $rc -eq 2 ]] || { echo "FAIL: RANKS 3 against TLAB_DIST_RANKS=2 -> exit $rc: $out"; failures=$((failures + 1)); }
echo "dist_processes: $failures failures"
[[ $failures -eq 0 ]]
