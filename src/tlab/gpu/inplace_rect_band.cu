// c2r's column pass on a coprime shape across the grid, in bands of columns wide enough that
// each row is read and written in long runs (performance notes, section 9, "Bands: the
// column pass in long row segments").
//
// The pass is out[r][q] = a[(t + q) mod m][q], t = r n mod m. A block owns a band of w
// consecutive columns [jb, jb + w) and T consecutive bases [t0, t0 + T), and holds the T x w
// tile whose element (dt, qq) is a[(t0 + dt + jb + qq) mod m][jb + qq]. Source row t0 + jb + k
// fills the tile's anti-diagonal dt + qq = k: one run of up to min(T, w) consecutive columns
// of that row, where `c2r-grid`'s strips read 128-byte pieces, which the DRAM serves at
// 60-80% of the rate of whole rows (tlab-strided-probe). Output row t n^-1 mod m, for base
// t0 + dt, is tile row dt: w consecutive columns. No element is read twice. All the groups of
// a band run in the same round, so that a grid-wide barrier between the reads and the writes
// makes the pass safe in place; a round takes as many whole bands as the grid has blocks for.
#include <cooperative_groups.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "tlab/gpu/inplace_rect.cuh"
#include "tlab/gpu/launch.cuh"
#include "tlab/gpu/word_tile.cuh"
#include "tlab/inplace_rect_index.hpp"

