// The host-to-host pipeline: exact for any panel size, stream count and issue order, and a
// clean refusal (nothing written) when it cannot run.
#include <doctest/doctest.h>
#include <cuda_runtime.h>


#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "tlab/executor.hpp"
#include "tlab/gpu/device_buffer.cuh"
#include "tlab/gpu/host_memory.cuh"
#include "tlab/host_transpose.hpp"
#include "tlab/reference.hpp"

namespace {
struct PinnedBuf {
  void* p = nullptr;
  explicit PinnedBuf(std::size_t n) { REQUIRE(cudaMallocHost(&p, n) == cudaSuccess); }
  ~PinnedBuf() { cudaFreeHost(p); }
};

void check_pipeline(tlab::Shape s, tlab::DType t, const tlab::PipelineOptions& o, bool pinned) {
  const std::size_t bytes = static_cast<std::size_t>(s.elements()) * tlab::dtype_size(t);
  std::unique_ptr<PinnedBuf> pin_in, pin_out;
  std::vector<unsigned char> pg_in, pg_out;
  void *in, *out;
  if (pinned) {
    pin_in = std::make_unique<PinnedBuf>(bytes);
    pin_out = std::make_unique<PinnedBuf>(bytes);
    in = pin_in->p;
    out = pin_out->p;
  } else {
    pg_in.resize(bytes);
    pg_out.resize(bytes);
    in = pg_in.data();
    out = pg_out.data();
  }
  std::vector<unsigned char> want(bytes);
  tlab::fill_random(in, s.elements(), t);
  tlab::reference_transpose(in, want.data(), s, tlab::dtype_size(t));
  tlab::poison_against(out, want.data(), bytes);
  tlab::transpose_host_to_host(in, out, s, t, o);
  CHECK(tlab::compare_exact(out, want.data(), s.transposed(), tlab::dtype_size(t)) == "");
}
// A pinned n x n float matrix with unequal mirror pairs, transposed in place by `transpose`,
// compared exactly with the reference.
template <typename F> void check_in_place_pinned(std::int64_t n, F transpose) {
  const std::size_t bytes = static_cast<std::size_t>(n * n) * sizeof(float);
  PinnedBuf m(bytes);
  std::vector<unsigned char> in(bytes), want(bytes);
  tlab::fill_random(in.data(), n * n, tlab::DType::f32);
  tlab::make_mirror_pairs_differ(in.data(), {n, n}, sizeof(float));
  tlab::reference_transpose(in.data(), want.data(), {n, n}, sizeof(float));
  std::memcpy(m.p, in.data(), bytes);
  transpose(m.p);
  CHECK(tlab::compare_exact(m.p, want.data(), {n, n}, sizeof(float)) == "");
}
}  // namespace

TEST_CASE("the host-to-host pipeline is exact for blocks that do not divide the matrix, any streams, both orders") {
  // Under compute-sanitizer (TLAB_GPU_TEST_SMALL) every copy and launch is slow: a subset.
  const bool small = std::getenv("TLAB_GPU_TEST_SMALL") != nullptr;
  using Block = std::pair<std::int64_t, std::int64_t>;
  const std::vector<tlab::Shape> shapes =
      small ? std::vector<tlab::Shape>{{300, 177}, {1, 513}} : std::vector<tlab::Shape>{{1000, 777}, {777, 1000}, {1, 4097}, {4097, 1}, {513, 513}};
  const std::vector<Block> blocks = small ? std::vector<Block>{{7, 5}, {100, 0}, {100000, 100000}}
                                          : std::vector<Block>{{1, 0}, {7, 5}, {100, 0}, {100, 333}, {512, 64}, {100000, 100000}};
  const std::vector<int> stream_counts = small ? std::vector<int>{1, 3} : std::vector<int>{1, 2, 3, 5};
  for (tlab::Shape s : shapes)
    for (auto [panel, panel_cols] : blocks)
      for (int streams : stream_counts)
        for (auto order : {tlab::IssueOrder::depth_first, tlab::IssueOrder::breadth_first}) {
          CAPTURE(tlab::to_string(s));
          CAPTURE(panel);
          CAPTURE(panel_cols);
          CAPTURE(streams);
          const std::string ord = tlab::issue_order_name(order);
          CAPTURE(ord);
          check_pipeline(s, tlab::DType::f32, {panel, panel_cols, streams, order, "gpu/unrolled/t32x4-pad"}, true);
        }
}

