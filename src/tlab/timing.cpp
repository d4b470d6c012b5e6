#include "tlab/timing.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace tlab {

Timed measure(const std::function<double()>& sample, const TimingPolicy& p) {
  for (int i = 0; i < p.warmup; ++i) sample();
  std::vector<double> xs;
  double spent = 0;
  std::string stop = "max-reps";
  int min_reps = std::max(1, std::min(p.min_reps, p.max_reps));
  while (static_cast<int>(xs.size()) < p.max_reps) {
    const double t = sample();
    xs.push_back(t);
    spent += t;
    // A configuration whose single run eats the budget still gets three samples (a median
    // and a spread), not min_reps: the CSV says how many it got and why it stopped.
    if (xs.size() == 1 && std::isfinite(p.budget_s) && t > 0 && t * min_reps > p.budget_s)
      min_reps = std::max(std::min(3, min_reps), std::min(min_reps, static_cast<int>(p.budget_s / t)));
    if (static_cast<int>(xs.size()) < min_reps) continue;
    // Checking the CI costs a sort; do it on a geometric schedule, not after every sample.
    const std::size_t n = xs.size();
    if ((n & (n - 1)) == 0 || n % 16 == 0 || spent >= p.budget_s) {
      if (summarize(xs).relative_ci_halfwidth() <= p.target_rel_ci) {
        stop = "ci";
        break;
      }
    }
    if (spent >= p.budget_s) {
      stop = "budget";
      break;
    }
  }
  return {summarize(xs), stop};
}

}  // namespace tlab
