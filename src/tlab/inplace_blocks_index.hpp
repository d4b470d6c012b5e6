// In-place transposition of an m x n matrix when one side divides the other (every
// power-of-two shape, 256:1, 16384 x 1024), in two passes that each move whole contiguous
// pieces: the g x g blocks (g = min(m, n)), and the rows of those blocks ("segments", g
// elements each). Tall (m = k g): A is k blocks stacked; transposing each block in place
// leaves row x of block I at segment I g + x, and the result wants it at x k + I: the
// transpose of a k x g matrix of segments. Wide (n = k g) is the same read backwards:
// segments first (g x k, so that each block becomes contiguous), then the blocks.
//
// The segment pass follows the cycles of that permutation (in the transpose of an R x C
// matrix, position q takes its item from q C mod (RC - 1)), starting from a table of one
// position per cycle made on the host. Every segment is read once and written once, so the
// whole transpose moves each byte twice; the decomposition of Catanzaro et al. moves it four
// to six times and reads one element per sector in its column passes.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tlab/inplace_rect_index.hpp"

namespace tlab::blocks {

struct Layout {
  std::int64_t g = 0;      // side of a block, elements in a segment
  std::int64_t count = 0;  // blocks
  bool tall = false;       // blocks first, then segments; else segments first
  std::int64_t R = 0, C = 0;  // the segment matrix the segment pass transposes
};

// Above this many segments, building the cycle table on the host takes longer than the
// transposes it serves (about a second); such shapes go to the other decomposition.
constexpr std::int64_t kMaxSegments = std::int64_t{1} << 28;

// Why m x n cannot be transposed this way, or "" when it can.
inline std::string refusal(std::int64_t m, std::int64_t n) {
  if (m <= 0 || n <= 0) return "empty shape";
  const std::int64_t lo = m < n ? m : n, hi = m < n ? n : m;
  if (hi % lo != 0) return "the block decomposition needs one side to divide the other, not " + std::to_string(m) + " x " + std::to_string(n);
  if (hi > kMaxSegments) return "more than 2^28 segments (" + std::to_string(hi) + "): the cycle table would take too long to build";
  return "";
}

inline Layout layout(std::int64_t m, std::int64_t n) {
  Layout l;
  l.tall = m >= n;
  l.g = l.tall ? n : m;
  l.count = (l.tall ? m : n) / l.g;
  l.R = l.tall ? l.count : l.g;
  l.C = l.tall ? l.g : l.count;
  return l;
}

// Where the item that position q of the transposed R x C segment matrix receives comes
// from; `last` divides by R C - 1.
TLAB_HD std::int64_t segment_source(std::int64_t q, std::int64_t C, c2r::Divisor last) {
  return q == last.d ? q : c2r::mod(q * C, last);
}

// The smallest position of every cycle longer than one of the R x C transpose's
// permutation, in increasing order: at most RC / 2 entries.
inline std::vector<std::int64_t> cycle_leaders(std::int64_t R, std::int64_t C) {
  std::vector<std::int64_t> leaders;
  const std::int64_t N = R * C;
  if (R == 1 || C == 1 || N < 3) return leaders;
  const c2r::Divisor last = c2r::divisor(N - 1);
  std::vector<bool> seen(static_cast<std::size_t>(N), false);
  for (std::int64_t p = 1; p < N - 1; ++p) {
    if (seen[p]) continue;
    std::int64_t q = segment_source(p, C, last);
    if (q == p) continue;
    leaders.push_back(p);
    for (; q != p; q = segment_source(q, C, last)) seen[q] = true;
  }
  return leaders;
}

// Moves one cycle: the item at each position is replaced by the one at its source, the
// leader's own item going to the position before it in the cycle. `m` provides
// `load(pos)` and `store(pos, value)` for one word of each segment. Sources are loaded L
// at a time before the L stores: a thread's store to a position always follows its own
// load of that position, so the batches stay exact while L loads are in flight.
template <int L, typename Mover>
TLAB_HD void follow_cycle(std::int64_t leader, std::int64_t C, c2r::Divisor last, Mover& m) {
  const auto first = m.load(leader);
  std::int64_t at = leader;
  for (;;) {
    std::int64_t src[L];
    decltype(m.load(leader)) val[L];
    int k = 0;
    std::int64_t s = segment_source(at, C, last);
#pragma unroll
    for (int i = 0; i < L; ++i) {
      if (s != leader && k == i) {
        src[i] = s;
        ++k;
        s = segment_source(s, C, last);
      }
    }
#pragma unroll
    for (int i = 0; i < L; ++i)
      if (i < k) val[i] = m.load(src[i]);
#pragma unroll
    for (int i = 0; i < L; ++i)
      if (i < k) {
        m.store(at, val[i]);
        at = src[i];
      }
    if (k < L) {  // the cycle closed inside this batch
      m.store(at, first);
      return;
    }
  }
}

}  // namespace tlab::blocks
