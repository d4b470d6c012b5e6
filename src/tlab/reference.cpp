#include "tlab/reference.hpp"

#include <cstring>
#include <random>

namespace tlab {

void reference_transpose(const void* in, void* out, Shape s, std::size_t elem) {
  const auto* src = static_cast<const unsigned char*>(in);
  auto* dst = static_cast<unsigned char*>(out);
  for (std::int64_t i = 0; i < s.rows; ++i)
    for (std::int64_t j = 0; j < s.cols; ++j)
      std::memcpy(dst + (j * s.rows + i) * elem, src + (i * s.cols + j) * elem, elem);
}

namespace {
std::mt19937_64 fresh_engine() {
  static std::random_device rd;
  static std::uint64_t counter = 0;
  std::seed_seq seq{rd(), rd(), static_cast<unsigned>(++counter)};
  return std::mt19937_64(seq);
}

template <typename T> void fill_floats(T* p, std::int64_t n, std::mt19937_64& g) {
  std::uniform_real_distribution<T> d(T(-1e6), T(1e6));
  for (std::int64_t i = 0; i < n; ++i) p[i] = d(g);
}
}  // namespace

void fill_random(void* data, std::int64_t count, DType t) {
  auto g = fresh_engine();
  switch (t) {
    case DType::f32: return fill_floats(static_cast<float*>(data), count, g);
    case DType::f64: return fill_floats(static_cast<double*>(data), count, g);
    case DType::c128: return fill_floats(static_cast<double*>(data), 2 * count, g);
    default: {
      // Integers: random bits in every byte.
      auto* p = static_cast<unsigned char*>(data);
      const std::int64_t bytes = count * static_cast<std::int64_t>(dtype_size(t));
      std::int64_t i = 0;
      for (; i + 8 <= bytes; i += 8) {
        const std::uint64_t v = g();
        std::memcpy(p + i, &v, 8);
      }
      for (; i < bytes; ++i) p[i] = static_cast<unsigned char>(g());
    }
  }
}

void poison(void* data, std::size_t bytes) { std::memset(data, kPoisonByte, bytes); }

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
