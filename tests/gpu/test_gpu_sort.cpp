// The GPU matrix sort: every row sort, element type and memory kind gives the same matrix as
// the CPU's one-pass sort (the result of "rows, then columns" is unique when equivalent
// elements have equal bits), NaNs and signed zeros placed by the same order; the seed's loop
// stops after one iteration and its check kernel catches what is unsorted.
#include <doctest/doctest.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "tlab/executor.hpp"
#include "tlab/gpu/sort_rows.cuh"
#include "tlab/reference.hpp"
#include "tlab/sort/gpu_sort.hpp"
#include "tlab/sort/matrix_sort.hpp"
#include "tlab/sort/ordered_keys.hpp"
#include "tlab/sort/sort_variants.hpp"

namespace ts = tlab::sort;

namespace {
bool small_only() { return std::getenv("TLAB_GPU_TEST_SMALL") != nullptr; }

// Random data with ties, and for floats zeros of both signs and infinities, so that the
// order of -0.0/+0.0 and the ends of the range are exercised.
std::vector<unsigned char> input_for(tlab::DType t, tlab::Shape s, unsigned seed, bool nans = false) {
  std::vector<unsigned char> v(static_cast<std::size_t>(s.elements()) * tlab::dtype_size(t));
  tlab::fill_random(v.data(), s.elements(), t);
  std::mt19937_64 rng(seed);
  auto sprinkle = [&](auto* p, auto special) {
    for (std::int64_t i = 0; i < s.elements() / 8; ++i) p[rng() % s.elements()] = special(rng() % 6);
  };
  if (t == tlab::DType::i32) {
    auto* p = reinterpret_cast<std::int32_t*>(v.data());
    sprinkle(p, [](unsigned k) { return k == 0 ? std::numeric_limits<std::int32_t>::min() : static_cast<std::int32_t>(k) - 3; });
  } else if (t == tlab::DType::f32) {
    auto* p = reinterpret_cast<float*>(v.data());
    sprinkle(p, [&](unsigned k) {
      const float inf = std::numeric_limits<float>::infinity();
      const float xs[] = {-0.0f, 0.0f, inf, -inf, nans ? std::nanf("") : 1.0f, nans ? -std::nanf("7") : -1.0f};
      return xs[k];
    });
  } else {
    auto* p = reinterpret_cast<double*>(v.data());
    sprinkle(p, [&](unsigned k) {
      const double inf = std::numeric_limits<double>::infinity();
      const double xs[] = {-0.0, 0.0, inf, -inf, nans ? std::nan("") : 1.0, nans ? -std::nan("9") : -1.0};
      return xs[k];
    });
  }
  return v;
}

std::vector<unsigned char> cpu_sorted(std::vector<unsigned char> m, tlab::DType t, tlab::Shape s) {
  for (const auto& v : ts::sort_variants())
    if (v.name == "cpu/sort-sequential") v.run(t, m.data(), s);
  return m;
}

std::vector<unsigned char> gpu_sorted(const std::vector<unsigned char>& in, tlab::DType t, tlab::Shape s,
                                      const ts::GpuSortOptions& o, ts::GpuSortTimes* times = nullptr) {
  ts::GpuMatrixSort plan(s, t, o);
  std::vector<unsigned char> out(in.size());
  tlab::poison(out.data(), out.size());
  plan.load(in.data());
  const ts::GpuSortTimes x = plan.run();
  if (times) *times = x;
  plan.result(out.data());
  return out;
}
}  // namespace

TEST_CASE("every GPU row sort gives the CPU's sorted matrix bit for bit, for every type and shape") {
  std::vector<tlab::Shape> shapes{{1, 1}, {1, 100}, {100, 1}, {37, 53}, {128, 128}};
  if (!small_only())
    for (tlab::Shape s : {tlab::Shape{256, 1000}, {1000, 256}, {777, 777}, {1024, 256}, {256, 1024}}) shapes.push_back(s);
  int compared = 0;
  for (const std::string& r : ts::gpu_row_sorts())
    for (tlab::DType t : ts::sort_types())
      for (tlab::Shape s : shapes) {
        ts::GpuSortOptions o;
        o.row_sort = r;
        if (!ts::gpu_sort_refuses(o, t, s).empty()) continue;
        CAPTURE(r);
        const std::string type = tlab::dtype_name(t);
        CAPTURE(type);
        CAPTURE(tlab::to_string(s));
        const auto in = input_for(t, s, static_cast<unsigned>(s.rows * 131 + s.cols));
        const auto want = cpu_sorted(in, t, s);
        ts::GpuSortTimes times;
        const auto got = gpu_sorted(in, t, s, o, &times);
        CHECK(got == want);
        CHECK(times.iterations == 1);
        ++compared;
      }
  CHECK(compared >= 6 * 3 * 5);
}

