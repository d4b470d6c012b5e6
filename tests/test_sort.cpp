// Matrix sort (issue #5, seed 003): the order on floats, the sequential and threaded sorts,
// the check, and the seed's "repeat until sorted" loop, which always stops after one
// iteration. Property tests draw from fixed seeds (captured on failure) so that a failing
// matrix can be drawn again.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tlab/cpu/outofplace.hpp"
#include "tlab/matrix.hpp"
#include "tlab/sort/matrix_sort.hpp"
#include "tlab/sort/ordered_keys.hpp"

using tlab::MatrixView;
using tlab::Shape;
namespace ts = tlab::sort;

namespace {

template <typename T> using Bits = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;

template <typename T> Bits<T> bits_of(T x) {
  Bits<T> b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}
template <typename T> T from_bits(Bits<T> b) {
  T x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

// An oracle for less<T> that shares no code with it: floats are mapped to unsigned keys that
// increase with the value (the usual sign-flip trick on the bit pattern, which puts -0.0
// just before +0.0), and every NaN to one key above them all.
template <typename T> std::pair<int, std::int64_t> int_key(T x) { return {0, static_cast<std::int64_t>(x)}; }
template <typename T> std::pair<int, Bits<T>> float_key(T x) {
  if (x != x) return {1, 0};
  const Bits<T> b = bits_of(x), sign = Bits<T>(1) << (8 * sizeof(T) - 1);
  return {0, (b & sign) ? Bits<T>(~b) : Bits<T>(b | sign)};
}
template <typename T> bool oracle_less(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    return float_key(a) < float_key(b);
  else
    return int_key(a) < int_key(b);
}

// Values that a float order has to place: NaNs of both signs and several payloads (one of
// them signalling), zeros of both signs, infinities, subnormals and the extremes.
template <typename T> std::vector<T> float_specials() {
  using L = std::numeric_limits<T>;
  const T qnan = L::quiet_NaN();
  std::vector<T> s{qnan, -qnan, L::signaling_NaN(), from_bits<T>(bits_of(qnan) | 0x5), -from_bits<T>(bits_of(qnan) | 0x3),
                   T(-0.0), T(0.0), L::infinity(), -L::infinity(), L::denorm_min(), -L::denorm_min(),
                   L::max(), L::lowest(), L::min(), T(1), T(-1)};
  return s;
}

// What a generated matrix looks like.
enum class Kind { spread, few_values, constant, specials, all_nan };
const char* kind_name(Kind k) {
  switch (k) {
    case Kind::spread: return "spread";
    case Kind::few_values: return "few values";
    case Kind::constant: return "constant";
    case Kind::specials: return "with specials";
    case Kind::all_nan: return "all NaN";
  }
  return "?";
}
template <typename T> std::vector<Kind> kinds() {
  if constexpr (std::is_floating_point_v<T>)
    return {Kind::spread, Kind::few_values, Kind::constant, Kind::specials, Kind::all_nan};
  else
    return {Kind::spread, Kind::few_values, Kind::constant};
}

template <typename T> T draw(std::mt19937_64& rng, Kind k) {
  if constexpr (std::is_floating_point_v<T>) {
    static const std::vector<T> sp = float_specials<T>();
    std::uniform_real_distribution<T> u(T(-1000), T(1000));
    switch (k) {
      case Kind::spread: return u(rng);
      case Kind::few_values: return T(static_cast<int>(rng() % 4) - 1) * T(0.5);  // -0.5, 0, 0.5, 1
      case Kind::constant: return T(3.25);
      case Kind::specials: return rng() % 3 == 0 ? sp[rng() % sp.size()] : u(rng);
      case Kind::all_nan: return rng() % 2 ? sp[rng() % 5] : -sp[rng() % 5];  // the five NaNs, either sign
    }
  } else {
    switch (k) {
      case Kind::spread: return static_cast<T>(rng());  // the whole range, INT_MIN and INT_MAX included
      case Kind::few_values: return static_cast<T>(rng() % 3) - 1;
      case Kind::constant: return T(7);
      default: break;
    }
  }
  return T{};
}

// A matrix with a row stride one longer than its rows (when pad), and the padding filled
// with a marker that the sorts must not touch.
template <typename T> struct Mat {
  std::int64_t rows, cols, ld;
  std::vector<T> buf;
  MatrixView<T> view() { return MatrixView<T>(buf.data(), rows, cols, ld); }
  bool padding_intact(T marker) const {
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = cols; j < ld; ++j)
        if (bits_of(buf[i * ld + j]) != bits_of(marker)) return false;
    return true;
  }
};
template <typename T> T marker() { return T(42); }

template <typename T> Mat<T> make(std::mt19937_64& rng, Shape s, Kind k, bool pad) {
  Mat<T> m{s.rows, s.cols, s.cols + (pad ? 1 : 0), {}};
  m.buf.assign(static_cast<std::size_t>(std::max<std::int64_t>(1, m.rows * m.ld)), marker<T>());
  for (std::int64_t i = 0; i < m.rows; ++i)
    for (std::int64_t j = 0; j < m.cols; ++j) m.buf[i * m.ld + j] = draw<T>(rng, k);
  return m;
}

// The elements' bit patterns, sorted: equal for two matrices exactly when one is a
// permutation of the other (NaN payloads and the sign of zero included).
template <typename T> std::vector<Bits<T>> multiset(MatrixView<T> v) {
  std::vector<Bits<T>> out;
  for (std::int64_t i = 0; i < v.rows; ++i)
    for (std::int64_t j = 0; j < v.cols; ++j) out.push_back(bits_of(v(i, j)));
  std::sort(out.begin(), out.end());
  return out;
}

// Rows and columns non-decreasing under the oracle (not under the library's own check).
template <typename T> bool oracle_sorted(MatrixView<T> v) {
  for (std::int64_t i = 0; i < v.rows; ++i)
    for (std::int64_t j = 0; j < v.cols; ++j) {
      if (j > 0 && oracle_less(v(i, j), v(i, j - 1))) return false;
      if (i > 0 && oracle_less(v(i, j), v(i - 1, j))) return false;
    }
  return true;
}

template <typename T> bool same_bits(MatrixView<T> a, MatrixView<T> b) {
  if (!(a.shape() == b.shape())) return false;
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (std::int64_t j = 0; j < a.cols; ++j)
      if (bits_of(a(i, j)) != bits_of(b(i, j))) return false;
  return true;
}

const std::vector<Shape>& shapes() {
  static const std::vector<Shape> s{{1, 1},  {1, 2},   {2, 1},  {1, 97},  {97, 1},  {2, 2},  {3, 5},
                                    {5, 3},  {7, 13},  {31, 17}, {64, 64}, {97, 101}, {128, 3}, {3, 128},
                                    {200, 257}};
  return s;
}

// A random shape for the property tests: small enough for thousands of draws, with thin
// and single-row/column shapes drawn often.
Shape random_shape(std::mt19937_64& rng) {
  auto side = [&]() -> std::int64_t {
    switch (rng() % 4) {
      case 0: return 1 + static_cast<std::int64_t>(rng() % 3);
      case 1: return 1 + static_cast<std::int64_t>(rng() % 64);
      default: return 1 + static_cast<std::int64_t>(rng() % 24);
    }
  };
  return {side(), side()};
}

template <typename T> const char* type_name() {
  if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  if constexpr (std::is_same_v<T, float>) return "float";
  return "double";
}

// Partial row sort for the explanation of seed 003's launch counts: `passes` rounds of
// odd-even transposition per row, which sorts a row only when passes >= its length.
template <typename T> void odd_even_passes(MatrixView<T> v, int passes) {
  const ts::less<T> lt;
  for (std::int64_t i = 0; i < v.rows; ++i)
    for (int p = 0; p < passes; ++p)
      for (std::int64_t j = p % 2; j + 1 < v.cols; j += 2)
        if (lt(v(i, j + 1), v(i, j))) std::swap(v(i, j), v(i, j + 1));
}
// The seed's loop with that partial row sort in place of a full one; returns iterations.
template <typename T> int seed_loop_with_partial_rows(MatrixView<T> v, int passes, int max_iterations) {
  std::vector<T> t(static_cast<std::size_t>(v.rows * v.cols));
  MatrixView<T> tv(t.data(), v.cols, v.rows);
  for (int it = 1; it <= max_iterations; ++it) {
    odd_even_passes(v, passes);
    tlab::cpu::outofplace_blocked(MatrixView<const T>(v.data, v.rows, v.cols, v.ld), tv, 32);
    odd_even_passes(tv, passes);
    tlab::cpu::outofplace_blocked(MatrixView<const T>(tv.data, tv.rows, tv.cols, tv.ld), v, 32);
    if (ts::is_row_column_sorted(v)) return it;
  }
  return -1;
}

template <typename T> void check_every_sort_on_every_shape() {
  std::mt19937_64 rng(0x5eed0003u + sizeof(T));
  int matrices = 0;
  for (Shape s : shapes())
    for (Kind k : kinds<T>())
      for (bool pad : {false, true}) {
        const std::string what = std::string(type_name<T>()) + " " + tlab::to_string(s) + " " + kind_name(k) +
                                 (pad ? " padded" : "");
        CAPTURE(what);
        const Mat<T> in = make<T>(rng, s, k, pad);
        Mat<T> seq = in, thr = in, loop = in, cols_first = in;
        ts::sort_matrix_sequential(seq.view());
        const auto want = multiset(Mat<T>(in).view());
        REQUIRE(oracle_sorted(seq.view()));
        CHECK(ts::is_row_column_sorted(seq.view()));
        CHECK(multiset(seq.view()) == want);
        CHECK(seq.padding_intact(marker<T>()));

        for (unsigned threads : {1u, 2u, 3u, 8u}) {
          CAPTURE(threads);
          thr = in;
          ts::sort_matrix_threaded(thr.view(), threads);
          CHECK(same_bits(thr.view(), seq.view()));
          CHECK(thr.padding_intact(marker<T>()));
        }

        CHECK(ts::sort_matrix_seed_loop(loop.view(), 10) == 1);
        CHECK(same_bits(loop.view(), seq.view()));
        CHECK(loop.padding_intact(marker<T>()));

        ts::sort_columns_via_transpose(cols_first.view());
        ts::sort_rows(cols_first.view());
        CHECK(oracle_sorted(cols_first.view()));
        CHECK(multiset(cols_first.view()) == want);
        CHECK(cols_first.padding_intact(marker<T>()));
        ++matrices;
      }
  CHECK(matrices == static_cast<int>(shapes().size() * kinds<T>().size() * 2));
}

template <typename T> void check_rows_and_columns_each_keep_their_elements() {
  std::mt19937_64 rng(0xc0105u + sizeof(T));
  for (Shape s : shapes())
    for (Kind k : kinds<T>()) {
      CAPTURE(tlab::to_string(s));
      const Mat<T> in = make<T>(rng, s, k, true);
      Mat<T> r = in, c = in;
      ts::sort_rows(r.view());
      ts::sort_columns_via_transpose(c.view());
      for (std::int64_t i = 0; i < s.rows; ++i) {
        CHECK(multiset(Mat<T>(in).view().block(i, 0, 1, s.cols)) == multiset(r.view().block(i, 0, 1, s.cols)));
        CHECK(oracle_sorted(r.view().block(i, 0, 1, s.cols)));
      }
      for (std::int64_t j = 0; j < s.cols; ++j) {
        CHECK(multiset(Mat<T>(in).view().block(0, j, s.rows, 1)) == multiset(c.view().block(0, j, s.rows, 1)));
        CHECK(oracle_sorted(c.view().block(0, j, s.rows, 1)));
      }
      CHECK(r.padding_intact(marker<T>()));
      CHECK(c.padding_intact(marker<T>()));
    }
}

// Returns how many of `count` random matrices needed exactly one iteration.
template <typename T> int seed_loop_one_iteration_count(std::uint64_t seed, int count) {
  std::mt19937_64 rng(seed);
  int once = 0;
  for (int n = 0; n < count; ++n) {
    const Shape s = random_shape(rng);
    const Kind k = kinds<T>()[rng() % kinds<T>().size()];
    Mat<T> m = make<T>(rng, s, k, rng() % 2 == 0);
    const auto before = multiset(m.view());
    const int it = ts::sort_matrix_seed_loop(m.view(), 100);
    if (it == 1 && oracle_sorted(m.view()) && multiset(m.view()) == before) {
      ++once;
    } else {
      const std::string failed = std::string(type_name<T>()) + " draw " + std::to_string(n) + " " +
                                 tlab::to_string(s) + " " + kind_name(k);
      CAPTURE(failed);
      CHECK(it == 1);
    }
  }
  return once;
}

}  // namespace

