// tlab-tune: measures the candidate kernels for every element size, placement and shape
// class on this GPU and writes the tuning table tlab::Plan reads (src/tlab/api/tuning.hpp).
// Each candidate is verified exactly before it is timed, as in the experiments.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <iostream>
#include <string>
#include <vector>

#include "tlab/api/tuning.hpp"
#include "tlab/device_memory.hpp"
#include "tlab/executor.hpp"
#include "tlab/results.hpp"

using namespace tlab;

namespace {

struct Case {
  Placement placement;
  std::string shape_class;
  Shape shape;
};

// One representative shape per class: large enough that the memory system, not launch
// latency, decides (except "small", where latency is the point).
const std::vector<Case>& cases() {
  static const std::vector<Case> c{{Placement::out_of_place, "square", {8192, 8192}},
                                   {Placement::out_of_place, "tall", {16384, 1024}},
                                   {Placement::out_of_place, "wide", {1024, 16384}},
                                   {Placement::out_of_place, "small", {512, 512}},
                                   {Placement::out_of_place, "unaligned", {8191, 8191}},
                                   {Placement::out_of_place, "odd", {0, 0}},  // per element size: odd_side()
                                   {Placement::out_of_place, "medium", {2048, 2048}},
                                   {Placement::in_place, "unaligned", {8191, 8191}},
                                   {Placement::in_place, "square", {8192, 8192}},
                                   {Placement::in_place, "rect", {8192, 2048}}};
  return c;
}

// The side just above 8192 whose rows of `elem`-byte elements are whole 16-byte words but
// not whole 128-byte lines (8208 bytes, 8200 uint16, 8196 float, 8194 double, 8193 complex128).
std::int64_t odd_side(std::size_t elem) { return 8192 + std::max<std::int64_t>(16 / static_cast<std::int64_t>(elem), 1); }

// The families worth tuning over: our kernels that can win somewhere (not the seeds'
// naive ones, not the peers, not the plan itself).
bool candidate(const Variant& v) {
  for (const char* f : {"gpu-word", "gpu-word-inplace", "gpu-unrolled", "gpu-rect", "gpu-tiled", "gpu-inplace-tiled",
                        "gpu-inplace-rect"})
    if (v.family == f) return true;
  return false;
}

int usage(const char* why) {
  std::cerr << "tlab-tune: " << why << "\nusage: tlab-tune [--out DIR] [--budget SECONDS]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out_dir = std::string(TLAB_SOURCE_DIR) + "/tuning";
  TimingPolicy policy;
  policy.warmup = 1;
  policy.min_reps = 7;
  policy.max_reps = 200;
  policy.budget_s = 0.1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--out" && i + 1 < argc) out_dir = argv[++i];
    else if (a == "--budget" && i + 1 < argc) {
      policy.budget_s = std::atof(argv[++i]);
      if (!(policy.budget_s > 0 && policy.budget_s <= 60)) return usage("--budget wants seconds in (0, 60]");
    } else if (a == "--help" || a == "-h") {
      std::cout << "tlab-tune [--out DIR] [--budget SECONDS]: measure every candidate kernel on this GPU and\n"
                   "write DIR/<gpu>.tsv (default DIR: the source tree's tuning/)\n";
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
      for (Case c : cases()) {
        if (c.shape_class == "odd") c.shape = {odd_side(dtype_size(t)), odd_side(dtype_size(t))};
        if (tuning::shape_class(c.shape, c.placement, dtype_size(t)) != c.shape_class) continue;  // 16 B: always aligned
        const double copy = bandwidth_gbs(gpu->run({&memcpy_v, t, c.shape}, policy));
        std::string best;
        double best_gbs = 0;
        int tried = 0;
        for (const Variant& v : registry().all()) {
          if (!candidate(v) || !tuning::usable(v, t, c.shape, c.placement, Backend::gpu)) continue;
          const double gbs = bandwidth_gbs(gpu->run({&v, t, c.shape}, policy));
          ++tried;
          if (gbs > best_gbs) best_gbs = gbs, best = v.name;
        }
        if (best.empty()) continue;
        char note[160];
        std::snprintf(note, sizeof note, "%.0f GB/s, %.1f%% of memcpy at %s, best of %d (tlab-tune %s)", best_gbs,
                      100 * best_gbs / copy, to_string(c.shape).c_str(), tried, date);
        rows.push_back({dev.name, static_cast<int>(dtype_size(t)), placement_name(c.placement), c.shape_class, best, note, ""});
        std::cout << dtype_name(t) << " " << placement_name(c.placement) << " " << c.shape_class << ": " << best << "  "
                  << note << std::endl;
      }
    const std::string path = out_dir + "/" + tuning::file_name_for(dev.name);
    tuning::write_table(path, rows);
    std::cout << "tlab-tune: wrote " << path << "\n";
  } catch (const std::exception& e) {
    std::cerr << "tlab-tune: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
