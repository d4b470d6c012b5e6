#include "tlab/gpu/launch.cuh"

namespace tlab {
void register_gpu_variants(Registry& r) {
  gpu::register_gpu_naive(r);
  gpu::register_gpu_tiled(r);
  gpu::register_gpu_inplace(r);
  gpu::register_gpu_word(r);
  gpu::register_gpu_sector(r);
  gpu::register_gpu_tma(r);
  gpu::register_gpu_word_in_place(r);
  gpu::register_gpu_word_in_place_ahead(r);  // after the plain pairs: w8-ahead-filled finds one by name
  gpu::register_gpu_word_in_place_bands(r);
  gpu::register_gpu_inplace_rect(r);
  gpu::register_gpu_inplace_on_grid(r);
  gpu::register_gpu_inplace_square_waves(r);
  gpu::register_gpu_inplace_blocks(r);
  gpu::register_gpu_inplace_cube(r);
  gpu::register_gpu_rect(r);
  gpu::register_gpu_peers(r);
  gpu::register_gpu_copy_bulk(r);
  gpu::register_gpu_vector(r);
  register_api_variants(r);
}
}  // namespace tlab
