// One place that turns a failed CUDA call into an exception naming the call, file and line.
#pragma once
#include <cuda_runtime.h>

#include <string>

#include "tlab/executor.hpp"

namespace tlab::gpu {

[[noreturn]] inline void fail(cudaError_t e, const char* call, const char* file, int line) {
  // A failed call also leaves its error in the runtime's last-error slot; a caller that
  // catches this (a refused allocation, say) must not see it again at its next launch check.
  cudaGetLastError();
  const std::string msg = std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                          cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
  if (e == cudaErrorMemoryAllocation) throw ResourceError("device memory: " + msg);
  throw std::runtime_error(msg);
}

inline void check(cudaError_t e, const char* call, const char* file, int line) {
  if (e != cudaSuccess) fail(e, call, file, line);
}

}  // namespace tlab::gpu

#define TLAB_CUDA(call) ::tlab::gpu::check((call), #call, __FILE__, __LINE__)
// After every kernel launch: a bad configuration is reported here, not at the next sync.
#define TLAB_CUDA_LAUNCHED() ::tlab::gpu::check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
