// The in-place block transpose on the GPU (tlab/inplace_blocks_index.hpp), for callers that
// own its cycle table (the library's plans) and for the registered variant.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "tlab/matrix.hpp"

namespace tlab::gpu {

// Bytes of the cycle table for `s`: a count and at most N / 2 leaders (N segments), 64 bits each.
std::int64_t in_place_blocks_scratch_bytes(Shape s);

// Builds the table on the host and copies it to `table` (device memory of
// in_place_blocks_scratch_bytes(s) bytes); returns the number of cycles.
std::int64_t fill_in_place_blocks_table(Shape s, void* table);

// Transposes the m x n matrix at `m` (device memory; blocks::refusal(m, n) empty) in place
// on `stream`. `cycles` is the table's count or any bound above it.
void transpose_in_place_blocks(void* m, Shape s, int elem, const void* table, std::int64_t cycles, cudaStream_t stream);

}  // namespace tlab::gpu
