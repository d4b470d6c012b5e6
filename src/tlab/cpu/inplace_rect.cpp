// The in-place rectangular transpose on the CPU (inplace_rect_index.hpp): each pass gathers
// a batch of rows or columns into a scratch buffer of at most kScratchRows * max(m, n)
// elements, then puts the batch back.
#include <algorithm>
#include <cstring>
#include <vector>

#include "tlab/inplace_rect_index.hpp"
#include "tlab/registry.hpp"

namespace tlab {
namespace {

constexpr std::int64_t kScratchRows = 64;

template <typename T> void transpose_rect_in_place(T* a, std::int64_t m, std::int64_t n) {
  const c2r::Params p = c2r::make_params(m, n);
  const std::int64_t scratch = std::min(m * n, kScratchRows * std::max(m, n));
  std::vector<T> tmp(static_cast<std::size_t>(scratch));
  auto column_pass = [&](auto source_row) {
    const std::int64_t width = scratch / m;
    for (std::int64_t j0 = 0; j0 < n; j0 += width) {
      const std::int64_t w = std::min(width, n - j0);
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t jj = 0; jj < w; ++jj) tmp[i * w + jj] = a[source_row(i, j0 + jj) * n + j0 + jj];
      for (std::int64_t i = 0; i < m; ++i) std::memcpy(a + i * n + j0, &tmp[i * w], sizeof(T) * w);
    }
  };
  if (p.c > 1) column_pass([&](std::int64_t i, std::int64_t j) { return c2r::rotate_source(p, i, j); });
  const std::int64_t height = scratch / n;
  for (std::int64_t r0 = 0; r0 < m; r0 += height) {
    const std::int64_t h = std::min(height, m - r0);
    for (std::int64_t rr = 0; rr < h; ++rr)
      for (std::int64_t q = 0; q < n; ++q) tmp[rr * n + q] = a[(r0 + rr) * n + c2r::row_shuffle_source(p, r0 + rr, q)];
    std::memcpy(a + r0 * n, tmp.data(), sizeof(T) * h * n);
  }
  column_pass([&](std::int64_t i, std::int64_t j) { return c2r::column_shuffle_source(p, i, j); });
}

}  // namespace

void register_cpu_inplace_rect(Registry& r) {
  Variant v;
  v.name = "cpu/inplace-rect/c2r";
  v.family = "cpu-inplace-rect";
  v.backend = Backend::cpu;
  v.placement = Placement::in_place;
  v.any_shape = true;
  v.note = "any m x n in place: column rotate, row shuffle, column shuffle (Catanzaro et al. 2014)";
  v.params = {{"scratch_rows", std::to_string(kScratchRows)}};
  v.kernels = instantiate_all([](auto tag, const Operands& op) {
    using T = decltype(tag);
    transpose_rect_in_place(static_cast<T*>(op.out), op.shape.rows, op.shape.cols);
  });
  r.add(std::move(v));
}

}  // namespace tlab
