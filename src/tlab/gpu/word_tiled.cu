// Word-wide out-of-place transposes (word_tile.cuh): every thread moves whole 4-, 8- or
// 16-byte words whatever the element size, so that 1- and 2-byte elements cost a warp as
// many memory instructions per byte as 16-byte ones do. A matrix whose rows do not start on
// a word boundary still runs, through the element-by-element load and store of the same tile.
#include "tlab/gpu/word_tile.cuh"

namespace tlab::gpu {
namespace {

using namespace word;

template <int S, int W, int LAYOUT>
__global__ void __launch_bounds__(kThreads)
transpose_words(const unsigned char* __restrict__ in, unsigned char* __restrict__ out, std::int64_t rows,
                std::int64_t cols) {
  extern __shared__ unsigned char smem_raw[];
  Word<W>* sm = reinterpret_cast<Word<W>*>(smem_raw);
  constexpr int side = Geometry<S, W>::side;
  const std::int64_t c0 = static_cast<std::int64_t>(blockIdx.x) * side;
  const std::int64_t tiles_y = (rows + side - 1) / side;
  for (std::int64_t by = blockIdx.y; by < tiles_y; by += gridDim.y) {
    load_tile<S, W, LAYOUT>(sm, in, rows, cols, by * side, c0);
    __syncthreads();
    store_tile_transposed<S, W, LAYOUT>(sm, out, rows, cols, by * side, c0);
    __syncthreads();  // the next tile overwrites shared memory
  }
}

template <int S, int W, int LAYOUT> void launch(const Operands& op) {
  using G = Geometry<S, W>;
  static unsigned long long smem_allowed = 0;
  auto k = transpose_words<S, W, LAYOUT>;
  allow_smem(k, G::smem_bytes, smem_allowed);
  const dim3 grid = grid_2d(ceil_div(op.shape.cols, G::side), ceil_div(op.shape.rows, G::side));
  k<<<grid, kThreads, G::smem_bytes, stream_of(op)>>>(static_cast<const unsigned char*>(op.in),
                                                      static_cast<unsigned char*>(op.out), op.shape.rows, op.shape.cols);
  TLAB_CUDA_LAUNCHED();
}

template <int W> void add_word(Registry& r) {
  Variant v = gpu_variant("gpu/word/w" + std::to_string(W), "gpu-word", Placement::out_of_place,
                          {{"word", std::to_string(W)}},
                          "whole W-byte words per thread, E x E element blocks transposed in registers");
  auto body = [](auto tag, const Operands& op) {
    constexpr int S = sizeof(decltype(tag));
    if constexpr (fits_smem<S, W, 1>()) {
      with_layout<S, W>(row_layout(op.in, op.out, op.shape.rows, op.shape.cols, S, W),
                        [&](auto layout) { launch<S, W, decltype(layout)::value>(op); });
    }
  };
  v.kernels = instantiate_all(body);
  keep_fitting_types<W, 1>(v);
  r.add(std::move(v));
}

}  // namespace

void register_gpu_word(Registry& r) {
  add_word<4>(r);
  add_word<8>(r);
  add_word<16>(r);
}

}  // namespace tlab::gpu
