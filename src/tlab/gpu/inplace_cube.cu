// In place, M x M² and M² x M, in one read and one write of each element: the transpose
// rotates the three base-M digits of each element's index, so tiles of L x L x L digits move
// in cycles of three (tlab/inplace_cube_index.hpp), and a block loads its cycle's three tiles
// into shared memory and writes each one's elements, rotated, where the next one was. The
// block decomposition (inplace_blocks.cu) needs two passes for these shapes (256 x 65536 is a
// row of 256 blocks of 256 x 256, then a 256 x 256 transpose of their rows), so it cannot pass
// half a copy's rate (performance notes, section 9, "Three digits"). 4-byte elements take
// bigger tiles, a cycle to a cluster of blocks (rotate_cycles_cluster).
#include <cooperative_groups.h>
#include <cuda_pipeline.h>

#include "tlab/gpu/inplace_rect.cuh"
#include "tlab/gpu/launch.cuh"
#include "tlab/gpu/word_tile.cuh"
#include "tlab/inplace_cube_index.hpp"

namespace tlab::gpu {
namespace {

constexpr int kThreads = 256;

// A tile's digits for 8- and 16-byte elements: 16 and 8, a row piece of 128 bytes either way
// (4-byte elements take tiles of 32 digits, below). In shared memory the tile is [F][G][z] (F = x, G = y going forward; F = y, G =
// x back), z contiguous, G rows L apart, F planes L² + 1 apart: the loads store consecutive z
// by a half-warp and rows L apart by the other half, and the stores read the digit that
// becomes their contiguous one, F, at an odd stride, so that neither meets a bank conflict
// (for 8 and 16 bytes a half- and quarter-warp are each a wavefront).
template <int S> struct Layout {
  static_assert(S == 8 || S == 16, "4-byte elements go through rotate_cycles_cluster");
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

// 4-byte elements in tiles of 32 x 32 x 32 digits, so that every row piece is 128 bytes (tiles
// of 16 digits in one block gave 64-byte pieces, which ran at 64-65% of memcpy where these run
// at 83-86% on the H100: performance notes, section 9, "Three digits in clusters"). A tile is 128 KiB, so a cycle's
// three take a cluster of six blocks, two a tile: block `half` of tile k holds the half of its
// split digit (forward y, back x: neither the source's contiguous digit z nor the destination's,
// which comes from x going forward and y back). After the cluster's barrier every tile of the
// cycle is in shared memory, and each block writes its half, rotated, where the next tile was.
// In shared memory a half is [F][G][z]: F the digit that becomes the destination's contiguous
// one, G the split digit's half, F planes H L + 1 apart (an odd stride: the stores read F
// across a warp without a bank conflict).
constexpr int kClusterThreads = 512, kClusterL = 32, kClusterH = 16, kClusterBlocks = 6;
constexpr int kClusterPlane = kClusterH * kClusterL + 1;
constexpr std::size_t kClusterSmem = static_cast<std::size_t>(kClusterL) * kClusterPlane * 4;

template <bool Forward>
__global__ void __cluster_dims__(kClusterBlocks, 1, 1) __launch_bounds__(kClusterThreads)
    rotate_cycles_cluster(unsigned* __restrict__ a, std::int64_t M, std::int64_t T) {
  constexpr int L = kClusterL, H = kClusterH, rows = L * H / (kClusterThreads / L);
  extern __shared__ __align__(16) unsigned char raw[];
  unsigned* buf = reinterpret_cast<unsigned*>(raw);
  cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank()), k = rank / 2, half = rank % 2;
  std::int64_t t0, t1, t2;
  cube::cycle(blockIdx.x / kClusterBlocks, T, t0, t1, t2);
  const int count = t0 == t1 && t1 == t2 ? 1 : 3;
  // Digit i of the cycle's tile j (the data of tile j goes to tile j + 1): t[(i + j) mod 3]
  // going forward, t[(i + 2 j) mod 3] back; selected, not indexed, so that nothing goes to the stack.
  auto digit = [&](int j, int i) {
    const int at = (i + (Forward ? j : 2 * j)) % 3;
    return at == 0 ? t0 : at == 1 ? t1 : t2;
  };
  const std::int64_t M2 = M * M;
  const int lane = threadIdx.x % L, row0 = threadIdx.x / L, step = kClusterThreads / L;
  auto len = [&](std::int64_t t) { return static_cast<int>(min(static_cast<std::int64_t>(L), M - t * L)); };
  const bool busy = k < count;
  if (busy) {
    const std::int64_t dx = digit(k, 0), dy = digit(k, 1), dz = digit(k, 2);
    const int lx = len(dx), ly = len(dy), lz = len(dz);
    const unsigned* base = a + dx * L * M2 + dy * L * M + dz * L + lane;
#pragma unroll 4
    for (int r = 0; r < rows; ++r) {
      const int q = row0 + r * step, f = q / H, g = q % H;
      const int x = Forward ? f : half * H + g, y = Forward ? half * H + g : f;
      if (x < lx && y < ly && lane < lz) __pipeline_memcpy_async(buf + f * kClusterPlane + g * L + lane, base + x * M2 + y * M, 4);
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
  }
  cluster.sync();  // every tile of the cycle is in shared memory: none is overwritten before
  if (busy) {
    const int to = count == 1 ? 0 : (k + 1) % 3;
    const std::int64_t dx = digit(to, 0), dy = digit(to, 1), dz = digit(to, 2);
    const int lx = len(dx), ly = len(dy), lz = len(dz);
    unsigned* base = a + dx * L * M2 + dy * L * M + dz * L + lane;
    // Destination (x', y', z' = lane) holds source (z', x', y') going forward, (y', z', x')
    // back: the split digit's half is x' forward, y' back, and the other row digit w is free.
#pragma unroll 4
    for (int r = 0; r < rows; ++r) {
      const int q = row0 + r * step, g = q / L, w = q % L;
      const int xd = Forward ? half * H + g : w, yd = Forward ? w : half * H + g;
      if (xd < lx && yd < ly && lane < lz) base[xd * M2 + yd * M] = buf[lane * kClusterPlane + g * L + w];
    }
  }
}

// Whether the current device launches clusters (compute capability 9.0 or later), and this
// build has the cluster kernel for it.
bool launches_clusters() {
  int dev = 0, yes = 0;
  TLAB_CUDA(cudaGetDevice(&dev));
  TLAB_CUDA(cudaDeviceGetAttribute(&yes, cudaDevAttrClusterLaunch, dev));
  cudaFuncAttributes attr{};
  return yes != 0 && cudaFuncGetAttributes(&attr, rotate_cycles_cluster<true>) == cudaSuccess && attr.ptxVersion >= 90;
}

template <bool Forward> void launch_cluster(unsigned* a, std::int64_t M, std::int64_t T, unsigned blocks, cudaStream_t stream) {
  static unsigned long long done = 0;  // one per kernel: each needs its own shared-memory limit raised
  word::allow_smem(rotate_cycles_cluster<Forward>, kClusterSmem, done);
  rotate_cycles_cluster<Forward><<<blocks, kClusterThreads, kClusterSmem, stream>>>(a, M, T);
  TLAB_CUDA_LAUNCHED();
}

void run_cluster(void* matrix, std::int64_t M, bool forward, cudaStream_t stream) {
  const std::int64_t T = ceil_div(M, kClusterL), blocks = cube::cycles(T) * kClusterBlocks;
  if (blocks > 0x7fffffff) throw std::invalid_argument("in-place transpose by digit rotation: too many tiles for one launch");
  auto* a = static_cast<unsigned*>(matrix);
  if (forward)
    launch_cluster<true>(a, M, T, static_cast<unsigned>(blocks), stream);
  else
    launch_cluster<false>(a, M, T, static_cast<unsigned>(blocks), stream);
}

// 8- and 16-byte elements: one block a cycle.
template <int S> void run_blocks(void* matrix, std::int64_t M, bool forward, cudaStream_t stream) {
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

template <int S> void run(void* matrix, Shape s, cudaStream_t stream) {
  bool forward = false;
  const std::int64_t M = cube::side(s, forward);
  if (M == 0) throw std::invalid_argument("in-place transpose by digit rotation: " + to_string(s) + " is not M x M^2 or M^2 x M");
  if constexpr (S == 4) {
    if (!launches_clusters())
      throw std::invalid_argument("in-place transpose by digit rotation: 4-byte elements need a device that launches clusters");
    run_cluster(matrix, M, forward, stream);
  } else {
    run_blocks<S>(matrix, M, forward, stream);
  }
}

}  // namespace

void register_gpu_inplace_cube(Registry& r) {
  Variant v = gpu_variant("gpu/inplace-rect/cube", "gpu-inplace-rect", Placement::in_place, {},
                          "M x M^2 and M^2 x M in place in one pass: the transpose rotates three base-M digits "
                          "of the index, so tiles move in cycles of three (4-16-byte elements; 4-byte cycles in "
                          "clusters of six blocks)");
  v.any_shape = true;
  v.refuses_shape = [](DType t, Shape s) -> std::string {
    bool forward = false;
    if (!cube::side(s, forward)) return "the matrix is not M x M^2 or M^2 x M";
    return dtype_size(t) == 4 && !launches_clusters() ? "4-byte elements need a device that launches clusters" : "";
  };
  v.kernels[DType::i32] = [](const Operands& op) { run<4>(op.out, op.shape, stream_of(op)); };
  v.kernels[DType::f32] = [](const Operands& op) { run<4>(op.out, op.shape, stream_of(op)); };
  v.kernels[DType::f64] = [](const Operands& op) { run<8>(op.out, op.shape, stream_of(op)); };
  v.kernels[DType::c128] = [](const Operands& op) { run<16>(op.out, op.shape, stream_of(op)); };
  r.add(std::move(v));
}

}  // namespace tlab::gpu
