#include "tlab/cpu/simd_transpose.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "tlab/cpu/threads.hpp"

namespace tlab::cpu {

namespace {
int index_of(std::size_t elem) {
  const int k = simd::size_index(elem);
  if (k < 0) throw std::invalid_argument("SIMD transpose: no kernels for " + std::to_string(elem) + "-byte elements");
  return k;
}

std::int64_t rounded_to_squares(const SimdPlan& p, std::size_t elem, std::int64_t b) {
  const std::int64_t square = p.kernels->line_square[index_of(elem)];
  return std::max(square, b / square * square);  // whole line squares, so pieces start on one
}

bool aligned(const void* p, unsigned to) { return to && reinterpret_cast<std::uintptr_t>(p) % to == 0; }
}  // namespace

// 64 x 64: a block's 64 input and 64 output rows are 128 pages, within the first-level TLB,
// and 64 was the fastest of 32..256 at 8192^2 float on the development machine (noisy; see
// docs/performance-notes.md). Every element size keeps 64 rows so that the TLB argument holds.
std::int64_t default_block(std::size_t) { return 64; }

// 256 rows: the fastest of 128..1024 rows by 16 or 32 columns at 2048^2..16384^2 float, one
// thread, on the development machine, where 64 x 64 blocks ran 1.1-1.5x slower (plain
// stores; docs/performance-notes.md, section 8). 256 input pages stay well within the
// second-level TLB from one piece to the next.
std::int64_t default_band(std::size_t) { return 256; }
// Where the stores stream (non-temporal), the 64 x 64 blocks above stay: bands measured
// 1.1-1.7x slower there (section 8), at sizes that are also the largest of the run.

StreamingThreshold streaming_threshold(const std::vector<Fact>& facts) {
  // A CPU without an L3 has its L2 last. Sizes read "48K" from every source.
  for (const char* key : {"cache_l3", "cache_l2"})
    for (const Fact& f : facts) {
      if (f.key != key || f.value.empty()) continue;
      char* end = nullptr;
      const unsigned long long kib = std::strtoull(f.value.c_str(), &end, 10);
      if (kib > 0 && end && *end == 'K') return {static_cast<std::size_t>(kib) << 10, f.key + " (" + f.source + ")"};
    }
  // No source gave it. 32 MiB is the L3 of one core complex on recent AMD server parts and
  // about that of a client CPU; a server's larger L3 is shared by many cores, so one
  // thread's output larger than this rarely stays cached there either.
  return {kFallbackStreamingBytes, "fallback: no last-level cache size recorded"};
}

const StreamingThreshold& streaming_threshold() {
  static const StreamingThreshold t = streaming_threshold(machine_facts());
  return t;
}

void simd_transpose(const SimdPlan& plan, const void* in, void* out, Shape s, std::size_t elem) {
  const int k = index_of(elem);
  const unsigned align = plan.kernels->stream_align[k];
  const std::size_t bytes = static_cast<std::size_t>(s.elements()) * elem;
  const bool wanted = plan.streaming == Streaming::always ||
                      (plan.streaming == Streaming::automatic && bytes > streaming_threshold().bytes);
  const bool stream = wanted && aligned(out, align) && (static_cast<std::size_t>(s.rows) * elem) % align == 0;
  // Bands where stores are plain; square blocks where they stream, which measured faster
  // there (docs/performance-notes.md, section 8: 1.1-1.7x at 8192^2 double and 16384^2).
  const std::int64_t b = rounded_to_squares(plan, elem, plan.block > 0 ? plan.block
                                                        : stream       ? default_block(elem)
                                                                       : default_band(elem));
  const std::int64_t w = stream && plan.block <= 0 ? b : plan.kernels->line_square[k];  // columns per piece
  const std::int64_t nbi = (s.rows + b - 1) / b, nbj = (s.cols + w - 1) / w;
  const auto* src = static_cast<const unsigned char*>(in);
  auto* dst = static_cast<unsigned char*>(out);
  const simd::TransposeFn fn = plan.kernels->transpose[k];
  // Pieces band by band, left to right within a band, a run of them per thread.
  parallel_ranges(plan.threads, nbi * nbj, 1, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t f = first; f < last; ++f) {
      const std::int64_t i0 = f / nbj * b, j0 = f % nbj * w;
      const simd::Piece p{src + (i0 * s.cols + j0) * elem, dst + (j0 * s.rows + i0) * elem,
                          std::min(b, s.rows - i0), std::min(w, s.cols - j0), s.cols, s.rows};
      fn(p, stream);
    }
  });
}

void simd_transpose_in_place(const SimdPlan& plan, void* a, std::int64_t n, std::size_t elem) {
  const int k = index_of(elem);
  const std::int64_t b = rounded_to_squares(plan, elem, plan.block > 0 ? plan.block : default_block(elem));
  const std::int64_t nb = (n + b - 1) / b;
  auto* base = static_cast<unsigned char*>(a);
  const simd::SwapFn swap = plan.kernels->swap[k], diagonal = plan.kernels->diagonal[k];
  // The pairs (bi, bj >= bi) of the upper triangle, row by row, numbered 0 .. nb(nb+1)/2 - 1;
  // each pair is independent of every other, so threads take contiguous runs of numbers.
  const std::int64_t pairs = nb * (nb + 1) / 2;
  parallel_ranges(plan.threads, pairs, 1, [&](std::int64_t first, std::int64_t last) {
    std::int64_t bi = 0, row_start = 0;
    while (row_start + (nb - bi) <= first) row_start += nb - bi++;
    std::int64_t bj = bi + (first - row_start);
    for (std::int64_t f = first; f < last; ++f) {
      const std::int64_t i0 = bi * b, j0 = bj * b;
      const simd::PiecePair p{base + (i0 * n + j0) * elem, base + (j0 * n + i0) * elem, std::min(b, n - i0),
                              std::min(b, n - j0), n};
      (bi == bj ? diagonal : swap)(p);
      if (++bj == nb) bj = ++bi;
    }
  });
}

}  // namespace tlab::cpu
