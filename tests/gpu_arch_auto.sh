#!/usr/bin/env bash
# gpu_arch=auto (meson.build): the build is for the GPUs nvidia-smi lists, where nvcc can build
# for each, else for the portable list. Checked by configuring the project beside a stand-in
# nvidia-smi that lists two H100-class GPUs, a GPU this nvcc cannot build for, or no GPU; and
# with gpu_arch given, which auto must not override. Needs nvcc (skips without it).
set -euo pipefail
src=${1:?usage: tests/gpu_arch_auto.sh SOURCE_DIR}
export PATH=/usr/local/cuda/bin:$PATH
command -v nvcc >/dev/null 2>&1 || { echo "SKIP: no nvcc, so no CUDA part to configure"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin"
portable='sm_75, sm_80, sm_86, sm_89, sm_90'

# configure NVIDIA_SMI_SCRIPT [MESON_ARGS...]: prints the CUDA message of a fresh configure.
configure() {
  local smi=$1; shift
  rm -rf "$tmp/b" "$tmp/bin/nvidia-smi"
  [[ -n $smi ]] && { printf '#!/bin/sh\n%s\n' "$smi" > "$tmp/bin/nvidia-smi"; chmod +x "$tmp/bin/nvidia-smi"; }
  PATH=$tmp/bin:$PATH meson setup "$tmp/b" "$src" -Dtests=false -Dgpu=enabled "$@" > "$tmp/log" 2>&1 ||
    { echo "FAIL: meson setup failed"; tail -5 "$tmp/log"; exit 1; }
  grep -o 'CUDA: building GPU kernels for .*' "$tmp/log"
}
expect() {  # expect WHAT GOT WANTED
  [[ $2 == *"$3"* ]] || { echo "FAIL: $1: got '$2', wanted '$3'"; exit 1; }
  echo "ok: $1: $2"
}

expect "two GPUs of compute capability 9.0" "$(configure 'printf "9.0\n9.0\n"')" \
  "for sm_90 (gpu_arch=auto: the GPUs nvidia-smi lists)"
grep -q 'TLAB_GPU_ARCH="sm_90;compute_90"' "$tmp/b/build.ninja" || { echo "FAIL: TLAB_GPU_ARCH not sm_90;compute_90"; exit 1; }
expect "two kinds of GPU" "$(configure 'printf "8.6\n9.0\n"')" "for sm_86, sm_90 (gpu_arch=auto"
expect "a GPU this nvcc cannot build for" "$(configure 'printf "3.5\n"')" \
  "for $portable (gpu_arch=auto: this nvcc cannot build for a local GPU (compute capability 3.5))"
expect "nvidia-smi without a GPU" "$(configure 'echo "No devices were found"; exit 6')" \
  "for $portable (gpu_arch=auto: no GPU found by nvidia-smi)"
given=$(configure 'printf "9.0\n"' -Dgpu_arch=80)
[[ $given == *"for sm_80" ]] || { echo "FAIL: gpu_arch=80 given: got '$given'"; exit 1; }
echo "ok: gpu_arch=80 given: $given"
echo "PASS: gpu_arch=auto follows the GPUs listed and falls back to the portable list"
