// AVX-512 micro-kernels for 4-, 8- and 16-byte elements, compiled with target("avx512f")
// function by function (see simd_kernels_avx2.cpp for why not -mavx512f). A tile is as wide
// as a cache line: 16 x 16 four-byte, 8 x 8 eight-byte and 4 x 4 sixteen-byte elements, so
// every load and every store is one whole line. One- and two-byte elements keep the AVX2
// kernels (a line of them is a 64 x 64 or 32 x 32 tile, more than the 32 registers hold).
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#define TLAB_SIMD_NS avx512
#define TLAB_SIMD_TARGET __attribute__((target("avx512f")))
#include "tlab/cpu/simd_pieces.inl"

// The vector types carry may_alias, which a template argument drops: harmless here, since
// registers are only ever reached through arrays of their own type.
#pragma GCC diagnostic ignored "-Wignored-attributes"
// GCC 12's _mm512_undefined_pd, inside _mm512_shuffle_f64x2, reads itself on purpose.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace tlab::cpu::simd::avx512 {
namespace {

TLAB_SIMD_IO(IoPs, __m512, float, _mm512_loadu_ps, _mm512_storeu_ps, _mm512_stream_ps);
TLAB_SIMD_IO(IoPd, __m512d, double, _mm512_loadu_pd, _mm512_storeu_pd, _mm512_stream_pd);

// The last two rounds of the 4- and 8-byte kernels: four registers g0..g3, one from each group
// of rows, each holding four 128-bit lanes of columns; lanes 0 and 2 (even) and 1 and 3 (odd)
// of two groups, then of the pairs, give the four columns those lanes hold. Shuffle::f<imm>
// is the lane shuffle of the element width (f32x4 or f64x2; the same lane selectors).
template <class Shuffle, class Reg>
TLAB_SIMD_TARGET inline void gather_lanes(Reg g0, Reg g1, Reg g2, Reg g3, Reg* even_lo, Reg* even_hi, Reg* odd_lo,
                                          Reg* odd_hi) {
  const Reg even01 = Shuffle::template f<0x88>(g0, g1), even23 = Shuffle::template f<0x88>(g2, g3);
  const Reg odd01 = Shuffle::template f<0xDD>(g0, g1), odd23 = Shuffle::template f<0xDD>(g2, g3);
  *even_lo = Shuffle::template f<0x88>(even01, even23);
  *even_hi = Shuffle::template f<0xDD>(even01, even23);
  *odd_lo = Shuffle::template f<0x88>(odd01, odd23);
  *odd_hi = Shuffle::template f<0xDD>(odd01, odd23);
}
struct LanesPs {
  template <int imm> TLAB_SIMD_TARGET static __m512 f(__m512 a, __m512 b) { return _mm512_shuffle_f32x4(a, b, imm); }
};
struct LanesPd {
  template <int imm> TLAB_SIMD_TARGET static __m512d f(__m512d a, __m512d b) { return _mm512_shuffle_f64x2(a, b, imm); }
};

// One register row is one cache line, so a tile is its own line square (L = K).
// 16 x 16 four-byte elements: 32- and 64-bit interleaves inside each 128-bit lane leave
// register 4q + m of four rows holding columns m, m + 4, m + 8, m + 12 in its four lanes; two
// rounds of lane shuffles gather each column's four lanes from the four groups of rows.
struct Tile4 : TileRows<IoPs, 16, 4, 16> {
  TLAB_SIMD_TARGET static void transpose(Reg* r) {
    Reg t[16], s[16];
#pragma GCC unroll 8
    for (int p = 0; p < 8; ++p) {
      t[2 * p] = _mm512_unpacklo_ps(r[2 * p], r[2 * p + 1]);
      t[2 * p + 1] = _mm512_unpackhi_ps(r[2 * p], r[2 * p + 1]);
    }
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) {
      s[4 * q + 0] = _mm512_shuffle_ps(t[4 * q + 0], t[4 * q + 2], 0x44);
      s[4 * q + 1] = _mm512_shuffle_ps(t[4 * q + 0], t[4 * q + 2], 0xEE);
      s[4 * q + 2] = _mm512_shuffle_ps(t[4 * q + 1], t[4 * q + 3], 0x44);
      s[4 * q + 3] = _mm512_shuffle_ps(t[4 * q + 1], t[4 * q + 3], 0xEE);
    }
#pragma GCC unroll 4
    for (int m = 0; m < 4; ++m) gather_lanes<LanesPs>(s[m], s[4 + m], s[8 + m], s[12 + m], &r[m], &r[m + 8], &r[m + 4], &r[m + 12]);
  }
};