TEST_SUITE("sort") {

TEST_CASE("less orders integers as usual, puts every NaN after +inf and -0.0 before +0.0") {
  const ts::less<std::int32_t> li;
  CHECK(li(std::numeric_limits<std::int32_t>::min(), -1));
  CHECK(li(-1, 0));
  CHECK_FALSE(li(3, 3));
  CHECK_FALSE(li(4, 3));

  const ts::less<double> ld;
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  CHECK(ld(-inf, -1e300));
  CHECK(ld(1e300, inf));
  CHECK(ld(inf, nan));
  CHECK(ld(inf, -nan));  // the sign of a NaN does not matter
  CHECK(ld(-inf, nan));
  CHECK_FALSE(ld(nan, inf));
  CHECK_FALSE(ld(nan, -nan));  // NaNs are equivalent to each other
  CHECK_FALSE(ld(-nan, nan));
  CHECK_FALSE(ld(nan, nan));
  CHECK(ld(-0.0, 0.0));
  CHECK_FALSE(ld(0.0, -0.0));
  CHECK_FALSE(ld(-0.0, -0.0));
  CHECK(ld(-std::numeric_limits<double>::denorm_min(), -0.0));
  CHECK(ld(0.0, std::numeric_limits<double>::denorm_min()));

  const ts::less<float> lf;
  CHECK(lf(-0.0f, 0.0f));
  CHECK(lf(std::numeric_limits<float>::infinity(), std::numeric_limits<float>::signaling_NaN()));
  CHECK_FALSE(lf(std::numeric_limits<float>::signaling_NaN(), std::numeric_limits<float>::quiet_NaN()));
}

TEST_CASE("less agrees with an order on bit patterns for every pair of special and random values") {
  auto run = [](auto zero) {
    using T = decltype(zero);
    std::mt19937_64 rng(17);
    std::vector<T> vals = float_specials<T>();
    std::uniform_real_distribution<T> u(T(-10), T(10));
    for (int k = 0; k < 200; ++k) vals.push_back(u(rng));
    vals.push_back(vals.back());  // an equal pair
    const ts::less<T> lt;
    int disagreements = 0;
    for (T a : vals)
      for (T b : vals) {
        if (lt(a, b) != oracle_less(a, b)) ++disagreements;
        if (lt(a, b) && lt(b, a)) ++disagreements;  // never both ways
      }
    CAPTURE(type_name<T>());
    CHECK(disagreements == 0);
  };
  run(float{});
  run(double{});
  std::mt19937_64 rng(18);
  int disagreements = 0;
  for (int k = 0; k < 100000; ++k) {
    const auto a = static_cast<std::int32_t>(rng()), b = static_cast<std::int32_t>(rng() % 8 ? rng() : a);
    disagreements += ts::less<std::int32_t>{}(a, b) != oracle_less(a, b);
  }
  CHECK(disagreements == 0);
}

TEST_CASE("the ordered keys the GPU sorts use are bijections whose unsigned order is less<T>") {
  auto run = [](auto zero) {
    using T = decltype(zero);
    using K = ts::ordered_key<T>;
    CAPTURE(type_name<T>());
    std::mt19937_64 rng(23);
    std::vector<T> vals;
    if constexpr (std::is_floating_point_v<T>) {
      vals = float_specials<T>();
      std::uniform_real_distribution<T> u(T(-10), T(10));
      for (int k = 0; k < 300; ++k) vals.push_back(u(rng));
      for (int k = 0; k < 300; ++k) vals.push_back(from_bits<T>(static_cast<Bits<T>>(rng())));  // any pattern, NaNs too
    } else {
      for (T x : {std::numeric_limits<T>::min(), T(-1), T(0), T(1), std::numeric_limits<T>::max()}) vals.push_back(x);
      for (int k = 0; k < 600; ++k) vals.push_back(static_cast<T>(rng()));
    }
    const ts::less<T> lt;
    int wrong_order = 0, not_inverse = 0;
    for (T a : vals) {
      not_inverse += bits_of(K::from(K::to(a))) != bits_of(a);
      for (T b : vals) {
        const bool both_nan = std::is_floating_point_v<T> && a != a && b != b;
        if (!both_nan && lt(a, b) != (K::to(a) < K::to(b))) ++wrong_order;
      }
    }
    CHECK(wrong_order == 0);
    CHECK(not_inverse == 0);
    // Distinct patterns never share a key (a bijection): sorted keys of distinct bits are distinct.
    std::vector<typename K::type> keys;
    for (T a : vals) keys.push_back(K::to(a));
    std::sort(keys.begin(), keys.end());
    std::vector<Bits<T>> pats;
    for (T a : vals) pats.push_back(bits_of(a));
    std::sort(pats.begin(), pats.end());
    CHECK(std::unique(keys.begin(), keys.end()) - keys.begin() == std::unique(pats.begin(), pats.end()) - pats.begin());
  };
  run(std::int32_t{});
  run(float{});
  run(double{});
}

TEST_CASE("std::sort with less stays inside arrays full of NaNs and places zeros and infinities") {
  auto run = [](auto zero) {
    using T = decltype(zero);
    CAPTURE(type_name<T>());
    const std::vector<T> sp = float_specials<T>();
    std::mt19937_64 rng(99);
    // Guards on both sides: a comparator that is not a strict weak order lets libstdc++'s
    // unguarded insertion sort walk off the range; with less<T> the guards stay untouched.
    const T guard = T(-12345);
    for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{16}, std::size_t{17}, std::size_t{1000},
                          std::size_t{5000}}) {
      CAPTURE(n);
      std::vector<T> buf(n + 2, guard);
      for (std::size_t k = 1; k <= n; ++k) buf[k] = rng() % 2 ? sp[rng() % 5] : -sp[rng() % 5];
      std::vector<Bits<T>> before;
      for (std::size_t k = 1; k <= n; ++k) before.push_back(bits_of(buf[k]));
      std::sort(buf.begin() + 1, buf.end() - 1, ts::less<T>{});
      CHECK(bits_of(buf.front()) == bits_of(guard));
      CHECK(bits_of(buf.back()) == bits_of(guard));
      std::vector<Bits<T>> after;
      for (std::size_t k = 1; k <= n; ++k) after.push_back(bits_of(buf[k]));
      std::sort(before.begin(), before.end());
      std::sort(after.begin(), after.end());
      CHECK(before == after);
    }
    // A mixture: -inf first, then -1, -0.0, +0.0, 1, +inf, and every NaN last.
    std::vector<T> mix;
    for (int r = 0; r < 50; ++r)
      for (T x : {T(1), -std::numeric_limits<T>::infinity(), T(0.0), sp[0], T(-0.0), -sp[0], T(-1),
                  std::numeric_limits<T>::infinity(), sp[2]})
        mix.push_back(x);
    std::shuffle(mix.begin(), mix.end(), rng);
    std::sort(mix.begin(), mix.end(), ts::less<T>{});
    const T order[] = {-std::numeric_limits<T>::infinity(), T(-1), T(-0.0), T(0.0), T(1),
                       std::numeric_limits<T>::infinity()};
    for (int g = 0; g < 6; ++g)
      for (int r = 0; r < 50; ++r) CHECK(bits_of(mix[g * 50 + r]) == bits_of(order[g]));
    for (std::size_t k = 300; k < mix.size(); ++k) CHECK(std::isnan(mix[k]));
  };
  run(float{});
  run(double{});
}

