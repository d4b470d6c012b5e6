// The SIMD transposes as a plan and its execution: blocks of B x B elements (so that the
// pages a block touches stay in the TLB while its rows are swept), each block covered by the
// instruction set's line squares and micro-kernels (simd_kernels.hpp), blocks shared among
// threads in contiguous runs.
#pragma once
#include <cstddef>
#include <cstdint>

#include "tlab/cpu/simd_kernels.hpp"
#include "tlab/matrix.hpp"

namespace tlab::cpu {

enum class Streaming { automatic, never, always };

struct SimdPlan {
  const simd::Kernels* kernels = nullptr;
  int threads = 1;
  std::int64_t block = 0;  // elements per block side; 0: default_block(elem)
  // automatic: non-temporal stores when the output is larger than the last-level cache share
  // (streaming_threshold_bytes): then it cannot stay cached for a reader anyway, and streaming
  // saves reading every output line before writing it. Any choice falls back to plain stores
  // where the output or its row pitch lacks the alignment the stores need.
  Streaming streaming = Streaming::automatic;
};

std::int64_t default_block(std::size_t elem);
std::size_t last_level_cache_bytes();  // as the C library reports it; 32 MiB when it does not
std::size_t streaming_threshold_bytes();  // outputs larger than this stream (automatic)

// out (s.cols x s.rows) = transpose of in (s.rows x s.cols), elements of `elem` bytes.
void simd_transpose(const SimdPlan& plan, const void* in, void* out, Shape s, std::size_t elem);
// The n x n matrix a transposed where it is.
void simd_transpose_in_place(const SimdPlan& plan, void* a, std::int64_t n, std::size_t elem);

}  // namespace tlab::cpu
