// The two-pass block decomposition (tlab/inplace_blocks_index.hpp) on the CPU, with the
// cycle table and the batched cycle walk that the GPU kernel runs: blocks transposed where
// they lie, then every segment moved by following the cycles from the table. Values are the
// elements' own indices, so no two elements can be confused.
#include <doctest/doctest.h>

#include <numeric>
#include <vector>

// GCC cannot see that follow_stretch reads val[i] only where it wrote it (i < k).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "tlab/inplace_blocks_index.hpp"
#pragma GCC diagnostic pop
#include "support.hpp"

using namespace tlab;

namespace {

// One element of every segment: what a GPU thread moves for its word.
struct ElementOfSegments {
  std::int64_t* data;
  std::int64_t g, offset;
  std::int64_t load(std::int64_t pos) const { return data[pos * g + offset]; }
  void store(std::int64_t pos, std::int64_t v) const { data[pos * g + offset] = v; }
};

// Pass 1: every g x g block of the a x b grid transposed where it lies.
void transpose_blocks(std::vector<std::int64_t>& v, const blocks::Layout& l) {
  const std::int64_t n = l.b * l.g;
  for (std::int64_t I = 0; I < l.a; ++I)
    for (std::int64_t J = 0; J < l.b; ++J)
      for (std::int64_t i = 0; i < l.g; ++i)
        for (std::int64_t j = i + 1; j < l.g; ++j)
          std::swap(v[(I * l.g + i) * n + J * l.g + j], v[(I * l.g + j) * n + J * l.g + i]);
}

// Pass 2 as the GPU runs it: the stretches' first items saved, then every short cycle and
// every stretch moved (in any order: they touch disjoint positions).
template <int L> void permute_segments(std::vector<std::int64_t>& v, const blocks::Layout& l) {
  const blocks::CycleTable t = blocks::cycle_table(l, 8);
  for (std::int64_t off = 0; off < l.g; ++off) {
    ElementOfSegments mv{v.data(), l.g, off};
    std::vector<std::int64_t> saved;
    for (std::int64_t j = 0; j < t.stretch_count(); ++j) saved.push_back(mv.load(t.stretches[3 * j]));
    for (std::int64_t c = t.short_count() - 1; c >= 0; --c)
      blocks::follow_stretch<L>(t.cycles[2 * c], t.cycles[2 * c + 1], l, mv, mv.load(t.cycles[2 * c]));
    for (std::int64_t j = t.stretch_count() - 1; j >= 0; --j)
      blocks::follow_stretch<L>(t.stretches[3 * j], t.stretches[3 * j + 1], l, mv, saved[t.stretches[3 * j + 2]]);
  }
}

template <int L> std::vector<std::int64_t> transposed_by_blocks(std::int64_t m, std::int64_t n) {
  std::vector<std::int64_t> v(m * n);
  std::iota(v.begin(), v.end(), 0);
  const blocks::Layout l = blocks::layout(m, n);
  if (l.a == 1) {  // as the GPU does with one block row: segments first, then the now contiguous blocks
    permute_segments<L>(v, l);
    blocks::Layout stacked = l;
    stacked.a = l.b;
    stacked.b = 1;
    transpose_blocks(v, stacked);
    return v;
  }
  transpose_blocks(v, l);
  permute_segments<L>(v, l);
  return v;
}

// Whether the table covers every moving position exactly once: each short cycle from its
// leader, each long one as consecutive stretches that close the cycle.
bool table_covers_each_position_once(std::int64_t m, std::int64_t n) {
  const blocks::Layout l = blocks::layout(m, n);
  const blocks::CycleTable t = blocks::cycle_table(l, 8);
  std::vector<int> seen(l.segments(), 0);
  auto walk = [&](std::int64_t q, std::int64_t moves) {
    for (; moves > 0; --moves, q = l.source(q))
      if (seen[q]++) return false;
    return true;
  };
  for (std::int64_t c = 0; c < t.short_count(); ++c)
    if (!walk(t.cycles[2 * c], t.cycles[2 * c + 1]) || t.cycles[2 * c + 1] > blocks::stretch_moves(l, 8)) return false;
  for (std::int64_t j = 0; j < t.stretch_count(); ++j) {
    std::int64_t q = t.stretches[3 * j];
    if (!walk(q, t.stretches[3 * j + 1])) return false;
    for (std::int64_t k = 0; k < t.stretches[3 * j + 1]; ++k) q = l.source(q);
    if (q != t.stretches[3 * t.stretches[3 * j + 2]]) return false;  // it ends where the next begins
  }
  for (std::int64_t p = 0; p < l.segments(); ++p)
    if (!seen[p] && l.source(p) != p) return false;
  return t.short_count() <= blocks::max_short_cycles(l) && t.stretch_count() <= blocks::max_stretches(l, 8);
}

}  // namespace

