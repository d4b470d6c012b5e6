// The in-place transpose through the grid's shared memory (gpu/inplace-rect/on-grid) reads
// rows as the aligned 16-byte words under them and writes the aligned 16-byte words inside each
// output piece, so a matrix off a word must come out exact with no byte outside it changed;
// and it takes a matrix only where its shared memory holds it.
#include <doctest/doctest.h>

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "tlab/gpu/inplace_on_grid.cuh"
#include "tlab/registry.hpp"
#include "tlab/transpose.hpp"
#include "guarded_in_place.hpp"

TEST_CASE("in place on the grid: a matrix at any offset in a word, every type, nothing written outside it") {
  const bool small = std::getenv("TLAB_GPU_TEST_SMALL") != nullptr;
  const tlab::Variant& v = tlab::registry().get("gpu/inplace-rect/on-grid");
  // Tall, wide, square, vectors, a tile of one row or column, many tiles, and rows of tiles
  // longer than the 31 words a warp reads at once (2 x 100000, 8 x 200000: the read loop's
  // later rounds, with the register transposes of 1- and 2-byte elements); unless small, the
  // two primes of experiment 13 and their mirror image (one block per SM, full tiles).
  std::vector<tlab::Shape> shapes{{2, 3}, {7, 129}, {129, 7}, {1, 1000}, {1000, 1}, {300, 1001}, {1001, 300}, {333, 333}, {70001, 3}, {2, 100000}};
  if (!small)
    for (tlab::Shape x : {tlab::Shape{16381, 1021}, {1021, 16381}, {4096, 4093}, {8, 200000}}) shapes.push_back(x);
  int checked = 0, declined = 0;
  for (tlab::DType t : v.dtypes())
    for (tlab::Shape s : shapes)
      for (int off : {0, 1, 3}) {
        const int e = static_cast<int>(tlab::dtype_size(t));
        CAPTURE(tlab::dtype_name(t));
        CAPTURE(tlab::to_string(s));
        CAPTURE(off);
        const bool fits = tlab::gpu::in_place_on_grid_fits(s, e);
        CHECK(fits == v.refuses(t, s).empty());
        if (!fits) {
          ++declined;
          continue;
        }
        CHECK(tlab_test::transposed_within_guards(t, s, off, 64, 0xA5, [&](unsigned char* m) {
          tlab::gpu::transpose_in_place_on_grid(m, s, e, nullptr);
        }));
        ++checked;
      }
  // On a GPU with at least an H100's shared memory (132 SMs of 227 KiB), every small shape of
  // every type fits (the largest, 300 x 1001 and 2 x 100000 complex128, are 4.8 and 3.2 MB), and
  // of the large ones only the 4- to 16-byte elements of the three shapes of 16-17 million
  // elements and 2-byte 4096 x 4093 are declined (2-byte 16381 x 1021 and 1021 x 16381 take
  // two tiles a block): a kernel that declined more fails. Smaller GPUs decline more, and only
  // the count checked is bounded there.
  const int types = static_cast<int>(v.dtypes().size());
  int dev = 0, sms = 0, smem = 0;
  REQUIRE(cudaGetDevice(&dev) == cudaSuccess);
  REQUIRE(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess);
  REQUIRE(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) == cudaSuccess);
  CHECK(types >= 5);
  CHECK(checked >= types * 3 * 3);  // 2 x 3 and the two vectors fit any GPU
  if (static_cast<std::int64_t>(sms) * smem >= std::int64_t{132} * 227 * 1024) {
    CHECK(checked >= types * 10 * 3);
    CHECK(declined <= (small ? 0 : (types - 2) * 3 * 3 + 3));
  }
}

