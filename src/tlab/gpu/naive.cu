// Out-of-place naive kernels, one thread per element, square B x B blocks. The two seeds
// that wrote one chose opposite sides to coalesce, so both are here.
#include "tlab/gpu/launch.cuh"

namespace tlab::gpu {
namespace {

// Seed 001: consecutive threads read consecutive input elements; writes stride by `rows`.
template <typename T>
__global__ void transpose_naive_read_coalesced(const T* __restrict__ in, T* __restrict__ out,
                                               std::int64_t rows, std::int64_t cols) {
  const std::int64_t c = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (std::int64_t r = static_cast<std::int64_t>(blockIdx.y) * blockDim.y + threadIdx.y; r < rows;
       r += static_cast<std::int64_t>(gridDim.y) * blockDim.y)
    if (c < cols) out[c * rows + r] = in[r * cols + c];
}

// Seed 004: consecutive threads write consecutive output elements; reads stride by `cols`.
template <typename T>
__global__ void transpose_naive_write_coalesced(const T* __restrict__ in, T* __restrict__ out,
                                                std::int64_t rows, std::int64_t cols) {
  const std::int64_t oc = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;  // input row
  for (std::int64_t orow = static_cast<std::int64_t>(blockIdx.y) * blockDim.y + threadIdx.y; orow < cols;
       orow += static_cast<std::int64_t>(gridDim.y) * blockDim.y)
    if (oc < rows) out[orow * rows + oc] = in[oc * cols + orow];
}

}  // namespace

void register_gpu_naive(Registry& r) {
  for (int b : {4, 8, 16, 32}) {
    const std::vector<Param> params{{"block", std::to_string(b) + "x" + std::to_string(b)}};
    Variant rc = gpu_variant("gpu/naive-rowread/b" + std::to_string(b), "gpu-naive", Placement::out_of_place,
                             params, "thread per element, coalesced reads, strided writes (seed 001)");
    rc.kernels = instantiate_all([b](auto tag, const Operands& op) {
      using T = decltype(tag);
      const dim3 block(b, b);
      const dim3 grid = grid_2d(ceil_div(op.shape.cols, b), ceil_div(op.shape.rows, b));
      transpose_naive_read_coalesced<T><<<grid, block, 0, stream_of(op)>>>(
          static_cast<const T*>(op.in), static_cast<T*>(op.out), op.shape.rows, op.shape.cols);
      TLAB_CUDA_LAUNCHED();
    });
    r.add(std::move(rc));
    Variant wc = gpu_variant("gpu/naive-colread/b" + std::to_string(b), "gpu-naive", Placement::out_of_place,
                             params, "thread per element, strided reads, coalesced writes (seed 004)");
    wc.kernels = instantiate<TLAB_GPU_MAIN_TYPES>([b](auto tag, const Operands& op) {
      using T = decltype(tag);
      const dim3 block(b, b);
      const dim3 grid = grid_2d(ceil_div(op.shape.rows, b), ceil_div(op.shape.cols, b));
      transpose_naive_write_coalesced<T><<<grid, block, 0, stream_of(op)>>>(
          static_cast<const T*>(op.in), static_cast<T*>(op.out), op.shape.rows, op.shape.cols);
      TLAB_CUDA_LAUNCHED();
    });
    r.add(std::move(wc));
  }
}

}  // namespace tlab::gpu