TEST_CASE("the mapped (zero-copy) pipeline is exact, and refuses pageable memory before writing") {
  tlab::PipelineOptions o;
  o.access = tlab::HostAccess::mapped;
  for (tlab::Shape s : {tlab::Shape{1000, 777}, {1, 4097}, {4097, 1}, {513, 513}})
    for (const char* k : {"gpu/unrolled/t32x4-pad", "gpu/unrolled/t64x4-pad", "gpu/naive-rowread/b16"}) {
      CAPTURE(tlab::to_string(s));
      CAPTURE(k);
      o.kernel = k;
      check_pipeline(s, tlab::DType::f32, o, true);
    }
  o.kernel = "gpu/tiled/t32-pad";
  for (tlab::DType t : {tlab::DType::u8, tlab::DType::f64, tlab::DType::c128}) {
    const std::string type = tlab::dtype_name(t);
    CAPTURE(type);
    check_pipeline({300, 1001}, t, o, true);
  }
  REQUIRE(tlab::pipeline_device_bytes(o, {4096, 4096}, tlab::DType::f32) == 0);
  const tlab::Shape s{256, 300};
  std::vector<float> in(s.elements(), 1.5f), out(s.elements(), -7.0f);
  CHECK_THROWS_AS(tlab::transpose_host_to_host(in.data(), out.data(), s, tlab::DType::f32, o), std::invalid_argument);
  PinnedBuf pinned(in.size() * sizeof(float));
  CHECK_THROWS_AS(tlab::transpose_host_to_host(pinned.p, out.data(), s, tlab::DType::f32, o), std::invalid_argument);
  for (float x : out) REQUIRE(x == -7.0f);
}

TEST_CASE("copies in with the kernel storing into the host output is exact for any blocks, streams, orders and types") {
  const bool small = std::getenv("TLAB_GPU_TEST_SMALL") != nullptr;
  tlab::PipelineOptions o;
  o.access = tlab::HostAccess::copy_in;
  const std::vector<tlab::Shape> shapes =
      small ? std::vector<tlab::Shape>{{300, 177}} : std::vector<tlab::Shape>{{1000, 777}, {777, 1000}, {1, 4097}, {4097, 1}, {513, 513}};
  for (tlab::Shape s : shapes)
    for (auto [pr, pc] : {std::pair<std::int64_t, std::int64_t>{100, 0}, {7, 5}, {512, 100000}, {100000, 100000}})
      for (int streams : {1, 3})
        for (auto order : {tlab::IssueOrder::depth_first, tlab::IssueOrder::breadth_first})
          for (const char* k : {"gpu/rect/r128c32x8", "gpu/rect/r32c128x8"}) {
            CAPTURE(tlab::to_string(s));
            CAPTURE(pr);
            CAPTURE(pc);
            CAPTURE(streams);
            CAPTURE(k);
            o.panel_rows = pr;
            o.panel_cols = pc;
            o.streams = streams;
            o.order = order;
            o.kernel = k;
            check_pipeline(s, tlab::DType::f32, o, true);
          }
  o = tlab::PipelineOptions{};
  o.access = tlab::HostAccess::copy_in;
  o.kernel = "gpu/rect/r64c32x8";
  o.panel_rows = 100;
  for (tlab::DType t : {tlab::DType::i32, tlab::DType::f64}) {
    const std::string type = tlab::dtype_name(t);
    CAPTURE(type);
    check_pipeline({300, 1001}, t, o, true);
  }
}

