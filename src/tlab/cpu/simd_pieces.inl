// The loops around a micro-kernel, written once and compiled once per instruction set. The
// includer defines TLAB_SIMD_NS, a namespace of its own, so that the linker can never keep
// the AVX-512 copy of one of these functions for a caller that must run on a CPU without
// AVX-512 (the hazard inplace.hpp describes for optimisation levels), and TLAB_SIMD_TARGET,
// the target attribute every function here carries so that the micro-kernels inline into
// the loops. (Callables are structs rather than lambdas: a lambda's body does not inherit
// its enclosing function's target attribute.)
//
// A micro-kernel type T provides: K and S (a K x K tile of S-byte elements); L, the line
// square (a multiple of K: L elements of S bytes are whole cache lines); a register type
// Reg; load(p, ld_bytes, r), transpose(r), store(p, ld_bytes, r, stream) over Reg r[K];
// copy_line(dst, src, stream), one 64-byte line; and fence(), which orders its non-temporal
// stores before the caller's next step. TileRows below gives all but transpose from an
// instruction set's one-register access Io.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "tlab/cpu/simd_kernels.hpp"

namespace tlab::cpu::simd::TLAB_SIMD_NS {

using i64 = std::int64_t;
using uchar = unsigned char;

// ---- scalar pieces: the edges no tile covers, and the whole of the scalar path ----------

template <i64 S>
TLAB_SIMD_TARGET void scalar_transpose(const Piece& p, i64 i0, i64 i1, i64 j0, i64 j1) {
  for (i64 i = i0; i < i1; ++i)
    for (i64 j = j0; j < j1; ++j) std::memcpy(p.out + (j * p.ld_out + i) * S, p.in + (i * p.ld_in + j) * S, S);
}

template <i64 S> TLAB_SIMD_TARGET inline void swap_elements(uchar* x, uchar* y) {
  uchar t[S];
  std::memcpy(t, x, S);
  std::memcpy(x, y, S);
  std::memcpy(y, t, S);
}

// a(i, j) <-> b(j, i) over [i0, i1) x [j0, j1); for a diagonal block only j > i is swapped.
template <i64 S>
TLAB_SIMD_TARGET void scalar_swap(const PiecePair& p, i64 i0, i64 i1, i64 j0, i64 j1) {
  const bool diagonal = p.a == p.b;
  for (i64 i = i0; i < i1; ++i)
    for (i64 j = diagonal ? std::max(j0, i + 1) : j0; j < j1; ++j)
      swap_elements<S>(p.a + (i * p.ld + j) * S, p.b + (j * p.ld + i) * S);
}

template <i64 S> TLAB_SIMD_TARGET void scalar_transpose_piece(const Piece& p, bool) {
  scalar_transpose<S>(p, 0, p.rows, 0, p.cols);
}
template <i64 S> TLAB_SIMD_TARGET void scalar_swap_piece(const PiecePair& p) {
  scalar_swap<S>(p, 0, p.rows, 0, p.cols);
}

// ---- tiles ------------------------------------------------------------------------------

// An instruction set's one-register access for TileRows, from its intrinsics: unaligned load
// and store, and the non-temporal store (which needs the register's alignment: the drivers
// only ask for it where the output and its row pitch have it, Kernels::stream_align), all
// taking a pointer to Ptr. A macro, not a template: intrinsics are not values to pass.
#define TLAB_SIMD_IO(Name, RegT, Ptr, load, store, stream_store)                  \
  struct Name {                                                                 \
    using Reg = RegT;                                                           \
    TLAB_SIMD_TARGET static Reg get(const uchar* p) {                           \
      return load(reinterpret_cast<const Ptr*>(p));                             \
    }                                                                           \
    TLAB_SIMD_TARGET static void put(uchar* p, Reg v, bool stream) {            \
      if (stream) stream_store(reinterpret_cast<Ptr*>(p), v);                   \
      else store(reinterpret_cast<Ptr*>(p), v);                                 \
    }                                                                           \
    TLAB_SIMD_TARGET static void fence() { _mm_sfence(); }                      \
  }

// The K rows of a tile through Io: Io::Reg, Io::get(p), Io::put(p, v, stream), Io::fence().
template <class Io, i64 Kt, i64 St, i64 Lt> struct TileRows {
  using Reg = typename Io::Reg;
  static constexpr i64 K = Kt, S = St, L = Lt;
  TLAB_SIMD_TARGET static void load(const uchar* p, i64 ld, Reg* r) {
#pragma GCC unroll 16
    for (i64 k = 0; k < K; ++k) r[k] = Io::get(p + k * ld);
  }
  TLAB_SIMD_TARGET static void store(uchar* p, i64 ld, const Reg* r, bool stream) {
#pragma GCC unroll 16
    for (i64 k = 0; k < K; ++k) Io::put(p + k * ld, r[k], stream);
  }
  TLAB_SIMD_TARGET static void fence() { Io::fence(); }
  // One 64-byte line from src to dst, register by register (dst streamed where asked).
  TLAB_SIMD_TARGET static void copy_line(uchar* dst, const uchar* src, bool stream) {
#pragma GCC unroll 4
    for (i64 o = 0; o < 64; o += static_cast<i64>(sizeof(Reg))) Io::put(dst + o, Io::get(src + o), stream);
  }
};

// Tiles narrower than a cache line read each input line of a line square L / K times and
// write each output line as often; with a row pitch of a multiple of 4 KiB those lines all
// fall into one set of the L1, more lines than it has ways, so each of those accesses
// missed (performance notes, section 8, "Line squares through two L1 buffers"). Such kernels
// take each whole line square through buffers of L contiguous 64-byte lines instead: every
// line of the matrix read once and written once.
template <class T> constexpr bool kStaged = T::K * T::S < 64;

// Calls tile(i, j) for every K x K tile that fits in a rows x cols block and rest(i0, i1, j0,
// j1) for the strips no tile covers. Tiles are grouped into L x L line squares, column of
// tiles by column of tiles, so consecutive tiles fill the same output lines and every line a
// square touches, on either side, is whole before the next square starts: no line has to
// survive in cache from one square to the next (with a power-of-two row pitch all of a
// column's lines fall into a few cache sets, and would not).
// Where the tiles are narrower than a line, square(I, J) takes each whole line square instead.
template <class T, class Tile, class Rest, class Square>
TLAB_SIMD_TARGET inline void cover(i64 rows, i64 cols, const Tile& tile, const Rest& rest, const Square& square) {
  constexpr i64 K = T::K, L = T::L;
  const i64 sr = rows / L * L, sc = cols / L * L, kr = rows / K * K, kc = cols / K * K;
  for (i64 I = 0; I < sr; I += L)
    for (i64 J = 0; J < sc; J += L) {
      if constexpr (kStaged<T>) {
        square(I, J);
        continue;
      }
      for (i64 tj = 0; tj < L; tj += K)
        for (i64 ti = 0; ti < L; ti += K) tile(I + ti, J + tj);
    }
  for (i64 i = 0; i < sr; i += K)
    for (i64 j = sc; j < kc; j += K) tile(i, j);
  for (i64 i = sr; i < kr; i += K)
    for (i64 j = 0; j < kc; j += K) tile(i, j);
  if (kc < cols) rest(0, kr, kc, cols);
  if (kr < rows) rest(kr, rows, 0, cols);
}

template <class T> struct CopyTile {
  const uchar* in;
  uchar* out;
  i64 ld_in, ld_out;  // bytes
  bool stream;
  TLAB_SIMD_TARGET void operator()(i64 i, i64 j) const {
    typename T::Reg r[T::K];
    T::load(in + i * ld_in + j * T::S, ld_in, r);
    T::transpose(r);
    T::store(out + j * ld_out + i * T::S, ld_out, r, stream);
  }
};

// Both tiles are read before either is written, so a diagonal block's own mirror tiles
// (a == b) swap correctly too.
template <class T> struct SwapTile {
  uchar* a;
  uchar* b;
  i64 ld;  // bytes
  TLAB_SIMD_TARGET void operator()(i64 i, i64 j) const {
    typename T::Reg ra[T::K], rb[T::K];
    uchar* pa = a + i * ld + j * T::S;
    uchar* pb = b + j * ld + i * T::S;
    T::load(pa, ld, ra);
    T::load(pb, ld, rb);
    T::transpose(ra);
    T::transpose(rb);
    T::store(pb, ld, ra, false);
    T::store(pa, ld, rb, false);
  }
};

template <i64 S> struct ScalarCopyRest {
  const Piece& p;
  TLAB_SIMD_TARGET void operator()(i64 i0, i64 i1, i64 j0, i64 j1) const { scalar_transpose<S>(p, i0, i1, j0, j1); }
};
template <i64 S> struct ScalarSwapRest {
  const PiecePair& p;
  TLAB_SIMD_TARGET void operator()(i64 i0, i64 i1, i64 j0, i64 j1) const { scalar_swap<S>(p, i0, i1, j0, j1); }
};

template <class T> struct SquareBuffer {
  static_assert(T::L * T::S == 64, "a line square's rows are one 64-byte line");
  alignas(64) uchar line[T::L][64];
};

// The L x L line square at src (row pitch ld bytes) into the buffer, line by line.
template <class T> TLAB_SIMD_TARGET inline void fill(SquareBuffer<T>& b, const uchar* src, i64 ld) {
  for (i64 r = 0; r < T::L; ++r) T::copy_line(b.line[r], src + r * ld, false);
}
// The buffer's square transposed, tile by tile, into out, then out's lines to dst.
template <class T>
TLAB_SIMD_TARGET inline void drain_transposed(const SquareBuffer<T>& b, SquareBuffer<T>& out, uchar* dst, i64 ld,
                                              bool stream) {
  const CopyTile<T> tile{b.line[0], out.line[0], 64, 64, false};
  for (i64 tj = 0; tj < T::L; tj += T::K)
    for (i64 ti = 0; ti < T::L; ti += T::K) tile(ti, tj);
  for (i64 r = 0; r < T::L; ++r) T::copy_line(dst + r * ld, out.line[r], stream);
}

template <class T> struct CopySquare {
  const uchar* in;
  uchar* out;
  i64 ld_in, ld_out;  // bytes
  bool stream;
  TLAB_SIMD_TARGET void operator()(i64 i, i64 j) const {
    SquareBuffer<T> a, b;
    fill(a, in + i * ld_in + j * T::S, ld_in);
    drain_transposed(a, b, out + j * ld_out + i * T::S, ld_out, stream);
  }
};

// A line square of a and its mirror in b, both read before either is written; for a
// diagonal block's own diagonal square (a == b, i == j) only the one.
template <class T> struct SwapSquare {
  uchar* a;
  uchar* b;
  i64 ld;  // bytes
  TLAB_SIMD_TARGET void operator()(i64 i, i64 j) const {
    uchar* pa = a + i * ld + j * T::S;
    uchar* pb = b + j * ld + i * T::S;
    SquareBuffer<T> x, y, t;
    fill(x, pa, ld);
    if (pa == pb) return drain_transposed(x, t, pa, ld, false);
    fill(y, pb, ld);
    drain_transposed(x, t, pb, ld, false);
    drain_transposed(y, t, pa, ld, false);
  }
};

template <class T> TLAB_SIMD_TARGET void transpose_piece(const Piece& p, bool stream) {
  cover<T>(p.rows, p.cols, CopyTile<T>{p.in, p.out, p.ld_in * T::S, p.ld_out * T::S, stream},
           ScalarCopyRest<T::S>{p}, CopySquare<T>{p.in, p.out, p.ld_in * T::S, p.ld_out * T::S, stream});
  if (stream) T::fence();
}

template <class T> TLAB_SIMD_TARGET void swap_piece(const PiecePair& p) {
  cover<T>(p.rows, p.cols, SwapTile<T>{p.a, p.b, p.ld * T::S}, ScalarSwapRest<T::S>{p}, SwapSquare<T>{p.a, p.b, p.ld * T::S});
}

// A square block on the diagonal: each diagonal tile (for staged kernels, each whole line
// square) transposed where it is, each one above the diagonal swapped with its mirror, and
// the strip beyond the last whole tile swapped element by element.
template <class T> TLAB_SIMD_TARGET void diagonal_piece(const PiecePair& p) {
  constexpr i64 K = T::K, L = T::L;
  const i64 n = p.rows, kn = n / K * K, ld = p.ld * T::S;
  // Staged kernels take the whole line squares (the first sn rows and columns) by squares,
  // the tiles only beyond them.
  const i64 sn = kStaged<T> ? n / L * L : 0;
  const SwapSquare<T> square{p.a, p.a, ld};
  for (i64 I = 0; I < sn; I += L)
    for (i64 J = I; J < sn; J += L) square(I, J);
  const SwapTile<T> swap{p.a, p.a, ld};
  for (i64 t = 0; t < kn; t += K) {
    if (t >= sn) {
      typename T::Reg r[K];
      uchar* d = p.a + t * ld + t * T::S;
      T::load(d, ld, r);
      T::transpose(r);
      T::store(d, ld, r, false);
    }
    for (i64 u = std::max(t + K, sn); u < kn; u += K) swap(t, u);
  }
  if (kn < n) scalar_swap<T::S>(p, 0, n, kn, n);
}

}  // namespace tlab::cpu::simd::TLAB_SIMD_NS
