// Shared-memory tiled out-of-place transposes. One kernel template covers the one-element-
// per-thread tiled kernels (SIDE == TILE) and seed 004's unrolled ones (SIDE < TILE: each
// thread moves TILE/SIDE elements), with three shared-memory layouts.
#include "tlab/gpu/launch.cuh"

namespace tlab::gpu {
namespace {

enum class Layout { none, pad, swizzle };

const char* layout_name(Layout l) { return l == Layout::none ? "none" : l == Layout::pad ? "pad" : "swizzle"; }

// Where logical element (r, c) of a tile lives in its shared-memory row r.
template <Layout L, int TILE> __device__ __forceinline__ int tile_col(int r, int c) {
  if constexpr (L == Layout::swizzle) return (c + r) % TILE;  // seed 004's staggered layout
  else return c;
}

template <typename T, int TILE, Layout L> constexpr std::size_t tile_bytes() {
  return sizeof(T) * TILE * (L == Layout::pad ? TILE + 1 : TILE);
}
// Static shared memory is capped at 48 KiB per block.
template <typename T, int TILE, Layout L> constexpr bool tile_fits() { return tile_bytes<T, TILE, L>() <= 48 * 1024; }

// OutOrder: see TileOrder (launch.cuh); false is seed 004's order.
template <typename T, int TILE, int SIDE, Layout L, bool OutOrder>
__global__ void __launch_bounds__(TILE * SIDE)
transpose_tiled(const T* __restrict__ in, T* __restrict__ out, std::int64_t rows, std::int64_t cols) {
  // +1 column: a column of the tile then spans all banks instead of one (4-byte elements).
  __shared__ T tile[TILE][L == Layout::pad ? TILE + 1 : TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  using Order = TileOrder<OutOrder>;
  const std::int64_t looped = Order::looped((rows + TILE - 1) / TILE, (cols + TILE - 1) / TILE);
  for (std::int64_t by = blockIdx.y; by < looped; by += gridDim.y) {
    const std::int64_t r0 = Order::row(by) * TILE, c0 = Order::col(by) * TILE;
#pragma unroll
    for (int k = 0; k < TILE; k += SIDE) {
      const std::int64_t r = r0 + ty + k, c = c0 + tx;
      if (r < rows && c < cols) tile[ty + k][tile_col<L, TILE>(ty + k, tx)] = in[r * cols + c];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; k += SIDE) {
      const std::int64_t orow = c0 + ty + k, ocol = r0 + tx;  // output is cols x rows
      if (orow < cols && ocol < rows) out[orow * rows + ocol] = tile[tx][tile_col<L, TILE>(tx, ty + k)];
    }
    __syncthreads();  // the next tile overwrites shared memory
  }
}


template <int TILE, int SIDE, Layout L, bool OutOrder> struct Launch {
  template <typename T> static void run(const Operands& op) {
    if constexpr (tile_fits<T, TILE, L>()) {
      const dim3 block(TILE, SIDE);
      const dim3 grid = TileOrder<OutOrder>::grid(ceil_div(op.shape.rows, TILE), ceil_div(op.shape.cols, TILE));
      transpose_tiled<T, TILE, SIDE, L, OutOrder><<<grid, block, 0, stream_of(op)>>>(
          static_cast<const T*>(op.in), static_cast<T*>(op.out), op.shape.rows, op.shape.cols);
      TLAB_CUDA_LAUNCHED();
    } else {
      throw std::logic_error("tile does not fit in 48 KiB of shared memory");
    }
  }
};

// Registers one (TILE, SIDE, layout) kernel under `name`, for the element types whose tile
// fits: every type for the one-per-thread family (experiment 07 sweeps element sizes through
// it), the main three for the unrolled grid (each instantiation costs compile time per arch),
// and 16-byte elements for its padded tiles too: cuBLAS geam's 16-byte kernel is such a tile
// (performance notes, section 9, "16-byte elements in geam's shape").
template <int TILE, int SIDE, Layout L, bool AllTypes, bool OutOrder = false>
void add_tiled(Registry& r, const std::string& name, const std::string& family, const std::string& note) {
  Variant v = gpu_variant(name, family, Placement::out_of_place,
                          {{"tile", std::to_string(TILE)}, {"side", std::to_string(SIDE)}, {"layout", layout_name(L)}},
                          note);
  auto body = [](auto tag, const Operands& op) { Launch<TILE, SIDE, L, OutOrder>::template run<decltype(tag)>(op); };
  if constexpr (AllTypes) v.kernels = instantiate_all(body);
  else if constexpr (L == Layout::pad) v.kernels = instantiate<TLAB_GPU_MAIN_TYPES, Complex128>(body);
  else v.kernels = instantiate<TLAB_GPU_MAIN_TYPES>(body);
  for (auto it = v.kernels.begin(); it != v.kernels.end();) {
    const bool fits = dispatch_dtype(it->first, [](auto tag) { return tile_fits<decltype(tag), TILE, L>(); });
    it = fits ? std::next(it) : v.kernels.erase(it);
  }
  r.add(std::move(v));
}

template <int TILE, Layout L> void add_one_per_thread(Registry& r) {
  add_tiled<TILE, TILE, L, true>(r, "gpu/tiled/t" + std::to_string(TILE) + "-" + layout_name(L), "gpu-tiled",
                           "shared-memory tile, one element per thread (seeds 001, 004)");
}

template <int TILE, int SIDE, Layout L, bool OutOrder = false> void add_unrolled(Registry& r) {
  add_tiled<TILE, SIDE, L, false, OutOrder>(
      r, "gpu/unrolled/t" + std::to_string(TILE) + "x" + std::to_string(SIDE) + "-" + layout_name(L) + (OutOrder ? "-out" : ""),
      "gpu-unrolled",
      OutOrder ? "shared-memory tile, TILE/SIDE elements per thread, blocks in output-row order"
               : "shared-memory tile, TILE/SIDE elements per thread (seed 004)");
}

template <Layout L> void add_unrolled_grid(Registry& r) {
  add_unrolled<16, 2, L>(r);
  add_unrolled<16, 4, L>(r);
  add_unrolled<16, 8, L>(r);
  add_unrolled<32, 2, L>(r);
  add_unrolled<32, 4, L>(r);
  add_unrolled<32, 8, L>(r);
  add_unrolled<32, 16, L>(r);
  add_unrolled<64, 4, L>(r);
  add_unrolled<64, 8, L>(r);
  add_unrolled<64, 16, L>(r);
}

}  // namespace

void register_gpu_tiled(Registry& r) {
  add_one_per_thread<8, Layout::none>(r);
  add_one_per_thread<8, Layout::pad>(r);
  add_one_per_thread<8, Layout::swizzle>(r);
  add_one_per_thread<16, Layout::none>(r);
  add_one_per_thread<16, Layout::pad>(r);
  add_one_per_thread<16, Layout::swizzle>(r);
  add_one_per_thread<32, Layout::none>(r);
  add_one_per_thread<32, Layout::pad>(r);
  add_one_per_thread<32, Layout::swizzle>(r);
  add_unrolled_grid<Layout::pad>(r);
  add_unrolled_grid<Layout::swizzle>(r);
  add_unrolled<32, 8, Layout::none>(r);
  add_unrolled<32, 8, Layout::pad, true>(r);
}

}  // namespace tlab::gpu
