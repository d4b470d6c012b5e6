// The two-pass block decomposition (tlab/inplace_blocks_index.hpp) on the CPU, with the
// cycle table and the batched cycle walk that the GPU kernel runs: blocks transposed in
// place, then every segment moved by following the cycles from the table. Values are the
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

void transpose_square_blocks(std::vector<std::int64_t>& a, std::int64_t g, std::int64_t count) {
  for (std::int64_t b = 0; b < count; ++b)
    for (std::int64_t i = 0; i < g; ++i)
      for (std::int64_t j = i + 1; j < g; ++j) std::swap(a[b * g * g + i * g + j], a[b * g * g + j * g + i]);
}

template <int L> void permute_segments(std::vector<std::int64_t>& a, const blocks::Layout& l) {
  const c2r::Divisor last = c2r::divisor(l.R * l.C - 1);
  for (std::int64_t leader : blocks::cycle_leaders(l.R, l.C))
    for (std::int64_t off = 0; off < l.g; ++off) {
      ElementOfSegments m{a.data(), l.g, off};
      blocks::follow_cycle<L>(leader, l.C, last, m);
    }
}

template <int L> std::vector<std::int64_t> transposed_by_blocks(std::int64_t m, std::int64_t n) {
  std::vector<std::int64_t> a(m * n);
  std::iota(a.begin(), a.end(), 0);
  const blocks::Layout l = blocks::layout(m, n);
  if (l.tall) transpose_square_blocks(a, l.g, l.count);
  permute_segments<L>(a, l);
  if (!l.tall) transpose_square_blocks(a, l.g, l.count);
  return a;
}

// Whether the leaders name every cycle of the R x C transpose once: walking from each
// covers every moving position exactly once and never meets a smaller position.
bool leaders_cover_each_cycle_once(std::int64_t R, std::int64_t C) {
  const std::int64_t N = R * C;
  std::vector<int> seen(N, 0);
  const c2r::Divisor last = c2r::divisor(N > 1 ? N - 1 : 1);
  for (std::int64_t p : blocks::cycle_leaders(R, C)) {
    std::int64_t q = p;
    do {
      if (q < p || seen[q]++) return false;
      q = blocks::segment_source(q, C, last);
    } while (q != p);
  }
  for (std::int64_t p = 0; p < N; ++p)
    if (!seen[p] && N > 1 && blocks::segment_source(p, C, last) != p) return false;
  return true;
}

}  // namespace

TEST_SUITE("variants") {

TEST_CASE("the block decomposition transposes every shape up to 64 in which one side divides the other") {
  int shapes = 0;
  for (std::int64_t g = 1; g <= 64; ++g)
    for (std::int64_t k = 1; k * g <= 64; ++k)
      for (bool tall : {true, false}) {
        const std::int64_t m = tall ? k * g : g, n = tall ? g : k * g;
        CAPTURE(m);
        CAPTURE(n);
        REQUIRE(blocks::refusal(m, n).empty());
        REQUIRE(tlab_test::is_index_transpose(transposed_by_blocks<1>(m, n), m, n));
        REQUIRE(tlab_test::is_index_transpose(transposed_by_blocks<4>(m, n), m, n));
        ++shapes;
      }
  CHECK(shapes > 400);
}

TEST_CASE("the block decomposition on the shapes the GPU runs: 256:1, 1:256, 16:1 and odd sides") {
  for (auto [m, n] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {4096, 16}, {16, 4096}, {2048, 128}, {128, 2048}, {3 * 97, 97}, {97, 5 * 97}, {1000, 1}, {1, 1000}}) {
    CAPTURE(m);
    CAPTURE(n);
    CHECK(tlab_test::is_index_transpose(transposed_by_blocks<4>(m, n), m, n));
  }
}

TEST_CASE("the cycle table names every cycle once, from its smallest position") {
  for (auto [R, C] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {2, 3}, {3, 2}, {4, 2048}, {256, 256}, {16, 1024}, {7, 13}, {1, 9}, {9, 1}, {1, 1}, {100, 3}}) {
    CAPTURE(R);
    CAPTURE(C);
    CHECK(leaders_cover_each_cycle_once(R, C));
  }
  CHECK(blocks::cycle_leaders(256, 256).size() == (256 * 256 - 256) / 2);  // a square grid: pairs swap
  CHECK(blocks::cycle_leaders(1, 1000).empty());
}

TEST_CASE("the block decomposition refuses shapes whose sides do not divide, and empty ones") {
  CHECK(blocks::refusal(8192, 2048).empty());
  CHECK(blocks::refusal(2048, 8192).empty());
  CHECK(blocks::refusal(1, 1).empty());
  CHECK(!blocks::refusal(3000, 2000).empty());
  CHECK(!blocks::refusal(8191, 2053).empty());
  CHECK(!blocks::refusal(0, 8).empty());
  CHECK(!blocks::refusal(blocks::kMaxSegments * 2, 2).empty());
  const blocks::Layout l = blocks::layout(65536, 256);
  CHECK(l.tall);
  CHECK(l.g == 256);
  CHECK(l.count == 256);
  CHECK(l.R == 256);
  CHECK(l.C == 256);
  const blocks::Layout w = blocks::layout(1024, 16384);
  CHECK(!w.tall);
  CHECK(w.R == 1024);
  CHECK(w.C == 16);
}

}  // TEST_SUITE("variants")
