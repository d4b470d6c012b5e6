// The arithmetic of the in-place transpose of M x M² and M² x M matrices by cycles of three tiles
// (tlab/inplace_cube_index.hpp), checked without a GPU: the shapes it takes, and that the cycles
// it enumerates cover every tile exactly once (the GPU tests check the transpose itself).
#include <doctest/doctest.h>

#include <cstdint>
#include <set>
#include <tuple>

#include "tlab/inplace_cube_index.hpp"

using tlab::Shape;

TEST_SUITE("variants") {

TEST_CASE("in place by three digits: the shapes it takes") {
  bool forward = false;
  CHECK(tlab::cube::side({256, 65536}, forward) == 256);
  CHECK(forward);
  CHECK(tlab::cube::side({65536, 256}, forward) == 256);
  CHECK_FALSE(forward);
  CHECK(tlab::cube::side({2, 4}, forward) == 2);
  CHECK(tlab::cube::side({2097151, 2097151LL * 2097151LL}, forward) == 2097151);
  for (Shape s : {Shape{1, 1}, Shape{256, 65535}, Shape{256, 65537}, Shape{255, 65536}, Shape{16384, 1024}, Shape{4, 4},
                  Shape{3037000500, 1}, Shape{2097152, 2097152LL * 2097152LL}})
    CHECK(tlab::cube::side(s, forward) == 0);
}

TEST_CASE("in place by three digits: the cycles of tiles cover every tile once") {
  for (std::int64_t T = 1; T <= 12; ++T) {
    CAPTURE(T);
    std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t>> covered;
    std::int64_t fixed = 0;
    for (std::int64_t i = 0; i < tlab::cube::cycles(T); ++i) {
      std::int64_t a = -1, b = -1, c = -1;
      tlab::cube::cycle(i, T, a, b, c);
      CHECK(a >= 0);
      CHECK(b >= 0);
      CHECK(c >= 0);
      CHECK(a < T);
      CHECK(b < T);
      CHECK(c < T);
      if (a == b && b == c) {
        ++fixed;
        CHECK(covered.insert({a, a, a}).second);
        continue;
      }
      // (a, b, c), then where its data goes going forward, (b, c, a), then (c, a, b): three
      // different tiles, none met before.
      CHECK(covered.insert({a, b, c}).second);
      CHECK(covered.insert({b, c, a}).second);
      CHECK(covered.insert({c, a, b}).second);
    }
    CHECK(fixed == T);
    CHECK(static_cast<std::int64_t>(covered.size()) == T * T * T);
  }
}

}  // TEST_SUITE("variants")
