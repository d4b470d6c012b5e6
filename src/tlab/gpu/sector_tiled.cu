// Sector-cut out-of-place transpose, for matrices whose rows do not start on a 32-byte
// sector (an 8191-wide matrix of bytes, say). The word kernels (word_tiled.cu) cut every
// output row at element indices: a block's piece of a row then starts and ends inside a
// sector shared with the next block, which costs partial stores and a second store
// instruction per row (performance notes, section 9, "Shifted rows, measured").
//
// Here a block owns, for each of its J output rows, the 256 bytes of that row between two
// sector boundaries (its `window`): every output word it stores is whole and aligned, and no
// sector is written by two blocks except where one output row ends and the next begins.
// Because each output row starts at its own offset in its first sector (its skew), the
// window of row j holds elements kk*256/S - skew_j .. onwards, so a block reads the
// 32/S source rows before its windows too.
//
// Two phases through one column-major tile in shared memory: (1) fill it from the source
// rows, (2) a warp takes whole output rows and stores each aligned word of the row's window,
// read from the row's column at the row's skew. Elements of 4 bytes and more are loaded one
// per thread. Elements of 1 and 2 bytes come in 4-byte words, E = 4/S of them, shifted and
// transposed in registers (performance notes, section 9, "Lean sector-cut").
#include "tlab/gpu/word_tile.cuh"

