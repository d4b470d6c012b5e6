#!/usr/bin/env bash
# Every experiment program answers bad input with one line on stderr and exit code 2, and
# leaves no file behind: negative, zero, huge and malformed sizes, unknown flags, variants
# and element types, an unwritable output folder, a size no host memory can hold.
# usage: tests/bad_input.sh BUILD_DIR
set -uo pipefail
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0 checked=0
expect_2() {  # program, then its arguments
  local prog=$1
  shift
  local out="$tmp/out-$checked"
  "$prog" "$@" --out "$out" > /dev/null 2> "$tmp/err"
  local rc=$?
  checked=$((checked + 1))
  local lines
  lines=$(grep -c . "$tmp/err")
  if [[ $rc -ne 2 || $lines -ne 1 ]]; then
    echo "FAIL: $(basename "$prog") $* -> exit $rc, $lines stderr lines:"; sed 's/^/    /' "$tmp/err" | head -5
    failures=$((failures + 1))
  fi
  if [[ -n $(find "$out" -type f 2>/dev/null) ]]; then
    echo "FAIL: $(basename "$prog") $* left files in its output folder"; failures=$((failures + 1))
  fi
}
progs=()
for p in "$build"/experiments/exp-[0-9][0-9]-*; do [[ -f $p && -x $p ]] && progs+=("$p"); done
[[ ${#progs[@]} -gt 0 ]] || { echo "FAIL: no experiment programs in $build"; exit 1; }
for p in "${progs[@]}"; do
  expect_2 "$p" --sizes -5
  expect_2 "$p" --sizes 0
  expect_2 "$p" --sizes abc
  expect_2 "$p" --sizes 12x
  expect_2 "$p" --sizes 99999999999999999999
  expect_2 "$p" --sizes 2^40
  expect_2 "$p" --bogus-flag
  expect_2 "$p" --reps
  expect_2 "$p" --types complex7
  expect_2 "$p" --budget -1
done
# An unwritable folder (a path below a regular file cannot be created, even as root).
touch "$tmp/file"
for p in "${progs[@]}"; do
  "$p" --sizes 2^4 --out "$tmp/file/sub" > /dev/null 2> "$tmp/err"
  rc=$?
  checked=$((checked + 1))
  [[ $rc -eq 2 && $(grep -c . "$tmp/err") -eq 1 ]] || { echo "FAIL: $(basename "$p") unwritable --out -> exit $rc"; failures=$((failures + 1)); }
done
# CPU experiment: variants that match nothing, and a size no host can hold.
exp01="$build/experiments/exp-01-cpu-opt-levels"
expect_2 "$exp01" --variants 'no-such-variant*'
expect_2 "$exp01" --sizes 1048576
# A forced instruction set that is no instruction set is refused before anything runs.
TLAB_CPU_ISA=sse9 expect_2 "$build/experiments/exp-14-cpu-roofline" --sizes 64
# tlab-once (the Cachegrind step's one transpose): unknown variant, type, size; not square in
# place; a flag it does not know; too few arguments.
once=$build/src/tlab-once
for args in "no-such-variant int32 64" "cpu/inplace-naive@O3 int33 64" "cpu/inplace-naive@O3 int32 -4" \
    "cpu/inplace-naive@O3 int32 64x96" "cpu/inplace-naive@O3 int32 64 --bogus" "cpu/inplace-naive@O3"; do
  # shellcheck disable=SC2086
  "$once" $args > /dev/null 2> "$tmp/err"
  rc=$?
  checked=$((checked + 1))
  [[ $rc -eq 2 && $(grep -c . "$tmp/err") -eq 1 ]] ||
    { echo "FAIL: tlab-once $args -> exit $rc:"; sed 's/^/    /' "$tmp/err" | head -3; failures=$((failures + 1)); }
done
# tlab-dist (one distributed transpose): its arguments and the one-process-per-GPU
# environment are checked before anything needs a GPU, so these hold on any machine.
dist=$build/src/tlab-dist
check_dist() {  # environment assignments, then arguments
  env "$@" > /dev/null 2> "$tmp/err"
  local rc=$?
  checked=$((checked + 1))
  [[ $rc -eq 2 && $(grep -c . "$tmp/err") -eq 1 ]] ||
    { echo "FAIL: tlab-dist ${*} -> exit $rc:"; sed 's/^/    /' "$tmp/err" | head -3; failures=$((failures + 1)); }
}
for args in "0 float 64" "two float 64" "2 float7 64" "2 float -4" "2 float 64 0" "2 float 64x" "2 float 64 4 x" "2"; do
  # shellcheck disable=SC2086
  check_dist "$dist" $args
done
check_dist TLAB_DIST_RANK=0 "$dist" 2 float 64
check_dist TLAB_DIST_RANK=2 TLAB_DIST_RANKS=2 TLAB_DIST_ID_FILE="$tmp/id" "$dist" 2 float 64
check_dist TLAB_DIST_RANK=0 TLAB_DIST_RANKS=2 TLAB_DIST_ID_FILE="$tmp/id" "$dist" 3 float 64
# tlab-tune: its arguments are checked before it looks for a GPU (a class it has no shapes
# for, a placement that is none, an empty class list, a budget out of range, a flag it does not know).
tune=$build/src/tlab-tune
for args in "--class nope" "--class off-word,nope" "--class ," "--placement sideways" "--budget 0" "--bogus"; do
  # shellcheck disable=SC2086
  expect_2 "$tune" $args
done
# tlab-bus-probe (built with CUDA only) takes no arguments, and says so before it needs a GPU.
probe=$build/src/tlab-bus-probe
if [[ -x $probe ]]; then
  "$probe" --bogus > /dev/null 2> "$tmp/err"
  rc=$?
  checked=$((checked + 1))
  [[ $rc -eq 2 && $(grep -c . "$tmp/err") -eq 1 ]] ||
    { echo "FAIL: tlab-bus-probe --bogus -> exit $rc:"; sed 's/^/    /' "$tmp/err" | head -3; failures=$((failures + 1)); }
fi
echo "bad_input: $checked checks, $failures failures"
[[ $failures -eq 0 ]]
