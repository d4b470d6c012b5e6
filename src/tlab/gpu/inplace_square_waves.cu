// In place, n x n at any alignment, in waves of crosses through the grid's shared memory
// (tlab/inplace_square_waves.hpp): one read and one write of each element, every row piece
// hundreds of bytes long and moved as aligned 16-byte words whatever the rows' offsets. The
// tile-pair kernels (word_inplace.cu) swap tiles of 32 words: at sides off a word each of their
// row pieces spans one more 128-byte line and is read and written element by element or as
// shifted words (performance notes, section 9, "Contiguous elements at odd sides" to "Cut
// tiles for the in-place squares off a word"). Here a block may read the words its neighbours
// own, since nothing of a wave is written before the grid's barrier. (Its reads of the next
// wave may also load words whose other bytes belong to the last wave's cross while other blocks
// still write them: those bytes are dropped, and every write touches its own elements only; a
// race on global memory that racecheck, which checks shared memory, does not look for, and
// that changes no result.) What it pays, measured by tlab-on-grid-probe on the H100: a barrier
// and a start and end of each phase a wave, and, from the second wave on, phases slower than
// the same bytes as streams cut into the same waves (performance notes, section 9, "Where
// `waves` spends its time" to "A stream cut into waves"; more loads in flight did not help). So
// it wins where the tile pairs lose most, bytes at sides off a word (H100: 84% of memcpy at
// 4099², 70% at 8191², against 70% and 62%), and loses elsewhere; the tuning tables choose.
#include <cooperative_groups.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "tlab/gpu/inplace_on_grid.cuh"
#include "tlab/gpu/inplace_square_waves.cuh"
#include "tlab/gpu/launch.cuh"
#include "tlab/gpu/on_grid_tile.cuh"
#include "tlab/inplace_on_grid_tiles.hpp"
#include "tlab/inplace_square_waves.hpp"

