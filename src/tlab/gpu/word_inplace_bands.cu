// Word-wide in-place square transpose whose blocks swap P tile pairs at once: P tiles side by
// side in one tile row, (i, PJ) .. (i, PJ + P - 1), with their mirrors stacked in one tile
// column. Each row of the upper tiles is one piece P tiles wide, read and written by one
// block at one time, so where rows are off the L2's 256-byte units the units at the tiles'
// junctions are one block's, not two blocks' at different times. Float in 8-byte words, off
// a unit, two pairs a block: 89% of memcpy at 8200² against 82% for the plain pairs
// (performance notes, section 9, "Two pairs a block: pieces of two tiles on one side").
// Loads ask the L2 for 256 bytes, as the `-fetch256` pairs' do.
#include <algorithm>

#include "tlab/tile_pair_index.hpp"
#include "tlab/gpu/word_tile.cuh"

namespace tlab::gpu {
namespace {

using namespace word;

template <int S, int W, int P, int LAYOUT, int PF>
__global__ void __launch_bounds__(kThreads) transpose_bands(unsigned char* m, std::int64_t n, std::int64_t items) {
  extern __shared__ unsigned char smem_raw[];
  constexpr int side = Geometry<S, W>::side;
  constexpr int tile_words = side * kWords;
  Word<W>* upper = reinterpret_cast<Word<W>*>(smem_raw);  // tiles (i, PJ + p)
  Word<W>* lower = upper + P * tile_words;                  // their mirrors (PJ + p, i)
  const std::int64_t tiles = (n + side - 1) / side;
  for (std::int64_t k = blockIdx.x; k < items; k += gridDim.x) {
    std::int64_t i = 0, J = 0;
    band_item_of(k, P, i, J);
    const std::int64_t r = i * side;
    // Tile (i, j) is this item's where i <= j < tiles; it has a mirror to swap with where i < j.
#pragma unroll
    for (int p = 0; p < P; ++p) {
      const std::int64_t j = P * J + p;
      if (i <= j && j < tiles) load_tile<S, W, LAYOUT, PF>(upper + p * tile_words, m, n, n, r, j * side, n);
    }
#pragma unroll
    for (int p = 0; p < P; ++p) {
      const std::int64_t j = P * J + p;
      if (i < j && j < tiles) load_tile<S, W, LAYOUT, PF>(lower + p * tile_words, m, n, n, j * side, r, n);
    }
    __syncthreads();
#pragma unroll
    for (int p = 0; p < P; ++p) {  // the mirrors first: the upper row written as one piece, as it was read
      const std::int64_t j = P * J + p;
      if (i < j && j < tiles) store_tile_transposed<S, W, LAYOUT>(lower + p * tile_words, m, n, n, j * side, r, n);
    }
#pragma unroll
    for (int p = 0; p < P; ++p) {
      const std::int64_t j = P * J + p;
      if (i <= j && j < tiles) store_tile_transposed<S, W, LAYOUT>(upper + p * tile_words, m, n, n, r, j * side, n);
    }
    __syncthreads();
  }
}

// At most 64 KiB a block, so that three blocks share an SM: two pairs a block of 128 KiB, one
// an SM (uint16 in 8-byte words, double in 16-byte words), ran 11 to 31 points under the
// plain pairs.
constexpr std::size_t kBudget = 64 * 1024;

// One block an item of the walk over bands of P pairs; the grid strides only past 2^31 - 1 items.
template <typename Kernel> void launch_items(Kernel k, std::size_t smem, void* m, std::int64_t n, int side, int P,
                                             unsigned long long& smem_allowed, cudaStream_t stream) {
  allow_smem(k, smem, smem_allowed);
  const std::int64_t items = band_items(ceil_div(n, std::int64_t{side}), P);
  k<<<static_cast<unsigned>(std::min<std::int64_t>(items, 0x7fffffff)), kThreads, smem, stream>>>(
      static_cast<unsigned char*>(m), n, items);
  TLAB_CUDA_LAUNCHED();
}

// Rows off a word read and write element runs, as word_inplace.cu's pairs do outside their
// `-shifted` form: there is no shifted kernel here.
template <int S, int W, int P> void run_bands(void* m, std::int64_t n, cudaStream_t stream) {
  constexpr std::size_t smem = 2 * P * Geometry<S, W>::smem_bytes;
  static unsigned long long aligned_allowed = 0, by_element_allowed = 0;
  if (row_layout(m, m, n, n, S, W) == kAlignedRows)
    launch_items(transpose_bands<S, W, P, kAlignedRows, 256>, smem, m, n, Geometry<S, W>::side, P, aligned_allowed, stream);
  else
    launch_items(transpose_bands<S, W, P, kByElement, 256>, smem, m, n, Geometry<S, W>::side, P, by_element_allowed, stream);
}

constexpr const char* kCount[] = {"", "", "two", "three", "four"};

template <int W, int P> void add_bands(Registry& r) {
  static_assert(P >= 2 && P <= 4, "P = 1 is word_inplace.cu's pairs");
  Variant v = gpu_variant("gpu/word-inplace/w" + std::to_string(W) + "-" + kCount[P] + "-fetch256", "gpu-word-inplace",
                          Placement::in_place,
                          {{"word", std::to_string(W)}, {"loads", "fetch256"}, {"pairs", std::to_string(P)}},
                          std::string(kCount[P]) + " tile pairs a block, the upper tiles side by side, so that their "
                          "rows are pieces " + kCount[P] + " tiles wide; loads ask the L2 for the aligned 256 bytes "
                          "around them");
  v.kernels = instantiate_all([](auto tag, const Operands& op) {
    constexpr int S = sizeof(decltype(tag));
    if constexpr (fits_smem<S, W, 2 * P, kBudget>()) run_bands<S, W, P>(op.out, op.shape.rows, stream_of(op));
  });
  keep_fitting_types<W, 2 * P, kBudget>(v);
  r.add(std::move(v));
}

// Two pairs a block in three tiles of shared memory (`-held`), for 4-byte elements in 8-byte
// words and for 1 byte in 4-byte words (run_held says why its registers are not bounded):
// the second upper tile waits in registers (16 a thread) until a buffer is free, so that
// for float four blocks share an SM where the four tiles' 64 KiB allowed three. Float: 90-91% of
// memcpy at 8200² against 89 for the two-pair kernel, 96 against 92 at 4104² (performance
// notes, section 9, "Two pairs a block in three tiles of shared memory"). The upper row's
// stores go together, as in transpose_bands (the mirrors into both upper tiles' places); the
// held tile's own store comes last, from the buffer the first upper tile leaves. Holding
// tile (i, 2J + 1) in registers while other threads store into its place is safe as every
// pair kernel's loads are: loads issued before a barrier are performed before any store the
// block issues after it. Items on the diagonal or at the matrix's edge swap their pairs one
// after the other; rows off a word go to the two-pair kernel (run_held).
template <int S, int W, int PF, int MIN_BLOCKS>
__global__ void __launch_bounds__(kThreads, MIN_BLOCKS) transpose_two_held(unsigned char* m, std::int64_t n, std::int64_t items) {
  extern __shared__ unsigned char smem_raw[];
  constexpr int side = Geometry<S, W>::side;
  constexpr int tile_words = side * kWords;
  Word<W>* s0 = reinterpret_cast<Word<W>*>(smem_raw);
  Word<W>* s1 = s0 + tile_words;
  Word<W>* s2 = s1 + tile_words;
  const std::int64_t tiles = (n + side - 1) / side;
  for (std::int64_t k = blockIdx.x; k < items; k += gridDim.x) {
    std::int64_t i = 0, J = 0;
    band_item_of(k, 2, i, J);
    const std::int64_t r = i * side, c0 = 2 * J * side, c1 = c0 + side;
    if (i < 2 * J && c1 + side <= n) {  // two pairs off the diagonal, all four tiles whole: fetch has no bounds checks
      Word<W> x[kPerThread<S, W>];
      load_tile<S, W, kAlignedRows, PF>(s0, m, n, n, r, c0, n);
      fetch<S, W, PF>(x, m, n, r, c1);
      load_tile<S, W, kAlignedRows, PF>(s1, m, n, n, c0, r, n);
      load_tile<S, W, kAlignedRows, PF>(s2, m, n, n, c1, r, n);
      __syncthreads();
      store_tile_transposed<S, W, kAlignedRows>(s1, m, n, n, c0, r, n);
      store_tile_transposed<S, W, kAlignedRows>(s2, m, n, n, c1, r, n);
      store_tile_transposed<S, W, kAlignedRows>(s0, m, n, n, r, c0, n);
      __syncthreads();  // s0 read by every thread before any overwrites it
      deposit<S, W>(s0, x);
      __syncthreads();
      store_tile_transposed<S, W, kAlignedRows>(s0, m, n, n, r, c1, n);
      __syncthreads();
    } else {
#pragma unroll 1
      for (int q = 0; q < 2; ++q) {
        const std::int64_t j = 2 * J + q;
        if (i > j || j >= tiles) continue;  // the same for the whole block
        load_tile<S, W, kAlignedRows, PF>(s0, m, n, n, r, j * side, n);
        if (i < j) load_tile<S, W, kAlignedRows, PF>(s1, m, n, n, j * side, r, n);
        __syncthreads();
        if (i < j) store_tile_transposed<S, W, kAlignedRows>(s1, m, n, n, j * side, r, n);
        store_tile_transposed<S, W, kAlignedRows>(s0, m, n, n, r, j * side, n);
        __syncthreads();
      }
    }
  }
}

// The held path needs rows on words; rows off a word run the two-pair kernel, whose element
// runs hold nothing (its own pairs one after the other ran 4 points under it at float 8191²).
// MIN_BLOCKS bounds the registers so that that many blocks share an SM: 4 for float, where
// 64 registers hold the tile without spills; 1 (no bound) for uint8, whose 64 registers
// spilled (36 bytes: 71% of memcpy at 8200² on the H100 against 90 without the bound, with
// two blocks an SM; performance notes, section 9, "The held form's loss: spills or its late
// store").
template <int S, int W, int MIN_BLOCKS> void run_held(void* m, std::int64_t n, cudaStream_t stream) {
  if (row_layout(m, m, n, n, S, W) != kAlignedRows) return run_bands<S, W, 2>(m, n, stream);
  static unsigned long long smem_allowed = 0;
  launch_items(transpose_two_held<S, W, 256, MIN_BLOCKS>, 3 * Geometry<S, W>::smem_bytes, m, n, Geometry<S, W>::side, 2,
               smem_allowed, stream);
}

// 4-byte elements in 8-byte words, four blocks an SM; uint8 in 4-byte words, unbounded. Double,
// whose held form spilled under the bound and ran under the two-pair kernel without it (three
// blocks an SM against four), has none; nor has uint16, whose unbounded form ran 12 to 17
// points under `w4-two-fetch256` at 8192² to 16384² on the H200.
void add_held(Registry& r) {
  Variant v = gpu_variant("gpu/word-inplace/w8-two-held-fetch256", "gpu-word-inplace", Placement::in_place,
                          {{"word", "8"}, {"loads", "fetch256"}, {"pairs", "2"}, {"held", "1"}},
                          "two tile pairs a block in three tiles of shared memory, one upper tile held in registers, "
                          "so that four blocks share an SM; 4-byte elements");
  v.kernels = instantiate<std::int32_t, float>(
      [](auto, const Operands& op) { run_held<4, 8, 4>(op.out, op.shape.rows, stream_of(op)); });
  r.add(std::move(v));
  Variant w = gpu_variant("gpu/word-inplace/w4-two-held-fetch256", "gpu-word-inplace", Placement::in_place,
                          {{"word", "4"}, {"loads", "fetch256"}, {"pairs", "2"}, {"held", "1"}},
                          "two tile pairs a block in three tiles of shared memory, one upper tile held in registers "
                          "without a register bound; 1-byte elements");
  w.kernels = instantiate<std::uint8_t>([](auto, const Operands& op) { run_held<1, 4, 1>(op.out, op.shape.rows, stream_of(op)); });
  r.add(std::move(w));
}

}  // namespace

// Two pairs a block, in 4- and 8-byte words, and the held form for 4-byte elements: in 16-byte
// words complex128 ran level with the plain pairs, and double's four tiles take 128 KiB. Three
// and four pairs a block lost 3 to 12 points to two wherever they had one block an SM fewer,
// and uint16's three pairs, with as many, ran within 2 points of two (performance notes,
// section 9, "Three and four pairs a block").
void register_gpu_word_in_place_bands(Registry& r) {
  add_bands<4, 2>(r);
  add_bands<8, 2>(r);
  add_held(r);
}

}  // namespace tlab::gpu
