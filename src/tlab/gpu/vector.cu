// A vector's transpose (1 x n or n x 1) is its bytes as they are. Out of place that is a copy,
// and cudaMemcpyAsync hands a copy to the copy engines, which move device memory faster than
// any kernel of ours (performance notes, section 9, "The copy engines' rate, and bulk
// copies"); in place there is nothing to do. The plan takes these for every vector in device
// memory (tuning.cpp).
#include "tlab/gpu/launch.cuh"

namespace tlab::gpu {
namespace {

std::string refuses_all_but_vectors(DType, Shape s) {
  return s.rows == 1 || s.cols == 1 ? std::string() : std::string("only a vector (1 x n or n x 1) is transposed by copying its bytes");
}

}  // namespace

void register_gpu_vector(Registry& r) {
  Variant copy = gpu_variant("gpu/vector/copy", "gpu-vector", Placement::out_of_place, {},
                             "a vector's bytes copied as they are by cudaMemcpyAsync (the copy engines)");
  copy.kernels = r.get("gpu/memcpy").kernels;  // the roofline's own call (peers.cu), registered before
  copy.refuses_shape = refuses_all_but_vectors;
  r.add(std::move(copy));

  Variant none = gpu_variant("gpu/vector/in-place", "gpu-vector", Placement::in_place, {},
                             "a vector in place: its bytes are already its transpose, nothing runs");
  none.kernels = instantiate_all([](auto, const Operands&) {});
  none.any_shape = true;  // any m x n in place, as far as the registry asks; refuses_shape keeps it to vectors
  none.refuses_shape = refuses_all_but_vectors;
  r.add(std::move(none));
}

}  // namespace tlab::gpu
