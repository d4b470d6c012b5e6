// The library call on the GPU: device and page-locked memory, every element type, aligned
// and unaligned shapes, out of place and in place (square and not), and its refusals.
#include <doctest/doctest.h>

#include <cuda_runtime.h>

#include <cstring>
#include <string>
#include <vector>

#include "guarded_in_place.hpp"
#include "tlab/api/tuning.hpp"
#include "tlab/reference.hpp"
#include "tlab/transpose.hpp"

using namespace tlab;

namespace {

bool have_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

struct Dev {
  void* p = nullptr;
  explicit Dev(std::size_t b) { REQUIRE(cudaMalloc(&p, b) == cudaSuccess); }
  ~Dev() { cudaFree(p); }
};

struct Pinned {
  void* p = nullptr;
  explicit Pinned(std::size_t b) { REQUIRE(cudaMallocHost(&p, b) == cudaSuccess); }
  ~Pinned() { cudaFreeHost(p); }
};

const std::vector<Shape>& shapes() {
  static const std::vector<Shape> s{{1, 1},   {1, 9},     {9, 1},     {3, 5},      {64, 64},    {100, 100},
                                    {128, 128}, {257, 1000}, {1000, 257}, {512, 96}, {2048, 2048}, {4099, 4099},
                                    {4096, 128}, {100, 300}};
  return s;
}

}  // namespace

