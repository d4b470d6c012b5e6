// In-place transposition of an m x n row-major matrix (m != n allowed) as three passes that
// each permute only within columns or only within rows: the decomposition of Catanzaro,
// Keller and Garland ("A decomposition for in-place matrix transposition", PPoPP 2014), in
// its columns-to-rows form. With c = gcd(m, n), a = m / c, b = n / c:
//   1. (only when c > 1) rotate column j down by floor(j / b) rows;
//   2. shuffle each row so that element j of original row i lands in column (j m + i) mod n;
//   3. shuffle each column so that every element reaches its row in the n x m result.
// Each pass is written as a gather (the source of each destination), which is what both the
// CPU and the GPU code need; the same functions serve both, so the tests on the CPU check
// the GPU's index arithmetic too.
//
// Why it works: element (i, j) must reach linear index L = j m + i, i.e. row L / n, column
// L mod n. Write j = u b + v (u < c, v < b), i = i_hi c + i_lo. After the rotation it sits in
// row r = (i + u) mod m; the row shuffle sends column j to q = c ((v a + i_hi) mod b) + i_lo,
// which is L mod n and, within row r, a bijection in (u, v) because gcd(a, b) = 1 and
// i_lo = (r - u) mod c. Every column q then holds one element of each row, all with distinct
// L, so the last pass is a permutation within each column. Inverting q gives the gathers below.
#pragma once
#include <cstdint>
#include <numeric>
#include <stdexcept>

#include "tlab/host_device.hpp"

namespace tlab::c2r {

// Division by a number fixed for the whole transpose, through a multiply by its reciprocal
// and an exact correction: a GPU has no 64-bit divide instruction, and the emulated one
// made the passes compute-bound. Exact for any x; the correction loops run at most once or
// twice while |x| < 2^52.
struct Divisor {
  std::int64_t d = 1;
  double inv = 1.0;
};
inline Divisor divisor(std::int64_t d) { return {d, 1.0 / static_cast<double>(d)}; }

TLAB_HD std::int64_t quot(std::int64_t x, Divisor v) {
  std::int64_t q = static_cast<std::int64_t>(static_cast<double>(x) * v.inv);
  std::int64_t r = x - q * v.d;
  while (r < 0) --q, r += v.d;
  while (r >= v.d) ++q, r -= v.d;
  return q;
}
// x mod d in [0, d), for negative x too.
TLAB_HD std::int64_t mod(std::int64_t x, Divisor v) { return x - quot(x, v) * v.d; }

struct Params {
  std::int64_t m = 0, n = 0, c = 1, a = 0, b = 0, a_inv = 0;  // a_inv: a^-1 mod b
  std::int64_t n_inv = 0;  // coprime shapes (c == 1): n^-1 mod m
  Divisor dm, dn, dc, db;
};

// a^-1 mod b for coprime a and b (extended Euclid); 0 where b == 1.
inline std::int64_t inverse_mod(std::int64_t a, std::int64_t b) {
  std::int64_t r0 = b, r1 = a % b, t0 = 0, t1 = 1;
  while (r1 != 0) {
    const std::int64_t q = r0 / r1, r2 = r0 - q * r1, t2 = t0 - q * t1;
    r0 = r1, r1 = r2, t0 = t1, t1 = t2;
  }
  return b == 1 ? 0 : (t0 % b + b) % b;
}

// Throws std::invalid_argument for an empty shape or a side of 2^31 or more (the row
// shuffle multiplies two numbers below b in 64 bits).
inline Params make_params(std::int64_t m, std::int64_t n) {
  if (m <= 0 || n <= 0) throw std::invalid_argument("in-place transpose: empty shape");
  if (m >= (std::int64_t{1} << 31) || n >= (std::int64_t{1} << 31))
    throw std::invalid_argument("in-place rectangular transpose: a side of 2^31 or more is not supported");
  Params p;
  p.m = m;
  p.n = n;
  p.c = std::gcd(m, n);
  p.a = m / p.c;
  p.b = n / p.c;
  p.a_inv = inverse_mod(p.a, p.b);  // b == 1 makes every v zero
  if (p.c == 1) p.n_inv = inverse_mod(n, m);
  p.dm = divisor(m);
  p.dn = divisor(n);
  p.dc = divisor(p.c);
  p.db = divisor(p.b);
  return p;
}

// Pass 1: the row that element (i, j) comes from.
TLAB_HD std::int64_t rotate_source(const Params& p, std::int64_t i, std::int64_t j) {
  return mod(i - quot(j, p.db), p.dm);
}

// Pass 2: the column that element (r, q) of row r comes from.
TLAB_HD std::int64_t row_shuffle_source(const Params& p, std::int64_t r, std::int64_t q) {
  const std::int64_t u = mod(r - q, p.dc);
  const std::int64_t i = mod(r - u, p.dm);
  const std::int64_t v = mod(mod(quot(q, p.dc) - quot(i, p.dc), p.db) * p.a_inv, p.db);
  return u * p.b + v;
}

// Pass 3: the row that element (r, q) of column q comes from.
TLAB_HD std::int64_t column_shuffle_source(const Params& p, std::int64_t r, std::int64_t q) {
  const std::int64_t at = r * p.n + q;  // linear index in the n x m result
  const std::int64_t j = quot(at, p.dm), i = at - j * p.m;
  return mod(i + quot(j, p.db), p.dm);
}

// Pass 3 for coprime shapes (c == 1), where the rotation of pass 1 is absent and pass 3's
// source is (r n + q) mod m: row r's "base" t = r n mod m, then column q rotated by q. Rows
// with consecutive bases read consecutive source rows, which is what a tiled GPU pass needs;
// the row with base t is t n^-1 mod m. Products stay below 2^62 (sides below 2^31).
TLAB_HD std::int64_t coprime_base(const Params& p, std::int64_t r) { return r * p.n % p.m; }
TLAB_HD std::int64_t coprime_row(const Params& p, std::int64_t t) { return t * p.n_inv % p.m; }

}  // namespace tlab::c2r
