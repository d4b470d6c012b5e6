#include "tlab/registry.hpp"

namespace tlab {
void register_gpu_variants(Registry&) {}
}  // namespace tlab
