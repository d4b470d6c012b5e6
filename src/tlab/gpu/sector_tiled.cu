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
// Two phases through one column-major tile in shared memory. (1) A thread loads the aligned
// W-byte words (W = 4 or 8; whole elements from 4 bytes up) under E = W/S consecutive source
// rows at one word column, shifts each row's bytes to the block's first column with its
// neighbour lane's word (word_tile.cuh's shfl_word and bytes_from), transposes the E x E
// block in registers as the word kernels do, and stores E column words. (2) A warp takes whole output
// rows and stores each aligned word of the row's window, read from its column at the row's
// skew with one more funnel shift.
#include "tlab/gpu/word_tile.cuh"

namespace tlab::gpu {
namespace {

using word::kThreads;
using word::Word;

// S-byte elements in words of at least WMIN bytes (4, or 8: an 8 x 8 block of bytes per thread).
template <int S, int WMIN> struct Sector {
  static constexpr int W = S < WMIN ? WMIN : S;      // bytes per word
  static constexpr int E = W / S;                    // elements per word
  static constexpr int J = 64;                       // output rows (source columns) per block
  static constexpr int kWindow = 256;                // output bytes per row per block
  static constexpr int window = kWindow / S;         // ... in elements
  static constexpr int pad = 32 / S;                 // source rows before the window: the skew's room
  static constexpr int span = pad + window;          // source rows a block reads
  static constexpr int out_words = kWindow / W;      // output words per row per block
  static constexpr int wpr = J * S / W;              // words under a source row's J elements (E > 1)
  static constexpr int banks = 128 / W;              // W-byte words in one shared-memory wavefront
  // Column pitch in words. Below W bytes: a multiple of `banks`, word k of column c at
  // k ^ swizzle(c), so that neither the E x E blocks' column stores (the lanes of a wavefront
  // at columns E*w + t of one or more row groups) nor a warp's consecutive words of one column
  // meet in a bank. Whole elements: odd, so that 32 lanes storing one row's columns do not meet.
  static constexpr int tile_pitch = E > 1 ? ((span / E) | (banks - 1)) + 1 : ((span + 1) | 1);
  static constexpr std::size_t tile_bytes = static_cast<std::size_t>(J) * tile_pitch * W;
  static constexpr std::size_t smem_bytes = tile_bytes + (E > 1 ? span * W : 0);  // + each row's last word
  static_assert(span % E == 0 && J % E == 0, "whole E x E blocks");
  __device__ static int swizzle(int c) { return (c / E) * (wpr < banks ? banks / wpr : 1) % banks; }
};

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

template <int S, int WMIN>
__global__ void __launch_bounds__(kThreads, 4)
transpose_sector_cut(const unsigned char* __restrict__ in, unsigned char* __restrict__ out, std::int64_t rows,
                     std::int64_t cols) {
  using G = Sector<S, WMIN>;
  constexpr int W = G::W, E = G::E, J = G::J;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  Word<W>* tile = reinterpret_cast<Word<W>*>(smem_raw);  // J columns of the span's rows
  const unsigned char* in_end = in + rows * cols * S;
  const std::int64_t row_bytes = cols * S, out_row_bytes = rows * S;
  const std::int64_t kk = blockIdx.x;               // window index along the output rows
  const std::int64_t b0 = kk * G::window - G::pad;  // first source row of the block
  const std::int64_t groups = (cols + J - 1) / J;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (std::int64_t grp = blockIdx.y; grp < groups; grp += gridDim.y) {
    const std::int64_t j0 = grp * J;  // first source column = first output row
    // (1) Every load of the thread in flight before its first store. A thread keeps one
    // column (or word) and steps down the rows, so its addresses are one base and a stride.
    if constexpr (E == 1) {
      constexpr int rpp = kThreads / J, passes = (G::span + rpp - 1) / rpp;
      const int c = threadIdx.x % J, r_first = threadIdx.x / J;
      const bool inside = b0 >= 0 && b0 + G::span <= rows && j0 + J <= cols;
      const unsigned char* at = in + ((b0 + r_first) * cols + j0 + c) * S;
      Word<W> v[passes];
#pragma unroll
      for (int u = 0; u < passes; ++u) {
        const int r = r_first + u * rpp;
        const std::int64_t gr = b0 + r;
        v[u] = Word<W>{};
        if (inside ? (G::span % rpp == 0 || r < G::span) : (r < G::span && gr >= 0 && gr < rows && j0 + c < cols))
          v[u] = *reinterpret_cast<const Word<W>*>(at + u * rpp * row_bytes);
      }
#pragma unroll
      for (int u = 0; u < passes; ++u) {
        const int r = r_first + u * rpp;
        if (G::span % rpp == 0 || r < G::span) tile[c * G::tile_pitch + r] = v[u];
      }
    } else {
      Word<W>* edge = reinterpret_cast<Word<W>*>(smem_raw + G::tile_bytes);
      // Lanes over the first wpr words of a row; the word after them, which the row's last
      // lane needs for its shift, is loaded by a second, shorter set of loads into `edge`.
      constexpr int wpr = G::wpr, gpp = kThreads / wpr, ngroups = G::span / E;
      constexpr int passes = (ngroups + gpp - 1) / gpp, edge_loads = (G::span + kThreads - 1) / kThreads;
      // Byte offset of (b0 + r, j0) from `in`; the aligned word under it is found from the
      // absolute address, so `in` may sit anywhere in a word.
      const std::int64_t off0 = b0 * row_bytes + j0 * S;
      const std::uintptr_t first0 = reinterpret_cast<std::uintptr_t>(in) + static_cast<std::uintptr_t>(off0);
      const auto first_byte = [&](int r) { return first0 + static_cast<std::uintptr_t>(r * row_bytes); };
      // No word under the block's bytes leaves the matrix: its first word starts at or after
      // `in`, its rows' last words (wpr + 1 of them) end at or before the matrix's end.
      const bool inside = b0 >= 0 && off0 >= W && off0 + (G::span - 1) * row_bytes + W * (wpr + 1) <= rows * row_bytes;
      const int w = threadIdx.x % wpr, g_first = threadIdx.x / wpr;
      const auto word_at = [&](int r, int word) -> Word<W> {
        const auto* a = reinterpret_cast<const unsigned char*>((first_byte(r) & ~static_cast<std::uintptr_t>(W - 1)) + W * word);
        if (inside) return *reinterpret_cast<const Word<W>*>(a);
        if (b0 + r < 0 || b0 + r >= rows) return Word<W>{};
        return load_within<W>(a, in, in_end);
      };
      Word<W> v[passes][E], x[edge_loads];
#pragma unroll
      for (int p = 0; p < passes; ++p)
#pragma unroll
        for (int e = 0; e < E; ++e) {
          const int g = g_first + p * gpp;
          v[p][e] = ngroups % gpp == 0 || g < ngroups ? word_at(g * E + e, w) : Word<W>{};
        }
#pragma unroll
      for (int u = 0; u < edge_loads; ++u) {
        const int r = threadIdx.x + u * kThreads;
        x[u] = r < G::span ? word_at(r, wpr) : Word<W>{};
      }
#pragma unroll
      for (int u = 0; u < edge_loads; ++u) {
        const int r = threadIdx.x + u * kThreads;
        if (r < G::span) edge[r] = x[u];
      }
      __syncthreads();
#pragma unroll
      for (int p = 0; p < passes; ++p) {
        const int g = g_first + p * gpp;
        Word<W> rowv[E], colv[E];
#pragma unroll
        for (int e = 0; e < E; ++e) {
          const int r = g * E + e;
          // The next lane's word; the row's last lane (whose next lane is another row's, or
          // none) takes the row's extra word instead.
          Word<W> next = word::shfl_word<word::Shfl::down, W>(v[p][e], 1);
          if (w == wpr - 1) next = edge[r < G::span ? r : 0];
          rowv[e] = word::bytes_from<W>(v[p][e], next, static_cast<int>(first_byte(r) & (W - 1)));
        }
        if (ngroups % gpp == 0 || g < ngroups) {
          word::transpose_block<S, W>(rowv, colv);
#pragma unroll
          for (int t = 0; t < E; ++t) {
            const int c = w * E + t;
            tile[c * G::tile_pitch + (g ^ G::swizzle(c))] = colv[t];
          }
        }
      }
    }
    __syncthreads();
    // (2) A warp takes whole output rows, so that the row's address, skew and bounds are
    // worked out once per row; its lanes store consecutive aligned words of the window.
    const std::uintptr_t out_lo = reinterpret_cast<std::uintptr_t>(out);
    for (int jj = warp; jj < J; jj += kThreads / 32) {
      const std::int64_t oj = j0 + jj;
      if (oj >= cols) break;
      const std::uintptr_t row_start = out_lo + static_cast<std::uintptr_t>(oj * out_row_bytes);
      const int skew = static_cast<int>(row_start & 31) / S;
      const std::int64_t c_window = kk * G::window - skew;  // element of the window's first word
      const int i0 = G::pad - skew;                         // its source row, local
      unsigned char* dst = reinterpret_cast<unsigned char*>((row_start & ~std::uintptr_t{31}) +
                                                           static_cast<std::uintptr_t>(kk * G::kWindow));
      const bool whole = c_window >= 0 && c_window + G::window <= rows;
#pragma unroll
      for (int t = 0; t < (G::out_words + 31) / 32; ++t) {
        const int q = lane + 32 * t;
        if (G::out_words % 32 && q >= G::out_words) break;  // 16-byte elements: 16 words a row
        Word<W> v;
        if constexpr (E == 1) {
          v = tile[jj * G::tile_pitch + i0 + q];
        } else {
          const Word<W>* col = tile + jj * G::tile_pitch;
          const int k = (i0 * S) / W + q, m = G::swizzle(jj);
          v = word::bytes_from<W>(col[k ^ m], col[(k + 1) ^ m], (i0 * S) % W);
        }
        Word<W>* at = reinterpret_cast<Word<W>*>(dst) + q;
        if (whole) {
          *at = v;
        } else {  // the row's first or last window: only the elements inside the row
          const std::int64_t c = c_window + static_cast<std::int64_t>(q) * E;
#pragma unroll
          for (int e = 0; e < E; ++e)
            if (c + e >= 0 && c + e < rows) reinterpret_cast<Word<S>*>(at)[e] = word::element_of<S, W>(v, e);
        }
      }
    }
    __syncthreads();  // the next column group overwrites shared memory
  }
}

// The same cut for 1- and 2-byte elements, with the address work taken out of the inner
// loops (performance notes, section 9, "Lean sector-cut"): a warp loads the 32 aligned words
// under one source row's J = 31 E elements, so the word that the 31st lane's shift needs is
// the 32nd lane's own (no edge buffer); every thread steps one pointer down its rows; and a
// block whose rows and windows all lie inside the matrix runs a body without a single bound.
template <int S, int LOADS = 12, int MINB = 4> struct Lean {
  static constexpr int min_blocks = MINB;
  static constexpr int W = 4, E = W / S;
  static constexpr int J = 31 * E;                  // output rows per block: 31 words of a source row
  static constexpr int kWindow = 256, window = kWindow / S, pad = 32 / S, span = pad + window;
  static constexpr int warps = kThreads / 32;
  static constexpr int groups = span / E;            // groups of E source rows, one word each per lane
  static constexpr int passes = groups / warps;      // a warp's groups
  static constexpr int chunk = LOADS / E < groups / (kThreads / 32) ? LOADS / E : groups / (kThreads / 32);  // passes whose loads are in flight together
  // Word g of column c at g ^ (c / E), as in word_tile.cuh: 31 lanes storing one group's
  // columns, and a warp reading 32 consecutive words of one column, each meet every bank once.
  static constexpr int pitch = (groups + 31) / 32 * 32;
  static constexpr int out_words = kWindow / W;
  // Columns J .. J + E - 1 take the 32nd lane's block, which is never read: a store every lane
  // makes costs nothing, a branch around it costs a convergence barrier and its addressing.
  static constexpr std::size_t smem_bytes = static_cast<std::size_t>(J + E) * pitch * W;
  static_assert(S < 4 && span % E == 0 && groups % warps == 0 && out_words == 64, "");
};

template <typename G, int S, bool Inside>
__device__ __forceinline__ void lean_fill(unsigned* __restrict__ tile, const unsigned char* in, const unsigned char* in_end,
                                          std::int64_t rows, std::int64_t row_bytes, std::int64_t b0, std::int64_t j0) {
  constexpr int E = G::E;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  // Byte (b0 + warp E, j0) plus the lane's word: the aligned word at or below this address
  // is the lane's, and its low two bits are the row's shift. Groups of a pass are `warps`
  // groups apart; rows of a group one row apart.
  std::uintptr_t at = reinterpret_cast<std::uintptr_t>(in) +
                      static_cast<std::uintptr_t>((b0 + warp * E) * row_bytes + j0 * S + 4 * lane);
  const std::uintptr_t step = static_cast<std::uintptr_t>(row_bytes), pass_step = step * (G::warps * E);
  unsigned* col = tile + lane * E * G::pitch + (warp ^ lane);
#pragma unroll
  for (int c0 = 0; c0 < G::passes; c0 += G::chunk) {
    constexpr int n = G::chunk;
    unsigned v[n][E], sh[n][E];
#pragma unroll
    for (int p = 0; p < n; ++p)
#pragma unroll
      for (int e = 0; e < E; ++e) {
        v[p][e] = 0;
        sh[p][e] = 0;
        if (c0 + p >= G::passes) continue;
        const std::uintptr_t a = at + static_cast<std::uintptr_t>(p) * pass_step + e * step;
        sh[p][e] = static_cast<unsigned>(a) << 3;  // funnel shifts take it modulo 32
        const auto* word = reinterpret_cast<const unsigned char*>(a & ~std::uintptr_t{3});
        if constexpr (Inside) {
          v[p][e] = __ldg(reinterpret_cast<const unsigned*>(word));
        } else {
          const std::int64_t r = b0 + (warp + G::warps * (c0 + p)) * E + e;
          if (r >= 0 && r < rows) v[p][e] = load_within<4>(word, in, in_end);
        }
      }
#pragma unroll
    for (int p = 0; p < n; ++p) {
      if (c0 + p >= G::passes) break;
      unsigned rowv[E], colv[E];
#pragma unroll
      for (int e = 0; e < E; ++e) rowv[e] = __funnelshift_r(v[p][e], __shfl_down_sync(0xffffffffu, v[p][e], 1), sh[p][e]);
      word::transpose_block<S, 4>(rowv, colv);
      const int g_xor = (c0 + p) * G::warps;  // g = warp + g_xor, and warp < warps: g ^ lane = (warp ^ lane) ^ g_xor
      unsigned* dst = col - (warp ^ lane) + ((warp ^ lane) ^ g_xor);
#pragma unroll
      for (int t = 0; t < E; ++t) dst[t * G::pitch] = colv[t];
    }
    at += static_cast<std::uintptr_t>(n) * pass_step;
  }
}

template <typename G, int S, bool Whole>
__device__ __forceinline__ void lean_drain(const unsigned* __restrict__ tile, unsigned char* out, std::int64_t rows,
                                           std::int64_t cols, std::int64_t kk, std::int64_t j0) {
  constexpr int E = G::E;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::uintptr_t row_step = static_cast<std::uintptr_t>(rows * S);
  std::uintptr_t row_start = reinterpret_cast<std::uintptr_t>(out) + static_cast<std::uintptr_t>(j0 + warp) * row_step;
  const std::uintptr_t window_off = static_cast<std::uintptr_t>(kk * G::kWindow + 4 * lane);
  const int rows_here = cols - j0 < G::J ? static_cast<int>(cols - j0) : G::J;
#pragma unroll 1
  for (int jj = warp; jj < rows_here; jj += G::warps, row_start += G::warps * row_step) {
    const int skew_bytes = static_cast<int>(row_start & 31);
    const int b = 32 - skew_bytes;  // the window's first byte in the column (source row pad - skew)
    const unsigned sh = static_cast<unsigned>(b) << 3;
    const unsigned* c = tile + jj * G::pitch;
    const int m = jj / E, k = (b >> 2) + lane;
    const int x0 = k ^ m, x1 = (k + 1) ^ m;  // m < 32: word k + 32 is at x0 + 32
    auto* dst = reinterpret_cast<unsigned*>((row_start & ~std::uintptr_t{31}) + window_off);
#pragma unroll
    for (int t = 0; t < 2; ++t) {
      const unsigned v = __funnelshift_r(c[x0 + 32 * t], c[x1 + 32 * t], sh);
      if constexpr (Whole) {
        dst[32 * t] = v;
      } else {
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

template <int S, typename G>
__global__ void __launch_bounds__(kThreads, G::min_blocks)
transpose_sector_lean(const unsigned char* __restrict__ in, unsigned char* __restrict__ out, std::int64_t rows,
                      std::int64_t cols) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  unsigned* tile = reinterpret_cast<unsigned*>(smem_raw);
  const std::int64_t row_bytes = cols * S, total = rows * row_bytes;
  const std::int64_t kk = blockIdx.x, b0 = kk * G::window - G::pad;
  // Every window of the block's rows inside its output row: no partial words to store.
  const bool whole = kk >= 1 && (kk + 1) * G::window <= rows;
  const std::int64_t groups = (cols + G::J - 1) / G::J;
  for (std::int64_t grp = blockIdx.y; grp < groups; grp += gridDim.y) {
    const std::int64_t j0 = grp * G::J, off0 = b0 * row_bytes + j0 * S;
    // Every word the block loads (32 from each row's first byte, rounded down) is in the matrix.
    const bool inside = b0 >= 0 && b0 + G::span <= rows && off0 >= 4 && off0 + (G::span - 1) * row_bytes + 128 <= total;
    if (inside)
      lean_fill<G, S, true>(tile, in, in + total, rows, row_bytes, b0, j0);
    else
      lean_fill<G, S, false>(tile, in, in + total, rows, row_bytes, b0, j0);
    __syncthreads();
    if (whole)
      lean_drain<G, S, true>(tile, out, rows, cols, kk, j0);
    else
      lean_drain<G, S, false>(tile, out, rows, cols, kk, j0);
    __syncthreads();  // the next column group overwrites shared memory
  }
}

// Pipelined and persistent: a block walks items (window, column group) with a stride of the
// grid, which is as large as the GPU holds at once. All of an item's words are loaded into
// registers before the previous item's tile is drained, so the loads are in flight while the
// block stores, and a block never waits on memory with nothing else to do.
template <typename G, int S, bool Inside>
__device__ __forceinline__ void pipe_load(unsigned (&v)[G::passes][G::E], const unsigned char* in,
                                          const unsigned char* in_end, std::int64_t rows, std::int64_t row_bytes,
                                          std::int64_t b0, std::int64_t j0) {
  constexpr int E = G::E;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(in) +
                            static_cast<std::uintptr_t>((b0 + warp * E) * row_bytes + j0 * S + 4 * lane);
  const std::uintptr_t step = static_cast<std::uintptr_t>(row_bytes), pass_step = step * (G::warps * E);
#pragma unroll
  for (int p = 0; p < G::passes; ++p)
#pragma unroll
    for (int e = 0; e < E; ++e) {
      const auto* word = reinterpret_cast<const unsigned char*>((at + p * pass_step + e * step) & ~std::uintptr_t{3});
      if constexpr (Inside) {
        v[p][e] = __ldg(reinterpret_cast<const unsigned*>(word));
      } else {
        const std::int64_t r = b0 + (warp + G::warps * p) * E + e;
        v[p][e] = r >= 0 && r < rows ? load_within<4>(word, in, in_end) : 0u;
      }
    }
}

// Shifts, transposes and stores the loaded words; a row's shift is the low bits of its
// address, which need only 32-bit arithmetic.
template <typename G, int S>
__device__ __forceinline__ void pipe_store(const unsigned (&v)[G::passes][G::E], unsigned* tile, unsigned at_lo,
                                           unsigned step_lo) {
  constexpr int E = G::E;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  unsigned* col = tile + lane * E * G::pitch;
#pragma unroll
  for (int p = 0; p < G::passes; ++p) {
    unsigned rowv[E], colv[E];
#pragma unroll
    for (int e = 0; e < E; ++e) {
      const unsigned sh = (at_lo + static_cast<unsigned>(p * G::warps * E + e) * step_lo) << 3;
      rowv[e] = __funnelshift_r(v[p][e], __shfl_down_sync(0xffffffffu, v[p][e], 1), sh);
    }
    word::transpose_block<S, 4>(rowv, colv);
    unsigned* dst = col + ((warp ^ lane) ^ (p * G::warps));
#pragma unroll
    for (int t = 0; t < E; ++t) dst[t * G::pitch] = colv[t];
  }
}

template <int S, typename G>
__global__ void __launch_bounds__(kThreads, G::min_blocks)
transpose_sector_pipe(const unsigned char* __restrict__ in, unsigned char* __restrict__ out, std::int64_t rows,
                      std::int64_t cols, unsigned windows, unsigned items) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  unsigned* tile = reinterpret_cast<unsigned*>(smem_raw);
  const std::int64_t row_bytes = cols * S, total = rows * row_bytes;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  unsigned v[G::passes][G::E];
  const auto load = [&](unsigned item) {
    const std::int64_t b0 = static_cast<std::int64_t>(item % windows) * G::window - G::pad;
    const std::int64_t j0 = static_cast<std::int64_t>(item / windows) * G::J, off0 = b0 * row_bytes + j0 * S;
    if (b0 >= 0 && b0 + G::span <= rows && off0 >= 4 && off0 + (G::span - 1) * row_bytes + 128 <= total)
      pipe_load<G, S, true>(v, in, in + total, rows, row_bytes, b0, j0);
    else
      pipe_load<G, S, false>(v, in, in + total, rows, row_bytes, b0, j0);
  };
  unsigned item = blockIdx.x;
  if (item < items) load(item);
  for (; item < items; item += gridDim.x) {
    const std::int64_t kk = item % windows, j0 = static_cast<std::int64_t>(item / windows) * G::J;
    const std::int64_t b0 = kk * G::window - G::pad;
    const unsigned at_lo = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(in)) +
                           static_cast<unsigned>(b0 + warp * G::E) * static_cast<unsigned>(row_bytes) +
                           static_cast<unsigned>(j0 * S) + 4u * lane;
    pipe_store<G, S>(v, tile, at_lo, static_cast<unsigned>(row_bytes));
    if (item + gridDim.x < items) load(item + gridDim.x);
    __syncthreads();
    if (kk >= 1 && (kk + 1) * G::window <= rows)
      lean_drain<G, S, true>(tile, out, rows, cols, kk, j0);
    else
      lean_drain<G, S, false>(tile, out, rows, cols, kk, j0);
    __syncthreads();  // the next item overwrites shared memory
  }
}

template <int S, int MINB> void launch_pipe(const Operands& op) {
  using G = Lean<S, 4 * 72, MINB>;
  static unsigned long long smem_allowed = 0;
  auto k = transpose_sector_pipe<S, G>;
  word::allow_smem(k, G::smem_bytes, smem_allowed);
  const std::int64_t windows = ceil_div(op.shape.rows * S + 32, G::kWindow);
  const std::int64_t items = windows * ceil_div(op.shape.cols, G::J);
  if (items >= (std::int64_t{1} << 32)) throw std::invalid_argument("sector-cut-pipe: more than 2^32 blocks of work");
  int device = 0, sms = 0, per_sm = 0;
  TLAB_CUDA(cudaGetDevice(&device));
  TLAB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  TLAB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, kThreads, G::smem_bytes));
  const std::int64_t blocks = std::min<std::int64_t>(items, std::int64_t{sms} * std::max(per_sm, 1));
  k<<<static_cast<unsigned>(blocks), kThreads, G::smem_bytes, stream_of(op)>>>(
      static_cast<const unsigned char*>(op.in), static_cast<unsigned char*>(op.out), op.shape.rows, op.shape.cols,
      static_cast<unsigned>(windows), static_cast<unsigned>(items));
  TLAB_CUDA_LAUNCHED();
}

template <int S, int LOADS = 12, int MINB = 4> void launch_lean(const Operands& op) {
  using G = Lean<S, LOADS, MINB>;
  static unsigned long long smem_allowed = 0;
  auto k = transpose_sector_lean<S, G>;
  word::allow_smem(k, G::smem_bytes, smem_allowed);
  const std::int64_t windows = ceil_div(op.shape.rows * S + 32, G::kWindow);
  const dim3 grid = grid_2d(windows, ceil_div(op.shape.cols, G::J));
  k<<<grid, kThreads, G::smem_bytes, stream_of(op)>>>(static_cast<const unsigned char*>(op.in),
                                                      static_cast<unsigned char*>(op.out), op.shape.rows,
                                                      op.shape.cols);
  TLAB_CUDA_LAUNCHED();
}

template <int S, int WMIN> void launch(const Operands& op) {
  using G = Sector<S, WMIN>;
  static unsigned long long smem_allowed = 0;
  auto k = transpose_sector_cut<S, WMIN>;
  word::allow_smem(k, G::smem_bytes, smem_allowed);
  const std::int64_t windows = ceil_div(op.shape.rows * S + 32, G::kWindow);
  const dim3 grid = grid_2d(windows, ceil_div(op.shape.cols, G::J));
  k<<<grid, kThreads, G::smem_bytes, stream_of(op)>>>(static_cast<const unsigned char*>(op.in),
                                                      static_cast<unsigned char*>(op.out), op.shape.rows,
                                                      op.shape.cols);
  TLAB_CUDA_LAUNCHED();
}

}  // namespace

