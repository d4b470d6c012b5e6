// The CPU variants of the main library, built at the project's optimisation level: the
// scalar transposes here, then each other family from its own file.
#include "tlab/cpu/cpu_families.hpp"
#include "tlab/cpu/outofplace.hpp"
#include "tlab/cpu/register_inplace.inl"

namespace tlab {

void register_cpu_variants(Registry& r) {
  cpu::opt_default::register_inplace(r, "", "build");
  register_cpu_inplace_rect(r);

  auto add_outofplace = [&](std::string name, std::vector<Param> params, std::string note, auto body) {
    Variant v;
    v.name = std::move(name);
    v.family = "cpu-outofplace";
    v.backend = Backend::cpu;
    v.placement = Placement::out_of_place;
    v.params = std::move(params);
    v.params.push_back({"opt", "build"});
    v.note = std::move(note);
    v.kernels = instantiate_all(body);
    r.add(std::move(v));
  };
  auto in_view = [](auto tag, const Operands& op) {
    using T = decltype(tag);
    return MatrixView<const T>(static_cast<const T*>(op.in), op.shape.rows, op.shape.cols);
  };
  auto out_view = [](auto tag, const Operands& op) {
    using T = decltype(tag);
    return MatrixView<T>(static_cast<T*>(op.out), op.shape.cols, op.shape.rows);
  };
  add_outofplace("cpu/naive", {}, "row-wise read, column-wise write (seed 004's CPU version)",
                 [=](auto tag, const Operands& op) { cpu::outofplace_naive(in_view(tag, op), out_view(tag, op)); });
  for (std::int64_t tile : {16, 32, 64}) {
    add_outofplace("cpu/blocked/" + std::to_string(tile), {{"tile", std::to_string(tile)}},
                   "square tiles so both sides of a tile stay in L1",
                   [=](auto tag, const Operands& op) {
                     cpu::outofplace_blocked(in_view(tag, op), out_view(tag, op), tile);
                   });
  }
  register_cpu_copy_variants(r);
  register_cpu_simd_variants(r);
#if TLAB_HAVE_OPENBLAS
  register_cpu_openblas_variants(r);
#endif
#if TLAB_HAVE_EIGEN
  register_cpu_eigen_variants(r);
#endif
}

std::vector<std::pair<std::string, std::string>> describe_cpu_peers() {
  // Both are optional in meson: a build without them runs everything else, and the record
  // says why experiment 14 has no peer rows.
  const std::string absent = "not in this build (meson did not find ";
  return {{"cpu_peer_openblas",
#if TLAB_HAVE_OPENBLAS
           openblas_description()
#else
           absent + "OpenBLAS with cblas.h: Debian's libopenblas-dev)"
#endif
          },
          {"cpu_peer_eigen",
#if TLAB_HAVE_EIGEN
           eigen_description()
#else
           absent + "eigen3: Debian's libeigen3-dev)"
#endif
          }};
}

}  // namespace tlab