TEST_CASE("every sort leaves a permutation of its input with every row and column non-decreasing") {
  check_every_sort_on_every_shape<std::int32_t>();
  check_every_sort_on_every_shape<float>();
  check_every_sort_on_every_shape<double>();
}

TEST_CASE("sorting rows keeps each row's elements and sorting columns keeps each column's") {
  check_rows_and_columns_each_keep_their_elements<std::int32_t>();
  check_rows_and_columns_each_keep_their_elements<float>();
  check_rows_and_columns_each_keep_their_elements<double>();
}

TEST_CASE("the seed's loop stops after its first iteration on 2000 random matrices of every type") {
  const int n = 2000;
  CHECK(seed_loop_one_iteration_count<std::int32_t>(1, n) == n);
  CHECK(seed_loop_one_iteration_count<float>(2, n) == n);
  CHECK(seed_loop_one_iteration_count<double>(3, n) == n);
}

TEST_CASE("the threaded sort equals the sequential sort bit for bit on a large matrix") {
  std::mt19937_64 rng(7);
  const Mat<double> in = make<double>(rng, {509, 1021}, Kind::specials, true);
  Mat<double> seq = in, thr = in;
  ts::sort_matrix_sequential(seq.view());
  ts::sort_matrix_threaded(thr.view(), 4);
  CHECK(same_bits(seq.view(), thr.view()));
  CHECK(oracle_sorted(thr.view()));
}

