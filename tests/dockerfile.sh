#!/usr/bin/env bash
# The Dockerfile installs through the same script CI runs (so CI exercises its install
# step), builds with the Makefile, and its entry point exists and is executable. No Docker
# engine is needed.
# usage: tests/dockerfile.sh SOURCE_DIR
set -uo pipefail
src=$1
df="$src/Dockerfile"
fail() { echo "FAIL: $*"; exit 1; }
[[ -f $df ]] || fail "no Dockerfile"
grep -Eq '^FROM nvidia/cuda:[^ ]*devel' "$df" || fail "base image is not an NVIDIA CUDA devel image"
grep -Eq '^RUN scripts/install-deps$' "$df" || fail "the Dockerfile does not install through scripts/install-deps"
grep -q 'scripts/install-deps' "$src/.ci/run" || fail ".ci/run does not run scripts/install-deps"
grep -Eq '^RUN make build$' "$df" || fail "the Dockerfile does not build with make"
entry=$(sed -n 's/^ENTRYPOINT \["\([^"]*\)".*/\1/p' "$df")
[[ -n $entry && -x "$src/$entry" ]] || fail "entry point '$entry' missing or not executable"
bash -n "$src/$entry" || fail "entry point has a syntax error"
# Every make target the entry point and the Makefile's docker-run use exists.
make -C "$src" -n report-only RESULTS=/nonexistent >/dev/null 2>&1 || fail "make report-only is not a target"
grep -q '^docker-run:' "$src/Makefile" && grep -q '^docker-build:' "$src/Makefile" || fail "Makefile lacks docker targets"
echo "dockerfile: all checks passed"