TEST_CASE("in place on the grid: two tiles a block where the shared memory is short, the overlap kept aside") {
  const bool small = std::getenv("TLAB_GPU_TEST_SMALL") != nullptr;
  int dev = 0, sms = 0, smem = 0;
  REQUIRE(cudaGetDevice(&dev) == cudaSuccess);
  REQUIRE(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess);
  REQUIRE(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) == cudaSuccess);
  // 31.5-33.7 MB: more than an H100's or an H200's grid holds (132 x 226 KiB, 30.5 MB), within
  // 256 rows of the longer side more. Sized for those GPUs; elsewhere only what fits is run.
  // The plan's count of tiles is two a block at all of them (264).
  struct Case {
    tlab::DType t;
    tlab::Shape s;
  };
  std::vector<Case> cases{{tlab::DType::u8, {31000, 1017}}, {tlab::DType::u16, {16381, 1021}},
                          {tlab::DType::f32, {1000, 8192}}, {tlab::DType::f64, {4099, 1023}},
                          {tlab::DType::c128, {257, 8191}},
                          // its tiling of the fewest warp rounds would keep more aside than the cap
                          {tlab::DType::u16, {8192, 2048}}};
  if (!small)
    for (Case c : std::vector<Case>(cases)) cases.push_back({c.t, c.s.transposed()});
  const bool hopper_sized = static_cast<std::int64_t>(sms) * (smem - 1024) == std::int64_t{132} * 231424;
  int two = 0;
  for (const Case& c : cases) {
    const int e = static_cast<int>(tlab::dtype_size(c.t));
    CAPTURE(tlab::dtype_name(c.t));
    CAPTURE(tlab::to_string(c.s));
    if (!tlab::gpu::in_place_on_grid_fits(c.s, e)) {
      CHECK_FALSE(hopper_sized);
      continue;
    }
    const tlab::on_grid::Tiles t = tlab::gpu::on_grid_tiles(c.s, e);
    const std::int64_t kept = tlab::gpu::in_place_on_grid_scratch_bytes(c.s, e);
    if (hopper_sized) {
      CHECK(t.count > sms);
      CHECK(t.count <= 2 * sms);
      CHECK(kept > c.s.elements() * e - std::int64_t{132} * 231424);  // at least the excess
    }
    if (t.count <= sms) continue;
    ++two;
    // The kept buffer (a registered variant's run) and a plan's own scratch.
    CHECK(tlab_test::transposed_within_guards(c.t, c.s, 0, 64, 0x5A, [&](unsigned char* m) {
      tlab::gpu::transpose_in_place_on_grid(m, c.s, e, nullptr);
    }));
    CHECK(tlab_test::transposed_within_guards(c.t, c.s, 3, 64, 0xC3, [&](unsigned char* m) {
      void* scratch = nullptr;
      REQUIRE(cudaMalloc(&scratch, static_cast<std::size_t>(kept)) == cudaSuccess);
      tlab::gpu::transpose_in_place_on_grid(m, c.s, e, nullptr, scratch);
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      cudaFree(scratch);
    }));
  }
  if (hopper_sized) CHECK(two == static_cast<int>(cases.size()));
  // Through the library's plan, which holds the scratch itself (shape class "rect-small").
  const tlab::Plan plan(tlab::DType::u16, 16381, 1021, tlab::Placement::in_place);
  if (hopper_sized) CHECK(plan.kernel() == "gpu/inplace-rect/on-grid");
  if (plan.kernel() == "gpu/inplace-rect/on-grid")
    CHECK(tlab_test::transposed_within_guards(tlab::DType::u16, {16381, 1021}, 1, 64, 0x3C,
                                              [&](unsigned char* m) { plan.execute_in_place(m); }));
  // Fewer tiles than two a block (forced, as tlab-on-grid-probe may): blocks with two tiles
  // beside blocks with one. 200 tiles of 330 x 256 and 165 of 300 x 341 on 132 blocks.
  if (hopper_sized)
    for (auto [h, w] : {std::pair<int, int>{330, 256}, {300, 341}}) {
      CAPTURE(h);
      tlab::on_grid::Tiles forced;
      forced.h = h;
      forced.w = w;
      CHECK(tlab_test::transposed_within_guards(tlab::DType::u16, {16381, 1021}, 1, 64, 0x96, [&](unsigned char* m) {
        tlab::gpu::on_grid_phases(m, {16381, 1021}, 2, tlab::gpu::kOnGridAll, &forced, nullptr);
      }));
    }
  // 4-byte 16381 x 1021 would keep 36 MB aside, past 256 rows of 16381: declined.
  if (hopper_sized) CHECK_FALSE(tlab::gpu::in_place_on_grid_fits({16381, 1021}, 4));
  CHECK(tlab::gpu::in_place_on_grid_scratch_bytes({300, 1001}, 4) == 0);  // one tile a block
}

TEST_CASE("in place on the grid refuses what its shared memory cannot hold, before touching it") {
  const tlab::Variant& v = tlab::registry().get("gpu/inplace-rect/on-grid");
  int dev = 0, sms = 0, smem = 0;
  REQUIRE(cudaGetDevice(&dev) == cudaSuccess);
  REQUIRE(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess);
  REQUIRE(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev) == cudaSuccess);
  // Twice what all the SMs' shared memory holds, as a square and as a coprime rectangle.
  const std::int64_t side = 2 * static_cast<std::int64_t>(std::sqrt(static_cast<double>(sms) * smem)) + 1;
  for (tlab::Shape s : {tlab::Shape{side, side}, {side + 2, side - 1}}) {
    CAPTURE(tlab::to_string(s));
    CHECK_FALSE(tlab::gpu::in_place_on_grid_fits(s, 1));
    CHECK(v.refuses(tlab::DType::u8, s).find("does not fit") != std::string::npos);
    CHECK_THROWS_AS(tlab::gpu::transpose_in_place_on_grid(nullptr, s, 1, nullptr), std::invalid_argument);
  }
  // Near the shared memory in bytes, but no tile of one or two rows fits a block even at two
  // tiles a block, and the tile's size overflows 32 bits.
  for (tlab::Shape s : {tlab::Shape{2, 16777216}, {2, 600000001}}) {
    CAPTURE(tlab::to_string(s));
    CHECK_FALSE(tlab::gpu::in_place_on_grid_fits(s, 1));
    CHECK_THROWS_AS(tlab::gpu::transpose_in_place_on_grid(nullptr, s, 1, nullptr), std::invalid_argument);
  }
  CHECK_THROWS_AS(tlab::gpu::transpose_in_place_on_grid(nullptr, {0, 5}, 1, nullptr), std::invalid_argument);
  CHECK_THROWS_AS(tlab::gpu::transpose_in_place_on_grid(nullptr, {5, 5}, 3, nullptr), std::invalid_argument);
}
