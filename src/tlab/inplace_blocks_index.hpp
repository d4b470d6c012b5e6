// In-place transposition of an m x n matrix whose sides share a large factor g (m = a g,
// n = b g: every power-of-two shape, 256:1, 16384 x 1024, 3000 x 2000), in two passes that
// each move whole contiguous pieces. The matrix is an a x b grid of g x g blocks. Pass 1
// transposes every block in place (the tile-pair kernel). Row x of block (I, J) then holds
// what row x of the result's block (J, I) needs, in order: the "segment" of g elements at
// position (I g + x) b + J must move to (J g + x) a + I. Pass 2 does that permutation by
// following its cycles from a table of one position per cycle, built on the host (for b = 1
// it is the transpose of an a x g matrix of segments).
//
// Every segment is read once and written once, so the whole transpose moves each byte twice;
// the decomposition of Catanzaro et al. moves it four to six times and reads one element per
// sector in its column passes. The table has at most N / 2 entries for N = a g b segments,
// which is min(a, b) max(m, n): the variant takes shapes with min(a, b) <= 64, the bound c2r's
// scratch has too.
#pragma once
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "tlab/inplace_rect_index.hpp"

#if defined(__CUDACC__)
#define TLAB_UNROLL _Pragma("unroll")
#else
#define TLAB_UNROLL
#endif

namespace tlab::blocks {

struct Layout {
  std::int64_t g = 0, a = 0, b = 0;  // blocks of g x g, a down and b across
  c2r::Divisor da, dg;               // division by a and by g
  std::int64_t segments() const { return a * g * b; }
  // The position whose segment moves to q (the gather form of the permutation).
  TLAB_HD std::int64_t source(std::int64_t q) const {
    const std::int64_t t = c2r::quot(q, da), i = q - t * a;  // q = t a + I
    const std::int64_t j = c2r::quot(t, dg), x = t - j * g;  // t = J g + x
    return (i * g + x) * b + j;
  }
};

constexpr std::int64_t kMaxCofactor = 64;
// Above this many segments, building the cycle table on the host takes longer than the
// transposes it serves (about a second).
constexpr std::int64_t kMaxSegments = std::int64_t{1} << 28;

// Why m x n cannot be transposed this way, or "" when it can.
inline std::string refusal(std::int64_t m, std::int64_t n) {
  if (m <= 0 || n <= 0) return "empty shape";
  const std::int64_t g = std::gcd(m, n), lo = std::min(m, n) / g, hi = std::max(m, n);
  if (lo > kMaxCofactor)
    return "the block decomposition needs gcd(m, n) to be at least min(m, n) / " + std::to_string(kMaxCofactor) +
           " (gcd(" + std::to_string(m) + ", " + std::to_string(n) + ") = " + std::to_string(g) + ")";
  if (lo * hi > kMaxSegments) return "more than 2^28 segments: the cycle table would take too long to build";
  return "";
}

inline Layout layout(std::int64_t m, std::int64_t n) {
  Layout l;
  l.g = std::gcd(m, n);
  l.a = m / l.g;
  l.b = n / l.g;
  l.da = c2r::divisor(l.a);
  l.dg = c2r::divisor(l.g);
  return l;
}

// The smallest position of every cycle longer than one, in increasing order: at most N / 2.
inline std::vector<std::int64_t> cycle_leaders(const Layout& l) {
  std::vector<std::int64_t> leaders;
  const std::int64_t N = l.segments();
  std::vector<bool> seen(static_cast<std::size_t>(N), false);
  for (std::int64_t p = 0; p < N; ++p) {
    if (seen[p]) continue;
    std::int64_t q = l.source(p);
    if (q == p) continue;
    leaders.push_back(p);
    for (; q != p; q = l.source(q)) seen[q] = true;
  }
  return leaders;
}

// Moves one cycle: the item at each position is replaced by the one at its source, the
// leader's own item going to the position before it in the cycle. `m` provides
// `load(pos)` and `store(pos, value)` for one word of each segment. Sources are loaded L
// at a time before the L stores: a thread's store to a position always follows its own
// load of that position, so the batches stay exact while L loads are in flight.
template <int L, typename Mover> TLAB_HD void follow_cycle(std::int64_t leader, const Layout& l, Mover& m) {
  const auto first = m.load(leader);
  std::int64_t at = leader;
  for (;;) {
    std::int64_t src[L];
    decltype(m.load(leader)) val[L];
    int k = 0;
    std::int64_t s = l.source(at);
    TLAB_UNROLL
    for (int i = 0; i < L; ++i) {
      if (s != leader && k == i) {
        src[i] = s;
        ++k;
        s = l.source(s);
      }
    }
    TLAB_UNROLL
    for (int i = 0; i < L; ++i)
      if (i < k) val[i] = m.load(src[i]);
    TLAB_UNROLL
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
