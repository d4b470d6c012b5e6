// Word tiles: the building blocks of the word-wide transposes (word_tiled.cu, word_inplace.cu).
//
// A thread never moves a lone 1- or 2-byte element: it moves whole W-byte words (4, 8 or 16
// bytes), each holding E = W/S elements of S bytes, so that every global load and store of a
// warp is 32 whole words. A tile is 32E x 32E elements, held in shared memory as 32E rows of
// 32 words. To transpose it, a thread takes E words from E consecutive rows (an E x E block
// of elements), transposes that block in registers (byte permutes for 1 and 2 bytes, plain
// register renaming from 4 bytes up) and stores E words into E consecutive output rows.
//
// Word w of tile row r lives at column w ^ (r / E) % 32: a warp then reads 32 different
// columns both when it fills a row and when its 32 threads take the same word column of 32
// different blocks, so neither phase has bank conflicts, for any W.
#pragma once
#include <cstdint>
#include <type_traits>

#include "tlab/gpu/launch.cuh"
#include "tlab/gpu/load_word.cuh"

namespace tlab::gpu::word {

template <int W> struct WordOf;
template <> struct WordOf<1> { using type = std::uint8_t; };
template <> struct WordOf<2> { using type = std::uint16_t; };
template <> struct WordOf<4> { using type = unsigned; };
template <> struct WordOf<8> { using type = uint2; };
template <> struct WordOf<16> { using type = uint4; };
template <int W> using Word = typename WordOf<W>::type;

constexpr int kThreads = 256;  // one block: 8 warps
constexpr int kWords = 32;     // words per tile row

template <int S, int W> struct Geometry {
  static_assert(W % S == 0 && W >= S, "a word holds whole elements");
  static constexpr int E = W / S;               // elements per word, and the side of a thread's block
  static constexpr int side = kWords * E;       // tile side in elements
  static constexpr std::size_t smem_bytes = static_cast<std::size_t>(side) * kWords * W;
};

// The 32-bit lanes of a word of 4 bytes or more.
__device__ __forceinline__ void to_lanes(unsigned w, unsigned (&l)[1]) { l[0] = w; }
__device__ __forceinline__ void to_lanes(uint2 w, unsigned (&l)[2]) { l[0] = w.x; l[1] = w.y; }
__device__ __forceinline__ void to_lanes(uint4 w, unsigned (&l)[4]) { l[0] = w.x; l[1] = w.y; l[2] = w.z; l[3] = w.w; }
__device__ __forceinline__ void from_lanes(const unsigned (&l)[1], unsigned& w) { w = l[0]; }
__device__ __forceinline__ void from_lanes(const unsigned (&l)[2], uint2& w) { w = make_uint2(l[0], l[1]); }
__device__ __forceinline__ void from_lanes(const unsigned (&l)[4], uint4& w) { w = make_uint4(l[0], l[1], l[2], l[3]); }

// out[j] = column j of the E x E block whose rows are in[0..E-1] (each a word of E elements).
template <int S, int W>
__device__ __forceinline__ void transpose_block(const Word<W> (&in)[W / S], Word<W> (&out)[W / S]) {
  constexpr int E = W / S;
  if constexpr (E == 1) {
    out[0] = in[0];
  } else {
    constexpr int L = W / 4;  // lanes per word
    unsigned a[E][L], b[E][L];
#pragma unroll
    for (int k = 0; k < E; ++k) to_lanes(in[k], a[k]);
    if constexpr (S >= 4) {  // whole lanes move: the compiler only renames registers
      constexpr int per = S / 4;
#pragma unroll
      for (int j = 0; j < E; ++j)
#pragma unroll
        for (int k = 0; k < E; ++k)
#pragma unroll
          for (int l = 0; l < per; ++l) b[j][k * per + l] = a[k][j * per + l];
    } else if constexpr (S == 2) {  // lane t of output word j: element j of input words 2t and 2t+1
#pragma unroll
      for (int j = 0; j < E; ++j)
#pragma unroll
        for (int t = 0; t < L; ++t) b[j][t] = __byte_perm(a[2 * t][j / 2], a[2 * t + 1][j / 2], j % 2 ? 0x7632 : 0x5410);
    } else {  // S == 1: lane t of output word j: byte j of input words 4t .. 4t+3
      // Each 4 x 4 byte block in eight permutes: interleave rows (0,1) and (2,3) byte by byte,
      // then take byte pairs from the two interleavings.
#pragma unroll
      for (int t = 0; t < L; ++t)
#pragma unroll
        for (int q = 0; q < L; ++q) {
          const unsigned* x[4] = {&a[4 * t][q], &a[4 * t + 1][q], &a[4 * t + 2][q], &a[4 * t + 3][q]};
          const unsigned lo01 = __byte_perm(*x[0], *x[1], 0x5140), hi01 = __byte_perm(*x[0], *x[1], 0x7362);
          const unsigned lo23 = __byte_perm(*x[2], *x[3], 0x5140), hi23 = __byte_perm(*x[2], *x[3], 0x7362);
          b[4 * q][t] = __byte_perm(lo01, lo23, 0x5410);
          b[4 * q + 1][t] = __byte_perm(lo01, lo23, 0x7632);
          b[4 * q + 2][t] = __byte_perm(hi01, hi23, 0x5410);
          b[4 * q + 3][t] = __byte_perm(hi01, hi23, 0x7632);
        }
    }
#pragma unroll
    for (int j = 0; j < E; ++j) from_lanes(b[j], out[j]);
  }
}

// Whether a kernel holding `tiles` tiles of S-byte elements in W-byte words fits the shared
// memory budget (by default 128 KiB per block, which keeps at least one block per SM with room
// to spare).
template <int S, int W, int tiles, std::size_t budget = 128 * 1024> constexpr bool fits_smem() {
  if constexpr (S > W) return false;
  else return tiles * Geometry<S, W>::smem_bytes <= budget;
}

// Drops the element types that fits_smem refuses from a variant registered for all types.
template <int W, int tiles, std::size_t budget = 128 * 1024> void keep_fitting_types(Variant& v) {
  for (auto it = v.kernels.begin(); it != v.kernels.end();) {
    const bool fits = dispatch_dtype(it->first, [](auto tag) { return fits_smem<sizeof(tag), W, tiles, budget>(); });
    it = fits ? std::next(it) : v.kernels.erase(it);
  }
}

// Element e of a word (S < W), read or written one element at a time: the path for matrices
// whose rows do not start on a word boundary.
template <int S, int W> __device__ __forceinline__ Word<S> element_of(const Word<W>& w, int e) {
  static_assert(W >= 4, "");
  unsigned l[W / 4];
  to_lanes(w, l);
  if constexpr (S >= 4) {
    unsigned p[S / 4];
#pragma unroll
    for (int i = 0; i < S / 4; ++i) p[i] = l[e * (S / 4) + i];
    Word<S> x;
    from_lanes(p, x);
    return x;
  } else {
    return static_cast<Word<S>>(l[(e * S) / 4] >> (8 * ((e * S) % 4)));
  }
}

template <int S, int W> __device__ __forceinline__ void set_element(Word<W>& w, int e, Word<S> x) {
  unsigned l[W / 4];
  to_lanes(w, l);
  if constexpr (S >= 4) {
    unsigned p[S / 4];
    to_lanes(x, p);
#pragma unroll
    for (int i = 0; i < S / 4; ++i) l[e * (S / 4) + i] = p[i];
  } else {
    const int shift = 8 * ((e * S) % 4);
    const unsigned mask = (S == 1 ? 0xffu : 0xffffu) << shift;
    l[(e * S) / 4] = (l[(e * S) / 4] & ~mask) | (static_cast<unsigned>(x) << shift);
  }
  from_lanes(l, w);
}

template <int E> __device__ __forceinline__ int swizzled(int r, int w) { return w ^ ((r / E) % kWords); }

constexpr int kRowsPerPass = kThreads / kWords;  // tile rows one pass of the block covers

// How the rows of a matrix sit against W-byte words, chosen once per call (row_layout):
// every row starts on a word (whole words, the fast path); the base pointers are on words
// but the rows are not, so each row is read and written as aligned words shifted by the
// row's own offset (funnel shifts); or a base pointer is off a word: element by element.
enum Layout : int { kByElement = 0, kAlignedRows = 1, kShiftedRows = 2 };

// Bytes [m, m + W) of the 2W bytes lo, hi (lo first in memory), 0 <= m < W. m is the same
// across a warp wherever this runs in bulk (one row per warp), so the selects do not diverge.
template <int W> __device__ __forceinline__ Word<W> bytes_from(const Word<W>& lo, const Word<W>& hi, int m) {
  constexpr int L = W / 4;
  unsigned a[L], b[L], c[2 * L], o[L];
  to_lanes(lo, a);
  to_lanes(hi, b);
#pragma unroll
  for (int i = 0; i < L; ++i) c[i] = a[i], c[L + i] = b[i];
  const int q = m / 4;
  const unsigned sh = 8u * static_cast<unsigned>(m % 4);
#pragma unroll
  for (int i = 0; i < L; ++i) {
    unsigned x = c[i], y = c[i + 1];
#pragma unroll
    for (int Q = 1; Q < L; ++Q)
      if (q == Q) x = c[i + Q], y = c[i + Q + 1];
    o[i] = __funnelshift_r(x, y, sh);
  }
  Word<W> r;
  from_lanes(o, r);
  return r;
}

// A whole word across the lanes of a warp: from the next lane, the previous one, or lane `from`.
enum class Shfl { down, up, idx };
template <Shfl K, int W> __device__ __forceinline__ Word<W> shfl_word(const Word<W>& x, int arg) {
  unsigned l[W / 4];
  to_lanes(x, l);
#pragma unroll
  for (int i = 0; i < W / 4; ++i)
    l[i] = K == Shfl::down ? __shfl_down_sync(0xffffffffu, l[i], arg)
           : K == Shfl::up ? __shfl_up_sync(0xffffffffu, l[i], arg)
                           : __shfl_sync(0xffffffffu, l[i], arg);
  Word<W> r;
  from_lanes(l, r);
  return r;
}

// The element of S bytes at 32-bit part `part`, bit `shift`, of lane `from`'s word (S < W):
// every lane receives the word's parts and keeps its own, without indexing registers.
template <int S, int W>
__device__ __forceinline__ Word<S> element_from_lane(const Word<W>& x, int from, int part, int shift) {
  constexpr int L = W / 4;
  unsigned l[L];
  to_lanes(x, l);
  if constexpr (S >= 4) {
    constexpr int per = S / 4;  // parts of an element; `part` is a multiple of it
    unsigned o[per];
#pragma unroll
    for (int i = 0; i < per; ++i) o[i] = 0;
#pragma unroll
    for (int i = 0; i < L; ++i) {
      const unsigned y = __shfl_sync(0xffffffffu, l[i], from);
      if (i / per == part / per) o[i % per] = y;
    }
    Word<S> r;
    from_lanes(o, r);
    return r;
  } else {
    unsigned o = 0;
#pragma unroll
    for (int i = 0; i < L; ++i) {
      const unsigned y = __shfl_sync(0xffffffffu, l[i], from);
      if (i == part) o = y;
    }
    return static_cast<Word<S>>(o >> shift);
  }
}

// Lane v holds bytes [v W, (v + 1) W) of the row segment starting at `at` (any offset on an
// S-byte boundary).
// Lanes 1..31 store the aligned words wholly inside the segment, each made of its own head
// and its left neighbour's tail; the two partial words at the ends (shared with other
// tiles) are written one element per lane, as E lanes of one store instruction.
template <int S, int W>
__device__ __forceinline__ void store_shifted(unsigned char* at, const Word<W>& d, int lane) {
  constexpr int E = W / S;
  const int m = static_cast<int>(reinterpret_cast<std::uintptr_t>(at) % W);
  if (m == 0) {
    *reinterpret_cast<Word<W>*>(at + lane * W) = d;
    return;
  }
  const Word<W> prev = shfl_word<Shfl::up, W>(d, 1);
  if (lane > 0) *reinterpret_cast<Word<W>*>(at - m + lane * W) = bytes_from<W>(prev, d, W - m);
  const Word<W> head = shfl_word<Shfl::idx, W>(d, 0), tail = shfl_word<Shfl::idx, W>(d, kWords - 1);
  if (lane < E) {
    const bool in_head = lane * S < W - m;  // element `lane` of the first word, else of the last
    const Word<W> x = bytes_from<W>(in_head ? head : tail, in_head ? head : tail, lane * S);
    *reinterpret_cast<Word<S>*>(at + (in_head ? 0 : (kWords - 1) * W) + lane * S) = element_of<S, W>(x, 0);
  }
}

// Whether an edge tile of a matrix whose rows are off a word can take the inner tiles'
// shifted loads with a row bound (load_tile's EDGES): its columns all inside and some rows
// past the last; or all its rows inside, a row of the matrix after its last (its pieces read
// on into that row's bytes, never stored, and no load leaves the matrix), and at least half
// its columns, so that the bytes read past the edge are at most as many as those used. The
// corner tile and thin edges keep the element path.
__device__ __forceinline__ bool edge_by_rows(int side, std::int64_t rows, std::int64_t cols, std::int64_t r0,
                                             std::int64_t c0) {
  if (c0 + side <= cols) return true;
  return r0 + side < rows && 2 * (cols - c0) >= side;
}

// Fills the shared tile with the side x side block of `src` (rows x cols elements, row major,
// `ld` elements from one row to the next where not 0) whose top-left element is (r0, c0):
// in whole words where rows are on words, aligned words shifted into place for kShiftedRows,
// and runs of 32 consecutive elements for kByElement; the edge tiles of a matrix whose rows are
// not all on words go element by element, one word's elements at a time. A tile
// wholly inside the matrix (all but the edges) takes a path with no bounds checks and one
// address computed per thread, the rest by constant offsets: per-access 64-bit index
// arithmetic costs more issue slots than the loads themselves for 1-byte elements. PF: the
// L2 prefetch size of the inner tiles' loads (load_word.cuh; 0 for none). EDGES: edge tiles
// whose rows are off a word take the shifted path too where edge_by_rows allows, with rows
// past the matrix skipped.
template <int S, int W, int LAYOUT, int PF = 0, bool EDGES = false>
__device__ __forceinline__ void load_tile(Word<W>* sm, const unsigned char* __restrict__ src, std::int64_t rows,
                                          std::int64_t cols, std::int64_t r0, std::int64_t c0, std::int64_t ld = 0) {
  const std::int64_t pitch = ld ? ld : cols;  // elements from one row to the next
  using G = Geometry<S, W>;
  constexpr int E = G::E;
  const int w = threadIdx.x % kWords, r_first = threadIdx.x / kWords;
  bool fast = r0 + G::side <= rows && c0 + G::side <= cols;
  if constexpr (EDGES && LAYOUT == kShiftedRows && E > 1) fast = fast || edge_by_rows(G::side, rows, cols, r0, c0);
  if (fast) {
    const std::int64_t step = kRowsPerPass * pitch * S;
    if constexpr (LAYOUT == kByElement && E > 1) {
      // Rows off a word, whole elements: a warp reads E runs of 32 consecutive elements of
      // a row, not one element of each of 32 words E times, so that each load fills its
      // sectors (performance notes, section 9, "Contiguous elements at odd sides").
      const unsigned char* p = src + ((r0 + r_first) * pitch + c0 + w) * S;
#pragma unroll 4
      for (int k = 0; k < G::side / kRowsPerPass; ++k) {
        const int r = r_first + k * kRowsPerPass;
        Word<S> x[E];
#pragma unroll
        for (int e = 0; e < E; ++e) x[e] = load_word<PF>(reinterpret_cast<const Word<S>*>(p + k * step + e * kWords * S));
#pragma unroll
        for (int e = 0; e < E; ++e) {
          const int c = e * kWords + w;  // element of the tile row; word c / E holds it
          reinterpret_cast<Word<S>*>(sm + r * kWords + swizzled<E>(r, c / E))[c % E] = x[e];
        }
      }
    } else if constexpr (LAYOUT == kShiftedRows && E > 1) {
      // C rows at a time, every aligned word of them loaded before any is shifted: a shift
      // waits on the neighbour lane's load, and one row at a time left a single load in
      // flight per thread (performance notes, section 9, "Shifted words for the loads only").
      const unsigned char* p = src + ((r0 + r_first) * pitch + c0) * S;
      const unsigned char* end = src + ((rows - 1) * pitch + cols) * S;  // past the last row's last element
      constexpr int R = G::side / kRowsPerPass, C = R < 64 / W ? R : 64 / W;
      static_assert(R % C == 0, "whole chunks of rows");
#pragma unroll 1
      for (int k0 = 0; k0 < R; k0 += C) {
        Word<W> lo[C], hi[C];
#pragma unroll
        for (int k = 0; k < C; ++k) {
          hi[k] = lo[k] = Word<W>{};
          if (EDGES && r0 + r_first + (k0 + k) * kRowsPerPass >= rows) continue;  // a row past the matrix
          const unsigned char* at = p + (k0 + k) * step;
          const auto* base = reinterpret_cast<const Word<W>*>(at - reinterpret_cast<std::uintptr_t>(at) % W);
          lo[k] = load_word<PF>(base + w);
          if (w == kWords - 1) {  // the word after the piece: past the matrix only at its very end
            const unsigned char* extra = reinterpret_cast<const unsigned char*>(base + kWords);
            if (extra + W <= end) {
              hi[k] = *reinterpret_cast<const Word<W>*>(extra);
            } else {
#pragma unroll
              for (int b = 0; b < W; ++b)
                if (extra + b < end) set_element<1, W>(hi[k], b, extra[b]);
            }
          }
        }
#pragma unroll
        for (int k = 0; k < C; ++k) {
          const int r = r_first + (k0 + k) * kRowsPerPass;
          const int m = static_cast<int>(reinterpret_cast<std::uintptr_t>(p + (k0 + k) * step) % W);
          const Word<W> next = shfl_word<Shfl::down, W>(lo[k], 1);
          const Word<W> h = w == kWords - 1 ? hi[k] : next;
          sm[r * kWords + swizzled<E>(r, w)] = m ? bytes_from<W>(lo[k], h, m) : lo[k];
        }
      }
    } else {
      const unsigned char* p = src + ((r0 + r_first) * pitch + c0 + static_cast<std::int64_t>(w) * E) * S;
#pragma unroll
      for (int k = 0; k < G::side / kRowsPerPass; ++k) {
        const int r = r_first + k * kRowsPerPass;
        sm[r * kWords + swizzled<E>(r, w)] = load_word<PF>(reinterpret_cast<const Word<W>*>(p + k * step));
      }
    }
    return;
  }
#pragma unroll 4
  for (int r = r_first; r < G::side; r += kRowsPerPass) {
    const std::int64_t gr = r0 + r, gc = c0 + static_cast<std::int64_t>(w) * E;
    Word<W> v{};
    if (gr < rows) {
      const std::int64_t at = gr * pitch + gc;
      if constexpr (LAYOUT == kAlignedRows || E == 1) {
        if (gc < cols) v = *reinterpret_cast<const Word<W>*>(src + at * S);
      } else {
#pragma unroll
        for (int e = 0; e < E; ++e)
          if (gc + e < cols) set_element<S, W>(v, e, *reinterpret_cast<const Word<S>*>(src + (at + e) * S));
      }
    }
    sm[r * kWords + swizzled<E>(r, w)] = v;
  }
}

// The E x E block of tile rows vE.. at word column w, transposed: out[j] is its column j, a
// word of output row wE + j (the swizzle of load_tile undone).
template <int S, int W>
__device__ __forceinline__ void read_transposed(const Word<W>* sm, int v, int w, Word<W> (&out)[W / S]) {
  constexpr int E = W / S;
  Word<W> in[E];
#pragma unroll
  for (int k = 0; k < E; ++k) in[k] = sm[(v * E + k) * kWords + (w ^ v)];
  transpose_block<S, W>(in, out);
}

// Stores the transpose of the shared tile (the block at (r0, c0) of a rows x cols matrix)
// into `dst`, the cols x rows output (`ld` elements from one output row to the next where
// not 0), at (c0, r0). Thread (v, w) takes the E x E block of
// tile rows vE.. and word column w, and writes E words into output rows wE.. at word v.
template <int S, int W, int LAYOUT, bool EDGES = false>
__device__ __forceinline__ void store_tile_transposed(const Word<W>* sm, unsigned char* __restrict__ dst,
                                                      std::int64_t rows, std::int64_t cols, std::int64_t r0,
                                                      std::int64_t c0, std::int64_t ld = 0) {
  const std::int64_t pitch = ld ? ld : rows;  // elements from one output row to the next
  using G = Geometry<S, W>;
  constexpr int E = G::E;
  const int v = threadIdx.x % kWords, w_first = threadIdx.x / kWords;
  const std::int64_t ocol = r0 + static_cast<std::int64_t>(v) * E;
  // EDGES: every tile of rows off a word stores by element runs, the edges' with bounds.
  constexpr bool bounded = EDGES && LAYOUT == kByElement && E > 1;
  const bool inner = r0 + G::side <= rows && c0 + G::side <= cols, guard = bounded && !inner;
  if (bounded || inner) {
    const std::int64_t row_bytes = pitch * S;
    if constexpr (LAYOUT == kByElement && E > 1) {
      // Rows off a word, whole elements: lane v holds word v of an output row piece; store
      // j of E writes elements 32 j + v, taken from lane (32 j + v) / E, so that each store
      // covers 32 consecutive elements (as the loads above).
      unsigned char* q = dst + ((c0 + static_cast<std::int64_t>(w_first) * E) * pitch + r0 + v) * S;
      const int from = v / E, part = (v % E) * S / 4, shift = 8 * ((v % E) * S % 4);
#pragma unroll 2
      for (int it = 0; it < kWords / kRowsPerPass; ++it) {
        const int w = w_first + it * kRowsPerPass;
        Word<W> out[E];
        read_transposed<S, W>(sm, v, w, out);
#pragma unroll
        for (int j = 0; j < E; ++j) {
          if (guard && c0 + static_cast<std::int64_t>(w) * E + j >= cols) break;  // output rows past the matrix
          unsigned char* row = q + (static_cast<std::int64_t>(it) * kRowsPerPass * E + j) * row_bytes;
#pragma unroll
          for (int e = 0; e < E; ++e) {
            const Word<S> x = element_from_lane<S, W>(out[j], e * (kWords / E) + from, part, shift);
            if (!guard || r0 + v + e * kWords < rows) *reinterpret_cast<Word<S>*>(row + e * kWords * S) = x;
          }
        }
      }
      return;
    } else if constexpr (LAYOUT == kShiftedRows && E > 1) {
      unsigned char* q = dst + ((c0 + static_cast<std::int64_t>(w_first) * E) * pitch + r0) * S;
#pragma unroll 2
      for (int it = 0; it < kWords / kRowsPerPass; ++it) {
        const int w = w_first + it * kRowsPerPass;
        Word<W> out[E];
        read_transposed<S, W>(sm, v, w, out);
#pragma unroll
        for (int j = 0; j < E; ++j)
          store_shifted<S, W>(q + (static_cast<std::int64_t>(it) * kRowsPerPass * E + j) * row_bytes, out[j], v);
      }
      return;
    }
    unsigned char* q = dst + ((c0 + static_cast<std::int64_t>(w_first) * E) * pitch + ocol) * S;
#pragma unroll
    for (int it = 0; it < kWords / kRowsPerPass; ++it) {
      const int w = w_first + it * kRowsPerPass;
      Word<W> out[E];
      read_transposed<S, W>(sm, v, w, out);
#pragma unroll
      for (int j = 0; j < E; ++j)
        *reinterpret_cast<Word<W>*>(q + (static_cast<std::int64_t>(it) * kRowsPerPass * E + j) * row_bytes) = out[j];
    }
    return;
  }
  if constexpr (!bounded) {  // else every path above returned
#pragma unroll 4
    for (int w = w_first; w < kWords; w += kRowsPerPass) {
      Word<W> out[E];
      read_transposed<S, W>(sm, v, w, out);
#pragma unroll
      for (int j = 0; j < E; ++j) {
        const std::int64_t orow = c0 + static_cast<std::int64_t>(w) * E + j;
        if (orow >= cols) break;
        const std::int64_t at = orow * pitch + ocol;
        if constexpr (LAYOUT == kAlignedRows || E == 1) {
          if (ocol < rows) *reinterpret_cast<Word<W>*>(dst + at * S) = out[j];
        } else {
#pragma unroll
          for (int e = 0; e < E; ++e)
            if (ocol + e < rows) *reinterpret_cast<Word<S>*>(dst + (at + e) * S) = element_of<S, W>(out[j], e);
        }
      }
    }
  }
}

// A tile held in registers (word_inplace_ahead.cu, word_inplace_bands.cu): kPerThread words a
// thread; fetch reads the thread's words of the inner tile at (r0, c0) of an n x n matrix
// whose rows are on words, in load_tile's order (its aligned fast path, split at the
// registers), and deposit puts them where load_tile would have put them.
template <int S, int W> constexpr int kPerThread = Geometry<S, W>::side / kRowsPerPass;

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

// The Layout that (base pointers, shape, pitches in elements; 0: dense) allow: whole W-byte
// words when every row of the input and of the output starts on a W-byte boundary and ends on
// one, so that no word reaches past a row (into a neighbouring block, when the matrices are
// blocks of larger ones, or past the end of the memory).
inline Layout row_layout(const void* a, const void* b, std::int64_t rows, std::int64_t cols, int S, int W,
                         std::int64_t in_pitch = 0, std::int64_t out_pitch = 0) {
  auto aligned = [W](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % W == 0; };
  auto words = [S, W](std::int64_t elements) { return (elements * S) % W == 0; };
  if (!aligned(a) || !aligned(b)) return kByElement;
  const bool whole = words(cols) && words(rows) && words(in_pitch ? in_pitch : cols) && words(out_pitch ? out_pitch : rows);
  return whole ? kAlignedRows : kShiftedRows;
}

// Calls f(std::integral_constant<int, layout>) with the layout as a compile-time constant.
// Whole-element words (S == W) are always aligned rows: no shifted instantiation for them.
template <int S, int W, typename F> void with_layout(Layout l, F&& f) {
  if (l == kAlignedRows) f(std::integral_constant<int, kAlignedRows>{});
  else if (l == kByElement) f(std::integral_constant<int, kByElement>{});
  else if constexpr (S < W) f(std::integral_constant<int, kShiftedRows>{});
}

// Allows kernel `k` more than the default 48 KiB of dynamic shared memory on the current
// device. `done` is the caller's own flag set (one per kernel instantiation), one bit per device.
template <typename Kernel> void allow_smem(Kernel k, std::size_t bytes, unsigned long long& done) {
  if (bytes <= 48 * 1024) return;
  int dev = 0;
  TLAB_CUDA(cudaGetDevice(&dev));
  const unsigned long long bit = 1ull << (dev % 64);
  if (done & bit) return;
  TLAB_CUDA(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  done |= bit;
}

}  // namespace tlab::gpu::word
