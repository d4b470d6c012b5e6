// Which tile pair a block owns in the square in-place transposes (gpu/word_inplace.cu,
// gpu/word_inplace_ahead.cu), or which band of P pairs side by side (gpu/word_inplace_bands.cu):
// pairs are the upper triangle's tiles with their mirrors. The kernels and the CPU tests
// (tests/test_tile_pair_index.cpp) share this.
#pragma once
#include <cmath>
#include <cstdint>

#include "tlab/host_device.hpp"

namespace tlab {

// The tile pairs of an n x n matrix in tiles of `side`: the upper triangle's tiles, the
// diagonal's included.
TLAB_HD constexpr std::int64_t tile_pairs(std::int64_t n, std::int64_t side) {
  return (n + side - 1) / side * ((n + side - 1) / side + 1) / 2;
}

// Pair k of the upper triangle, counted column by column: (i, j) with i <= j.
TLAB_HD void pair_of(std::int64_t k, std::int64_t& i, std::int64_t& j) {
  j = static_cast<std::int64_t>((sqrt(8.0 * static_cast<double>(k) + 1.0) - 1.0) / 2.0);
  while (j * (j + 1) / 2 > k) --j;  // the square root in double may be one off either way
  while ((j + 1) * (j + 2) / 2 <= k) ++j;
  i = k - j * (j + 1) / 2;
}

// Bands: the upper triangle's tiles P tile columns at a time. Item (i, J) is tile row i of
// tile columns PJ .. PJ + P - 1, the tiles (i, j) there with i <= j. Band J holds the rows
// 0 .. PJ + P - 1, P (J + 1) items, but the last, whose rows stop at the matrix's last tile
// row; so P J (J + 1) / 2 items come before band J, and item k is in the band of pair k / P's
// column. Each tile of the upper triangle is in exactly one item.
TLAB_HD constexpr std::int64_t band_items(std::int64_t tiles, int P) {
  const std::int64_t bands = (tiles + P - 1) / P;
  return P * (bands - 1) * bands / 2 + tiles;
}

TLAB_HD void band_item_of(std::int64_t k, int P, std::int64_t& i, std::int64_t& J) {
  std::int64_t unused = 0;
  pair_of(k / P, unused, J);
  i = k - P * (J * (J + 1) / 2);
}

}  // namespace tlab
