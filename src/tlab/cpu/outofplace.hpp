// Out-of-place CPU transposes for any shape: seed 004's naive loop and a blocked loop.
#pragma once
#include <algorithm>
#include <cstdint>

#include "tlab/matrix.hpp"

namespace tlab::cpu {

// Seed 004's transposeCPU: reads the input row by row, writes the output column by column.
template <typename T> void outofplace_naive(MatrixView<const T> in, MatrixView<T> out) {
  for (std::int64_t i = 0; i < in.rows; ++i)
    for (std::int64_t j = 0; j < in.cols; ++j) out(j, i) = in(i, j);
}

// Square tiles small enough that a tile of input and one of output stay in L1 while the
// strided side is walked, so each cache line is fetched once instead of once per element.
template <typename T>
void outofplace_blocked(MatrixView<const T> in, MatrixView<T> out, std::int64_t tile) {
  for (std::int64_t i0 = 0; i0 < in.rows; i0 += tile)
    for (std::int64_t j0 = 0; j0 < in.cols; j0 += tile) {
      const std::int64_t i1 = std::min(i0 + tile, in.rows), j1 = std::min(j0 + tile, in.cols);
      for (std::int64_t i = i0; i < i1; ++i)
        for (std::int64_t j = j0; j < j1; ++j) out(j, i) = in(i, j);
    }
}

}  // namespace tlab::cpu
