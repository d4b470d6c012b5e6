// The runner every experiment program is a thin declaration over: a sweep of variants x
// element types x shapes, each configuration verified then timed, results kept in memory
// and written atomically at the end (an interrupted run leaves no partial CSV).
#pragma once
#include <functional>
#include <stdexcept>
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
  explicit ExperimentRun(Options opt) : opt_(std::move(opt)), load_at_start_(load_average()) {}
  const Options& options() const { return opt_; }

  // Runs every configuration the variants accept (in-place variants skip non-square
  // shapes; --variants narrows the set). GPU configurations are skipped, once and said
  // so, where no GPU executor exists. Returns the new results (also kept for finish()).
  std::vector<Result> run(const Sweep& sweep);
  void add_summary(SummaryRow row) { summary_.push_back(std::move(row)); }
  const std::vector<Result>& results() const { return results_; }
  const std::vector<SummaryRow>& summary() const { return summary_; }

  // Writes <out>/<experiment>.csv, <experiment>-summary.csv when there is a summary, and
  // <experiment>.env.json plus env.json. Writes nothing when nothing ran.
  void finish();

 private:
  Options opt_;
  std::vector<Result> results_;
  std::vector<SummaryRow> summary_;
  std::string load_at_start_;  // a busy machine before the run is worth a warning
  bool swept_ = false, matched_variant_ = false;  // for --variants that matches nothing
  bool backend_missing_ = false;                  // a GPU sweep on a machine without a GPU
  std::size_t selected_ = 0;                      // configurations the options selected
};

// Writes an experiment's files atomically into opt.out_dir: <experiment>.csv (the given
// text), <experiment>-summary.csv (when there are summary rows), <experiment>.env.json and
// env.json. For experiments whose rows are not per-variant results (08).
void write_experiment_files(const Options& opt, const std::string& csv, const std::vector<SummaryRow>& summary,
                            const std::string& load_at_start = "");

// Throws ResourceError "<where> memory: <what> needs about N MiB, M MiB are available" when
// need > have (have <= 0: unknown, no check). Every up-front memory refusal says it this way.
void require_memory(const std::string& where, const std::string& what, double need, double have);
// The same for host memory, against the CPU executor's view of it.
void require_host_memory(const std::string& what, double need);

// Summary rows shared by the GPU experiments. Ratios are only ever taken between results
// of the same run, at the same element type and shape.
// metric "pct-of-<peer>": every result's bandwidth as a percentage of the peer's.
void add_percent_of(ExperimentRun& run, const std::string& peer_variant);
// metric "best-of-family": per family, dtype and shape, the fastest variant (subject is the
// family, value its bandwidth in GB/s, detail names the winner).
void add_best_of_family(ExperimentRun& run);
// metric "pct-of-fastest": per dtype and shape where `subject` ran, its bandwidth as a
// percentage of the fastest other variant of its placement in the run, leaving out the
// variants matching `leave_out` (the copies and library peers: the ceiling and the rivals,
// not the candidates); detail names that variant. How near a choice came to the best the
// run had on offer, at every shape, not only those a tuning table was fitted at.
void add_percent_of_fastest(ExperimentRun& run, const std::string& subject, const std::vector<std::string>& leave_out);
// Every variant the registry holds whose name matches any of the globs, in glob order. A
// "gpu/..." glob that matches nothing in a build without CUDA throws BackendMissing, which
// experiment_main turns into "skipping: <why>" and exit 0, writing nothing (the report then
// uses the reference results); any other glob that matches nothing is a programming error.
struct BackendMissing : std::runtime_error {
  using std::runtime_error::runtime_error;
};
std::vector<const Variant*> variants_matching(const std::vector<std::string>& globs);

// Parses the command line, checks the output folder, runs `body`, maps failures to exit
// codes: 2 bad input, 3 wrong result, 1 anything else. Returns main's exit code.
int experiment_main(int argc, char** argv, const ExperimentSpec& spec,
                    const std::function<void(ExperimentRun&)>& body);

}  // namespace tlab
