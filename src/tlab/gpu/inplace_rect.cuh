// The in-place rectangular transpose on the GPU (tlab/inplace_rect_index.hpp), for callers
// that own their scratch memory (the library's plans) and for the registered variant.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "tlab/inplace_rect_index.hpp"
#include "tlab/matrix.hpp"

namespace tlab::gpu {

// Scratch bytes the transpose of `s` with `elem` -byte elements uses: at most
// scratch_rows * max(m, n) elements, never more than the matrix. More rows mean fewer,
// larger column batches.
std::int64_t in_place_rect_scratch_bytes(Shape s, int elem, int scratch_rows);

// Transposes the m x n matrix at `m` (device memory) into its n x m transpose, in place, on
// `stream`. `scratch` holds in_place_rect_scratch_bytes(s, elem, scratch_rows) bytes of
// device memory, or is null: a pass that needs scratch then takes a buffer kept per device.
// `columns_on_grid`: on coprime shapes, the last pass through the shared memory of a
// cooperative grid where a strip of columns fits (inplace_rect_grid.cu).
void transpose_in_place_rect(void* m, Shape s, int elem, void* scratch, int scratch_rows, cudaStream_t stream,
                             bool columns_on_grid = false);

// Scratch bytes the transpose of `s` needs with columns_on_grid: none where the shape is
// coprime, its rows fit a block's shared memory and its columns fit the grid (the passes then
// all run in place), else in_place_rect_scratch_bytes(s, elem, scratch_rows).
std::int64_t in_place_rect_grid_scratch_bytes(Shape s, int elem, int scratch_rows);

// c2r's column pass on a coprime shape in place across the grid; false (nothing launched)
// where the shape or the device does not allow it, which coprime_on_grid_fits says beforehand.
bool shuffle_columns_coprime_on_grid(void* matrix, const c2r::Params& p, int elem, cudaStream_t stream);
bool coprime_on_grid_fits(const c2r::Params& p, int elem);

}  // namespace tlab::gpu
