// The one thread policy of the CPU side: a threaded variant exists twice, "@1t" (one thread)
// and "@all" (every logical core the process may run on, counted at run time), and its
// work is split with OpenMP (GCC's libgomp). A build without OpenMP runs everything on
// one thread and registers "@all" with threads=1, so its rows say what really ran.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tlab::cpu {

enum class Threads { one, all };

inline const std::vector<Threads>& thread_policies() {
  static const std::vector<Threads> both{Threads::one, Threads::all};
  return both;
}

const char* threads_suffix(Threads t);  // "@1t", "@all"
int thread_count(Threads t);            // 1, or the logical cores available now

// Splits [0, n) into one contiguous range per thread (at most `threads`, never an empty
// one) and calls body(begin, end) once per range, each on its own thread. Ranges are as
// equal as `grain` allows: every boundary is a multiple of `grain`.
void parallel_ranges(int threads, std::int64_t n, std::int64_t grain,
                     const std::function<void(std::int64_t, std::int64_t)>& body);

}  // namespace tlab::cpu
