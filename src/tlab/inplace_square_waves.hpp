// The arithmetic of the in-place square transpose in waves (gpu/inplace_square_waves.cu),
// shared by the kernel, its launch and the CPU tests (tests/test_inplace_square_waves.cpp).
//
// An n x n matrix is transposed in place as a sequence of crosses. The wave that starts at s,
// with band b, takes rows [s, s + b) from column s on (the row part, b x r with r = n - s) and
// columns [s, s + b) from row s + b on (the column part, (r - b) x b). The transpose maps the
// cross onto itself, and crosses of different waves share no element, so a wave needs a grid
// barrier only between its own reads and writes: every block reads its tile of the cross into
// shared memory, the grid waits, and every block writes its tile transposed. Tiles are h x w
// in the row part and w x h in the column part; one a block. The next wave's reads may start
// while other blocks still write this one: they touch other elements.
#pragma once
#include <cstdint>

#include "tlab/host_device.hpp"

namespace tlab::waves {

TLAB_HD std::int64_t up(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
TLAB_HD std::int64_t least(std::int64_t a, std::int64_t b) { return a < b ? a : b; }

// Tiles of the wave with band b where r rows and columns are left.
TLAB_HD std::int64_t tiles_in(std::int64_t r, std::int64_t b, int h, int w) {
  return up(b, h) * (up(r, w) + up(r - b, w));
}

// The band of the wave where r rows and columns are left: whole tile rows of h, or all of r,
// as many as keep the wave's tiles within `blocks`, counted up from one tile row until the next
// would not fit. At least min(h, r) wherever that fits at the first wave (fits below): a wave's
// tiles with one tile row only fall as r does.
TLAB_HD std::int64_t band(std::int64_t r, int h, int w, int blocks) {
  std::int64_t b = least(h, r);
  while (b < r) {
    const std::int64_t next = least(b + h, r);
    if (tiles_in(r, next, h, w) > blocks) break;
    b = next;
  }
  return b;
}

// Whether tiles of h x w (and w x h) let every wave of an n x n matrix fit `blocks`.
TLAB_HD bool fits(std::int64_t n, int h, int w, int blocks) {
  return n < 1 || tiles_in(n, least(h, n), h, w) <= blocks;
}

// Tile `index` of the wave at s with band b: rows [row, row + rows) and columns [col, col +
// cols) of the matrix, whose transpose goes to rows [col, ...) and columns [row, ...). The row
// part's tiles come first, by rows; then the column part's. `lower`: a column part tile (w
// rows at most, so its pitch in shared memory is that of w rows). False past the wave's tiles.
struct Tile {
  std::int64_t row, col;
  int rows, cols;
  bool lower;
};
TLAB_HD bool tile_at(std::int64_t n, std::int64_t s, std::int64_t b, int h, int w, std::int64_t index, Tile& t) {
  const std::int64_t r = n - s, across = up(r, w), upper = up(b, h) * across;
  if (index < upper) {
    const std::int64_t i = index / across, j = index % across;
    t = Tile{s + i * h, s + j * w, static_cast<int>(least(h, b - i * h)), static_cast<int>(least(w, r - j * w)), false};
    return true;
  }
  index -= upper;
  const std::int64_t bands = up(b, h), below = r - b;
  if (index >= up(below, w) * bands) return false;
  const std::int64_t i = index / bands, j = index % bands;
  t = Tile{s + b + i * w, s + j * h, static_cast<int>(least(w, below - i * w)), static_cast<int>(least(h, b - j * h)), true};
  return true;
}

// The number of waves of an n x n matrix.
inline std::int64_t count(std::int64_t n, int h, int w, int blocks) {
  std::int64_t waves = 0;
  for (std::int64_t s = 0; s < n; s += band(n - s, h, w, blocks)) ++waves;
  return waves;
}

}  // namespace tlab::waves
