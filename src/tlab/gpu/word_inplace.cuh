// The word-wide square in-place transposes (word_inplace.cu, word_inplace_ahead.cu) for other
// GPU code and the tests.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace tlab::gpu {

// Transposes in place, on `stream`, in one launch, each of the `count` n x n blocks of a
// matrix at `m` (device memory) of `elem`-byte elements, `ld` elements from one row to the
// next (a multiple of n), whose blocks form a grid `per_row` blocks wide.
void transpose_square_blocks_in_place(void* m, std::int64_t n, std::int64_t count, std::int64_t ld, std::int64_t per_row,
                                      int elem, cudaStream_t stream);

// gpu/word-inplace/w8-ahead-filled on an n x n uint8 matrix whose rows are on 8-byte words,
// on the current device: the share of its rounds' block slots that `w8-ahead`'s tile pairs
// fill, pairs / (rounds x blocks at once), and whether that is enough for it to take
// `w8-ahead` rather than `w4-fetch256`.
double ahead_rounds_fill_w8_uint8(std::int64_t n);
bool w8_ahead_fills_rounds(std::int64_t n);

}  // namespace tlab::gpu