namespace tlab::gpu {
namespace {

constexpr int kThreads = 1024, kWarps = kThreads / 32;
constexpr int kInFlight = 8;  // 32-element chunks of a row segment a warp loads before storing any

struct Bands {
  int width = 0;      // columns per band, w (the last band may have fewer)
  int ld = 0;         // tile row pitch in elements
  int T = 0;          // bases per block (the last group of a band may have fewer)
  int groups = 0;     // blocks per band
  int per_round = 0;  // bands per round
  int bands = 0;
  int rounds = 0;
};

// A tile row pitch from w up that spreads a warp's anti-diagonal stores, 32 lanes at a stride
// of ld - 1 elements, over 32 banks: ld - 1 odd for 4-16 bytes, twice and four times an odd
// number for 2 and 1 byte.
template <int S> int pitch_for(int w) {
  const int mod = S >= 4 ? 2 : S == 2 ? 4 : 8, want = S >= 4 ? 0 : S == 2 ? 3 : 5;
  return w + ((want - w % mod) % mod + mod) % mod;
}

template <int S>
__global__ void __launch_bounds__(kThreads, 1)
    shuffle_columns_in_bands(word::Word<S>* __restrict__ a, c2r::Params p, Bands g) {
  using Wd = word::Word<S>;
  extern __shared__ __align__(16) unsigned char tile_raw[];
  auto* tile = reinterpret_cast<Wd*>(tile_raw);
  const int m = static_cast<int>(p.m), n = static_cast<int>(p.n), ld = g.ld;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int band_of_block = blockIdx.x / g.groups, group = blockIdx.x % g.groups;
  const int t0 = group * g.T, T = std::min(g.T, m - t0);
  const unsigned r_step = static_cast<unsigned>(kWarps * p.n_inv % p.m);  // r + r_step < 2^32
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  for (int round = 0; round < g.rounds; ++round) {
    const int band = round * g.per_round + band_of_block;
    const bool active = band < g.bands && T > 0;
    const int jb = active ? band * g.width : 0, w = std::min(g.width, n - jb);
    Wd* column = a + jb;  // element (row, jb + qq) is column[row * n + qq]
    if (active) {
      int src = static_cast<int>(c2r::mod(static_cast<std::int64_t>(t0) + jb + warp, p.dm));
      for (int k = warp; k < T + w - 1; k += kWarps) {
        const int lo = std::max(0, k - T + 1), hi = std::min(w - 1, k);  // the segment, inclusive
        const Wd* row = column + static_cast<std::int64_t>(src) * n;
        // Chunks on the 32-element grid of memory: 32 S-byte pieces of whole lines.
        const int c_first = lo - static_cast<int>(reinterpret_cast<std::uintptr_t>(row + lo) / S % 32);
        for (int c0 = c_first; c0 <= hi; c0 += 32 * kInFlight) {
          Wd x[kInFlight];
#pragma unroll
          for (int i = 0; i < kInFlight; ++i) {
            const int q = c0 + 32 * i + lane;
            if (q >= lo && q <= hi) x[i] = row[q];
          }
#pragma unroll
          for (int i = 0; i < kInFlight; ++i) {
            const int q = c0 + 32 * i + lane;
            if (q >= lo && q <= hi) tile[(k - q) * ld + q] = x[i];
          }
        }
        src += kWarps;
        if (src >= m) src -= m;  // once at most: m >= 2 kWarps (plan_bands)
      }
    }
    __syncthreads();
    grid.sync();  // every block has read its part of this round's bands
    if (active) {
      unsigned r = static_cast<unsigned>(c2r::coprime_row(p, t0 + warp));
      for (int dt = warp; dt < T; dt += kWarps) {
        Wd* row = column + static_cast<std::int64_t>(r) * n;
        const int c_first = -static_cast<int>(reinterpret_cast<std::uintptr_t>(row) / S % 32);
        for (int c0 = c_first; c0 < w; c0 += 32) {
          const int q = c0 + lane;
          if (q >= 0 && q < w) row[q] = tile[dt * ld + q];
        }
        r += r_step;
        if (r >= static_cast<unsigned>(m)) r -= m;
      }
    }
    __syncthreads();  // the tile is refilled next round
  }
}

// The DRAM's rate for rows read and written in runs of this many bytes, as a fraction of its
// rate for whole rows: tlab-strided-probe's 16-byte figures on the H100 (reads and writes
// together; performance notes, section 9), interpolated in log2 of the run.
double run_efficiency(double bytes) {
  constexpr double at[] = {0.67, 0.78, 0.86, 0.93, 0.97};  // 128, 256, 512, 1024, 2048 bytes
  if (bytes <= 128) return at[0] * std::sqrt(bytes / 128);
  if (bytes >= 2048) return at[4];
  const double x = std::log2(bytes / 128);
  const int i = static_cast<int>(x);
  return at[i] + (at[i + 1] - at[i]) * (x - i);
}

// The band width, rows per tile and rounds that a simple model puts fastest: the bytes at the
// rate of their runs' width (run_efficiency), a grid barrier and its ramps per round (about
// 2.5 us, measured per round in `c2r-grid`), and idle SMs where a round leaves more than a
// quarter of the blocks without work. False where no band fits (or m is too short).
template <int S> bool plan_bands(const c2r::Params& p, int blocks, std::int64_t tile_bytes, Bands& best) {
  if (p.c != 1 || p.m < 2 * kWarps || blocks < 1) return false;
  constexpr double kRoundUs = 2.5, kBytesPerUs = 2.9e6;
  const double bytes = 2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * S;
  double best_cost = std::numeric_limits<double>::infinity();
  for (std::int64_t W = 16;; W = std::min<std::int64_t>(W + 16, p.n)) {
    const int w = static_cast<int>(std::min<std::int64_t>(W, p.n)), ld = pitch_for<S>(w);
    const std::int64_t t_max = tile_bytes / (static_cast<std::int64_t>(ld) * S);
    if (t_max < 1) break;  // wider bands hold fewer rows still
    const std::int64_t groups = ceil_div(p.m, t_max);
    if (groups <= blocks) {
      const std::int64_t T = ceil_div(p.m, groups), bands = ceil_div(p.n, w);
      const std::int64_t rounds = ceil_div(bands, blocks / groups), per_round = ceil_div(bands, rounds);
      const double busy = static_cast<double>(per_round * groups) / blocks;
      const double cost = rounds * kRoundUs + bytes / (kBytesPerUs * run_efficiency(std::min<std::int64_t>(T, w) * S)) /
                                                  std::min(1.0, busy / 0.75);
      if (cost < best_cost) {
        best_cost = cost;
        best = Bands{w, ld, static_cast<int>(T), static_cast<int>(ceil_div(p.m, T)), static_cast<int>(per_round),
                     static_cast<int>(bands), static_cast<int>(rounds)};
      }
    }
    if (W >= p.n) break;
  }
  return best_cost < std::numeric_limits<double>::infinity();
}

template <int S> bool run(void* matrix, const c2r::Params& p, cudaStream_t stream) {
  int dev = 0, optin = 0, coop = 0;
  TLAB_CUDA(cudaGetDevice(&dev));
  TLAB_CUDA(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
  TLAB_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  if (!coop) return false;
  auto kernel = shuffle_columns_in_bands<S>;
  const int tile_bytes = optin - 1024;  // as c2r-grid's tile (inplace_rect_grid.cu)
  static unsigned long long smem_allowed = 0;
  word::allow_smem(kernel, static_cast<std::size_t>(tile_bytes), smem_allowed);
  int per_sm = 0;
  TLAB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, tile_bytes));
  Bands g;
  if (!plan_bands<S>(p, sm_count() * per_sm, tile_bytes, g)) return false;
  const std::size_t smem = static_cast<std::size_t>(g.T) * g.ld * S;
  auto* a = static_cast<word::Word<S>*>(matrix);
  c2r::Params params = p;
  void* args[] = {&a, &params, &g};
  TLAB_CUDA(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), dim3(g.groups * g.per_round),
                                        dim3(kThreads), args, smem, stream));
  TLAB_CUDA_LAUNCHED();
  return true;
}

}  // namespace

bool shuffle_columns_coprime_in_bands(void* matrix, const c2r::Params& p, int elem, cudaStream_t stream) {
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
