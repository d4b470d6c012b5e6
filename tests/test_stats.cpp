// Summary statistics and the adaptive repetition loop.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <random>
#include <vector>

#include "tlab/stats.hpp"
#include "tlab/timing.hpp"

using namespace tlab;

namespace {

using u128 = unsigned __int128;

// The 1-based rank k of the 95% order-statistic CI [x(k), x(n-k+1)] of the median, computed
// exactly: the largest k with P(X <= k-1) <= 2.5% for X ~ Binomial(n, 1/2), i.e.
// 40 * sum_{i<k} C(n, i) <= 2^n. 0 when even k = 1 is not allowed (no 95% interval).
std::size_t expected_rank(unsigned n) {
  u128 c = 1, cum = 0;  // c = C(n, i)
  const u128 total = u128(1) << n;
  std::size_t k = 0;
  for (unsigned i = 0; i <= n; ++i) {
    cum += c;  // cum = P(X <= i) * 2^n
    if (40 * cum > total) break;
    k = i + 1;
    c = c * (n - i) / (i + 1);
  }
  return k;
}

// Distinct values 1..n times a scale, shuffled: the order statistics are known.
std::vector<double> shuffled_ranks(unsigned n, std::mt19937& g) {
  std::vector<double> x(n);
  for (unsigned i = 0; i < n; ++i) x[i] = 0.001 * (i + 1);
  std::shuffle(x.begin(), x.end(), g);
  return x;
}

}  // namespace

