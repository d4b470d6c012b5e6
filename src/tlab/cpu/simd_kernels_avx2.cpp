// AVX2 micro-kernels (the 16-byte rows of the one-byte kernel are SSE2), compiled with
// target("avx2") function by function rather than -mavx2 for the file, so that the program
// still starts on a CPU without AVX2: cpu_dispatch.cpp only calls these after the CPU said
// it has AVX2.
//
// Each kernel transposes a tile held in registers by rounds of interleaves: pairs of rows,
// then pairs of pairs, each round doubling the width of the units it moves, until every
// register holds one column; a last round across 128-bit lanes where the tile is wider
// than a lane.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#define TLAB_SIMD_NS avx2
#define TLAB_SIMD_TARGET __attribute__((target("avx2")))
#include "tlab/cpu/simd_pieces.inl"

// The vector types carry may_alias, which a template argument drops: harmless here, since
// registers are only ever reached through arrays of their own type.
#pragma GCC diagnostic ignored "-Wignored-attributes"

namespace tlab::cpu::simd::avx2 {
namespace {

TLAB_SIMD_IO(IoPs, __m256, float, _mm256_loadu_ps, _mm256_storeu_ps, _mm256_stream_ps);
TLAB_SIMD_IO(IoPd, __m256d, double, _mm256_loadu_pd, _mm256_storeu_pd, _mm256_stream_pd);
TLAB_SIMD_IO(IoSi256, __m256i, __m256i, _mm256_loadu_si256, _mm256_storeu_si256, _mm256_stream_si256);
TLAB_SIMD_IO(IoSi128, __m128i, __m128i, _mm_loadu_si128, _mm_storeu_si128, _mm_stream_si128);

// 8 x 8 floats (any 4-byte element): 32-bit interleaves, 64-bit shuffles, then lanes.
struct Tile4 : TileRows<IoPs, 8, 4, 16> {
  TLAB_SIMD_TARGET static void transpose(Reg* r) {
    Reg t[8], s[8];
#pragma GCC unroll 4
    for (int p = 0; p < 4; ++p) {
      t[2 * p] = _mm256_unpacklo_ps(r[2 * p], r[2 * p + 1]);      // columns 0 1 | 4 5 of two rows
      t[2 * p + 1] = _mm256_unpackhi_ps(r[2 * p], r[2 * p + 1]);  // columns 2 3 | 6 7
    }
#pragma GCC unroll 2
    for (int q = 0; q < 2; ++q) {  // four rows: s[4q + m] holds column m | m + 4
      s[4 * q + 0] = _mm256_shuffle_ps(t[4 * q + 0], t[4 * q + 2], 0x44);
      s[4 * q + 1] = _mm256_shuffle_ps(t[4 * q + 0], t[4 * q + 2], 0xEE);
      s[4 * q + 2] = _mm256_shuffle_ps(t[4 * q + 1], t[4 * q + 3], 0x44);
      s[4 * q + 3] = _mm256_shuffle_ps(t[4 * q + 1], t[4 * q + 3], 0xEE);
    }
#pragma GCC unroll 4
    for (int c = 0; c < 4; ++c) {
      r[c] = _mm256_permute2f128_ps(s[c], s[4 + c], 0x20);
      r[c + 4] = _mm256_permute2f128_ps(s[c], s[4 + c], 0x31);
    }
  }
};

// 4 x 4 doubles (any 8-byte element).
struct Tile8 : TileRows<IoPd, 4, 8, 8> {
  TLAB_SIMD_TARGET static void transpose(Reg* r) {
    const Reg t0 = _mm256_unpacklo_pd(r[0], r[1]), t1 = _mm256_unpackhi_pd(r[0], r[1]);
    const Reg t2 = _mm256_unpacklo_pd(r[2], r[3]), t3 = _mm256_unpackhi_pd(r[2], r[3]);
    r[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
    r[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
    r[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
    r[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
  }
};

// 16 x 16 two-byte elements: an 8 x 8 transpose inside each 128-bit lane (16-, 32-, then
// 64-bit interleaves), then the lanes of the two halves exchanged.
struct Tile2 : TileRows<IoSi256, 16, 2, 32> {
  TLAB_SIMD_TARGET static void transpose(Reg* r) {
    Reg s[16], u[16], x[16];
#pragma GCC unroll 8
    for (int p = 0; p < 8; ++p) {
      s[2 * p] = _mm256_unpacklo_epi16(r[2 * p], r[2 * p + 1]);      // columns 0-3 (lane 1: 8-11)
      s[2 * p + 1] = _mm256_unpackhi_epi16(r[2 * p], r[2 * p + 1]);  // columns 4-7 (12-15)
    }
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) {  // four rows; u[4q + m] holds columns 2m, 2m + 1
      u[4 * q + 0] = _mm256_unpacklo_epi32(s[4 * q], s[4 * q + 2]);
      u[4 * q + 1] = _mm256_unpackhi_epi32(s[4 * q], s[4 * q + 2]);
      u[4 * q + 2] = _mm256_unpacklo_epi32(s[4 * q + 1], s[4 * q + 3]);
      u[4 * q + 3] = _mm256_unpackhi_epi32(s[4 * q + 1], s[4 * q + 3]);
    }
#pragma GCC unroll 2
    for (int h = 0; h < 2; ++h)  // eight rows; x[8h + c] holds column c (lane 1: c + 8)
#pragma GCC unroll 4
      for (int m = 0; m < 4; ++m) {
        x[8 * h + 2 * m] = _mm256_unpacklo_epi64(u[8 * h + m], u[8 * h + 4 + m]);
        x[8 * h + 2 * m + 1] = _mm256_unpackhi_epi64(u[8 * h + m], u[8 * h + 4 + m]);
      }
#pragma GCC unroll 8
    for (int c = 0; c < 8; ++c) {
      r[c] = _mm256_permute2x128_si256(x[c], x[8 + c], 0x20);
      r[c + 8] = _mm256_permute2x128_si256(x[c], x[8 + c], 0x31);
    }
  }
};

// 16 x 16 bytes in 16-byte registers: 8-, 16-, 32- and 64-bit interleaves.
struct Tile1 : TileRows<IoSi128, 16, 1, 64> {
  TLAB_SIMD_TARGET static void transpose(Reg* r) {
    Reg s[16], u[16], x[16];
#pragma GCC unroll 8
    for (int p = 0; p < 8; ++p) {
      s[2 * p] = _mm_unpacklo_epi8(r[2 * p], r[2 * p + 1]);      // columns 0-7 of two rows
      s[2 * p + 1] = _mm_unpackhi_epi8(r[2 * p], r[2 * p + 1]);  // columns 8-15
    }
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) {  // four rows; u[4q + m] holds columns 4m .. 4m + 3
      u[4 * q + 0] = _mm_unpacklo_epi16(s[4 * q], s[4 * q + 2]);
      u[4 * q + 1] = _mm_unpackhi_epi16(s[4 * q], s[4 * q + 2]);
      u[4 * q + 2] = _mm_unpacklo_epi16(s[4 * q + 1], s[4 * q + 3]);
      u[4 * q + 3] = _mm_unpackhi_epi16(s[4 * q + 1], s[4 * q + 3]);
    }
#pragma GCC unroll 2
    for (int h = 0; h < 2; ++h)  // eight rows; x[8h + k] holds columns 2k, 2k + 1
#pragma GCC unroll 4
      for (int m = 0; m < 4; ++m) {
        x[8 * h + 2 * m] = _mm_unpacklo_epi32(u[8 * h + m], u[8 * h + 4 + m]);
        x[8 * h + 2 * m + 1] = _mm_unpackhi_epi32(u[8 * h + m], u[8 * h + 4 + m]);
      }
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k) {
      r[2 * k] = _mm_unpacklo_epi64(x[k], x[8 + k]);
      r[2 * k + 1] = _mm_unpackhi_epi64(x[k], x[8 + k]);
    }
  }
};

// 2 x 2 sixteen-byte elements: one lane exchange.
struct Tile16 : TileRows<IoPd, 2, 16, 4> {
  TLAB_SIMD_TARGET static void transpose(Reg* r) {
    const Reg a = r[0], b = r[1];
    r[0] = _mm256_permute2f128_pd(a, b, 0x20);
    r[1] = _mm256_permute2f128_pd(a, b, 0x31);
  }
};

}  // namespace

const Kernels& kernels() {
  static const Kernels k{
      "avx2",
      {transpose_piece<Tile1>, transpose_piece<Tile2>, transpose_piece<Tile4>, transpose_piece<Tile8>,
       transpose_piece<Tile16>},
      {swap_piece<Tile1>, swap_piece<Tile2>, swap_piece<Tile4>, swap_piece<Tile8>, swap_piece<Tile16>},
      {diagonal_piece<Tile1>, diagonal_piece<Tile2>, diagonal_piece<Tile4>, diagonal_piece<Tile8>,
       diagonal_piece<Tile16>},
      {Tile1::L, Tile2::L, Tile4::L, Tile8::L, Tile16::L},
      {16, 32, 32, 32, 32},
  };
  return k;
}

}  // namespace tlab::cpu::simd::avx2

namespace tlab::cpu::simd {
const Kernels& avx2_kernels() { return avx2::kernels(); }
}  // namespace tlab::cpu::simd
