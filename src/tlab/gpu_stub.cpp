// Linked instead of the GPU part when the build has no CUDA.
#include "tlab/executor.hpp"

namespace tlab {
Executor* gpu_executor(std::string* why) {
  if (why) *why = "this build has no CUDA (nvcc was not found or gpu=disabled)";
  return nullptr;
}
void register_gpu_variants(Registry&) {}
}  // namespace tlab
