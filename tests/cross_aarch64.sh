#!/usr/bin/env bash
# The package on another CPU architecture: the library and the CPU test program built for
# AArch64 (as on a Grace Hopper or Graviton machine) with Debian's cross compiler, then run
# under qemu's user-mode emulation. What this shows: the sources build off x86 (no x86
# intrinsics, cpuid or AVX dispatch outside their guards), the Advanced SIMD kernels
# (simd_kernels_neon.cpp) are exact for every element type and shape the SIMD tests try,
# and the program's environment record names the path it chose. What it cannot show: any
# speed (qemu is not the hardware), hence the suites left out: the seed claims time cache
# effects, and the program suite starts AArch64 child processes, which need binfmt_misc.
#
# Usage: cross_aarch64.sh SOURCE_ROOT BUILD_ROOT. Skips (77) without the cross compiler or
# qemu: `scripts/install-deps --cross` installs both (CI does).
set -uo pipefail
src=${1:?source root} build=${2:?build root}
for tool in aarch64-linux-gnu-g++ qemu-aarch64 cmake; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "SKIP: $tool not found (scripts/install-deps --cross installs the AArch64 cross compiler and qemu)"
    exit 77
  fi
done
sysroot=/usr/aarch64-linux-gnu
dir=$build/cross-aarch64
fail() { echo "FAIL: $*"; exit 1; }

# Meson finds doctest through CMake here too (Debian's doctest-dev has no pkg-config file).
ini=$build/cross-aarch64.ini
cat >"$ini" <<EOF
[binaries]
c = 'aarch64-linux-gnu-gcc'
cpp = 'aarch64-linux-gnu-g++'
ar = 'aarch64-linux-gnu-ar'
strip = 'aarch64-linux-gnu-strip'
cmake = 'cmake'
pkg-config = 'false'
exe_wrapper = ['qemu-aarch64', '-L', '$sysroot']

[host_machine]
system = 'linux'
cpu_family = 'aarch64'
cpu = 'aarch64'
endian = 'little'
EOF
if [[ ! -f $dir/build.ninja ]]; then
  meson setup "$dir" "$src" --cross-file "$ini" --buildtype=release -Dgpu=disabled >"$build/cross-aarch64-setup.log" 2>&1 ||
    { tail -20 "$build/cross-aarch64-setup.log"; fail "meson could not configure the AArch64 build"; }
fi
# Beside the other tests: a lower priority, so that their timings feel it less.
nice -n 10 ninja -C "$dir" src/tlab-info tests/tlab-tests >"$build/cross-aarch64-build.log" 2>&1 ||
  { grep -m 20 -B2 -A8 'error' "$build/cross-aarch64-build.log"; fail "the AArch64 build failed"; }
file_of=$(od -An -tx1 -j18 -N2 "$dir/tests/tlab-tests" | tr -d ' \n')
[[ $file_of == b700 ]] || fail "tests/tlab-tests is not an AArch64 executable (ELF machine $file_of, 0xb7 expected)"

export QEMU_LD_PREFIX=$sysroot
env_json=$(qemu-aarch64 "$dir/src/tlab-info" env) || fail "tlab-info env failed under qemu"
grep -q '"cpu_simd_isas": "scalar neon"' <<<"$env_json" || fail "the AArch64 build does not list its neon path: $(grep simd <<<"$env_json")"
grep -q '"cpu_simd_auto": "neon' <<<"$env_json" || fail "auto does not take the neon path: $(grep simd_auto <<<"$env_json")"
grep -q '"os": "Linux .* aarch64"' <<<"$env_json" || fail "the environment record does not say aarch64"

nice -n 10 qemu-aarch64 "$dir/tests/tlab-tests" --no-colors=true --test-suite-exclude=seeds,program \
  >"$build/cross-aarch64-tests.log" 2>&1
rc=$?
tail -4 "$build/cross-aarch64-tests.log"
[[ $rc -eq 0 ]] || { grep -m 10 -A6 'ERROR' "$build/cross-aarch64-tests.log"; fail "the CPU tests failed on AArch64 (under qemu)"; }
grep -q 'Status: SUCCESS' "$build/cross-aarch64-tests.log" || fail "the test program did not report success"
echo "PASS: the AArch64 build passes the CPU tests under qemu (simd path: neon)"
