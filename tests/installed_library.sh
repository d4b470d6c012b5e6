#!/usr/bin/env bash
# The library as another project sees it: `meson install` into a scratch prefix, then the
# example program compiled with nothing but the installed header and pkg-config's flags,
# run, and its output checked.
set -euo pipefail
build=${1:?usage: tests/installed_library.sh BUILD_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$build" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
meson install -C "$build" --destdir "$tmp/dest" --quiet >/dev/null
pc=$(find "$tmp/dest" -name transpose-lab.pc | head -1)
[[ -n $pc ]] || { echo "FAIL: no transpose-lab.pc installed"; exit 1; }
[[ -n $(find "$tmp/dest" -path "*/include/tlab/transpose.hpp") ]] || { echo "FAIL: transpose.hpp not installed"; exit 1; }
export PKG_CONFIG_PATH=$(dirname "$pc")
prefix=$(pkg-config --variable=prefix transpose-lab)
flags=$(pkg-config --define-variable=prefix="$tmp/dest$prefix" --static --cflags --libs transpose-lab)
# The example is outside the source tree's include path: only the installed headers serve.
cp "$root/examples/transpose_example.cpp" "$tmp/"
${CXX:-c++} -std=c++17 -o "$tmp/example" "$tmp/transpose_example.cpp" $flags
out=$("$tmp/example")
echo "$out"
grep -q '^ok: cpu/inplace-rect/c2r' <<<"$out" || { echo "FAIL: the example did not report its in-place plan"; exit 1; }
grep -q 'refused as it should be: tlab: the destination is a null pointer' <<<"$out" || { echo "FAIL: no refusal line"; exit 1; }
echo "PASS: the example built against the installed library and ran"
