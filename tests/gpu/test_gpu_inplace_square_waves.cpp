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
    tlab::gpu::SquareWaves bound;  // blocks 0: the device's own grid
  };
  // Bounded: 5 to 60 blocks of 0.5-8 KiB, so that 100-1001 take 2 to 65 waves, the last tiles of
  // a row and of the band cut short, rows of tiles longer than the 31 words a warp reads at
  // once, and tiles of one row. Unbounded: one wave, or a few.
  std::vector<Case> cases{{1, {}}, {2, {}}, {31, {}}, {300, {}}, {129, {0, 20, 1024}}, {301, {0, 40, 2048}},
                          {1001, {0, 60, 8192}}, {100, {0, 30, 512}}, {257, {0, 5, 8192}}};
  if (!small)
    for (std::int64_t n : {std::int64_t{1021}, std::int64_t{4099}, std::int64_t{8191}}) cases.push_back({n, {}});
  int checked = 0, many = 0;
  for (tlab::DType t : v.dtypes())
    for (const Case& c : cases)
      for (int off : {0, 1, 3}) {
        const int e = static_cast<int>(tlab::dtype_size(t));
        const bool bounded = c.bound.blocks > 0;
        CAPTURE(tlab::dtype_name(t));
        CAPTURE(c.n);
        CAPTURE(c.bound.blocks);
        CAPTURE(c.bound.smem);
        CAPTURE(off);
        if (!bounded && !v.refuses(t, {c.n, c.n}).empty()) continue;  // a GPU whose grid cannot hold the side's cross
        if (bounded) {
          const std::size_t waves = e == 1   ? tlab::waves::schedule<1>(c.n, c.bound.blocks, c.bound.smem).size()
                                    : e == 2 ? tlab::waves::schedule<2>(c.n, c.bound.blocks, c.bound.smem).size()
                                    : e == 4 ? tlab::waves::schedule<4>(c.n, c.bound.blocks, c.bound.smem).size()
                                    : e == 8 ? tlab::waves::schedule<8>(c.n, c.bound.blocks, c.bound.smem).size()
                                             : tlab::waves::schedule<16>(c.n, c.bound.blocks, c.bound.smem).size();
          REQUIRE(waves > 0);
          many += waves > 2;
        }
        CHECK(tlab_test::transposed_within_guards(t, {c.n, c.n}, off, 64, 0xA5, [&](unsigned char* m) {
          if (bounded) {
            tlab::gpu::transpose_square_in_waves(m, c.n, e, nullptr, &c.bound);
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
  CHECK(many >= 16 * 3);  // of the 25 bounded pairs, 22 take three waves or more on these bounds
}

TEST_CASE("in place in waves: the plan on this GPU, and what it refuses") {
  int dev = 0, sms = 0;
  REQUIRE(cudaGetDevice(&dev) == cudaSuccess);
  REQUIRE(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess);
  for (int e : {1, 2, 4, 8, 16})
    for (std::int64_t n : {std::int64_t{2}, std::int64_t{8191}, std::int64_t{46341}}) {
      CAPTURE(e);
      CAPTURE(n);
      const tlab::gpu::SquareWaves p = tlab::gpu::square_waves_plan(n, e);
      REQUIRE(p.waves > 0);  // these fit any GPU with a cooperative launch and tens of SMs
      CHECK(p.blocks <= sms);
      CHECK(p.smem > 0);
      // Each wave holds at most the grid's shared memory: the waves are at least the matrix over it.
      CHECK(static_cast<double>(p.waves) * p.blocks * static_cast<double>(p.smem) >= static_cast<double>(n) * n * e);
    }
  // A bound of more blocks than the grid, of no shared memory, or too little for the first
  // cross; an element size of none.
  const tlab::gpu::SquareWaves too_many{0, 100000, 8192}, none{0, 4, 0}, too_little{0, 4, 256};
  CHECK_THROWS_AS(tlab::gpu::transpose_square_in_waves(nullptr, 1000, 4, nullptr, &too_many), std::invalid_argument);
  CHECK_THROWS_AS(tlab::gpu::transpose_square_in_waves(nullptr, 1000, 4, nullptr, &none), std::invalid_argument);
  CHECK_THROWS_AS(tlab::gpu::transpose_square_in_waves(nullptr, 1000, 4, nullptr, &too_little), std::invalid_argument);
  CHECK_THROWS_AS(tlab::gpu::transpose_square_in_waves(nullptr, 1000, 3, nullptr), std::invalid_argument);
  CHECK(tlab::registry().get("gpu/word-inplace/waves").refuses(tlab::DType::f32, {100, 200}) != "");
}
