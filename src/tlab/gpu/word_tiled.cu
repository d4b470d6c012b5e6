// Word-wide out-of-place transposes (word_tile.cuh): every thread moves whole 4-, 8- or
// 16-byte words whatever the element size, so that 1- and 2-byte elements cost a warp as
// many memory instructions per byte as 16-byte ones do. A matrix whose rows do not start on
// a word boundary still runs: rows off a word through aligned words shifted into place, and
// a base pointer off a word through runs of whole elements, in the same tile.
// They take input and output pitches, so that a block of one matrix can be transposed into a
// block of another (the distributed transpose packs its exchange blocks so).
#include "tlab/gpu/word_tile.cuh"

namespace tlab::gpu {
namespace {

using namespace word;

// OutOrder: see TileOrder (launch.cuh).
template <int S, int W, int LAYOUT, bool OutOrder>
__global__ void __launch_bounds__(kThreads)
transpose_words(const unsigned char* __restrict__ in, unsigned char* __restrict__ out, std::int64_t rows,
                std::int64_t cols, std::int64_t in_pitch, std::int64_t out_pitch) {
  extern __shared__ unsigned char smem_raw[];
  Word<W>* sm = reinterpret_cast<Word<W>*>(smem_raw);
  constexpr int side = Geometry<S, W>::side;
  using Order = TileOrder<OutOrder>;
  const std::int64_t looped = Order::looped((rows + side - 1) / side, (cols + side - 1) / side);
  for (std::int64_t by = blockIdx.y; by < looped; by += gridDim.y) {
    const std::int64_t r0 = Order::row(by) * side, c0 = Order::col(by) * side;
    load_tile<S, W, LAYOUT>(sm, in, rows, cols, r0, c0, in_pitch);
    __syncthreads();
    store_tile_transposed<S, W, LAYOUT>(sm, out, rows, cols, r0, c0, out_pitch);
    __syncthreads();  // the next tile overwrites shared memory
  }
}

template <int S, int W, int LAYOUT, bool OutOrder> void launch(const Operands& op) {
  using G = Geometry<S, W>;
  static unsigned long long smem_allowed = 0;
  auto k = transpose_words<S, W, LAYOUT, OutOrder>;
  allow_smem(k, G::smem_bytes, smem_allowed);
  const dim3 grid = TileOrder<OutOrder>::grid(ceil_div(op.shape.rows, G::side), ceil_div(op.shape.cols, G::side));
  k<<<grid, kThreads, G::smem_bytes, stream_of(op)>>>(static_cast<const unsigned char*>(op.in),
                                                      static_cast<unsigned char*>(op.out), op.shape.rows, op.shape.cols,
                                                      op.in_pitch, op.out_pitch);
  TLAB_CUDA_LAUNCHED();
}

template <int W, bool OutOrder = false> void add_word(Registry& r) {
  Variant v = gpu_variant("gpu/word/w" + std::to_string(W) + (OutOrder ? "-out" : ""), "gpu-word", Placement::out_of_place,
                          {{"word", std::to_string(W)}},
                          OutOrder ? "whole W-byte words per thread, blocks in output-row order"
                                   : "whole W-byte words per thread, E x E element blocks transposed in registers");
  auto body = [](auto tag, const Operands& op) {
    constexpr int S = sizeof(decltype(tag));
    if constexpr (fits_smem<S, W, 1>()) {
      with_layout<S, W>(row_layout(op.in, op.out, op.shape.rows, op.shape.cols, S, W, op.in_pitch, op.out_pitch),
                        [&](auto layout) { launch<S, W, decltype(layout)::value, OutOrder>(op); });
    }
  };
  v.takes_in_pitch = v.takes_out_pitch = true;
  v.kernels = instantiate_all(body);
  keep_fitting_types<W, 1>(v);
  r.add(std::move(v));
}

}  // namespace

void register_gpu_word(Registry& r) {
  add_word<4>(r);
  add_word<8>(r);
  add_word<16>(r);
  // Output-row order (performance notes, section 9, "16-byte elements in geam's shape"): kept
  // for 4- and 8-byte words, where it measured the faster; 16-byte words gained nowhere.
  add_word<4, true>(r);
  add_word<8, true>(r);
}

}  // namespace tlab::gpu