TEST_CASE("copies in refuses, before writing, a kernel without an output pitch and an output that is not page-locked") {
  tlab::PipelineOptions o{100, 0, 2, tlab::IssueOrder::depth_first, "gpu/unrolled/t32x4-pad"};
  o.access = tlab::HostAccess::copy_in;
  const tlab::Shape s{256, 300};
  PinnedBuf in(s.elements() * sizeof(float)), pinned_out(s.elements() * sizeof(float));
  tlab::fill_random(in.p, s.elements(), tlab::DType::f32);
  std::vector<float> out(s.elements(), -7.0f);
  std::memcpy(pinned_out.p, out.data(), out.size() * sizeof(float));
  CHECK_THROWS_AS(tlab::transpose_host_to_host(in.p, pinned_out.p, s, tlab::DType::f32, o), std::invalid_argument);
  o.kernel = "gpu/rect/r128c32x8";
  CHECK_THROWS_AS(tlab::transpose_host_to_host(in.p, out.data(), s, tlab::DType::f32, o), std::invalid_argument);
  for (float x : out) REQUIRE(x == -7.0f);
  const auto* po = static_cast<const float*>(pinned_out.p);
  for (std::int64_t i = 0; i < s.elements(); ++i) REQUIRE(po[i] == -7.0f);
  // One device block per stream: the transposed blocks never live on the device.
  const tlab::PipelineOptions staged{100, 0, 2, tlab::IssueOrder::depth_first, "gpu/rect/r128c32x8"};
  CHECK(2 * tlab::pipeline_device_bytes(o, {4096, 4096}, tlab::DType::f32) ==
        tlab::pipeline_device_bytes(staged, {4096, 4096}, tlab::DType::f32));
}

TEST_CASE("the mapped in-place host transpose is exact for any size and refuses what it cannot do") {
  for (std::int64_t n : {1, 7, 513, 1000})
    for (const char* k : {"gpu/inplace-tiled/t32x8", "gpu/inplace-tiled/t16x16", "gpu/inplace-naive/b16"}) {
      CAPTURE(n);
      CAPTURE(k);
      check_in_place_pinned(n, [&](void* m) { tlab::transpose_host_in_place_mapped(m, {n, n}, tlab::DType::f32, k); });
    }
  {  // double through a registered mapping (cudaHostRegister), as the out-of-core run does it
    const std::int64_t n = 777;
    std::vector<double> m(static_cast<std::size_t>(n * n));
    std::vector<unsigned char> want(m.size() * sizeof(double));
    tlab::fill_random(m.data(), n * n, tlab::DType::f64);
    tlab::make_mirror_pairs_differ(m.data(), {n, n}, sizeof(double));
    tlab::reference_transpose(m.data(), want.data(), {n, n}, sizeof(double));
    REQUIRE(cudaHostRegister(m.data(), m.size() * sizeof(double), cudaHostRegisterDefault) == cudaSuccess);
    tlab::transpose_host_in_place_mapped(m.data(), {n, n}, tlab::DType::f64);
    REQUIRE(cudaHostUnregister(m.data()) == cudaSuccess);
    CHECK(tlab::compare_exact(m.data(), want.data(), {n, n}, sizeof(double)) == "");
  }
  std::vector<float> pageable(64 * 64, 2.0f);
  pageable[1] = 3.0f;
  CHECK_THROWS_AS(tlab::transpose_host_in_place_mapped(pageable.data(), {64, 64}, tlab::DType::f32), std::invalid_argument);
  PinnedBuf sq(64 * 64 * sizeof(float));
  CHECK_THROWS_AS(tlab::transpose_host_in_place_mapped(sq.p, {32, 128}, tlab::DType::f32), std::invalid_argument);
  CHECK_THROWS_AS(tlab::transpose_host_in_place_mapped(sq.p, {64, 64}, tlab::DType::f32, "gpu/inplace-tiled-seed002/b16"),
                  std::invalid_argument);
  CHECK_THROWS_AS(tlab::transpose_host_in_place_mapped(sq.p, {64, 64}, tlab::DType::f32, "gpu/unrolled/t32x4-pad"),
                  std::invalid_argument);
  CHECK(pageable[1] == 3.0f);
}

