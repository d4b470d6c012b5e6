// The SIMD transposes as registry variants: out of place (cpu/simd/...) and in place on a
// square (cpu/simd-inplace/...), each at one thread and at all threads. "auto" takes the
// path TLAB_CPU_ISA asks for, else the best this CPU has, at every call; "avx2", "avx512"
// and "neon" force a path and are registered only where the CPU can run it.
#include "tlab/cpu/cpu_dispatch.hpp"
#include "tlab/cpu/cpu_families.hpp"
#include "tlab/cpu/simd_transpose.hpp"
#include "tlab/cpu/threads.hpp"

namespace tlab {

namespace {
using cpu::Isa;

const cpu::simd::Kernels& kernels_of(bool automatic, Isa isa) {
  return cpu::kernels_for(automatic ? cpu::isa_from_environment() : isa);
}

void add_simd(Registry& r, Placement where, const std::string& isa_label, bool automatic, Isa isa, cpu::Threads t) {
  const int threads = cpu::thread_count(t);
  const bool in_place = where == Placement::in_place;
  Variant v = threaded_variant(std::string(in_place ? "cpu/simd-inplace/" : "cpu/simd/") + isa_label,
                               in_place ? "cpu-simd-inplace" : "cpu-simd", where, t,
                               {{"isa", isa_label}, {"block", "default"}, {"stream", "auto"}},
                               in_place ? "tile pairs transposed in registers and swapped, blocks of tile pairs per thread"
                                        : "micro-kernels in line squares in blocks; non-temporal stores for large outputs");
  // A bad TLAB_CPU_ISA is bad input: refused before a run starts, not halfway through it.
  if (automatic) v.check_environment = [] { cpu::isa_from_environment(); };
  for (DType d : all_dtypes()) {
    const std::size_t elem = dtype_size(d);
    v.kernels[d] = [=](const Operands& op) {
      cpu::SimdPlan plan;
      plan.kernels = &kernels_of(automatic, isa);
      plan.threads = threads;
      if (in_place) cpu::simd_transpose_in_place(plan, op.out, op.shape.rows, elem);
      else cpu::simd_transpose(plan, op.in, op.out, op.shape, elem);
    };
  }
  r.add(std::move(v));
}
}  // namespace

void register_cpu_simd_variants(Registry& r) {
  for (Placement where : {Placement::out_of_place, Placement::in_place})
    for (cpu::Threads t : cpu::thread_policies()) {
      add_simd(r, where, "auto", true, Isa::scalar, t);
      for (Isa isa : cpu::available_isas())
        if (isa != Isa::scalar) add_simd(r, where, cpu::isa_name(isa), false, isa, t);
    }
}

}  // namespace tlab
