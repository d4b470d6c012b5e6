// In place, M x M² and M² x M, in one read and one write of each element: the transpose
// rotates the three base-M digits of each element's index, so tiles of L x L x L digits move
// in cycles of three (tlab/inplace_cube_index.hpp), and a block loads its cycle's three tiles
// into shared memory and writes each one's elements, rotated, where the next one was. The
// block decomposition (inplace_blocks.cu) needs two passes for these shapes (256 x 65536 is a
// row of 256 blocks of 256 x 256, then a 256 x 256 transpose of their rows), so it cannot pass
// half a copy's rate (performance notes, section 9, "Three digits"). Where the device launches
// clusters of blocks, a cycle's tiles are bigger and a cluster holds them
// (rotate_cycles_cluster); elsewhere one block a cycle (rotate_cycles).
#include <cooperative_groups.h>
#include <cuda_pipeline.h>

#include "tlab/gpu/inplace_cube.cuh"
#include "tlab/gpu/launch.cuh"
#include "tlab/gpu/word_tile.cuh"
#include "tlab/inplace_cube_index.hpp"

namespace tlab::gpu {
namespace {

constexpr int kThreads = 256;

// One block a cycle, where a device cannot launch clusters (below): tiles of 16 digits (64-byte
// row pieces for 4-byte elements, 128 for 8) or 8 for 16 bytes (128). In shared memory the tile is [F][G][z] (F = x, G = y going forward; F = y, G =
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

// In clusters: tiles whose row pieces are 256 bytes (128 for 4-byte elements), too big for
// one SM's shared memory three at a time, so a cycle's three tiles take a cluster of blocks,
// `parts` a tile, each holding a part of the tile's split digit (forward y, back x: neither
// the source's contiguous digit z nor the destination's, which comes from x going forward and
// y back). After the cluster's barrier every tile of the cycle is in shared memory, and each
// block writes its part, rotated, where the next tile was. One block a cycle's 64- and
// 128-byte pieces ran at 64-65% (4 bytes) and 88-90% (8 and 16) of memcpy on the H100, these
// at 83-86% and 92-94% (performance notes, section 9, "Three digits in clusters" and "... for
// 8 and 16 bytes"). In shared memory a part is [F][G][z]: F the digit that becomes the
// destination's contiguous one, G the split digit's part, F planes H L + 1 apart (an odd
// stride: the stores read F across a warp without a bank conflict).
constexpr int kClusterThreads = 512;
// Tiles of L digits cut into `parts` blocks along the split digit (H of its L each): 4 bytes
// 32 digits in halves; 8 bytes 32 in quarters and 16 bytes 16 whole (256-byte pieces).
template <int S> struct ClusterTiles {
  static constexpr int L = S == 16 ? 16 : 32, parts = S == 4 ? 2 : S == 8 ? 4 : 1, H = L / parts;
  static constexpr int plane = H * L + 1, blocks = 3 * parts;
  static constexpr std::size_t smem = static_cast<std::size_t>(L) * plane * S;
};

template <int S, bool Forward>
__global__ void __launch_bounds__(kClusterThreads)
    rotate_cycles_cluster(word::Word<S>* __restrict__ a, std::int64_t M, std::int64_t T) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900  // clusters: sm_90 and later (in_clusters asks)
  using C = ClusterTiles<S>;
  using E = word::Word<S>;
  constexpr int L = C::L, H = C::H, rows = L * H / (kClusterThreads / L);
  extern __shared__ __align__(16) unsigned char raw[];
  E* buf = reinterpret_cast<E*>(raw);
  cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank()), k = rank / C::parts, part = rank % C::parts;
  std::int64_t t0, t1, t2;
  cube::cycle(blockIdx.x / C::blocks, T, t0, t1, t2);
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
    const E* base = a + dx * L * M2 + dy * L * M + dz * L + lane;
#pragma unroll 4
    for (int r = 0; r < rows; ++r) {
      const int q = row0 + r * step, f = q / H, g = q % H;
      const int x = Forward ? f : part * H + g, y = Forward ? part * H + g : f;
      if (x < lx && y < ly && lane < lz) __pipeline_memcpy_async(buf + f * C::plane + g * L + lane, base + x * M2 + y * M, S);
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
  }
  cluster.sync();  // every tile of the cycle is in shared memory: none is overwritten before
  if (busy) {
    const int to = count == 1 ? 0 : (k + 1) % 3;
    const std::int64_t dx = digit(to, 0), dy = digit(to, 1), dz = digit(to, 2);
    const int lx = len(dx), ly = len(dy), lz = len(dz);
    E* base = a + dx * L * M2 + dy * L * M + dz * L + lane;
    // Destination (x', y', z' = lane) holds source (z', x', y') going forward, (y', z', x')
    // back: the split digit's part is x' forward, y' back, and the other row digit w is free.
#pragma unroll 4
    for (int r = 0; r < rows; ++r) {
      const int q = row0 + r * step, g = q / L, w = q % L;
      const int xd = Forward ? part * H + g : w, yd = Forward ? w : part * H + g;
      if (xd < lx && yd < ly && lane < lz) base[xd * M2 + yd * M] = buf[lane * C::plane + g * L + w];
    }
  }
#else
  __trap();  // built without sm_90 code: in_clusters() says so first, never a silent no-op
#endif
}