TEST_CASE("the pipeline works for every element type its kernel has, and from pageable memory") {
  for (tlab::DType t : {tlab::DType::u8, tlab::DType::u16, tlab::DType::i32, tlab::DType::f64, tlab::DType::c128}) {
    const std::string type = tlab::dtype_name(t);
    CAPTURE(type);
    check_pipeline({300, 1001}, t, {64, 100, 3, tlab::IssueOrder::breadth_first, "gpu/tiled/t32-pad"}, true);
  }
  check_pipeline({1000, 999}, tlab::DType::f32, {128, 0, 2, tlab::IssueOrder::depth_first, "gpu/unrolled/t32x4-pad"}, false);
}

TEST_CASE("the pipeline refuses bad options and short device memory before writing anything") {
  const tlab::Shape s{4096, 4096};
  std::vector<float> in(s.elements(), 1.5f), out(s.elements(), -7.0f);
  using tlab::IssueOrder;
  CHECK_THROWS_AS(tlab::transpose_host_to_host(in.data(), out.data(), s, tlab::DType::f32, {0, 0, 0, IssueOrder::depth_first, "gpu/tiled/t32-pad"}),
                  std::invalid_argument);
  CHECK_THROWS_AS(tlab::transpose_host_to_host(in.data(), out.data(), s, tlab::DType::f32, {0, 0, 2, IssueOrder::depth_first, "gpu/no-such-kernel"}),
                  std::invalid_argument);
  CHECK_THROWS_AS(tlab::transpose_host_to_host(in.data(), out.data(), s, tlab::DType::f32,
                                               {0, 0, 2, IssueOrder::depth_first, "gpu/inplace-tiled-seed002/b16"}),
                  std::invalid_argument);
  CHECK_THROWS_AS(tlab::transpose_host_to_host(in.data(), out.data(), s, tlab::DType::f32, {0, 0, 2, IssueOrder::depth_first, "gpu/memcpy"}),
                  std::invalid_argument);
  // More device memory than any GPU has: 64 streams x 2 blocks of 2^20 x 2^16 floats.
  size_t free_b = 0, total_b = 0;
  REQUIRE(cudaMemGetInfo(&free_b, &total_b) == cudaSuccess);
  const tlab::Shape huge{std::int64_t(1) << 20, std::int64_t(1) << 16};  // 256 GiB of floats, never allocated on the host
  const tlab::PipelineOptions greedy{std::int64_t(1) << 20, std::int64_t(1) << 16, 64, IssueOrder::depth_first, "gpu/tiled/t32-pad"};
  REQUIRE(tlab::pipeline_device_bytes(greedy, huge, tlab::DType::f32) > free_b);
  CHECK_THROWS_AS(tlab::transpose_host_to_host(in.data(), out.data(), huge, tlab::DType::f32, greedy), tlab::ResourceError);
  for (float x : out) REQUIRE(x == -7.0f);  // nothing half-written
}

