// c2r's last pass on a coprime shape, run alone across the grid's shared memory, against the
// CPU's gather of the same pass (tlab/inplace_rect_index.hpp): every element, every element
// size, on shapes of one block per strip, of several, of more strips than a round takes, and
// with a last strip cut by the matrix's edge. The registered `c2r-grid` is checked as a whole
// transpose by the sweep in test_gpu_variants.cpp; this test makes sure that the grid path is
// the one that ran, and that it stands aside where it should.
#include <doctest/doctest.h>

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "tlab/gpu/inplace_on_grid.cuh"
#include "tlab/gpu/inplace_rect.cuh"
#include "tlab/inplace_rect_index.hpp"
#include "tlab/reference.hpp"
#include "tlab/registry.hpp"
#include "tlab/transpose.hpp"

namespace {

// The pass applied on the device, or false where the grid path declined the shape.
bool on_grid(std::vector<unsigned char>& host, const tlab::c2r::Params& p, int elem) {
  unsigned char* d = nullptr;
  REQUIRE(cudaMalloc(&d, host.size()) == cudaSuccess);
  REQUIRE(cudaMemcpy(d, host.data(), host.size(), cudaMemcpyHostToDevice) == cudaSuccess);
  const bool ran = tlab::gpu::shuffle_columns_coprime_on_grid(d, p, elem, nullptr);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  REQUIRE(cudaMemcpy(host.data(), d, host.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
  REQUIRE(cudaFree(d) == cudaSuccess);
  return ran;
}

// A float matrix of shape `s` filled at random, and its transpose.
struct Floats {
  std::vector<unsigned char> in, want;
  explicit Floats(tlab::Shape s) : in(static_cast<std::size_t>(s.elements()) * 4), want(in.size()) {
    tlab::fill_random(in.data(), s.elements(), tlab::DType::f32);
    tlab::reference_transpose(in.data(), want.data(), s, 4);
  }
};

// `in` copied to the device buffer `d`, `run(d)` on it, and what `d` holds after.
template <typename Run> std::vector<unsigned char> after(unsigned char* d, const std::vector<unsigned char>& in, Run run) {
  REQUIRE(cudaMemcpy(d, in.data(), in.size(), cudaMemcpyHostToDevice) == cudaSuccess);
  run(d);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  std::vector<unsigned char> got(in.size());
  REQUIRE(cudaMemcpy(got.data(), d, got.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
  return got;
}

}  // namespace

TEST_CASE("c2r's column pass across the grid equals the CPU's gather on coprime shapes, in place") {
  const bool small = std::getenv("TLAB_GPU_TEST_SMALL") != nullptr;
  // 16381 x 1021: several blocks per strip for every size; 1021 x 16381: one block per strip
  // for 1-4 bytes, more strips than a round; 2049 x 2051: the last strip cut by the edge;
  // 30011 x 7: one strip, cut, in many groups; 64 x 65 and 128 x 129: the smallest m it takes
  // for 1-8 bytes and for 16 bytes (plan_rounds: two passes of a block's rows), the whole strip
  // in one tile wrapping mod m. Every shape's strip fits the shared memory of any GPU of 30 SMs
  // and 160 KiB or more, so the grid path must run wherever m is long enough.
  std::vector<std::pair<std::int64_t, std::int64_t>> shapes{{64, 65}, {128, 129}, {515, 513}, {2049, 2051}};
  if (!small)
    for (auto x : {std::pair<std::int64_t, std::int64_t>{16381, 1021}, {1021, 16381}, {30011, 7}}) shapes.push_back(x);
  std::mt19937_64 rng(20261125);
  int ran = 0;
  for (auto [m, n] : shapes)
    for (int elem : {1, 2, 4, 8, 16}) {
      CAPTURE(m);
      CAPTURE(n);
      CAPTURE(elem);
      const tlab::c2r::Params p = tlab::c2r::make_params(m, n);
      REQUIRE(p.c == 1);
      const auto bytes = static_cast<std::size_t>(m * n * elem);
      std::vector<unsigned char> a(bytes);
      for (auto& x : a) x = static_cast<unsigned char>(rng());
      std::vector<unsigned char> got = a;
      const bool ran_here = on_grid(got, p, elem);
      CHECK(ran_here == (m >= (elem == 16 ? 128 : 64)));
      CHECK(tlab::gpu::coprime_on_grid_fits(p, elem) == ran_here);  // the plans' scratch rests on it
      if (!ran_here) {
        CHECK(got == a);  // declined: nothing touched
        continue;
      }
      ++ran;
      std::int64_t wrong = 0;
      for (std::int64_t r = 0; r < m; ++r)
        for (std::int64_t q = 0; q < n; ++q) {
          const std::int64_t src = tlab::c2r::column_shuffle_source(p, r, q);
          for (int b = 0; b < elem; ++b)
            wrong += got[static_cast<std::size_t>((r * n + q) * elem + b)] != a[static_cast<std::size_t>((src * n + q) * elem + b)];
        }
      CHECK(wrong == 0);
    }
  CHECK(ran == (small ? 19 : 34));
}

TEST_CASE("c2r's column pass across the grid stands aside on shapes with a common factor and on very short columns") {
  // gcd 32 (the rotation pass's shapes), m = 5 (the scratch path), and the longest columns
  // still too short for 16-byte and 1-byte elements.
  for (auto [m, n, elem] : {std::tuple<std::int64_t, std::int64_t, int>{1024, 96, 4}, {5, 70001, 4}, {127, 129, 16},
                            {63, 65, 1}}) {
    CAPTURE(m);
    CAPTURE(n);
    std::vector<unsigned char> a(static_cast<std::size_t>(m * n * elem), 7);
    const std::vector<unsigned char> before = a;
    CHECK_FALSE(tlab::gpu::coprime_on_grid_fits(tlab::c2r::make_params(m, n), elem));
    CHECK_FALSE(on_grid(a, tlab::c2r::make_params(m, n), elem));
    CHECK(a == before);
  }
}

TEST_CASE("the library's in-place plan: the grid's shared memory where the matrix fits it, else c2r-grid where the sides share no factor, the blocks where they share one") {
  int on_grid_taken = 0;
  for (tlab::DType t : tlab::all_dtypes()) {
    CAPTURE(tlab::dtype_name(t));
    // These shapes are in the class "rect-small" wherever they fit the grid of an H100 or an
    // H200 (up to 32 MiB, two tiles a block past 29 MiB), and in "rect", whose tables name the
    // block decomposition (`blocks`, or `blocks-b8` where tlab-tune found it faster), where
    // they do not.
    auto want = [&](tlab::Shape s, const char* otherwise) {
      const bool fits = tlab::gpu::in_place_on_grid_fits(s, static_cast<int>(tlab::dtype_size(t)));
      on_grid_taken += fits;
      return std::string(fits ? "gpu/inplace-rect/on-grid" : otherwise);
    };
    auto blocks = [](const std::string& k) { return k == "gpu/inplace-rect/blocks-b8" ? "gpu/inplace-rect/blocks" : k; };
    CHECK(tlab::Plan(t, 16381, 1021, tlab::Placement::in_place).kernel() == want({16381, 1021}, "gpu/inplace-rect/c2r-grid"));
    CHECK(tlab::Plan(t, 1000, 257, tlab::Placement::in_place).kernel() == want({1000, 257}, "gpu/inplace-rect/c2r-grid"));
    CHECK(blocks(tlab::Plan(t, 16384, 1024, tlab::Placement::in_place).kernel()) ==
          want({16384, 1024}, "gpu/inplace-rect/blocks"));
  }
  // 1000 x 257 of every type (4 MB at most) fits the shared memory of any GPU of 30 SMs and
  // 160 KiB each.
  CHECK(on_grid_taken >= static_cast<int>(tlab::all_dtypes().size()));
}

TEST_CASE("c2r's row pass on rows over 16 KiB, in blocks of 512 threads and of 1024, gives the transpose") {
  if (std::getenv("TLAB_GPU_TEST_SMALL")) return;
  // Rows over 16 KiB are a block's each. On an H100 or an H200 (228 KiB a SM): 257 x 16381
  // takes blocks of 512 for float (64 KiB rows) and uint16 (two 32 KiB buffers), of 1024 for
  // double (128 KiB), 256 for uint8 (16 KiB, a short row); 61 x 20011 float (80 KiB, two
  // blocks an SM) takes 1024. complex128 at 257 x 16381 (256 KiB) goes through scratch.
  int checked = 0;
  for (auto [m, n] : {std::pair<std::int64_t, std::int64_t>{257, 16381}, {61, 20011}, {16381, 257}})
    for (tlab::DType t : tlab::all_dtypes()) {
      const int elem = static_cast<int>(tlab::dtype_size(t));
      const tlab::Shape s{m, n};
      CAPTURE(tlab::to_string(s));
      CAPTURE(tlab::dtype_name(t));
      const std::size_t bytes = static_cast<std::size_t>(s.elements()) * elem;
      std::vector<unsigned char> in(bytes), want(bytes), got(bytes);
      tlab::fill_random(in.data(), s.elements(), t);
      tlab::reference_transpose(in.data(), want.data(), s, elem);
      unsigned char* d = nullptr;
      REQUIRE(cudaMalloc(&d, bytes) == cudaSuccess);
      for (bool grid : {false, true}) {
        CAPTURE(grid);
        REQUIRE(cudaMemcpy(d, in.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
        tlab::gpu::transpose_in_place_rect(d, s, elem, nullptr, 256, nullptr, grid);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        REQUIRE(cudaMemcpy(got.data(), d, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
        CHECK(got == want);
        ++checked;
      }
      REQUIRE(cudaFree(d) == cudaSuccess);
    }
  CHECK(checked == 3 * 2 * static_cast<int>(tlab::all_dtypes().size()));
}

TEST_CASE("c2r-grid holds no scratch where every pass runs in place, and scratch wherever one does not") {
  const tlab::Variant& v = tlab::registry().get("gpu/inplace-rect/c2r-grid");
  for (tlab::DType t : tlab::all_dtypes()) {
    CAPTURE(tlab::dtype_name(t));
    CHECK(v.scratch_bytes(t, {16381, 1021}) == 0);  // coprime, rows on chip, strips on the grid
    CHECK(v.scratch_bytes(t, {1000, 250}) > 0);     // a common factor: the rotation goes through scratch
    CHECK(v.scratch_bytes(t, {5, 1021}) > 0);       // columns too short for the grid
  }
  CHECK(v.scratch_bytes(tlab::DType::c128, {1021, 16381}) > 0);  // rows of 262 KB: the row pass through scratch
  CHECK(v.scratch_bytes(tlab::DType::f32, {1021, 16381}) == 0);
  // Called with no scratch where a pass needs it (a common factor: the rotation and column
  // passes gather into scratch), the transpose takes a buffer of its own, and is exact.
  const tlab::Shape s{1000, 250};
  const Floats f(s);
  unsigned char* d = nullptr;
  REQUIRE(cudaMalloc(&d, f.in.size()) == cudaSuccess);
  for (bool grid : {false, true}) {
    CAPTURE(grid);
    CHECK(after(d, f.in, [&](unsigned char* m) { tlab::gpu::transpose_in_place_rect(m, s, 4, nullptr, 256, nullptr, grid); }) ==
          f.want);
  }
  REQUIRE(cudaFree(d) == cudaSuccess);
}

TEST_CASE("a plan on the block decomposition is exact with its own table's counts: many cycles and no stretches, stretches and few cycles") {
  if (std::getenv("TLAB_GPU_TEST_SMALL")) return;
  // 16384 x 1024: 2340 short cycles, no stretch (the plan launches no save of stretch starts);
  // 3072 x 4096: 3 short cycles and 388 stretches. Both over 32 MiB in float, so not on-grid.
  for (tlab::Shape s : {tlab::Shape{16384, 1024}, tlab::Shape{3072, 4096}}) {
    CAPTURE(tlab::to_string(s));
    const tlab::Plan plan(tlab::DType::f32, s.rows, s.cols, tlab::Placement::in_place);
    REQUIRE(plan.kernel().rfind("gpu/inplace-rect/blocks", 0) == 0);
    const Floats f(s);
    unsigned char* d = nullptr;
    REQUIRE(cudaMalloc(&d, f.in.size()) == cudaSuccess);
    for (int run = 0; run < 2; ++run) {  // a plan runs many times: the second run finds the same counts
      CAPTURE(run);
      CHECK(after(d, f.in, [&](unsigned char* m) { plan.execute_in_place(m, nullptr); }) == f.want);
    }
    REQUIRE(cudaFree(d) == cudaSuccess);
  }
}
