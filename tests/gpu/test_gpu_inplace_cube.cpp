// The in-place transpose of M x M² and M² x M matrices by cycles of three tiles
// (gpu/inplace-rect/cube): exact for every type it takes, both orientations, sides that are and
// are not multiples of its tile (edge tiles, the fixed tiles on the diagonal, one tile alone),
// nothing written outside the matrix; every other shape refused before anything runs.
#include <doctest/doctest.h>

#include <cuda_runtime.h>

#include <cstdlib>
#include <vector>

#include "tlab/gpu/inplace_cube.cuh"
#include "tlab/registry.hpp"
#include "tlab/transpose.hpp"
#include "guarded_in_place.hpp"

TEST_CASE("in place by three digits: exact, both orientations, any side") {
  const bool small = std::getenv("TLAB_GPU_TEST_SMALL") != nullptr;
  const tlab::Variant& v = tlab::registry().get("gpu/inplace-rect/cube");
  // Through the registered variant, as experiment 13 runs it.
  const auto through_variant = [&](tlab::DType t, tlab::Shape s) {
    return [&v, t, s](unsigned char* m) {
      tlab::Operands op;
      op.in = op.out = m;
      op.shape = s;
      v.kernels.at(t)(op);
    };
  };
  std::vector<std::int64_t> sides{2, 3, 7, 8, 16, 17, 40, 50};
  if (!small)
    for (std::int64_t M : {32, 100, 256, 300}) sides.push_back(M);
  // Both ways a cycle runs: in a cluster of blocks (tiles of 32 digits for 4 and 8 bytes, 16
  // for 16; the registered variant's way on a device that launches clusters) and in one block
  // (16 digits, 8 for 16 bytes). Sides under one tile, of one (16, 32), 40, 50 and 100 with
  // edge tiles (50: an edge of 18 digits, past the first part of a 32-digit tile's split
  // digit), 256, 300; 512 for float in clusters (16 tiles a digit).
  int dev = 0, major = 0;
  REQUIRE(cudaGetDevice(&dev) == cudaSuccess);
  REQUIRE(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess);
  for (int elem : {4, 8, 16}) CHECK(tlab::gpu::cube_in_clusters(elem) == (major >= 9));
  for (bool clusters : {true, false})
    for (tlab::DType t : {tlab::DType::f32, tlab::DType::f64, tlab::DType::c128})
      for (std::int64_t M : sides)
        for (tlab::Shape s : {tlab::Shape{M, M * M}, tlab::Shape{M * M, M}}) {
          CAPTURE(clusters);
          CAPTURE(tlab::dtype_name(t));
          CAPTURE(tlab::to_string(s));
          CHECK(tlab_test::transposed_within_guards(t, s, 1, 64, 0x5A, [&](unsigned char* m) {
            tlab::gpu::transpose_cube_in_place(m, s, static_cast<int>(tlab::dtype_size(t)), nullptr, clusters);
          }));
        }
  for (tlab::DType t : v.dtypes())
    for (tlab::Shape s : {tlab::Shape{17, 17 * 17}, tlab::Shape{40 * 40, 40}}) {
      CAPTURE(tlab::dtype_name(t));
      CAPTURE(tlab::to_string(s));
      REQUIRE(v.refuses(t, s).empty());
      CHECK(tlab_test::transposed_within_guards(t, s, 1, 64, 0x5A, through_variant(t, s)));
    }
  if (!small)
    for (tlab::Shape s : {tlab::Shape{512, 512 * 512}, tlab::Shape{512 * 512, 512}}) {
      CAPTURE(tlab::to_string(s));
      CHECK(tlab_test::transposed_within_guards(tlab::DType::f32, s, 0, 64, 0x5A, through_variant(tlab::DType::f32, s)));
    }
  CHECK(v.dtypes().size() == 4);  // 4-, 8- and 16-byte elements: int32, float, double, complex128
  CHECK_FALSE(v.supports(tlab::DType::u8));
  // Through the library's plan, as a user calls it, where the shape class is "rect-cube"
  // (above 32 MiB): the kernel comes from the tuning table or the built-in default.
  if (!small)
    for (tlab::Shape s : {tlab::Shape{256, 65536}, tlab::Shape{65536, 256}}) {
      const tlab::Plan plan(tlab::DType::f64, s.rows, s.cols, tlab::Placement::in_place);
      CHECK(plan.kernel() == "gpu/inplace-rect/cube");  // the tables' "rect-cube" rows, or the default
      CHECK(tlab_test::transposed_within_guards(tlab::DType::f64, s, 0, 64, 0x3C,
                                                [&](unsigned char* m) { plan.execute_in_place(m); }));
    }
}

TEST_CASE("in place by three digits refuses every other shape") {
  const tlab::Variant& v = tlab::registry().get("gpu/inplace-rect/cube");
  for (tlab::Shape s : {tlab::Shape{256, 65535}, tlab::Shape{16384, 1024}, tlab::Shape{1, 1}, tlab::Shape{4, 4},
                        tlab::Shape{65537, 256}}) {
    CAPTURE(tlab::to_string(s));
    CHECK(v.refuses(tlab::DType::f32, s).find("not M x M^2") != std::string::npos);
    tlab::Operands op;
    op.shape = s;
    CHECK_THROWS_AS(v.kernels.at(tlab::DType::f32)(op), std::invalid_argument);
  }
}