TEST_CASE("row sorts on device keys: every row sorted and its elements kept, on tile-multiple shapes") {
  const std::vector<tlab::Shape> shapes = small_only() ? std::vector<tlab::Shape>{{64, 32}, {32, 64}}
                                                      : std::vector<tlab::Shape>{{1024, 256}, {256, 1024}, {2048, 512}, {1024, 1024}, {1000, 256}};
  for (tlab::Shape s : shapes)
    for (const char* name : {"cub-segmented-radix", "cub-segmented-sort", "block-bitonic"})
      for (int rep = 0; rep < 2; ++rep) {
        namespace gs = tlab::gpu::sort;
        const gs::RowSort r = gs::parse_row_sort(name);
        std::vector<std::uint32_t> in(static_cast<std::size_t>(s.elements())), got(in.size());
        tlab::fill_random(in.data(), s.elements(), tlab::DType::i32);
        const std::size_t bytes = in.size() * 4, temp_bytes = gs::sort_rows_temp_bytes<std::uint32_t>(r, s.rows, s.cols);
        void *a = nullptr, *b = nullptr, *temp = nullptr;
        REQUIRE(cudaMalloc(&a, bytes) == cudaSuccess);
        REQUIRE(cudaMalloc(&b, bytes) == cudaSuccess);
        if (temp_bytes) REQUIRE(cudaMalloc(&temp, temp_bytes) == cudaSuccess);
        REQUIRE(cudaMemcpy(a, in.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
        gs::sort_rows(r, static_cast<std::uint32_t*>(a), static_cast<std::uint32_t*>(b), s.rows, s.cols, temp, temp_bytes,
                      nullptr);
        REQUIRE(cudaMemcpy(got.data(), gs::sorts_in_place(r) ? a : b, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
        int bad_rows = 0;
        for (std::int64_t i = 0; i < s.rows; ++i) {
          std::vector<std::uint32_t> want(in.begin() + i * s.cols, in.begin() + (i + 1) * s.cols);
          std::sort(want.begin(), want.end());
          bad_rows += !std::equal(want.begin(), want.end(), got.begin() + i * s.cols);
        }
        CAPTURE(name);
        CAPTURE(tlab::to_string(s));
        CHECK(bad_rows == 0);
        cudaFree(a);
        cudaFree(b);
        cudaFree(temp);
      }
}

TEST_CASE("NaNs of both signs end every row and column, as on the CPU, and the elements are kept") {
  for (const char* r : {"block-bitonic", "cub-segmented-radix", "thread-merge"})
    for (tlab::DType t : {tlab::DType::f32, tlab::DType::f64}) {
      const tlab::Shape s = small_only() ? tlab::Shape{17, 23} : tlab::Shape{97, 131};
      ts::GpuSortOptions o;
      o.row_sort = r;
      CAPTURE(r);
      const auto in = input_for(t, s, 5, true);
      const auto got = gpu_sorted(in, t, s, o);
      CHECK(ts::rows_and_columns_sorted(got.data(), s, t));
      CHECK(ts::multiset_fingerprint(got.data(), s.elements(), t) == ts::multiset_fingerprint(in.data(), s.elements(), t));
    }
}

TEST_CASE("every memory kind and both streamed schedules give the same sorted matrix") {
  const tlab::Shape s = small_only() ? tlab::Shape{150, 77} : tlab::Shape{1000, 517};
  for (tlab::DType t : ts::sort_types()) {
    const auto in = input_for(t, s, 11);
    const auto want = cpu_sorted(in, t, s);
    for (const char* r : {"cub-segmented-radix", "block-bitonic"})
      for (ts::SortMemory m : {ts::SortMemory::pinned, ts::SortMemory::pageable, ts::SortMemory::managed,
                               ts::SortMemory::managed_prefetch}) {
        ts::GpuSortOptions o;
        o.row_sort = r;
        o.memory = m;
        CAPTURE(r);
        const std::string mem = ts::sort_memory_name(m);
        CAPTURE(mem);
        CHECK(gpu_sorted(in, t, s, o) == want);
        if (m != ts::SortMemory::pinned) continue;
        for (int streams : {2, 3, 7})
          for (auto order : {tlab::IssueOrder::depth_first, tlab::IssueOrder::breadth_first}) {
            o.streams = streams;
            o.order = order;
            CAPTURE(streams);
            CHECK(gpu_sorted(in, t, s, o) == want);
          }
      }
  }
}

TEST_CASE("one plan sorts fresh inputs again and again, each run from the loaded input") {
  const tlab::Shape s = small_only() ? tlab::Shape{30, 20} : tlab::Shape{300, 200};
  ts::GpuSortOptions o;
  o.memory = ts::SortMemory::pinned;
  ts::GpuMatrixSort plan(s, tlab::DType::f32, o);
  std::vector<unsigned char> got(static_cast<std::size_t>(s.elements()) * 4);
  for (unsigned k = 0; k < 3; ++k) {
    const auto in = input_for(tlab::DType::f32, s, 100 + k);
    plan.load(in.data());
    plan.run();
    plan.result(got.data());
    CHECK(got == cpu_sorted(in, tlab::DType::f32, s));
  }
  plan.run();  // again from the loaded input, not from the sorted result
  std::vector<unsigned char> again(got.size());
  plan.result(again.data());
  CHECK(again == got);
  ts::GpuMatrixSort unloaded(s, tlab::DType::f32, o);
  CHECK_THROWS_AS(unloaded.run(), std::logic_error);
}

TEST_CASE("the seed's loop stops after one iteration, and its launches are counted") {
  for (const char* r : {"block-oddeven", "thread-merge", "cub-segmented-radix"}) {
    ts::GpuSortOptions o;
    o.row_sort = r;
    o.seed_loop = true;
    const tlab::Shape s = small_only() ? tlab::Shape{20, 30} : tlab::Shape{200, 300};
    const auto in = input_for(tlab::DType::i32, s, 3);
    ts::GpuSortTimes times;
    CHECK(gpu_sorted(in, tlab::DType::i32, s, o, &times) == cpu_sorted(in, tlab::DType::i32, s));
    CAPTURE(r);
    CHECK(times.iterations == 1);
    // key map, 2 row sorts, 2 transposes, the check, key map back; a CUB sort is 2 (offsets, sort)
    CHECK(times.launches == (std::string(r) == "cub-segmented-radix" ? 9 : 7));
    CHECK(times.check_s > 0);
  }
}

TEST_CASE("the check kernel finds an unsorted pair anywhere and passes a sorted matrix") {
  const tlab::Shape s{64, 96};
  std::vector<std::uint32_t> m(static_cast<std::size_t>(s.elements()));
  for (std::int64_t i = 0; i < s.rows; ++i)
    for (std::int64_t j = 0; j < s.cols; ++j) m[static_cast<std::size_t>(i * s.cols + j)] = static_cast<std::uint32_t>(i + 2 * j + 10);
  void *d = nullptr, *flag = nullptr;
  REQUIRE(cudaMalloc(&d, m.size() * 4) == cudaSuccess);
  REQUIRE(cudaMalloc(&flag, sizeof(int)) == cudaSuccess);
  auto check = [&](const std::vector<std::uint32_t>& x) {
    int f = -1;
    REQUIRE(cudaMemcpy(d, x.data(), x.size() * 4, cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemset(flag, 0, sizeof(int)) == cudaSuccess);
    tlab::gpu::sort::check_sorted(static_cast<const std::uint32_t*>(d), s.rows, s.cols, static_cast<int*>(flag), nullptr);
    REQUIRE(cudaMemcpy(&f, flag, sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
    return f;
  };
  CHECK(check(m) == 0);
  std::mt19937 rng(9);
  for (int k = 0; k < 50; ++k) {
    auto x = m;
    const std::int64_t i = rng() % s.rows, j = rng() % s.cols;
    x[static_cast<std::size_t>(i * s.cols + j)] = static_cast<std::uint32_t>(i + 2 * j + 10 - 3);  // below its neighbours
    if (i == 0 && j == 0) continue;                                                        // nothing to compare with
    CAPTURE(i);
    CAPTURE(j);
    CHECK(check(x) == 1);
  }
  cudaFree(d);
  cudaFree(flag);
}

TEST_CASE("the GPU sort refuses what it cannot do, before touching the device") {
  ts::GpuSortOptions o;
  CHECK(ts::gpu_sort_refuses(o, tlab::DType::u8, {4, 4}) != "");
  o.row_sort = "quick";
  CHECK(ts::gpu_sort_refuses(o, tlab::DType::i32, {4, 4}) != "");
  CHECK_THROWS_AS(ts::GpuMatrixSort({4, 4}, tlab::DType::i32, o), std::invalid_argument);
  o.row_sort = "thread-bubble";
  CHECK(ts::gpu_sort_refuses(o, tlab::DType::i32, {5000, 10}) != "");  // 5000-long columns
  o.row_sort = "block-bitonic";
  CHECK(ts::gpu_sort_refuses(o, tlab::DType::f64, {10, 1 << 20}) != "");  // no shared memory holds that row
  o.row_sort = "cub-segmented-radix";
  o.streams = 2;
  CHECK(ts::gpu_sort_refuses(o, tlab::DType::i32, {100, 100}) != "");  // streams need pinned memory
  o.memory = ts::SortMemory::pinned;
  CHECK(ts::gpu_sort_refuses(o, tlab::DType::i32, {100, 100}) == "");
  o.seed_loop = true;
  CHECK(ts::gpu_sort_refuses(o, tlab::DType::i32, {100, 100}) != "");
}
