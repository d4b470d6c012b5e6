// Experiment 12: the GPU matrix sort of a matrix that lives in host memory (seed 003's memory
// kinds and streams): CUB's segmented radix sort from pinned, pageable and managed memory (with
// and without prefetching) and with the seed's streamed schedules, beside the same sort on a
// matrix already in device memory, all in one run.
#include "tlab/sort/sort_bench.hpp"

int main(int argc, char** argv) {
  tlab::ExperimentSpec spec{"12-gpu-sort-memory", "GPU matrix sort of host data: memory kinds and streamed schedules",
                            tlab::parse_sizes("1024,4096,16384,16384x1024,1024x16384"),
                            tlab::parse_sizes("256,1024,1024x256")};
  return tlab::experiment_main(argc, argv, spec, [](tlab::ExperimentRun& run) {
    tlab::sort::SortSweep sweep;
    sweep.cpu_variants = {};
    sweep.gpu = true;
    sweep.gpu_cases = {"gpu/cub-segmented-radix", "gpu/cub-segmented-radix@*"};
    tlab::sort::run_sort_sweep(run, sweep);
  });
}