namespace tlab::gpu {
namespace {

using word::kThreads;
using word::Word;

constexpr int kWindow = 256;          // output bytes per row per block
constexpr int kWarps = kThreads / 32;

// The aligned W-byte word at `at`, with the bytes outside [lo, hi) zero: a word that
// straddles either end of the matrix is read byte by byte, so no access leaves it.
template <int W> __device__ __forceinline__ Word<W> load_within(const unsigned char* at, const unsigned char* lo,
                                                                const unsigned char* hi) {
  if (at >= lo && at + W <= hi) return *reinterpret_cast<const Word<W>*>(at);
  Word<W> v{};
#pragma unroll
  for (int b = 0; b < W; ++b)
    if (at + b >= lo && at + b < hi) word::set_element<1, W>(v, b, at[b]);
  return v;
}

// ---- Elements of 4 bytes and more: one element per thread and load.
template <int S> struct Whole {
  static constexpr int J = 64;                              // output rows (source columns) per block
  static constexpr int window = kWindow / S, pad = 32 / S;  // pad: source rows before the window, the skew's room
  static constexpr int span = pad + window;                 // source rows a block reads
  static constexpr int out_words = kWindow / S;             // output elements per row per block
  static constexpr int tile_pitch = (span + 1) | 1;         // odd: 32 lanes storing one row's columns do not meet
  static constexpr std::size_t smem_bytes = static_cast<std::size_t>(J) * tile_pitch * S;
};

template <int S>
__global__ void __launch_bounds__(kThreads, 4)
transpose_sector_whole(const unsigned char* __restrict__ in, unsigned char* __restrict__ out, std::int64_t rows,
                       std::int64_t cols, std::int64_t in_pitch, std::int64_t out_pitch) {
  using G = Whole<S>;
  constexpr int J = G::J;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  Word<S>* tile = reinterpret_cast<Word<S>*>(smem_raw);  // J columns of the span's rows
  const std::int64_t row_bytes = in_pitch * S, out_row_bytes = out_pitch * S;
  const std::int64_t kk = blockIdx.x;               // window index along the output rows
  const std::int64_t b0 = kk * G::window - G::pad;  // first source row of the block
  const std::int64_t groups = (cols + J - 1) / J;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (std::int64_t grp = blockIdx.y; grp < groups; grp += gridDim.y) {
    const std::int64_t j0 = grp * J;  // first source column = first output row
    // (1) Every load of the thread in flight before its first store. A thread keeps one
    // column and steps down the rows, so its addresses are one base and a stride.
    constexpr int rpp = kThreads / J, passes = (G::span + rpp - 1) / rpp;
    const int c = threadIdx.x % J, r_first = threadIdx.x / J;
    const bool inside = b0 >= 0 && b0 + G::span <= rows && j0 + J <= cols;
    // A byte offset, added to `in` only under the guard: the first window's rows start
    // before the matrix, and a pointer formed there would be undefined even unread.
    const std::int64_t at = ((b0 + r_first) * in_pitch + j0 + c) * S;
    Word<S> v[passes];
#pragma unroll
    for (int u = 0; u < passes; ++u) {
      const int r = r_first + u * rpp;
      const std::int64_t gr = b0 + r;
      v[u] = Word<S>{};
      if (inside ? (G::span % rpp == 0 || r < G::span) : (r < G::span && gr >= 0 && gr < rows && j0 + c < cols))
        v[u] = *reinterpret_cast<const Word<S>*>(in + (at + u * rpp * row_bytes));
    }
#pragma unroll
    for (int u = 0; u < passes; ++u) {
      const int r = r_first + u * rpp;
      if (G::span % rpp == 0 || r < G::span) tile[c * G::tile_pitch + r] = v[u];
    }
    __syncthreads();
    // (2) A warp takes whole output rows, so that the row's address, skew and bounds are
    // worked out once per row; its lanes store consecutive aligned elements of the window.
    const std::uintptr_t out_lo = reinterpret_cast<std::uintptr_t>(out);
    for (int jj = warp; jj < J; jj += kWarps) {
      const std::int64_t oj = j0 + jj;
      if (oj >= cols) break;
      const std::uintptr_t row_start = out_lo + static_cast<std::uintptr_t>(oj * out_row_bytes);
      const int skew = static_cast<int>(row_start & 31) / S;
      const std::int64_t c_window = kk * G::window - skew;  // element of the window's first word
      const int i0 = G::pad - skew;                         // its source row, local
      auto* dst = reinterpret_cast<Word<S>*>((row_start & ~std::uintptr_t{31}) + static_cast<std::uintptr_t>(kk * kWindow));
      const bool whole = c_window >= 0 && c_window + G::window <= rows;
#pragma unroll
      for (int t = 0; t < (G::out_words + 31) / 32; ++t) {
        const int q = lane + 32 * t;
        if (G::out_words % 32 && q >= G::out_words) break;  // 16-byte elements: 16 a row
        // The row's first or last window: only the elements inside the row.
        if (whole || (c_window + q >= 0 && c_window + q < rows)) dst[q] = tile[jj * G::tile_pitch + i0 + q];
      }
    }
    __syncthreads();  // the next column group overwrites shared memory
  }
}

// ---- Elements of 1 and 2 bytes: 4-byte words of E = 4/S elements, so that every load,
// shared-memory access and store moves a whole word. Bound by instruction issue when written
// as the whole-element kernel is (performance notes, section 9), so the address work is
// taken out of the inner loops:
//  - a block owns J = 31 E output rows, so that a warp loads the 32 aligned words under one
//    source row's J elements and the 31st lane's shift takes the 32nd lane's word by the same
//    shuffle as every other lane (the 32nd lane's own block goes to a dump column);
//  - a thread loads all its words (E rows of each of `passes` groups) from one pointer and
//    constant strides before it shifts any, and each row's shift is the low bits of its
//    address, recomputed in 32 bits;
//  - blocks whose rows and windows all lie inside the matrix run bodies without bounds.
template <int S> struct Small {
  static constexpr int W = 4, E = W / S;
  static constexpr int J = 31 * E;
  static constexpr int window = kWindow / S, pad = 32 / S, span = pad + window;
  static constexpr int groups = span / E;        // groups of E source rows: one word each per lane
  static constexpr int passes = groups / kWarps;  // a warp's groups
  // Word g of column c at g ^ (c / E), as in word_tile.cuh: 32 lanes storing one group's
  // columns, and a warp reading 32 consecutive words of one column, each meet every bank once.
  static constexpr int pitch = (groups + 31) / 32 * 32;
  static constexpr std::size_t smem_bytes = static_cast<std::size_t>(J + E) * pitch * W;
  static_assert(S < 4 && span % E == 0 && groups % kWarps == 0, "");
};

template <int S, bool Inside>
__device__ __forceinline__ void small_load(unsigned (&v)[Small<S>::passes][Small<S>::E], const unsigned char* in,
                                           const unsigned char* in_end, std::int64_t rows, std::int64_t row_bytes,
                                           std::int64_t b0, std::int64_t j0) {
  using G = Small<S>;
  constexpr int E = G::E;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  // Byte (b0 + warp E, j0) plus the lane's word: the aligned word at or below each row's
  // address is the lane's. Groups of a pass are kWarps groups apart, rows of a group one row.
  const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(in) +
                            static_cast<std::uintptr_t>((b0 + warp * E) * row_bytes + j0 * S + 4 * lane);
  const std::uintptr_t step = static_cast<std::uintptr_t>(row_bytes), pass_step = step * (kWarps * E);
#pragma unroll
  for (int p = 0; p < G::passes; ++p)
#pragma unroll
    for (int e = 0; e < E; ++e) {
      const auto* word = reinterpret_cast<const unsigned char*>((at + p * pass_step + e * step) & ~std::uintptr_t{3});
      if constexpr (Inside) {
        v[p][e] = __ldg(reinterpret_cast<const unsigned*>(word));
      } else {
        const std::int64_t r = b0 + (warp + kWarps * p) * E + e;
        v[p][e] = r >= 0 && r < rows ? load_within<4>(word, in, in_end) : 0u;
      }
    }
}

template <int S>
__device__ __forceinline__ void small_fill(const unsigned (&v)[Small<S>::passes][Small<S>::E], unsigned* tile,
                                           unsigned at_lo, unsigned step_lo) {
  using G = Small<S>;
  constexpr int E = G::E;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  unsigned* col = tile + lane * E * G::pitch;
#pragma unroll
  for (int p = 0; p < G::passes; ++p) {
    unsigned rowv[E], colv[E];
#pragma unroll
    for (int e = 0; e < E; ++e) {
      const unsigned sh = (at_lo + static_cast<unsigned>(p * kWarps * E + e) * step_lo) << 3;  // modulo 32 below
      rowv[e] = __funnelshift_r(v[p][e], __shfl_down_sync(0xffffffffu, v[p][e], 1), sh);
    }
    word::transpose_block<S, 4>(rowv, colv);
    unsigned* dst = col + ((warp ^ lane) ^ (p * kWarps));  // group warp + p kWarps, and warp < kWarps
#pragma unroll
    for (int t = 0; t < E; ++t) dst[t * G::pitch] = colv[t];
  }
}

template <int S, bool Whole>
__device__ __forceinline__ void small_drain(const unsigned* __restrict__ tile, unsigned char* out, std::int64_t rows,
                                            std::int64_t cols, std::int64_t out_pitch, std::int64_t kk,
                                            std::int64_t j0) {
  using G = Small<S>;
  constexpr int E = G::E;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::uintptr_t row_step = static_cast<std::uintptr_t>(out_pitch * S);
  std::uintptr_t row_start = reinterpret_cast<std::uintptr_t>(out) + static_cast<std::uintptr_t>(j0 + warp) * row_step;
  const std::uintptr_t window_off = static_cast<std::uintptr_t>(kk * kWindow + 4 * lane);
  const int rows_here = cols - j0 < G::J ? static_cast<int>(cols - j0) : G::J;
#pragma unroll 1
  for (int jj = warp; jj < rows_here; jj += kWarps, row_start += kWarps * row_step) {
    const int skew_bytes = static_cast<int>(row_start & 31);
    const int b = 32 - skew_bytes;  // the window's first byte in the column (source row pad - skew)
    const unsigned sh = static_cast<unsigned>(b) << 3;
    const unsigned* c = tile + jj * G::pitch;
    const int m = jj / E, k = (b >> 2) + lane;
    // m < 32: word k + 32 is at x0 + 32. At skew 0 the last lane's second word reads slot
    // groups ^ m, never written (still below pitch); a funnel shift by 0 discards it.
    const int x0 = k ^ m, x1 = (k + 1) ^ m;
    auto* dst = reinterpret_cast<unsigned*>((row_start & ~std::uintptr_t{31}) + window_off);
#pragma unroll
    for (int t = 0; t < 2; ++t) {
      const unsigned v = __funnelshift_r(c[x0 + 32 * t], c[x1 + 32 * t], sh);
      if constexpr (Whole) {
        dst[32 * t] = v;
      } else {  // the row's first or last window: only the elements inside the row
        const std::int64_t e0 = kk * G::window - skew_bytes / S + (lane + 32 * t) * E;
        if (e0 >= 0 && e0 + E <= rows) {
          dst[32 * t] = v;
        } else {
#pragma unroll
          for (int e = 0; e < E; ++e)
            if (e0 + e >= 0 && e0 + e < rows) reinterpret_cast<Word<S>*>(dst + 32 * t)[e] = word::element_of<S, 4>(v, e);
        }
      }
    }
  }
}

template <int S>
__global__ void __launch_bounds__(kThreads, 3)
transpose_sector_small(const unsigned char* __restrict__ in, unsigned char* __restrict__ out, std::int64_t rows,
                       std::int64_t cols, std::int64_t in_pitch, std::int64_t out_pitch) {
  using G = Small<S>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  unsigned* tile = reinterpret_cast<unsigned*>(smem_raw);
  // total: from `in` to just past the last row's last element (rows in_pitch elements apart).
  const std::int64_t row_bytes = in_pitch * S, total = (rows - 1) * row_bytes + cols * S;
  const std::int64_t kk = blockIdx.x, b0 = kk * G::window - G::pad;
  const bool whole = kk >= 1 && (kk + 1) * G::window <= rows;  // every window inside its output row
  const std::int64_t groups = (cols + G::J - 1) / G::J;
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  unsigned v[G::passes][G::E];
  for (std::int64_t grp = blockIdx.y; grp < groups; grp += gridDim.y) {
    const std::int64_t j0 = grp * G::J, off0 = b0 * row_bytes + j0 * S;
    // Every word the block loads (32 from each row's first byte, rounded down) is in the matrix.
    if (b0 >= 0 && b0 + G::span <= rows && off0 >= 4 && off0 + (G::span - 1) * row_bytes + 128 <= total)
      small_load<S, true>(v, in, in + total, rows, row_bytes, b0, j0);
    else
      small_load<S, false>(v, in, in + total, rows, row_bytes, b0, j0);
    // The low 32 bits of small_load's first address: the rows' shifts.
    const unsigned at_lo = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(in)) +
                           static_cast<unsigned>(b0 + warp * G::E) * static_cast<unsigned>(row_bytes) +
                           static_cast<unsigned>(j0 * S) + 4u * lane;
    small_fill<S>(v, tile, at_lo, static_cast<unsigned>(row_bytes));
    __syncthreads();
    if (whole)
      small_drain<S, true>(tile, out, rows, cols, out_pitch, kk, j0);
    else
      small_drain<S, false>(tile, out, rows, cols, out_pitch, kk, j0);
    __syncthreads();  // the next column group overwrites shared memory
  }
}

template <int S> void launch(const Operands& op) {
  static unsigned long long smem_allowed = 0;
  const auto go = [&](auto kernel, std::size_t smem, int J) {
    word::allow_smem(kernel, smem, smem_allowed);
    const std::int64_t windows = ceil_div(op.shape.rows * S + 32, kWindow);
    const dim3 grid = grid_2d(windows, ceil_div(op.shape.cols, J));
    kernel<<<grid, kThreads, smem, stream_of(op)>>>(static_cast<const unsigned char*>(op.in),
                                                    static_cast<unsigned char*>(op.out), op.shape.rows, op.shape.cols,
                                                    op.in_pitch ? op.in_pitch : op.shape.cols,
                                                    op.out_pitch ? op.out_pitch : op.shape.rows);
    TLAB_CUDA_LAUNCHED();
  };
  if constexpr (S < 4)
    go(transpose_sector_small<S>, Small<S>::smem_bytes, Small<S>::J);
  else
    go(transpose_sector_whole<S>, Whole<S>::smem_bytes, Whole<S>::J);
}

}  // namespace

void register_gpu_sector(Registry& r) {
  Variant v = gpu_variant("gpu/word/sector-cut", "gpu-word", Placement::out_of_place, {{"window", "256"}, {"word", "4"}},
                          "each block owns whole 32-byte sectors of its output rows, cut at the row's own "
                          "offset; aligned words whatever the rows' alignment");
  v.kernels = instantiate_all([](auto tag, const Operands& op) { launch<sizeof(decltype(tag))>(op); });
  // A block of one matrix into a block of another: each output row's skew is taken from its
  // own address, so rows a pitch apart cost nothing more than dense ones.
  v.takes_in_pitch = v.takes_out_pitch = true;
  r.add(std::move(v));
}

}  // namespace tlab::gpu
