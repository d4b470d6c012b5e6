#include "tlab/cpu/cpu_dispatch.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace tlab::cpu {

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::scalar: return "scalar";
    case Isa::avx2: return "avx2";
    case Isa::avx512: return "avx512";
    case Isa::neon: return "neon";
  }
  return "?";
}

namespace {
bool cpu_has(Isa isa) {
  switch (isa) {
    case Isa::scalar: return true;
#if TLAB_HAVE_X86_SIMD
    // libgcc's answers include the operating system's side (XSAVE enabled for the wider
    // registers); the AVX-512 table also uses the AVX2 kernels for one- and two-byte elements.
    case Isa::avx2: return __builtin_cpu_supports("avx2");
    case Isa::avx512: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx512f");
#endif
#if TLAB_HAVE_NEON
    case Isa::neon: return true;  // Advanced SIMD is part of every AArch64 CPU
#endif
    default: return false;
  }
  return false;
}
}  // namespace

const std::vector<Isa>& available_isas() {
  static const std::vector<Isa> have = [] {
    std::vector<Isa> v;
    for (Isa isa : kIsas)
      if (cpu_has(isa)) v.push_back(isa);
    return v;
  }();
  return have;
}

Isa best_isa() { return available_isas().back(); }

Isa resolve_isa(const std::string& request, const std::vector<Isa>& available) {
  if (request.empty()) return available.back();
  std::string choices;
  for (Isa isa : available) choices += std::string(choices.empty() ? "" : ", ") + isa_name(isa);
  for (Isa isa : kIsas) {
    if (request != isa_name(isa)) continue;
    if (std::find(available.begin(), available.end(), isa) == available.end())
      throw std::invalid_argument("TLAB_CPU_ISA=" + request + ": this CPU (or this build) has no " + request +
                                  " path; available here: " + choices);
    return isa;
  }
  throw std::invalid_argument("TLAB_CPU_ISA=" + request + " is not an instruction set: use scalar, avx2, avx512 or neon (" +
                              "available here: " + choices + ")");
}

Isa isa_from_environment() {
  const char* v = std::getenv("TLAB_CPU_ISA");
  return resolve_isa(v ? v : "", available_isas());
}

const simd::Kernels& kernels_for(Isa isa) {
  resolve_isa(isa_name(isa), available_isas());  // refuses what this CPU cannot run
  switch (isa) {
#if TLAB_HAVE_X86_SIMD
    case Isa::avx2: return simd::avx2_kernels();
    case Isa::avx512: return simd::avx512_kernels();
#endif
#if TLAB_HAVE_NEON
    case Isa::neon: return simd::neon_kernels();
#endif
    default: return simd::scalar_kernels();
  }
}

}  // namespace tlab::cpu
