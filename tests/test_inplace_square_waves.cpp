// The arithmetic of the in-place square transpose in waves (tlab/inplace_square_waves.hpp),
// checked without a GPU: every wave's tiles fit the blocks, lie in the matrix and keep their
// sides; each wave's elements are closed under the transpose (so a barrier between its reads
// and writes is all it needs); the waves together take every element exactly once; and each
// band is as wide as the rule that names it allows. The GPU tests check the transpose itself.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "tlab/inplace_square_waves.hpp"

using namespace tlab::waves;

namespace {

struct Case {
  std::int64_t n;
  int h, w, blocks;
};

// Walks every wave of `c`, marking each element with its wave (0: none yet) and checking the
// properties above; returns the number of waves.
std::int64_t check_waves(const Case& c) {
  CAPTURE(c.n);
  CAPTURE(c.h);
  CAPTURE(c.w);
  CAPTURE(c.blocks);
  REQUIRE(fits(c.n, c.h, c.w, c.blocks));
  std::vector<std::int64_t> wave_of(static_cast<std::size_t>(c.n * c.n), 0);
  std::int64_t waves = 0, twice = 0;
  for (std::int64_t s = 0; s < c.n;) {
    ++waves;
    const std::int64_t r = c.n - s, b = band(r, c.h, c.w, c.blocks);
    REQUIRE(b >= 1);
    REQUIRE(b <= r);
    CHECK(tiles_in(r, b, c.h, c.w) <= c.blocks);
    // The rule: whole tile rows, one more of which (or the rest) would pass the blocks.
    if (b < r) {
      CHECK(b % c.h == 0);
      const std::int64_t next = b + c.h < r ? b + c.h : r;
      CHECK(tiles_in(r, next, c.h, c.w) > c.blocks);
    }
    std::int64_t tiles = 0;
    Tile t;
    for (std::int64_t i = 0; tile_at(c.n, s, b, c.h, c.w, i, t); ++i) {
      ++tiles;
      CHECK(t.rows >= 1);
      CHECK(t.cols >= 1);
      CHECK(t.rows <= (t.lower ? c.w : c.h));
      CHECK(t.cols <= (t.lower ? c.h : c.w));
      REQUIRE(t.row >= s);
      REQUIRE(t.col >= s);
      REQUIRE(t.row + t.rows <= c.n);
      REQUIRE(t.col + t.cols <= c.n);
      for (std::int64_t y = t.row; y < t.row + t.rows; ++y)
        for (std::int64_t x = t.col; x < t.col + t.cols; ++x) {
          std::int64_t& mark = wave_of[static_cast<std::size_t>(y * c.n + x)];
          twice += mark != 0;
          mark = waves;
        }
    }
    CHECK(tiles == tiles_in(r, b, c.h, c.w));
    CHECK(tiles <= c.blocks);
    s += b;
  }
  // Every element once, and (y, x) in the same wave as (x, y): the wave's writes land on its
  // own elements only.
  std::int64_t missing = 0, unpaired = 0;
  for (std::int64_t y = 0; y < c.n; ++y)
    for (std::int64_t x = 0; x < c.n; ++x) {
      const std::int64_t mark = wave_of[static_cast<std::size_t>(y * c.n + x)];
      missing += mark == 0;
      unpaired += mark != wave_of[static_cast<std::size_t>(x * c.n + y)];
    }
  CHECK(twice == 0);
  CHECK(missing == 0);
  CHECK(unpaired == 0);
  CHECK(count(c.n, c.h, c.w, c.blocks) == waves);
  return waves;
}

}  // namespace

TEST_SUITE("variants") {
TEST_CASE("in place in waves: the crosses cover the square once, each closed under the transpose, within the blocks") {
  // One wave, a few, many; sides that are and are not multiples of the tiles; square and wide
  // tiles; a single block; the last wave's remainder smaller than a tile.
  const Case cases[] = {{1, 4, 4, 1},      {2, 1, 1, 3},       {7, 3, 3, 8},       {64, 16, 16, 132},
                        {300, 16, 16, 40},  {301, 7, 13, 47},   {257, 32, 48, 12},  {129, 4, 64, 132},
                        {500, 50, 60, 17},  {97, 1, 40, 6},     {33, 8, 8, 9},      {1000, 64, 64, 40}};
  for (const Case& c : cases) check_waves(c);
  CHECK(check_waves({64, 16, 16, 132}) == 1);  // 16 tiles: the whole square in one wave
  CHECK(check_waves({300, 16, 16, 40}) > 10);
}

TEST_CASE("in place in waves: tiles whose first wave does not fit the blocks are refused") {
  CHECK_FALSE(fits(1000, 16, 16, 100));  // 63 + 62 tiles across at the first wave
  CHECK(fits(1000, 16, 16, 125));
  CHECK(fits(0, 16, 16, 1));
  // Where the first wave fits, every later one does: its cross of one tile row is smaller.
  for (std::int64_t n : {std::int64_t{1000}, std::int64_t{8191}})
    for (std::int64_t s = 0; s < n; s += 97) CHECK(tiles_in(n - s, n - s < 16 ? n - s : 16, 16, 16) <= tiles_in(n, 16, 16, 16));
}

TEST_CASE("in place in waves: an H100's grid and 8191² bytes in tiles of 480, a few waves") {
  // 132 blocks, tiles of 480 x 480 bytes (215 KiB of shared memory): about a third of the
  // matrix a wave, and every wave's tiles within the grid.
  const std::int64_t waves = count(8191, 480, 480, 132);
  CHECK(waves >= 3);
  CHECK(waves <= 6);
}
}
