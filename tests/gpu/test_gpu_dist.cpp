// The distributed transpose on the GPUs this machine has: one rank on any GPU, and every rank
// count from two up to the GPUs present (a message says they were left out where there is one),
// exact against the host reference for every element type on shapes no rank count divides; the
// hash check catches a wrong B; and the refusals come before any allocation.
#include <doctest/doctest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "tlab/dist/distributed.hpp"
#include "tlab/reference.hpp"

using namespace tlab;

namespace {

// A CUDA build without NCCL has the stub, which refuses everything: nothing to test here.
bool without_nccl() {
  const std::string why = dist::unavailable();
  if (!why.empty()) MESSAGE("left out: " << why);
  return !why.empty();
}

// A transposed by Transposer over `ranks` GPUs in 1, 3 and 64 chunks (one team for all three),
// gathered from every rank's B block, against reference_transpose of the same A.
void check_against_reference(int ranks, DType t, Shape s) {
  CAPTURE(ranks);
  CAPTURE(dtype_name(t));
  CAPTURE(to_string(s));
  const std::size_t e = dtype_size(t);
  std::vector<unsigned char> a(s.elements() * e), want(a.size()), got(a.size());
  fill_random(a.data(), s.elements(), t);
  reference_transpose(a.data(), want.data(), s, e);
  dist::Transposer x(dist::one_process(ranks), t, s);
  const dist::Exchange& layout = x.layout();
  for (int chunks : {1, 3, 64}) {
    CAPTURE(chunks);
    for (int r = 0; r < ranks; ++r) x.upload_a(r, a.data() + layout.a_rows().begin(r) * s.cols * e);  // B poisoned
    x.transpose(chunks);
    std::fill(got.begin(), got.end(), 0);
    for (int r = 0; r < ranks; ++r) x.download_b(r, got.data() + layout.b_rows().begin(r) * s.rows * e);
    CHECK(std::memcmp(got.data(), want.data(), got.size()) == 0);
  }
}

const std::vector<Shape>& shapes() {
  static const std::vector<Shape> s{{1, 1}, {1, 9}, {9, 1}, {3, 5}, {257, 1000}, {1000, 257}, {999, 1001}};
  return s;
}

}  // namespace

TEST_CASE("distributed transpose over one GPU: exact for every type, shape and chunk count") {
  if (without_nccl()) return;
  for (DType t : all_dtypes())
    for (Shape s : shapes())
      check_against_reference(1, t, s);
}

TEST_CASE("distributed transpose over two GPUs and more: exact for every rank count, type, shape and chunk count") {
  if (without_nccl()) return;
  if (dist::visible_gpus() < 2) {
    MESSAGE("left out: " << dist::visible_gpus() << " GPU(s) here, two needed");
    return;
  }
  // Three ranks where the machine has them: a count that divides none of the power-of-two sides.
  for (int ranks = 2; ranks <= dist::visible_gpus(); ++ranks)
    for (DType t : all_dtypes())
      for (Shape s : shapes())
        check_against_reference(ranks, t, s);
}

TEST_CASE("the hash check counts every element of a B that was never written") {
  if (without_nccl()) return;
  const Shape s{300, 517};
  for (int ranks = 1; ranks <= dist::visible_gpus(); ++ranks)
    for (DType t : {DType::u8, DType::f32, DType::c128}) {
      CAPTURE(ranks);
      CAPTURE(dtype_name(t));
      dist::Transposer x(dist::one_process(ranks), t, s);
      const std::uint64_t seed = x.fill(12345);
      CHECK(seed == 12345);
      // B poisoned, nothing transposed: every element wrong, but for the one- and two-byte
      // hashes that happen to equal the poison (about 1 in 256 and 1 in 65536).
      const auto n = static_cast<std::uint64_t>(s.elements());
      if (dtype_size(t) >= 4) CHECK(x.count_wrong(seed) == n);
      else CHECK(x.count_wrong(seed) > n - n / 64);
      x.transpose(4);
      CHECK(x.count_wrong(seed) == 0);
      CHECK(x.count_wrong(seed + 1) > static_cast<std::uint64_t>(s.elements()) / 2);  // another A entirely
    }
}

TEST_CASE("refusals: more ranks than GPUs, sizes beyond the GPUs' memory, before any allocation") {
  if (without_nccl()) return;
  std::size_t free_before = 0, total = 0, free_after = 0;
  REQUIRE(cudaSetDevice(0) == cudaSuccess);
  REQUIRE(cudaMemGetInfo(&free_before, &total) == cudaSuccess);
  CHECK_THROWS_AS(dist::Transposer(dist::one_process(dist::visible_gpus() + 1), DType::f32, {64, 64}), std::invalid_argument);
  CHECK_THROWS_AS(dist::Transposer(dist::one_process(1), DType::c128, {1 << 20, 1 << 20}), std::invalid_argument);
  REQUIRE(cudaSetDevice(0) == cudaSuccess);
  REQUIRE(cudaMemGetInfo(&free_after, &total) == cudaSuccess);
  CHECK(free_after == free_before);
  CHECK_THROWS_AS(dist::Transposer(dist::one_process(1), DType::f32, {64, 64}).transpose(0), std::invalid_argument);
}
