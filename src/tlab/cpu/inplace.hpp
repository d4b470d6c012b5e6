// In-place square transposes of seed 000: naive swap, swap with prefetch, and the
// cache-oblivious recursion (the seed's four-quadrant form and a one-pass form).
//
// The algorithms live in a namespace chosen by the includer (TLAB_CPU_NS) because the
// same templates are compiled at -O0..-O3 into one program: with a shared namespace the
// linker would keep one instantiation for all four levels and the sweep would measure
// one optimisation level four times.
#pragma once
#include <algorithm>
#include <cstdint>
#include <utility>

#include "tlab/matrix.hpp"

#ifndef TLAB_CPU_NS
#define TLAB_CPU_NS opt_default
#endif

namespace tlab::cpu::TLAB_CPU_NS {

// Swaps every element above the diagonal of the square block `a` with its mirror.
template <typename T> void inplace_naive(MatrixView<T> a) {
  const std::int64_t n = a.rows;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = i + 1; j < n; ++j) std::swap(a(i, j), a(j, i));
}

// Seed 000's Algorithm 2: after each swap, prefetch the next row's element for writing and
// the next column's element for reading, both with low temporal locality (1).
template <typename T> void inplace_prefetch(MatrixView<T> a) {
  const std::int64_t n = a.rows;
  for (std::int64_t i = 0; i < n; ++i) {
    const bool has_next = i + 1 < n;  // never form a pointer past the matrix
    for (std::int64_t j = i + 1; j < n; ++j) {
      std::swap(a(i, j), a(j, i));
      if (has_next) {
        __builtin_prefetch(&a(i + 1, j), 1, 1);
        __builtin_prefetch(&a(j, i + 1), 0, 1);
      }
    }
  }
}

// Swaps block b (r x c) with the transpose of block m (c x r): b(i,j) <-> m(j,i).
template <typename T> void swap_transposed_blocks(MatrixView<T> b, MatrixView<T> m) {
  for (std::int64_t i = 0; i < b.rows; ++i)
    for (std::int64_t j = 0; j < b.cols; ++j) std::swap(b(i, j), m(j, i));
}

// One-pass cache-oblivious form: off-diagonal blocks are swapped-and-transposed with their
// mirror in a single recursion, so each element is read and written once.
template <typename T>
void swap_transposed_recursive(MatrixView<T> b, MatrixView<T> m, std::int64_t threshold) {
  if (b.rows <= threshold && b.cols <= threshold) return swap_transposed_blocks(b, m);
  if (b.rows >= b.cols) {  // split the longer side so blocks stay roughly square
    const std::int64_t h = b.rows / 2;
    swap_transposed_recursive(b.block(0, 0, h, b.cols), m.block(0, 0, m.rows, h), threshold);
    swap_transposed_recursive(b.block(h, 0, b.rows - h, b.cols), m.block(0, h, m.rows, m.cols - h),
                              threshold);
  } else {
    const std::int64_t h = b.cols / 2;
    swap_transposed_recursive(b.block(0, 0, b.rows, h), m.block(0, 0, h, m.cols), threshold);
    swap_transposed_recursive(b.block(0, h, b.rows, b.cols - h), m.block(h, 0, m.rows - h, m.cols),
                              threshold);
  }
}

template <typename T> void inplace_oblivious(MatrixView<T> a, std::int64_t threshold) {
  const std::int64_t n = a.rows;
  if (n <= threshold) return inplace_naive(a);
  const std::int64_t h = n / 2;
  inplace_oblivious(a.block(0, 0, h, h), threshold);
  inplace_oblivious(a.block(h, h, n - h, n - h), threshold);
  swap_transposed_recursive(a.block(0, h, h, n - h), a.block(h, 0, n - h, h), threshold);
}

// Seed 000's Algorithm 3 as published: transpose all four quadrants in place, then swap
// the upper-right and lower-left quadrants element by element. Off-diagonal data is read
// and written twice, which is why the seed's Cachegrind table shows about twice the reads
// and writes of the naive swap. The quadrant trick needs square quadrants, so a block of
// odd size falls back to the naive swap.
template <typename T> void inplace_oblivious_seed(MatrixView<T> a, std::int64_t threshold) {
  const std::int64_t n = a.rows;
  if (n <= threshold || n % 2 != 0) return inplace_naive(a);
  const std::int64_t h = n / 2;
  inplace_oblivious_seed(a.block(0, 0, h, h), threshold);
  inplace_oblivious_seed(a.block(0, h, h, h), threshold);
  inplace_oblivious_seed(a.block(h, 0, h, h), threshold);
  inplace_oblivious_seed(a.block(h, h, h, h), threshold);
  MatrixView<T> ur = a.block(0, h, h, h), ll = a.block(h, 0, h, h);
  for (std::int64_t i = 0; i < h; ++i)
    for (std::int64_t j = 0; j < h; ++j) std::swap(ur(i, j), ll(i, j));
}

}  // namespace tlab::cpu::TLAB_CPU_NS
