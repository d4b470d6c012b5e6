// A program that uses transpose-lab as an installed library: it includes only
// <tlab/transpose.hpp> and links through pkg-config (tests/installed_library.sh builds it so).
#include <tlab/transpose.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
  const std::int64_t rows = 3, cols = 5;
  std::vector<float> a(rows * cols), t(rows * cols);
  for (std::int64_t i = 0; i < rows * cols; ++i) a[i] = static_cast<float>(i);

  tlab::transpose(t.data(), a.data(), tlab::DType::f32, rows, cols);  // host memory: the CPU runs it
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j)
      if (t[j * rows + i] != a[i * cols + j]) {
        std::printf("wrong at (%lld, %lld)\n", static_cast<long long>(i), static_cast<long long>(j));
        return 1;
      }

  tlab::Plan plan(tlab::DType::f32, rows, cols, tlab::Placement::in_place, tlab::Memory::host);
  plan.execute_in_place(a.data());  // a rows x cols matrix in place, not square
  if (a != t) {
    std::printf("in place differs from out of place\n");
    return 1;
  }
  try {
    tlab::transpose(nullptr, a.data(), tlab::DType::f32, rows, cols);
    return 1;
  } catch (const std::invalid_argument& e) {
    std::printf("refused as it should be: %s\n", e.what());
  }
  std::printf("ok: %s (%s)\n", plan.kernel().c_str(), plan.reason().c_str());
  return 0;
}
