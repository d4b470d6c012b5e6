// The walks of the square in-place transposes over their tile pairs (tlab/tile_pair_index.hpp),
// checked without a GPU: every tile of the upper triangle in exactly one pair, or one band
// item, at every tile count, and far along the walk, where the square root in double must
// still land on the right column (the GPU tests check the transposes themselves).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "tlab/tile_pair_index.hpp"

namespace {

// The band of item k by counting, not by a square root: the last J with P J (J + 1) / 2 <= k,
// found by bisection among the bands of up to 2^22 tiles a side.
std::int64_t band_by_search(std::int64_t k, int P) {
  std::int64_t lo = 0, hi = std::int64_t{1} << 22;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo + 1) / 2;
    if (P * (mid * (mid + 1) / 2) <= k) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

}  // namespace

TEST_SUITE("variants") {

// A tile given twice is swapped twice (left as it was), a tile given to none is not swapped.
TEST_CASE("tile pairs and bands of pairs: every upper tile in exactly one item") {
  for (int P = 1; P <= 4; ++P)
    for (std::int64_t tiles = 1; tiles <= 70; ++tiles) {
      std::vector<int> owned(static_cast<std::size_t>(tiles * tiles), 0);
      const std::int64_t items = tlab::band_items(tiles, P);
      for (std::int64_t k = 0; k < items; ++k) {
        std::int64_t i = -1, J = -1;
        tlab::band_item_of(k, P, i, J);
        REQUIRE(i >= 0);
        REQUIRE(i < tiles);
        int in_item = 0;
        for (int p = 0; p < P; ++p) {
          const std::int64_t j = P * J + p;
          if (i <= j && j < tiles) ++owned[static_cast<std::size_t>(i * tiles + j)], ++in_item;
        }
        REQUIRE(in_item > 0);  // no block launched for nothing
      }
      for (std::int64_t i = 0; i < tiles; ++i)
        for (std::int64_t j = 0; j < tiles; ++j) {
          CAPTURE(P);
          CAPTURE(tiles);
          CAPTURE(i);
          CAPTURE(j);
          REQUIRE(owned[static_cast<std::size_t>(i * tiles + j)] == (i <= j ? 1 : 0));
        }
      if (P == 1) CHECK(items == tlab::tile_pairs(tiles * 32, 32));  // one pair an item
    }
}

TEST_CASE("bands of pairs far along the walk: the band the square root gives is the band by counting") {
  for (int P = 1; P <= 4; ++P) {
    const std::int64_t tiles = 3000017, items = tlab::band_items(tiles, P);  // about 4.5e12 items for P = 1
    for (std::int64_t k : {items - 1, items - tiles, items - tiles - 1, items / 2, items / 3 + 1, items / 7 * 5}) {
      std::int64_t i = -1, J = -1;
      tlab::band_item_of(k, P, i, J);
      CAPTURE(P);
      CAPTURE(k);
      CHECK(J == band_by_search(k, P));
      CHECK(i >= 0);
      CHECK(i < std::min<std::int64_t>(P * (J + 1), tiles));  // a row of band J
    }
  }
}

}  // TEST_SUITE
