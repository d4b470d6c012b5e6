// Word-wide in-place square transpose whose blocks hold the next tile pair's words in
// registers while they store the present pair (performance notes, section 9, "The next pair's
// loads under the present pair's stores"). The tile-pair kernel of word_inplace.cu alternates
// a read phase and a write phase per block; where a pair takes most of an SM's shared memory
// (w16 for 4 bytes, w8 for 1 byte: 128 KiB, one block an SM), nothing else on the SM reads
// while it writes, and the pairs of 512-byte pieces that would spare the rows split at the
// 256-byte units lose more to the phases than they gain. Here each block walks the pairs k,
// k + grid, ...: the loads of pair k + grid are issued before the stores of pair k, so that
// both are in flight at once. Pairs are disjoint, so reading the next while writing the
// present is safe in place. Only inner pairs of a matrix whose rows are on words go through
// the registers; the others load as word_inplace.cu does. `w8-ahead-filled`, at the end,
// picks between `w8-ahead` and `w4-fetch256` for uint8 by how full the walk's rounds are.
#include <algorithm>
#include <stdexcept>

#include "tlab/tile_pair_index.hpp"
#include "tlab/gpu/word_inplace.cuh"
#include "tlab/gpu/word_tile.cuh"

namespace tlab::gpu {
namespace {

using namespace word;

template <int S, int W, int LAYOUT, int PF>
__global__ void __launch_bounds__(kThreads, 1) transpose_pairs_ahead(unsigned char* m, std::int64_t n, std::int64_t pairs) {
  extern __shared__ unsigned char smem_raw[];
  constexpr int side = Geometry<S, W>::side;
  Word<W>* a = reinterpret_cast<Word<W>*>(smem_raw);
  Word<W>* b = a + side * kWords;
  const std::int64_t whole = n / side;  // tiles wholly inside the matrix along a side
  Word<W> xa[kPerThread<S, W>], xb[kPerThread<S, W>];
  std::int64_t ti = 0, tj = 0;
  bool held = false;  // the pair's words are in xa, xb
  auto fetch_pair = [&](std::int64_t k, std::int64_t& i, std::int64_t& j) {
    pair_of(k, i, j);
    if (LAYOUT != kAlignedRows || j >= whole) return false;  // i <= j: both tiles inner when j is
    fetch<S, W, PF>(xa, m, n, i * side, j * side);
    if (i != j) fetch<S, W, PF>(xb, m, n, j * side, i * side);
    return true;
  };
  if (blockIdx.x < pairs) held = fetch_pair(blockIdx.x, ti, tj);
  for (std::int64_t k = blockIdx.x; k < pairs; k += gridDim.x) {
    const std::int64_t ar = ti * side, ac = tj * side;
    const bool diagonal = ti == tj;
    if (held) {
      deposit<S, W>(a, xa);
      if (!diagonal) deposit<S, W>(b, xb);
    } else {
      load_tile<S, W, LAYOUT, PF>(a, m, n, n, ar, ac, n);
      if (!diagonal) load_tile<S, W, LAYOUT, PF>(b, m, n, n, ac, ar, n);
    }
    __syncthreads();
    std::int64_t ni = 0, nj = 0;
    const bool next_held = k + gridDim.x < pairs && fetch_pair(k + gridDim.x, ni, nj);  // sets ni, nj either way
    store_tile_transposed<S, W, LAYOUT>(a, m, n, n, ar, ac, n);  // a^T into b's place
    if (!diagonal) store_tile_transposed<S, W, LAYOUT>(b, m, n, n, ac, ar, n);
    __syncthreads();
    ti = ni, tj = nj, held = next_held;
  }
}

template <int S, int W> constexpr std::size_t kPairSmem = 2 * Geometry<S, W>::smem_bytes;

// The blocks of the kernel that run at once: its grid, whose blocks walk the pairs.
template <int S, int W, int LAYOUT, int PF> std::int64_t resident_blocks() {
  static unsigned long long smem_allowed = 0;
  auto k = transpose_pairs_ahead<S, W, LAYOUT, PF>;
  allow_smem(k, kPairSmem<S, W>, smem_allowed);
  int per_sm = 0;
  TLAB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, kThreads, kPairSmem<S, W>));
  return std::int64_t{std::max(per_sm, 1)} * sm_count();
}

template <int S, int W, int LAYOUT, int PF> void launch(void* m, std::int64_t n, cudaStream_t stream) {
  const std::int64_t pairs = tile_pairs(n, Geometry<S, W>::side);
  const std::int64_t blocks = std::max<std::int64_t>(1, std::min(pairs, resident_blocks<S, W, LAYOUT, PF>()));
  transpose_pairs_ahead<S, W, LAYOUT, PF>
      <<<static_cast<unsigned>(blocks), kThreads, kPairSmem<S, W>, stream>>>(static_cast<unsigned char*>(m), n, pairs);
  TLAB_CUDA_LAUNCHED();
}

