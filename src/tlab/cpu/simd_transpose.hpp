// The SIMD transposes as a plan and its execution, each piece covered by the instruction
// set's line squares and micro-kernels (simd_kernels.hpp), pieces shared among threads in
// contiguous runs. Out of place, a piece is a band of B rows one line square wide: it reads one
// cache line from each of B input rows and writes one line square's worth of output rows, B
// elements of each in one contiguous run, so that the output is written as a few long
// sequential streams; the band's pages stay in the TLB from one piece to the next. Where the
// stores stream (below), a piece is a 64 x 64 block instead, which measured faster there. In
// place, a piece is a pair of mirror B x B blocks.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tlab/cpu/simd_kernels.hpp"
#include "tlab/machine_facts.hpp"
#include "tlab/matrix.hpp"

namespace tlab::cpu {

enum class Streaming { automatic, never, always };

struct SimdPlan {
  const simd::Kernels* kernels = nullptr;
  int threads = 1;
  std::int64_t block = 0;  // rows per band out of place, block side in place; 0: the defaults below
  // automatic: non-temporal stores when the output is larger than the last-level cache
  // (streaming_threshold): then it cannot stay cached for a reader anyway, and streaming saves
  // reading every output line before writing it. Any choice falls back to plain stores where
  // the output or its row pitch lacks the alignment the stores need.
  Streaming streaming = Streaming::automatic;
};

std::int64_t default_block(std::size_t elem);  // in place
std::int64_t default_band(std::size_t elem);   // out of place

// Where automatic streaming starts: the last-level cache of the environment record
// (machine_facts: cache_l3, else cache_l2 on a CPU without an L3, from whichever source
// answered), else a fallback. `from` says which, for env.json.
struct StreamingThreshold {
  std::size_t bytes;
  std::string from;  // "cache_l3 (sysconf)", or why the fallback was taken
};
constexpr std::size_t kFallbackStreamingBytes = std::size_t{32} << 20;
StreamingThreshold streaming_threshold(const std::vector<Fact>& facts);
const StreamingThreshold& streaming_threshold();  // this machine's, computed once per process

// out (s.cols x s.rows) = transpose of in (s.rows x s.cols), elements of `elem` bytes.
void simd_transpose(const SimdPlan& plan, const void* in, void* out, Shape s, std::size_t elem);
// The n x n matrix a transposed where it is.
void simd_transpose_in_place(const SimdPlan& plan, void* a, std::int64_t n, std::size_t elem);

}  // namespace tlab::cpu
