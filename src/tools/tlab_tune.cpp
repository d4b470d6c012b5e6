// tlab-tune: measures the candidate kernels for every element size, placement and shape
// class on this GPU and writes the tuning table tlab::Plan reads (src/tlab/api/tuning.hpp).
// Each candidate is verified exactly before it is timed, as in the experiments.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tlab/api/tuning.hpp"
#include "tlab/api/tuning_cases.hpp"
#include "tlab/device_memory.hpp"
#include "tlab/executor.hpp"
#include "tlab/results.hpp"

using namespace tlab;

namespace {

// The families worth tuning over: our kernels that can win somewhere (not the seeds'
// naive ones, not the peers, not the plan itself).
bool candidate(const Variant& v) {
  for (const char* f : {"gpu-word", "gpu-word-inplace", "gpu-unrolled", "gpu-rect", "gpu-tiled", "gpu-inplace-tiled",
                        "gpu-inplace-rect", "gpu-tma"})
    if (v.family == f) return true;
  return false;
}

// Whether the host has `bytes` of memory as the CPU executor counts it (its physical memory,
// not what is free now) for the CPU reference and the staging of a check.
bool host_holds(double bytes) {
  const Executor* cpu = executor_for(Backend::cpu, nullptr);
  return !cpu || bytes <= cpu->bytes_free();
}

int usage(const char* why) {
  std::cerr << "tlab-tune: " << why
            << " (usage: tlab-tune [--out DIR] [--budget SECONDS] [--class NAME[,NAME...]] [--placement in-place|out-of-place])\n";
  return 2;
}

// Which (class, placement) pairs a run tunes: all of them, or those --class and --placement name.
struct Selection {
  std::set<std::string> classes;  // empty: every class
  std::string placement;          // empty: both
  bool everything() const { return classes.empty() && placement.empty(); }
  bool has(const std::string& cls, const std::string& place) const {
    return (classes.empty() || classes.count(cls)) && (placement.empty() || placement == place);
  }
};

// The rows of the table at `path` that this run does not tune (none where it tunes everything:
// a full run replaces the table), so that a run for some classes keeps the rest.
std::vector<tuning::Row> kept_rows(const std::string& path, const Selection& sel) {
  if (sel.everything() || !std::filesystem::exists(path)) return {};
  std::vector<tuning::Row> kept;
  for (tuning::Row& r : tuning::read_table(path))
    if (!sel.has(r.shape, r.placement)) kept.push_back(std::move(r));
  return kept;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out_dir = std::string(TLAB_SOURCE_DIR) + "/tuning";
  Selection sel;  // --class, --placement: tune these alone and keep the table's other rows
  TimingPolicy policy;
  policy.warmup = 1;
  policy.min_reps = 7;
  policy.max_reps = 200;
  policy.budget_s = 0.1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--out" && i + 1 < argc) out_dir = argv[++i];
    else if (a == "--class" && i + 1 < argc) {
      std::stringstream list(argv[++i]);
      for (std::string name; std::getline(list, name, ',');) {
        if (std::none_of(tuning::cases().begin(), tuning::cases().end(), [&](const tuning::Case& c) { return c.shape_class == name; }))
          return usage(("no shape class '" + name + "'").c_str());
        sel.classes.insert(name);
      }
      if (sel.classes.empty()) return usage("--class wants a name");
    } else if (a == "--placement" && i + 1 < argc) {
      sel.placement = argv[++i];
      if (sel.placement != placement_name(Placement::in_place) && sel.placement != placement_name(Placement::out_of_place))
        return usage(("no placement '" + sel.placement + "'").c_str());
    } else if (a == "--budget" && i + 1 < argc) {
      policy.budget_s = std::atof(argv[++i]);
      if (!(policy.budget_s > 0 && policy.budget_s <= 60)) return usage("--budget wants seconds in (0, 60]");
    } else if (a == "--help" || a == "-h") {
      std::cout << "tlab-tune [--out DIR] [--budget SECONDS] [--class NAME[,NAME...]] [--placement in-place|out-of-place]:\n"
                   "measure every candidate kernel on this GPU and write DIR/<gpu>.tsv (default DIR: the source\n"
                   "tree's tuning/); with --class or --placement, only those shape classes or that placement,\n"
                   "keeping the table's rows for the others\n";
      return 0;
    } else {
      return usage(("unknown argument '" + a + "'").c_str());
    }
  }
  std::string why;
  Executor* gpu = executor_for(Backend::gpu, &why);
  if (!gpu) {
    std::cerr << "tlab-tune: nothing to tune: " << why << "\n";
    return 1;
  }
  const DeviceInfo dev = current_device();
  std::vector<tuning::Row> rows;
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  const Variant& memcpy_v = registry().get("gpu/memcpy");
  try {
    for (DType t : {DType::u8, DType::u16, DType::f32, DType::f64, DType::c128})
      for (const tuning::Case& c : tuning::cases()) {
        if (!sel.has(c.shape_class, placement_name(c.placement))) continue;
        std::vector<Shape> shapes;
        for (const Shape& s : tuning::shapes_of(c, dtype_size(t))) {
          // A shape this GPU or host cannot hold is left out (said once), not a failed tuning run.
          const double bytes = static_cast<double>(s.elements()) * static_cast<double>(dtype_size(t));
          if (gpu->bytes_needed(t, s) > gpu->bytes_free() || !host_holds(3.0 * bytes)) {
            std::cout << dtype_name(t) << " " << placement_name(c.placement) << " " << c.shape_class << ": "
                      << to_string(s) << " left out: too large for this machine's memory\n";
            continue;
          }
          shapes.push_back(s);
        }
        if (shapes.empty()) continue;
        std::vector<const Variant*> cands;
        for (const Variant& v : registry().all())
          if (candidate(v) && std::all_of(shapes.begin(), shapes.end(), [&](const Shape& s) {
                return tuning::usable(v, t, s, c.placement, Backend::gpu);
              }))
            cands.push_back(&v);
        if (cands.empty()) continue;
        // A kernel's score: the geometric mean over the class's shapes of its share of memcpy
        // in the same pass. Shapes are the outer loop: the executor keeps one input at a time.
        // The second pass walks the shapes backwards and so starts on the input the first ended on.
        const auto score = [&](const std::vector<const Variant*>& vs, bool backwards) {
          std::vector<double> log_sum(vs.size(), 0.0);
          for (std::size_t k = 0; k < shapes.size(); ++k) {
            const Shape& s = shapes[backwards ? shapes.size() - 1 - k : k];
            const double copy = bandwidth_gbs(gpu->run({&memcpy_v, t, s}, policy));
            for (std::size_t i = 0; i < vs.size(); ++i) log_sum[i] += std::log(bandwidth_gbs(gpu->run({vs[i], t, s}, policy)) / copy);
          }
          for (double& x : log_sum) x = std::exp(x / static_cast<double>(shapes.size()));
          return log_sum;
        };
        const std::vector<double> first = score(cands, false);
        std::vector<std::pair<double, const Variant*>> scored;
        for (std::size_t i = 0; i < cands.size(); ++i) scored.push_back({first[i], cands[i]});
        // The three best measured twice more (shapes backwards, then forwards), each score the
        // mean of its three: one lucky or unlucky run cannot decide between kernels that close.
        std::sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        const std::size_t finalists = std::min<std::size_t>(3, scored.size());
        std::vector<const Variant*> top;
        for (std::size_t i = 0; i < finalists; ++i) top.push_back(scored[i].second);
        const std::vector<double> again = score(top, true), third = score(top, false);
        for (std::size_t i = 0; i < finalists; ++i) scored[i].first = (scored[i].first + again[i] + third[i]) / 3;
        const auto best = std::max_element(scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(finalists));
        std::string at;
        for (const Shape& s : shapes) at += (at.empty() ? "" : ", ") + to_string(s);
        char note[200];
        std::snprintf(note, sizeof note, "%.1f%% of memcpy (geometric mean at %s), best of %zu (tlab-tune %s)",
                      100 * best->first, at.c_str(), scored.size(), date);
        rows.push_back({dev.name, static_cast<int>(dtype_size(t)), placement_name(c.placement), c.shape_class,
                        best->second->name, note, ""});
        std::cout << dtype_name(t) << " " << placement_name(c.placement) << " " << c.shape_class << ": "
                  << best->second->name << "  " << note << std::endl;
      }
    const std::string path = out_dir + "/" + tuning::file_name_for(dev.name);
    std::vector<tuning::Row> table = kept_rows(path, sel);
    table.insert(table.end(), rows.begin(), rows.end());
    // By element size, then in the order of cases(), as a full run writes them.
    const auto order = [](const tuning::Row& r) {
      const auto& cs = tuning::cases();
      const auto at = std::find_if(cs.begin(), cs.end(), [&](const tuning::Case& c) {
        return c.shape_class == r.shape && placement_name(c.placement) == r.placement;
      });
      return std::make_pair(r.elem_bytes, at - cs.begin());
    };
    std::stable_sort(table.begin(), table.end(), [&](const tuning::Row& x, const tuning::Row& y) { return order(x) < order(y); });
    tuning::write_table(path, table);
    std::cout << "tlab-tune: wrote " << path << "\n";
  } catch (const std::exception& e) {
    std::cerr << "tlab-tune: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
