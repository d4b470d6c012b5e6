// An in-place transpose checked with guard bytes around the matrix: kernels that load and
// store whole words reach bytes next to a matrix that does not start or end on a word, and
// none of those may change.
#pragma once
#include <doctest/doctest.h>

#include <cuda_runtime.h>

#include <cstddef>
#include <cstring>
#include <memory>
#include <vector>

#include "tlab/reference.hpp"

namespace tlab_test {

// Puts a fresh random `t` matrix of shape `s` into device memory `off` elements past `guard`
// bytes of `fill` (as many after it), calls run(pointer to the matrix), and says whether the
// whole buffer came back as the reference transpose inside the same unchanged guard bytes.
template <class Run>
bool transposed_within_guards(tlab::DType t, tlab::Shape s, int off, std::size_t guard, unsigned char fill, Run run) {
  const std::size_t e = tlab::dtype_size(t), bytes = static_cast<std::size_t>(s.elements()) * e, at = guard + off * e;
  std::vector<unsigned char> in(bytes), want(bytes + 2 * guard, fill), got(bytes + 2 * guard);
  tlab::fill_random(in.data(), s.elements(), t);
  tlab::reference_transpose(in.data(), want.data() + at, s, e);
  std::vector<unsigned char> start(bytes + 2 * guard, fill);
  std::memcpy(start.data() + at, in.data(), bytes);
  unsigned char* raw = nullptr;
  REQUIRE(cudaMalloc(&raw, start.size()) == cudaSuccess);
  const std::unique_ptr<unsigned char, cudaError_t (*)(void*)> a(raw, cudaFree);
  REQUIRE(cudaMemcpy(a.get(), start.data(), start.size(), cudaMemcpyHostToDevice) == cudaSuccess);
  run(a.get() + at);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  REQUIRE(cudaMemcpy(got.data(), a.get(), got.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
  return got == want;
}

}  // namespace tlab_test