TEST_CASE("the check rejects a matrix whose rows alone, or columns alone, were sorted") {
  // Hand-made counter-examples: row i holds values all above those of row i+1 (so sorting
  // rows leaves every column decreasing), and the transpose of that for columns.
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    const std::int64_t rows = 2 + static_cast<std::int64_t>(rng() % 20), cols = 1 + static_cast<std::int64_t>(rng() % 20);
    std::vector<std::int32_t> a(static_cast<std::size_t>(rows * cols));
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j)
        a[i * cols + j] = static_cast<std::int32_t>((rows - i) * 1000 + static_cast<std::int64_t>(rng() % 1000));
    MatrixView<std::int32_t> v(a.data(), rows, cols);
    ts::sort_rows(v);
    CHECK_FALSE(ts::is_row_column_sorted(v));
    CHECK_FALSE(oracle_sorted(v));
    ts::sort_columns_via_transpose(v);
    CHECK(ts::is_row_column_sorted(v));

    std::vector<std::int32_t> b(static_cast<std::size_t>(cols * rows));  // rows x cols swapped
    MatrixView<std::int32_t> w(b.data(), cols, rows);
    for (std::int64_t i = 0; i < cols; ++i)
      for (std::int64_t j = 0; j < rows; ++j)
        w(i, j) = static_cast<std::int32_t>((rows - j) * 1000 + static_cast<std::int64_t>(rng() % 1000));
    ts::sort_columns_via_transpose(w);
    CHECK_FALSE(ts::is_row_column_sorted(w));
    ts::sort_rows(w);
    CHECK(ts::is_row_column_sorted(w));
  }
  // And on random matrices with distinct values, sorting rows alone almost never suffices.
  int rejected = 0;
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<float> a(8 * 8);
    for (float& x : a) x = std::uniform_real_distribution<float>(-1, 1)(rng);
    MatrixView<float> v(a.data(), 8, 8);
    ts::sort_rows(v);
    rejected += !ts::is_row_column_sorted(v);
    CHECK(ts::is_row_column_sorted(v) == oracle_sorted(v));
  }
  CHECK(rejected == 200);
}

