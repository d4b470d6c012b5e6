// Experiment 14: the CPU against its own copy roofline, in one run: memcpy and STREAM's copy
// loop, our SIMD transposes (out of place, and in place on a square), OpenBLAS and Eigen,
// and the scalar naive and blocked loops for reference; at one thread and at all threads.
#include <string>
#include <vector>

#include "tlab/experiment.hpp"

namespace {
using tlab::DType;

const std::vector<std::string> kThreads = {"@1t", "@all"};

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

std::string at(const tlab::Result& r) {
  return std::string(tlab::dtype_name(r.config.dtype)) + " " + tlab::to_string(r.config.shape);
}

tlab::SummaryRow row(const tlab::Result& r, std::string metric, std::string subject, double value, std::string unit,
                     std::string detail) {
  return {std::move(metric), std::move(subject), tlab::format_number(value, 4), std::move(unit), std::move(detail),
          tlab::dtype_name(r.config.dtype), r.config.shape.rows, r.config.shape.cols};
}

// Every result against the faster copy of the same run, element type, shape and thread count.
void add_pct_of_copy(tlab::ExperimentRun& run) {
  const auto& rs = run.results();
  for (const auto& r : rs) {
    const std::string t = threads_of(*r.config.variant);
    std::string best;
    double best_s = -1;
    for (const char* copy : {"cpu/copy/memcpy", "cpu/copy/stream"}) {
      const double s = tlab::median_of(rs, copy + t, r.config.dtype, r.config.shape);
      if (s > 0 && (best_s < 0 || s < best_s)) best_s = s, best = copy + t;
    }
    if (best_s > 0)
      run.add_summary(row(r, "pct-of-copy", r.config.variant->name, 100.0 * best_s / r.timed.summary.median, "%",
                          at(r) + " against " + best));
  }
}

// Each peer's time over ours, same placement and thread count: above 1, ours is faster.
void add_ours_over_peer(tlab::ExperimentRun& run) {
  const auto& rs = run.results();
  for (const auto& r : rs) {
    const tlab::Variant& v = *r.config.variant;
    if (v.name.rfind("cpu/peer/", 0) != 0) continue;
    const std::string ours = std::string(v.placement == tlab::Placement::in_place ? "cpu/simd-inplace/auto"
                                                                                  : "cpu/simd/auto") + threads_of(v);
    const double s = tlab::median_of(rs, ours, r.config.dtype, r.config.shape);
    if (s > 0)
      run.add_summary(row(r, "ours-over-peer", v.name, r.timed.summary.median / s, "x", at(r) + ": " + ours));
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
    add_pct_of_copy(run);
    add_ours_over_peer(run);
  });
}
