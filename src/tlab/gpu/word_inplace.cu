// Word-wide in-place transpose of a square matrix: the tiles of word_tile.cuh, one block per
// tile pair. Only the T(T+1)/2 blocks that own a pair (tile (i, j) with i <= j and its mirror)
// are launched, so no block starts just to exit. The g x g blocks of a larger matrix go in
// one launch (gridDim.y), for the rectangular block decomposition.

#include "tlab/gpu/word_inplace.cuh"
#include "tlab/tile_pair_index.hpp"
#include "tlab/gpu/word_tile.cuh"

#include <string>

namespace tlab::gpu {
namespace {

using namespace word;

// How a variant takes the edge tiles of rows off a word: by the element path (as every tile
// before session 40); the pairs of a last tile column cut by the matrix's edge by the inner
// tiles' paths with bounds (word_tile.cuh, edge_by_rows), in a branch of their own so that
// the inner pairs run the plain code; or so, with those pairs launched first. At 8191² of
// bytes the 64 pairs of the last column hold full tiles but one element and came last
// (performance notes, section 9, "Edge tiles at the inner tiles' speed").
enum class Edges { elements, bounded, bounded_first };

// Blocks an SM holds of the plain kernel on sm_90 (ptxas -v of nvcc 13: 60 registers for
// bytes in 4-byte words, 48 for 2 bytes, 72 for 4 bytes in 8-byte words), which the edge
// variants keep: their edge branch raised the register count to the next step down in blocks
// (uint16 52 registers, 4 blocks instead of 5).
template <int S, int W, Edges D>
constexpr int kMinBlocks = D == Edges::elements ? 1 : (S == 2 && W == 4) ? 5 : (W == 8 && S != 1) ? 3 : 4;

// Tile pair (ti, tj): both tiles loaded, then each stored transposed into the other's place.
// EDGES: word_tile.cuh's bounded paths for the tiles the matrix's edge cuts.
template <int S, int W, int LAYOUT, int STORE, int PF, bool EDGES>
__device__ __forceinline__ void swap_pair(Word<W>* a, Word<W>* b, unsigned char* m, std::int64_t n, std::int64_t ld,
                                          std::int64_t ti, std::int64_t tj) {
  constexpr int side = Geometry<S, W>::side;
  const std::int64_t ar = ti * side, ac = tj * side;  // tile a at (ar, ac), its mirror b at (ac, ar)
  load_tile<S, W, LAYOUT, PF, EDGES>(a, m, n, n, ar, ac, ld);
  if (ti != tj) load_tile<S, W, LAYOUT, PF, EDGES>(b, m, n, n, ac, ar, ld);
  __syncthreads();
  store_tile_transposed<S, W, STORE, EDGES>(a, m, n, n, ar, ac, ld);  // a^T into b's place
  if (ti != tj) store_tile_transposed<S, W, STORE, EDGES>(b, m, n, n, ac, ar, ld);
}

template <int S, int W, int LAYOUT, int STORE, int PF = 0, Edges D = Edges::elements>
__global__ void __launch_bounds__(kThreads, kMinBlocks<S, W, D>)
    transpose_words_in_place(unsigned char* base, std::int64_t n, std::int64_t pairs, std::int64_t count,
                             std::int64_t ld, std::int64_t per_row) {
  extern __shared__ unsigned char smem_raw[];
  constexpr int side = Geometry<S, W>::side;
  Word<W>* a = reinterpret_cast<Word<W>*>(smem_raw);
  Word<W>* b = a + side * kWords;
  const std::int64_t tiles = (n + side - 1) / side;
  for (std::int64_t y = blockIdx.y; y < count; y += gridDim.y)
  for (std::int64_t k = blockIdx.x; k < pairs; k += gridDim.x) {
    unsigned char* m = base + ((y / per_row) * n * ld + (y % per_row) * n) * S;  // block y of a grid per_row wide
    std::int64_t ti = 0, tj = 0;
    // The last tile column's pairs are the last `tiles` of the count; first, they come first.
    pair_of(D == Edges::bounded_first ? (k < tiles ? pairs - tiles + k : k - tiles) : k, ti, tj);
    if (D != Edges::elements && tj == tiles - 1 && n % side)  // the same for the whole block
      swap_pair<S, W, LAYOUT, STORE, PF, true>(a, b, m, n, ld, ti, tj);
    else
      swap_pair<S, W, LAYOUT, STORE, PF, false>(a, b, m, n, ld, ti, tj);
    __syncthreads();
  }
}

template <int S, int W> constexpr std::size_t pair_smem() { return 2 * Geometry<S, W>::smem_bytes; }

template <int S, int W, int LAYOUT, int STORE = LAYOUT, int PF = 0, Edges D = Edges::elements>
void launch(void* m, std::int64_t n, std::int64_t count, std::int64_t ld, std::int64_t per_row, cudaStream_t stream) {
  static unsigned long long smem_allowed = 0;
  auto k = transpose_words_in_place<S, W, LAYOUT, STORE, PF, D>;
  allow_smem(k, pair_smem<S, W>(), smem_allowed);
  const std::int64_t pairs = tile_pairs(n, Geometry<S, W>::side);
  const unsigned blocks = static_cast<unsigned>(std::min<std::int64_t>(pairs, 0x7fffffff));
  const dim3 grid(blocks, static_cast<unsigned>(std::min(count, kMaxGridY)));
  k<<<grid, kThreads, pair_smem<S, W>(), stream>>>(static_cast<unsigned char*>(m), n, pairs, count, ld, per_row);
  TLAB_CUDA_LAUNCHED();
}

// How a variant reads its tiles' rows where they are off a word: element runs, or aligned
// words shifted into place (fewer L2 requests, more instructions; which wins depends on the
// element size and GPU, performance notes, section 9, "Contiguous elements at odd sides" and
// "Shifted words for the loads only"); or element runs and whole words whose loads ask the L2
// for the aligned 256 bytes around them, so that a row piece off 256-byte units brings the
// rest of its end units along (load_word.cuh; "Loads that ask L2 for whole lines"). Rows
// off a word are stored element by element, 32 consecutive elements a warp instruction; the
// shifted stores of the out-of-place kernels measured no faster in place, and slower once the
// loads were shifted and fetched (uint16 8191² 74 against 82% of memcpy on the H100). Shifted
// loads with the fetch (`-shifted-fetch256`) gained where either gained alone: float 8191²
// in 8-byte words 90 against 87 for the best other pair (performance notes, section 9, "Rows
// off a word: shifted words with the 256-byte fetch, and shifted stores").
enum class Loads { elements, shifted, fetch256, shifted_fetch256 };
constexpr bool reads_shifted(Loads l) { return l == Loads::shifted || l == Loads::shifted_fetch256; }
constexpr int prefetch_bytes(Loads l) { return l == Loads::fetch256 || l == Loads::shifted_fetch256 ? 256 : 0; }

// A load mode's name suffix, its "loads" parameter and its registry description.
struct LoadsName {
  const char *suffix, *param, *what;
};
constexpr LoadsName kLoadsNames[] = {
    {"", "elements", "tile pairs swapped through shared memory in whole W-byte words; only pair-owning blocks launched"},
    {"-shifted", "shifted", "tile pairs in whole W-byte words; rows off a word read as aligned words shifted into place"},
    {"-fetch256", "fetch256",
     "tile pairs in whole W-byte words; loads ask the L2 for the aligned 256 bytes around them, so rows off 256-byte "
     "units fetch their pieces' end units whole"},
    {"-shifted-fetch256", "shifted-fetch256",
     "tile pairs in whole W-byte words; rows off a word read as aligned words shifted into place, the loads asking the "
     "L2 for the aligned 256 bytes around them"}};

template <int S, int W, Loads L = Loads::elements, Edges D = Edges::elements>
void run_in_place(void* m, std::int64_t n, std::int64_t count, std::int64_t ld, std::int64_t per_row, cudaStream_t stream) {
  const Layout l = row_layout(m, m, n, n, S, W);  // ld is a multiple of n: its rows sit on words when n's do
  constexpr int PF = prefetch_bytes(L);
  if constexpr (S < W && reads_shifted(L)) {
    if (l == kShiftedRows) return launch<S, W, kShiftedRows, kByElement, PF, D>(m, n, count, ld, per_row, stream);
  }
  with_layout<S, W>(l == kShiftedRows ? kByElement : l, [&](auto layout) {
    constexpr int lay = decltype(layout)::value;
    launch<S, W, lay, lay, PF, D>(m, n, count, ld, per_row, stream);
  });
}

// An edge mode's name suffix and its "edges" parameter (none for the element path).
constexpr const char* kEdgesSuffix[] = {"", "-edges", "-edges-first"};
constexpr const char* kEdgesParam[] = {"elements", "bounded", "bounded-first"};

template <int W, Loads L, Edges D = Edges::elements> void add_word_in_place(Registry& r) {
  const LoadsName& name = kLoadsNames[static_cast<int>(L)];
  const int d = static_cast<int>(D);
  std::vector<Param> params{{"word", std::to_string(W)}, {"loads", name.param}};
  if (D != Edges::elements) params.push_back({"edges", kEdgesParam[d]});
  Variant v = gpu_variant("gpu/word-inplace/w" + std::to_string(W) + name.suffix + kEdgesSuffix[d], "gpu-word-inplace",
                          Placement::in_place, params,
                          std::string(name.what) +
                              (D == Edges::elements ? ""
                               : D == Edges::bounded ? "; edge tiles by the inner tiles' paths with bounds"
                                                     : "; edge tiles by the inner paths with bounds, the last column's pairs first"));
  v.kernels = instantiate_all([](auto tag, const Operands& op) {
    constexpr int S = sizeof(decltype(tag));
    if constexpr (fits_smem<S, W, 2>()) run_in_place<S, W, L, D>(op.out, op.shape.rows, 1, op.shape.rows, 1, stream_of(op));
  });
  keep_fitting_types<W, 2>(v);
  // Whole-element words have no rows off a word: a shifted variant (or one for edges off a
  // word) would repeat its unshifted one.
  for (auto it = v.kernels.begin(); (reads_shifted(L) || D != Edges::elements) && it != v.kernels.end();)
    it = dtype_size(it->first) >= W ? v.kernels.erase(it) : std::next(it);
  r.add(std::move(v));
}

}  // namespace

// The word size per element size that the H100 and H200 tuning tables chose for squares.
void transpose_square_blocks_in_place(void* m, std::int64_t n, std::int64_t count, std::int64_t ld, std::int64_t per_row,
                                      int elem, cudaStream_t stream) {
  switch (elem) {
    case 1: return run_in_place<1, 4>(m, n, count, ld, per_row, stream);
    case 2: return run_in_place<2, 8>(m, n, count, ld, per_row, stream);
    case 4: return run_in_place<4, 8>(m, n, count, ld, per_row, stream);
    case 8: return run_in_place<8, 16>(m, n, count, ld, per_row, stream);
    case 16: return run_in_place<16, 16>(m, n, count, ld, per_row, stream);
  }
  throw std::invalid_argument("square in-place transpose: element size " + std::to_string(elem) +
                              " is not 1, 2, 4, 8 or 16 bytes");
}

template <Loads L> void add_every_word(Registry& r) {
  add_word_in_place<4, L>(r);
  add_word_in_place<8, L>(r);
  add_word_in_place<16, L>(r);
}

void register_gpu_word_in_place(Registry& r) {
  add_every_word<Loads::elements>(r);
  add_every_word<Loads::shifted>(r);
  add_every_word<Loads::fetch256>(r);
  add_every_word<Loads::shifted_fetch256>(r);
  add_word_in_place<4, Loads::shifted_fetch256, Edges::bounded>(r);
  add_word_in_place<8, Loads::shifted_fetch256, Edges::bounded>(r);
  add_word_in_place<4, Loads::shifted_fetch256, Edges::bounded_first>(r);
}

}  // namespace tlab::gpu
