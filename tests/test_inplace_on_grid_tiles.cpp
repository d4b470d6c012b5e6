// The arithmetic of the in-place transpose on the grid (tlab/inplace_on_grid_tiles.hpp),
// checked without a GPU: the chosen tiles cover the matrix with at most one tile per block (two,
// and their overlap kept aside within a bound, where one is not enough) and fit a block's
// shared memory, the most tiles of all that fit and then the fewest warp rounds
// (or, for 1-byte rows off a word, the longest shorter side); the tile's columns do not overlap, are aligned for the element stores and stay inside
// the block's shared memory; the read phase's stores of each group of lanes that shared memory serves at
// once land in different banks; and every output piece splits exactly into aligned words read
// from inside its column, plus at most 16 loose elements at each end.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "tlab/inplace_on_grid_tiles.hpp"

using namespace tlab::on_grid;
using tlab::ceil_div;

namespace {

// Rows of a column as stored: h rounded up to the R rows a warp packs into one 4-byte word.
template <int S> std::int64_t stored_bytes(std::int64_t h) {
  return ceil_div(h, Columns<S>::R) * Columns<S>::R * S;
}

// The specification of choose_tiles: every count of tiles across and its tile for `slots`
// tiles at most; of those that fit and that `keep(count, tile bytes)` keeps, the most tiles,
// then the fewest warp rounds (counted here from their definition) or the longest shorter side
// ({0, 0} where none does).
struct KeepAll {
  bool operator()(std::int64_t, std::int64_t) const { return true; }
};
template <int S, class Keep = KeepAll>
std::pair<std::int64_t, std::int64_t> best_tiles(std::int64_t m, std::int64_t n, std::int64_t slots, std::int64_t smem,
                                                 bool by_rounds, Keep keep = {}) {
  std::pair<std::int64_t, std::int64_t> best{0, 0};  // tiles, minus the cost
  for (std::int64_t across = 1; across <= std::min<std::int64_t>(n, slots); ++across) {
    const std::int64_t w = ceil_div(n, across), h = ceil_div(m, slots / across), tile = tile_bytes<S>(h, w);
    const std::int64_t count = ceil_div(m, h) * ceil_div(n, w);
    if (tile > smem || !keep(count, tile)) continue;
    const std::int64_t rounds = h * ceil_div(w * S, std::int64_t{31 * 16}) + w * (ceil_div(h * S, std::int64_t{32 * 16}) + 1);
    best = std::max(best, std::pair<std::int64_t, std::int64_t>{count, by_rounds ? -rounds : std::min(h, w)});
  }
  return best;
}

template <int S> void check_choice(std::int64_t m, std::int64_t n, int blocks, std::int64_t smem) {
  CAPTURE(S);
  CAPTURE(m);
  CAPTURE(n);
  CAPTURE(blocks);
  Tiles t;
  const bool found = choose_tiles<S>(m, n, blocks, smem, t);
  // More bytes than all the blocks' shared memory together: nothing can fit (counted in long
  // double, as m n S may overflow 64 bits, and so may the specification's tile sizes).
  if (static_cast<long double>(m) * n * S > static_cast<long double>(blocks) * smem) {
    CHECK_FALSE(found);
    return;
  }
  const bool by_rounds = S > 1 || (m % 16 == 0 && n % 16 == 0);
  CHECK(rank_by_rounds<S>(m, n) == by_rounds);
  const auto want = best_tiles<S>(m, n, blocks, smem, by_rounds);
  REQUIRE(found == (want.first > 0));
  if (!found) return;
  const std::int64_t down = ceil_div(m, t.h);
  CHECK(t.count == want.first);
  CHECK((by_rounds ? -warp_rounds<S>(t.h, t.w) : std::min(t.h, t.w)) == want.second);
  CHECK(t.across == ceil_div(n, t.w));
  CHECK(static_cast<std::int64_t>(t.w) * (t.across - 1) < n);  // no empty column of tiles
  CHECK(static_cast<std::int64_t>(t.h) * (down - 1) < m);
  CHECK(t.count == down * t.across);
  CHECK(t.count <= blocks);
  CHECK(tile_bytes<S>(t.h, t.w) <= smem);
  CHECK(t.pitch == Columns<S>::pitch(t.h));
}

// The specification of plan_tiles with two tiles a block: every count of tiles across for
// 2 blocks, and its tile; of those that fit a block and keep at most `cap` bytes aside (each
// block with two keeps the words of its second tile that its own, placed as high in shared
// memory as a 16-byte word allows, covers), the most tiles, then the fewest warp rounds or the
// longest shorter side.
template <int S> std::pair<std::int64_t, std::int64_t> best_two(std::int64_t m, std::int64_t n, int blocks,
                                                                std::int64_t smem, long double cap, bool by_rounds) {
  return best_tiles<S>(m, n, 2 * std::int64_t{blocks}, smem, by_rounds, [&](std::int64_t count, std::int64_t tile) {
    const std::int64_t own = (smem - tile) / 16 * 16, kept = std::max<std::int64_t>(0, ceil_div(tile, 16) * 16 - own);
    return count > blocks && static_cast<long double>(count - blocks) * kept <= cap;
  });
}

// plan_tiles: one tile a block exactly as choose_tiles; else two a block as best_two says, the
// own tile as high in shared memory as a 16-byte word allows and inside it, the second from
// byte 0, and what is kept aside the words where they overlap, no fewer and no more; the
// total within 256 rows of the longer side.
template <int S> void check_plan(std::int64_t m, std::int64_t n, int blocks, std::int64_t smem) {
  CAPTURE(S);
  CAPTURE(m);
  CAPTURE(n);
  Tiles one, t;
  const bool found = plan_tiles<S>(m, n, blocks, smem, t);
  if (choose_tiles<S>(m, n, blocks, smem, one)) {
    REQUIRE(found);
    CHECK(t.count == one.count);
    CHECK(t.h == one.h);
    CHECK(t.w == one.w);
    CHECK(t.first_at == 0);
    CHECK(t.spill == 0);
    CHECK(spill_bytes(t, blocks) == 0);
    return;
  }
  const long double bytes = static_cast<long double>(m) * n * S;
  const long double cap = 256.0L * std::max(m, n) * S;
  if (bytes > static_cast<long double>(blocks) * smem + cap) {
    CHECK_FALSE(found);
    return;
  }
  const bool by_rounds = S > 1 || (m % 16 == 0 && n % 16 == 0);
  const auto want = best_two<S>(m, n, blocks, smem, cap, by_rounds);
  REQUIRE(found == (want.first > 0));
  if (!found) return;
  CHECK(t.count == want.first);
  CHECK((by_rounds ? -warp_rounds<S>(t.h, t.w) : std::min(t.h, t.w)) == want.second);
  CHECK(t.count == ceil_div(m, t.h) * ceil_div(n, t.w));
  const std::int64_t tile = tile_bytes<S>(t.h, t.w);
  CHECK(t.count > blocks);
  CHECK(t.count <= 2 * blocks);
  CHECK(t.first_at % 16 == 0);
  CHECK(t.first_at + tile <= smem);       // the own tile, from first_at, inside
  CHECK(t.first_at + tile + 16 > smem);   // and no 16-byte word higher
  CHECK(ceil_div(tile, 16) * 16 <= smem);  // the second, from 0, and the words copied out of it
  CHECK(t.spill % 16 == 0);
  if (t.first_at >= tile) {
    CHECK(t.spill == 0);  // the two do not overlap
  } else {
    CHECK(t.first_at + t.spill >= tile);     // every byte of the second that the own covers
    CHECK(t.first_at + t.spill < tile + 16);  // and no word more
  }
  CHECK(spill_bytes(t, blocks) == static_cast<std::int64_t>(t.count - blocks) * t.spill);
  CHECK(static_cast<long double>(spill_bytes(t, blocks)) <= cap);
}

// tile_bytes against bounds of its own: every column's stored rows, plus at most K bytes of
// padding a column and K more every G columns, plus 32; in 64 bits for any sides.
template <int S> void check_tile_bytes(std::int64_t h, std::int64_t w) {
  using C = Columns<S>;
  CAPTURE(S);
  CAPTURE(h);
  CAPTURE(w);
  const std::int64_t columns = ceil_div(w, C::G) * C::G, bytes = tile_bytes<S>(h, w);
  CHECK(bytes >= columns * stored_bytes<S>(h) + 32);
  CHECK(bytes <= columns * (stored_bytes<S>(h) + C::K) + C::K * (columns / C::G) + 32);
}

template <int S> void check_layout(int h, int w) {
  using C = Columns<S>;
  CAPTURE(S);
  CAPTURE(h);
  CAPTURE(w);
  const int pitch = static_cast<int>(C::pitch(h));
  const std::int64_t bytes = tile_bytes<S>(h, w), column = stored_bytes<S>(h);
  REQUIRE(pitch >= column);
  // Columns up to G ceil(w / G) - 1 are written (a row piece's last realigned word fills past
  // w); each holds its rows apart from the next, aligned for the stores into it (4-byte words
  // below 4 bytes).
  const int columns = static_cast<int>(ceil_div(w, C::G) * C::G);
  for (int c = 0; c < columns; ++c) {
    CHECK(C::base(c, pitch) % std::max(S, 4) == 0);
    CHECK(C::base(c + 1, pitch) >= C::base(c, pitch) + column);
  }
  CHECK(C::base(columns - 1, pitch) + column + 32 <= bytes);
}

// The read phase: lane q (0 .. 30) of a warp stores, for each column offset e of its word, an
// access of max(S, 4) bytes at base(G q + e) plus the row's offset. Shared memory serves 128
// bytes a time: groups of 32, 16 or 8 lanes for 4-, 8- or 16-byte accesses. Within a group
// no two accesses may share a bank.
template <int S> void check_banks(int h) {
  using C = Columns<S>;
  CAPTURE(S);
  CAPTURE(h);
  const int pitch = static_cast<int>(C::pitch(h)), width = std::max(S, 4), group = 128 / width;
  for (int e = 0; e < C::G; ++e)  // below 4 bytes each column of the word is a store of its own
    for (int first = 0; first < 31; first += group) {
      std::set<int> banks;
      int accesses = 0;
      for (int q = first; q < std::min(first + group, 31); ++q, ++accesses) {
        const int at = C::base(C::G * q + e, pitch);
        for (int b = 0; b < width / 4; ++b) banks.insert((at / 4 + b) % 32);
      }
      CHECK(static_cast<int>(banks.size()) == accesses * (width / 4));
    }
}

// The write phase for one column: a piece of h S bytes whose first byte sits `off` bytes into
// an aligned word of the output. Every aligned word inside it is two 16-byte loads from the
// tile at a 16-byte boundary, shifted; the loose elements at its ends are one a lane.
template <int S> void check_pieces(int h, int w) {
  using C = Columns<S>;
  const int pitch = static_cast<int>(C::pitch(h)), bytes = h * S;
  const std::int64_t tile = tile_bytes<S>(h, w);
  for (int c : {0, w / 2, w - 1})
    for (int off = 0; off < 16; off += S) {
      CAPTURE(S);
      CAPTURE(h);
      CAPTURE(c);
      CAPTURE(off);
      const Piece p(off, bytes);
      // head, whole words, tail: [0, head) [head, tail) [tail, bytes), in elements
      CHECK(p.head >= 0);
      CHECK(p.head <= p.tail);
      CHECK(p.tail <= bytes);
      CHECK(p.head % S == 0);
      CHECK((bytes - p.tail) % S == 0);
      CHECK(p.head / S <= 16);
      CHECK((bytes - p.tail) / S <= 16);
      CHECK(p.tail - p.head == 16 * std::max(0, p.hi - p.lo));
      if (p.hi > p.lo) CHECK(16 * p.lo - off == p.head);
      const int col = C::base(c, pitch), shift = ((col - off) % 16 + 16) % 16;
      for (int q = p.lo; q < p.hi; ++q) {
        const int at = col + 16 * q - off - shift;
        CHECK(at % 16 == 0);
        CHECK(at >= 0);
        CHECK(at + 32 <= tile);
        CHECK(at + shift == col + 16 * q - off);         // the word's first byte, in its column
        CHECK(col + 16 * q - off + 16 <= col + bytes);  // and its last
      }
    }
}

template <int S> void check_size() {
  for (int h : {1, 2, 3, 4, 5, 7, 8, 31, 32, 33, 125, 128, 187, 256, 373, 497, 512, 1021})
    for (int w : {1, 2, 3, 17, 64, 128, 171, 341})
      if (tile_bytes<S>(h, w) <= 256 * 1024) {
        check_layout<S>(h, w);
        check_pieces<S>(h, w);
      }
  for (int h = 1; h <= 600; ++h) check_banks<S>(h);  // the tiles of experiment 13's shapes are up to 512 rows
  for (std::int64_t h : {std::int64_t{1}, std::int64_t{2}, std::int64_t{3}, std::int64_t{1} << 20, std::int64_t{600000001}})
    for (std::int64_t w : {std::int64_t{1}, std::int64_t{5}, std::int64_t{4545455}, std::int64_t{600000001}}) check_tile_bytes<S>(h, w);
  // One block per SM of a Hopper GPU (132 SMs, 227 KiB less 1 KiB), and a smaller GPU.
  for (auto [blocks, smem] : {std::pair<int, std::int64_t>{132, 231424}, {30, 99 * 1024}})
    for (auto [m, n] : {std::pair<std::int64_t, std::int64_t>{2, 3}, {7, 129}, {129, 7}, {300, 1001}, {70001, 3},
                        {16381, 1021}, {1021, 16381}, {16384, 1024}, {1024, 16384}, {65536, 256}, {256, 65536},
                        {4093, 1021}, {2039, 1021}, {8192, 2048 / S}, {100000, 100000}, {2, 600000001},
                        {600000001, 2}, {3037000500, 3037000500}})
      check_choice<S>(m, n, blocks, smem);
  // Around the grid's shared memory (30.5 MB on a Hopper GPU, 3 MB on the small one): the
  // shapes above and shapes of 1 to 1.3 times it, long and short, square and thin.
  for (auto [blocks, smem] : {std::pair<int, std::int64_t>{132, 231424}, {30, 99 * 1024}})
    for (double f : {0.9, 1.01, 1.05, 1.1, 1.2, 1.3})
      for (std::int64_t n : {std::int64_t{3}, std::int64_t{64}, std::int64_t{1021}, std::int64_t{4093}, std::int64_t{65536}}) {
        const std::int64_t m = static_cast<std::int64_t>(f * blocks * smem / S / n);
        check_plan<S>(m, n, blocks, smem);
        check_plan<S>(n, m, blocks, smem);
      }
  for (auto [m, n] : {std::pair<std::int64_t, std::int64_t>{16381, 1021}, {16384, 1024}, {65536, 256}, {8192, 2048 / S},
                      {8192, 4096 / S}, {4096, 4093}, {6144, 2730}, {2, 8388608}, {2, 16777216 / S},
                      {100000, 100000}, {2, 600000001}, {3037000500, 3037000500}})
    check_plan<S>(m, n, 132, 231424);
}

}  // namespace

