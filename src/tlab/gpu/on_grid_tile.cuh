// A tile's trip through a block's shared memory for the transposes that read every tile of a
// wave before any is written back (a grid barrier between): gpu/inplace-rect/on-grid
// (inplace_on_grid.cu) and gpu/word-inplace/waves (inplace_square_waves.cu). Both phases move
// aligned 16-byte words of global memory, so that a warp issues as few instructions per byte
// as a copy does; the tile's layout in shared memory is on_grid::Columns
// (tlab/inplace_on_grid_tiles.hpp).
#pragma once
#include <cstdint>

#include "tlab/gpu/launch.cuh"
#include "tlab/gpu/shifted_words.cuh"
#include "tlab/gpu/word_tile.cuh"
#include "tlab/inplace_on_grid_tiles.hpp"

namespace tlab::gpu::grid_tile {

constexpr int kThreads = 1024, kWarps = kThreads / 32;

// Rows a warp reads at once (R-row groups of them), a 16-byte word a lane from each: 64 KiB
// in flight per SM. A thread of a 1024-thread block has 64 registers, and eight rows' words
// would need 32 of them for the loads alone.
constexpr int kRowsInFlight = 4;

// The grid of a kernel of kThreads threads a block, each block all but 1 KiB of the opt-in
// shared memory (a margin, as c2r-grid keeps): its bytes and blocks, every block resident at
// once. blocks 0 where the device has no cooperative launch. `allowed`: the kernel's own
// word::allow_smem record.
struct Grid {
  int smem = 0, blocks = 0;
};
template <class Kernel> Grid cooperative_grid(Kernel kernel, unsigned long long& allowed) {
  int dev = 0, optin = 0, coop = 0;
  TLAB_CUDA(cudaGetDevice(&dev));
  TLAB_CUDA(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
  TLAB_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  if (!coop) return Grid{};
  Grid g;
  g.smem = (optin - 1024) / 16 * 16;
  word::allow_smem(kernel, static_cast<std::size_t>(g.smem), allowed);
  int per_sm = 0;
  TLAB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, g.smem));
  g.blocks = sm_count() * per_sm;
  return g;
}

// A 16-byte load from shared memory that the compiler keeps whole (as four 4-byte loads, 16
// bytes apart across the lanes, they would meet in four-way bank conflicts).
__device__ __forceinline__ uint4 lds128(const unsigned char* p) {
  uint4 v;
  asm("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
      : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
      : "r"(static_cast<unsigned>(__cvta_generic_to_shared(p))));
  return v;
}

// Where a tile lies: its h x w elements start at element `in_first` of the matrix, rows
// `in_pitch` elements apart, and their transpose goes to element `out_first`, rows `out_pitch`
// apart (the same buffer). `pitch`: the tile's column pitch in shared memory (Columns<S>::pitch
// of its rows, or more). Reads may touch bytes of [begin, end) outside the tile. Index: int
// where every offset fits 32 bits (fewer instructions), else std::int64_t.
template <class Index> struct Place {
  Index in_first, in_pitch, out_first, out_pitch;
  int h, w, pitch, skew;  // skew: the matrix's base address mod 16
  const unsigned char *begin, *end;
};

// A warp's step of the reads: K rows, groups of R consecutive rows kWarps groups apart from
// group g0 on, and of each row the aligned 16-byte words j + lane under the piece (bytes of the
// neighbouring tiles too: nothing of theirs is written before the grid's barrier). `off`: where
// each row's piece starts in its first word.
template <int S, int K, class Index>
__device__ __forceinline__ void load_rows(uint4 (&x)[K], int (&off)[K], const unsigned char* a, const Place<Index>& at,
                                          int g0, int j) {
  constexpr int R = on_grid::Columns<S>::R;
  const int lane = threadIdx.x % 32, row_bytes = at.w * S;
#pragma unroll
  for (int u = 0; u < K; ++u) {
    const int r = (g0 + u / R * kWarps) * R + u % R;
    const Index first = (at.in_first + r * at.in_pitch) * S;
    off[u] = static_cast<int>((at.skew + first) % 16);
    const int q = j + lane;  // aligned word q under the piece starts 16 q - off bytes into it
    x[u] = r < at.h && 16 * q < off[u] + row_bytes ? load_within(a + first - off[u] + 16 * q, at.begin, at.end)
                                                   : make_uint4(0, 0, 0, 0);
  }
}