TEST_SUITE("stats") {

TEST_CASE("the exact binomial ranks used by the tests are right where they can be checked by hand") {
  // n = 10: P(X <= 1) = 11/1024 <= 0.025 < P(X <= 2) = 56/1024, so k = 2: [x(2), x(9)].
  CHECK(expected_rank(10) == 2);
  // n = 5: P(X <= 0) = 1/32 > 0.025: no interval. n = 6: 1/64 <= 0.025 < 7/64: k = 1.
  CHECK(expected_rank(5) == 0);
  CHECK(expected_rank(6) == 1);
  // n = 9: 1/512, 10/512 = 0.0195, 46/512 = 0.0898 -> k = 2.
  CHECK(expected_rank(9) == 2);
}

TEST_CASE("the median, mean, min and max are right for odd and even sample counts") {
  Summary s = summarize({3.0, 1.0, 2.0});
  CHECK(s.n == 3);
  CHECK(s.median == 2.0);
  CHECK(s.mean == doctest::Approx(2.0));
  CHECK(s.min == 1.0);
  CHECK(s.max == 3.0);

  s = summarize({4.0, 1.0, 3.0, 2.0});
  CHECK(s.median == 2.5);
  CHECK(s.mean == doctest::Approx(2.5));
  CHECK(s.min == 1.0);
  CHECK(s.max == 4.0);

  s = summarize({7.0});
  CHECK(s.median == 7.0);
  CHECK(s.min == 7.0);
  CHECK(s.max == 7.0);
  CHECK(s.ci_lo == 7.0);
  CHECK(s.ci_hi == 7.0);

  s = summarize({10.0, 1.0, 1.0, 1.0, 100.0});  // skewed: median and mean differ
  CHECK(s.median == 1.0);
  CHECK(s.mean == doctest::Approx(22.6));

  CHECK_THROWS_AS(summarize({}), std::invalid_argument);
}

TEST_CASE("the confidence interval of the median uses the order-statistic ranks of the binomial") {
  std::mt19937 g(12345);
  for (unsigned n = 1; n <= 120; ++n) {
    CAPTURE(n);
    const std::vector<double> x = shuffled_ranks(n, g);
    const Summary s = summarize(x);
    const std::size_t k = expected_rank(n);
    if (k == 0) {
      CHECK(s.ci_lo == 0.001);
      CHECK(s.ci_hi == doctest::Approx(0.001 * n));
    } else {
      // x(k) is k * 0.001 in this data.
      CHECK(s.ci_lo == doctest::Approx(0.001 * k));
      CHECK(s.ci_hi == doctest::Approx(0.001 * (n - k + 1)));
    }
  }
  const Summary ten = summarize(shuffled_ranks(10, g));
  CHECK(ten.ci_lo == doctest::Approx(0.002));  // x(2)
  CHECK(ten.ci_hi == doctest::Approx(0.009));  // x(9)
}

TEST_CASE("the confidence interval contains the median and lies within min..max") {
  std::mt19937 g(777);
  std::lognormal_distribution<double> d(-7.0, 0.5);
  for (unsigned n = 1; n <= 300; n += (n < 20 ? 1 : 17)) {
    CAPTURE(n);
    std::vector<double> x(n);
    for (auto& v : x) v = d(g);
    const Summary s = summarize(x);
    CHECK(s.min <= s.ci_lo);
    CHECK(s.ci_lo <= s.median);
    CHECK(s.median <= s.ci_hi);
    CHECK(s.ci_hi <= s.max);
    CHECK(s.mean >= s.min);
    CHECK(s.mean <= s.max);
  }
}

TEST_CASE("below 6 samples the interval is min..max and its relative half-width is infinite") {
  for (unsigned n = 1; n < 6; ++n) {
    CAPTURE(n);
    std::vector<double> x(n, 1.0);  // identical samples: a naive half-width would be 0
    Summary s = summarize(x);
    CHECK(std::isinf(s.relative_ci_halfwidth()));
    std::vector<double> y;
    for (unsigned i = 0; i < n; ++i) y.push_back(1.0 + i);
    s = summarize(y);
    CHECK(s.ci_lo == s.min);
    CHECK(s.ci_hi == s.max);
    CHECK(std::isinf(s.relative_ci_halfwidth()));
  }
  Summary six = summarize(std::vector<double>(6, 2.0));
  CHECK(six.relative_ci_halfwidth() == 0.0);
  // [x(2), x(9)] of 1..10 around the median 5.5: max(5.5 - 2, 9 - 5.5) / 5.5.
  Summary ten = summarize({1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  CHECK(ten.relative_ci_halfwidth() == doctest::Approx(3.5 / 5.5));
  // A zero median cannot give a relative width.
  CHECK(std::isinf(summarize(std::vector<double>(8, 0.0)).relative_ci_halfwidth()));
}

TEST_CASE("measure stops on ci for a constant sampler after at least min_reps samples and the warm-up calls") {
  for (int warmup : {0, 2, 5}) {
    CAPTURE(warmup);
    int calls = 0;
    TimingPolicy p;
    p.warmup = warmup;
    p.min_reps = 7;
    const Timed t = measure([&] { ++calls; return 1e-3; }, p);
    CHECK(t.stop == "ci");
    CHECK(t.summary.n >= 7);
    CHECK(t.summary.n < 100);
    CHECK(t.summary.median == 1e-3);
    CHECK(calls == warmup + static_cast<int>(t.summary.n));
  }
  TimingPolicy p;
  p.min_reps = 20;
  const Timed t = measure([] { return 1e-3; }, p);
  CHECK(t.stop == "ci");
  CHECK(t.summary.n >= 20);
}

TEST_CASE("measure stops on budget for a noisy sampler once the timed samples have spent the budget") {
  std::vector<double> seen;
  int calls = 0;
  TimingPolicy p;
  p.warmup = 3;
  p.budget_s = 0.05;
  // Alternating 1 ms and 3 ms: the median's CI never narrows to +-2%.
  const Timed t = measure(
      [&] {
        const double x = (calls++ % 2) ? 3e-3 : 1e-3;
        if (calls > p.warmup) seen.push_back(x);
        return x;
      },
      p);
  CHECK(t.stop == "budget");
  REQUIRE(seen.size() == t.summary.n);
  const double spent = std::accumulate(seen.begin(), seen.end(), 0.0);
  CHECK(spent >= p.budget_s);
  CHECK(spent - seen.back() < p.budget_s);  // it stopped at the first sample past the budget
  CHECK(calls == p.warmup + static_cast<int>(t.summary.n));
}

TEST_CASE("measure honours max_reps, also below min_reps") {
  int k = 0;
  auto noisy = [&] { return (k++ % 2) ? 3e-3 : 1e-3; };
  TimingPolicy p;
  p.budget_s = std::numeric_limits<double>::infinity();
  p.max_reps = 25;
  Timed t = measure(noisy, p);
  CHECK(t.stop == "max-reps");
  CHECK(t.summary.n == 25);

  p.min_reps = 7;
  p.max_reps = 3;
  t = measure(noisy, p);
  CHECK(t.stop == "max-reps");
  CHECK(t.summary.n == 3);

  // --reps N: exactly N, even for a sampler that would converge at once.
  p.min_reps = p.max_reps = 5;
  t = measure([] { return 1e-3; }, p);
  CHECK(t.summary.n == 5);
  CHECK(t.stop == "max-reps");
}

TEST_CASE("measure takes at least 3 samples when the first sample alone exceeds the budget") {
  for (double first : {1.5, 10.0, 1000.0}) {
    CAPTURE(first);
    int calls = 0;
    TimingPolicy p;
    p.warmup = 1;
    p.budget_s = 1.0;
    const Timed t = measure([&] { ++calls; return first; }, p);
    CHECK(t.summary.n >= 3);
    CHECK(t.summary.n <= 7);
    CHECK(t.stop == "budget");
    CHECK(calls == 1 + static_cast<int>(t.summary.n));
  }
}

}  // TEST_SUITE("stats")
