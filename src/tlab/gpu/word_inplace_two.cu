// Word-wide in-place square transpose whose blocks swap two tile pairs at once: two tiles
// side by side in one tile row, (i, 2J) and (i, 2J + 1), with their mirrors (2J, i) and
// (2J + 1, i), stacked in one tile column. Each row of the two upper tiles is one piece two
// tiles wide, read and written by one block at one time, so where rows are off the L2's
// 256-byte units the unit at the tiles' junction is one block's, not two blocks' at different
// times. Float in 8-byte words, off a unit: 89% of memcpy at 8200² against 82% for the plain
// pairs (performance notes, section 9, "Two pairs a block: pieces of two tiles on one side").
// Loads ask the L2 for 256 bytes, as the `-fetch256` pairs' do.
#include <algorithm>
#include <cmath>

#include "tlab/gpu/word_tile.cuh"

namespace tlab::gpu {
namespace {

using namespace word;

// Item k of the walk: super column J (tile columns 2J and 2J + 1), tile row i. Super column
// J has min(2J + 2, T) items (rows 0 .. 2J + 1, where row 2J + 1 is only its diagonal tile),
// so the items before it number J (J + 1) (only the last super column can be short).
__device__ __forceinline__ void item_of(std::int64_t k, std::int64_t& i, std::int64_t& J) {
  J = static_cast<std::int64_t>((sqrt(4.0 * static_cast<double>(k) + 1.0) - 1.0) / 2.0);
  while (J * (J + 1) > k) --J;
  while ((J + 1) * (J + 2) <= k) ++J;
  i = k - J * (J + 1);
}

__host__ __device__ constexpr std::int64_t items_of(std::int64_t tiles) {
  const std::int64_t supers = (tiles + 1) / 2;
  return (supers - 1) * supers + std::min<std::int64_t>(2 * (supers - 1) + 2, tiles);
}

template <int S, int W, int LAYOUT, int PF>
__global__ void __launch_bounds__(kThreads) transpose_two_pairs(unsigned char* m, std::int64_t n, std::int64_t items) {
  extern __shared__ unsigned char smem_raw[];
  constexpr int side = Geometry<S, W>::side;
  Word<W>* a0 = reinterpret_cast<Word<W>*>(smem_raw);
  Word<W>* a1 = a0 + side * kWords;
  Word<W>* b0 = a1 + side * kWords;
  Word<W>* b1 = b0 + side * kWords;
  const std::int64_t tiles = (n + side - 1) / side;
  for (std::int64_t k = blockIdx.x; k < items; k += gridDim.x) {
    std::int64_t i = 0, J = 0;
    item_of(k, i, J);
    const std::int64_t j0 = 2 * J, j1 = 2 * J + 1;
    const bool has0 = i <= j0, has1 = j1 < tiles;  // row 2J + 1 holds only tile (2J + 1, 2J + 1)
    const bool mirror0 = has0 && i != j0, mirror1 = has1 && i != j1;
    const std::int64_t r = i * side, c0 = j0 * side, c1 = j1 * side;
    if (has0) load_tile<S, W, LAYOUT, PF>(a0, m, n, n, r, c0, n);
    if (has1) load_tile<S, W, LAYOUT, PF>(a1, m, n, n, r, c1, n);
    if (mirror0) load_tile<S, W, LAYOUT, PF>(b0, m, n, n, c0, r, n);
    if (mirror1) load_tile<S, W, LAYOUT, PF>(b1, m, n, n, c1, r, n);
    __syncthreads();
    if (mirror0) store_tile_transposed<S, W, LAYOUT>(b0, m, n, n, c0, r, n);  // into a0's place
    if (mirror1) store_tile_transposed<S, W, LAYOUT>(b1, m, n, n, c1, r, n);  // into a1's place
    if (has0) store_tile_transposed<S, W, LAYOUT>(a0, m, n, n, r, c0, n);
    if (has1) store_tile_transposed<S, W, LAYOUT>(a1, m, n, n, r, c1, n);
    __syncthreads();
  }
}

template <int S, int W> constexpr std::size_t kSmem = 4 * Geometry<S, W>::smem_bytes;

// At most 64 KiB a block, so that three blocks share an SM: the blocks of 128 KiB, one an SM
// (uint16 in 8-byte words, double in 16-byte words), ran 11 to 31 points under the plain pairs.
constexpr std::size_t kBudget = 64 * 1024;

template <int S, int W, int LAYOUT> void launch(void* m, std::int64_t n, cudaStream_t stream) {
  static unsigned long long smem_allowed = 0;
  auto k = transpose_two_pairs<S, W, LAYOUT, 256>;
  allow_smem(k, kSmem<S, W>, smem_allowed);
  const std::int64_t items = items_of(ceil_div(n, Geometry<S, W>::side));
  k<<<static_cast<unsigned>(std::min<std::int64_t>(items, 0x7fffffff)), kThreads, kSmem<S, W>, stream>>>(
      static_cast<unsigned char*>(m), n, items);
  TLAB_CUDA_LAUNCHED();
}

// Rows off a word read and write element runs, as word_inplace.cu's pairs do outside their
// `-shifted` form: there is no shifted kernel here.
template <int S, int W> void run_two(void* m, std::int64_t n, cudaStream_t stream) {
  if (row_layout(m, m, n, n, S, W) == kAlignedRows) launch<S, W, kAlignedRows>(m, n, stream);
  else launch<S, W, kByElement>(m, n, stream);
}

template <int W> void add_two(Registry& r) {
  Variant v = gpu_variant("gpu/word-inplace/w" + std::to_string(W) + "-two-fetch256", "gpu-word-inplace",
                          Placement::in_place, {{"word", std::to_string(W)}, {"loads", "fetch256"}},
                          "two tile pairs a block, the upper tiles side by side, so that their rows are pieces two "
                          "tiles wide; loads ask the L2 for the aligned 256 bytes around them");
  v.kernels = instantiate_all([](auto tag, const Operands& op) {
    constexpr int S = sizeof(decltype(tag));
    if constexpr (fits_smem<S, W, 4, kBudget>()) run_two<S, W>(op.out, op.shape.rows, stream_of(op));
  });
  keep_fitting_types<W, 4, kBudget>(v);
  r.add(std::move(v));
}

}  // namespace

// 4- and 8-byte words: in 16-byte words complex128 ran level with the plain pairs, and
// double's four tiles take 128 KiB.
void register_gpu_word_in_place_two(Registry& r) {
  add_two<4>(r);
  add_two<8>(r);
}

}  // namespace tlab::gpu
