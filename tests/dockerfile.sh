#!/usr/bin/env bash
# The Dockerfile's base is a build argument (BASE, default the NVIDIA CUDA devel image of the
# CUDA_VERSION build argument), it installs through the same script CI runs (so CI exercises
# its install step), builds with the Makefile, and its entry point exists and is executable;
# `make container-check`, which builds it for real, is there. No Docker engine is needed.
# usage: tests/dockerfile.sh SOURCE_DIR
set -uo pipefail
src=$1
df="$src/Dockerfile"
fail() { echo "FAIL: $*"; exit 1; }
[[ -f $df ]] || fail "no Dockerfile"

# Line numbers (0 when absent) of the lines that matter, for the order checks.
line_of() { grep -nE "$1" "$df" | head -n 1 | cut -d: -f1 | grep . || echo 0; }
from=$(line_of '^FROM ')
[[ $from -gt 0 ]] || fail "no FROM line"
[[ $(grep -cE '^FROM ' "$df") -eq 1 ]] || fail "more than one FROM (the checks assume one stage)"

# The base: FROM ${BASE}, both build arguments declared before it, and the default
# (CUDA_VERSION substituted) an NVIDIA CUDA devel image.
grep -Eq '^FROM \$\{?BASE\}?$' "$df" || fail "FROM does not take the base image from the BASE build argument"
cuda_line=$(line_of '^ARG CUDA_VERSION=')
base_line=$(line_of '^ARG BASE=')
[[ $cuda_line -gt 0 ]] || fail "no 'ARG CUDA_VERSION=<default>' build argument"
[[ $base_line -gt 0 ]] || fail "no 'ARG BASE=<default>' build argument"
[[ $cuda_line -lt $base_line && $base_line -lt $from ]] \
  || fail "ARG CUDA_VERSION, then ARG BASE, must both come before FROM"
cuda_default=$(sed -n 's/^ARG CUDA_VERSION=\(.*\)$/\1/p' "$df" | head -n 1)
[[ $cuda_default =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "CUDA_VERSION default '$cuda_default' is not a version like 13.0.0"
base_default=$(sed -n 's/^ARG BASE=\(.*\)$/\1/p' "$df" | head -n 1)
[[ $base_default == *'${CUDA_VERSION}'* ]] || fail "the BASE default '$base_default' does not use CUDA_VERSION"
resolved=${base_default//'${CUDA_VERSION}'/$cuda_default}
[[ $resolved =~ ^nvidia/cuda:${cuda_default//./\\.}-devel-[a-z]+[0-9.]+$ ]] \
  || fail "the default base '$resolved' is not an NVIDIA CUDA devel image"

# Installs through scripts/install-deps (after FROM), then builds with make.
install=$(line_of '^RUN scripts/install-deps$')
[[ $install -gt $from ]] || fail "the Dockerfile does not install through scripts/install-deps"
grep -Eq '^COPY scripts/install-deps scripts/install-deps$' "$df" || fail "the Dockerfile does not copy scripts/install-deps in"
grep -q 'scripts/install-deps' "$src/.ci/run" || fail ".ci/run does not run scripts/install-deps"
build=$(line_of '^RUN make build$')
[[ $build -gt $install ]] || fail "the Dockerfile does not build with make after installing"
entry=$(sed -n 's/^ENTRYPOINT \["\([^"]*\)".*/\1/p' "$df")
[[ -n $entry && -x "$src/$entry" ]] || fail "entry point '$entry' missing or not executable"
bash -n "$src/$entry" || fail "entry point has a syntax error"
# Every make target the entry point and the Makefile's docker-run use exists.
make -C "$src" -n report-only RESULTS=/nonexistent >/dev/null 2>&1 || fail "make report-only is not a target"
grep -q '^docker-run:' "$src/Makefile" && grep -q '^docker-build:' "$src/Makefile" || fail "Makefile lacks docker targets"
# The real build check.
grep -q '^container-check:' "$src/Makefile" || fail "Makefile lacks the container-check target"
[[ -x $src/scripts/container-check ]] || fail "scripts/container-check missing or not executable"
bash -n "$src/scripts/container-check" || fail "scripts/container-check has a syntax error"
grep -q 'BASE=' "$src/scripts/container-check" || fail "scripts/container-check does not set the BASE build argument"
echo "dockerfile: all checks passed"
