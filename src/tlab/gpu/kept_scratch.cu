#include "tlab/gpu/kept_scratch.cuh"

#include <map>

#include "tlab/gpu/device_buffer.cuh"

namespace tlab::gpu {

void* kept_scratch(std::int64_t bytes) {
  static std::map<int, DeviceBuffer> per_device;
  int dev = 0;
  TLAB_CUDA(cudaGetDevice(&dev));
  DeviceBuffer& b = per_device[dev];
  if (static_cast<std::int64_t>(b.bytes()) < bytes) b = DeviceBuffer(static_cast<std::size_t>(bytes));
  return b.get();
}

}  // namespace tlab::gpu
