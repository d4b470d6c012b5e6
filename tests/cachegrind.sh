#!/usr/bin/env bash
# scripts/cachegrind-inplace: without valgrind it writes nothing, says so and exits 0 (the
# report then says "not measured"); with valgrind, at two tiny sizes, every in-place variant
# gets every counter, and the counts are those of one transpose alone (the naive swap reads
# and writes each off-diagonal element once; nothing is negative); bad arguments are exit 2.
#   tests/cachegrind.sh BUILD_DIR SOURCE_DIR        exit 0 pass, 1 fail
# check && pass || fail is safe here: pass only echoes.
# shellcheck disable=SC2015
set -uo pipefail
[[ $# -eq 2 ]] || { echo "usage: $0 BUILD_DIR SOURCE_DIR" >&2; exit 1; }
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
script=$src/scripts/cachegrind-inplace
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cachegrind-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }

# No valgrind: a PATH holding only what the script needs besides it.
mkdir -p "$tmp/bin"
for c in bash mktemp rm mkdir mv awk tail; do ln -s "$(command -v "$c")" "$tmp/bin/$c"; done
PATH=$tmp/bin "$script" "$build" "$tmp/none" > "$tmp/none.log" 2>&1
rc=$?
[[ $rc -eq 0 && ! -e $tmp/none/01-cpu-opt-levels-cachegrind.csv ]] && grep -q "valgrind not found" "$tmp/none.log" &&
  pass "without valgrind: exit 0, nothing written, 'valgrind not found'" ||
  { cat "$tmp/none.log" >&2; fail "without valgrind: exit $rc, or a file written, or no message"; }

"$script" "$build" > /dev/null 2>&1
[[ $? -eq 2 ]] && pass "a missing argument is exit 2" || fail "a missing argument is not exit 2"
"$script" "$build" "$tmp/x" --fast > /dev/null 2>&1
[[ $? -eq 2 ]] && pass "an unknown option is exit 2" || fail "an unknown option is not exit 2"

command -v valgrind >/dev/null 2>&1 || { echo "skip: valgrind is not installed here"; [[ $failures -eq 0 ]] && exit 77; exit 1; }

sizes="32 48"
if ! CACHEGRIND_SIZES=$sizes "$script" "$build" "$tmp/out" > "$tmp/run.log" 2>&1; then
  cat "$tmp/run.log" >&2
  fail "cachegrind-inplace failed at sizes $sizes"
else
  csv=$tmp/out/01-cpu-opt-levels-cachegrind.csv
  header=$(head -n 1 "$csv")
  [[ $header == "experiment,variant,dtype,elem_bytes,rows,cols,d1_bytes,d1_ways,ll_bytes,ll_ways,line_bytes,counter,value" ]] &&
    pass "header as docs/csv-schema.md says" || fail "header: $header"
  variants=$(tail -n +2 "$csv" | cut -d, -f2 | sort -u | wc -l)
  rows=$(($(wc -l < "$csv") - 1))
  [[ $variants -eq 5 && $rows -eq $((5 * 2 * 7)) ]] && pass "5 variants x 2 sizes x 7 counters" ||
    fail "$variants variants, $rows rows (want 5 and 70)"
  tail -n +2 "$csv" | awk -F, '$13 !~ /^[0-9]+$/ { bad = 1 } END { exit bad }' &&
    pass "every count is a whole number, none negative" || fail "a count that is not a whole number >= 0"
  # The naive swap moves each of the n(n-1) off-diagonal elements once: that many reads and
  # writes, not twice as many (set-up is subtracted). The two processes' set-up differs by a
  # few dozen references (their arguments are parsed differently), hence the margin; the
  # counts must also be the same in a second run (nothing else in the process moves them).
  for n in $sizes; do
    for c in Dr Dw; do
      v=$(awk -F, -v n="$n" -v c="$c" '$2 == "cpu/inplace-naive@O3" && $5 == n && $12 == c { print $13 }' "$csv")
      [[ -n $v && $v -ge $((n * (n - 1) - 64)) && $v -lt $((2 * n * (n - 1))) ]] &&
        pass "naive swap at $n: $c = $v, one per off-diagonal element" ||
        fail "naive swap at $n: $c = '$v', not between n(n-1) and twice that"
    done
  done
  if CACHEGRIND_SIZES=32 "$script" "$build" "$tmp/again" > "$tmp/again.log" 2>&1; then
    diff <(grep ',32,32,' "$csv") "$tmp/again/01-cpu-opt-levels-cachegrind.csv" | grep -q '^[<>] 01' &&
      fail "a second run at 32 counted differently" || pass "a second run at 32 counts the same"
  else
    cat "$tmp/again.log" >&2
    fail "cachegrind-inplace failed at 32 the second time"
  fi
fi

[[ $failures -eq 0 ]] || { echo "cachegrind: $failures check(s) failed" >&2; exit 1; }
echo "cachegrind: all checks passed"