TEST_SUITE("variants") {

TEST_CASE("in place on the grid: tiles cover the matrix, fit, and take the most tiles, then the fewest warp rounds or the longest shorter side") {
  check_size<1>();
  check_size<2>();
  check_size<4>();
  check_size<8>();
  check_size<16>();
}

TEST_CASE("in place on the grid: the matrices of experiment 13 that fit a Hopper GPU's shared memory") {
  // 132 SMs of 226 KiB hold 30.5 MB (29.1 MiB): 16 MiB of bytes fit one tile a block, 32 MiB of
  // 2-byte elements do not (they take two: plan_tiles); nor does a thin matrix well under that
  // size whose tiles cannot be made to fit.
  Tiles t;
  CHECK(choose_tiles<1>(16381, 1021, 132, 231424, t));
  CHECK(choose_tiles<1>(1024, 16384, 132, 231424, t));
  CHECK(choose_tiles<4>(4093, 1021, 132, 231424, t));
  CHECK_FALSE(choose_tiles<2>(16381, 1021, 132, 231424, t));
  CHECK_FALSE(choose_tiles<16>(8192, 8192, 132, 231424, t));
  CHECK_FALSE(choose_tiles<1>(2, 8388608, 132, 231424, t));
  CHECK_FALSE(choose_tiles<1>(2, 600000001, 132, 231424, t));
}

TEST_CASE("in place on the grid: the 1-byte \"off-word\" class holds squares a Hopper grid cannot take") {
  // The H100's 1-byte "off-word" row names on-grid, tuned at 5003² and 4099²; the class goes on
  // to 5792², past what 132 x 226 KiB and a spill of 256 rows hold, so the plan answers those
  // squares from the "off-word-large" row (tuning::fallback_classes).
  Tiles t;
  CHECK(plan_tiles<1>(4099, 4099, 132, 231424, t));
  CHECK(plan_tiles<1>(5003, 5003, 132, 231424, t));
  CHECK_FALSE(plan_tiles<1>(5791, 5791, 132, 231424, t));
}

TEST_CASE("in place on the grid: two tiles a block where the grid's shared memory is a little short") {
  // 2-byte 16381 x 1021, 16384 x 1024 and the other 32 MiB shapes of experiment 13 exceed 132
  // x 226 KiB by 3 MB, within 256 rows of their longer side; 4-byte 16381 x 1021 exceeds it by
  // 36 MB, and 1-byte 8192 x 6144 (one of tlab-tune's "rect" shapes) by 19.8 MB, past theirs.
  Tiles t;
  for (auto [m, n] : {std::pair<std::int64_t, std::int64_t>{16381, 1021}, {1021, 16381}, {16384, 1024}, {1024, 16384},
                      {65536, 256}, {256, 65536}}) {
    CAPTURE(m);
    CAPTURE(n);
    REQUIRE(plan_tiles<2>(m, n, 132, 231424, t));
    CHECK(t.count > 132);
    // At least what the matrix exceeds the shared memory by; more by the tiles' padding (the
    // pitch, and the columns up to a word's: 127,584 bytes for 497 x 128 elements of 127,232).
    CHECK(spill_bytes(t, 132) > 2900000);
    CHECK(spill_bytes(t, 132) < 6000000);
  }
  // 2-byte 8192 x 2048: the tiling of the fewest warp rounds, 373 x 171, would keep 4.24 MB
  // against a cap of 4.19; one within the cap is taken.
  REQUIRE(plan_tiles<2>(8192, 2048, 132, 231424, t));
  CHECK(spill_bytes(t, 132) <= 256 * 8192 * 2);
  CHECK_FALSE(plan_tiles<4>(16381, 1021, 132, 231424, t));
  CHECK_FALSE(plan_tiles<1>(8192, 6144, 132, 231424, t));
  REQUIRE(plan_tiles<1>(16381, 1021, 132, 231424, t));  // one a block where that is enough
  CHECK(t.count == 132);
  CHECK(t.spill == 0);
}

TEST_CASE("in place on the grid: the tilings the probe measured fastest on an H100") {
  // docs/performance-notes.md, section 9, "On-grid's tiles by the work per warp": the tilings
  // the chooser must keep taking, whatever form its rule takes.
  struct Want {
    std::int64_t m, n;
    int h, w;
  };
  Tiles t;
  for (const Want& x : {Want{16384, 1024, 497, 256}, Want{1024, 16384, 512, 249}, Want{16381, 1021, 373, 341},
                        Want{4093, 1021, 187, 171}}) {
    CAPTURE(x.m);
    CAPTURE(x.n);
    REQUIRE(choose_tiles<1>(x.m, x.n, 132, 231424, t));
    CHECK(t.h == x.h);
    CHECK(t.w == x.w);
    CHECK(t.count == 132);
  }
  REQUIRE(choose_tiles<4>(4093, 1021, 132, 231424, t));  // 342 x 93, not 187 x 171
  CHECK(t.h == 342);
  CHECK(t.w == 93);
  REQUIRE(choose_tiles<4>(8192, 512, 132, 231424, t));  // 373 x 86, not 187 x 171
  CHECK(t.h == 373);
  CHECK(t.w == 86);
  // Which rule ranks tilings of equal count: rounds for 2 bytes and more and for 1-byte rows on
  // words, the shorter side for 1-byte rows off a word.
  CHECK(rank_by_rounds<1>(16384, 1024));
  CHECK_FALSE(rank_by_rounds<1>(16381, 1021));
  CHECK_FALSE(rank_by_rounds<1>(16384, 1021));
  CHECK(rank_by_rounds<2>(16381, 1021));
  CHECK(rank_by_rounds<16>(7, 3));
}

TEST_CASE("in place on the grid: tiles asked for by size are clipped to the matrix and counted") {
  const Tiles t = tiles_of<2>(100, 50, 200, 7);  // the probe's forced tiles
  CHECK(t.h == 100);
  CHECK(t.w == 7);
  CHECK(t.across == 8);
  CHECK(t.count == 8);
  CHECK(t.pitch == Columns<2>::pitch(100));
  CHECK(tiles_of<1>(1024, 16384, 512, 249).count == 2 * 66);
  CHECK(tiles_of<1>(10, 10, 0, 3).count == 0);
  CHECK(tiles_of<1>(std::int64_t{1} << 40, 1, 1, 1).count == 0);  // more tiles than a grid has
}

}  // TEST_SUITE("variants")
