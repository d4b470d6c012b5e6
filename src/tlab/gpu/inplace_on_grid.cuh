// The in-place transpose of any m x n matrix that fits the shared memory of the GPU's grid
// (inplace_on_grid.cu): one read and one write of each element.
#pragma once
#include <cuda_runtime.h>

#include "tlab/inplace_on_grid_tiles.hpp"
#include "tlab/matrix.hpp"

namespace tlab::gpu {

// Whether the current device's grid holds `s` with `elem`-byte elements (a vector always: its
// transpose has its layout), with two tiles a block where one is not enough and what the two
// overlap by kept aside in global memory (on_grid::plan_tiles).
bool in_place_on_grid_fits(Shape s, int elem);

// The global memory kept aside for `s`: 0 where one tile a block is enough.
std::int64_t in_place_on_grid_scratch_bytes(Shape s, int elem);

// Transposes the m x n matrix at `matrix` (device memory) into its n x m transpose, in place,
// on `stream`; throws std::invalid_argument where in_place_on_grid_fits is false. `scratch`:
// in_place_on_grid_scratch_bytes(s, elem) bytes of device memory on a 16-byte boundary (as
// cudaMalloc gives), or null for a buffer kept per device.
void transpose_in_place_on_grid(void* matrix, Shape s, int elem, cudaStream_t stream, void* scratch = nullptr);

// For tlab-on-grid-probe, which times where the transpose's time goes: the same launch with
// only some of its phases (a bit mask of the three below; with one left out the result is not a
// transpose; kOnGridPlainLaunch launches without the cooperative launch, only where the
// barrier is left out), and `tiles` (h and w; null: the chooser's) instead of the chooser's.
// on_grid_tiles: the tiles the chooser takes for `s` (count 0 where it does not fit).
constexpr int kOnGridRead = 1, kOnGridBarrier = 2, kOnGridWrite = 4, kOnGridAll = 7, kOnGridPlainLaunch = 8;
void on_grid_phases(void* matrix, Shape s, int elem, int phases, const on_grid::Tiles* tiles, cudaStream_t stream);
on_grid::Tiles on_grid_tiles(Shape s, int elem);

}  // namespace tlab::gpu
