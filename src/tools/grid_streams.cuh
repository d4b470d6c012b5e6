// Yardsticks for tlab-on-grid-probe's waves cases: the matrix's bytes moved by a grid of the
// transpose's shape (blocks of 1024 threads, one an SM) with nothing of a tile's work, as a
// plain stream, in units of a chosen piece, and cut into waves by grid barriers.
#pragma once
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "tlab/gpu/launch.cuh"
#include "tlab/inplace_on_grid_tiles.hpp"

namespace {

// Reads the words [lo, hi) of `a` that are a grid's stride apart from thread `me`'s, L in flight
// a thread, folded into `acc`; keep() stores a fold only where it cannot be zero, so that the
// reads are not optimised away.
__device__ __forceinline__ void fold(uint4& acc, const uint4& x) { acc.x ^= x.x, acc.y ^= x.y, acc.z ^= x.z, acc.w ^= x.w; }
__device__ __forceinline__ void keep(const uint4& acc, uint4* sink) {
  if ((acc.x & acc.y & acc.z & acc.w) == 0xdeadbeefu) sink[threadIdx.x] = acc;
}
template <int L>
__device__ __forceinline__ void read_range(const uint4* a, std::int64_t lo, std::int64_t hi, std::int64_t me,
                                           std::int64_t stride, uint4& acc) {
  for (std::int64_t i = lo + me; i < hi; i += L * stride) {
    uint4 x[L];
#pragma unroll
    for (int u = 0; u < L; ++u) x[u] = i + u * stride < hi ? a[i + u * stride] : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int u = 0; u < L; ++u) fold(acc, x[u]);
  }
}
// The same words written, L a thread an iteration.
template <int L>
__device__ __forceinline__ void write_range(uint4* a, std::int64_t lo, std::int64_t hi, std::int64_t me,
                                            std::int64_t stride) {
  for (std::int64_t i = lo + me; i < hi; i += L * stride) {
#pragma unroll
    for (int u = 0; u < L; ++u)
      if (i + u * stride < hi) a[i + u * stride] = make_uint4(1, 2, 3, 4);
  }
}
__device__ __forceinline__ std::int64_t grid_stride() { return static_cast<std::int64_t>(gridDim.x) * blockDim.x; }
__device__ __forceinline__ std::int64_t grid_thread() {
  return blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
}

// For the waves cases: the matrix's bytes read (or written) once as a stream by a grid of the
// transpose's shape (`blocks` blocks of 1024 threads, one an SM), each thread L aligned 16-byte
// words in flight an iteration: what that grid can draw from the DRAM with nothing of a tile's
// pattern, against which the waves' read and write phases are weighed.
template <int L>
__global__ void __launch_bounds__(1024, 1) stream_read(const uint4* a, std::int64_t words, uint4* sink) {
  uint4 acc = make_uint4(0, 0, 0, 0);
  read_range<L>(a, 0, words, grid_thread(), grid_stride(), acc);
  keep(acc, sink);
}
__global__ void __launch_bounds__(1024, 1) stream_write(uint4* a, std::int64_t words) {
  write_range<1>(a, 0, words, grid_thread(), grid_stride());
}

// How piece_units moves its pieces: read; or written, either as write_tile writes a piece (its
// whole words one a lane, then its head's and tail's bytes in one more store, lanes 0-15 the
// head, 16-31 the tail), or widened to the whole 16-byte words or 32-byte sectors under it,
// so that neighbouring pieces write the words (sectors) they share whole, both of them.
enum PieceMode { kPieceRead, kPieceEdgeBytes, kPieceWholeWords, kPieceWholeSectors };

