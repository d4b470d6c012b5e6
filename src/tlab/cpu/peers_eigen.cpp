// Eigen's transposes as a peer: B = A.transpose() into a second matrix, and
// A.transposeInPlace() on a square, over the harness's buffers (Eigen::Map, row-major).
// Built only where meson found Eigen, with the project's flags: no -march, so Eigen
// vectorises with what every x86-64 has (SSE2), as a program built for distribution would.
// Eigen threads only its products, not these; "@all" sets its thread count all the same, so
// that the row says what a user who asked for threads gets.
#include <Eigen/Core>

#include <string>

#include "tlab/cpu/cpu_families.hpp"
#include "tlab/cpu/threads.hpp"

namespace tlab {

namespace {
template <typename T> using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

void add(Registry& r, Placement where, cpu::Threads t) {
  const int threads = cpu::thread_count(t);
  const bool in = where == Placement::in_place;
  Variant v = peer_variant("eigen", in ? "eigen-transpose-in-place" : "eigen-transpose", where, t,
                           in ? "Eigen A.transposeInPlace()" : "Eigen B = A.transpose()");
  v.kernels = instantiate<float, double>([threads, in](auto tag, const Operands& op) {
    using T = decltype(tag);
    Eigen::setNbThreads(threads);
    const Eigen::Index rows = op.shape.rows, cols = op.shape.cols;
    if (in) {
      Eigen::Map<RowMajor<T>> a(static_cast<T*>(op.out), rows, cols);
      a.transposeInPlace();
    } else {
      Eigen::Map<const RowMajor<T>> a(static_cast<const T*>(op.in), rows, cols);
      Eigen::Map<RowMajor<T>> b(static_cast<T*>(op.out), cols, rows);
      b.noalias() = a.transpose();
    }
  });
  r.add(std::move(v));
}
}  // namespace

std::string eigen_description() {
  return "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
         std::to_string(EIGEN_MINOR_VERSION) + ", vectorised with " + Eigen::SimdInstructionSetsInUse();
}

void register_cpu_eigen_variants(Registry& r) {
  for (Placement where : {Placement::out_of_place, Placement::in_place})
    for (cpu::Threads t : cpu::thread_policies()) add(r, where, t);
}

}  // namespace tlab
