// The two-pass block decomposition (tlab/inplace_blocks_index.hpp) on the CPU, with the
// cycle table and the batched cycle walk that the GPU kernel runs: blocks transposed where
// they lie, then every segment moved by following the cycles from the table. Values are the
// elements' own indices, so no two elements can be confused.
#include <doctest/doctest.h>

#include <numeric>
#include <vector>

#include "tlab/inplace_blocks_index.hpp"
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

template <int L> std::vector<std::int64_t> transposed_by_blocks(std::int64_t m, std::int64_t n) {
  std::vector<std::int64_t> v(m * n);
  std::iota(v.begin(), v.end(), 0);
  const blocks::Layout l = blocks::layout(m, n);
  transpose_blocks(v, l);
  for (std::int64_t leader : blocks::cycle_leaders(l))
    for (std::int64_t off = 0; off < l.g; ++off) {
      ElementOfSegments mv{v.data(), l.g, off};
      blocks::follow_cycle<L>(leader, l, mv);
    }
  return v;
}

// Whether the leaders name every cycle once: walking from each covers every moving
// position exactly once and never meets a smaller position.
bool leaders_cover_each_cycle_once(std::int64_t m, std::int64_t n) {
  const blocks::Layout l = blocks::layout(m, n);
  const std::int64_t N = l.segments();
  std::vector<int> seen(N, 0);
  for (std::int64_t p : blocks::cycle_leaders(l)) {
    std::int64_t q = p;
    do {
      if (q < p || seen[q]++) return false;
      q = l.source(q);
    } while (q != p);
  }
  for (std::int64_t p = 0; p < N; ++p)
    if (!seen[p] && l.source(p) != p) return false;
  return true;
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

TEST_CASE("the cycle table names every cycle once, from its smallest position") {
  for (auto [m, n] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {2, 3}, {3, 2}, {8192, 2048}, {65536, 256}, {16384, 1024}, {7, 13}, {1, 9}, {9, 1}, {1, 1}, {300, 200}, {1080, 1920}}) {
    CAPTURE(m);
    CAPTURE(n);
    CHECK(leaders_cover_each_cycle_once(m, n));
  }
  CHECK(blocks::cycle_leaders(blocks::layout(65536, 256)).size() == (256 * 256 - 256) / 2);  // 256 x 256 segments: pairs swap
  CHECK(blocks::cycle_leaders(blocks::layout(1, 1000)).empty());
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
