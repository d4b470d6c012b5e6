// write_tile's pieces widened to whole 32-byte sectors, for the in-place waves
// (inplace_square_waves.cu, gpu/word-inplace/waves-sectors). A piece that starts or ends
// inside a sector leaves the sector to be written in two parts by two blocks at different
// times, which the L2 serves at about half the rate of whole sectors (performance notes,
// section 9, "The barrier, the drain and the edges"). Here each block writes every sector
// its pieces touch whole: the bytes of its neighbours' pieces from rows it read past its own
// (the tile's halo), where they belong to the same wave, and what the matrix holds, where they
// do not (no block changes those in this wave, so all writers of a sector write the same bytes).
#pragma once
#include <cstdint>

#include "tlab/gpu/on_grid_tile.cuh"

namespace tlab::gpu::grid_tile {

// Where an extended column's piece is written: column bytes [p0, p1) are the tile's own,
// [w0, w1) are written as whole words (the piece widened to sectors where the column reaches,
// else cut at words), and [olo, ohi) hold elements of the wave (the others' bytes of a widened
// word are the matrix's own). `off`: column byte 0's offset in its 16-byte word.
struct SectorPiece {
  int off, p0, p1, w0, w1, olo, ohi;
};
// Column c of the extended tile `at` (its output row row0 + c, from output column col0); the
// wave's elements in that row: columns [s, end) of a row at or past `end`, [s, n) before it.
template <int S, class Index>
__device__ __forceinline__ SectorPiece sector_piece(const unsigned char* a, const Place<Index>& at, int c, int pre,
                                                    int len, std::int64_t row0, std::int64_t col0, std::int64_t s,
                                                    std::int64_t end) {
  const int ext = at.h * S;
  const Index first = (at.out_first + c * at.out_pitch) * S;
  SectorPiece p;
  p.off = static_cast<int>((at.skew + first) % 16);
  const int off32 = static_cast<int>((reinterpret_cast<std::uintptr_t>(a) + first) % 32);
  p.p0 = pre * S, p.p1 = p.p0 + len * S;
  const int s0 = p.p0 - (off32 + p.p0) % 32, s1 = p.p1 + (32 - (off32 + p.p1) % 32) % 32;
  p.w0 = s0 >= 0 ? s0 : p.p0 + (16 - (p.off + p.p0) % 16) % 16;
  p.w1 = s1 <= ext ? s1 : p.p1 - (p.off + p.p1) % 16;
  auto clip = [&](std::int64_t x) { return static_cast<int>(x < col0 ? 0 : x - col0 >= at.h ? ext : (x - col0) * S); };
  p.olo = clip(s), p.ohi = row0 + c < end ? ext : clip(end);
  return p;
}

// Bytes [lo, hi) of a 16-byte word from v, the rest from old.
__device__ __forceinline__ uint4 merge_bytes(uint4 v, const uint4& old, int lo, int hi) {
  lo = lo < 0 ? 0 : lo > 16 ? 16 : lo, hi = hi < lo ? lo : hi > 16 ? 16 : hi;
  const unsigned take = ((1u << hi) - 1u) & ~((1u << lo) - 1u);
  auto mask = [&](int i) { return (((take >> (4 * i)) & 0xfu) * 0x00204081u & 0x01010101u) * 0xffu; };
  v.x = (v.x & mask(0)) | (old.x & ~mask(0));
  v.y = (v.y & mask(1)) | (old.y & ~mask(1));
  v.z = (v.z & mask(2)) | (old.z & ~mask(2));
  v.w = (v.w & mask(3)) | (old.w & ~mask(3));
  return v;
}

// write_tile_sectors' second pass: a lane a column, the words at a band's edges whose other
// bytes are another wave's, the matrix's own. Not inlined: with the first pass's state its
// loads in flight would spill.
template <int S, class Index>
__device__ __noinline__ void edge_words_of_other_waves(const unsigned char* tile, unsigned char* a, const Place<Index> at,
                                                       int pre, int len, std::int64_t row0, std::int64_t col0,
                                                       std::int64_t s, std::int64_t end) {
  using C = on_grid::Columns<S>;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int c = warp + kWarps * lane; c < at.w; c += 32 * kWarps) {
    const SectorPiece p = sector_piece<S>(a, at, c, pre, len, row0, col0, s, end);
    if (p.w0 >= p.w1 || (p.w0 >= p.olo && p.w1 <= p.ohi)) continue;
    const Index first = (at.out_first + c * at.out_pitch) * S;
    const int col = C::base(c, at.pitch), shift = ((col - p.off) % 16 + 16) % 16;
    unsigned char* out = a + first - p.off;
    const int qlo = (p.w0 + p.off) / 16, qhi = (p.w1 + p.off) / 16;
    // The first two words, then the last two (a word in both is written twice, the same), each
    // pair's loads together.
#pragma unroll
    for (int end_ = 0; end_ < 2; ++end_) {
      int q[2];
      bool edge[2];
      uint4 old[2];
#pragma unroll
      for (int k = 0; k < 2; ++k) {
        q[k] = end_ == 0 ? qlo + k : qhi - 1 - k;
        const int x0 = 16 * q[k] - p.off;
        edge[k] = q[k] >= qlo && q[k] < qhi && (x0 < p.olo || x0 + 16 > p.ohi);
        if (edge[k]) old[k] = *reinterpret_cast<const uint4*>(out + 16 * q[k]);
      }
#pragma unroll
      for (int k = 0; k < 2; ++k)
        if (edge[k]) {
          const int x0 = 16 * q[k] - p.off, from = col + x0 - shift;
          const uint4 v = bytes_at(lds128(tile + from), lds128(tile + from + 16), shift);
          *reinterpret_cast<uint4*>(out + 16 * q[k]) = merge_bytes(v, old[k], p.olo - x0, p.ohi - x0);
        }
    }
  }
}

