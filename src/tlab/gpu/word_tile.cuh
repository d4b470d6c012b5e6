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

#include "tlab/gpu/launch.cuh"

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
#pragma unroll
      for (int j = 0; j < E; ++j)
#pragma unroll
        for (int t = 0; t < L; ++t) {
          const int bsel = j % 4, sel = bsel | ((bsel + 4) << 4);
          const unsigned lo = __byte_perm(a[4 * t][j / 4], a[4 * t + 1][j / 4], sel);
          const unsigned hi = __byte_perm(a[4 * t + 2][j / 4], a[4 * t + 3][j / 4], sel);
          b[j][t] = __byte_perm(lo, hi, 0x5410);
        }
    }
#pragma unroll
    for (int j = 0; j < E; ++j) from_lanes(b[j], out[j]);
  }
}

// Whether a kernel holding `tiles` tiles of S-byte elements in W-byte words fits the shared
// memory budget (128 KiB per block keeps at least one block per SM with room to spare).
template <int S, int W, int tiles> constexpr bool fits_smem() {
  if constexpr (S > W) return false;
  else return tiles * Geometry<S, W>::smem_bytes <= 128 * 1024;
}

// Drops the element types that fits_smem refuses from a variant registered for all types.
template <int W, int tiles> void keep_fitting_types(Variant& v) {
  for (auto it = v.kernels.begin(); it != v.kernels.end();) {
    const bool fits = dispatch_dtype(it->first, [](auto tag) { return fits_smem<sizeof(tag), W, tiles>(); });
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

// Fills the shared tile with the side x side block of `src` (rows x cols elements, row major)
// whose top-left element is (r0, c0). ALIGNED: every row starts on a W-byte boundary and
// cols is a multiple of E, so whole words are loaded; otherwise element by element. A tile
// wholly inside the matrix (all but the edges) takes a path with no bounds checks and one
// address computed per thread, the rest by constant offsets: per-access 64-bit index
// arithmetic costs more issue slots than the loads themselves for 1-byte elements.
template <int S, int W, bool ALIGNED>
__device__ __forceinline__ void load_tile(Word<W>* sm, const unsigned char* __restrict__ src, std::int64_t rows,
                                          std::int64_t cols, std::int64_t r0, std::int64_t c0) {
  using G = Geometry<S, W>;
  constexpr int E = G::E;
  const int w = threadIdx.x % kWords, r_first = threadIdx.x / kWords;
  if ((ALIGNED || E == 1) && r0 + G::side <= rows && c0 + G::side <= cols) {
    const unsigned char* p = src + ((r0 + r_first) * cols + c0 + static_cast<std::int64_t>(w) * E) * S;
    const std::int64_t step = kRowsPerPass * cols * S;
#pragma unroll
    for (int k = 0; k < G::side / kRowsPerPass; ++k) {
      const int r = r_first + k * kRowsPerPass;
      sm[r * kWords + swizzled<E>(r, w)] = *reinterpret_cast<const Word<W>*>(p + k * step);
    }
    return;
  }
#pragma unroll 4
  for (int r = r_first; r < G::side; r += kRowsPerPass) {
    const std::int64_t gr = r0 + r, gc = c0 + static_cast<std::int64_t>(w) * E;
    Word<W> v{};
    if (gr < rows) {
      const std::int64_t at = gr * cols + gc;
      if constexpr (ALIGNED || E == 1) {
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

// Stores the transpose of the shared tile (the block at (r0, c0) of a rows x cols matrix)
// into `dst`, the cols x rows output, at (c0, r0). Thread (v, w) takes the E x E block of
// tile rows vE.. and word column w, and writes E words into output rows wE.. at word v.
template <int S, int W, bool ALIGNED>
__device__ __forceinline__ void store_tile_transposed(const Word<W>* sm, unsigned char* __restrict__ dst,
                                                      std::int64_t rows, std::int64_t cols, std::int64_t r0,
                                                      std::int64_t c0) {
  using G = Geometry<S, W>;
  constexpr int E = G::E;
  const int v = threadIdx.x % kWords, w_first = threadIdx.x / kWords;
  const std::int64_t ocol = r0 + static_cast<std::int64_t>(v) * E;
  if ((ALIGNED || E == 1) && r0 + G::side <= rows && c0 + G::side <= cols) {
    unsigned char* q = dst + ((c0 + static_cast<std::int64_t>(w_first) * E) * rows + ocol) * S;
    const std::int64_t row_bytes = rows * S;
#pragma unroll
    for (int it = 0; it < kWords / kRowsPerPass; ++it) {
      const int w = w_first + it * kRowsPerPass;
      Word<W> in[E], out[E];
#pragma unroll
      for (int k = 0; k < E; ++k) in[k] = sm[(v * E + k) * kWords + (w ^ v)];
      transpose_block<S, W>(in, out);
#pragma unroll
      for (int j = 0; j < E; ++j)
        *reinterpret_cast<Word<W>*>(q + (static_cast<std::int64_t>(it) * kRowsPerPass * E + j) * row_bytes) = out[j];
    }
    return;
  }
#pragma unroll 4
  for (int w = w_first; w < kWords; w += kRowsPerPass) {
    Word<W> in[E], out[E];
#pragma unroll
    for (int k = 0; k < E; ++k) in[k] = sm[(v * E + k) * kWords + (w ^ v)];
    transpose_block<S, W>(in, out);
#pragma unroll
    for (int j = 0; j < E; ++j) {
      const std::int64_t orow = c0 + static_cast<std::int64_t>(w) * E + j;
      if (orow >= cols) break;
      const std::int64_t at = orow * rows + ocol;
      if constexpr (ALIGNED || E == 1) {
        if (ocol < rows) *reinterpret_cast<Word<W>*>(dst + at * S) = out[j];
      } else {
#pragma unroll
        for (int e = 0; e < E; ++e)
          if (ocol + e < rows) *reinterpret_cast<Word<S>*>(dst + (at + e) * S) = element_of<S, W>(out[j], e);
      }
    }
  }
}

// Whether (base pointers, shape) allow whole W-byte words: every row of the input and of the
// output starts on a W-byte boundary.
inline bool words_fit(const void* a, const void* b, std::int64_t rows, std::int64_t cols, int S, int W) {
  auto aligned = [W](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % W == 0; };
  return aligned(a) && aligned(b) && (cols * S) % W == 0 && (rows * S) % W == 0;
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
