// Experiment 11: the row-and-column matrix sort on the GPU (seed 003), the matrix in device
// memory: the seed's row-sort kernels, a bitonic block sort, CUB's two segmented sorts and the
// seed's loop with its check kernel, beside the one-pass CPU sorts (int32) measured on the same
// machine. Where the matrix lives on the host is experiment 12.
#include "tlab/sort/sort_bench.hpp"

int main(int argc, char** argv) {
  tlab::ExperimentSpec spec{"11-gpu-matrix-sort", "row-and-column matrix sort on the GPU (device memory), against the CPU on the same machine",
                            tlab::parse_sizes("1024,2048,4096,8192,16384,16384x1024,1024x16384"),
                            tlab::parse_sizes("256,1024,1024x256")};
  return tlab::experiment_main(argc, argv, spec, [](tlab::ExperimentRun& run) {
    // The CPU baselines for int32, the type the GPU is compared with (experiment 09 has the others).
    tlab::sort::SortSweep sweep;
    sweep.cpu_variants = {"cpu/sort-sequential", "cpu/sort-threaded"};
    sweep.cpu_types = {tlab::DType::i32};
    sweep.gpu = true;
    sweep.gpu_cases = {"gpu/thread-*", "gpu/block-*", "gpu/cub-segmented-radix", "gpu/cub-segmented-sort", "gpu/seed-loop/*"};
    tlab::sort::run_sort_sweep(run, sweep);
  });
}
