// The in-place block transpose on the GPU (tlab/inplace_blocks_index.hpp), for callers that
// own its cycle table (the library's plans) and for the registered variant.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <utility>

#include "tlab/matrix.hpp"

namespace tlab::gpu {

// Bytes of scratch for `s` with `elem`-byte elements: the cycle table (at most N / 2 short
// cycles and 2 N / T + 1 stretches) and the stretches' saved segments (at most 64 max(m, n)
// 16-byte words; tlab/inplace_blocks_index.hpp).
std::int64_t in_place_blocks_scratch_bytes(Shape s, int elem);

// Builds the table on the host and copies it to `scratch` (device memory of
// in_place_blocks_scratch_bytes bytes); returns the numbers of short cycles and of stretches.
std::pair<std::int64_t, std::int64_t> fill_in_place_blocks_table(Shape s, int elem, void* scratch);

// Transposes the m x n matrix at `m` (device memory; blocks::refusal(m, n) empty) in place
// on `stream`. `shorts` and `stretches` are the table's counts or any bounds above them;
// `batch` (4 or 8) is how many loads each thread keeps in flight.
void transpose_in_place_blocks(void* m, Shape s, int elem, const void* scratch, std::int64_t shorts,
                               std::int64_t stretches, int batch, cudaStream_t stream);

}  // namespace tlab::gpu
