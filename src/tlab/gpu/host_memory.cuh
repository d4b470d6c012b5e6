// Host memory the GPU reaches directly: owning pinned and managed allocations (freed on
// scope exit, so an exception leaks nothing), and the prefetch of managed memory.
#pragma once
#include <cstddef>
#include <string>
#include <utility>

#include "tlab/executor.hpp"
#include "tlab/gpu/check.cuh"

namespace tlab::gpu {

// Page-locked host memory (cudaMallocHost). A refusal is a ResourceError naming the size.
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t bytes) {
    if (bytes && cudaMallocHost(&ptr_, bytes) != cudaSuccess) {
      ptr_ = nullptr;
      cudaGetLastError();  // as in fail(): the refusal must not resurface at the next launch check
      throw ResourceError("pinned host memory: cannot allocate " + std::to_string(bytes >> 20) + " MiB");
    }
  }
  ~PinnedBuffer() {
    if (ptr_) cudaFreeHost(ptr_);
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  PinnedBuffer(PinnedBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)) {}
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    return *this;
  }
  void* get() const { return ptr_; }

 private:
  void* ptr_ = nullptr;
};

// Managed memory (cudaMallocManaged).
class ManagedBuffer {
 public:
  ManagedBuffer() = default;
  explicit ManagedBuffer(std::size_t bytes) {
    if (bytes) TLAB_CUDA(cudaMallocManaged(&ptr_, bytes));
  }
  ~ManagedBuffer() {
    if (ptr_) cudaFree(ptr_);
  }
  ManagedBuffer(const ManagedBuffer&) = delete;
  ManagedBuffer& operator=(const ManagedBuffer&) = delete;
  ManagedBuffer(ManagedBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)) {}
  ManagedBuffer& operator=(ManagedBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    return *this;
  }
  void* get() const { return ptr_; }

 private:
  void* ptr_ = nullptr;
};

// Moves managed pages to the current device or to the host, on stream s.
inline void prefetch(const void* p, std::size_t n, bool to_device, cudaStream_t s) {
  int device = 0;
  TLAB_CUDA(cudaGetDevice(&device));
#if CUDART_VERSION >= 13000
  cudaMemLocation loc{};
  loc.type = to_device ? cudaMemLocationTypeDevice : cudaMemLocationTypeHost;
  loc.id = to_device ? device : 0;
  TLAB_CUDA(cudaMemPrefetchAsync(p, n, loc, 0, s));
#else
  TLAB_CUDA(cudaMemPrefetchAsync(p, n, to_device ? device : cudaCpuDeviceId, s));
#endif
}

}  // namespace tlab::gpu