namespace tlab::gpu {
namespace {

using grid_tile::kThreads;

// Where tile t of `wave` lies in the n x n matrix at `a`, and its transpose, for read_tile and
// write_tile: the aligned words they touch may reach any byte of the matrix, none past it.
template <int S>
__device__ __forceinline__ grid_tile::Place<std::int64_t> place_of(const waves::Wave& wave, const waves::Tile& t,
                                                                   unsigned char* a, std::int64_t n) {
  return {t.row * n + t.col, n, t.col * n + t.row, n, t.rows, t.cols, t.lower ? wave.pitch_w : wave.pitch_h,
          static_cast<int>(reinterpret_cast<std::uintptr_t>(a) % 16), a, a + n * n * S};
}

// kWavesWideWrite's write phase, for the probe only: each output row's piece widened to the
// 32-byte sectors under it (within the matrix's whole 16-byte words), its words shifted out of
// shared memory as write_tile shifts them, the widened ones from wherever the column's offsets
// reach (kept within the block's dynamic shared memory). The bytes past the piece are wrong: a
// timing of whole-sector writes at write_tile's cost a word, not a transpose.
template <int S>
__device__ __forceinline__ void write_tile_widened(const unsigned char* tile, unsigned char* a,
                                                   const grid_tile::Place<std::int64_t>& at) {
  using C = on_grid::Columns<S>;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  unsigned smem = 0;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(smem));
  const std::uintptr_t lo = (reinterpret_cast<std::uintptr_t>(at.begin) + 15) / 16 * 16,
                       hi = reinterpret_cast<std::uintptr_t>(at.end) / 16 * 16;
  for (int c = warp; c < at.w; c += grid_tile::kWarps) {
    const std::uintptr_t p0 = reinterpret_cast<std::uintptr_t>(a + (at.out_first + c * at.out_pitch) * S);
    std::uintptr_t w0 = p0 / 32 * 32, w1 = (p0 + at.h * S + 31) / 32 * 32;
    w0 = w0 < lo ? lo : w0, w1 = w1 > hi ? hi : w1;
    const int col = C::base(c, at.pitch), shift = static_cast<int>((col - p0 % 16 + 16) % 16);
    for (std::uintptr_t w = w0 + 16 * lane; w < w1; w += 16 * 32) {
      int from = col + static_cast<int>(static_cast<std::int64_t>(w) - static_cast<std::int64_t>(p0)) - shift;
      const int last = (static_cast<int>(smem) - 32) / 16 * 16;
      from = from < 0 ? 0 : from > last ? last : from;
      *reinterpret_cast<uint4*>(w) = bytes_at(grid_tile::lds128(tile + from), grid_tile::lds128(tile + from + 16), shift);
    }
  }
}

// kWavesReadLoads's read phase, for the probe only: read_tile's steps with their loads and
// nothing of what follows them but a fold of each thread's words into one, stored once (so
// that no load is dropped); a warp still waits for a step's loads before it issues the next.
template <int S>
__device__ __forceinline__ void read_tile_loads(unsigned char* tile, const unsigned char* a,
                                                const grid_tile::Place<std::int64_t>& at) {
  constexpr int K = grid_tile::kRowsInFlight;
  uint4 fold = make_uint4(0, 0, 0, 0);
  grid_tile::read_steps<S>(a, at, [&](uint4(&x)[K], const int(&off)[K], int, int) {
#pragma unroll
    for (int u = 0; u < K; ++u) fold.x ^= x[u].x, fold.y ^= x[u].y, fold.z ^= x[u].z, fold.w ^= x[u].w + off[u];
  });
  *reinterpret_cast<uint4*>(tile + 16 * threadIdx.x) = fold;
}

// Every block runs every wave (the barrier needs them all); a block past the wave's tiles only
// waits. `table`: the waves (waves::schedule), in device memory. P: the phases that run (on-grid's
// bit mask, kOnGridRead | kOnGridBarrier | kOnGridWrite: all three for the transpose), so that
// tlab-on-grid-probe can time them apart.
template <int S, int P>
__global__ void __launch_bounds__(kThreads, 1)
    square_in_waves(unsigned char* a, std::int64_t n, const waves::Wave* table, int count) {
  extern __shared__ __align__(16) unsigned char smem[];
  for (int k = 0; k < count; ++k) {
    const waves::Wave wave = table[k];
    waves::Tile t{0, 0, 0, 0, false};
    const bool mine = waves::tile_at(n, wave.s, wave.b, wave.h, wave.w, blockIdx.x, t);
    const grid_tile::Place<std::int64_t> at = place_of<S>(wave, t, a, n);
    if constexpr ((P & kOnGridRead) != 0 && (P & kWavesReadLoads) == 0)
      if (mine) grid_tile::read_tile<S>(smem, a, at);
    if constexpr ((P & kWavesReadLoads) != 0)
      if (mine) read_tile_loads<S>(smem, a, at);
    if constexpr ((P & kOnGridBarrier) != 0)
      cooperative_groups::this_grid().sync();  // the wave's cross is on chip: it may be overwritten
    if constexpr ((P & kOnGridWrite) != 0 && (P & kWavesWideWrite) == 0)
      if (mine) grid_tile::write_tile<S>(smem, a, at);
    if constexpr ((P & kWavesWideWrite) != 0)
      if (mine) write_tile_widened<S>(smem, a, at);
    __syncthreads();  // the tile is out before the next wave's lands in its place
  }
}

// A schedule in device memory, made once per device, side and bound and kept: a plan's
// repeated calls would otherwise redo it between timed launches.
struct Table {
  const waves::Wave* waves = nullptr;
  int count = 0, blocks = 0, smem = 0;
};

// One lock for the kept tables and the kernel's shared-memory record (word::allow_smem).
template <int S> Table table_for(std::int64_t n, const SquareWaves* bound) {
  static std::mutex lock;
  static std::map<std::tuple<int, std::int64_t, int, std::int64_t>, Table> kept;
  static unsigned long long smem_allowed = 0;
  const std::lock_guard<std::mutex> hold(lock);
  const grid_tile::Grid g = grid_tile::cooperative_grid(square_in_waves<S, kOnGridAll>, smem_allowed);
  if (g.blocks < 1 || n < 1) return Table{};
  int blocks = g.blocks;
  std::int64_t smem = g.smem;
  if (bound) {
    if (bound->blocks < 1 || bound->blocks > g.blocks || bound->smem < 16 || bound->smem > g.smem) return Table{};
    blocks = bound->blocks, smem = bound->smem / 16 * 16;
  }
  int dev = 0;
  TLAB_CUDA(cudaGetDevice(&dev));
  const auto key = std::make_tuple(dev, n, blocks, smem);
  if (auto it = kept.find(key); it != kept.end()) return it->second;
  const std::vector<waves::Wave> plan = waves::schedule<S>(n, blocks, smem);
  Table t;
  if (!plan.empty()) {
    void* d = nullptr;
    const std::size_t bytes = plan.size() * sizeof(waves::Wave);
    TLAB_CUDA(cudaMalloc(&d, bytes));
    TLAB_CUDA(cudaMemcpy(d, plan.data(), bytes, cudaMemcpyHostToDevice));
    // A copy from pageable memory may return before it lands, and a launch on a non-blocking
    // stream does not wait for it: once per schedule, wait here.
    TLAB_CUDA(cudaDeviceSynchronize());
    int most = 0;  // the largest tile's shared memory
    for (const waves::Wave& w : plan) most = std::max<int>(most, static_cast<int>(waves::tile_pair_bytes<S>(w.h, w.w)));
    t = Table{static_cast<const waves::Wave*>(d), static_cast<int>(plan.size()), blocks, most};
  }
  kept.emplace(key, t);
  return t;
}

// table_for's schedule, or the reason there is none.
template <int S> Table launchable_table(std::int64_t n, const SquareWaves* bound) {
  const Table t = table_for<S>(n, bound);
  if (t.count < 1)
    throw std::invalid_argument("in-place square transpose in waves: " + std::to_string(n) + "x" + std::to_string(n) +
                                (bound ? " within the blocks and shared memory given" : "") +
                                " does not fit this GPU's cooperative grid");
  return t;
}

// The opt-in shared memory for a kernel other than the one table_for sets it for (the probe's
// phases): once per device, under a lock of its own.
template <auto Kernel> void allow_grid_smem() {
  static std::mutex lock;
  static unsigned long long allowed = 0;
  const std::lock_guard<std::mutex> hold(lock);
  grid_tile::cooperative_grid(Kernel, allowed);
}

template <int S, int P = kOnGridAll>
void run(void* matrix, std::int64_t n, cudaStream_t stream, const SquareWaves* bound) {
  if (n <= 1) return;
  const Table t = launchable_table<S>(n, bound);
  auto* a = static_cast<unsigned char*>(matrix);
  const waves::Wave* table = t.waves;
  int count = t.count;
  void* args[] = {&a, &n, &table, &count};
  if constexpr (P != kOnGridAll) allow_grid_smem<square_in_waves<S, P>>();  // the probe's kernels
  TLAB_CUDA(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(square_in_waves<S, P>), dim3(t.blocks),
                                        dim3(kThreads), args, static_cast<std::size_t>(t.smem), stream));
  TLAB_CUDA_LAUNCHED();
}

