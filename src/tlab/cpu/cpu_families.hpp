// Registration entry points of the CPU families, one per file; register_cpu_variants
// (cpu_variants.cpp) calls each once. Optional families (the library peers) exist only in a
// build that found their library.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "tlab/cpu/threads.hpp"
#include "tlab/registry.hpp"

namespace tlab {

// A CPU variant under the thread policy: named base + "@1t" / "@all", its params ending in
// threads=<count at run time>; in place means square only. The caller adds the kernels.
inline Variant threaded_variant(const std::string& base, std::string family, Placement where, cpu::Threads t,
                                std::vector<Param> params, std::string note) {
  Variant v;
  v.name = base + cpu::threads_suffix(t);
  v.family = std::move(family);
  v.backend = Backend::cpu;
  v.placement = where;
  v.square_only = where == Placement::in_place;
  v.params = std::move(params);
  v.params.push_back({"threads", std::to_string(cpu::thread_count(t))});
  v.note = std::move(note);
  return v;
}

// A library's transpose as a peer: "cpu/peer/<name>" + thread suffix, family
// "cpu-peer-<library>" ("-inplace" added in place), params library=<library>.
inline Variant peer_variant(const std::string& library, const std::string& name, Placement where, cpu::Threads t,
                            std::string note) {
  const std::string family = "cpu-peer-" + library + (where == Placement::in_place ? "-inplace" : "");
  return threaded_variant("cpu/peer/" + name, family, where, t, {{"library", library}}, std::move(note));
}

void register_cpu_copy_variants(Registry& r);        // copy_roofline.cpp
void register_cpu_simd_variants(Registry& r);        // simd_variants.cpp
void register_cpu_openblas_variants(Registry& r);    // peers_openblas.cpp (TLAB_HAVE_OPENBLAS)
void register_cpu_eigen_variants(Registry& r);       // peers_eigen.cpp (TLAB_HAVE_EIGEN)

// What each peer library is in this build, for env.json: its version and configuration
// (OpenBLAS: its own thread pool or OpenMP; Eigen: the instruction sets it vectorises with).
std::string openblas_description();  // peers_openblas.cpp
std::string eigen_description();     // peers_eigen.cpp
// cpu_peer_openblas and cpu_peer_eigen: the descriptions above, or why the peer is absent
// (cpu_variants.cpp, which knows what this build registered).
std::vector<std::pair<std::string, std::string>> describe_cpu_peers();

}  // namespace tlab
