// The portable path: the drivers' blocking with plain element moves inside each block. It is
// what a CPU without AVX2 (or a non-x86 CPU) runs, and what TLAB_CPU_ISA=scalar forces.
#include <algorithm>
#include <cstdint>

#define TLAB_SIMD_NS scalar
#define TLAB_SIMD_TARGET
#include "tlab/cpu/simd_pieces.inl"

namespace tlab::cpu::simd {

const Kernels& scalar_kernels() {
  using namespace scalar;
  static const Kernels k{
      "scalar",
      {scalar_transpose_piece<1>, scalar_transpose_piece<2>, scalar_transpose_piece<4>, scalar_transpose_piece<8>,
       scalar_transpose_piece<16>},
      {scalar_swap_piece<1>, scalar_swap_piece<2>, scalar_swap_piece<4>, scalar_swap_piece<8>, scalar_swap_piece<16>},
      {scalar_swap_piece<1>, scalar_swap_piece<2>, scalar_swap_piece<4>, scalar_swap_piece<8>, scalar_swap_piece<16>},
      {64, 32, 16, 8, 4},
      {0, 0, 0, 0, 0},
  };
  return k;
}

}  // namespace tlab::cpu::simd
