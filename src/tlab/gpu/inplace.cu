// In-place square transposes on the GPU: seed 000/002's naive swap, a correct tiled swap of
// tile pairs, and seed 002's tiled kernel exactly as published (registered as wrong).
#include "tlab/gpu/launch.cuh"

namespace tlab::gpu {
namespace {

// Seed 002's first kernel: one thread per element; the thread below the diagonal swaps.
template <typename T> __global__ void transpose_inplace_naive(T* m, std::int64_t n) {
  const std::int64_t x = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (std::int64_t y = static_cast<std::int64_t>(blockIdx.y) * blockDim.y + threadIdx.y; y < n;
       y += static_cast<std::int64_t>(gridDim.y) * blockDim.y) {
    if (x < n && x < y) {
      const T tmp = m[y * n + x];
      m[y * n + x] = m[x * n + y];
      m[x * n + y] = tmp;
    }
  }
}

// Block (bx, by) with bx >= by owns the tile pair (by, bx) and (bx, by): it reads both into
// shared memory, then writes each one's transpose into the other's place. No other block
// touches those tiles, so no grid-wide synchronisation is needed. Blocks below the diagonal
// of the block grid exit at once.
template <typename T, int TILE, int SIDE>
__global__ void __launch_bounds__(TILE * SIDE) transpose_inplace_tiled(T* m, std::int64_t n) {
  __shared__ T a[TILE][TILE + 1];
  __shared__ T b[TILE][TILE + 1];
  const std::int64_t tiles = (n + TILE - 1) / TILE;
  const std::int64_t bx = blockIdx.x;
  const int tx = threadIdx.x, ty = threadIdx.y;
  for (std::int64_t by = blockIdx.y; by < tiles; by += gridDim.y) {
    if (bx < by) continue;
    const bool diagonal = bx == by;
    const std::int64_t ar = by * TILE, ac = bx * TILE;  // tile a at (ar, ac); its mirror b at (ac, ar)
#pragma unroll
    for (int k = 0; k < TILE; k += SIDE) {
      const std::int64_t i = ty + k;
      if (ar + i < n && ac + tx < n) a[i][tx] = m[(ar + i) * n + ac + tx];
      if (!diagonal && ac + i < n && ar + tx < n) b[i][tx] = m[(ac + i) * n + ar + tx];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; k += SIDE) {
      const std::int64_t i = ty + k;
      // b's place (ac.., ar..) receives a transposed; a's place receives b transposed.
      if (ac + i < n && ar + tx < n) m[(ac + i) * n + ar + tx] = a[tx][i];
      if (!diagonal && ar + i < n && ac + tx < n) m[(ar + i) * n + ac + tx] = b[tx][i];
    }
    __syncthreads();
  }
}

// Seed 002's second kernel, kept as published (TILE_DIM equal to the block size, the
// reading most favourable to it): each block transposes its own tile where it lies. Tiles
// are never exchanged, so for n > TILE the result is not the transpose: element (i, j)
// lands at (tile_row(i)*TILE + j%TILE, tile_col(j)*TILE + i%TILE) instead of (j, i).
template <typename T, int TILE_DIM> __global__ void transpose_inplace_tiled_seed002(int size, T* matrix) {
  __shared__ T tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int i = 0; i < TILE_DIM; i += blockDim.y)
    if (x < size && y + i < size) tile[threadIdx.y + i][threadIdx.x] = matrix[(y + i) * size + x];
  __syncthreads();
  for (int i = 0; i < TILE_DIM; i += blockDim.y)
    if (x < size && y + i < size) matrix[(y + i) * size + x] = tile[threadIdx.x][threadIdx.y + i];
}

template <int TILE, int SIDE> void add_inplace_tiled(Registry& r) {
  Variant v = gpu_variant("gpu/inplace-tiled/t" + std::to_string(TILE) + "x" + std::to_string(SIDE), "gpu-inplace-tiled",
                          Placement::in_place, {{"tile", std::to_string(TILE)}, {"side", std::to_string(SIDE)}},
                          "swaps tile pairs (i,j) and (j,i) through shared memory");
  v.kernels = instantiate<TLAB_GPU_MAIN_TYPES>([](auto tag, const Operands& op) {
    using T = decltype(tag);
    const std::int64_t tiles = ceil_div(op.shape.rows, TILE);
    transpose_inplace_tiled<T, TILE, SIDE><<<grid_2d(tiles, tiles), dim3(TILE, SIDE), 0, stream_of(op)>>>(
        static_cast<T*>(op.out), op.shape.rows);
    TLAB_CUDA_LAUNCHED();
  });
  r.add(std::move(v));
}

template <int TILE> void add_inplace_tiled_seed(Registry& r) {
  Variant v = gpu_variant("gpu/inplace-tiled-seed002/b" + std::to_string(TILE), "gpu-inplace-tiled-seed002",
                          Placement::in_place, {{"block", std::to_string(TILE) + "x" + std::to_string(TILE)}},
                          "seed 002's in-place tiled kernel as published: transposes tiles where they lie (WRONG for n > tile)");
  v.known_wrong = true;
  v.kernels = instantiate<TLAB_GPU_MAIN_TYPES>([](auto tag, const Operands& op) {
    using T = decltype(tag);
    const std::int64_t n = op.shape.rows;
    if (n > 0x7fffffff / n) throw std::invalid_argument("seed 002's kernel indexes with int: n too large");
    const dim3 grid(static_cast<unsigned>(ceil_div(n, TILE)), static_cast<unsigned>(ceil_div(n, TILE)));
    transpose_inplace_tiled_seed002<T, TILE><<<grid, dim3(TILE, TILE), 0, stream_of(op)>>>(
        static_cast<int>(n), static_cast<T*>(op.out));
    TLAB_CUDA_LAUNCHED();
  });
  r.add(std::move(v));
}

}  // namespace

void register_gpu_inplace(Registry& r) {
  for (int b : {4, 8, 16, 32}) {
    Variant v = gpu_variant("gpu/inplace-naive/b" + std::to_string(b), "gpu-inplace-naive", Placement::in_place,
                            {{"block", std::to_string(b) + "x" + std::to_string(b)}},
                            "thread per element, the one below the diagonal swaps (seeds 000, 002)");
    v.kernels = instantiate<TLAB_GPU_MAIN_TYPES>([b](auto tag, const Operands& op) {
      using T = decltype(tag);
      const dim3 grid = grid_2d(ceil_div(op.shape.rows, b), ceil_div(op.shape.rows, b));
      transpose_inplace_naive<T><<<grid, dim3(b, b), 0, stream_of(op)>>>(static_cast<T*>(op.out), op.shape.rows);
      TLAB_CUDA_LAUNCHED();
    });
    r.add(std::move(v));
  }
  add_inplace_tiled<16, 16>(r);
  add_inplace_tiled<32, 8>(r);
  add_inplace_tiled<32, 32>(r);
  add_inplace_tiled_seed<4>(r);
  add_inplace_tiled_seed<8>(r);
  add_inplace_tiled_seed<16>(r);
  add_inplace_tiled_seed<32>(r);
}

}  // namespace tlab::gpu