// Writes the tile in `tile` transposed: column c of it (at.h elements, an extended column:
// elements [pre, pre + len) are the tile's own, the others its halo) goes to output row
// row0 + c from output column col0, at element at.out_first + c * at.out_pitch of the matrix;
// s and end: the wave's band. Each piece is widened to the sectors under it where the
// extended column reaches that far, else cut at words as write_tile cuts it. A warp writes
// its columns' words whose bytes are all the wave's (the halo holds their transposed values),
// then, a column a lane so that their loads overlap, the few words at a band's edge whose
// other bytes are another wave's: those the matrix's own, read after the wave's barrier (no
// block changes them in this wave).
template <int S, class Index>
__device__ __forceinline__ void write_tile_sectors(const unsigned char* tile, unsigned char* a, const Place<Index>& at,
                                                   int pre, int len, std::int64_t row0, std::int64_t col0,
                                                   std::int64_t s, std::int64_t end) {
  using C = on_grid::Columns<S>;
  using Elem = word::Word<S>;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int c = warp; c < at.w; c += kWarps) {
    const SectorPiece p = sector_piece<S>(a, at, c, pre, len, row0, col0, s, end);
    const Index first = (at.out_first + c * at.out_pitch) * S;
    const int col = C::base(c, at.pitch), shift = ((col - p.off) % 16 + 16) % 16;
    unsigned char* out = a + first - p.off;  // output word q is out + 16 q: column bytes [16 q - off, 16 q - off + 16)
    if (p.w0 < p.w1) {
      for (int q = (p.w0 + p.off) / 16 + lane; q < (p.w1 + p.off) / 16; q += 32) {
        const int x0 = 16 * q - p.off, from = col + x0 - shift;
        if (x0 < p.olo || x0 + 16 > p.ohi) continue;  // another wave's bytes too: below
        *reinterpret_cast<uint4*>(out + 16 * q) = bytes_at(lds128(tile + from), lds128(tile + from + 16), shift);
      }
    }
    // What is left of the piece element by element: a head and a tail of under 16 bytes (lanes
    // 0-15 and 16-31), or, with no whole word, the whole piece of under 32 bytes.
    const int e = p.w0 < p.w1 ? (lane < 16 ? p.p0 + lane * S : p.w1 + (lane - 16) * S) : p.p0 + lane * S;
    const bool mine = p.w0 < p.w1 ? (lane < 16 ? e < p.w0 && e < p.p1 : e >= p.p0 && e < p.p1) : e < p.p1;
    if (mine) *reinterpret_cast<Elem*>(a + first + e) = *reinterpret_cast<const Elem*>(tile + col + e);
  }
  edge_words_of_other_waves<S>(tile, a, at, pre, len, row0, col0, s, end);
}

}  // namespace tlab::gpu::grid_tile
