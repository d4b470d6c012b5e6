// The arithmetic of the in-place square transpose in waves (tlab/inplace_square_waves.hpp),
// checked without a GPU: every wave's tiles fit the blocks and their shared memory, lie in the
// matrix and keep their sides; each wave's elements are closed under the transpose (so a
// barrier between its reads and writes is all it needs); the waves together take every element
// exactly once; and the schedule keeps the blocks busy with waves of about equal size. The GPU tests check the transpose itself.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "tlab/inplace_square_waves.hpp"

using namespace tlab::waves;

namespace {

// Walks the schedule of an n x n matrix of S-byte elements on `blocks` blocks of `smem` bytes,
// marking each element with its wave and checking the properties above; returns the waves.
template <int S> std::vector<Wave> check_schedule(std::int64_t n, int blocks, std::int64_t smem) {
  CAPTURE(S);
  CAPTURE(n);
  CAPTURE(blocks);
  CAPTURE(smem);
  const std::vector<Wave> plan = schedule<S>(n, blocks, smem);
  REQUIRE_FALSE(plan.empty());
  std::vector<int> wave_of(static_cast<std::size_t>(n * n), 0);
  std::int64_t twice = 0, s = 0;
  for (std::size_t k = 0; k < plan.size(); ++k) {
    const Wave& w = plan[k];
    CAPTURE(k);
    REQUIRE(w.s == s);
    REQUIRE(w.b >= 1);
    REQUIRE(w.s + w.b <= n);
    CHECK(tiles_in(n - w.s, w.b, w.h, w.w) <= blocks);
    CHECK(tile_pair_bytes<S>(w.h, w.w) <= smem);
    CHECK(w.pitch_h == tlab::on_grid::Columns<S>::pitch(w.h));
    CHECK(w.pitch_w == tlab::on_grid::Columns<S>::pitch(w.w));
    std::int64_t tiles = 0;
    Tile t;
    for (std::int64_t i = 0; tile_at(n, w.s, w.b, w.h, w.w, i, t); ++i) {
      ++tiles;
      CHECK(t.rows >= 1);
      CHECK(t.cols >= 1);
      CHECK(t.rows <= (t.lower ? w.w : w.h));
      CHECK(t.cols <= (t.lower ? w.h : w.w));
      REQUIRE(t.row >= w.s);
      REQUIRE(t.col >= w.s);
      REQUIRE(t.row + t.rows <= n);
      REQUIRE(t.col + t.cols <= n);
      for (std::int64_t y = t.row; y < t.row + t.rows; ++y)
        for (std::int64_t x = t.col; x < t.col + t.cols; ++x) {
          int& mark = wave_of[static_cast<std::size_t>(y * n + x)];
          twice += mark != 0;
          mark = static_cast<int>(k) + 1;
        }
    }
    CHECK(tiles == tiles_in(n - w.s, w.b, w.h, w.w));
    s += w.b;
  }
  CHECK(s == n);
  CHECK(twice == 0);
  // Every element once, and (y, x) in the same wave as (x, y): the wave's writes land on its
  // own elements only.
  std::int64_t missing = 0, unpaired = 0;
  for (std::int64_t y = 0; y < n; ++y)
    for (std::int64_t x = 0; x < n; ++x) {
      const int mark = wave_of[static_cast<std::size_t>(y * n + x)];
      missing += mark == 0;
      unpaired += mark != wave_of[static_cast<std::size_t>(x * n + y)];
    }
  CHECK(missing == 0);
  CHECK(unpaired == 0);
  return plan;
}

}  // namespace

TEST_SUITE("variants") {
TEST_CASE("in place in waves: the crosses cover the square once, each closed under the transpose, within the blocks") {
  // One wave, a few, many; one block; tiles down to a few bytes of shared memory.
  CHECK(check_schedule<1>(1, 1, 4096).size() == 1);
  CHECK(check_schedule<4>(2, 3, 4096).size() == 1);
  CHECK(check_schedule<1>(64, 132, 231424).size() == 1);
  CHECK(check_schedule<1>(300, 8, 4096).size() >= 3);
  CHECK(check_schedule<2>(301, 40, 2048).size() >= 3);
  CHECK(check_schedule<4>(257, 12, 8192).size() >= 3);
  CHECK(check_schedule<8>(129, 132, 4096).size() == 1);
  CHECK(check_schedule<16>(500, 17, 16384).size() > 10);
  CHECK(check_schedule<1>(97, 1, 16384).size() == 1);  // one block: the whole square in one tile
  CHECK(check_schedule<2>(1000, 40, 4096).size() > 10);
  // A wave one row wide pads its tiles to whole 16-byte words as a wider one does: a first
  // target that does not fit is narrowed, not given up (five blocks of 816 bytes).
  CHECK(check_schedule<1>(106, 5, 816).size() >= 5);
  CHECK(check_schedule<16>(121, 3, 8192).size() > 10);
  CHECK(schedule<1>(100, 5, 8).empty());  // less than a 16-byte word a block
}

TEST_CASE("in place in waves: an H100's grid, every wave with most blocks busy and about the same share") {
  // 132 blocks of 226 KiB: 8191² bytes in about three waves, complex128 in some forty.
  for (std::int64_t n : {std::int64_t{4099}, std::int64_t{8191}, std::int64_t{8192}}) {
    const std::vector<Wave> w1 = schedule<1>(n, 132, 231424), w16 = schedule<16>(n, 132, 231424);
    CAPTURE(n);
    REQUIRE_FALSE(w1.empty());
    REQUIRE_FALSE(w16.empty());
    CHECK(static_cast<double>(w1.size()) <= 1.25 * static_cast<double>(n) * n / (132.0 * 231424) + 1);
    CHECK(static_cast<double>(w16.size()) <= 1.25 * 16.0 * n * n / (132.0 * 231424) + 1);
    for (const std::vector<Wave>* plan : {&w1, &w16})
      for (const Wave& w : *plan) {
        const std::int64_t r = n - w.s, tiles = tiles_in(r, w.b, w.h, w.w), area = w.b * (2 * r - w.b);
        CHECK(tiles >= 100);  // of 132: a wave with a third of the SMs idle would run at two thirds
        CHECK(static_cast<double>(area) >= 0.6 * static_cast<double>(n) * n / static_cast<double>(plan->size()));
      }
  }
  // A side whose first cross does not fit one tile row across the grid is refused.
  CHECK(schedule<16>(1000000, 132, 231424).empty());
}
}
