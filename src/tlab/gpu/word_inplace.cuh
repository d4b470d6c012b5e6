// The word-wide square in-place transpose (word_inplace.cu) for other GPU code.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace tlab::gpu {

// Transposes in place, on `stream`, in one launch, each of the `count` n x n blocks of a
// matrix at `m` (device memory) of `elem`-byte elements, `ld` elements from one row to the
// next (a multiple of n), whose blocks form a grid `per_row` blocks wide.
void transpose_square_blocks_in_place(void* m, std::int64_t n, std::int64_t count, std::int64_t ld, std::int64_t per_row,
                                      int elem, cudaStream_t stream);

}  // namespace tlab::gpu
