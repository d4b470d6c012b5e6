// Sorting a matrix so that every row and every column is non-decreasing (issue #5, seed 003).
// One pass of "sort the rows, then sort the columns" is enough: docs/matrix-sort.md gives the
// argument. The seed's "repeat until sorted" loop is kept as an option that counts its
// iterations, so that the claim can be tested rather than assumed.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "tlab/cpu/outofplace.hpp"
#include "tlab/matrix.hpp"

namespace tlab::sort {

// A strict weak order on T. Integers: the usual order. Floating point: every NaN (any sign,
// any payload) is greater than every number, +inf included, and NaNs are equivalent to each
// other; -0.0 comes before +0.0. The built-in < is not a strict weak order once a NaN is
// present (NaN is then "equivalent" to both 1 and 2, which are not equivalent to each other),
// and std::sort may then read past the end of its range.
template <typename T> struct less {
  bool operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(a)) return false;
      if (std::isnan(b)) return true;
      if (a < b) return true;
      if (b < a) return false;
      // Numerically equal: only -0.0 and +0.0 are still told apart.
      return std::signbit(a) && !std::signbit(b);
    } else {
      return a < b;
    }
  }
};

// A tile that keeps one input and one output tile of doubles in L1 (see outofplace.hpp).
constexpr std::int64_t kTransposeTile = 32;

namespace detail {

template <typename T> MatrixView<const T> as_const(MatrixView<T> v) {
  return MatrixView<const T>(v.data, v.rows, v.cols, v.ld);
}

template <typename T> void sort_row_range(MatrixView<T> v, std::int64_t r0, std::int64_t r1) {
  for (std::int64_t i = r0; i < r1; ++i) {
    T* row = v.data + i * v.ld;
    std::sort(row, row + v.cols, less<T>{});
  }
}

// Calls f(r0, r1) on `threads` contiguous, near-equal slices of [0, rows), one thread each
// (the caller's thread takes the first slice).
template <typename F> void split_rows(std::int64_t rows, unsigned threads, F f) {
  if (threads < 1) throw std::invalid_argument("matrix sort: threads must be at least 1");
  const std::int64_t n = std::max<std::int64_t>(1, std::min<std::int64_t>(threads, rows));
  // Joined on every way out: a thread still joinable when it is destroyed ends the program.
  struct Pool {
    std::vector<std::thread> threads;
    ~Pool() {
      for (auto& t : threads)
        if (t.joinable()) t.join();
    }
  } pool;
  pool.threads.reserve(static_cast<std::size_t>(n - 1));
  for (std::int64_t k = 1; k < n; ++k)
    pool.threads.emplace_back(f, rows * k / n, rows * (k + 1) / n);
  f(std::int64_t{0}, rows / n);
}

// out (cols x rows, packed) = transpose of in; each thread takes a slice of in's rows, that
// is a slice of out's columns.
template <typename T> void transpose_threaded(MatrixView<const T> in, MatrixView<T> out, unsigned threads) {
  split_rows(in.rows, threads, [&](std::int64_t r0, std::int64_t r1) {
    cpu::outofplace_blocked(in.block(r0, 0, r1 - r0, in.cols), out.block(0, r0, out.rows, r1 - r0),
                            kTransposeTile);
  });
}

}  // namespace detail

// Sorts every row of v under less<T>.
template <typename T> void sort_rows(MatrixView<T> v) { detail::sort_row_range(v, 0, v.rows); }

// Sorts every column of v: transposes into a packed copy with the library's blocked
// out-of-place transpose, sorts that copy's rows, and transposes back into v.
template <typename T> void sort_columns_via_transpose(MatrixView<T> v) {
  std::vector<T> t(static_cast<std::size_t>(v.rows * v.cols));
  MatrixView<T> tv(t.data(), v.cols, v.rows);
  cpu::outofplace_blocked(detail::as_const(v), tv, kTransposeTile);
  sort_rows(tv);
  cpu::outofplace_blocked(detail::as_const(tv), v, kTransposeTile);
}

// The sequential baseline: rows, then columns, once.
template <typename T> void sort_matrix_sequential(MatrixView<T> v) {
  sort_rows(v);
  sort_columns_via_transpose(v);
}

// The same two passes with rows (and, through the transposed copy, columns) split over
// `threads` std::threads. Every row is sorted by the same std::sort call as in the
// sequential version, so the result is identical to it bit for bit.
template <typename T> void sort_matrix_threaded(MatrixView<T> v, unsigned threads) {
  detail::split_rows(v.rows, threads, [&](std::int64_t r0, std::int64_t r1) { detail::sort_row_range(v, r0, r1); });
  std::vector<T> t(static_cast<std::size_t>(v.rows * v.cols));
  MatrixView<T> tv(t.data(), v.cols, v.rows);
  detail::transpose_threaded(detail::as_const(v), tv, threads);
  detail::split_rows(tv.rows, threads, [&](std::int64_t r0, std::int64_t r1) { detail::sort_row_range(tv, r0, r1); });
  detail::transpose_threaded(detail::as_const(tv), v, threads);
}

// True when no element is less (under less<T>) than its left or its upper neighbour.
template <typename T> bool is_row_column_sorted(MatrixView<const T> v) {
  const less<T> lt;
  for (std::int64_t i = 0; i < v.rows; ++i)
    for (std::int64_t j = 0; j < v.cols; ++j) {
      if (j > 0 && lt(v(i, j), v(i, j - 1))) return false;
      if (i > 0 && lt(v(i, j), v(i - 1, j))) return false;
    }
  return true;
}
template <typename T> bool is_row_column_sorted(MatrixView<T> v) { return is_row_column_sorted(detail::as_const(v)); }

// Seed 003's loop: repeat "sort rows, transpose, sort rows, transpose" and check, until the
// check passes. Returns the number of iterations run (always 1: docs/matrix-sort.md).
// Throws std::runtime_error if the matrix is still unsorted after max_iterations.
template <typename T> int sort_matrix_seed_loop(MatrixView<T> v, int max_iterations) {
  if (max_iterations < 1) throw std::invalid_argument("sort_matrix_seed_loop: max_iterations must be at least 1");
  for (int it = 1; it <= max_iterations; ++it) {
    sort_rows(v);
    sort_columns_via_transpose(v);  // transpose, sort rows, transpose
    if (is_row_column_sorted(v)) return it;
  }
  throw std::runtime_error("sort_matrix_seed_loop: not sorted after " + std::to_string(max_iterations) +
                           " iterations");
}

}  // namespace tlab::sort
