#include "tlab/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace tlab {

namespace {
// P(X = i) for X ~ Binomial(n, 1/2), in log space so large n does not overflow.
double binom_half_pmf(std::size_t n, std::size_t i) {
  return std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) -
                  static_cast<double>(n) * std::log(2.0));
}
}  // namespace

double Summary::relative_ci_halfwidth() const {
  if (n < 6 || median <= 0) return std::numeric_limits<double>::infinity();
  return std::max(median - ci_lo, ci_hi - median) / median;
}

Summary summarize(std::vector<double> x) {
  if (x.empty()) throw std::invalid_argument("summarize: no samples");
  std::sort(x.begin(), x.end());
  Summary s;
  s.n = x.size();
  s.min = x.front();
  s.max = x.back();
  s.mean = std::accumulate(x.begin(), x.end(), 0.0) / s.n;
  s.median = s.n % 2 ? x[s.n / 2] : 0.5 * (x[s.n / 2 - 1] + x[s.n / 2]);
  s.ci_lo = s.min;
  s.ci_hi = s.max;
  if (s.n >= 6) {
    // Largest k with P(X <= k-1) <= 2.5%: then [x_(k), x_(n-k+1)] (1-based) covers >= 95%.
    std::size_t k = 0;
    double cdf = 0;
    for (std::size_t i = 0; i < s.n / 2; ++i) {
      cdf += binom_half_pmf(s.n, i);
      if (cdf > 0.025) break;
      k = i + 1;
    }
    if (k >= 1) {
      s.ci_lo = x[k - 1];
      s.ci_hi = x[s.n - k];
    }
  }
  return s;
}

}  // namespace tlab
