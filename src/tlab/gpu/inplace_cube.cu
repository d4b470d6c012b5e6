// In place, M x M² and M² x M, in one read and one write of each element: the transpose
// rotates the three base-M digits of each element's index, so tiles of L x L x L digits move
// in cycles of three (tlab/inplace_cube_index.hpp), and a block loads its cycle's three tiles
// into shared memory and writes each one's elements, rotated, where the next one was. The
// block decomposition (inplace_blocks.cu) needs two passes for these shapes (256 x 65536 is a
// row of 256 blocks of 256 x 256, then a 256 x 256 transpose of their rows), so it cannot pass
// half a copy's rate (performance notes, section 9, "Three digits").
#include <cuda_pipeline.h>

#include "tlab/gpu/inplace_rect.cuh"
#include "tlab/gpu/launch.cuh"
#include "tlab/gpu/word_tile.cuh"
#include "tlab/inplace_cube_index.hpp"

namespace tlab::gpu {
namespace {

constexpr int kThreads = 256;

// A tile's digits: 16 (a row piece of 64 bytes for 4-byte elements, 128 for 8) or 8 for 16
// bytes (128). In shared memory the tile is [F][G][z] (F = x, G = y going forward; F = y, G =
// x back), z contiguous, G rows L apart, F planes L² + 1 apart: the loads store consecutive z
// by a half-warp and rows L apart by the other half, and the stores read the digit that
// becomes their contiguous one, F, at an odd stride, so that neither meets a bank conflict
// (for 8 and 16 bytes a half- and quarter-warp are each a wavefront).
template <int S> struct Layout {
  static constexpr int L = S == 16 ? 8 : 16, plane = L * L + 1, elems = L * plane;
  // Loads (and stores) per thread for one tile.
  static constexpr int rows = L * L / (kThreads / L);
};

template <int S, bool Forward>
__device__ __forceinline__ int at(int x, int y, int z) {
  using Lay = Layout<S>;
  return Forward ? x * Lay::plane + y * Lay::L + z : y * Lay::plane + x * Lay::L + z;
}

// Forward: an M x M² matrix, (x, y, z) to (y, z, x); else M² x M, (x, y, z) to (z, x, y).
template <int S, bool Forward>
__global__ void __launch_bounds__(kThreads) rotate_cycles(word::Word<S>* __restrict__ a, std::int64_t M, std::int64_t T) {
  using Lay = Layout<S>;
  using E = word::Word<S>;
  constexpr int L = Lay::L, step = kThreads / L;
  extern __shared__ __align__(16) unsigned char raw[];
  E* buf = reinterpret_cast<E*>(raw);
  std::int64_t t0, t1, t2;
  cube::cycle(blockIdx.x, T, t0, t1, t2);
  std::int64_t d[3][3] = {{t0, t1, t2}};  // digit tiles of the cycle's tiles, data of tile k going to tile k + 1
  const int count = d[0][0] == d[0][1] && d[0][1] == d[0][2] ? 1 : 3;
#pragma unroll
  for (int k = 1; k < 3; ++k)
#pragma unroll
    for (int j = 0; j < 3; ++j) d[k][j] = d[k - 1][Forward ? (j + 1) % 3 : (j + 2) % 3];
  const std::int64_t M2 = M * M;
  const int z = threadIdx.x % L, row0 = threadIdx.x / L;
  auto len = [&](std::int64_t t) { return static_cast<int>(min(static_cast<std::int64_t>(L), M - t * L)); };

  // Loads: tile k's rows (x, y), G the faster (consecutive rows L elements apart in shared
  // memory), a row's z across L lanes; straight into shared memory (cp.async), all three
  // tiles' in flight at once, no registers held.
#pragma unroll
  for (int k = 0; k < 3; ++k) {
    if (k >= count) break;
    const int lx = len(d[k][0]), ly = len(d[k][1]), lz = len(d[k][2]);
    const E* base = a + d[k][0] * L * M2 + d[k][1] * L * M + d[k][2] * L + z;
#pragma unroll
    for (int r = 0; r < Lay::rows; ++r) {
      const int q = row0 + r * step, x = Forward ? q / L : q % L, y = Forward ? q % L : q / L;
      if (x < lx && y < ly && z < lz)
        __pipeline_memcpy_async(buf + k * Lay::elems + at<S, Forward>(x, y, z), base + x * M2 + y * M, S);
    }
  }
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();

  // Stores: tile k's elements into tile k + 1 (itself where it is alone). Element (x, y, z) of
  // tile k is (y, z, x) of the next going forward, (z, x, y) back; a row of the destination
  // (x', y') takes its L contiguous z' across lanes, and the row digit that comes from the
  // source's G is the faster, so that the two half-warps read planes' rows L apart.
#pragma unroll
  for (int k = 0; k < 3; ++k) {
    if (k >= count) break;
    const int to = count == 1 ? 0 : (k + 1) % 3;
    const int lx = len(d[to][0]), ly = len(d[to][1]), lz = len(d[to][2]);
    E* base = a + d[to][0] * L * M2 + d[to][1] * L * M + d[to][2] * L + z;
    const E* from = buf + k * Lay::elems;
#pragma unroll
    for (int r = 0; r < Lay::rows; ++r) {
      const int q = row0 + r * step;
      // Forward the destination (x', y', z') holds source (z', x', y'): G = y = x' goes fastest.
      // Back it holds source (y', z', x'): G = x = y' goes fastest.
      const int xd = Forward ? q % L : q / L, yd = Forward ? q / L : q % L;
      if (xd < lx && yd < ly && z < lz) {
        const E e = Forward ? from[at<S, true>(z, xd, yd)] : from[at<S, false>(yd, z, xd)];
        base[xd * M2 + yd * M] = e;
      }
    }
  }
}

template <int S> void run(void* matrix, Shape s, cudaStream_t stream) {
  bool forward = false;
  const std::int64_t M = cube::side(s, forward);
  if (M == 0) throw std::invalid_argument("in-place transpose by digit rotation: " + to_string(s) + " is not M x M^2 or M^2 x M");
  using Lay = Layout<S>;
  const std::int64_t T = ceil_div(M, Lay::L), blocks = cube::cycles(T);
  if (blocks > 0x7fffffff) throw std::invalid_argument("in-place transpose by digit rotation: too many tiles for one launch");
  constexpr std::size_t smem = 3 * Lay::elems * S;
  auto* a = static_cast<word::Word<S>*>(matrix);
  if (forward) {
    static unsigned long long done = 0;
    word::allow_smem(rotate_cycles<S, true>, smem, done);
    rotate_cycles<S, true><<<static_cast<unsigned>(blocks), kThreads, smem, stream>>>(a, M, T);
  } else {
    static unsigned long long done = 0;
    word::allow_smem(rotate_cycles<S, false>, smem, done);
    rotate_cycles<S, false><<<static_cast<unsigned>(blocks), kThreads, smem, stream>>>(a, M, T);
  }
  TLAB_CUDA_LAUNCHED();
}

}  // namespace

void register_gpu_inplace_cube(Registry& r) {
  Variant v = gpu_variant("gpu/inplace-rect/cube", "gpu-inplace-rect", Placement::in_place, {},
                          "M x M^2 and M^2 x M in place in one pass: the transpose rotates three base-M digits "
                          "of the index, so tiles move in cycles of three (4-16-byte elements)");
  v.any_shape = true;
  v.refuses_shape = [](DType, Shape s) -> std::string {
    bool forward = false;
    return cube::side(s, forward) ? "" : "the matrix is not M x M^2 or M^2 x M";
  };
  v.kernels[DType::i32] = [](const Operands& op) { run<4>(op.out, op.shape, stream_of(op)); };
  v.kernels[DType::f32] = [](const Operands& op) { run<4>(op.out, op.shape, stream_of(op)); };
  v.kernels[DType::f64] = [](const Operands& op) { run<8>(op.out, op.shape, stream_of(op)); };
  v.kernels[DType::c128] = [](const Operands& op) { run<16>(op.out, op.shape, stream_of(op)); };
  r.add(std::move(v));
}

}  // namespace tlab::gpu