constexpr int kFetch = 256;  // the L2 fetch size of the loads (load_word.cuh)

template <int S, int W> void run_ahead(void* m, std::int64_t n, cudaStream_t stream) {
  // Rows off a word read element runs, as word_inplace.cu's plain pairs: no shifted kernel.
  if (row_layout(m, m, n, n, S, W) == kAlignedRows) launch<S, W, kAlignedRows, kFetch>(m, n, stream);
  else launch<S, W, kByElement, kFetch>(m, n, stream);
}

template <int W> void add_ahead(Registry& r) {
  Variant v = gpu_variant("gpu/word-inplace/w" + std::to_string(W) + "-ahead", "gpu-word-inplace", Placement::in_place,
                          {{"word", std::to_string(W)}, {"loads", "fetch256-ahead"}},
                          "tile pairs in whole W-byte words, loads asking the L2 for 256 bytes; each block holds the "
                          "next pair's words in registers while it stores the present pair");
  v.kernels = instantiate_all([](auto tag, const Operands& op) {
    constexpr int S = sizeof(decltype(tag));
    if constexpr (fits_smem<S, W, 2>()) run_ahead<S, W>(op.out, op.shape.rows, stream_of(op));
  });
  keep_fitting_types<W, 2>(v);
  r.add(std::move(v));
}

// `w8-ahead` where its pairs fill this share of its rounds' block slots, or more. Event-timed
// on the H200 it ran ahead of `w4-fetch256` at every whole-tile side measured from 0.954 of
// the slots up (by 0.1-4.7 points), level at 0.93-0.94 and behind at 0.89 and less (by 1.5-7
// points); Nsight Compute's single launches put the break-even higher, at 0.966 (performance
// notes, section 9, "`w8-ahead` where its rounds fill").
constexpr double kMinFill = 0.95;

// uint8 squares through `w8-ahead` where its rounds fill, else `w4-fetch256`. One block an SM
// walks `w8-ahead`'s pairs, so a last round of a few pairs leaves most SMs idle: at 8192² its
// 528 pairs fill four rounds of 132 and it runs 4 points over `w4-fetch256`, at 6144² 300
// pairs take three rounds and it runs 7 under. Both are found by name: this variant adds no
// kernel, and w8_ahead_filled_takes_ahead is its whole rule.
void add_filled(Registry& r) {
  const Variant* ahead = r.find("gpu/word-inplace/w8-ahead");
  const Variant* other = r.find("gpu/word-inplace/w4-fetch256");
  if (!ahead || !other || !ahead->supports(DType::u8) || !other->supports(DType::u8))
    throw std::logic_error("w8-ahead-filled: w8-ahead and w4-fetch256 must be registered for uint8 first");
  Variant v = gpu_variant("gpu/word-inplace/w8-ahead-filled", "gpu-word-inplace", Placement::in_place,
                          {{"word", "8"}, {"loads", "fetch256-ahead"}, {"else", "w4-fetch256"}},
                          "w8-ahead where the side is whole 256-byte tiles and its pairs fill 95% of its rounds' block "
                          "slots, else w4-fetch256");
  v.kernels[DType::u8] = [a = ahead->kernels.at(DType::u8), b = other->kernels.at(DType::u8)](const Operands& op) {
    if (w8_ahead_filled_takes_ahead(op.out, op.shape.rows)) a(op);
    else b(op);
  };
  r.add(std::move(v));
}

}  // namespace

double ahead_rounds_fill_w8_uint8(std::int64_t n) {
  constexpr int S = 1, W = 8;
  int dev = 0, optin = 0;
  TLAB_CUDA(cudaGetDevice(&dev));
  TLAB_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  const std::int64_t pairs = tile_pairs(n, Geometry<S, W>::side);
  if (pairs < 1 || static_cast<std::size_t>(optin) < kPairSmem<S, W>) return 0;  // no pair, or no block
  const std::int64_t slots = resident_blocks<S, W, kAlignedRows, kFetch>();
  return static_cast<double>(pairs) / static_cast<double>(ceil_div(pairs, slots) * slots);
}

// Sides of whole 256-byte tiles only: off them `w8-ahead`'s pieces split the L2's 256-byte
// units, where it lost more than its fill explains (8200², 0.85 of the slots: 71.5% of memcpy
// against `w4-fetch256`'s 82.4 in the H200 reference).
bool w8_ahead_filled_takes_ahead(const void* m, std::int64_t n) {
  return n % Geometry<1, 8>::side == 0 && row_layout(m, m, n, n, 1, 8) == kAlignedRows &&
         ahead_rounds_fill_w8_uint8(n) >= kMinFill;
}

void register_gpu_word_in_place_ahead(Registry& r) {
  add_ahead<4>(r);
  add_ahead<8>(r);
  add_ahead<16>(r);
  add_filled(r);
}

}  // namespace tlab::gpu
