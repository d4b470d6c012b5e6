// AArch64 micro-kernels (Advanced SIMD, which every AArch64 CPU has: no run-time check and no
// target attribute). A tile is K rows of one 16-byte register each: 16 x 16 bytes, 8 x 8
// two-byte, 4 x 4 four-byte and 2 x 2 eight-byte elements; a 16-byte element is a tile of
// one. The transpose is one round of TRN1/TRN2 per bit of the row index: the round on units
// of u elements pairs row i with row i + u (i's bit u clear) and exchanges that bit of the
// row index with the same bit of the column index, so after the last round every register
// holds one column. There is no non-temporal store the compiler will emit from these
// intrinsics (STNP needs inline assembly), so this path never streams.
#include <arm_neon.h>

#include <algorithm>
#include <cstdint>

#define TLAB_SIMD_NS neon
#define TLAB_SIMD_TARGET
#include "tlab/cpu/simd_pieces.inl"

namespace tlab::cpu::simd::neon {
namespace {

using Reg = uint8x16_t;

// The two TRN halves of a and b on units of B bytes.
template <int B> inline void trn(Reg& a, Reg& b) {
  Reg lo, hi;
  if constexpr (B == 1) {
    lo = vtrn1q_u8(a, b), hi = vtrn2q_u8(a, b);
  } else if constexpr (B == 2) {
    const uint16x8_t x = vreinterpretq_u16_u8(a), y = vreinterpretq_u16_u8(b);
    lo = vreinterpretq_u8_u16(vtrn1q_u16(x, y)), hi = vreinterpretq_u8_u16(vtrn2q_u16(x, y));
  } else if constexpr (B == 4) {
    const uint32x4_t x = vreinterpretq_u32_u8(a), y = vreinterpretq_u32_u8(b);
    lo = vreinterpretq_u8_u32(vtrn1q_u32(x, y)), hi = vreinterpretq_u8_u32(vtrn2q_u32(x, y));
  } else {
    static_assert(B == 8, "units of 1, 2, 4 or 8 bytes");
    const uint64x2_t x = vreinterpretq_u64_u8(a), y = vreinterpretq_u64_u8(b);
    lo = vreinterpretq_u8_u64(vtrn1q_u64(x, y)), hi = vreinterpretq_u8_u64(vtrn2q_u64(x, y));
  }
  a = lo, b = hi;
}

// Rounds on units of u = 1, 2, .. K / 2 elements of S bytes: pairs (i, i + u) for every i
// whose bit u is clear.
template <int K, int S, int U = 1> inline void rounds(Reg* r) {
  if constexpr (U < K) {
#pragma GCC unroll 8
    for (int i = 0; i < K; ++i)
      if ((i & U) == 0) trn<U * S>(r[i], r[i + U]);
    rounds<K, S, 2 * U>(r);
  }
}

struct Io {
  using Reg = neon::Reg;
  static Reg get(const uchar* p) { return vld1q_u8(p); }
  static void put(uchar* p, Reg v, bool) { vst1q_u8(p, v); }
  static void fence() {}
};

// K x K elements of S bytes, one register a row; L: the line square of 64-byte lines.
template <int S> struct Tile : TileRows<Io, 16 / S, S, 64 / S> {
  static void transpose(Reg* r) { rounds<16 / S, S>(r); }
};

}  // namespace

const Kernels& kernels() {
  static const Kernels k{
      "neon",
      {transpose_piece<Tile<1>>, transpose_piece<Tile<2>>, transpose_piece<Tile<4>>, transpose_piece<Tile<8>>,
       transpose_piece<Tile<16>>},
      {swap_piece<Tile<1>>, swap_piece<Tile<2>>, swap_piece<Tile<4>>, swap_piece<Tile<8>>, swap_piece<Tile<16>>},
      {diagonal_piece<Tile<1>>, diagonal_piece<Tile<2>>, diagonal_piece<Tile<4>>, diagonal_piece<Tile<8>>,
       diagonal_piece<Tile<16>>},
      {Tile<1>::L, Tile<2>::L, Tile<4>::L, Tile<8>::L, Tile<16>::L},
      {0, 0, 0, 0, 0},
  };
  return k;
}

}  // namespace tlab::cpu::simd::neon

namespace tlab::cpu::simd {
const Kernels& neon_kernels() { return neon::kernels(); }
}  // namespace tlab::cpu::simd
