# transpose-lab in a container, for reruns on other GPUs:
#   make docker-build                      (docker build -t transpose-lab .)
#   make docker-run                        (docker run --gpus all -v $PWD/results:/results transpose-lab)
# The image installs its dependencies through scripts/install-deps, the script CI runs, and
# by default runs `make report` with the results and the report written to the mounted
# /results folder, under the machine's tag.
#
# The base is the NVIDIA CUDA devel image of CUDA_VERSION (default 13.0.0: needs an NVIDIA
# driver of the 580 series or newer, serves Turing (sm_75) and newer; Volta, Pascal and
# older are not supported by CUDA 13). With an older driver pick a 12.x base, e.g.
#   docker build --build-arg CUDA_VERSION=12.8.1 -t transpose-lab .
# (CUDA 12.x: driver 525 or newer; nvcc 12 knows the portable gpu_arch list '75;80;86;89;90',
# which gpu_arch=auto takes here: the image is built without a GPU).
# BASE replaces the whole base image; `make container-check` sets it to a plain Debian 12
# base made locally (no nvcc: a CPU-only build) to build and test this file without a GPU.
ARG CUDA_VERSION=13.0.0
ARG BASE=nvidia/cuda:${CUDA_VERSION}-devel-ubuntu24.04
FROM ${BASE}

ENV DEBIAN_FRONTEND=noninteractive
WORKDIR /src
# make runs everything below; minimal bases (Debian, Ubuntu) come without it.
RUN command -v make >/dev/null 2>&1 || { apt-get update -qq && \
    apt-get install -y -qq --no-install-recommends make >/dev/null; }
COPY scripts/install-deps scripts/install-deps
RUN scripts/install-deps
# The image holds no .git: whoever builds it may name the commit (and whether the tree had
# uncommitted changes), recorded in every results folder's env.json; empty: "not a git checkout".
#   docker build --build-arg TLAB_GIT_COMMIT=$(git rev-parse HEAD) ...   (make container-check does)
ARG TLAB_GIT_COMMIT=
ARG TLAB_GIT_DIRTY=
ENV TLAB_GIT_COMMIT=${TLAB_GIT_COMMIT} TLAB_GIT_DIRTY=${TLAB_GIT_DIRTY}
COPY . /src
RUN make build

VOLUME /results
ENTRYPOINT ["scripts/docker-entry"]
CMD ["report"]
