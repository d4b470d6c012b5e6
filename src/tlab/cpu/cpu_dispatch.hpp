// Which instruction set the SIMD transposes use, chosen at run time from what the CPU
// reports, never from how the program was compiled: the same binary runs the AVX-512 path on
// one machine and the scalar path on another. An AArch64 build has the Advanced SIMD path
// (neon), which every such CPU runs. TLAB_CPU_ISA=scalar|avx2|avx512|neon forces a path (a
// test takes the path this machine would not); asking for one the CPU lacks is refused.
#pragma once
#include <string>
#include <vector>

#include "tlab/cpu/simd_kernels.hpp"

namespace tlab::cpu {

enum class Isa { scalar, avx2, avx512, neon };
// Every instruction set by name, scalar first: an x86 build can have the next two, an
// AArch64 build the last.
constexpr Isa kIsas[] = {Isa::scalar, Isa::avx2, Isa::avx512, Isa::neon};

const char* isa_name(Isa isa);
// Every instruction set this build has kernels for and this CPU can run, scalar first.
const std::vector<Isa>& available_isas();
Isa best_isa();  // the last of available_isas()

// The path for a request: "" (no request: the best available), or an instruction set's name.
// Throws std::invalid_argument naming the choices when the name is unknown or not available.
Isa resolve_isa(const std::string& request, const std::vector<Isa>& available);
// resolve_isa of TLAB_CPU_ISA (read at every call, so a test can change it) and this CPU.
Isa isa_from_environment();

const simd::Kernels& kernels_for(Isa isa);  // throws std::invalid_argument when not available

}  // namespace tlab::cpu
