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

// One register's load, store and stream store (see simd_kernels_avx2.cpp).
struct IoPs {
  using Reg = __m512;
  TLAB_SIMD_TARGET static Reg get(const uchar* p) { return _mm512_loadu_ps(reinterpret_cast<const float*>(p)); }
  TLAB_SIMD_TARGET static void put(uchar* p, Reg v, bool stream) {
    if (stream) _mm512_stream_ps(reinterpret_cast<float*>(p), v);
    else _mm512_storeu_ps(reinterpret_cast<float*>(p), v);
  }
  TLAB_SIMD_TARGET static void fence() { _mm_sfence(); }
};
struct IoPd {
  using Reg = __m512d;
  TLAB_SIMD_TARGET static Reg get(const uchar* p) { return _mm512_loadu_pd(reinterpret_cast<const double*>(p)); }
  TLAB_SIMD_TARGET static void put(uchar* p, Reg v, bool stream) {
    if (stream) _mm512_stream_pd(reinterpret_cast<double*>(p), v);
    else _mm512_storeu_pd(reinterpret_cast<double*>(p), v);
  }
  TLAB_SIMD_TARGET static void fence() { _mm_sfence(); }
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
    for (int m = 0; m < 4; ++m) {
      const Reg even01 = _mm512_shuffle_f32x4(s[m], s[4 + m], 0x88);  // lanes 0, 2 of groups 0, 1
      const Reg even23 = _mm512_shuffle_f32x4(s[8 + m], s[12 + m], 0x88);
      const Reg odd01 = _mm512_shuffle_f32x4(s[m], s[4 + m], 0xDD);  // lanes 1, 3
      const Reg odd23 = _mm512_shuffle_f32x4(s[8 + m], s[12 + m], 0xDD);
      r[m] = _mm512_shuffle_f32x4(even01, even23, 0x88);
      r[m + 8] = _mm512_shuffle_f32x4(even01, even23, 0xDD);
      r[m + 4] = _mm512_shuffle_f32x4(odd01, odd23, 0x88);
      r[m + 12] = _mm512_shuffle_f32x4(odd01, odd23, 0xDD);
    }
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
    for (int e = 0; e < 2; ++e) {
      const Reg even01 = _mm512_shuffle_f64x2(t[e], t[2 + e], 0x88);
      const Reg even23 = _mm512_shuffle_f64x2(t[4 + e], t[6 + e], 0x88);
      const Reg odd01 = _mm512_shuffle_f64x2(t[e], t[2 + e], 0xDD);
      const Reg odd23 = _mm512_shuffle_f64x2(t[4 + e], t[6 + e], 0xDD);
      r[e] = _mm512_shuffle_f64x2(even01, even23, 0x88);
      r[e + 4] = _mm512_shuffle_f64x2(even01, even23, 0xDD);
      r[e + 2] = _mm512_shuffle_f64x2(odd01, odd23, 0x88);
      r[e + 6] = _mm512_shuffle_f64x2(odd01, odd23, 0xDD);
    }
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
