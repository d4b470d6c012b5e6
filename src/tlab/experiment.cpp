#include "tlab/experiment.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "tlab/csv.hpp"

namespace tlab {


std::vector<Result> ExperimentRun::run(const Sweep& sweep) {
  swept_ = true;
  std::vector<Config> configs;
  std::string skipped_why;
  std::size_t skipped = 0;
  for (const Variant* v : sweep.variants) {
    if (!glob_match(opt_.variant_glob, v->name)) continue;
    if (v->known_wrong)
      throw std::logic_error(v->name + " is registered as incorrect and cannot be timed as a transpose");
    std::string why;
    if (!executor_for(v->backend, &why)) {
      skipped += sweep.dtypes.size() * sweep.shapes.size();
      skipped_why = why;
      continue;
    }
  }
  // Grouped by (type, shape): an executor draws one fresh input and reference per group and
  // checks every variant of the group against it (the GPU's verification cost at 2^14 is
  // otherwise seconds per configuration).
  auto wanted = [&](DType t) {
    return opt_.types.empty() || std::find(opt_.types.begin(), opt_.types.end(), t) != opt_.types.end();
  };
  for (DType t : sweep.dtypes) {
    if (!wanted(t)) continue;
    for (Shape s : sweep.shapes)
      for (const Variant* v : sweep.variants)
        if (glob_match(opt_.variant_glob, v->name) && executor_for(v->backend, nullptr) && v->refuses(t, s).empty())
          configs.push_back({v, t, s});
  }
  if (skipped) {
    backend_missing_ = true;
    std::cerr << "[" << opt_.experiment << "] skipping " << skipped << " GPU configurations: " << skipped_why << "\n";
  }
  for (const Variant* v : sweep.variants) matched_variant_ = matched_variant_ || glob_match(opt_.variant_glob, v->name);
  // Refuse before measuring anything a configuration the machine cannot hold (or whose
  // environment makes it unusable): a check needs
  // input, output and reference in host memory (a GPU check stages them there too), and
  // the GPU fixture needs its buffers on the device.
  for (const Config& c : configs) {
    if (c.variant->check_environment) c.variant->check_environment();
    const std::string what = to_string(c.shape) + " " + dtype_name(c.dtype);
    require_host_memory(what, 3.0 * static_cast<double>(c.shape.elements()) * dtype_size(c.dtype));
    if (c.variant->backend == Backend::gpu) {
      Executor* e = executor_for(Backend::gpu, nullptr);
      require_memory("device", what, e->bytes_needed(c.dtype, c.shape), e->bytes_free());
    }
  }
  selected_ += configs.size();
  std::vector<Result> fresh;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const Config& c = configs[i];
    const std::string label = c.variant->name + " " + dtype_name(c.dtype) + " " + to_string(c.shape);
    if (opt_.list) {
      std::cout << label << "\n";
      continue;
    }
    std::cerr << "[" << opt_.experiment << "] " << (i + 1) << "/" << configs.size() << " " << label << std::flush;
    Result r = executor_for(c.variant->backend, nullptr)->run(c, opt_.timing);
    std::cerr << ": " << format_number(bandwidth_gbs(r), 4) << " GB/s, median "
              << format_number(r.timed.summary.median * 1e3, 4) << " ms (" << r.timed.summary.n << " reps, "
              << r.timed.stop << ")\n";
    fresh.push_back(r);
    results_.push_back(std::move(r));
  }
  return fresh;
}

void ExperimentRun::finish() {
  if (swept_ && !matched_variant_)
    throw UsageError("--variants '" + opt_.variant_glob + "' matches none of this experiment's variants (see --list)");
  // Every backend was there, yet the sizes and types given left nothing to run: say so,
  // rather than exit 0 with no results.
  if (swept_ && selected_ == 0 && !backend_missing_)
    throw UsageError("the sizes and types given select no configuration of this experiment (see --list and --help)");
  if (opt_.list) return;
  if (results_.empty()) {
    // Experiments that write their own rows (08, 09) never sweep: nothing to say for them.
    if (swept_) std::cerr << "[" << opt_.experiment << "] nothing ran on this machine; no results written\n";
    return;
  }
  write_experiment_files(opt_, results_csv(opt_.experiment, results_), summary_, load_at_start_);
}

void write_experiment_files(const Options& opt, const std::string& csv, const std::vector<SummaryRow>& summary,
                            const std::string& load_at_start) {
  const std::string base = opt.out_dir + "/" + opt.experiment;
  write_file_atomic(base + ".csv", csv);
  if (!summary.empty()) write_file_atomic(base + "-summary.csv", summary_csv(opt.experiment, summary));
  else std::remove((base + "-summary.csv").c_str());  // an older run's summary must not pose as this one's
  Fields fields = capture_environment(opt.command_line);
  fields.emplace_back("load_average_1min_at_start", load_at_start.empty() ? "unknown" : load_at_start);
  const std::string env = to_json(fields);
  write_file_atomic(base + ".env.json", env);
  write_file_atomic(opt.out_dir + "/env.json", env);
  std::cerr << "[" << opt.experiment << "] wrote " << base << ".csv\n";
}

