// The in-place transpose of any m x n matrix that fits the shared memory of the GPU's grid
// (inplace_on_grid.cu): one read and one write of each element.
#pragma once
#include <cuda_runtime.h>

#include "tlab/matrix.hpp"

namespace tlab::gpu {

// Whether the current device's grid holds `s` with `elem`-byte elements (a vector always: its
// transpose has its layout).
bool in_place_on_grid_fits(Shape s, int elem);

// Transposes the m x n matrix at `matrix` (device memory) into its n x m transpose, in place,
// on `stream`; throws std::invalid_argument where in_place_on_grid_fits is false.
void transpose_in_place_on_grid(void* matrix, Shape s, int elem, cudaStream_t stream);

}  // namespace tlab::gpu