// The same stream in units of 128 rows by `piece` bytes from byte `first` of each row (a warp
// 4 rows of one unit, a lane an aligned 16-byte word of each, one unit a block at a time):
// `Stacked`, the units of one column strip go to consecutive blocks, so blocks work on different
// rows at once, as in a cross's column band; else the units of one band of 128 rows do, so
// blocks work on the same rows side by side, as in its row band. Reads load the aligned words
// under each piece, its neighbours' bytes too, as the waves' read phase does; writes as `M`
// says. Rows of a whole number of 32-byte sectors, pieces of at most 480 bytes.
template <bool Stacked, int M>
__global__ void __launch_bounds__(1024, 1) piece_units(unsigned char* a, std::int64_t rows, std::int64_t row_bytes,
                                                       int piece, int first, uint4* sink) {
  const std::int64_t bands = rows / 128, strips = (row_bytes - first) / piece;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  uint4 acc = make_uint4(0, 0, 0, 0);
  for (std::int64_t u = blockIdx.x; u < bands * strips; u += gridDim.x) {
    const std::int64_t band = Stacked ? u % bands : u / strips, strip = Stacked ? u / bands : u % strips;
    const std::int64_t start = first + strip * piece;  // the piece's first byte in its row
    const int off = static_cast<int>(start % 16);
    unsigned char* row0 = a + (band * 128 + warp * 4) * row_bytes + start;  // the warp's first row's piece
    if constexpr (M == kPieceRead) {
      const int lo = 16 * lane - off;  // lane's word: bytes [lo, lo + 16) of the piece
      if (lo >= piece) continue;
      uint4 x[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) x[k] = *reinterpret_cast<const uint4*>(row0 + k * row_bytes + lo);
#pragma unroll
      for (int k = 0; k < 4; ++k) fold(acc, x[k]);
    } else if constexpr (M == kPieceEdgeBytes) {
      const tlab::on_grid::Piece p(off, piece);
      const int e = lane < 16 ? lane : p.tail + lane - 16;
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        unsigned char* row = row0 + k * row_bytes;
        if (lane >= p.lo && lane < p.hi) *reinterpret_cast<uint4*>(row - off + 16 * lane) = make_uint4(1, 2, 3, 4);
        if (lane < 16 ? e < p.head : e < piece) row[e] = 1;
      }
    } else {
      constexpr int unit = M == kPieceWholeWords ? 16 : 32;
      const int lead = static_cast<int>(start % unit);  // from the unit's start to the piece's
      const int words = (lead + piece + unit - 1) / unit * (unit / 16);
#pragma unroll
      for (int k = 0; k < 4; ++k)
        for (int q = lane; q < words; q += 32)
          *reinterpret_cast<uint4*>(row0 + k * row_bytes - lead + 16 * q) = make_uint4(1, 2, 3, 4);
    }
  }
  keep(acc, sink);
}

// The same streams cut into `waves` equal parts with a barrier after each, as the waves
// transpose cuts its phases: what a phase's start and end cost when the bytes are the same.
// `Grid`: a grid barrier, as `waves` has; else only the block's, so that a block waits for its
// own loads (and warps) and not for the other blocks: the barrier's part apart from the drain's.
template <bool Write, bool Grid>
__global__ void __launch_bounds__(1024, 1) stream_in_waves(uint4* a, std::int64_t words, int waves, uint4* sink) {
  uint4 acc = make_uint4(0, 0, 0, 0);
  for (int k = 0; k < waves; ++k) {
    const std::int64_t lo = words * k / waves, hi = words * (k + 1) / waves;
    if constexpr (Write) write_range<4>(a, lo, hi, grid_thread(), grid_stride());
    else read_range<4>(a, lo, hi, grid_thread(), grid_stride(), acc);
    if constexpr (Grid) cooperative_groups::this_grid().sync();
    else __syncthreads();
  }
  keep(acc, sink);
}
template <bool Write, bool Grid = true>
void launch_stream_in_waves(void* a, std::int64_t words, int waves, void* sink, int blocks) {
  void* args[] = {&a, &words, &waves, &sink};
  TLAB_CUDA(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(stream_in_waves<Write, Grid>), dim3(blocks),
                                        dim3(1024), args, 0, nullptr));
}

}  // namespace
