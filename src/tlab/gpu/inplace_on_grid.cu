// In place, any m x n, in one read and one write of each element, where the whole matrix fits
// the shared memory of a grid of one block per SM: every block reads one h x w tile of the
// input into its shared memory, a grid-wide barrier waits until every tile is on chip, and
// every block writes its tile transposed to where it belongs in the n x m result, the same
// bytes. c2r (inplace_rect.cu) needs two passes at least, so it cannot pass half a copy's
// rate; this needs the GPU's shared memory to hold the matrix (about 29 MiB on an H100 or an
// H200; a little more with two tiles a block, their overlap kept in global memory between the
// phases: on_grid::plan_tiles), so it serves the smaller matrices (performance notes, section
// 9, "The whole matrix on the grid" and "Two tiles a block"). The tiles' reads and writes are
// on_grid_tile.cuh's, which the square transpose in waves shares (inplace_square_waves.cu).
#include <cooperative_groups.h>

#include <algorithm>

#include "tlab/gpu/inplace_on_grid.cuh"
#include "tlab/gpu/kept_scratch.cuh"
#include "tlab/gpu/launch.cuh"
#include "tlab/gpu/on_grid_tile.cuh"
#include "tlab/inplace_on_grid_tiles.hpp"

namespace tlab::gpu {
namespace {

using on_grid::tile_bytes;
using on_grid::Tiles;

using grid_tile::kThreads;
using Place = grid_tile::Place<int>;

// Tile `index` of the m x n matrix (element offsets fit 32 bits: the matrix fits the GPU's
// shared memory and the spill), and its place in the n x m result.
template <int S> __device__ Place place_of(const unsigned char* a, int m, int n, const Tiles& t, int index) {
  const int i0 = index / t.across * t.h, j0 = index % t.across * t.w;
  return Place{i0 * n + j0, n, j0 * m + i0, m, min(t.h, m - i0), min(t.w, n - j0), t.pitch,
               static_cast<int>(reinterpret_cast<std::uintptr_t>(a) % 16), a, a + static_cast<std::int64_t>(m) * n * S};
}

// Copies `bytes` (a multiple of 16) from `from` to `to`, a block's threads 16 bytes each.
__device__ __forceinline__ void copy_words(void* to, const void* from, int bytes) {
  for (int i = threadIdx.x; i < bytes / 16; i += kThreads)
    static_cast<uint4*>(to)[i] = static_cast<const uint4*>(from)[i];
}

// Element indices fit 32 bits: the matrix fits the GPU's shared memory and the spill. Block b
// takes tile b and, where there are more tiles than blocks, tile b + blocks too (plan_tiles in
// tlab/inplace_on_grid_tiles.hpp; `spill` then holds t.spill bytes a block). P says which
// phases run (kOnGridRead | kOnGridBarrier | kOnGridWrite): the transpose runs all three;
// tlab-on-grid-probe times them apart.
template <int S, int P>
__global__ void __launch_bounds__(kThreads, 1)
    transpose_on_grid(unsigned char* a, int m, int n, Tiles t, unsigned char* spill) {
  extern __shared__ __align__(16) unsigned char smem[];
  const Place own = place_of<S>(a, m, n, t, static_cast<int>(blockIdx.x));
  const int second = static_cast<int>(blockIdx.x + gridDim.x);
  unsigned char* const kept = spill + static_cast<std::int64_t>(blockIdx.x) * t.spill;
  if constexpr ((P & kOnGridRead) != 0) {
    if (second < t.count) {
      grid_tile::read_tile<S>(smem, a, place_of<S>(a, m, n, t, second));
      __syncthreads();
      copy_words(kept, smem + t.first_at, t.spill);
      __syncthreads();
    }
    grid_tile::read_tile<S>(smem + t.first_at, a, own);
  }
  if constexpr ((P & kOnGridBarrier) != 0)
    cooperative_groups::this_grid().sync();  // every tile is on chip or aside: the matrix may be overwritten
  if constexpr ((P & kOnGridWrite) != 0) {
    grid_tile::write_tile<S>(smem + t.first_at, a, own);
    if (second < t.count) {
      __syncthreads();
      copy_words(smem + t.first_at, kept, t.spill);
      __syncthreads();
      grid_tile::write_tile<S>(smem, a, place_of<S>(a, m, n, t, second));
    }
  }
}

struct Launch {
  Tiles tiles;
  int smem = 0, blocks = 0;
  std::int64_t spill = 0;  // bytes kept aside in global memory (on_grid::spill_bytes)
};

// The launch for an m x n matrix on the current device, or false where it does not fit: the
// chooser's tiles, or `forced` where given (and it fits).
template <int S, int P> bool plan(std::int64_t m, std::int64_t n, const Tiles* forced, Launch& l) {
  // Element offsets are 32-bit in the kernel; m * n * S may itself overflow, hence the division.
  if (m < 1 || n < 1 || m > (std::int64_t{1} << 31) / S / n) return false;
  static unsigned long long smem_allowed = 0;
  const grid_tile::Grid g = grid_tile::cooperative_grid(transpose_on_grid<S, P>, smem_allowed);
  const int smem = g.smem, blocks = g.blocks;
  if (blocks < 1) return false;
  if (forced == nullptr) {
    if (!on_grid::plan_tiles<S>(m, n, blocks, smem, l.tiles)) return false;
  } else {
    l.tiles = on_grid::tiles_of<S>(m, n, forced->h, forced->w);
    if (!on_grid::place_tiles<S>(m, n, blocks, smem, l.tiles)) return false;
  }
  l.blocks = std::min(l.tiles.count, blocks);
  l.smem = l.tiles.count > blocks ? smem : static_cast<int>(tile_bytes<S>(l.tiles.h, l.tiles.w));
  l.spill = on_grid::spill_bytes(l.tiles, blocks);
  return true;
}

template <int S, int P>
void run(void* matrix, Shape s, const Tiles* forced, void* scratch, cudaStream_t stream, bool plain = false) {
  if (s.rows == 1 || s.cols == 1) return;  // a vector's transpose has the same layout
  Launch l;
  if (!plan<S, P>(s.rows, s.cols, forced, l))
    throw std::invalid_argument(
        "in-place transpose on the grid: " + to_string(s) +
        (forced ? " in tiles of " + std::to_string(forced->h) + "x" + std::to_string(forced->w) +
                      ": more than two tiles a block, a tile larger than a block's shared memory, or more to keep "
                      "aside than " + std::to_string(on_grid::kSpillRows) + " rows of the longer side"
                : " does not fit this GPU's shared memory and the room it may keep aside"));
  auto* a = static_cast<unsigned char*>(matrix);
  auto* spill = static_cast<unsigned char*>(l.spill > 0 && scratch == nullptr ? kept_scratch(l.spill) : scratch);
  int m = static_cast<int>(s.rows), n = static_cast<int>(s.cols);
  void* args[] = {&a, &m, &n, &l.tiles, &spill};
  if (plain) {
    if constexpr ((P & kOnGridBarrier) != 0) throw std::invalid_argument("a grid barrier needs the cooperative launch");
    else
      transpose_on_grid<S, P><<<l.blocks, kThreads, static_cast<std::size_t>(l.smem), stream>>>(a, m, n, l.tiles, spill);
  } else {
    TLAB_CUDA(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(transpose_on_grid<S, P>), dim3(l.blocks),
                                          dim3(kThreads), args, static_cast<std::size_t>(l.smem), stream));
  }
  TLAB_CUDA_LAUNCHED();
}

template <int S>
void run_phases(void* matrix, Shape s, int phases, const Tiles* forced, void* scratch, cudaStream_t stream) {
  switch (phases) {
    case 0: return run<S, 0>(matrix, s, forced, scratch, stream);
    case kOnGridPlainLaunch: return run<S, 0>(matrix, s, forced, scratch, stream, true);
    case kOnGridBarrier: return run<S, kOnGridBarrier>(matrix, s, forced, scratch, stream);
    case kOnGridRead | kOnGridBarrier: return run<S, kOnGridRead | kOnGridBarrier>(matrix, s, forced, scratch, stream);
    case kOnGridBarrier | kOnGridWrite: return run<S, kOnGridBarrier | kOnGridWrite>(matrix, s, forced, scratch, stream);
    case kOnGridAll: return run<S, kOnGridAll>(matrix, s, forced, scratch, stream);
  }
  throw std::invalid_argument("in-place transpose on the grid: no launch of phases " + std::to_string(phases));
}

void dispatch(void* matrix, Shape s, int elem, int phases, const Tiles* forced, void* scratch, cudaStream_t stream) {
  if (s.rows < 1 || s.cols < 1) throw std::invalid_argument("in-place transpose on the grid: empty shape");
  switch (elem) {
    case 1: return run_phases<1>(matrix, s, phases, forced, scratch, stream);
    case 2: return run_phases<2>(matrix, s, phases, forced, scratch, stream);
    case 4: return run_phases<4>(matrix, s, phases, forced, scratch, stream);
    case 8: return run_phases<8>(matrix, s, phases, forced, scratch, stream);
    case 16: return run_phases<16>(matrix, s, phases, forced, scratch, stream);
  }
  throw std::invalid_argument("in-place transpose on the grid: element size " + std::to_string(elem) +
                              " is not 1, 2, 4, 8 or 16 bytes");
}

// The chooser's launch for `s` on the current device (tiles.count 0 where it does not fit).
Launch planned(Shape s, int elem) {
  Launch l;
  bool ok = false;
  switch (elem) {
    case 1: ok = plan<1, kOnGridAll>(s.rows, s.cols, nullptr, l); break;
    case 2: ok = plan<2, kOnGridAll>(s.rows, s.cols, nullptr, l); break;
    case 4: ok = plan<4, kOnGridAll>(s.rows, s.cols, nullptr, l); break;
    case 8: ok = plan<8, kOnGridAll>(s.rows, s.cols, nullptr, l); break;
    case 16: ok = plan<16, kOnGridAll>(s.rows, s.cols, nullptr, l); break;
  }
  return ok ? l : Launch{};
}

}  // namespace