void register_gpu_sector(Registry& r) {
  Variant v = gpu_variant("gpu/word/sector-cut", "gpu-word", Placement::out_of_place, {{"window", "256"}, {"word", "4"}},
                          "each block owns whole 32-byte sectors of its output rows, cut at the row's own "
                          "offset; aligned words whatever the rows' alignment");
  v.kernels = instantiate_all([](auto tag, const Operands& op) { launch<sizeof(decltype(tag)), 4>(op); });
  r.add(std::move(v));
  // 8-byte words: 8 x 8 blocks of bytes (4 x 4 of 2-byte elements) per thread, for the
  // small elements where 4-byte words leave the kernel bound by instruction issue.
  Variant w8 = gpu_variant("gpu/word/sector-cut-w8", "gpu-word", Placement::out_of_place, {{"window", "256"}, {"word", "8"}},
                           "sector-cut with 8-byte words: 8 x 8 byte blocks in registers");
  w8.kernels = instantiate<std::uint8_t, std::uint16_t>(
      [](auto tag, const Operands& op) { launch<sizeof(decltype(tag)), 8>(op); });
  r.add(std::move(w8));
  Variant lean = gpu_variant("gpu/word/sector-cut-lean", "gpu-word", Placement::out_of_place, {{"window", "256"}, {"word", "4"}},
                             "sector-cut for 1- and 2-byte elements with one pointer per thread and bound-free interior blocks");
  lean.kernels = instantiate<std::uint8_t, std::uint16_t>([](auto tag, const Operands& op) { launch_lean<sizeof(decltype(tag))>(op); });
  r.add(std::move(lean));
  Variant l24 = gpu_variant("gpu/word/sector-cut-lean-24", "gpu-word", Placement::out_of_place, {{"window", "256"}}, "lean, 24 loads in flight, 3 blocks");
  l24.kernels = instantiate<std::uint8_t, std::uint16_t>([](auto tag, const Operands& op) { launch_lean<sizeof(decltype(tag)), 24, 3>(op); });
  r.add(std::move(l24));
  Variant l36 = gpu_variant("gpu/word/sector-cut-lean-36", "gpu-word", Placement::out_of_place, {{"window", "256"}}, "lean, 36 loads in flight, 2 blocks");
  l36.kernels = instantiate<std::uint8_t, std::uint16_t>([](auto tag, const Operands& op) { launch_lean<sizeof(decltype(tag)), 36, 2>(op); });
  r.add(std::move(l36));
  Variant p2 = gpu_variant("gpu/word/sector-cut-pipe-2", "gpu-word", Placement::out_of_place, {{"window", "256"}}, "pipelined persistent lean, 2 blocks");
  p2.kernels = instantiate<std::uint8_t, std::uint16_t>([](auto tag, const Operands& op) { launch_pipe<sizeof(decltype(tag)), 2>(op); });
  r.add(std::move(p2));
  Variant p3 = gpu_variant("gpu/word/sector-cut-pipe-3", "gpu-word", Placement::out_of_place, {{"window", "256"}}, "pipelined persistent lean, 3 blocks");
  p3.kernels = instantiate<std::uint8_t, std::uint16_t>([](auto tag, const Operands& op) { launch_pipe<sizeof(decltype(tag)), 3>(op); });
  r.add(std::move(p3));
  Variant l8 = gpu_variant("gpu/word/sector-cut-lean-8", "gpu-word", Placement::out_of_place, {{"window", "256"}}, "lean, 8 loads in flight, 4 blocks");
  l8.kernels = instantiate<std::uint8_t, std::uint16_t>([](auto tag, const Operands& op) { launch_lean<sizeof(decltype(tag)), 8, 4>(op); });
  r.add(std::move(l8));
}

}  // namespace tlab::gpu
