// Experiment 11: the row-and-column matrix sort on the GPU (seed 003): the seed's row-sort
// kernels, a bitonic block sort, CUB's two segmented sorts, the seed's loop with its check
// kernel, and the fastest sort from each kind of host memory and with the seed's streamed
// schedules; beside the one-pass CPU sorts (int32) measured on the same machine.
#include "tlab/sort/sort_bench.hpp"

int main(int argc, char** argv) {
  tlab::ExperimentSpec spec{"11-gpu-matrix-sort", "row-and-column matrix sort on the GPU, against the CPU on the same machine",
                            tlab::parse_sizes("1024,4096,16384,16384x1024,1024x16384"),
                            tlab::parse_sizes("256,1024,1024x256")};
  return tlab::experiment_main(argc, argv, spec, [](tlab::ExperimentRun& run) {
    // The CPU baselines for int32, the type the GPU is compared with (experiment 09 has the others).
    tlab::sort::run_sort_sweep(run, {{"cpu/sort-sequential", "cpu/sort-threaded"}, {tlab::DType::i32}, true});
  });
}
