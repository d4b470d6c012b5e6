// The adaptive repetition loop shared by every backend: warm up, then sample until the
// median is known to +-target or the time budget is spent.
#pragma once
#include <chrono>
#include <functional>
#include <string>

#include "tlab/stats.hpp"

namespace tlab {

using Clock = std::chrono::steady_clock;

// Host wall time since t0, in seconds: for phases no device event can time (host copies,
// page migration, whole host-driven sequences).
inline double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct TimingPolicy {
  int warmup = 2;
  int min_reps = 7;       // 6 is the fewest samples that give a 95% CI of the median
  int max_reps = 2000;
  double budget_s = 2.0;  // per configuration, counted over the timed samples
  double target_rel_ci = 0.02;
};

struct Timed {
  Summary summary;
  std::string stop;  // why sampling ended: "ci" (converged), "budget", "max-reps"
};

// `sample` runs the operation once and returns its duration in seconds (measured however
// the backend must: a host clock for CPU work, device events for GPU work).
Timed measure(const std::function<double()>& sample, const TimingPolicy& policy);

}  // namespace tlab
