// Row-major matrix views. Sizes and the leading dimension are 64-bit so that matrices of
// more than 2^31 elements index correctly.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

namespace tlab {

struct Shape {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t elements() const { return rows * cols; }
  bool square() const { return rows == cols; }
  Shape transposed() const { return {cols, rows}; }
  friend bool operator==(Shape a, Shape b) { return a.rows == b.rows && a.cols == b.cols; }
};

// How many pieces of b cover a (a >= 0, b > 0): tiles across a side, blocks of a grid.
inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

inline std::string to_string(Shape s) {
  return std::to_string(s.rows) + "x" + std::to_string(s.cols);
}

template <typename T> struct MatrixView {
  T* data = nullptr;
  std::int64_t rows = 0, cols = 0, ld = 0;  // ld: elements between starts of rows, >= cols

  MatrixView() = default;
  MatrixView(T* d, std::int64_t r, std::int64_t c) : MatrixView(d, r, c, c) {}
  MatrixView(T* d, std::int64_t r, std::int64_t c, std::int64_t l) : data(d), rows(r), cols(c), ld(l) {
    if (r < 0 || c < 0 || l < c) throw std::invalid_argument("MatrixView: bad rows/cols/ld");
  }
  T& operator()(std::int64_t i, std::int64_t j) const { return data[i * ld + j]; }
  Shape shape() const { return {rows, cols}; }
  // The sub-matrix starting at (i, j); shares storage.
  MatrixView block(std::int64_t i, std::int64_t j, std::int64_t r, std::int64_t c) const {
    return MatrixView(data + i * ld + j, r, c, ld);
  }
};

}  // namespace tlab
