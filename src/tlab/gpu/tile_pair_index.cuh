// Which tile pair a block owns in the square in-place transposes (word_inplace.cu,
// word_inplace_ahead.cu): pairs are the upper triangle's tiles with their mirrors.
#pragma once
#include <cmath>
#include <cstdint>

namespace tlab::gpu {

// The tile pairs of an n x n matrix in tiles of `side`: the upper triangle's tiles, the
// diagonal's included.
__host__ __device__ constexpr std::int64_t tile_pairs(std::int64_t n, std::int64_t side) {
  return (n + side - 1) / side * ((n + side - 1) / side + 1) / 2;
}

// Pair k of the upper triangle, counted column by column: (i, j) with i <= j.
__device__ __forceinline__ void pair_of(std::int64_t k, std::int64_t& i, std::int64_t& j) {
  j = static_cast<std::int64_t>((sqrt(8.0 * static_cast<double>(k) + 1.0) - 1.0) / 2.0);
  while (j * (j + 1) / 2 > k) --j;  // the square root in double may be one off either way
  while ((j + 1) * (j + 2) / 2 <= k) ++j;
  i = k - j * (j + 1) / 2;
}

}  // namespace tlab::gpu
