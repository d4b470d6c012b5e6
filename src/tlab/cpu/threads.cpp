#include "tlab/cpu/threads.hpp"

#include <unistd.h>

#include <algorithm>
#include <exception>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace tlab::cpu {

const char* threads_suffix(Threads t) { return t == Threads::one ? "@1t" : "@all"; }

int thread_count(Threads t) {
  if (t == Threads::one) return 1;
#ifdef _OPENMP
  // The cores of this process's affinity mask, not of the machine: a run pinned by taskset
  // or a container's cpuset gets as many threads as it has cores.
  return std::max(1, omp_get_num_procs());
#else
  return 1;
#endif
}

void parallel_ranges(int threads, std::int64_t n, std::int64_t grain,
                     const std::function<void(std::int64_t, std::int64_t)>& body) {
  if (n <= 0) return;
  grain = std::max<std::int64_t>(1, grain);
  const std::int64_t units = (n + grain - 1) / grain;
  const int parts = static_cast<int>(std::min<std::int64_t>(std::max(1, threads), units));
  auto range = [&](int k, std::int64_t* b, std::int64_t* e) {
    *b = std::min(n, units * k / parts * grain);
    *e = std::min(n, units * (k + 1) / parts * grain);
  };
  if (parts == 1) return body(0, n);
#ifdef _OPENMP
  // An exception must not leave an OpenMP region (that terminates the program): the first
  // one is kept and rethrown on the calling thread.
  std::exception_ptr failure;
#pragma omp parallel for num_threads(parts) schedule(static, 1)
  for (int k = 0; k < parts; ++k) {
    std::int64_t b, e;
    range(k, &b, &e);
    try {
      body(b, e);
    } catch (...) {
#pragma omp critical(tlab_parallel_ranges)
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
#else
  for (int k = 0; k < parts; ++k) {
    std::int64_t b, e;
    range(k, &b, &e);
    body(b, e);
  }
#endif
}

}  // namespace tlab::cpu
