#!/usr/bin/env bash
# The programs built here link the library as one shared copy (src/meson.build): with CUDA the
# library carries every kernel for every gpu_arch, and a static copy in each program once
# filled 2.9 GB of a CI machine's disk. Fails on any program (tlab-tune aside: it is installed
# and links the installed static library) that does not load libtlab-programs.so.
set -euo pipefail
build=${1:?usage: tests/programs_share_library.sh BUILD_DIR}
lib=libtlab-programs.so
command -v readelf >/dev/null 2>&1 || { echo "SKIP: readelf (binutils) not found"; exit 77; }
[[ -f $build/src/$lib ]] || { echo "FAIL: $build/src/$lib was not built"; exit 1; }
checked=0 own=()
while IFS= read -r -d '' prog; do
  [[ $(head -c 4 "$prog" | tr -d '\0') == $'\x7fELF' ]] || continue
  [[ ${prog##*/} == tlab-tune ]] && continue
  checked=$((checked + 1))
  readelf -d "$prog" | grep -q "(NEEDED).*\[$lib\]" || own+=("${prog#"$build"/}")
done < <(find "$build/src" "$build/experiments" "$build/tests" -type f -perm -u+x ! -name '*.so' ! -path '*.p/*' -print0)
[[ $checked -ge 10 ]] || { echo "FAIL: only $checked programs found under $build"; exit 1; }
if [[ ${#own[@]} -gt 0 ]]; then
  echo "FAIL: ${#own[@]} of $checked programs link their own copy of the library: ${own[*]}"
  exit 1
fi
echo "PASS: all $checked programs load $lib"
