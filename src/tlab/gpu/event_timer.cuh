// Seconds that a kernel variant takes on a stream, measured with a pair of CUDA events: the
// one timing primitive of every GPU measurement.
#pragma once
#include "tlab/gpu/check.cuh"
#include "tlab/registry.hpp"

namespace tlab::gpu {

class EventTimer {
 public:
  EventTimer() {
    TLAB_CUDA(cudaEventCreate(&start_));
    TLAB_CUDA(cudaEventCreate(&stop_));
  }
  ~EventTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  // Runs k(op) between two events on op's stream; checks the launch; returns seconds.
  double time(const KernelFn& k, const Operands& op) {
    const auto s = static_cast<cudaStream_t>(op.stream);
    TLAB_CUDA(cudaEventRecord(start_, s));
    k(op);
    TLAB_CUDA_LAUNCHED();
    TLAB_CUDA(cudaEventRecord(stop_, s));
    TLAB_CUDA(cudaEventSynchronize(stop_));
    float ms = 0;
    TLAB_CUDA(cudaEventElapsedTime(&ms, start_, stop_));
    return ms * 1e-3;
  }

 private:
  cudaEvent_t start_{}, stop_{};
};

}  // namespace tlab::gpu
