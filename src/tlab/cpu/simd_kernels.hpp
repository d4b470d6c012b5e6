// What the transpose drivers (simd_transpose.cpp) ask of one instruction set: per element
// size, a function that transposes one block out of place, one that swaps a block with the
// transpose of its mirror block, and one that transposes a diagonal block in place. Each
// instruction set's file (simd_kernels_{scalar,avx2,avx512,neon}.cpp) fills one table; the
// drivers own the blocking, the threads and the choice of non-temporal stores.
#pragma once
#include <cstddef>
#include <cstdint>

namespace tlab::cpu::simd {

// Out of place: out(j, i) = in(i, j) for i < rows, j < cols. Leading dimensions in elements.
struct Piece {
  const unsigned char* in;
  unsigned char* out;
  std::int64_t rows, cols, ld_in, ld_out;
};
// In place, two blocks of one square matrix: a (rows x cols) and its mirror b (cols x rows);
// a(i, j) and b(j, i) are exchanged. For a diagonal block a == b and rows == cols.
struct PiecePair {
  unsigned char* a;
  unsigned char* b;
  std::int64_t rows, cols, ld;
};

using TransposeFn = void (*)(const Piece&, bool stream);
using SwapFn = void (*)(const PiecePair&);

// Element sizes 1, 2, 4, 8 and 16 bytes, by their log2.
constexpr int kSizes = 5;
inline int size_index(std::size_t elem) {
  switch (elem) {
    case 1: return 0;
    case 2: return 1;
    case 4: return 2;
    case 8: return 3;
    case 16: return 4;
  }
  return -1;
}

struct Kernels {
  const char* isa;
  TransposeFn transpose[kSizes];
  SwapFn swap[kSizes];      // two mirror blocks
  SwapFn diagonal[kSizes];  // one block on the diagonal (a == b)
  // Elements per side of the smallest square whose rows are whole cache lines on both
  // sides; block sizes are multiples of it, so every block starts on such a square.
  std::int64_t line_square[kSizes];
  // Alignment (bytes) the output and its row pitch need for non-temporal stores; 0: this
  // instruction set never streams that size.
  unsigned stream_align[kSizes];
};

const Kernels& scalar_kernels();
#if TLAB_HAVE_X86_SIMD
const Kernels& avx2_kernels();
const Kernels& avx512_kernels();
#endif
#if TLAB_HAVE_NEON
const Kernels& neon_kernels();
#endif

}  // namespace tlab::cpu::simd
