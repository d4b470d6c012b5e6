// What the library needs to know about CUDA memory and devices, without CUDA headers: the
// GPU build implements it (gpu/device_memory.cu), a build without CUDA answers "host".
#pragma once
#include <cstddef>
#include <string>

namespace tlab {

enum class PointerKind { device, managed, pinned_host, host };

struct PointerInfo {
  PointerKind kind = PointerKind::host;
  int device = -1;  // the device that owns device or managed memory
};

PointerInfo pointer_info(const void* p);

struct DeviceInfo {
  int index = -1;  // -1: no usable CUDA device
  std::string name;  // "NVIDIA H100 80GB HBM3"
  std::string arch;  // "sm_90"
};
DeviceInfo current_device();  // queries the device's properties: not for every launch
int current_device_index();   // cudaGetDevice alone, for checks on every launch; -1 without one

void* device_alloc(std::size_t bytes);  // throws ResourceError when the device is full
void device_free(void* p);

}  // namespace tlab
