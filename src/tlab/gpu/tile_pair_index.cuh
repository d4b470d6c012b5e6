// Which tile pair a block owns in the square in-place transposes (word_inplace.cu,
// word_inplace_ahead.cu), or which band of P pairs side by side (word_inplace_bands.cu):
// pairs are the upper triangle's tiles with their mirrors.
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
__host__ __device__ __forceinline__ void pair_of(std::int64_t k, std::int64_t& i, std::int64_t& j) {
  j = static_cast<std::int64_t>((sqrt(8.0 * static_cast<double>(k) + 1.0) - 1.0) / 2.0);
  while (j * (j + 1) / 2 > k) --j;  // the square root in double may be one off either way
  while ((j + 1) * (j + 2) / 2 <= k) ++j;
  i = k - j * (j + 1) / 2;
}

// Bands: the upper triangle's tiles P tile columns at a time. Item (i, J) is tile row i of
// tile columns PJ .. PJ + P - 1, the tiles (i, j) there with i <= j. Band J holds the
// min(P (J + 1), tiles) rows 0 .. PJ + P - 1 (only the last band can be short), so P J (J + 1) / 2
// items come before it: item k is in the band of pair k / P's column. Each tile of the upper
// triangle is in exactly one item.
__host__ __device__ constexpr std::int64_t band_items(std::int64_t tiles, int P) {
  const std::int64_t bands = (tiles + P - 1) / P;
  const std::int64_t last = P * bands < tiles ? P * bands : tiles;
  return P * (bands - 1) * bands / 2 + last;
}

__host__ __device__ __forceinline__ void band_item_of(std::int64_t k, int P, std::int64_t& i, std::int64_t& J) {
  std::int64_t unused = 0;
  pair_of(k / P, unused, J);
  i = k - P * (J * (J + 1) / 2);
}

}  // namespace tlab::gpu
