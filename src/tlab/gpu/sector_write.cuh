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

// Writes the tile in `tile` transposed: column c of it (at.h elements, an extended column:
// elements [pre, pre + len) are the tile's own, the others its halo) goes to output row
// row0 + c from column col0, at element at.out_first + c * at.out_pitch of the matrix. Each
// piece is widened to the sectors under it where the extended column reaches that far, else
// cut at words as write_tile cuts it. An element of a widened word outside the piece is the
// column's where ours(row, col) (the element is the wave's, so the column holds its
// transposed value), else the matrix's own, read here (after the wave's barrier).
template <int S, class Index, class Ours>
__device__ __forceinline__ void write_tile_sectors(const unsigned char* tile, unsigned char* a, const Place<Index>& at,
                                                   int pre, int len, std::int64_t row0, std::int64_t col0,
                                                   const Ours& ours) {
  using C = on_grid::Columns<S>;
  using Elem = word::Word<S>;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int ext = at.h * S, p0 = pre * S, p1 = p0 + len * S;  // column bytes: all, and the piece's
  for (int c = warp; c < at.w; c += kWarps) {
    const Index first = (at.out_first + c * at.out_pitch) * S;
    const int off = static_cast<int>((at.skew + first) % 16);
    const int off32 = static_cast<int>((reinterpret_cast<std::uintptr_t>(a) + first) % 32);
    // [w0, w1): the column bytes written as whole words (a multiple of 16 bytes apart from -off).
    const int s0 = p0 - (off32 + p0) % 32, s1 = p1 + (32 - (off32 + p1) % 32) % 32;
    const int w0 = s0 >= 0 ? s0 : p0 + (16 - (off + p0) % 16) % 16;
    const int w1 = s1 <= ext ? s1 : p1 - (off + p1) % 16;
    const int col = C::base(c, at.pitch), shift = ((col - off) % 16 + 16) % 16;
    unsigned char* out = a + first - off;  // output word q is out + 16 q: column bytes [16 q - off, 16 q - off + 16)
    const std::int64_t row = row0 + c;
    if (w0 < w1) {
      for (int q = (w0 + off) / 16 + lane; q < (w1 + off) / 16; q += 32) {
        const int x0 = 16 * q - off, from = col + x0 - shift;
        uint4 v = bytes_at(lds128(tile + from), lds128(tile + from + 16), shift);
        if (x0 < p0 || x0 + 16 > p1) {  // a word at the piece's edge: the others' elements by their owner
          const uint4 old = *reinterpret_cast<const uint4*>(out + 16 * q);
          unsigned keep[4] = {0, 0, 0, 0};
#pragma unroll
          for (int j = 0; j < 16 / S; ++j) {
            const int x = x0 + j * S;
            if ((x < p0 || x >= p1) && !ours(row, col0 + x / S))
#pragma unroll
              for (int k = j * S; k < j * S + S; ++k) keep[k / 4] |= 0xffu << (8 * (k % 4));
          }
          v.x = (v.x & ~keep[0]) | (old.x & keep[0]);
          v.y = (v.y & ~keep[1]) | (old.y & keep[1]);
          v.z = (v.z & ~keep[2]) | (old.z & keep[2]);
          v.w = (v.w & ~keep[3]) | (old.w & keep[3]);
        }
        *reinterpret_cast<uint4*>(out + 16 * q) = v;
      }
    }
    // What is left of the piece element by element: a head and a tail of under 16 bytes (lanes
    // 0-15 and 16-31), or, with no whole word, the whole piece of under 32 bytes.
    const int e = w0 < w1 ? (lane < 16 ? p0 + lane * S : w1 + (lane - 16) * S) : p0 + lane * S;
    const bool mine = w0 < w1 ? (lane < 16 ? e < w0 && e < p1 : e >= p0 && e < p1) : e < p1;
    if (mine) *reinterpret_cast<Elem*>(a + first + e) = *reinterpret_cast<const Elem*>(tile + col + e);
  }
}

}  // namespace tlab::gpu::grid_tile
