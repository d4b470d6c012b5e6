// c2r's column pass on coprime shapes without scratch: a strip of columns held in the shared
// memory of a cluster of blocks (sm_90), so that each element is read once and written once
// instead of gathered into scratch and copied back. The strip's m rows are spread over the
// cluster's blocks; after the whole strip is on chip, each block writes its share of output
// rows, reading each element from whichever block holds its source row (distributed shared
// memory). Strips are disjoint columns, so clusters never touch each other's bytes.
#include <cooperative_groups.h>

#include <algorithm>

#include "tlab/gpu/inplace_rect.cuh"
#include "tlab/gpu/launch.cuh"
#include "tlab/gpu/word_tile.cuh"

namespace tlab::gpu {
namespace {

namespace cg = cooperative_groups;

constexpr int kCluster = 8;  // the portable cluster size
constexpr int kThreads = 1024;

// Rows [rank R, rank R + R) of the strip [j0, j0 + w) live in block `rank`, w elements a row.
// Output row r, column j of the matrix comes from source row (r n + j) mod m
// (c2r::coprime_base): the global column, not the strip's.
template <int S>
__global__ void __launch_bounds__(kThreads, 1) shuffle_strip_on_cluster(word::Word<S>* __restrict__ a, c2r::Params p,
                                                                       std::int64_t w_max, std::int64_t rows_per_block) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using Wd = word::Word<S>;
  constexpr int kUnroll = S == 16 ? 4 : 8;  // row pieces in flight per warp, within 64 registers
  extern __shared__ __align__(16) unsigned char strip_raw[];
  Wd* strip = reinterpret_cast<Wd*>(strip_raw);
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const std::int64_t j0 = static_cast<std::int64_t>(blockIdx.x / kCluster) * w_max;
  const std::int64_t w = std::min(w_max, p.n - j0);
  const std::int64_t R = rows_per_block, first = rank * R, last = std::min(p.m, first + R);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = kThreads / 32;
  // Each warp keeps kUnroll rows' loads in flight before it stores any: one row piece per
  // warp at a time left too few bytes in flight to cover the memory's latency.
  for (std::int64_t q = lane; q < w; q += 32)
    for (std::int64_t i0 = first + warp; i0 < last; i0 += warps * kUnroll) {
      Wd v[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
        if (i0 + u * warps < last) v[u] = a[(i0 + u * warps) * p.n + j0 + q];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
        if (i0 + u * warps < last) strip[(i0 + u * warps - first) * w + q] = v[u];
    }
  cluster.sync();  // the whole strip is on chip before any of it is overwritten
  // A warp per output row; the base of row r + warps is the base of r plus warps n, mod m.
  const std::int64_t step = static_cast<std::int64_t>(warps) * p.n % p.m;
  for (std::int64_t q = lane; q < w; q += 32) {
    std::int64_t t = first + warp < last ? c2r::coprime_base(p, first + warp) : 0;
    for (std::int64_t r0 = first + warp; r0 < last; r0 += warps * kUnroll) {
      Wd v[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        if (r0 + u * warps < last) {
          const std::int64_t s = c2r::mod(t + j0 + q, p.dm);  // the source row of column j0 + q
          const unsigned owner = static_cast<unsigned>(s) / static_cast<unsigned>(R);  // both below 2^31
          v[u] = cluster.map_shared_rank(strip, owner)[(s - owner * R) * w + q];
        }
        t += step;
        if (t >= p.m) t -= p.m;
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
        if (r0 + u * warps < last) a[(r0 + u * warps) * p.n + j0 + q] = v[u];
    }
  }
  cluster.sync();  // no block leaves while another still reads its shared memory
#endif
}

template <int S> bool run(void* matrix, const c2r::Params& p, cudaStream_t stream) {
  int dev = 0, major = 0, optin = 0;
  TLAB_CUDA(cudaGetDevice(&dev));
  TLAB_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  if (major < 9) return false;
  TLAB_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  const std::int64_t R = (p.m + kCluster - 1) / kCluster;
  // The widest strip the cluster holds; a strip's row pieces must be at least a sector.
  const std::int64_t w = std::min(p.n, static_cast<std::int64_t>(optin) / (R * S));
  if (w < 1 || (w < p.n && w * S < 32)) return false;
  const std::size_t smem = static_cast<std::size_t>(R * w * S);
  auto kernel = shuffle_strip_on_cluster<S>;
  TLAB_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  const std::int64_t strips = (p.n + w - 1) / w;
  if (strips * kCluster > 0x7fffffff) return false;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(strips * kCluster));
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = kCluster;
  cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = 1;
  config.attrs = &cluster;
  config.numAttrs = 1;
  int clusters = 0;
  if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &config) != cudaSuccess || clusters < 1) {
    cudaGetLastError();  // not schedulable here: the caller takes the scratch path
    return false;
  }
  TLAB_CUDA(cudaLaunchKernelEx(&config, kernel, static_cast<word::Word<S>*>(matrix), p, w, R));
  return true;
}

}  // namespace

bool column_shuffle_on_cluster(void* matrix, const c2r::Params& p, int elem, cudaStream_t stream) {
  if (p.c != 1) return false;
  switch (elem) {
    case 1: return run<1>(matrix, p, stream);
    case 2: return run<2>(matrix, p, stream);
    case 4: return run<4>(matrix, p, stream);
    case 8: return run<8>(matrix, p, stream);
    case 16: return run<16>(matrix, p, stream);
  }
  return false;
}

}  // namespace tlab::gpu
