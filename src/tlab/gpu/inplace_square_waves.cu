// In place, n x n at any alignment, in waves of crosses through the grid's shared memory
// (tlab/inplace_square_waves.hpp): one read and one write of each element, every row piece
// hundreds of bytes long and moved as aligned 16-byte words whatever the rows' offsets. The
// tile-pair kernels (word_inplace.cu) swap tiles of 32 words: at sides off a word each of their
// row pieces spans one more 128-byte line and is read and written element by element or as
// shifted words, so they reach 63-89% of memcpy at 8191² where 92-97% at 8192² (performance
// notes, section 9, "Contiguous elements at odd sides" to "Cut tiles for the in-place squares
// off a word"). Here a block may read the words its neighbours own, since nothing of a wave is
// written before the grid's barrier; the price is that barrier once a wave.
#include <cooperative_groups.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>

#include "tlab/gpu/inplace_square_waves.cuh"
#include "tlab/gpu/launch.cuh"
#include "tlab/gpu/on_grid_tile.cuh"
#include "tlab/inplace_on_grid_tiles.hpp"
#include "tlab/inplace_square_waves.hpp"

namespace tlab::gpu {
namespace {

using grid_tile::kThreads;

// Every block runs every wave (the barrier needs them all); a block past the wave's tiles only
// waits. pitch_h and pitch_w: the shared-memory pitch of a tile of h rows (row part) and of w
// rows (column part).
template <int S>
__global__ void __launch_bounds__(kThreads, 1)
    square_in_waves(unsigned char* a, std::int64_t n, int h, int w, int pitch_h, int pitch_w) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int skew = static_cast<int>(reinterpret_cast<std::uintptr_t>(a) % 16);
  const unsigned char* end = a + n * n * S;
  for (std::int64_t s = 0; s < n;) {
    const std::int64_t b = waves::band(n - s, h, w, static_cast<int>(gridDim.x));
    waves::Tile t{0, 0, 0, 0, false};
    const bool mine = waves::tile_at(n, s, b, h, w, blockIdx.x, t);
    const grid_tile::Place<std::int64_t> at{t.row * n + t.col, n, t.col * n + t.row, n, t.rows, t.cols,
                                            t.lower ? pitch_w : pitch_h, skew, a, end};
    if (mine) grid_tile::read_tile<S>(smem, a, at);
    cooperative_groups::this_grid().sync();  // the wave's cross is on chip: it may be overwritten
    if (mine) grid_tile::write_tile<S>(smem, a, at);
    __syncthreads();  // the tile is out before the next wave's lands in its place
    s += b;
  }
}

struct Launch {
  int h = 0, w = 0, blocks = 0, smem = 0;
};

template <int S> std::int64_t bytes_both(int h, int w) {
  return std::max(on_grid::tile_bytes<S>(h, w), on_grid::tile_bytes<S>(w, h));
}

// The largest h <= w whose tiles of h x w and w x h fit `smem` (0: none).
template <int S> int rows_for(int w, std::int64_t smem) {
  int lo = 0, hi = w;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (bytes_both<S>(mid, w) <= smem) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// Tiles for n x n on `blocks` blocks of `smem` bytes: the largest square tile where every wave
// fits the blocks; else tiles as narrow as let the first wave's cross fit them, wider than
// high. False where none does (a side of about blocks / 2 times a block's shared memory).
template <int S> bool choose(std::int64_t n, int blocks, std::int64_t smem, int& h, int& w) {
  int t = 1;
  while (bytes_both<S>(t + 1, t + 1) <= smem) ++t;
  const std::int64_t least_w = std::max<std::int64_t>(t, 2 * n / (blocks + 1));
  for (std::int64_t ww = least_w; ww <= 0x7fffffff / (4 * S); ++ww) {
    const int hh = rows_for<S>(static_cast<int>(ww), smem);
    if (hh < 1) return false;
    if (waves::fits(n, hh, static_cast<int>(ww), blocks)) {
      h = hh, w = static_cast<int>(ww);
      return true;
    }
  }
  return false;
}

// The launch for n x n on the current device; `forced` (h, w and at most the grid's blocks)
// where given. False where it cannot run: no cooperative launch, or tiles that do not fit.
template <int S> bool plan(std::int64_t n, const SquareWaves* forced, Launch& l) {
  if (n < 1) return false;
  static unsigned long long smem_allowed = 0;
  const grid_tile::Grid g = grid_tile::cooperative_grid(square_in_waves<S>, smem_allowed);
  const int smem = g.smem, grid = g.blocks;
  if (grid < 1) return false;
  if (forced) {
    if (forced->h < 1 || forced->w < forced->h || forced->blocks < 1 || forced->blocks > grid ||
        bytes_both<S>(forced->h, forced->w) > smem || !waves::fits(n, forced->h, forced->w, forced->blocks))
      return false;
    l.h = forced->h, l.w = forced->w, l.blocks = forced->blocks;
  } else {
    // The choice depends on n, the element size and the device only: kept, since a plan's
    // repeated calls would otherwise redo it between timed launches.
    static std::mutex lock;
    static std::map<std::tuple<int, std::int64_t>, std::pair<int, int>> chosen;
    const std::lock_guard<std::mutex> hold(lock);
    int dev = 0;
    TLAB_CUDA(cudaGetDevice(&dev));
    const auto key = std::make_tuple(dev, n);
    auto it = chosen.find(key);
    if (it == chosen.end()) {
      int h = 0, w = 0;
      if (!choose<S>(n, grid, smem, h, w)) h = w = 0;
      it = chosen.emplace(key, std::make_pair(h, w)).first;
    }
    if (it->second.first < 1) return false;
    l.h = it->second.first, l.w = it->second.second, l.blocks = grid;
  }
  l.smem = static_cast<int>(bytes_both<S>(l.h, l.w));
  return true;
}

template <int S> void run(void* matrix, std::int64_t n, cudaStream_t stream, const SquareWaves* forced) {
  if (n <= 1) return;
  Launch l;
  if (!plan<S>(n, forced, l))
    throw std::invalid_argument("in-place square transpose in waves: " + std::to_string(n) + "x" + std::to_string(n) +
                                (forced ? " with the tiles and blocks given" : "") +
                                " does not fit this GPU's cooperative grid");
  auto* a = static_cast<unsigned char*>(matrix);
  int h = l.h, w = l.w;
  int pitch_h = static_cast<int>(on_grid::Columns<S>::pitch(h)), pitch_w = static_cast<int>(on_grid::Columns<S>::pitch(w));
  void* args[] = {&a, &n, &h, &w, &pitch_h, &pitch_w};
  TLAB_CUDA(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(square_in_waves<S>), dim3(l.blocks), dim3(kThreads),
                                        args, static_cast<std::size_t>(l.smem), stream));
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

void transpose_square_in_waves(void* matrix, std::int64_t n, int elem, cudaStream_t stream, const SquareWaves* forced) {
  by_size(elem, [&](auto size) { run<decltype(size)::value>(matrix, n, stream, forced); });
}

SquareWaves square_waves_plan(std::int64_t n, int elem) {
  return by_size(elem, [&](auto size) {
    Launch l;
    return plan<decltype(size)::value>(n, nullptr, l) ? SquareWaves{l.h, l.w, l.blocks} : SquareWaves{};
  });
}

void register_gpu_inplace_square_waves(Registry& r) {
  Variant v = gpu_variant("gpu/word-inplace/waves", "gpu-word-inplace", Placement::in_place, {},
                          "n x n at any alignment: crosses of rows and columns read into the grid's shared memory, a grid "
                          "barrier, written transposed; one barrier a wave");
  v.refuses_shape = [](DType t, Shape s) {
    return device_refusal([&] { return square_waves_plan(s.rows, static_cast<int>(dtype_size(t))).h > 0; },
                          "no cooperative launch on this GPU, or a side too long for its grid's shared memory");
  };
  v.kernels = instantiate_all([](auto tag, const Operands& op) {
    transpose_square_in_waves(op.out, op.shape.rows, static_cast<int>(sizeof(decltype(tag))), stream_of(op));
  });
  r.add(std::move(v));
}

}  // namespace tlab::gpu