TEST_CASE("tlab::Plan on device memory: exact for every type and shape, out of place and in place") {
  if (!have_gpu()) return;
  cudaStream_t stream{};
  REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
  int checked = 0;
  for (DType t : all_dtypes())
    for (Shape s : shapes()) {
      CAPTURE(dtype_name(t));
      CAPTURE(to_string(s));
      const std::size_t bytes = s.elements() * dtype_size(t);
      std::vector<unsigned char> in(bytes), want(bytes), got(bytes);
      fill_random(in.data(), s.elements(), t);
      reference_transpose(in.data(), want.data(), s, dtype_size(t));
      Dev a(bytes), b(bytes);
      REQUIRE(cudaMemcpy(a.p, in.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
      REQUIRE(cudaMemset(b.p, 0xA5, bytes) == cudaSuccess);
      const Plan out(t, s.rows, s.cols, Placement::out_of_place);
      out.execute(b.p, a.p, stream);
      REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
      REQUIRE(cudaMemcpy(got.data(), b.p, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
      CAPTURE(out.kernel());
      CHECK(got == want);
      transpose_in_place(a.p, t, s.rows, s.cols, stream);
      REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
      REQUIRE(cudaMemcpy(got.data(), a.p, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
      CHECK(got == want);
      ++checked;
    }
  cudaStreamDestroy(stream);
  CHECK(checked == static_cast<int>(all_dtypes().size() * shapes().size()));
}

TEST_CASE("a vector's plan copies its bytes out of place and runs nothing in place; other shapes take kernels") {
  if (!have_gpu()) return;
  for (DType t : {DType::u8, DType::c128})
    for (Shape s : {Shape{1, 3000001}, Shape{3000001, 1}}) {
      CAPTURE(dtype_name(t));
      CAPTURE(to_string(s));
      const std::size_t bytes = s.elements() * dtype_size(t);
      std::vector<unsigned char> in(bytes), got(bytes);
      fill_random(in.data(), s.elements(), t);
      Dev a(bytes), b(bytes);
      REQUIRE(cudaMemcpy(a.p, in.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
      REQUIRE(cudaMemset(b.p, 0xA5, bytes) == cudaSuccess);
      const Plan out(t, s.rows, s.cols, Placement::out_of_place);
      CHECK(out.kernel() == "gpu/vector/copy");
      out.execute(b.p, a.p, nullptr);
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      REQUIRE(cudaMemcpy(got.data(), b.p, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
      CHECK(got == in);
      const Plan in_place(t, s.rows, s.cols, Placement::in_place);
      CHECK(in_place.kernel() == "gpu/vector/in-place");
      in_place.execute_in_place(a.p, nullptr);
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      REQUIRE(cudaMemcpy(got.data(), a.p, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
      CHECK(got == in);
    }
  CHECK(Plan(DType::f32, 2, 3000001, Placement::out_of_place).kernel().rfind("gpu/vector/", 0) == std::string::npos);
  CHECK(Plan(DType::f32, 3000001, 2, Placement::in_place).kernel().rfind("gpu/vector/", 0) == std::string::npos);
}

TEST_CASE("a square of rows half a 256-byte unit off takes its own table row, or the odd one where the table has none") {
  if (!have_gpu()) return;
  for (DType t : all_dtypes()) {
    const std::int64_t n = 1024 + 128 / static_cast<std::int64_t>(dtype_size(t));  // 1152 bytes a row for uint8
    CAPTURE(dtype_name(t));
    REQUIRE(tuning::shape_class({n, n}, Placement::in_place, dtype_size(t)) == "half-unit");
    const Plan plan(t, n, n, Placement::in_place);
    CAPTURE(plan.kernel());
    CAPTURE(plan.reason());
    const std::string& why = plan.reason();
    if (why.rfind("tuning table ", 0) == 0) {  // the row the reason names is of the class it says
      const std::size_t note = why.rfind(" (half-unit from its odd row)");
      const bool fallback = note != std::string::npos;
      const std::string origin = why.substr(13, fallback ? note - 13 : std::string::npos);  // path:line
      const std::string path = origin.substr(0, origin.rfind(':'));
      int rows = 0;
      for (const tuning::Row& r : tuning::read_table(path))
        if (r.origin == origin) {
          ++rows;
          CHECK(r.shape == (fallback ? "odd" : "half-unit"));
          CHECK(r.variant == plan.kernel());
        }
      CHECK(rows == 1);
    } else {
      CHECK(why.find("built-in default") != std::string::npos);
    }
    CHECK(tlab_test::transposed_within_guards(t, {n, n}, 0, 0, 0,
                                              [&](unsigned char* m) { plan.execute_in_place(m, nullptr); }));
  }
}

TEST_CASE("tlab::transpose on page-locked host memory runs the zero-copy path, exactly") {
  if (!have_gpu()) return;
  for (DType t : {DType::u8, DType::f32, DType::c128})
    for (Shape s : {Shape{1000, 257}, Shape{512, 512}, Shape{300, 40}}) {
      CAPTURE(dtype_name(t));
      CAPTURE(to_string(s));
      const std::size_t bytes = s.elements() * dtype_size(t);
      Pinned a(bytes), b(bytes);
      fill_random(a.p, s.elements(), t);
      std::vector<unsigned char> want(bytes);
      reference_transpose(a.p, want.data(), s, dtype_size(t));
      const Plan plan(t, s.rows, s.cols, Placement::out_of_place, Memory::pinned_host);
      CHECK(plan.kernel().rfind("gpu/", 0) == 0);
      plan.execute(b.p, a.p);
      CHECK(std::memcmp(b.p, want.data(), bytes) == 0);
      transpose_in_place(a.p, t, s.rows, s.cols);
      CHECK(std::memcmp(a.p, want.data(), bytes) == 0);
    }
}

TEST_CASE("device plans refuse host memory, null and overlapping buffers, before writing") {
  if (!have_gpu()) return;
  Dev a(4096 * 4), b(4096 * 4);
  std::vector<float> host(4096, 3.f);
  const Plan plan(DType::f32, 64, 64, Placement::out_of_place);
  CHECK_THROWS_AS(plan.execute(b.p, host.data()), std::invalid_argument);
  CHECK_THROWS_AS(plan.execute(host.data(), a.p), std::invalid_argument);
  CHECK_THROWS_AS(plan.execute(nullptr, a.p), std::invalid_argument);
  CHECK_THROWS_AS(plan.execute(a.p, a.p), std::invalid_argument);
  CHECK_THROWS_AS(plan.execute(static_cast<float*>(a.p) + 1, a.p), std::invalid_argument);
  CHECK(host == std::vector<float>(4096, 3.f));
  const Plan pinned(DType::f32, 64, 64, Placement::out_of_place, Memory::pinned_host);
  CHECK_THROWS_AS(pinned.execute(b.p, a.p), std::invalid_argument);
  try {
    plan.execute(b.p, host.data());
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("not in device memory") != std::string::npos);
  }
}
