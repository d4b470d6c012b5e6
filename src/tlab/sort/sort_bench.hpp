// Experiment 09's measurements: one row per (sort, memory kind, element type, shape), each
// verified (row- and column-sorted, and a permutation of the input) before it is timed.
// Every sample sorts a fresh copy of the same unsorted input; putting it in place is not timed.
#pragma once
#include <string>
#include <vector>

#include "tlab/experiment.hpp"
#include "tlab/sort/gpu_sort.hpp"
#include "tlab/sort/sort_variants.hpp"
#include "tlab/timing.hpp"

namespace tlab::sort {

struct SortRow {
  std::string variant;  // "cpu/sort-sequential", "gpu/block-bitonic", "gpu/cub-segmented-radix@pinned", ...
  std::string memory;   // "host" (CPU sorts) or sort_memory_name()
  int streams = 1;
  std::string order;    // issue order where streams > 1
  DType dtype = DType::i32;
  Shape shape;
  unsigned threads = 1;  // host threads (CPU sorts)
  int iterations = 0;
  long launches = 0;     // GPU: kernel launches and CUB calls per sort
  Timed timed;           // the whole sort as its caller waits for it
  // GPU, one stream: median device seconds per kind of work (CUDA events); negative: not timed.
  double sort_s = -1, transpose_s = -1, keys_s = -1, check_s = -1, copy_s = -1;
};

// The GPU sorts experiment 09 times, by name: each row sort on device memory, the seed's
// loop on its shared-memory kernel, and the fastest sort from each kind of host memory.
struct GpuSortCase {
  std::string name;
  GpuSortOptions options;
};
const std::vector<GpuSortCase>& gpu_sort_cases();

// Throws VerificationError when the result is not a sorted permutation of `input`.
SortRow measure_cpu_sort(const SortVariant& v, DType t, Shape s, const void* input, const TimingPolicy& p);
SortRow measure_gpu_sort(const GpuSortCase& c, DType t, Shape s, const void* input, const TimingPolicy& p);

// What an experiment sweeps: the CPU sorts and GPU cases whose names match its globs. Above
// large_elements the CPU sorts run for int32 only (tens of seconds each; int32 is what the GPU
// is compared with), from large_elements on so do the seed's GPU kernels, and above it the
// seed's loops, whose point is their iteration count, do not run. A GPU sweep on a machine without a GPU writes nothing.
struct SortSweep {
  std::vector<std::string> cpu_variants{"*"};  // globs; a CPU sort runs when it matches any
  std::vector<DType> cpu_types;                 // the CPU sorts' element types (empty: all)
  bool gpu = false;
  std::vector<std::string> gpu_cases{"gpu/*"};  // globs over gpu_sort_cases() names
  std::int64_t large_elements = std::int64_t(1) << 24;
};
// Types from --types, shapes from --sizes, both narrowed by --variants; writes the CSV, a
// summary (seed-loop iterations and launches, the GPU's transpose share and its speedup over
// the sequential CPU sort measured in the same run) and the environment.
void run_sort_sweep(ExperimentRun& run, const SortSweep& sweep);

std::string sort_rows_csv(const std::string& experiment, const std::vector<SortRow>& rows);

}  // namespace tlab::sort
