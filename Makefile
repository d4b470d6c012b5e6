# transpose-lab front door. `make report` regenerates everything; `make test` runs the tests.
# Meson and Ninja do the building; this file only orders the steps.

BUILD    ?= build
QUICK    ?=
# nvcc lives outside the default PATH on Debian's CUDA installs; meson finds it here.
CUDA_BIN ?= /usr/local/cuda/bin
export PATH := $(CUDA_BIN):$(PATH)

INFO      = $(BUILD)/src/tlab-info
TAG       = $(shell $(INFO) tag 2>/dev/null || echo local)
RESULTS  ?= results/$(TAG)$(if $(QUICK),-quick,)
EXP_ARGS  = $(if $(QUICK),--quick,) --out $(RESULTS)
EXPERIMENTS = $(sort $(notdir $(wildcard experiments/[0-9][0-9]-*)))

ASAN_BUILD ?= build-asan

# exp-NN is not listed: make skips pattern rules for phony targets, so `make exp-01` would
# do nothing. It always runs anyway, through its phony prerequisite `build`.
.PHONY: all build deps test test-sanitize report results report-only clean help docker-build docker-run container-check \
        gpu-test gpu-sanitize gpu-ncu compare tune

all: build

help:
	@echo "make             build (Release; CUDA parts when nvcc is found)"
	@echo "make test        build and run the tests (GPU tests skip without a device)"
	@echo "make test-sanitize   the CPU tests under AddressSanitizer and UBSan (build-asan/)"
	@echo "make gpu-test / gpu-sanitize / gpu-ncu   on a GPU machine: GPU tests, under compute-sanitizer, ncu counters"
	@echo "make report      run every experiment this machine can run, render figures and report/build/report.html"
	@echo "make report QUICK=1   the same with small sizes (minutes)"
	@echo "make exp-01      run one experiment (results into RESULTS=$(RESULTS))"
	@echo "make results     run the experiments only"
	@echo "make report-only RESULTS=dir   render from existing results, no runs (RESULTS=results/reference/<gpu> works alone)"
	@echo "  REFERENCE=name   with report/report-only: the reference folder that fills what RESULTS lacks (default: newest)"
	@echo "make compare [RESULTS=\"dirA dirB\"]   one report over several machines: report/build/compare.html"
	@echo "make tune        on a GPU machine: measure the kernels, write tuning/<gpu>.tsv for tlab::Plan"
	@echo "  CLASS=a,b        those shape classes only (e.g. rect-small), keeping the table's other rows"
	@echo "  PLACEMENT=p      in-place or out-of-place only"
	@echo "make clean       remove build outputs, figures and the report"
	@echo "make docker-build / docker-run   the container: dependencies through scripts/install-deps, then make report"
	@echo "make container-check   build the Dockerfile with podman on a local Debian 12 base, run make test and make report QUICK=1 in it (root)"

deps:
	@scripts/install-deps

$(BUILD)/build.ninja:
	meson setup $(BUILD) --buildtype=release

build: deps $(BUILD)/build.ninja
	@scripts/drop-stale-cuda-objects $(BUILD)
	ninja -C $(BUILD)

test: build
	@scripts/run-tests $(BUILD)

# The CPU suites again, built with AddressSanitizer and UndefinedBehaviorSanitizer (any
# report fails the test). GPU code is left out: compute-sanitizer covers it on a GPU machine
# (scripts/gpu-suite sanitize).
$(ASAN_BUILD)/build.ninja:
	meson setup $(ASAN_BUILD) --buildtype=debugoptimized -Dgpu=disabled -Db_sanitize=address,undefined \
	  -Db_lundef=false -Dcpp_args=-fno-sanitize-recover=undefined

test-sanitize: deps $(ASAN_BUILD)/build.ninja
	ninja -C $(ASAN_BUILD)
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  scripts/run-tests $(ASAN_BUILD) --suite cpu

exp-%: build
	@scripts/run-experiments $(BUILD) "$(RESULTS)" "$(if $(QUICK),--quick,)" $*

results: build
	@scripts/run-experiments $(BUILD) "$(RESULTS)" "$(if $(QUICK),--quick,)"

report: results
	@$(MAKE) --no-print-directory report-only RESULTS="$(RESULTS)"

report-only: deps
	@scripts/build-report "$(RESULTS)"

# On a machine with a CUDA device: the GPU suite for real, under compute-sanitizer
# (memcheck and racecheck, small sizes), and the Nsight Compute bank-conflict counters.
gpu-test:
	scripts/gpu-suite build && scripts/gpu-suite test

gpu-sanitize:
	scripts/gpu-suite build && scripts/gpu-suite sanitize

gpu-ncu:
	scripts/gpu-suite build && scripts/ncu-bank-conflicts build-gpu "$(RESULTS)"

# make compare RESULTS="dirA dirB ...": one report over several results folders (one machine
# each), every GPU normalised to its own memcpy, the seeds' published GPUs as rows. Without
# RESULTS given: every committed reference folder plus this machine's results folder.
COMPARE_OUT ?= report/build
COMPARE_DIRS = $(if $(filter command line environment environment override,$(origin RESULTS)),$(RESULTS),$(patsubst %/,%,$(sort $(wildcard results/reference/*/))) $(wildcard $(RESULTS)))

compare: build
	@BUILD_DIR="$(BUILD)" scripts/build-compare "$(COMPARE_OUT)" $(COMPARE_DIRS)

IMAGE ?= transpose-lab
docker-build:
	docker build -t $(IMAGE) .

docker-run:
	docker run --rm --gpus all -v "$(CURDIR)/results:/results" $(IMAGE) $(if $(QUICK),report QUICK=1,report)

# Builds the Dockerfile for real without Docker or a GPU (podman/buildah, chroot isolation, a
# Debian 12 base made with debootstrap) and runs make test and make report QUICK=1 inside.
container-check:
	@scripts/container-check

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-gpu report/build figures/*.svg

tune: build
	$(BUILD)/src/tlab-tune $(if $(CLASS),--class $(CLASS)) $(if $(PLACEMENT),--placement $(PLACEMENT))
