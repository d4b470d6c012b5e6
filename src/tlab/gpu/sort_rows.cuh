// The GPU row sorts and the kernels around them (key maps, the seed's check), on unsigned
// keys (tlab/sort/ordered_keys.hpp). Explicitly instantiated for 32- and 64-bit keys in
// sort_rows.cu.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "tlab/dtype.hpp"

namespace tlab::gpu::sort {

enum class RowSort { thread_bubble, thread_merge, block_oddeven, block_bitonic, cub_radix, cub_segmented };
RowSort parse_row_sort(const std::string& name);  // throws std::invalid_argument

// In place: the sorted rows are left in `data` (`out` may serve as scratch). Otherwise in `out`.
bool sorts_in_place(RowSort r);
// The longest row the sort accepts here (shared memory, or a cap on a seed kernel's time);
// 0: no limit.
std::int64_t max_row_length(RowSort r, std::size_t key_bytes);

// Device scratch bytes sort_rows needs for rows x cols.
template <typename K> std::size_t sort_rows_temp_bytes(RowSort r, std::int64_t rows, std::int64_t cols);
// Sorts each of the `rows` rows of length `cols` of `data`; returns the launches issued (a
// CUB call counts as one).
template <typename K>
int sort_rows(RowSort r, K* data, K* out, std::int64_t rows, std::int64_t cols, void* temp, std::size_t temp_bytes,
              cudaStream_t stream);

// In place, n elements: element bits -> ordered keys, and back. T is int32, float or double.
void to_keys(DType t, void* data, std::int64_t n, cudaStream_t stream);
void from_keys(DType t, void* data, std::int64_t n, cudaStream_t stream);

// Seed 003's check: sets *flag (device int, zeroed by the caller) when some element is less
// than its left or upper neighbour; every thread stops once the flag is set.
template <typename K> void check_sorted(const K* m, std::int64_t rows, std::int64_t cols, int* flag, cudaStream_t stream);

}  // namespace tlab::gpu::sort
