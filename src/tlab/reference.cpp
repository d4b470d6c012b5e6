#include "tlab/reference.hpp"

#include <algorithm>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

namespace tlab {

namespace {
// Splits [0, n) into one contiguous band per hardware thread. Verification of a 16384^2
// double matrix is 4 GiB of traffic: single-threaded it would dominate a GPU sweep.
template <typename F> void parallel_bands(std::int64_t n, F f) {
  const std::int64_t threads =
      std::clamp<std::int64_t>(std::thread::hardware_concurrency(), 1, std::max<std::int64_t>(1, n / 64));
  if (threads <= 1 || n < 4096) return f(0, n);
  std::vector<std::thread> pool;
  const std::int64_t step = (n + threads - 1) / threads;
  for (std::int64_t lo = 0; lo < n; lo += step) pool.emplace_back(f, lo, std::min(n, lo + step));
  for (auto& t : pool) t.join();
}

template <std::size_t N> struct Bytes {
  unsigned char b[N];
};

// Element by element, rows i in [lo, hi): out(j, i) = in(i, j), walked in 64x64 blocks so
// that gigabyte references take a fraction of a second. Nothing else.
template <typename E> void transpose_rows(const E* in, E* out, Shape s, std::int64_t lo, std::int64_t hi) {
  constexpr std::int64_t B = 64;
  for (std::int64_t i0 = lo; i0 < hi; i0 += B)
    for (std::int64_t j0 = 0; j0 < s.cols; j0 += B)
      for (std::int64_t i = i0; i < std::min(i0 + B, hi); ++i)
        for (std::int64_t j = j0; j < std::min(j0 + B, s.cols); ++j) out[j * s.rows + i] = in[i * s.cols + j];
}

template <typename E> void transpose_typed(const void* in, void* out, Shape s) {
  parallel_bands(s.rows, [&](std::int64_t lo, std::int64_t hi) {
    transpose_rows(static_cast<const E*>(in), static_cast<E*>(out), s, lo, hi);
  });
}
}  // namespace

void reference_transpose(const void* in, void* out, Shape s, std::size_t elem) {
  switch (elem) {
    case 1: return transpose_typed<Bytes<1>>(in, out, s);
    case 2: return transpose_typed<Bytes<2>>(in, out, s);
    case 4: return transpose_typed<Bytes<4>>(in, out, s);
    case 8: return transpose_typed<Bytes<8>>(in, out, s);
    case 16: return transpose_typed<Bytes<16>>(in, out, s);
    default: {
      const auto* src = static_cast<const unsigned char*>(in);
      auto* dst = static_cast<unsigned char*>(out);
      for (std::int64_t i = 0; i < s.rows; ++i)
        for (std::int64_t j = 0; j < s.cols; ++j)
          std::memcpy(dst + (j * s.rows + i) * elem, src + (i * s.cols + j) * elem, elem);
    }
  }
}

namespace {
std::uint64_t fresh_seed() {
  static std::random_device rd;
  static std::uint64_t counter = 0;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd() ^ (++counter * 0x9E3779B97F4A7C15ull);
}

// splitmix64: a fast, well-mixed stream from any seed, cheap enough for gigabytes of input.
std::uint64_t splitmix(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Finite values of both signs spread over [-1e6, 1e6): never zero-heavy, never NaN.
template <typename T> void fill_floats(T* p, std::int64_t n, std::uint64_t seed) {
  parallel_bands(n, [&](std::int64_t lo, std::int64_t hi) {
    std::uint64_t x = seed ^ (static_cast<std::uint64_t>(lo) * 0xD1B54A32D192ED03ull);
    for (std::int64_t i = lo; i < hi; ++i) {
      const double u = static_cast<double>(splitmix(x) >> 11) * 0x1.0p-53;  // [0, 1)
      p[i] = static_cast<T>((u * 2.0 - 1.0) * 1e6);
    }
  });
}
}  // namespace

void fill_random(void* data, std::int64_t count, DType t) {
  const std::uint64_t seed = fresh_seed();
  switch (t) {
    case DType::f32: return fill_floats(static_cast<float*>(data), count, seed);
    case DType::f64: return fill_floats(static_cast<double*>(data), count, seed);
    case DType::c128: return fill_floats(static_cast<double*>(data), 2 * count, seed);
    default: {
      // Integers: random bits in every byte.
      auto* p = static_cast<unsigned char*>(data);
      const std::int64_t bytes = count * static_cast<std::int64_t>(dtype_size(t));
      const std::int64_t words = bytes / 8;
      parallel_bands(words, [&](std::int64_t lo, std::int64_t hi) {
        std::uint64_t x = seed ^ (static_cast<std::uint64_t>(lo) * 0xD1B54A32D192ED03ull);
        for (std::int64_t w = lo; w < hi; ++w) {
          const std::uint64_t v = splitmix(x);
          std::memcpy(p + w * 8, &v, 8);
        }
      });
      std::uint64_t x = seed;
      for (std::int64_t i = words * 8; i < bytes; ++i) p[i] = static_cast<unsigned char>(splitmix(x));
    }
  }
}

// An empty buffer may have no address at all (std::vector's data() of nothing), and memset
// may not be handed a null pointer even for zero bytes.
void poison(void* data, std::size_t bytes) {
  if (bytes != 0) std::memset(data, kPoisonByte, bytes);
}

void poison_against(void* out, const void* want, std::size_t bytes) {
  auto* o = static_cast<unsigned char*>(out);
  const auto* w = static_cast<const unsigned char*>(want);
  for (std::size_t i = 0; i < bytes; ++i) o[i] = static_cast<unsigned char>(~w[i]);
}

void make_mirror_pairs_differ(void* data, Shape s, std::size_t elem) {
  if (!s.square()) return;
  auto* p = static_cast<unsigned char*>(data);
  const std::int64_t n = s.rows;
  constexpr std::int64_t B = 64;  // blocks, so the mirrored side is walked cache-friendly
  parallel_bands(n, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i0 = lo; i0 < hi; i0 += B)
      for (std::int64_t j0 = i0; j0 < n; j0 += B)
        for (std::int64_t i = i0; i < std::min(i0 + B, hi); ++i)
          for (std::int64_t j = std::max(j0, i + 1); j < std::min(j0 + B, n); ++j) {
            unsigned char* a = p + (i * n + j) * elem;
            // Flipping the lowest bit of the first byte keeps floats finite (a mantissa bit on
            // little-endian machines) and integers in range.
            if (std::memcmp(a, p + (j * n + i) * elem, elem) == 0) a[0] ^= 1;
          }
  });
}

std::string compare_exact(const void* got, const void* want, Shape s, std::size_t elem) {
  const auto* a = static_cast<const unsigned char*>(got);
  const auto* b = static_cast<const unsigned char*>(want);
  const std::int64_t n = s.elements();
  if (std::memcmp(a, b, n * elem) == 0) return "";
  std::int64_t first = -1, bad = 0;
  for (std::int64_t k = 0; k < n; ++k)
    if (std::memcmp(a + k * elem, b + k * elem, elem) != 0) {
      if (first < 0) first = k;
      ++bad;
    }
  return std::to_string(bad) + " of " + std::to_string(n) + " elements differ; first at (" +
         std::to_string(first / s.cols) + ", " + std::to_string(first % s.cols) + ") of the " +
         to_string(s) + " output";
}

}  // namespace tlab
