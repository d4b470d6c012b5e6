// The host-to-host pipeline: exact for any panel size, stream count and issue order, and a
// clean refusal (nothing written) when it cannot run.
#include <doctest/doctest.h>
#include <cuda_runtime.h>

#include <cstring>
#include <memory>
#include <vector>

#include "tlab/executor.hpp"
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
}  // namespace

TEST_CASE("the host-to-host pipeline is exact for blocks that do not divide the matrix, any streams, both orders") {
  for (tlab::Shape s : {tlab::Shape{1000, 777}, {777, 1000}, {1, 4097}, {4097, 1}, {513, 513}})
    for (auto [panel, panel_cols] : {std::pair<std::int64_t, std::int64_t>{1, 0}, {7, 5}, {100, 0}, {100, 333}, {512, 64}, {100000, 100000}})
      for (int streams : {1, 2, 3, 5})
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
