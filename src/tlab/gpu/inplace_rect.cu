// GPU passes of the in-place rectangular transpose: each gathers a batch of columns or rows
// into scratch memory (one thread per element; the index arithmetic is shared with the CPU
// code) and a strided copy puts the batch back.
#include <algorithm>
#include <map>

#include "tlab/gpu/device_buffer.cuh"
#include "tlab/gpu/inplace_rect.cuh"
#include "tlab/gpu/word_tile.cuh"
#include "tlab/inplace_rect_index.hpp"

namespace tlab::gpu {
namespace {

constexpr std::int64_t kScratchRows = 64;
constexpr int kBlock = 256;

enum class Pass { rotate, row_shuffle, column_shuffle };

// Column batch [j0, j0 + w): tmp (m x w) gets each element from the row the pass names.
template <int S, Pass P>
__global__ void gather_columns(const word::Word<S>* __restrict__ a, word::Word<S>* __restrict__ tmp, c2r::Params p,
                               std::int64_t j0, c2r::Divisor w) {
  const std::int64_t total = p.m * w.d, stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < total; k += stride) {
    const std::int64_t i = c2r::quot(k, w), j = j0 + k - i * w.d;
    const std::int64_t src = P == Pass::rotate ? c2r::rotate_source(p, i, j) : c2r::column_shuffle_source(p, i, j);
    tmp[k] = a[src * p.n + j];
  }
}

// Row batch [r0, r0 + h): tmp (h x n) gets each element of row r from the column the row
// shuffle names.
template <int S>
__global__ void gather_rows(const word::Word<S>* __restrict__ a, word::Word<S>* __restrict__ tmp, c2r::Params p,
                            std::int64_t r0, std::int64_t h) {
  const std::int64_t total = h * p.n, stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < total; k += stride) {
    const std::int64_t dr = c2r::quot(k, p.dn), r = r0 + dr, q = k - dr * p.n;
    tmp[k] = a[r * p.n + c2r::row_shuffle_source(p, r, q)];
  }
}

unsigned blocks_for(std::int64_t work) {
  return static_cast<unsigned>(std::clamp<std::int64_t>(ceil_div(work, kBlock), 1, 65535));
}

template <int S> void run(void* matrix, Shape s, void* scratch, cudaStream_t stream) {
  using Wd = word::Word<S>;
  const c2r::Params p = c2r::make_params(s.rows, s.cols);
  auto* a = static_cast<Wd*>(matrix);
  auto* tmp = static_cast<Wd*>(scratch);
  const std::int64_t scratch_elems = in_place_rect_scratch_bytes(s, S) / S;
  auto column_pass = [&](auto kernel) {
    const std::int64_t width = scratch_elems / p.m;
    for (std::int64_t j0 = 0; j0 < p.n; j0 += width) {
      const std::int64_t w = std::min(width, p.n - j0);
      kernel<<<blocks_for(p.m * w), kBlock, 0, stream>>>(a, tmp, p, j0, c2r::divisor(w));
      TLAB_CUDA_LAUNCHED();
      TLAB_CUDA(cudaMemcpy2DAsync(a + j0, p.n * S, tmp, w * S, w * S, p.m, cudaMemcpyDeviceToDevice, stream));
    }
  };
  if (p.c > 1) column_pass(gather_columns<S, Pass::rotate>);
  const std::int64_t height = scratch_elems / p.n;
  for (std::int64_t r0 = 0; r0 < p.m; r0 += height) {
    const std::int64_t h = std::min(height, p.m - r0);
    gather_rows<S><<<blocks_for(h * p.n), kBlock, 0, stream>>>(a, tmp, p, r0, h);
    TLAB_CUDA_LAUNCHED();
    TLAB_CUDA(cudaMemcpyAsync(a + r0 * p.n, tmp, h * p.n * S, cudaMemcpyDeviceToDevice, stream));
  }
  column_pass(gather_columns<S, Pass::column_shuffle>);
}

// The registered variant's scratch: one buffer per device, grown on demand and kept, so that
// timed repetitions do not allocate.
void* cached_scratch(std::int64_t bytes) {
  static std::map<int, DeviceBuffer> per_device;
  int dev = 0;
  TLAB_CUDA(cudaGetDevice(&dev));
  DeviceBuffer& b = per_device[dev];
  if (static_cast<std::int64_t>(b.bytes()) < bytes) b = DeviceBuffer(static_cast<std::size_t>(bytes));
  return b.get();
}

}  // namespace

std::int64_t in_place_rect_scratch_bytes(Shape s, int elem) {
  return std::min(s.elements(), kScratchRows * std::max(s.rows, s.cols)) * elem;
}

void transpose_in_place_rect(void* m, Shape s, int elem, void* scratch, cudaStream_t stream) {
  switch (elem) {
    case 1: return run<1>(m, s, scratch, stream);
    case 2: return run<2>(m, s, scratch, stream);
    case 4: return run<4>(m, s, scratch, stream);
    case 8: return run<8>(m, s, scratch, stream);
    case 16: return run<16>(m, s, scratch, stream);
  }
  throw std::invalid_argument("in-place rectangular transpose: element size " + std::to_string(elem) +
                              " is not 1, 2, 4, 8 or 16 bytes");
}

void register_gpu_inplace_rect(Registry& r) {
  Variant v = gpu_variant("gpu/inplace-rect/c2r", "gpu-inplace-rect", Placement::in_place,
                          {{"scratch_rows", std::to_string(kScratchRows)}},
                          "any m x n in place: column rotate, row shuffle, column shuffle (Catanzaro et al. 2014)");
  v.any_shape = true;
  v.scratch_bytes = [](DType t, Shape s) { return in_place_rect_scratch_bytes(s, static_cast<int>(dtype_size(t))); };
  v.kernels = instantiate_all([](auto tag, const Operands& op) {
    constexpr int S = sizeof(decltype(tag));
    c2r::make_params(op.shape.rows, op.shape.cols);  // refuses before any allocation
    void* scratch = op.scratch ? op.scratch : cached_scratch(in_place_rect_scratch_bytes(op.shape, S));
    transpose_in_place_rect(op.out, op.shape, S, scratch, stream_of(op));
  });
  r.add(std::move(v));
}

}  // namespace tlab::gpu