template <class F> auto by_size(int elem, F&& f) {
  switch (elem) {
    case 1: return f(std::integral_constant<int, 1>{});
    case 2: return f(std::integral_constant<int, 2>{});
    case 4: return f(std::integral_constant<int, 4>{});
    case 8: return f(std::integral_constant<int, 8>{});
    case 16: return f(std::integral_constant<int, 16>{});
  }
  throw std::invalid_argument("in-place square transpose in waves: element size " + std::to_string(elem) +
                              " is not 1, 2, 4, 8 or 16 bytes");
}

}  // namespace

void transpose_square_in_waves(void* matrix, std::int64_t n, int elem, cudaStream_t stream, const SquareWaves* bound) {
  by_size(elem, [&](auto size) { run<decltype(size)::value>(matrix, n, stream, bound); });
}

void square_waves_phases(void* matrix, std::int64_t n, int elem, int phases, cudaStream_t stream) {
  by_size(elem, [&](auto size) {
    constexpr int S = decltype(size)::value;
    switch (phases) {
      case 0: return run<S, 0>(matrix, n, stream, nullptr);
      case kOnGridBarrier: return run<S, kOnGridBarrier>(matrix, n, stream, nullptr);
      case kOnGridRead | kOnGridBarrier: return run<S, kOnGridRead | kOnGridBarrier>(matrix, n, stream, nullptr);
      case kOnGridBarrier | kOnGridWrite: return run<S, kOnGridBarrier | kOnGridWrite>(matrix, n, stream, nullptr);
      case kOnGridAll: return run<S, kOnGridAll>(matrix, n, stream, nullptr);
      case kOnGridBarrier | kWavesWideWrite: return run<S, kOnGridBarrier | kWavesWideWrite>(matrix, n, stream, nullptr);
      case kOnGridAll | kWavesWideWrite: return run<S, kOnGridAll | kWavesWideWrite>(matrix, n, stream, nullptr);
      case kOnGridBarrier | kWavesReadLoads: return run<S, kOnGridBarrier | kWavesReadLoads>(matrix, n, stream, nullptr);
    }
    throw std::invalid_argument("in-place square transpose in waves: no launch of phases " + std::to_string(phases));
  });
}

SquareWaves square_waves_plan(std::int64_t n, int elem) {
  return by_size(elem, [&](auto size) {
    const Table t = table_for<decltype(size)::value>(n, nullptr);
    return SquareWaves{t.count, t.blocks, t.smem};
  });
}

void register_gpu_inplace_square_waves(Registry& r) {
  Variant v = gpu_variant("gpu/word-inplace/waves", "gpu-word-inplace", Placement::in_place, {},
                          "n x n at any alignment: crosses of rows and columns read into the grid's shared memory, a grid "
                          "barrier, written transposed; one barrier a wave");
  v.refuses_shape = [](DType t, Shape s) {
    return device_refusal([&] { return square_waves_plan(s.rows, static_cast<int>(dtype_size(t))).waves > 0; },
                          "no cooperative launch on this GPU, or a side too long for its grid's shared memory");
  };
  v.kernels = instantiate_all([](auto tag, const Operands& op) {
    transpose_square_in_waves(op.out, op.shape.rows, static_cast<int>(sizeof(decltype(tag))), stream_of(op));
  });
  r.add(std::move(v));
}

}  // namespace tlab::gpu
