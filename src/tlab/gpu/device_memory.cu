#include "tlab/device_memory.hpp"
#include "tlab/gpu/check.cuh"

namespace tlab {

PointerInfo pointer_info(const void* p) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();  // older drivers report unregistered host memory as an error
    return {};
  }
  switch (a.type) {
    case cudaMemoryTypeDevice: return {PointerKind::device, a.device};
    case cudaMemoryTypeManaged: return {PointerKind::managed, a.device};
    case cudaMemoryTypeHost: return {PointerKind::pinned_host, a.device};
    default: return {};
  }
}

DeviceInfo current_device() {
  DeviceInfo d;
  int n = 0, dev = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0 || cudaGetDevice(&dev) != cudaSuccess) {
    cudaGetLastError();
    return d;
  }
  cudaDeviceProp prop{};
  TLAB_CUDA(cudaGetDeviceProperties(&prop, dev));
  d.index = dev;
  d.name = prop.name;
  d.arch = "sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
  return d;
}

int current_device_index() {
  int dev = -1;
  if (cudaGetDevice(&dev) != cudaSuccess) {
    cudaGetLastError();
    return -1;
  }
  return dev;
}

void* device_alloc(std::size_t bytes) {
  void* p = nullptr;
  if (bytes) TLAB_CUDA(cudaMalloc(&p, bytes));
  return p;
}

void device_free(void* p) {
  if (p) cudaFree(p);
}

}  // namespace tlab