TEST_CASE("the check rejects a sorted matrix with any one adjacent pair of non-equivalent elements swapped") {
  std::mt19937_64 rng(12);
  Mat<float> m = make<float>(rng, {9, 11}, Kind::specials, true);
  ts::sort_matrix_sequential(m.view());
  MatrixView<float> v = m.view();
  const ts::less<float> lt;
  int swaps = 0;
  for (std::int64_t i = 0; i < v.rows; ++i)
    for (std::int64_t j = 0; j < v.cols; ++j)
      for (auto [di, dj] : {std::pair<int, int>{0, 1}, std::pair<int, int>{1, 0}}) {
        if (i + di >= v.rows || j + dj >= v.cols) continue;
        float& x = v(i, j);
        float& y = v(i + di, j + dj);
        const bool equivalent = !lt(x, y) && !lt(y, x);
        std::swap(x, y);
        CHECK(ts::is_row_column_sorted(v) == equivalent);
        std::swap(x, y);
        swaps += !equivalent;
      }
  CHECK(swaps > 100);
  CHECK(ts::is_row_column_sorted(v));
  // -0.0 after +0.0 is out of order, two NaNs of different signs are not.
  float z[2] = {0.0f, -0.0f};
  CHECK_FALSE(ts::is_row_column_sorted(MatrixView<float>(z, 1, 2)));
  float n[2] = {-std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::quiet_NaN()};
  CHECK(ts::is_row_column_sorted(MatrixView<float>(n, 2, 1)));
}