void transpose_in_place_on_grid(void* matrix, Shape s, int elem, cudaStream_t stream, void* scratch) {
  dispatch(matrix, s, elem, kOnGridAll, nullptr, scratch, stream);
}

void on_grid_phases(void* matrix, Shape s, int elem, int phases, const on_grid::Tiles* tiles, cudaStream_t stream) {
  dispatch(matrix, s, elem, phases, tiles, nullptr, stream);
}

on_grid::Tiles on_grid_tiles(Shape s, int elem) { return planned(s, elem).tiles; }

std::int64_t in_place_on_grid_scratch_bytes(Shape s, int elem) {
  if (s.rows < 2 || s.cols < 2) return 0;
  return planned(s, elem).spill;
}

bool in_place_on_grid_fits(Shape s, int elem) {
  if (s.rows < 1 || s.cols < 1) return false;
  if (s.rows == 1 || s.cols == 1) return true;
  return on_grid_tiles(s, elem).count > 0;
}

void register_gpu_inplace_on_grid(Registry& r) {
  Variant v = gpu_variant("gpu/inplace-rect/on-grid", "gpu-inplace-rect", Placement::in_place, {},
                          "any m x n in place that fits the GPU's shared memory (two tiles a block, the overlap "
                          "kept aside, up to " + std::to_string(on_grid::kSpillRows) +
                              " rows more): tiles read into every SM, a grid barrier, tiles written transposed (one "
                              "read and one write)");
  v.any_shape = true;
  v.refuses_shape = [](DType t, Shape s) {
    return device_refusal([&] { return in_place_on_grid_fits(s, static_cast<int>(dtype_size(t))); },
                          "the matrix does not fit the shared memory of this GPU's grid");
  };
  // A plan's scratch: the tiles kept aside where the grid takes two a block, else none.
  v.scratch_bytes = [](DType t, Shape s) {
    try {
      return in_place_on_grid_scratch_bytes(s, static_cast<int>(dtype_size(t)));
    } catch (const std::exception&) {  // no device: the plan refuses the variant first
      return std::int64_t{0};
    }
  };
  v.kernels = instantiate_all([](auto tag, const Operands& op) {
    transpose_in_place_on_grid(op.out, op.shape, static_cast<int>(sizeof(decltype(tag))), stream_of(op), op.scratch);
  });
  r.add(std::move(v));
}

}  // namespace tlab::gpu
