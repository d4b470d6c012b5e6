// Compiled four times by meson, with -O0..-O3 and TLAB_OPT_LEVEL=0..3: each copy registers
// the in-place algorithms under the suffix "@O<level>".
#ifndef TLAB_OPT_LEVEL
#error "build this file with -DTLAB_OPT_LEVEL=<0..3>"
#endif
#define TLAB_CAT2(a, b) a##b
#define TLAB_CAT(a, b) TLAB_CAT2(a, b)
#define TLAB_STR2(a) #a
#define TLAB_STR(a) TLAB_STR2(a)
#define TLAB_CPU_NS TLAB_CAT(opt_O, TLAB_OPT_LEVEL)

#include "tlab/cpu/register_inplace.inl"

namespace tlab {
void TLAB_CAT(register_cpu_inplace_O, TLAB_OPT_LEVEL)(Registry& r) {
  cpu::TLAB_CPU_NS::register_inplace(r, "@O" TLAB_STR(TLAB_OPT_LEVEL), "O" TLAB_STR(TLAB_OPT_LEVEL));
}
}  // namespace tlab