TEST_CASE("a row sort that stops after a few odd-even passes makes the seed's loop need more iterations") {
  // How seed 003 could see more than one iteration: with a row sort that does not finish
  // each row, the loop still ends (every swap moves a larger element right or down), but
  // after several iterations that depend on the data. With enough passes it needs one.
  std::mt19937_64 rng(13);
  int more_than_one = 0, max_seen = 0;
  for (int trial = 0; trial < 100; ++trial) {
    Mat<std::int32_t> m = make<std::int32_t>(rng, {32, 32}, Kind::spread, false);
    Mat<std::int32_t> full = m;
    const auto before = multiset(m.view());
    const int it = seed_loop_with_partial_rows(m.view(), 2, 1000);
    REQUIRE(it >= 1);
    CHECK(oracle_sorted(m.view()));
    CHECK(multiset(m.view()) == before);
    more_than_one += it > 1;
    max_seen = std::max(max_seen, it);
    CHECK(seed_loop_with_partial_rows(full.view(), 32, 1000) == 1);
  }
  CAPTURE(max_seen);
  CHECK(more_than_one == 100);
}

TEST_CASE("empty matrices are sorted, and zero threads or zero iterations are refused") {
  std::vector<int> none(1);
  for (Shape s : {Shape{0, 0}, Shape{0, 5}, Shape{5, 0}}) {
    MatrixView<int> v(none.data(), s.rows, s.cols);
    ts::sort_matrix_sequential(v);
    ts::sort_matrix_threaded(v, 3);
    CHECK(ts::sort_matrix_seed_loop(v, 1) == 1);
    CHECK(ts::is_row_column_sorted(v));
  }
  std::vector<int> a{3, 1, 2, 0};
  MatrixView<int> v(a.data(), 2, 2);
  CHECK_THROWS_AS(ts::sort_matrix_threaded(v, 0), std::invalid_argument);
  CHECK_THROWS_AS(ts::sort_matrix_seed_loop(v, 0), std::invalid_argument);
  CHECK(a == std::vector<int>{3, 1, 2, 0});
}

}  // TEST_SUITE("sort")