TEST_CASE("an allocation the machine cannot give is a ResourceError that names the memory, and leaves no error behind") {
  auto refused = [](auto&& allocate, const std::string& what) {
    std::string message;
    try {
      allocate();
    } catch (const tlab::ResourceError& e) {
      message = e.what();
    }
    CHECK_MESSAGE(message.find(what) != std::string::npos, "message: '" << message << "'");
    CHECK(cudaGetLastError() == cudaSuccess);
  };
  // compute-sanitizer counts a refused allocation as an API error, which the sanitize run
  // would report as a failure (TLAB_GPU_TEST_SMALL marks that run).
  if (std::getenv("TLAB_GPU_TEST_SMALL") == nullptr) {
    const std::size_t absurd = std::size_t(1) << 52;  // 4 PiB
    refused([&] { tlab::gpu::PinnedBuffer b(absurd); }, "pinned host memory");
    refused([&] { tlab::gpu::DeviceBuffer b(absurd); }, "device memory");
  }
  // The GPU is still usable afterwards: a pipeline right after the refusals is exact.
  const tlab::Shape s{300, 500};
  std::vector<float> in(s.elements()), out(s.elements(), -1.0f), want(s.elements());
  tlab::fill_random(in.data(), s.elements(), tlab::DType::f32);
  tlab::reference_transpose(in.data(), want.data(), s, sizeof(float));
  tlab::transpose_host_to_host(in.data(), out.data(), s, tlab::DType::f32,
                               {128, 128, 2, tlab::IssueOrder::depth_first, "gpu/tiled/t32-pad"});
  CHECK(std::memcmp(out.data(), want.data(), out.size() * sizeof(float)) == 0);
}

TEST_CASE("one pipeline plan executed many times gives the exact transpose each time") {
  const tlab::Shape s{1000, 777};
  const std::size_t bytes = static_cast<std::size_t>(s.elements()) * sizeof(float);
  PinnedBuf in(bytes), out(bytes);
  std::vector<unsigned char> want(bytes);
  tlab::HostTransposePlan plan(s, tlab::DType::f32, {256, 300, 3, tlab::IssueOrder::breadth_first, "gpu/unrolled/t32x4-pad"});
  for (int i = 0; i < 4; ++i) {  // fresh data each time: a stale block from the last call must show
    tlab::fill_random(in.p, s.elements(), tlab::DType::f32);
    tlab::reference_transpose(in.p, want.data(), s, sizeof(float));
    tlab::poison_against(out.p, want.data(), bytes);
    plan.execute(in.p, out.p);
    CHECK(tlab::compare_exact(out.p, want.data(), s.transposed(), sizeof(float)) == "");
  }
}

TEST_CASE("the in-place host transpose is exact for any size, block and stream count") {
  for (std::int64_t n : {1, 7, 100, 513, 1000})
    for (std::int64_t block : {1, 3, 64, 256, 4096})
      for (int streams : {1, 2, 3}) {
        if (n > 100 && block < 64) continue;  // a million one-element tiles teach nothing more
        CAPTURE(n);
        CAPTURE(block);
        CAPTURE(streams);
        check_in_place_pinned(n, [&](void* m) { tlab::transpose_host_in_place(m, {n, n}, tlab::DType::f32, block, streams); });
      }
  // Other element types, and pageable memory.
  for (tlab::DType t : {tlab::DType::u8, tlab::DType::f64, tlab::DType::c128}) {
    const std::int64_t n = 333;
    const std::size_t bytes = static_cast<std::size_t>(n * n) * tlab::dtype_size(t);
    std::vector<unsigned char> m(bytes), want(bytes);
    tlab::fill_random(m.data(), n * n, t);
    tlab::make_mirror_pairs_differ(m.data(), {n, n}, tlab::dtype_size(t));
    tlab::reference_transpose(m.data(), want.data(), {n, n}, tlab::dtype_size(t));
    tlab::transpose_host_in_place(m.data(), {n, n}, t, 100, 2, "gpu/tiled/t32-pad");
    const std::string type = tlab::dtype_name(t);
    CAPTURE(type);
    CHECK(tlab::compare_exact(m.data(), want.data(), {n, n}, tlab::dtype_size(t)) == "");
  }
  std::vector<float> rect(6, 1.0f);
  CHECK_THROWS_AS(tlab::transpose_host_in_place(rect.data(), {2, 3}, tlab::DType::f32, 2, 1), std::invalid_argument);
  CHECK(rect[1] == 1.0f);
}
