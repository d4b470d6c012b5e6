// The in-place rectangular decomposition (tlab/inplace_rect_index.hpp): each pass is a
// permutation within rows or within columns, and the three passes compose to the transpose,
// on every shape up to 40 x 40 and on primes, coprime and 1 x n shapes. Values are the
// elements' own indices, so no two elements can be confused.
#include <doctest/doctest.h>

#include <numeric>
#include <vector>

#include "tlab/inplace_rect_index.hpp"
#include "tlab/registry.hpp"
#include "support.hpp"

using namespace tlab;

namespace {

// The three passes as plain gathers over whole copies: the specification the CPU and GPU
// code's batched versions must agree with.
std::vector<std::int64_t> decomposed(std::int64_t m, std::int64_t n) {
  const c2r::Params p = c2r::make_params(m, n);
  std::vector<std::int64_t> a(m * n), b(m * n);
  std::iota(a.begin(), a.end(), 0);
  if (p.c > 1) {
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) b[i * n + j] = a[c2r::rotate_source(p, i, j) * n + j];
    a = b;
  }
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t q = 0; q < n; ++q) b[r * n + q] = a[r * n + c2r::row_shuffle_source(p, r, q)];
  a = b;
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t q = 0; q < n; ++q) b[r * n + q] = a[c2r::column_shuffle_source(p, r, q) * n + q];
  return b;
}

// Whether every row (or column) of the pass's gather reads each source exactly once.
bool rows_are_permutations(std::int64_t m, std::int64_t n) {
  const c2r::Params p = c2r::make_params(m, n);
  for (std::int64_t r = 0; r < m; ++r) {
    std::vector<int> seen(n, 0);
    for (std::int64_t q = 0; q < n; ++q) {
      const std::int64_t j = c2r::row_shuffle_source(p, r, q);
      if (j < 0 || j >= n || seen[j]++) return false;
    }
  }
  return true;
}

}  // namespace

TEST_SUITE("variants") {

TEST_CASE("the column-rotate, row-shuffle, column-shuffle decomposition transposes every shape up to 40 x 40") {
  int shapes = 0;
  for (std::int64_t m = 1; m <= 40; ++m)
    for (std::int64_t n = 1; n <= 40; ++n) {
      CAPTURE(m);
      CAPTURE(n);
      REQUIRE(rows_are_permutations(m, n));
      REQUIRE(tlab_test::is_index_transpose(decomposed(m, n), m, n));
      ++shapes;
    }
  CHECK(shapes == 1600);
}

TEST_CASE("the decomposition on primes, coprime, shared-factor and 1 x n shapes") {
  for (auto [m, n] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {1, 4099}, {4099, 1}, {97, 101}, {101, 97}, {127, 256}, {256, 127}, {60, 84}, {84, 60}, {512, 96}, {1000, 17}}) {
    CAPTURE(m);
    CAPTURE(n);
    CHECK(tlab_test::is_index_transpose(decomposed(m, n), m, n));
  }
}

TEST_CASE("coprime shapes: pass 3 is a rotation by the column after a permutation of the rows") {
  int checked = 0;
  for (auto [m, n] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {1, 7}, {7, 1}, {2, 3}, {97, 101}, {101, 97}, {127, 256}, {256, 127}, {1000, 17}, {16381, 1021}}) {
    CAPTURE(m);
    CAPTURE(n);
    const c2r::Params p = c2r::make_params(m, n);
    REQUIRE(p.c == 1);
    std::vector<int> seen(m, 0);
    for (std::int64_t r = 0; r < m; ++r) {
      const std::int64_t t = c2r::coprime_base(p, r);
      REQUIRE(c2r::coprime_row(p, t) == r);  // the rows' bases are a permutation, inverted
      REQUIRE(seen[t]++ == 0);
      for (std::int64_t q = 0; q < n; q += 1 + n / 64, ++checked) {
        REQUIRE(c2r::column_shuffle_source(p, r, q) == (t + q) % m);
        // Pass 2's source column, which the GPU's row pass steps by a^-1 per column.
        REQUIRE(c2r::row_shuffle_source(p, r, q) == ((q - r) % n + n) % n * p.a_inv % n);
      }
    }
  }
  CHECK(checked > 100000);
}

TEST_CASE("the decomposition's parameters: gcd, cofactors and the modular inverse") {
  const c2r::Params p = c2r::make_params(60, 84);
  CHECK(p.c == 12);
  CHECK(p.a == 5);
  CHECK(p.b == 7);
  CHECK((p.a * p.a_inv) % p.b == 1);
  CHECK(c2r::make_params(7, 7).b == 1);
  CHECK_THROWS_AS(c2r::make_params(0, 5), std::invalid_argument);
  CHECK_THROWS_AS(c2r::make_params(std::int64_t{1} << 31, 2), std::invalid_argument);
}

TEST_CASE("the CPU in-place rectangular variant is registered for every type and takes any shape") {
  const Variant& v = registry().get("cpu/inplace-rect/c2r");
  CHECK(v.any_shape);
  CHECK(v.placement == Placement::in_place);
  CHECK(v.dtypes().size() == all_dtypes().size());
  CHECK(v.refuses(DType::u8, {3, 1000}) == "");
  CHECK(!v.refuses(DType::u8, {0, 1000}).empty());
  // Batched passes against the plain specification, on a shape with several batches of both.
  const std::int64_t m = 1000, n = 130;  // gcd 10: all three passes, two or more batches each
  std::vector<std::int64_t> a(m * n);
  std::iota(a.begin(), a.end(), 0);
  Operands op;
  op.in = op.out = a.data();
  op.shape = {m, n};
  v.kernels.at(DType::f64)(op);  // 8-byte elements: the indices travel unchanged
  CHECK(tlab_test::is_index_transpose(a, m, n));
}

}  // TEST_SUITE("variants")
