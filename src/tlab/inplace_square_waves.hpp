// The arithmetic of the in-place square transpose in waves (gpu/inplace_square_waves.cu),
// shared by the kernel, its launch and the CPU tests (tests/test_inplace_square_waves.cpp).
//
// An n x n matrix is transposed in place as a sequence of crosses. The wave that starts at s,
// with band b, takes rows [s, s + b) from column s on (the row part, b x r with r = n - s) and
// columns [s, s + b) from row s + b on (the column part, (r - b) x b). The transpose maps the
// cross onto itself, and crosses of different waves share no element, so a wave needs a grid
// barrier only between its own reads and writes: every block reads its tile of the cross into
// shared memory, the grid waits, and every block writes its tile transposed. The next wave's
// reads may start while other blocks still write this one: they touch other elements.
//
// A block's rate is about its share of the DRAM's only while every block works (performance
// notes, section 9, "In-place squares in waves"), so the schedule gives every wave about the
// same share of the matrix and cuts each cross into about as many equal tiles as there are
// blocks: h x w in the row part, w x h in the column part.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "tlab/host_device.hpp"
#include "tlab/inplace_on_grid_tiles.hpp"

namespace tlab::waves {

TLAB_HD std::int64_t up(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
TLAB_HD std::int64_t least(std::int64_t a, std::int64_t b) { return a < b ? a : b; }

// Tiles of the wave with band b where r rows and columns are left.
TLAB_HD std::int64_t tiles_in(std::int64_t r, std::int64_t b, std::int64_t h, std::int64_t w) {
  return up(b, h) * (up(r, w) + up(r - b, w));
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

// One wave: its start and band, its tiles' sides, and their pitches in shared memory
// (on_grid::Columns<S>::pitch of h rows for the row part's tiles, of w rows for the column
// part's). Sides fit 32 bits: an n x n matrix in device memory has n < 2^31.
struct Wave {
  int s, b, h, w, pitch_h, pitch_w;
};

// The shared memory of a tile of h x w and of one of w x h, whichever is more.
template <int S> std::int64_t tile_pair_bytes(std::int64_t h, std::int64_t w) {
  const std::int64_t a = on_grid::tile_bytes<S>(h, w), b = on_grid::tile_bytes<S>(w, h);
  return a > b ? a : b;
}

// The tiles of the wave with band b where r are left, on `blocks` blocks of `smem` bytes: of
// the counts p of tile rows in the band (h = ceil(b / p)), with w the least that keeps the
// tiles within `blocks` (then evened out over its count across), the pair whose largest tile
// costs least, a tile's cost its bytes and 64 more a row piece (each piece starts and ends
// inside a line). False where none fits.
template <int S> bool tiles_for(std::int64_t r, std::int64_t b, int blocks, std::int64_t smem, int& h, int& w) {
  double best = -1;
  for (std::int64_t p = 1; p <= least(b, blocks); ++p) {
    const std::int64_t hh = up(b, p);
    if (up(b, hh) != p) continue;  // the same tiles as a smaller p
    const std::int64_t per = blocks / p;  // tiles across the two parts, at most
    if (per < 1 + (r > b)) break;        // one across each part at least
    std::int64_t ww = up(2 * r - b, per);
    while (up(r, ww) + up(r - b, ww) > per) ++ww;
    // The same count across the row part, evened out, unless that adds one across the column part.
    if (const std::int64_t even = up(r, up(r, ww)); up(r, even) + up(r - b, even) <= per) ww = even;
    if (tile_pair_bytes<S>(hh, ww) > smem) continue;
    const double cost = static_cast<double>(hh) * ww * S + 64.0 * (hh + ww);
    if (best < 0 || cost < best) {
      best = cost;
      h = static_cast<int>(hh), w = static_cast<int>(ww);
    }
  }
  return best >= 0;
}

// The waves of an n x n matrix on `blocks` blocks of `smem` bytes. W waves of about equal size,
// W the count that 90% of the grid's shared memory needs: wave k ends at the target s_k = n -
// n sqrt(1 - k / W), so that each covers about n² / W elements. A wave whose tiles do not fit
// is narrowed (three quarters of its band at a time) and the next one starts where it ended,
// so each wave costs a few calls of tiles_for. Empty where a wave one row wide does not fit,
// or where the waves would pass kMaxWaves.
constexpr std::int64_t kMaxWaves = std::int64_t{1} << 16;
template <int S> std::vector<Wave> schedule(std::int64_t n, int blocks, std::int64_t smem) {
  if (n < 1 || n > 0x7fffffff || blocks < 1 || smem < 16) return {};
  const double share = 0.9 * static_cast<double>(blocks) * static_cast<double>(smem) / S;  // elements a wave, about
  const double count = std::ceil(static_cast<double>(n) * static_cast<double>(n) / share);
  if (count > static_cast<double>(kMaxWaves)) return {};
  const std::int64_t W = std::max<std::int64_t>(1, static_cast<std::int64_t>(count));
  auto target = [&](std::int64_t k) {  // where wave k of W ends
    if (k >= W) return n;
    return n - static_cast<std::int64_t>(std::llround(static_cast<double>(n) * std::sqrt(1.0 - static_cast<double>(k) / W)));
  };
  std::vector<Wave> waves;
  std::int64_t k = 1;
  for (std::int64_t s = 0; s < n;) {
    while (k < W && target(k) <= s) ++k;  // targets a narrowed wave left behind
    std::int64_t b = target(k) - s;
    int h = 0, w = 0;
    while (!tiles_for<S>(n - s, b, blocks, smem, h, w)) {
      if (b == 1) return {};
      b = std::max<std::int64_t>(1, b * 3 / 4);
    }
    waves.push_back(Wave{static_cast<int>(s), static_cast<int>(b), h, w, static_cast<int>(on_grid::Columns<S>::pitch(h)),
                         static_cast<int>(on_grid::Columns<S>::pitch(w))});
    if (static_cast<std::int64_t>(waves.size()) > kMaxWaves) return {};
    s += b;
  }
  return waves;
}

}  // namespace tlab::waves
