// The in-place transpose of any m x n matrix that fits the shared memory of the GPU's grid
// (inplace_on_grid.cu): one read and one write of each element.
#pragma once
#include <cuda_runtime.h>

#include "tlab/inplace_on_grid_tiles.hpp"
#include "tlab/matrix.hpp"

namespace tlab::gpu {

// Whether the current device's grid holds `s` with `elem`-byte elements (a vector always: its
// transpose has its layout).
bool in_place_on_grid_fits(Shape s, int elem);

// Transposes the m x n matrix at `matrix` (device memory) into its n x m transpose, in place,
// on `stream`; throws std::invalid_argument where in_place_on_grid_fits is false.
void transpose_in_place_on_grid(void* matrix, Shape s, int elem, cudaStream_t stream);

// For tlab-on-grid-probe, which times where the transpose's time goes: the same launch with
// only some of its phases (a bit mask; with one left out the result is not a transpose), and
// `tiles` (h and w; null: the chooser's) instead of the chooser's. The tiles the chooser takes
// for `s` (count 0 where it does not fit).
constexpr int kOnGridBarrier = 0, kOnGridRead = 1, kOnGridWrite = 2, kOnGridBoth = 3;
void on_grid_phases(void* matrix, Shape s, int elem, int phases, const on_grid::Tiles* tiles, cudaStream_t stream);
on_grid::Tiles on_grid_tiles(Shape s, int elem);

}  // namespace tlab::gpu