// The same step's words into the tile: lanes 0-30 shift word j of each piece into place from
// their word and the next lane's; then each lane stores its words' G columns, R rows at a
// time. A last word that runs past the piece fills columns past w, which are never written out.
template <int S, int K, class Index>
__device__ __forceinline__ void store_rows(unsigned char* tile, uint4 (&x)[K], const int (&off)[K],
                                           const Place<Index>& at, int g0, int j) {
  using C = on_grid::Columns<S>;
  using Elem = word::Word<S>;
  constexpr int R = C::R, G = C::G, kGroups = K / R;
  const int lane = threadIdx.x % 32, words = (at.w * S + 15) / 16;
#pragma unroll
  for (int u = 0; u < K; ++u) {
    uint4 next;
    next.x = __shfl_down_sync(0xffffffffu, x[u].x, 1);
    next.y = __shfl_down_sync(0xffffffffu, x[u].y, 1);
    next.z = __shfl_down_sync(0xffffffffu, x[u].z, 1);
    next.w = __shfl_down_sync(0xffffffffu, x[u].w, 1);
    x[u] = bytes_at(x[u], next, off[u]);
  }
  const int q = j + lane;
  if (lane == 31 || q >= words) return;
  const int at0 = q * (G * at.pitch + C::K);  // column G q
#pragma unroll
  for (int k = 0; k < kGroups; ++k) {
    const int r = (g0 + k * kWarps) * R;  // the group's first row
    if (r >= at.h) break;
    if constexpr (S >= 4) {
#pragma unroll
      for (int e = 0; e < G; ++e)
        *reinterpret_cast<Elem*>(tile + at0 + e * at.pitch + r * S) = word::element_of<S, 16>(x[k], e);
    } else {
      // Lane l of each of the R rows' words holds columns 4l / S ..; the R x R block of
      // those columns and rows, transposed, gives each column's R rows as one 4-byte word.
#pragma unroll
      for (int l = 0; l < 4; ++l) {
        unsigned in[R], col[R];
#pragma unroll
        for (int i = 0; i < R; ++i) {
          unsigned lanes[4];
          word::to_lanes(x[k * R + i], lanes);
          in[i] = lanes[l];
        }
        word::transpose_block<S, 4>(in, col);
#pragma unroll
        for (int i = 0; i < R; ++i)
          *reinterpret_cast<unsigned*>(tile + at0 + (l * R + i) * at.pitch + r * S) = col[i];
      }
    }
  }
}

// The read phase's steps over tile `at`: each warp loads kRowsInFlight rows a step, the 31
// realigned words j .. j + 30 of each (load_rows), and hands them to then(x, off, g0, j)
// before its next step's loads.
template <int S, class Index, class Then>
__device__ __forceinline__ void read_steps(const unsigned char* a, const Place<Index>& at, Then&& then) {
  constexpr int R = on_grid::Columns<S>::R, K = kRowsInFlight;
  const int warp = threadIdx.x / 32, words = (at.w * S + 15) / 16;
  for (int g0 = warp; g0 * R < at.h; g0 += kWarps * (K / R))
    for (int j = 0; j < words; j += 31) {
      uint4 x[K];
      int off[K];
      load_rows<S, K>(x, off, a, at, g0, j);
      then(x, off, g0, j);
    }
}

// Reads tile `at` into `tile`: each step's words shifted and stored (store_rows).
template <int S, class Index>
__device__ __forceinline__ void read_tile(unsigned char* tile, const unsigned char* a, const Place<Index>& at) {
  read_steps<S>(a, at, [&](uint4(&x)[kRowsInFlight], const int(&off)[kRowsInFlight], int g0, int j) {
    store_rows<S, kRowsInFlight>(tile, x, off, at, g0, j);
  });
}

// Writes `tile` transposed to where it belongs. A warp takes a column (output row c: h
// elements from at.out_first + c * at.out_pitch), its lanes the aligned 16-byte words inside
// that piece, each shifted into place from two aligned 16-byte loads of the column, and the
// head's and tail's elements (words that neighbouring pieces share) one a lane (lanes 0-15 the
// head, 16-31 the tail).
template <int S, class Index>
__device__ __forceinline__ void write_tile(const unsigned char* tile, unsigned char* a, const Place<Index>& at) {
  using C = on_grid::Columns<S>;
  using Elem = word::Word<S>;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int piece_bytes = at.h * S;
  for (int c = warp; c < at.w; c += kWarps) {
    const Index first = (at.out_first + c * at.out_pitch) * S;
    const int off = static_cast<int>((at.skew + first) % 16);
    const on_grid::Piece p(off, piece_bytes);
    const int col = C::base(c, at.pitch), shift = ((col - off) % 16 + 16) % 16;
    unsigned char* out = a + first - off;  // output word q is out + 16 q
    for (int q = p.lo + lane; q < p.hi; q += 32) {
      const int from = col + 16 * q - off - shift;  // 16-byte aligned, and not negative as q > 0 or off == 0
      *reinterpret_cast<uint4*>(out + 16 * q) = bytes_at(lds128(tile + from), lds128(tile + from + 16), shift);
    }
    const int e = lane < 16 ? lane * S : p.tail + (lane - 16) * S;
    if (lane < 16 ? e < p.head : e < piece_bytes)
      *reinterpret_cast<Elem*>(a + first + e) = *reinterpret_cast<const Elem*>(tile + col + e);
  }
}

}  // namespace tlab::gpu::grid_tile