// 8 x 8 eight-byte elements: one 64-bit interleave leaves register 2p + e of two rows holding
// columns e, e + 2, e + 4, e + 6; the same two rounds of lane shuffles gather the columns.
struct Tile8 : TileRows<IoPd, 8, 8, 8> {
  TLAB_SIMD_TARGET static void transpose(Reg* r) {
    Reg t[8];
#pragma GCC unroll 4
    for (int p = 0; p < 4; ++p) {
      t[2 * p] = _mm512_unpacklo_pd(r[2 * p], r[2 * p + 1]);
      t[2 * p + 1] = _mm512_unpackhi_pd(r[2 * p], r[2 * p + 1]);
    }
#pragma GCC unroll 2
    for (int e = 0; e < 2; ++e) gather_lanes<LanesPd>(t[e], t[2 + e], t[4 + e], t[6 + e], &r[e], &r[e + 4], &r[e + 2], &r[e + 6]);
  }
};

// 4 x 4 sixteen-byte elements, one per 128-bit lane: pairs of rows, then pairs of pairs.
struct Tile16 : TileRows<IoPd, 4, 16, 4> {
  TLAB_SIMD_TARGET static void transpose(Reg* r) {
    const Reg v0 = _mm512_shuffle_f64x2(r[0], r[1], 0x44);  // a0 a1 b0 b1
    const Reg v1 = _mm512_shuffle_f64x2(r[0], r[1], 0xEE);  // a2 a3 b2 b3
    const Reg v2 = _mm512_shuffle_f64x2(r[2], r[3], 0x44);  // c0 c1 d0 d1
    const Reg v3 = _mm512_shuffle_f64x2(r[2], r[3], 0xEE);  // c2 c3 d2 d3
    r[0] = _mm512_shuffle_f64x2(v0, v2, 0x88);
    r[1] = _mm512_shuffle_f64x2(v0, v2, 0xDD);
    r[2] = _mm512_shuffle_f64x2(v1, v3, 0x88);
    r[3] = _mm512_shuffle_f64x2(v1, v3, 0xDD);
  }
};

}  // namespace

const Kernels& kernels() {
  static const Kernels k = [] {
    Kernels t = avx2_kernels();
    t.isa = "avx512";
    t.transpose[2] = transpose_piece<Tile4>;
    t.transpose[3] = transpose_piece<Tile8>;
    t.transpose[4] = transpose_piece<Tile16>;
    t.swap[2] = swap_piece<Tile4>;
    t.swap[3] = swap_piece<Tile8>;
    t.swap[4] = swap_piece<Tile16>;
    t.diagonal[2] = diagonal_piece<Tile4>;
    t.diagonal[3] = diagonal_piece<Tile8>;
    t.diagonal[4] = diagonal_piece<Tile16>;
    for (int k = 2; k < kSizes; ++k) {
      t.line_square[k] = std::max<std::int64_t>(t.line_square[k], 64 / (std::int64_t{1} << k));
      t.stream_align[k] = 64;
    }
    return t;
  }();
  return k;
}

}  // namespace tlab::cpu::simd::avx512

namespace tlab::cpu::simd {
const Kernels& avx512_kernels() { return avx512::kernels(); }
}  // namespace tlab::cpu::simd
