// Word-wide in-place square transpose whose blocks swap P tile pairs at once: P tiles side by
// side in one tile row, (i, PJ) .. (i, PJ + P - 1), with their mirrors stacked in one tile
// column. Each row of the upper tiles is one piece P tiles wide, read and written by one
// block at one time, so where rows are off the L2's 256-byte units the units at the tiles'
// junctions are one block's, not two blocks' at different times. Float in 8-byte words, off
// a unit, two pairs a block: 89% of memcpy at 8200² against 82% for the plain pairs
// (performance notes, section 9, "Two pairs a block: pieces of two tiles on one side").
// Loads ask the L2 for 256 bytes, as the `-fetch256` pairs' do.
#include <algorithm>

#include "tlab/gpu/tile_pair_index.cuh"
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
    for (int p = 0; p < P; ++p) {  // mirrors into the upper tiles' places
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

template <int S, int W, int P> constexpr std::size_t kSmem = 2 * P * Geometry<S, W>::smem_bytes;

// At most 64 KiB a block, so that three blocks share an SM: two pairs a block of 128 KiB, one
// an SM (uint16 in 8-byte words, double in 16-byte words), ran 11 to 31 points under the
// plain pairs.
constexpr std::size_t kBudget = 64 * 1024;

template <int S, int W, int P, int LAYOUT> void launch(void* m, std::int64_t n, cudaStream_t stream) {
  static unsigned long long smem_allowed = 0;
  auto k = transpose_bands<S, W, P, LAYOUT, 256>;
  allow_smem(k, kSmem<S, W, P>, smem_allowed);
  const std::int64_t items = band_items(ceil_div(n, Geometry<S, W>::side), P);
  k<<<static_cast<unsigned>(std::min<std::int64_t>(items, 0x7fffffff)), kThreads, kSmem<S, W, P>, stream>>>(
      static_cast<unsigned char*>(m), n, items);
  TLAB_CUDA_LAUNCHED();
}

// Rows off a word read and write element runs, as word_inplace.cu's pairs do outside their
// `-shifted` form: there is no shifted kernel here.
template <int S, int W, int P> void run_bands(void* m, std::int64_t n, cudaStream_t stream) {
  if (row_layout(m, m, n, n, S, W) == kAlignedRows) launch<S, W, P, kAlignedRows>(m, n, stream);
  else launch<S, W, P, kByElement>(m, n, stream);
}

constexpr const char* kCount[] = {"", "one", "two", "three", "four"};

template <int W, int P> void add_bands(Registry& r) {
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

// Two pairs a block in three tiles of shared memory (`-held`): the second upper tile waits in
// registers, 16 a thread, until a buffer is free, so that four blocks share an SM where the
// four tiles' 64 KiB allowed three. Float: 90-91% of memcpy at 8200² against 89 for the
// two-pair kernel, 96 against 92 at 4104² (performance notes, section 9, "Two pairs a block in
// three tiles of shared memory"); uint8 and double lost 6-10 points and are not registered.
// The upper row's stores go together, as in transpose_bands (the mirrors into both upper
// tiles' places); the held tile's own store comes last, after its words reach the buffer the
// first upper tile leaves. Items on the diagonal, at the edge or with rows off a word swap
// their pairs one after the other.
template <int S, int W, int LAYOUT, int PF>
__global__ void __launch_bounds__(kThreads, 4) transpose_two_held(unsigned char* m, std::int64_t n, std::int64_t items) {
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
    const bool held = LAYOUT == kAlignedRows && i < 2 * J && c1 + side <= n;  // two whole pairs off the diagonal
    if (held) {
      Word<W> x[kPerThread<S, W>];
      load_tile<S, W, kAlignedRows, PF>(s0, m, n, n, r, c0, n);
      fetch<S, W, PF>(x, m, n, r, c1);
      load_tile<S, W, kAlignedRows, PF>(s1, m, n, n, c0, r, n);
      load_tile<S, W, kAlignedRows, PF>(s2, m, n, n, c1, r, n);
      __syncthreads();
      store_tile_transposed<S, W, kAlignedRows>(s1, m, n, n, c0, r, n);  // the mirrors into the upper row
      store_tile_transposed<S, W, kAlignedRows>(s2, m, n, n, c1, r, n);
      store_tile_transposed<S, W, kAlignedRows>(s0, m, n, n, r, c0, n);
      __syncthreads();
      deposit<S, W>(s0, x);
      __syncthreads();
      store_tile_transposed<S, W, kAlignedRows>(s0, m, n, n, r, c1, n);
    } else {  // the item's pairs one after the other
#pragma unroll 1
      for (int q = 0; q < 2; ++q) {
        const std::int64_t j = 2 * J + q;
        if (i > j || j >= tiles) continue;  // the same for the whole block
        load_tile<S, W, LAYOUT, PF>(s0, m, n, n, r, j * side, n);
        if (i < j) load_tile<S, W, LAYOUT, PF>(s1, m, n, n, j * side, r, n);
        __syncthreads();
        if (i < j) store_tile_transposed<S, W, LAYOUT>(s1, m, n, n, j * side, r, n);
        store_tile_transposed<S, W, LAYOUT>(s0, m, n, n, r, j * side, n);
        __syncthreads();
      }
    }
    __syncthreads();
  }
}

template <int S, int W, int LAYOUT> void launch_held(void* m, std::int64_t n, cudaStream_t stream) {
  static unsigned long long smem_allowed = 0;
  auto k = transpose_two_held<S, W, LAYOUT, 256>;
  constexpr std::size_t smem = 3 * Geometry<S, W>::smem_bytes;
  allow_smem(k, smem, smem_allowed);
  const std::int64_t items = band_items(ceil_div(n, Geometry<S, W>::side), 2);
  k<<<static_cast<unsigned>(std::min<std::int64_t>(items, 0x7fffffff)), kThreads, smem, stream>>>(
      static_cast<unsigned char*>(m), n, items);
  TLAB_CUDA_LAUNCHED();
}

// 4-byte elements in 8-byte words only: the 48 KiB of three tiles keep four blocks an SM for
// them; uint8 in 4-byte words (64 registers, spills) and double (four blocks an SM already)
// ran 6-10 points under the two-pair kernel.
void add_held(Registry& r) {
  Variant v = gpu_variant("gpu/word-inplace/w8-two-held-fetch256", "gpu-word-inplace", Placement::in_place,
                          {{"word", "8"}, {"loads", "fetch256"}, {"pairs", "2"}},
                          "two tile pairs a block in three tiles of shared memory, one upper tile held in registers, "
                          "so that four blocks share an SM; 4-byte elements");
  v.kernels = instantiate_all([](auto tag, const Operands& op) {
    constexpr int S = sizeof(decltype(tag));
    if constexpr (S == 4) {
      if (row_layout(op.out, op.out, op.shape.rows, op.shape.rows, S, 8) == kAlignedRows)
        launch_held<S, 8, kAlignedRows>(op.out, op.shape.rows, stream_of(op));
      else
        launch_held<S, 8, kByElement>(op.out, op.shape.rows, stream_of(op));
    }
  });
  for (auto it = v.kernels.begin(); it != v.kernels.end();) it = dtype_size(it->first) == 4 ? std::next(it) : v.kernels.erase(it);
  r.add(std::move(v));
}

}  // namespace

// Two pairs a block, in 4- and 8-byte words (and the held form for 4-byte elements): in
// 16-byte words complex128 ran level with the plain pairs, and double's four tiles take 128 KiB. Three and four pairs a block (96 and 64
// KiB) ran 1 to 11 points under two for every type and side measured, on whole units too
// (performance notes, section 9, "Three and four pairs a block").
void register_gpu_word_in_place_bands(Registry& r) {
  add_bands<4, 2>(r);
  add_bands<8, 2>(r);
  add_held(r);
}

}  // namespace tlab::gpu
