// The arithmetic of the in-place transpose on the grid (gpu/inplace_on_grid.cu): how an m x n
// matrix is cut into one tile per block (two where the grid's shared memory is a little short:
// plan_tiles), how a tile lies in a block's shared memory, and how
// an output piece splits into whole aligned words and loose elements. The kernel and the CPU
// tests (tests/test_inplace_on_grid_tiles.cpp) share it, so the layout is checked without a GPU.
#pragma once
#include <algorithm>
#include <cstdint>

#include "tlab/host_device.hpp"
#include "tlab/matrix.hpp"

namespace tlab::on_grid {

// A tile lives in shared memory column by column (a column is one output piece of h elements,
// then rows up to a multiple of R, then padding): column c starts at byte c * pitch + K * (c /
// G), K = max(4, S), G = 16 / S (the elements of a 16-byte word).
//
// A warp reads a row piece as 16-byte words realigned to the piece (word j holds columns
// G j .. G j + G - 1), so lanes are G columns apart; the skew of K every G columns, with a
// pitch such that G * pitch / K is even, spreads their stores over the banks (no two stores
// that shared memory serves at once share one: tests/test_inplace_on_grid_tiles.cpp). Below 4
// bytes a warp takes R = 4 / S consecutive rows at once and transposes R x R blocks in
// registers, so that every store to shared memory is a 4-byte word (R rows of one column).
template <int S> struct Columns {
  static constexpr int K = S < 4 ? 4 : S, G = 16 / S >= 1 ? 16 / S : 1, R = S < 4 ? 4 / S : 1;
  static std::int64_t pitch(std::int64_t h) {
    std::int64_t p = ceil_div(h, R) * R * S;
    while ((G * p) % (2 * K) != 0) p += K;
    return p;
  }
  // In 32 bits: the kernel's columns lie in a block's shared memory.
  TLAB_HD static int base(int c, int pitch) { return c * pitch + K * (c / G); }
};

struct Tiles {
  int h = 0, w = 0;  // tile rows and columns (the last tiles of a row or column may be shorter)
  int across = 0;    // tiles across the n columns
  int count = 0;     // tiles: one a block, or two where the grid's shared memory is too small
  int pitch = 0;     // bytes per tile column in shared memory (Columns<S>::pitch(h))
  // Where a block takes two tiles (block b also tile b + blocks): the second lies at byte 0 of
  // its shared memory, its own tile from byte first_at, and the `spill` bytes where the two
  // overlap wait in global memory between the phases (place_tiles). Both 0 with one tile a block.
  int first_at = 0, spill = 0;
};

// Shared memory for an h x w tile: its columns rounded up to a whole word's G, which the last
// word of a row piece may fill (elements past the piece, never written out), and 32 bytes that
// the write phase's second 16-byte load of the last column may reach past them.
// In 64 bits: the chooser weighs tiles far larger than any shared memory (2 x 600000001 bytes
// has a tile of one row of 4.5 million columns), which base() would overflow.
template <int S> std::int64_t tile_bytes(std::int64_t h, std::int64_t w) {
  using C = Columns<S>;
  const std::int64_t columns = ceil_div(w, C::G) * C::G;
  return columns * C::pitch(h) + C::K * (columns / C::G) + 32;
}

// The tiles of h x w (at most the matrix's sides) that cover an m x n matrix; count 0 where
// they are more than a grid has blocks (2^30) or a tile's sides or pitch overflow an int.
template <int S> Tiles tiles_of(std::int64_t m, std::int64_t n, std::int64_t h, std::int64_t w) {
  constexpr std::int64_t kMaxTiles = std::int64_t{1} << 30, kMaxInt = 0x7fffffff;
  h = std::min(h, m), w = std::min(w, n);
  if (h < 1 || w < 1 || h > kMaxInt / (4 * S) || w > kMaxInt) return Tiles{};
  const std::int64_t across = ceil_div(n, w), down = ceil_div(m, h);
  if (across > kMaxTiles || down > kMaxTiles / across) return Tiles{};
  return Tiles{static_cast<int>(h), static_cast<int>(w), static_cast<int>(across), static_cast<int>(down * across),
               static_cast<int>(Columns<S>::pitch(h))};
}

// The warp rounds of an h x w tile: h row pieces of ceil(w S / 496) reads each (a round: the
// 31 realigned 16-byte words one warp loads of a row) and w output pieces of ceil(h S / 512)
// stores each (32 words a round) plus one for the piece's loose ends.
template <int S> std::int64_t warp_rounds(std::int64_t h, std::int64_t w) {
  return h * ceil_div(w * S, std::int64_t{496}) + w * (ceil_div(h * S, std::int64_t{512}) + 1);
}

// Whether tilings with the same count are ranked by their warp rounds (true) or by their
// shorter side. Measured on an H100 (performance notes, section 9, "On-grid's tiles by the
// work per warp"): fewer rounds ran 0.2-10.7% faster for 2 to 16 bytes and for 1-byte rows on
// 16-byte words, but 2-2.5% slower for 1-byte rows at every offset in a word (16381 x 1021,
// 4093 x 1021), for a reason not known.
template <int S> bool rank_by_rounds(std::int64_t m, std::int64_t n) {
  return S > 1 || (m % 16 == 0 && n % 16 == 0);
}

// The tile for `blocks` blocks of `smem` bytes each: of the shapes with at most `blocks` tiles
// whose tile fits, the one with the most tiles (an SM without a tile adds nothing to either
// phase's rate, and the others move more bytes each: 1024 x 16384 bytes in 90 tiles of 512 x
// 365 ran 7% slower than in 132 of 512 x 249 on an H100), then the one with the fewest warp
// rounds or the longest shorter side (rank_by_rounds; a tile's rows are the pieces it reads,
// its columns the pieces it writes). False where none fits. `bytes`: a bound on the matrix's
// bytes (0: blocks times smem); `accept`: a further test a tiling must pass.
struct AnyTiles {
  bool operator()(const Tiles&) const { return true; }
};
template <int S, class Accept = AnyTiles>
bool choose_tiles(std::int64_t m, std::int64_t n, int blocks, std::int64_t smem, Tiles& best, std::int64_t bytes = 0,
                  Accept accept = {}) {
  const std::int64_t capacity = (bytes > 0 ? bytes : static_cast<std::int64_t>(blocks) * smem) / S;  // elements, at most
  if (m < 1 || n < 1 || n > capacity || m > capacity / n) return false;
  const bool by_rounds = rank_by_rounds<S>(m, n);
  bool found = false;
  std::int64_t best_cost = 0;  // rounds, or minus the shorter side: less is better
  for (std::int64_t across = 1; across <= std::min<std::int64_t>(n, blocks); ++across) {
    const std::int64_t w = ceil_div(n, across);
    if (ceil_div(n, w) != across) continue;  // the same tiles as a smaller count
    const std::int64_t h = ceil_div(m, blocks / across);
    if (tile_bytes<S>(h, w) > smem) continue;
    const Tiles t = tiles_of<S>(m, n, h, w);
    if (!accept(t)) continue;
    const std::int64_t cost = by_rounds ? warp_rounds<S>(t.h, t.w) : -std::min<std::int64_t>(t.h, t.w);
    if (found && (t.count < best.count || (t.count == best.count && cost >= best_cost))) continue;
    found = true;
    best_cost = cost;
    best = t;
  }
  return found;
}

// Two tiles a block, for a matrix somewhat larger than the grid's shared memory: each block reads
// its second tile into the bottom of its `smem` bytes, puts the part that its own tile will
// cover into global memory, reads its own tile into the top, and after the grid's barrier
// writes its own, brings the part back and writes the second. Every tile fits a block alone,
// and the bytes kept aside (what the matrix exceeds the shared memory by, and more by the
// tiles' padding) are at most kSpillRows rows of the longer side, the bound of c2r-r256's
// scratch. The own tile starts on a 16-byte word, as the kept part does.
constexpr std::int64_t kSpillRows = 256;
template <int S> std::int64_t spill_cap_bytes(std::int64_t m, std::int64_t n) { return kSpillRows * std::max(m, n) * S; }

// Global memory that `blocks` blocks keep aside for tiles t: the overlap of each block that
// takes two.
inline std::int64_t spill_bytes(const Tiles& t, int blocks) {
  return t.count > blocks ? static_cast<std::int64_t>(t.count - blocks) * t.spill : 0;
}

// Tiles t (from tiles_of) made ready for `blocks` blocks of `smem` bytes (a multiple of 16):
// true, with first_at and spill set, where every tile fits a block, there are at most two a
// block, and the bytes kept aside are within spill_cap_bytes.
template <int S> bool place_tiles(std::int64_t m, std::int64_t n, int blocks, std::int64_t smem, Tiles& t) {
  const std::int64_t bytes = tile_bytes<S>(t.h, t.w);
  if (t.count < 1 || bytes > smem || t.count > 2 * static_cast<std::int64_t>(blocks)) return false;
  t.first_at = t.spill = 0;
  if (t.count <= blocks) return true;
  t.first_at = static_cast<int>((smem - bytes) / 16 * 16);
  t.spill = static_cast<int>(std::max<std::int64_t>(0, ceil_div(bytes, std::int64_t{16}) * 16 - t.first_at));
  return spill_bytes(t, blocks) <= spill_cap_bytes<S>(m, n);
}

// The tiles for `blocks` blocks of `smem` bytes: one a block where choose_tiles finds them,
// else two a block, chosen the same way among `2 blocks` of the tilings whose kept part is
// within the cap (the most tiles, which keep the least aside for the same padding, then the
// fewest warp rounds). False where neither fits.
template <int S> bool plan_tiles(std::int64_t m, std::int64_t n, int blocks, std::int64_t smem, Tiles& t) {
  smem = smem / 16 * 16;
  if (choose_tiles<S>(m, n, blocks, smem, t)) return place_tiles<S>(m, n, blocks, smem, t);
  const std::int64_t most = static_cast<std::int64_t>(blocks) * smem + spill_cap_bytes<S>(m, n);  // bytes
  auto within_cap = [&](Tiles x) { return place_tiles<S>(m, n, blocks, smem, x); };
  return choose_tiles<S>(m, n, 2 * blocks, smem, t, most, within_cap) && place_tiles<S>(m, n, blocks, smem, t);
}

// A piece of `bytes` bytes whose first byte sits `off` bytes into an aligned 16-byte word: the
// words wholly inside it, [lo, hi), and its head [0, head) and tail [tail, bytes) outside them,
// each under 16 bytes.
struct Piece {
  int lo, hi, head, tail;
  TLAB_HD Piece(int off, int bytes)
      : lo(off > 0), hi((off + bytes) / 16), head(std::min(16 * lo - off, bytes)), tail(std::max(16 * hi - off, head)) {}
};

}  // namespace tlab::on_grid
