#include "tlab/registry.hpp"

namespace tlab {
void register_cpu_inplace_O0(Registry& r);
void register_cpu_inplace_O1(Registry& r);
void register_cpu_inplace_O2(Registry& r);
void register_cpu_inplace_O3(Registry& r);

void register_cpu_opt_level_variants(Registry& r) {
  register_cpu_inplace_O0(r);
  register_cpu_inplace_O1(r);
  register_cpu_inplace_O2(r);
  register_cpu_inplace_O3(r);
}
}  // namespace tlab
