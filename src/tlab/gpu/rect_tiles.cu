// Rectangular tiles, TR rows x TC columns: each input row a tile touches is read as TC
// consecutive elements and each output row is written as TR. Written for the zero-copy
// (mapped) host transpose, where the rate at a 64 KiB pitch depends on how long the pieces
// are; the shapes below pull the read side (TC) and the write side (TR) apart, so that one
// run says which of the two sets the cost (docs/performance-notes.md, section 6). On device
// memory they are more tile shapes. They take an output pitch, so that the pipeline can have
// them store a block straight into its place in a host matrix.
#include "tlab/gpu/launch.cuh"

namespace tlab::gpu {
namespace {

// Block: 32 x SIDE threads. A warp reads TC/32 consecutive 32-element pieces of one row, and
// writes TR/32 consecutive pieces of one output row. +1 column: a column of the tile
// spans all banks (4-byte elements).
template <typename T, int TR, int TC, int SIDE>
__global__ void __launch_bounds__(32 * SIDE)
transpose_rect(const T* __restrict__ in, T* __restrict__ out, std::int64_t rows, std::int64_t cols, std::int64_t out_pitch) {
  static_assert(TR % 32 == 0 && TC % 32 == 0 && TR % SIDE == 0 && TC % SIDE == 0, "tile shape");
  __shared__ T tile[TR][TC + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t c0 = static_cast<std::int64_t>(blockIdx.x) * TC;
  const std::int64_t tiles_y = (rows + TR - 1) / TR;
  for (std::int64_t by = blockIdx.y; by < tiles_y; by += gridDim.y) {
    const std::int64_t r0 = by * TR;
#pragma unroll
    for (int k = 0; k < TR; k += SIDE)
#pragma unroll
      for (int j = 0; j < TC; j += 32) {
        const std::int64_t r = r0 + ty + k, c = c0 + tx + j;
        if (r < rows && c < cols) tile[ty + k][tx + j] = in[r * cols + c];
      }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TC; k += SIDE)
#pragma unroll
      for (int j = 0; j < TR; j += 32) {
        const std::int64_t orow = c0 + ty + k, ocol = r0 + tx + j;  // output is cols x rows
        if (orow < cols && ocol < rows) out[orow * out_pitch + ocol] = tile[tx + j][ty + k];
      }
    __syncthreads();
  }
}

template <typename T, int TR, int TC> constexpr bool rect_fits() { return sizeof(T) * TR * (TC + 1) <= 48 * 1024; }

template <int TR, int TC, int SIDE> void add_rect(Registry& r) {
  Variant v = gpu_variant("gpu/rect/r" + std::to_string(TR) + "c" + std::to_string(TC) + "x" + std::to_string(SIDE),
                          "gpu-rect", Placement::out_of_place,
                          {{"tile_rows", std::to_string(TR)}, {"tile_cols", std::to_string(TC)}, {"side", std::to_string(SIDE)}},
                          "rectangular shared-memory tile: TC-element pieces of input rows read, TR-element pieces of output rows written");
  v.takes_out_pitch = true;
  v.kernels = instantiate<TLAB_GPU_MAIN_TYPES>([](auto tag, const Operands& op) {
    using T = decltype(tag);
    if constexpr (rect_fits<T, TR, TC>()) {
      const dim3 grid = grid_2d(ceil_div(op.shape.cols, TC), ceil_div(op.shape.rows, TR));
      transpose_rect<T, TR, TC, SIDE><<<grid, dim3(32, SIDE), 0, stream_of(op)>>>(
          static_cast<const T*>(op.in), static_cast<T*>(op.out), op.shape.rows, op.shape.cols,
          op.out_pitch > 0 ? op.out_pitch : op.shape.rows);
      TLAB_CUDA_LAUNCHED();
    } else {
      throw std::logic_error("tile does not fit in 48 KiB of shared memory");
    }
  });
  for (auto it = v.kernels.begin(); it != v.kernels.end();) {
    const bool fits = dispatch_dtype(it->first, [](auto tag) { return rect_fits<decltype(tag), TR, TC>(); });
    it = fits ? std::next(it) : v.kernels.erase(it);
  }
  r.add(std::move(v));
}

}  // namespace

void register_gpu_rect(Registry& r) {
  // Long reads, 128-byte writes (float).
  add_rect<32, 128, 8>(r);
  add_rect<32, 256, 8>(r);
  // 128-byte reads, long writes.
  add_rect<64, 32, 8>(r);
  add_rect<128, 32, 8>(r);
  add_rect<256, 32, 8>(r);
  add_rect<128, 32, 16>(r);  // twice the threads: more reads in flight
  // Long on both sides.
  add_rect<64, 128, 8>(r);
  add_rect<128, 64, 8>(r);
}

}  // namespace tlab::gpu
