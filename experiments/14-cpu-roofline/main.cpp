// Experiment 14: the CPU against its own copy roofline, in one run: memcpy and STREAM's copy
// loop, our SIMD transposes (out of place, and in place on a square), OpenBLAS and Eigen,
// and the scalar naive and blocked loops for reference; at one thread and at all threads.
#include <algorithm>
#include <string>
#include <vector>

#include "tlab/experiment.hpp"

namespace {
using tlab::DType;

// "@1t" or "@all" from a variant's name; the scalar reference loops run on one thread.
std::string threads_of(const tlab::Variant& v) {
  return v.name.size() > 4 && v.name.compare(v.name.size() - 4, 4, "@all") == 0 ? "@all" : "@1t";
}

// Only the variants this build has (the peers are optional), in the order given.
std::vector<const tlab::Variant*> present(const std::vector<std::string>& globs) {
  std::vector<const tlab::Variant*> out;
  for (const auto& g : globs)
    for (const tlab::Variant* v : tlab::registry().matching(g)) out.push_back(v);
  return out;
}

std::string at(tlab::DType t, tlab::Shape s) { return std::string(tlab::dtype_name(t)) + " " + tlab::to_string(s); }

// One ratio of the run: a variant's value at one element type and shape.
struct Ratio {
  std::string subject;
  tlab::DType dtype;
  tlab::Shape shape;
  double value;
};

tlab::SummaryRow row(const std::string& metric, const Ratio& x, std::string unit, std::string detail) {
  return {metric, x.subject, tlab::format_number(x.value, 4), std::move(unit), std::move(detail),
          tlab::dtype_name(x.dtype), x.shape.rows, x.shape.cols};
}

// Every result against the faster copy of the same run, element type, shape and thread count.
std::vector<Ratio> add_pct_of_copy(tlab::ExperimentRun& run) {
  std::vector<Ratio> out;
  const auto& rs = run.results();
  for (const auto& r : rs) {
    const std::string t = threads_of(*r.config.variant);
    std::string best;
    double best_s = -1;
    for (const char* copy : {"cpu/copy/memcpy", "cpu/copy/stream"}) {
      const double s = tlab::median_of(rs, copy + t, r.config.dtype, r.config.shape);
      if (s > 0 && (best_s < 0 || s < best_s)) best_s = s, best = copy + t;
    }
    if (best_s <= 0) continue;
    out.push_back({r.config.variant->name, r.config.dtype, r.config.shape, 100.0 * best_s / r.timed.summary.median});
    run.add_summary(row("pct-of-copy", out.back(), "%", at(r.config.dtype, r.config.shape) + " against " + best));
  }
  return out;
}

// Each peer's time over ours, same placement and thread count: above 1, ours is faster.
std::vector<Ratio> add_ours_over_peer(tlab::ExperimentRun& run) {
  std::vector<Ratio> out;
  const auto& rs = run.results();
  for (const auto& r : rs) {
    const tlab::Variant& v = *r.config.variant;
    if (v.name.rfind("cpu/peer/", 0) != 0) continue;
    const std::string ours = std::string(v.placement == tlab::Placement::in_place ? "cpu/simd-inplace/auto"
                                                                                  : "cpu/simd/auto") + threads_of(v);
    const double s = tlab::median_of(rs, ours, r.config.dtype, r.config.shape);
    if (s <= 0) continue;
    out.push_back({v.name, r.config.dtype, r.config.shape, r.timed.summary.median / s});
    run.add_summary(row("ours-over-peer", out.back(), "x", at(r.config.dtype, r.config.shape) + ": " + ours));
  }
  return out;
}

// What threads bought each threaded variant: its one-thread time over its all-threads time.
void add_thread_speedup(tlab::ExperimentRun& run) {
  const auto& rs = run.results();
  for (const auto& r : rs) {
    const std::string& name = r.config.variant->name;
    if (threads_of(*r.config.variant) != "@all") continue;
    const std::string one = name.substr(0, name.size() - 4) + "@1t";
    const double s = tlab::median_of(rs, one, r.config.dtype, r.config.shape);
    if (s > 0)
      run.add_summary(row("speedup-all-over-1t", {name, r.config.dtype, r.config.shape, s / r.timed.summary.median}, "x",
                          at(r.config.dtype, r.config.shape) + ": " + one + " over " + name));
  }
}

// The goals, judged from this run: per variant, how many of the configurations in
// the goal's scope meet it, and the worst of them.
struct Goal {
  const char* subjects;  // glob over variant names
  const std::vector<Ratio>* ratios;
  std::vector<tlab::DType> types;
  std::int64_t min_side;
  double threshold;  // met when value >= threshold (strictly above for "ahead")
  bool strictly;
  std::string unit, text;
};

void add_goals(tlab::ExperimentRun& run, const std::vector<Goal>& goals) {
  for (const Goal& g : goals) {
    std::vector<std::string> subjects;
    for (const Ratio& x : *g.ratios)
      if (tlab::glob_match(g.subjects, x.subject) &&
          std::find(subjects.begin(), subjects.end(), x.subject) == subjects.end())
        subjects.push_back(x.subject);
    for (const std::string& subject : subjects) {
      int in_scope = 0, met = 0;
      const Ratio* worst = nullptr;
      for (const Ratio& x : *g.ratios) {
        if (x.subject != subject || x.shape.rows < g.min_side || x.shape.cols < g.min_side ||
            std::find(g.types.begin(), g.types.end(), x.dtype) == g.types.end())
          continue;
        ++in_scope;
        met += g.strictly ? x.value > g.threshold : x.value >= g.threshold;
        if (!worst || x.value < worst->value) worst = &x;
      }
      if (!worst) {
        run.add_summary({"goal", subject, "NA", g.unit, "not measured: " + g.text + "; no configuration in scope in this run", "", 0, 0});
        continue;
      }
      const std::string verdict = met == in_scope ? "met" : "not met";
      run.add_summary(row("goal", *worst, g.unit,
                          verdict + ": " + g.text + "; " + std::to_string(met) + " of " + std::to_string(in_scope) +
                              " configurations; the worst at " + at(worst->dtype, worst->shape)));
    }
  }
}
}  // namespace