// The launch of `blocks` blocks of rotate_cycles_cluster<S, ...> in clusters of
// ClusterTiles<S>::blocks on `stream`; `cluster` holds the attribute the config points to.
template <int S> cudaLaunchConfig_t cluster_config(unsigned blocks, cudaStream_t stream, cudaLaunchAttribute& cluster) {
  using C = ClusterTiles<S>;
  cluster = cudaLaunchAttribute{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim = {static_cast<unsigned>(C::blocks), 1, 1};
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(kClusterThreads);
  config.dynamicSmemBytes = C::smem;
  config.stream = stream;
  config.attrs = &cluster;
  config.numAttrs = 1;
  return config;
}

// Whether cycles of S-byte elements run in clusters here: the device launches clusters
// (compute capability 9.0 or later) as large as ClusterTiles<S>::blocks with its shared memory,
// and this build has the kernel for it. Asked once per device and size.
template <int S> bool in_clusters() {
  using C = ClusterTiles<S>;
  static int known[64] = {};  // 0: not asked, 1: yes, 2: no
  int dev = 0;
  TLAB_CUDA(cudaGetDevice(&dev));
  int& k = known[dev % 64];
  if (k == 0) {
    int yes = 0;
    TLAB_CUDA(cudaDeviceGetAttribute(&yes, cudaDevAttrClusterLaunch, dev));
    auto kernel = rotate_cycles_cluster<S, true>;
    cudaFuncAttributes attr{};
    bool ok = yes != 0 && cudaFuncGetAttributes(&attr, kernel) == cudaSuccess && attr.ptxVersion >= 90;
    if (ok) {
      static unsigned long long done = 0;
      word::allow_smem(kernel, C::smem, done);
      if (C::blocks > 8) ok = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) == cudaSuccess;
      cudaLaunchAttribute cluster;
      const cudaLaunchConfig_t config = cluster_config<S>(C::blocks, nullptr, cluster);
      int clusters = 0;
      ok = ok && cudaOccupancyMaxActiveClusters(&clusters, kernel, &config) == cudaSuccess && clusters > 0;
    }
    cudaGetLastError();  // a refused query leaves its error behind
    k = ok ? 1 : 2;
  }
  return k == 1;
}

template <int S, bool Forward>
void launch_cluster(word::Word<S>* a, std::int64_t M, std::int64_t T, unsigned blocks, cudaStream_t stream) {
  using C = ClusterTiles<S>;
  auto kernel = rotate_cycles_cluster<S, Forward>;
  static unsigned long long done = 0;  // one per kernel: each needs its own shared-memory limit raised
  word::allow_smem(kernel, C::smem, done);
  if (C::blocks > 8) TLAB_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  cudaLaunchAttribute cluster;
  const cudaLaunchConfig_t config = cluster_config<S>(blocks, stream, cluster);
  TLAB_CUDA(cudaLaunchKernelEx(&config, kernel, a, M, T));
  TLAB_CUDA_LAUNCHED();
}

template <int S> void run_cluster(void* matrix, std::int64_t M, bool forward, cudaStream_t stream) {
  using C = ClusterTiles<S>;
  const std::int64_t T = ceil_div(M, C::L), blocks = cube::cycles(T) * C::blocks;
  if (blocks > 0x7fffffff) throw std::invalid_argument("in-place transpose by digit rotation: too many tiles for one launch");
  auto* a = static_cast<word::Word<S>*>(matrix);
  if (forward)
    launch_cluster<S, true>(a, M, T, static_cast<unsigned>(blocks), stream);
  else
    launch_cluster<S, false>(a, M, T, static_cast<unsigned>(blocks), stream);
}

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

template <int S> void run(void* matrix, Shape s, cudaStream_t stream, bool clusters) {
  bool forward = false;
  const std::int64_t M = cube::side(s, forward);
  if (M == 0) throw std::invalid_argument("in-place transpose by digit rotation: " + to_string(s) + " is not M x M^2 or M^2 x M");
  if (clusters && in_clusters<S>())
    run_cluster<S>(matrix, M, forward, stream);
  else
    run_blocks<S>(matrix, M, forward, stream);
}

}  // namespace

void transpose_cube_in_place(void* m, Shape s, int elem, cudaStream_t stream, bool clusters) {
  switch (elem) {
    case 4: return run<4>(m, s, stream, clusters);
    case 8: return run<8>(m, s, stream, clusters);
    case 16: return run<16>(m, s, stream, clusters);
  }
  throw std::invalid_argument("in-place transpose by digit rotation: element size " + std::to_string(elem) +
                              " is not 4, 8 or 16 bytes");
}

bool cube_in_clusters(int elem) {
  switch (elem) {
    case 4: return in_clusters<4>();
    case 8: return in_clusters<8>();
    case 16: return in_clusters<16>();
  }
  return false;
}

void register_gpu_inplace_cube(Registry& r) {
  Variant v = gpu_variant("gpu/inplace-rect/cube", "gpu-inplace-rect", Placement::in_place, {},
                          "M x M^2 and M^2 x M in place in one pass: the transpose rotates three base-M digits "
                          "of the index, so tiles move in cycles of three (4-16-byte elements; a cycle to a "
                          "cluster of blocks where the device launches them)");
  v.any_shape = true;
  v.refuses_shape = [](DType, Shape s) -> std::string {
    bool forward = false;
    return cube::side(s, forward) ? "" : "the matrix is not M x M^2 or M^2 x M";
  };
  for (DType t : {DType::i32, DType::f32, DType::f64, DType::c128})
    v.kernels[t] = [t](const Operands& op) {
      transpose_cube_in_place(op.out, op.shape, static_cast<int>(dtype_size(t)), stream_of(op));
    };
  r.add(std::move(v));
}

}  // namespace tlab::gpu
