// The in-place square transpose in waves (gpu/word-inplace/waves) reads the aligned 16-byte
// words under each row piece, its neighbours' bytes included, and writes back only its own:
// every type, sides off every word, matrices at any offset in a word, one wave and many (small
// tiles on a few blocks), nothing written outside the matrix.
#include <doctest/doctest.h>

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "tlab/gpu/inplace_square_waves.cuh"
#include "tlab/inplace_square_waves.hpp"
#include "tlab/registry.hpp"
#include "tlab/transpose.hpp"
#include "guarded_in_place.hpp"

TEST_CASE("in place in waves: one wave and many, sides off every word, any offset, every type") {
  const bool small = std::getenv("TLAB_GPU_TEST_SMALL") != nullptr;
  const tlab::Variant& v = tlab::registry().get("gpu/word-inplace/waves");
  struct Case {
    std::int64_t n;
    tlab::gpu::SquareWaves forced;  // h == 0: the plan's own tiles and grid
  };
  // Forced: tiles of 16 x 16 to 40 x 72 on 5 to 60 blocks, so that 100-1001 take 3 to 40 waves,
  // the last tiles of a row and of the band cut short; rows of tiles longer than the 31 words a
  // warp reads at once (72 x 16 bytes) and a tile of one row. The plan's own: one wave.
  std::vector<Case> cases{{1, {}},          {2, {}},          {31, {}},         {300, {}},
                          {129, {16, 16, 20}}, {301, {16, 24, 40}}, {1001, {40, 72, 60}},
                          {100, {1, 8, 30}}, {257, {32, 32, 20}}};
  if (!small)
    for (std::int64_t n : {std::int64_t{1021}, std::int64_t{4099}, std::int64_t{8191}}) cases.push_back({n, {}});
  int checked = 0, many = 0;
  for (tlab::DType t : v.dtypes())
    for (const Case& c : cases)
      for (int off : {0, 1, 3}) {
        const int e = static_cast<int>(tlab::dtype_size(t));
        const bool forced = c.forced.h > 0;
        CAPTURE(tlab::dtype_name(t));
        CAPTURE(c.n);
        CAPTURE(c.forced.h);
        CAPTURE(c.forced.w);
        CAPTURE(c.forced.blocks);
        CAPTURE(off);
        if (forced) {
          REQUIRE(tlab::waves::fits(c.n, c.forced.h, c.forced.w, c.forced.blocks));
          many += tlab::waves::count(c.n, c.forced.h, c.forced.w, c.forced.blocks) > 2;
        } else if (!v.refuses(t, {c.n, c.n}).empty()) {
          continue;  // a GPU whose grid cannot hold the side's cross
        }
        CHECK(tlab_test::transposed_within_guards(t, {c.n, c.n}, off, 64, 0xA5, [&](unsigned char* m) {
          if (forced) {
            tlab::gpu::transpose_square_in_waves(m, c.n, e, nullptr, &c.forced);
          } else {
            tlab::Operands op;
            op.in = op.out = m;
            op.shape = {c.n, c.n};
            v.kernels.at(t)(op);
          }
        }));
        ++checked;
      }
  CHECK(checked >= 5 * 9 * 3);
  CHECK(many >= 5 * 4 * 3);
}

TEST_CASE("in place in waves: the plan's tiles on this GPU, and what it refuses") {
  int dev = 0, sms = 0, smem = 0;
  REQUIRE(cudaGetDevice(&dev) == cudaSuccess);
  REQUIRE(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess);
  REQUIRE(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) == cudaSuccess);
  for (int e : {1, 2, 4, 8, 16})
    for (std::int64_t n : {std::int64_t{2}, std::int64_t{8191}, std::int64_t{46341}}) {
      CAPTURE(e);
      CAPTURE(n);
      const tlab::gpu::SquareWaves p = tlab::gpu::square_waves_plan(n, e);
      REQUIRE(p.h > 0);  // these fit any GPU with a cooperative launch and tens of SMs
      CHECK(p.blocks <= sms);
      CHECK(p.h <= p.w);
      CHECK(tlab::waves::fits(n, p.h, p.w, p.blocks));
      // The square tile where it lets every wave fit; at 46341 only a wider, lower one does.
      if (n == 8191 && e == 1 && sms >= 100) CHECK(p.h == p.w);
    }
  // Forced tiles that do not let the first wave fit the blocks, or more blocks than the grid.
  const tlab::gpu::SquareWaves too_few{16, 16, 4}, too_many{16, 16, 100000};
  CHECK_THROWS_AS(tlab::gpu::transpose_square_in_waves(nullptr, 1000, 4, nullptr, &too_few), std::invalid_argument);
  CHECK_THROWS_AS(tlab::gpu::transpose_square_in_waves(nullptr, 1000, 4, nullptr, &too_many), std::invalid_argument);
  CHECK_THROWS_AS(tlab::gpu::transpose_square_in_waves(nullptr, 1000, 3, nullptr), std::invalid_argument);
  CHECK(tlab::registry().get("gpu/word-inplace/waves").refuses(tlab::DType::f32, {100, 200}) != "");
}
