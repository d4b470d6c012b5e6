// Experiment 06: how close each family's best kernel, and cuBLAS, get to a device-to-device
// memcpy measured in the same run: square, non-multiples of the tile, and rectangular.
// It also sets the seeds' published GPU tables beside ours, each as a percentage of its own
// GPU's peak bandwidth (and, for seed 004, of its own memcpy).
#include <cstdlib>
#include <string>

#include "tlab/experiment.hpp"
#include "tlab/published.hpp"

namespace {
double number(const tlab::Record& r, const std::string& key) { return std::strtod(r.at(key).c_str(), nullptr); }

std::string gpu_peak_gbs() {
  tlab::Executor* gpu = tlab::executor_for(tlab::Backend::gpu, nullptr);
  for (const auto& kv : gpu->describe())
    if (kv.first == "gpu_peak_bandwidth_gbs") return kv.second;
  return "";
}

struct Published {
  std::vector<tlab::Record> seed000, seed004;
};

// Read before the sweep: a missing or malformed table must fail in a second, not after it.
Published read_published() {
  const std::string dir = tlab::published_dir();
  return {tlab::read_records(dir + "/000-gpu-bandwidth.csv", {"gpu", "peak_gbs", "variant", "n", "gbs"}),
          tlab::read_records(dir + "/004-a800.csv", {"gpu", "peak_gbs", "variant", "n", "gbs"})};
}

void add_published_comparison(tlab::ExperimentRun& run, const Published& pub) {
  for (const auto& r : pub.seed000) {
    if (r.at("variant").rfind("gpu_", 0) != 0) continue;
    run.add_summary({"published-pct-of-peak", "seed000/" + r.at("variant"),
                     tlab::format_number(100 * number(r, "gbs") / number(r, "peak_gbs"), 4), "%",
                     r.at("gpu") + " int " + r.at("n"), "int32", std::atoll(r.at("n").c_str()),
                     std::atoll(r.at("n").c_str())});
  }
  const auto& seed004 = pub.seed004;
  double memcpy004 = 0;
  for (const auto& r : seed004)
    if (r.at("variant") == "memcpy") memcpy004 = number(r, "gbs");
  for (const auto& r : seed004) {
    const std::int64_t n = std::atoll(r.at("n").c_str());
    const std::string at = r.at("gpu") + " float " + r.at("n");
    run.add_summary({"published-pct-of-peak", "seed004/" + r.at("variant"),
                     tlab::format_number(100 * number(r, "gbs") / number(r, "peak_gbs"), 4), "%", at, "float", n, n});
    if (memcpy004 > 0)
      run.add_summary({"published-pct-of-memcpy", "seed004/" + r.at("variant"),
                       tlab::format_number(100 * number(r, "gbs") / memcpy004, 4), "%", at, "float", n, n});
  }
  const double peak = std::strtod(gpu_peak_gbs().c_str(), nullptr);
  if (peak <= 0) return;
  for (const auto& res : run.results())
    run.add_summary({"pct-of-peak", res.config.variant->name, tlab::format_number(100 * tlab::bandwidth_gbs(res) / peak, 4),
                     "%", std::string(tlab::dtype_name(res.config.dtype)) + " " + tlab::to_string(res.config.shape),
                     tlab::dtype_name(res.config.dtype), res.config.shape.rows, res.config.shape.cols});
}
}  // namespace

int main(int argc, char** argv) {
  tlab::ExperimentSpec spec{"06-gpu-roofline", "each family's best transpose and cuBLAS as a percentage of memcpy",
                            tlab::parse_sizes("1024,2048,4000,4096,5000,8192,16384,16384x1024,1024x16384"),
                            tlab::parse_sizes("1000,1024,1024x256")};
  return tlab::experiment_main(argc, argv, spec, [](tlab::ExperimentRun& run) {
    const Published published = read_published();
    const auto& shapes = run.options().shapes;
    tlab::Shape largest_square{0, 0};
    for (const auto& s : shapes)
      if (s.square() && s.rows > largest_square.rows) largest_square = s;
    run.run({tlab::variants_matching({"gpu/naive-rowread/b16", "gpu/naive-rowread/b32", "gpu/naive-colread/b16",
                                      "gpu/naive-colread/b32", "gpu/tiled/t16-pad", "gpu/tiled/t32-pad",
                                      "gpu/tiled/t32-swizzle", "gpu/unrolled/t32x8-pad", "gpu/unrolled/t32x8-swizzle",
                                      "gpu/unrolled/t32x16-swizzle", "gpu/unrolled/t64x16-swizzle", "gpu/unrolled/t32x4-pad",
                                      "gpu/unrolled/t64x4-pad",
                                      "gpu/inplace-naive/b16", "gpu/inplace-naive/b32", "gpu/inplace-tiled/*",
                                      "gpu/cublas-geam", "gpu/copy-kernel", "gpu/memcpy"}),
             {tlab::DType::f32, tlab::DType::f64}, shapes});
    // Seed 000's Table II is int32 in place: the same kernels here, at the largest square size.
    if (largest_square.rows > 0) run.run({tlab::variants_matching({"gpu/inplace-naive/b*", "gpu/inplace-tiled/*", "gpu/tiled/t16-pad", "gpu/memcpy"}),
             {tlab::DType::i32}, {largest_square}});
    if (run.results().empty()) return;
    tlab::add_percent_of(run, "gpu/memcpy");
    tlab::add_best_of_family(run);
    add_published_comparison(run, published);
  });
}
