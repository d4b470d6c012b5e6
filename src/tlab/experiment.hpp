// The runner every experiment program is a thin declaration over: a sweep of variants x
// element types x shapes, each configuration verified then timed, results kept in memory
// and written atomically at the end (an interrupted run leaves no partial CSV).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "tlab/cli.hpp"
#include "tlab/executor.hpp"
#include "tlab/results.hpp"

namespace tlab {

struct Sweep {
  std::vector<const Variant*> variants;
  std::vector<DType> dtypes;
  std::vector<Shape> shapes;
};

class ExperimentRun {
 public:
  explicit ExperimentRun(Options opt) : opt_(std::move(opt)) {}
  const Options& options() const { return opt_; }

  // Runs every configuration the variants accept (in-place variants skip non-square
  // shapes; --variants narrows the set). GPU configurations are skipped, once and said
  // so, where no GPU executor exists. Returns the new results (also kept for finish()).
  std::vector<Result> run(const Sweep& sweep);
  void add_summary(SummaryRow row) { summary_.push_back(std::move(row)); }
  const std::vector<Result>& results() const { return results_; }

  // Writes <out>/<experiment>.csv, <experiment>-summary.csv when there is a summary, and
  // <experiment>.env.json plus env.json. Writes nothing when nothing ran.
  void finish();

 private:
  Options opt_;
  std::vector<Result> results_;
  std::vector<SummaryRow> summary_;
  bool any_skipped_backend_ = false;
};

// Parses the command line, checks the output folder, runs `body`, maps failures to exit
// codes: 2 bad input, 3 wrong result, 1 anything else. Returns main's exit code.
int experiment_main(int argc, char** argv, const ExperimentSpec& spec,
                    const std::function<void(ExperimentRun&)>& body);

}  // namespace tlab
