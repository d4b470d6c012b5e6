// Summary statistics of timing samples, with a distribution-free confidence interval of
// the median (timings are skewed, so no normal approximation).
#pragma once
#include <cstddef>
#include <vector>

namespace tlab {

struct Summary {
  double median = 0, mean = 0, min = 0, max = 0;
  double ci_lo = 0, ci_hi = 0;  // 95% confidence interval of the median
  std::size_t n = 0;
  // Half-width of the CI relative to the median; infinity when n is too small.
  double relative_ci_halfwidth() const;
};

// Order-statistic CI of the median: ranks from the binomial(n, 1/2) distribution, so it
// holds for any continuous distribution. With fewer than 6 samples no interval at 95%
// exists; then the CI spans min..max and relative_ci_halfwidth() reports infinity.
Summary summarize(std::vector<double> samples);

}  // namespace tlab