int main(int argc, char** argv) {
  tlab::ExperimentSpec spec{"14-cpu-roofline",
                            "CPU copy roofline, our SIMD transposes, OpenBLAS and Eigen at one and all threads",
                            tlab::parse_sizes("2^11..2^14"), tlab::parse_sizes("2^9..2^11")};
  return tlab::experiment_main(argc, argv, spec, [](tlab::ExperimentRun& run) {
    const auto& shapes = run.options().shapes;
    // Float and double: everything, peers included (they have only these two types).
    run.run({present({"cpu/copy/*", "cpu/simd/auto@*", "cpu/simd-inplace/auto@*", "cpu/peer/*", "cpu/blocked/32",
                      "cpu/naive"}),
             {DType::f32, DType::f64},
             shapes});
    // The other element sizes (1, 2 and 16 bytes): ours against the copies.
    run.run({present({"cpu/copy/*", "cpu/simd/auto@*", "cpu/simd-inplace/auto@*"}),
             {DType::u8, DType::u16, DType::c128},
             shapes});
    if (run.results().empty()) return;
    const std::vector<Ratio> pct = add_pct_of_copy(run), peer = add_ours_over_peer(run);
    add_thread_speedup(run);
    // Issue 13's targets: 80% of the copy out of place and 60% in place at 8192^2 float and
    // larger, at the same thread count; ahead of OpenBLAS and Eigen at every size >= 2048^2.
    const std::vector<DType> f32{DType::f32}, both{DType::f32, DType::f64};
    add_goals(run, {{"cpu/simd/auto@*", &pct, f32, 8192, 80, false, "%", "out of place at >= 80% of the copy, float, n >= 8192"},
                    {"cpu/simd-inplace/auto@*", &pct, f32, 8192, 60, false, "%", "in place at >= 60% of the copy, float, n >= 8192"},
                    {"cpu/peer/*", &peer, both, 2048, 1, true, "x", "ours faster than this peer, float and double, n >= 2048"}});
  });
}