TEST_SUITE("variants") {

TEST_CASE("the block decomposition transposes every shape up to 48 x 48 it takes, and tells the rest why") {
  int taken = 0;
  for (std::int64_t m = 1; m <= 48; ++m)
    for (std::int64_t n = 1; n <= 48; ++n) {
      CAPTURE(m);
      CAPTURE(n);
      REQUIRE(blocks::refusal(m, n).empty());  // min(m, n) / gcd <= 48 < 64
      REQUIRE(tlab_test::is_index_transpose(transposed_by_blocks<1>(m, n), m, n));
      REQUIRE(tlab_test::is_index_transpose(transposed_by_blocks<4>(m, n), m, n));
      ++taken;
    }
  CHECK(taken == 48 * 48);
}

TEST_CASE("the block decomposition on 256:1, 1:256, 3:2, shared factors and primes") {
  for (auto [m, n] : std::vector<std::pair<std::int64_t, std::int64_t>>{{4096, 16}, {16, 4096}, {2048, 128}, {128, 2048},
                                                                        {3 * 97, 97}, {97, 5 * 97}, {300, 200}, {1080, 1920},
                                                                        {7 * 13, 64 * 13}, {1000, 1}, {1, 1000}, {97, 101}}) {
    CAPTURE(m);
    CAPTURE(n);
    CHECK(tlab_test::is_index_transpose(transposed_by_blocks<4>(m, n), m, n));
  }
}

TEST_CASE("the cycle table covers every moving segment once, long cycles cut into stretches that close them") {
  for (auto [m, n] : std::vector<std::pair<std::int64_t, std::int64_t>>{{2, 3},       {3, 2},      {8192, 2048}, {65536, 256},
                                                                        {16384, 1024}, {7, 13},     {1, 9},       {9, 1},
                                                                        {1, 1},        {300, 200},  {1080, 1920}, {12288, 8192},
                                                                        {3072, 1024},  {6144, 4096}}) {
    CAPTURE(m);
    CAPTURE(n);
    CHECK(table_covers_each_position_once(m, n));
  }
  const blocks::CycleTable swaps = blocks::cycle_table(blocks::layout(65536, 256), 4);  // 256 x 256 segments
  CHECK(swaps.short_count() == (256 * 256 - 256) / 2);
  CHECK(swaps.stretch_count() == 0);
  const blocks::CycleTable few = blocks::cycle_table(blocks::layout(12288, 8192), 1);  // 14 cycles, the longest 21688
  CHECK(few.short_count() + few.stretch_count() > 50);
  CHECK(blocks::cycle_table(blocks::layout(1, 1000), 1).stretch_count() == 0);
  CHECK(blocks::cycle_table(blocks::layout(1, 1000), 1).short_count() == 0);
}

TEST_CASE("the stretches' saved copies stay within 64 max(m, n) 16-byte words, for every element size") {
  for (auto [m, n] : std::vector<std::pair<std::int64_t, std::int64_t>>{{12288, 8192}, {64 * 1021, 63 * 1021}, {3, 2}})
    for (int elem : {1, 2, 4, 8, 16}) {
      const blocks::Layout l = blocks::layout(m, n);
      CAPTURE(m);
      CAPTURE(n);
      CAPTURE(elem);
      CHECK(blocks::max_stretches(l, elem) * l.g * elem <= 64 * 16 * std::max(m, n) + l.g * elem);
    }
  // Short segments get shorter stretches, so more of them run at once.
  const blocks::Layout l = blocks::layout(12288, 8192);
  CHECK(blocks::stretch_moves(l, 1) < blocks::stretch_moves(l, 16));
  CHECK(blocks::cycle_table(l, 1).stretch_count() > blocks::cycle_table(l, 16).stretch_count());
}

TEST_CASE("long cycles cut into stretches transpose exactly (12288 x 8192's structure, scaled down)") {
  // 3 x 2 blocks of 96: a few long cycles, each longer than a stretch of 32 moves.
  const std::int64_t m = 3 * 96, n = 2 * 96;
  const blocks::CycleTable t = blocks::cycle_table(blocks::layout(m, n), 8);
  REQUIRE(t.stretch_count() > 0);
  CHECK(tlab_test::is_index_transpose(transposed_by_blocks<4>(m, n), m, n));
  CHECK(tlab_test::is_index_transpose(transposed_by_blocks<3>(m, n), m, n));
}

TEST_CASE("the block decomposition refuses shapes with too small a common factor, and empty ones") {
  CHECK(blocks::refusal(8192, 2048).empty());
  CHECK(blocks::refusal(2048, 8192).empty());
  CHECK(blocks::refusal(3000, 2000).empty());
  CHECK(blocks::refusal(1, 1).empty());
  CHECK(blocks::refusal(64 * 7, 65 * 7).empty());
  CHECK(!blocks::refusal(65 * 7, 66 * 7).empty());  // min / gcd = 65
  CHECK(!blocks::refusal(16381, 1021).empty());  // two primes
  CHECK(!blocks::refusal(0, 8).empty());
  CHECK(!blocks::refusal(blocks::kMaxSegments * 2, 2).empty());
  const blocks::Layout l = blocks::layout(3000, 2000);
  CHECK(l.g == 1000);
  CHECK(l.a == 3);
  CHECK(l.b == 2);
  CHECK(l.segments() == 6000);
}

}  // TEST_SUITE("variants")
