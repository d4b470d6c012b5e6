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
// the registers; the others load as word_inplace.cu does.
#include <algorithm>

#include "tlab/gpu/tile_pair_index.cuh"
#include "tlab/gpu/word_tile.cuh"

namespace tlab::gpu {
namespace {

using namespace word;

template <int S, int W> constexpr int kPerThread = Geometry<S, W>::side / kRowsPerPass;  // words a thread loads a tile

// The thread's words of the inner tile at (r0, c0) of an n x n matrix whose rows are on words,
// in load_tile's order (its aligned fast path, split at the registers).
template <int S, int W, int PF>
__device__ __forceinline__ void fetch(Word<W> (&x)[kPerThread<S, W>], const unsigned char* m, std::int64_t n,
                                      std::int64_t r0, std::int64_t c0) {
  constexpr int E = Geometry<S, W>::E;
  const int w = threadIdx.x % kWords, r_first = threadIdx.x / kWords;
  const unsigned char* p = m + ((r0 + r_first) * n + c0 + static_cast<std::int64_t>(w) * E) * S;
  const std::int64_t step = kRowsPerPass * n * S;
#pragma unroll
  for (int k = 0; k < kPerThread<S, W>; ++k) x[k] = load_word<PF>(reinterpret_cast<const Word<W>*>(p + k * step));
}

template <int S, int W> __device__ __forceinline__ void deposit(Word<W>* sm, const Word<W> (&x)[kPerThread<S, W>]) {
  constexpr int E = Geometry<S, W>::E;
  const int w = threadIdx.x % kWords, r_first = threadIdx.x / kWords;
#pragma unroll
  for (int k = 0; k < kPerThread<S, W>; ++k) {
    const int r = r_first + k * kRowsPerPass;
    sm[r * kWords + swizzled<E>(r, w)] = x[k];
  }
}

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

template <int S, int W, int LAYOUT, int PF> void launch(void* m, std::int64_t n, cudaStream_t stream) {
  static unsigned long long smem_allowed = 0;
  constexpr std::size_t smem = 2 * Geometry<S, W>::smem_bytes;
  auto k = transpose_pairs_ahead<S, W, LAYOUT, PF>;
  allow_smem(k, smem, smem_allowed);
  int per_sm = 0;
  TLAB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, kThreads, smem));
  const std::int64_t t = ceil_div(n, Geometry<S, W>::side), pairs = t * (t + 1) / 2;
  const std::int64_t blocks = std::max<std::int64_t>(1, std::min<std::int64_t>(pairs, std::int64_t{std::max(per_sm, 1)} * sm_count()));
  k<<<static_cast<unsigned>(blocks), kThreads, smem, stream>>>(static_cast<unsigned char*>(m), n, pairs);
  TLAB_CUDA_LAUNCHED();
}

template <int S, int W> void run_ahead(void* m, std::int64_t n, cudaStream_t stream) {
  // Rows off a word read element runs, as word_inplace.cu's plain pairs: no shifted kernel.
  if (row_layout(m, m, n, n, S, W) == kAlignedRows) launch<S, W, kAlignedRows, 256>(m, n, stream);
  else launch<S, W, kByElement, 256>(m, n, stream);
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

}  // namespace

void register_gpu_word_in_place_ahead(Registry& r) {
  add_ahead<4>(r);
  add_ahead<8>(r);
  add_ahead<16>(r);
}

}  // namespace tlab::gpu
