// The word-wide square in-place transpose (word_inplace.cu) for other GPU code.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace tlab::gpu {

// Transposes in place, on `stream`, each of `count` n x n matrices of `elem`-byte elements
// stored one after another from `m` (device memory), in one launch.
void transpose_square_blocks_in_place(void* m, std::int64_t n, std::int64_t count, int elem, cudaStream_t stream);

}  // namespace tlab::gpu
