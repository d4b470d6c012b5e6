// Experiment 01: seed 000's CPU in-place transposes built at -O0..-O3, and the threshold
// sweep of the cache-oblivious recursion at -O3.
#include <algorithm>
#include <utility>
#include <string>
#include <vector>

#include "tlab/experiment.hpp"

namespace {
const std::vector<std::string> kAlgorithms = {"cpu/inplace-naive", "cpu/inplace-prefetch",
                                              "cpu/inplace-oblivious-seed/t128", "cpu/inplace-oblivious/t128"};
const std::vector<std::string> kLevels = {"O0", "O1", "O2", "O3"};

std::string ratio(double num, double den) { return num > 0 && den > 0 ? tlab::format_number(num / den, 4) : "NA"; }
}  // namespace

int main(int argc, char** argv) {
  tlab::ExperimentSpec spec{"01-cpu-opt-levels",
                            "seed 000's in-place CPU transposes at -O0..-O3, and the oblivious threshold sweep",
                            // Non-powers of two beside the seed's powers of two: with a row
                            // stride of a multiple of 4 KiB a column maps to one cache set.
                            tlab::parse_sizes("2^8..2^14,1000,4000"), tlab::parse_sizes("2^8..2^11,1000")};
  return tlab::experiment_main(argc, argv, spec, [](tlab::ExperimentRun& run) {
    tlab::Registry& reg = tlab::registry();
    tlab::register_cpu_opt_level_variants(reg);
    tlab::Sweep sweep{{}, {tlab::DType::i32}, run.options().shapes};
    for (const auto& algo : kAlgorithms)
      for (const auto& lvl : kLevels) sweep.variants.push_back(&reg.get(algo + "@" + lvl));
    for (const char* form : {"cpu/inplace-oblivious/t*@O3", "cpu/inplace-oblivious-seed/t*@O3"})
      for (const tlab::Variant* v : reg.matching(form))
        if (std::find(sweep.variants.begin(), sweep.variants.end(), v) == sweep.variants.end())
          sweep.variants.push_back(v);
    const auto results = run.run(sweep);
    if (results.empty()) return;

    // Derived numbers for the report, at the largest power-of-two size that ran (the seed's
    // sizes) and at the largest other size.
    tlab::Shape big{0, 0}, big_other{0, 0};
    for (const auto& r : results) {
      const std::int64_t n = r.config.shape.rows;
      tlab::Shape& slot = (n & (n - 1)) == 0 ? big : big_other;
      if (n > slot.rows) slot = r.config.shape;
    }
    for (const auto& [s, suffix] : {std::pair<tlab::Shape, std::string>{big, ""}, {big_other, "-non-pow2"}}) {
      // Rows are written even when no such size ran (value NA), so that a report over any
      // --sizes finds them.
      const std::string at = s.rows ? "int32 " + tlab::to_string(s) : "no such size in this run";
      auto med = [&, s = s](const std::string& v) { return tlab::median_of(results, v, tlab::DType::i32, s); };
      for (const auto& algo : kAlgorithms) {
        run.add_summary({"speedup-O0-to-O3" + suffix, algo, ratio(med(algo + "@O0"), med(algo + "@O3")), "x", at, "int32",
                         s.rows, s.cols});
        run.add_summary({"speedup-O1-to-O3" + suffix, algo, ratio(med(algo + "@O1"), med(algo + "@O3")), "x", at, "int32",
                         s.rows, s.cols});
        run.add_summary({"speedup-over-naive-O3" + suffix, algo, ratio(med("cpu/inplace-naive@O3"), med(algo + "@O3")),
                         "x", at, "int32", s.rows, s.cols});
      }
    }
    // Best threshold per form and size: the seed reports 128 as best.
    for (const char* form : {"cpu/inplace-oblivious/t", "cpu/inplace-oblivious-seed/t"}) {
      for (const tlab::Shape& s : run.options().shapes) {
        std::string best;
        double best_t = -1;
        for (const tlab::Variant* v : reg.matching(std::string(form) + "*@O3")) {
          const double t = tlab::median_of(results, v->name, tlab::DType::i32, s);
          if (t > 0 && (best_t < 0 || t < best_t)) {
            best_t = t;
            best = v->param("threshold");
          }
        }
        if (!best.empty())
          run.add_summary({"best-threshold", std::string(form) + "*@O3", best, "elements",
                         "int32 " + tlab::to_string(s), "int32", s.rows, s.cols});
      }
    }
  });
}
