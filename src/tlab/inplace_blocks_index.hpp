// In-place transposition of an m x n matrix whose sides share a large factor g (m = a g,
// n = b g: every power-of-two shape, 256:1, 16384 x 1024, 3000 x 2000), in two passes that
// each move whole contiguous pieces. The matrix is an a x b grid of g x g blocks. Pass 1
// transposes every block in place (the tile-pair kernel). Row x of block (I, J) then holds
// what row x of the result's block (J, I) needs, in order: the "segment" of g elements at
// position (I g + x) b + J must move to (J g + x) a + I. Pass 2 does that permutation by
// following its cycles from a table built on the host (for b = 1 it is the transpose of an
// a x g matrix of segments).
//
// Every segment is read once and written once, so the whole transpose moves each byte twice;
// the decomposition of Catanzaro et al. moves it four to six times and reads one element per
// sector in its column passes. The table has at most N / 2 cycles for N = a g b segments,
// which is min(a, b) max(m, n): the variant takes shapes with min(a, b) <= 64, the bound c2r's
// scratch has too.
#pragma once
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "tlab/inplace_rect_index.hpp"

#if defined(__CUDA_ARCH__)  // the device pass only: the host compiler does not know the pragma
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
    if (b == 1) return i * g + t;                            // one side divides the other: J = 0, x = t
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

// Pass 2's work list. A cycle of at most `stretch` moves is followed by one thread per word
// (its leader's own item held in a register until the end). A longer one, of which a shape
// with both a, b > 1 may have a handful of tens of thousands of moves, is cut into stretches
// of `stretch` moves, so that its steps run in parallel: the item at each stretch's start is
// saved first (one launch), then each stretch moves its items and takes the last one from
// the next stretch's saved copy (a second launch).
struct CycleTable {
  std::vector<std::int64_t> cycles;     // (leader, moves) of each short cycle
  std::vector<std::int64_t> stretches;  // (start, moves, index of the next stretch) of the long ones
  std::int64_t short_count() const { return static_cast<std::int64_t>(cycles.size() / 2); }
  std::int64_t stretch_count() const { return static_cast<std::int64_t>(stretches.size() / 3); }
};

// Moves per stretch: 32, or more where the saved copies (g elements of `elem` bytes per
// stretch, at most 2 N / stretch stretches) would pass 64 max(m, n) 16-byte words. Shorter
// stretches mean more of them in flight; the bound is in bytes so that 1- and 2-byte
// matrices, whose segments are short, get as many as 16-byte ones.
inline std::int64_t stretch_moves(const Layout& l, int elem) {
  const std::int64_t budget = 64 * 16 * std::max(l.a, l.b) * l.g;  // bytes
  return std::max<std::int64_t>(32, (2 * l.segments() * l.g * elem + budget - 1) / budget);
}
// Bounds on the counts, for memory sized before the table is built.
inline std::int64_t max_short_cycles(const Layout& l) { return l.segments() / 2; }
inline std::int64_t max_stretches(const Layout& l, int elem) { return 2 * l.segments() / stretch_moves(l, elem) + 1; }

inline CycleTable cycle_table(const Layout& l, int elem) {
  CycleTable t;
  const std::int64_t N = l.segments(), T = stretch_moves(l, elem);
  std::vector<bool> seen(static_cast<std::size_t>(N), false);
  std::vector<std::int64_t> starts;
  for (std::int64_t p = 0; p < N; ++p) {
    if (seen[p] || l.source(p) == p) continue;
    starts.clear();
    std::int64_t len = 0, q = p;
    do {
      if (len % T == 0) starts.push_back(q);
      seen[q] = true;
      q = l.source(q);
      ++len;
    } while (q != p);
    if (len <= T) {
      t.cycles.insert(t.cycles.end(), {p, len});
      continue;
    }
    const auto first = t.stretch_count(), k = static_cast<std::int64_t>(starts.size());
    for (std::int64_t j = 0; j < k; ++j)
      t.stretches.insert(t.stretches.end(), {starts[j], std::min(T, len - j * T), first + (j + 1) % k});
  }
  return t;
}

// Moves `moves` items along a cycle from `start`: the item at each position is replaced by
// the one at its source, and the last position gets `boundary` (the item that was at the
// next stretch's start, or at the leader, before anything moved). `m` provides `load(pos)`
// and `store(pos, value)` for one word of each segment. Sources are loaded L at a time
// before the L stores: a thread's store to a position always follows its own load of it,
// so the batches stay exact while L loads are in flight.
template <int L, typename Mover, typename V>
TLAB_HD void follow_stretch(std::int64_t start, std::int64_t moves, const Layout& l, Mover& m, V boundary) {
  std::int64_t at = start;
  while (moves > 0) {
    std::int64_t src[L];
    V val[L];
    const int k = moves < L ? static_cast<int>(moves) : L;
    std::int64_t s = l.source(at);
    TLAB_UNROLL
    for (int i = 0; i < L; ++i)
      if (i < k) src[i] = s, s = l.source(s);
    TLAB_UNROLL
    for (int i = 0; i < L; ++i)
      if (i < k) val[i] = moves - i == 1 ? boundary : m.load(src[i]);
    TLAB_UNROLL
    for (int i = 0; i < L; ++i)
      if (i < k) m.store(at, val[i]), at = src[i];
    moves -= k;
  }
}

}  // namespace tlab::blocks
