// c2r's column pass on a coprime shape, held in the shared memory of the whole grid instead of
// scratch: one read and one write of each element, in place (performance notes, section 9,
// "c2r's column pass across the grid").
//
// On a coprime shape the pass is out[r][q] = a[(t + q) mod m][q], t = r n mod m: each column is
// permuted on its own, so a strip of P columns can be put in place once all of it has been
// read. A strip is split into G groups of T consecutive bases t, one block each; a block reads
// the K = T + P - 1 source rows under its bases (all m rows where one block holds the strip)
// as P-element row pieces, and writes output row t n^-1 mod m from the diagonal of that tile,
// as the scratch path's gather does. A round takes as many whole strips as the grid has
// blocks for; a grid-wide barrier between its reads and its writes makes it safe in place,
// and the next round's reads need no barrier after the writes because they touch other
// columns. The grid is one block per SM (cooperative launch), each with nearly all the SM's
// shared memory.
#include <cooperative_groups.h>

#include <algorithm>

#include "tlab/gpu/inplace_rect.cuh"
#include "tlab/gpu/launch.cuh"
#include "tlab/gpu/word_tile.cuh"
#include "tlab/inplace_rect_index.hpp"

namespace tlab::gpu {
namespace {

constexpr int kThreads = 1024;
// Row pieces of 32 elements, a warp each (16 for 16-byte elements, a warp for two rows). Of
// 128- and 256-byte pieces, float ran faster with 128 (32 elements), double and complex128
// with 256 (32 and 16 elements); for 1 and 2 bytes, 32 elements against 128-byte pieces were
// within two points either way (performance notes, section 9, "c2r's column pass across the
// grid").
template <int S> constexpr int kPiece = S == 16 ? 16 : 32;
// Loads per thread before their stores to shared memory: 16-128 KiB in flight per SM by
// element size, at least the 20-odd KiB that covering the latency at a 132th of 3 TB/s takes
// (doubling it for 1-4 bytes measured no faster).
template <int S> constexpr int kInFlight = S >= 8 ? 8 : 16;

struct Rounds {
  std::int64_t strips = 0;  // strips of P columns
  std::int64_t T = 0;       // bases per block (the last group of a strip may have fewer)
  int groups = 0;           // blocks per strip
  int per_round = 0;        // strips per round
  int rounds = 0;
};

// Row, tile and source indices are 32-bit (both sides are under 2^31, c2r::make_params): each
// address is one wide multiply from a column pointer fixed per round, and each wrap mod m a
// compare and subtract; 64-bit arithmetic per element made the float pass issue-bound
// (performance notes, section 9).
template <int S>
__global__ void __launch_bounds__(kThreads, 1)
    shuffle_columns_grid(word::Word<S>* __restrict__ a, c2r::Params p, Rounds g) {
  constexpr int P = kPiece<S>, rows_per_pass = kThreads / P;
  extern __shared__ __align__(16) unsigned char tile_raw[];
  auto* tile = reinterpret_cast<word::Word<S>*>(tile_raw);
  const int m = static_cast<int>(p.m), n = static_cast<int>(p.n);
  const int c = threadIdx.x % P, sub = threadIdx.x / P;
  const int strip_of_block = blockIdx.x / g.groups, group = blockIdx.x % g.groups;
  const int t0 = static_cast<int>(group * g.T), T = static_cast<int>(std::min<std::int64_t>(g.T, m - t0));
  const int K = std::min(T + P - 1, m);  // tile rows: source rows t0 + jb + k, mod m
  const unsigned r_step = static_cast<unsigned>(rows_per_pass * p.n_inv % p.m);  // r + r_step < 2^32
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  for (int round = 0; round < g.rounds; ++round) {
    const std::int64_t strip = static_cast<std::int64_t>(round) * g.per_round + strip_of_block;
    const bool active = strip_of_block < g.per_round && strip < g.strips && T > 0;
    const int jb = static_cast<int>(strip * P);
    const bool inside = c < n - jb;  // jb < n: no overflow near 2^31
    word::Word<S>* column = a + jb + c;  // element (row, jb + c) is column[row * n]
    if (active) {
      int src = static_cast<int>(c2r::mod(static_cast<std::int64_t>(t0) + jb + sub, p.dm));
      for (int k0 = sub; k0 < K; k0 += kInFlight<S> * rows_per_pass) {
        word::Word<S> x[kInFlight<S>] = {};
#pragma unroll
        for (int i = 0; i < kInFlight<S>; ++i) {
          if (k0 + i * rows_per_pass < K && inside) x[i] = column[static_cast<std::int64_t>(src) * n];
          src += rows_per_pass;
          if (src >= m) src -= m;  // once at most: m >= 2 rows_per_pass (plan_rounds)
        }
#pragma unroll
        for (int i = 0; i < kInFlight<S>; ++i)
          if (k0 + i * rows_per_pass < K) tile[(k0 + i * rows_per_pass) * P + c] = x[i];
      }
    }
    __syncthreads();
    grid.sync();  // every block has read its part of this round's strips
    if (active && inside) {
      unsigned r = static_cast<unsigned>(c2r::coprime_row(p, t0 + sub));
      int at = sub + c;  // tile row of (base t0 + dt, column jb + c): dt + c, mod m
      if (at >= K) at -= K;  // K == m here (one block holds the strip)
      for (int dt = sub; dt < T; dt += rows_per_pass) {
        column[static_cast<std::int64_t>(r) * n] = tile[at * P + c];
        r += r_step;
        if (r >= static_cast<unsigned>(m)) r -= m;
        at += rows_per_pass;
        if (at >= K) at -= K;
      }
    }
    __syncthreads();  // the tile is refilled next round
  }
}

// How the strips are split and grouped, or false where a strip would not fit the grid (or
// the device cannot launch it). The fewest rounds the tiles allow, then as many groups per
// strip as keep every block of a round busy (smaller tiles, the same rounds).
template <int S> bool plan_rounds(const c2r::Params& p, int blocks, std::int64_t tile_bytes, Rounds& g) {
  constexpr int P = kPiece<S>;
  constexpr int rows_per_pass = kThreads / P;  // the kernel's tile index wraps once at most:
  if (p.c != 1 || p.m < std::max(2 * rows_per_pass, rows_per_pass + P) || blocks < 1) return false;
  const std::int64_t max_rows = tile_bytes / (P * S);
  std::int64_t groups = 1;
  if (p.m > max_rows) {
    const std::int64_t t_max = max_rows - (P - 1);
    if (t_max < 1) return false;
    groups = ceil_div(p.m, t_max);
    if (groups > blocks) return false;
  }
  g.strips = ceil_div(p.n, P);
  g.rounds = static_cast<int>(ceil_div(g.strips, blocks / groups));
  g.per_round = static_cast<int>(ceil_div(g.strips, g.rounds));  // the rounds evenly filled
  // More groups where blocks would idle, while a tile keeps at least 8 P bases (its P - 1
  // extra rows then cost at most an eighth more reads, from L2).
  groups = std::max(groups, std::min<std::int64_t>(blocks / g.per_round, p.m / (8 * P)));
  g.T = ceil_div(p.m, groups);
  g.groups = static_cast<int>(ceil_div(p.m, g.T));
  return true;
}

// The launch's tile and rounds, or false where the device or the shape does not allow one.
template <int S> bool plan(const c2r::Params& p, int& tile_bytes, Rounds& g) {
  int dev = 0, optin = 0, coop = 0;
  TLAB_CUDA(cudaGetDevice(&dev));
  TLAB_CUDA(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
  TLAB_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  if (!coop) return false;
  auto kernel = shuffle_columns_grid<S>;
  // 1 KiB under what a block may opt into (the opt-in limit already excludes the runtime's
  // reserve; the margin is kept because the references were measured with it).
  tile_bytes = optin - 1024;
  static unsigned long long smem_allowed = 0;
  word::allow_smem(kernel, static_cast<std::size_t>(tile_bytes), smem_allowed);
  int per_sm = 0;
  TLAB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, tile_bytes));
  return plan_rounds<S>(p, sm_count() * per_sm, tile_bytes, g);
}

template <int S> bool run(void* matrix, const c2r::Params& p, cudaStream_t stream) {
  int tile_bytes = 0;
  Rounds g;
  if (!plan<S>(p, tile_bytes, g)) return false;
  const int blocks = g.groups * g.per_round;
  auto* a = static_cast<word::Word<S>*>(matrix);
  c2r::Params params = p;
  void* args[] = {&a, &params, &g};
  TLAB_CUDA(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(shuffle_columns_grid<S>), dim3(blocks),
                                        dim3(kThreads), args, static_cast<std::size_t>(tile_bytes), stream));
  TLAB_CUDA_LAUNCHED();
  return true;
}

template <int S> bool fits(const c2r::Params& p) {
  int tile_bytes = 0;
  Rounds g;
  return plan<S>(p, tile_bytes, g);
}

}  // namespace

bool coprime_on_grid_fits(const c2r::Params& p, int elem) {
  switch (elem) {
    case 1: return fits<1>(p);
    case 2: return fits<2>(p);
    case 4: return fits<4>(p);
    case 8: return fits<8>(p);
    case 16: return fits<16>(p);
  }
  return false;
}

bool shuffle_columns_coprime_on_grid(void* matrix, const c2r::Params& p, int elem, cudaStream_t stream) {
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
