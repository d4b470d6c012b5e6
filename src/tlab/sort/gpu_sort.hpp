// The matrix sort on the GPU (issue #5, seed 003): every row, then every column (through the
// library's transpose), under the same order as the CPU sorts (ordered_keys.hpp). A plan
// allocates once for one (shape, type, options) and can then sort many inputs, so that the
// timed part is the sort and, for host memory kinds, its copies.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tlab/dtype.hpp"
#include "tlab/host_transpose.hpp"
#include "tlab/matrix.hpp"

namespace tlab::sort {

// The row sorts, by name:
//   thread-bubble        one thread per row, bubble sort in global memory (seed 003's first kernel)
//   thread-merge         one thread per row, bottom-up merge sort through a scratch row (seed 003)
//   block-oddeven        one block per row, the row in shared memory, odd-even transposition sort
//                        (seed 003's shared-memory kernel)
//   block-bitonic        one block per row, the row in shared memory, a bitonic network (ours)
//   cub-segmented-radix  cub::DeviceSegmentedRadixSort, one segment per row
//   cub-segmented-sort   cub::DeviceSegmentedSort, one segment per row
const std::vector<std::string>& gpu_row_sorts();

// Where the matrix lives before and after the sort.
enum class SortMemory {
  device,            // already on the GPU: only the sort is timed
  pinned,            // cudaMallocHost in and out: H2D, sort, D2H
  pageable,          // new[] in and out: cudaMemcpy both ways
  managed,           // cudaMallocManaged: the kernels touch the host's pages, which migrate on demand
  managed_prefetch,  // the same, with cudaMemPrefetchAsync to the device before and to the host after
};
const char* sort_memory_name(SortMemory m);

struct GpuSortOptions {
  std::string row_sort = "cub-segmented-radix";
  // Seed 003's loop: sort rows, transpose, sort rows, transpose, then a check kernel (with
  // an early exit) until it passes. Off: one pass, no check (docs/matrix-sort.md).
  bool seed_loop = false;
  SortMemory memory = SortMemory::device;
  // pinned only: > 1 cuts the matrix into `streams` bands of rows whose H2D copy and first
  // row sort run in their own stream, and whose D2H copies do too (seed 003's schedules).
  int streams = 1;
  IssueOrder order = IssueOrder::depth_first;
  std::string transpose = "gpu/unrolled/t64x4-pad";  // a registered out-of-place GPU transpose
};

struct GpuSortTimes {
  double total_s = 0;      // the whole sort as the caller sees it (host clock, after sync)
  // Device time per kind of work (CUDA events, summed over launches); 0 where streams overlap
  // them (streams > 1 times only the total).
  double sort_s = 0, transpose_s = 0, keys_s = 0, check_s = 0, copy_s = 0;
  int iterations = 0;      // of "rows, columns" (seed loop: until the check passed)
  long launches = 0;       // kernel launches and CUB calls issued
};

// "" when the row sort can run on (t, s) here, else why not (row too long for shared memory,
// a seed kernel capped for time, a type it lacks).
std::string gpu_sort_refuses(const GpuSortOptions& o, DType t, Shape s);

class GpuMatrixSort {
 public:
  // Throws std::invalid_argument for bad options or a refused (t, s); ResourceError when the
  // device or host cannot hold the plan.
  GpuMatrixSort(Shape s, DType t, const GpuSortOptions& o);
  ~GpuMatrixSort();
  GpuMatrixSort(const GpuMatrixSort&) = delete;
  GpuMatrixSort& operator=(const GpuMatrixSort&) = delete;
  // Puts an unsorted host matrix where the memory kind keeps its input (not timed).
  void load(const void* host_matrix);
  // Sorts what load() put there, from the unsorted input every time: each call first puts a
  // fresh copy where the sort works (not timed: a device-to-device copy, or for managed
  // memory a host copy that leaves the pages on the host).
  GpuSortTimes run();
  // Copies the sorted matrix to host memory (not timed).
  void result(void* host_matrix) const;
  // Fills the place result() reads with a fixed pattern (not timed), so that a run that fails
  // to write its result there cannot pass with an older one.
  void poison_result();
  // Device bytes the plan needs for (s, t, o).
  static double device_bytes(Shape s, DType t, const GpuSortOptions& o);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tlab::sort
