// The in-place transpose of M x M² and M² x M matrices by cycles of three tiles
// (inplace_cube.cu), for the registered variant and the tests.
#pragma once
#include <cuda_runtime.h>

#include "tlab/matrix.hpp"

namespace tlab::gpu {

// Transposes `s` (M x M² or M² x M, else std::invalid_argument) of `elem`-byte elements (4, 8
// or 16) in place at `m` (device memory) on `stream`. `clusters`: a cycle to a cluster of
// blocks (256-byte row pieces, 128 for 4 bytes) where cube_in_clusters(elem) says the device
// can; else, or when false, one block a cycle (tiles of 16 digits, 8 for 16 bytes).
void transpose_cube_in_place(void* m, Shape s, int elem, cudaStream_t stream, bool clusters = true);
bool cube_in_clusters(int elem);

}  // namespace tlab::gpu
