#include "tlab/gpu/launch.cuh"

namespace tlab {
void register_gpu_variants(Registry& r) {
  gpu::register_gpu_naive(r);
  gpu::register_gpu_tiled(r);
  gpu::register_gpu_inplace(r);
  gpu::register_gpu_rect(r);
  gpu::register_gpu_peers(r);
}
}  // namespace tlab