namespace {
std::string config_label(const Config& c) { return std::string(dtype_name(c.dtype)) + " " + to_string(c.shape); }

SummaryRow row_for(const Config& c, std::string metric, std::string subject, std::string value, std::string unit,
                   std::string detail) {
  return {std::move(metric), std::move(subject), std::move(value), std::move(unit), std::move(detail),
          dtype_name(c.dtype), c.shape.rows, c.shape.cols};
}
}  // namespace

void require_memory(const std::string& where, const std::string& what, double need, double have) {
  if (have > 0 && need > have)
    throw ResourceError(where + " memory: " + what + " needs about " +
                        std::to_string(static_cast<long long>(need / (1 << 20))) + " MiB, " +
                        std::to_string(static_cast<long long>(have / (1 << 20))) + " MiB are available");
}

void require_host_memory(const std::string& what, double need) {
  require_memory("host", what, need, executor_for(Backend::cpu, nullptr)->bytes_free());
}

void add_percent_of(ExperimentRun& run, const std::string& peer) {
  const auto& rs = run.results();
  for (const Result& r : rs) {
    const double base = median_of(rs, peer, r.config.dtype, r.config.shape);
    if (base <= 0) continue;
    // Same bytes moved by both, so the bandwidth ratio is the inverse time ratio.
    const double pct = 100.0 * base / r.timed.summary.median;
    run.add_summary(row_for(r.config, "pct-of-" + peer, r.config.variant->name, format_number(pct, 4), "%",
                            config_label(r.config)));
  }
}

void add_best_of_family(ExperimentRun& run) {
  const auto& rs = run.results();
  std::vector<const Result*> best;
  for (const Result& r : rs) {
    auto same = [&](const Result* b) {
      return b->config.variant->family == r.config.variant->family && b->config.dtype == r.config.dtype &&
             b->config.shape == r.config.shape;
    };
    auto it = std::find_if(best.begin(), best.end(), same);
    if (it == best.end()) best.push_back(&r);
    else if (r.timed.summary.median < (*it)->timed.summary.median) *it = &r;
  }
  for (const Result* b : best)
    run.add_summary(row_for(b->config, "best-of-family", b->config.variant->family, format_number(bandwidth_gbs(*b), 5),
                            "GB/s", b->config.variant->name));
}

void add_percent_of_fastest(ExperimentRun& run, const std::string& subject, const std::vector<std::string>& leave_out) {
  const auto& rs = run.results();
  auto left_out = [&](const std::string& name) {
    return std::any_of(leave_out.begin(), leave_out.end(), [&](const std::string& g) { return glob_match(g, name); });
  };
  for (const Result& s : rs) {
    if (s.config.variant->name != subject) continue;
    const Result* best = nullptr;
    for (const Result& r : rs)
      if (r.config.variant->name != subject && r.config.variant->placement == s.config.variant->placement &&
          r.config.dtype == s.config.dtype && r.config.shape == s.config.shape && !left_out(r.config.variant->name) &&
          (!best || r.timed.summary.median < best->timed.summary.median))
        best = &r;
    if (!best) continue;
    // Same bytes moved by both, so the bandwidth ratio is the inverse time ratio.
    run.add_summary(row_for(s.config, "pct-of-fastest", subject,
                            format_number(100.0 * best->timed.summary.median / s.timed.summary.median, 4), "%",
                            best->config.variant->name));
  }
}

std::vector<const Variant*> variants_matching(const std::vector<std::string>& globs) {
  std::vector<const Variant*> out;
  for (const auto& g : globs) {
    const auto found = registry().matching(g);
    if (found.empty()) {
      std::string why;
      if (g.rfind("gpu/", 0) == 0 && !executor_for(Backend::gpu, &why)) throw BackendMissing(why);
      throw std::logic_error("no registered variant matches '" + g + "'");
    }
    for (const Variant* v : found)
      if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  return out;
}

namespace {
// Fails before hours of measuring, not after, when the results cannot be written.
void check_writable(const std::string& dir) {
  try {
    make_dirs(dir);
  } catch (const std::runtime_error& e) {
    throw UsageError(std::string("--out: ") + e.what());
  }
  if (access(dir.c_str(), W_OK) != 0) throw UsageError("--out: folder '" + dir + "' is not writable");
}
}  // namespace

int experiment_main(int argc, char** argv, const ExperimentSpec& spec,
                    const std::function<void(ExperimentRun&)>& body) {
  const std::string prog = spec.name;
  try {
    Options opt = parse_experiment_args(argc, argv, spec);
    if (!opt.list) check_writable(opt.out_dir);
    ExperimentRun run(std::move(opt));
    body(run);
    run.finish();
    return 0;
  } catch (const BackendMissing& e) {
    std::cerr << "[" << prog << "] skipping: " << e.what() << "\n";
    return 0;
  } catch (const UsageError& e) {
    std::cerr << prog << ": " << e.what() << "\n";
    return 2;
  } catch (const VerificationError& e) {
    std::cerr << prog << ": WRONG RESULT: " << e.what() << "\n";
    return 3;
  } catch (const ResourceError& e) {
    std::cerr << prog << ": " << e.what() << "\n";
    return 2;
  } catch (const std::invalid_argument& e) {
    std::cerr << prog << ": " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << prog << ": error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace tlab
