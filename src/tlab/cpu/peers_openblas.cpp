// OpenBLAS's matrix copy with transposition as a peer: cblas_somatcopy / cblas_domatcopy
// out of place and cblas_simatcopy / cblas_dimatcopy in place, alpha = 1 (exact: x * 1 == x).
// Built only where meson found OpenBLAS. Its own threads are set to the variant's count
// before each call, so "@1t" and "@all" mean for it what they mean for ours (whether it uses
// them is its business: the measurement says).
#include <cblas.h>

#include <climits>
#include <stdexcept>
#include <string>

#include "tlab/cpu/cpu_families.hpp"
#include "tlab/cpu/threads.hpp"

namespace tlab {

namespace {
blasint checked_dim(std::int64_t n) {
  if (n > INT_MAX) throw std::invalid_argument("OpenBLAS takes dimensions below 2^31");
  return static_cast<blasint>(n);
}

void out_of_place(float, const Operands& op) {
  const blasint r = checked_dim(op.shape.rows), c = checked_dim(op.shape.cols);
  cblas_somatcopy(CblasRowMajor, CblasTrans, r, c, 1.0f, static_cast<const float*>(op.in), c,
                  static_cast<float*>(op.out), r);
}
void out_of_place(double, const Operands& op) {
  const blasint r = checked_dim(op.shape.rows), c = checked_dim(op.shape.cols);
  cblas_domatcopy(CblasRowMajor, CblasTrans, r, c, 1.0, static_cast<const double*>(op.in), c,
                  static_cast<double*>(op.out), r);
}
void in_place(float, const Operands& op) {
  const blasint n = checked_dim(op.shape.rows);
  cblas_simatcopy(CblasRowMajor, CblasTrans, n, n, 1.0f, static_cast<float*>(op.out), n, n);
}
void in_place(double, const Operands& op) {
  const blasint n = checked_dim(op.shape.rows);
  cblas_dimatcopy(CblasRowMajor, CblasTrans, n, n, 1.0, static_cast<double*>(op.out), n, n);
}

void add(Registry& r, Placement where, cpu::Threads t) {
  const int threads = cpu::thread_count(t);
  const bool in = where == Placement::in_place;
  Variant v = peer_variant("openblas", in ? "openblas-imatcopy" : "openblas-omatcopy", where, t,
                           in ? "OpenBLAS cblas_?imatcopy, transposed, alpha 1" : "OpenBLAS cblas_?omatcopy, transposed, alpha 1");
  v.kernels = instantiate<float, double>([threads, in](auto tag, const Operands& op) {
    openblas_set_num_threads(threads);
    if (in) in_place(tag, op);
    else out_of_place(tag, op);
  });
  r.add(std::move(v));
}
}  // namespace

std::string openblas_description() {
  // Debian's default libopenblas0 is the pthreads build: its own pool of threads beside
  // libgomp's, which experiment 14's @all rows share the cores with (the OpenMP build,
  // libopenblas0-openmp, would use libgomp's pool instead).
  const int parallel = openblas_get_parallel();
  return std::string(openblas_get_config()) + "; threads: " +
         (parallel == 2 ? "OpenMP" : parallel == 1 ? "its own pthreads pool" : "none (sequential build)");
}

void register_cpu_openblas_variants(Registry& r) {
  for (Placement where : {Placement::out_of_place, Placement::in_place})
    for (cpu::Threads t : cpu::thread_policies()) add(r, where, t);
}

}  // namespace tlab
