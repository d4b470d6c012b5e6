// Element <-> unsigned key maps under which the plain unsigned order is the matrix sort's
// order (less<T> in matrix_sort.hpp): -inf < ... < -0.0 < +0.0 < ... < +inf < every NaN.
// The maps are bijections on bit patterns, so a sort of keys followed by the inverse map
// returns exactly the input's elements (NaN payloads included). Radix sorts (CUB) and the
// comparison kernels then sort one unsigned type per element size.
//
// Floating point: the usual flip (negative: all bits inverted; positive: sign bit set) puts
// -NaN below -inf and +NaN above +inf. Subtracting the flipped -inf (mod 2^bits) rotates the
// negative NaNs from the bottom of the range to the top, above the positive NaNs, which keeps
// every NaN after +inf.
#pragma once
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define TLAB_HOST_DEVICE __host__ __device__
#else
#define TLAB_HOST_DEVICE
#endif

namespace tlab::sort {

template <typename T> struct ordered_key;

template <> struct ordered_key<std::int32_t> {
  using type = std::uint32_t;
  TLAB_HOST_DEVICE static type to(std::int32_t x) { return static_cast<std::uint32_t>(x) ^ 0x80000000u; }
  TLAB_HOST_DEVICE static std::int32_t from(type k) { return static_cast<std::int32_t>(k ^ 0x80000000u); }
};

template <typename Float, typename Bits, Bits kSign, Bits kFlippedMinusInf> struct float_key {
  using type = Bits;
  TLAB_HOST_DEVICE static type to(Float x) {
    Bits u;
    std::memcpy(&u, &x, sizeof u);
    const Bits flipped = (u & kSign) ? static_cast<Bits>(~u) : static_cast<Bits>(u | kSign);
    return static_cast<Bits>(flipped - kFlippedMinusInf);
  }
  TLAB_HOST_DEVICE static Float from(type k) {
    const Bits flipped = static_cast<Bits>(k + kFlippedMinusInf);
    const Bits u = (flipped & kSign) ? static_cast<Bits>(flipped & ~kSign) : static_cast<Bits>(~flipped);
    Float x;
    std::memcpy(&x, &u, sizeof x);
    return x;
  }
};

template <> struct ordered_key<float> : float_key<float, std::uint32_t, 0x80000000u, 0x007FFFFFu> {};
template <>
struct ordered_key<double>
    : float_key<double, std::uint64_t, 0x8000000000000000ull, 0x000FFFFFFFFFFFFFull> {};

}  // namespace tlab::sort
