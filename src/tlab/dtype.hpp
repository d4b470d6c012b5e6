// Element types known to the library: one list, so that kernels, the harness, the CSV
// and the command line agree on names and sizes.
#pragma once
#include <complex>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tlab {

enum class DType { u8, u16, i32, f32, f64, c128 };

inline const std::vector<DType>& all_dtypes() {
  static const std::vector<DType> all{DType::u8, DType::u16, DType::i32,
                                      DType::f32, DType::f64, DType::c128};
  return all;
}

// 16-byte element: two doubles. A plain struct rather than std::complex so that the same
// type can be used unchanged in device code.
struct alignas(16) Complex128 {
  double re, im;
};

template <typename T> struct dtype_of;
template <> struct dtype_of<std::uint8_t> { static constexpr DType value = DType::u8; };
template <> struct dtype_of<std::uint16_t> { static constexpr DType value = DType::u16; };
template <> struct dtype_of<std::int32_t> { static constexpr DType value = DType::i32; };
template <> struct dtype_of<float> { static constexpr DType value = DType::f32; };
template <> struct dtype_of<double> { static constexpr DType value = DType::f64; };
template <> struct dtype_of<Complex128> { static constexpr DType value = DType::c128; };

inline std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::u8: return 1;
    case DType::u16: return 2;
    case DType::i32: return 4;
    case DType::f32: return 4;
    case DType::f64: return 8;
    case DType::c128: return 16;
  }
  throw std::logic_error("dtype_size: unknown dtype");
}

inline const char* dtype_name(DType t) {
  switch (t) {
    case DType::u8: return "uint8";
    case DType::u16: return "uint16";
    case DType::i32: return "int32";
    case DType::f32: return "float";
    case DType::f64: return "double";
    case DType::c128: return "complex128";
  }
  throw std::logic_error("dtype_name: unknown dtype");
}

// Throws std::invalid_argument naming the accepted spellings.
DType parse_dtype(const std::string& name);

// Calls f(T{}) with the C++ type behind `t`; kernels are instantiated once per type here.
template <typename F> decltype(auto) dispatch_dtype(DType t, F&& f) {
  switch (t) {
    case DType::u8: return f(std::uint8_t{});
    case DType::u16: return f(std::uint16_t{});
    case DType::i32: return f(std::int32_t{});
    case DType::f32: return f(float{});
    case DType::f64: return f(double{});
    case DType::c128: return f(Complex128{});
  }
  throw std::logic_error("dispatch_dtype: unknown dtype");
}

}  // namespace tlab
