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

// gpu/word-inplace/w8-ahead-filled's rule for an n x n uint8 matrix at `m` on the current
// device. The fill: the share of its rounds' block slots that `w8-ahead`'s tile pairs fill,
// pairs / (rounds x blocks at once), or 0 where the device cannot hold its pair of 128 KiB.
// The choice: `w8-ahead` where the side is whole 256-byte tiles, `m` is on an 8-byte word
// and the fill is high enough, else `w4-fetch256`.
double ahead_rounds_fill_w8_uint8(std::int64_t n);
bool w8_ahead_filled_takes_ahead(const void* m, std::int64_t n);

}  // namespace tlab::gpu
