// The in-place transpose of an M x M² or an M² x M matrix as a rotation of three base-M
// digits (gpu/inplace_cube.cu). Element x M² + y M + z of an M x M² matrix (row x, column
// y M + z) belongs at y M² + z M + x of the M² x M result (row y M + z, column x); element x M²
// + y M + z of an M² x M matrix belongs at z M² + x M + y. Three such rotations are the
// identity, so the elements move in cycles of three (or stay, where x = y = z), and so do tiles
// of L x L x L digits: tile (a, b, c) goes to (b, c, a), that to (c, a, b), that back. A block
// takes one cycle of tiles, so each element is read once and written once, in one launch, with
// no scratch. The kernel and the CPU tests (tests/test_inplace_cube_index.cpp) share this.
#pragma once
#include <cstdint>

#include "tlab/host_device.hpp"
#include "tlab/matrix.hpp"

namespace tlab::cube {

// M where s is M x M² (forward = true) or M² x M (forward = false) with 2 <= M < 2^21 (so that
// M³, and the tile counts of cycles(), fit 64 bits; no such matrix fits a GPU anyway), else 0.
inline std::int64_t side(Shape s, bool& forward) {
  auto square_of = [](std::int64_t m, std::int64_t n) { return m >= 2 && m < (std::int64_t{1} << 21) && m * m == n; };
  forward = square_of(s.rows, s.cols);
  if (forward) return s.rows;
  return square_of(s.cols, s.rows) ? s.cols : 0;
}

// Cycles of tiles where each digit has T tiles: (T³ - T) / 3 of three tiles, then T of one.
TLAB_HD std::int64_t cycles(std::int64_t T) { return T * (T * T - 1) / 3 + T; }

// The first tile of cycle i < cycles(T): of the three, the one whose first digit is the least
// and whose second is greater than its first (exactly one of every cycle of three distinct
// tiles has both), in order of a, then b, then c; after those, the fixed tiles (i, i, i).
TLAB_HD void cycle(std::int64_t i, std::int64_t T, std::int64_t& a, std::int64_t& b, std::int64_t& c) {
  for (a = 0; a < T; ++a) {
    const std::int64_t here = (T - 1 - a) * (T - a);  // b in (a, T), c in [a, T)
    if (i < here) {
      b = a + 1 + i / (T - a);
      c = a + i % (T - a);
      return;
    }
    i -= here;
  }
  a = b = c = i;
}

}  // namespace tlab::cube
