// Experiment 10: a square float matrix larger than the GPU's memory (by default 1.5 times
// it), in host memory, transposed in place through the GPU: staged (tile pairs copied
// through device buffers on streams) and mapped (one in-place kernel on the page-locked
// matrix itself), against the pinned copies in both directions measured in the same run.
#include <cmath>
#include <iostream>

#include "tlab/csv.hpp"
#include "tlab/experiment.hpp"
#include "tlab/out_of_core.hpp"

namespace {
constexpr double kTimesDeviceMemory = 1.5;

struct Named {
  std::string name;
  tlab::OutOfCoreMethod method;
};

const std::vector<Named>& methods() {
  static const std::vector<Named> m{
      {"staged/b8192-s3", {"staged", "gpu/unrolled/t32x4-pad", 8192, 3}},
      {"staged/b4096-s4", {"staged", "gpu/unrolled/t32x4-pad", 4096, 4}},
      {"mapped/inplace-tiled-t32x8", {"mapped", "gpu/inplace-tiled/t32x8", 0, 0}},
      {"mapped/inplace-tiled-t32x32", {"mapped", "gpu/inplace-tiled/t32x32", 0, 0}},
  };
  return m;
}
}  // namespace

int main(int argc, char** argv) {
  // No default sizes: the full run picks the side from the device's memory.
  tlab::ExperimentSpec spec{"10-out-of-core",
                            "in-place transpose of a host matrix larger than the GPU (default 1.5x its memory)",
                            {}, tlab::parse_sizes("4096")};
  return tlab::experiment_main(argc, argv, spec, [](tlab::ExperimentRun& run) {
    const tlab::Options& opt = run.options();
    if (!opt.types.empty()) throw tlab::UsageError("--types does not apply to this experiment (float only)");
    std::vector<Named> chosen;
    for (const Named& m : methods())
      if (tlab::glob_match(opt.variant_glob, m.name)) chosen.push_back(m);
    if (chosen.empty()) throw tlab::UsageError("--variants '" + opt.variant_glob + "' matches none of this experiment's methods");
    for (const tlab::Shape& s : opt.shapes)
      if (!s.square()) throw tlab::UsageError("--sizes: the in-place transpose needs square sizes, not " + tlab::to_string(s));
    if (opt.list) {
      for (const Named& m : chosen) std::cout << m.name << "\n";
      return;
    }
    std::string why;
    const double device = tlab::device_memory_bytes(&why);
    if (device == 0) {
      std::cerr << "[10-out-of-core] skipping: " << why << "\n";
      return;
    }
    std::vector<tlab::Shape> shapes = opt.shapes;
    if (shapes.empty()) {  // the smallest square of floats at least kTimesDeviceMemory x the device
      const auto n = static_cast<std::int64_t>(std::ceil(std::sqrt(kTimesDeviceMemory * device / sizeof(float))));
      try {
        tlab::require_host_memory(tlab::to_string(tlab::Shape{n, n}) + " float",
                                  static_cast<double>(n) * n * sizeof(float) + (2.0 * (1 << 30)));
      } catch (const tlab::ResourceError& e) {
        std::cerr << "[10-out-of-core] skipping the default size: " << e.what() << "\n";
        return;
      }
      shapes.push_back({n, n});
    }
    // The matrix, and two pinned GiB for the copy ceiling measured before it is allocated.
    for (const tlab::Shape& s : shapes)
      tlab::require_host_memory(tlab::to_string(s) + " float", static_cast<double>(s.elements()) * sizeof(float) + 2.0 * (1 << 30));
    // The first (verified) transpose of each method is its warm-up.
    tlab::TimingPolicy policy = opt.timing;
    policy.warmup = 0;
    const std::string load_at_start = tlab::load_average();
    std::vector<std::string> header{"experiment", "method",  "access",      "kernel", "block",       "streams",
                                    "host_memory", "dtype", "elem_bytes", "rows",   "cols",        "matrix_bytes",
                                    "device_memory_bytes", "times_device_memory", "bytes_moved"};
    for (const auto& c : tlab::timing_columns()) header.push_back(c);
    for (const char* c : {"gbs", "pct_of_copy_both_ways", "verified"}) header.push_back(c);
    std::string csv = tlab::csv_line(header);
    std::vector<tlab::SummaryRow> summary;
    std::vector<tlab::OutOfCoreMethod> list;
    for (const Named& m : chosen) list.push_back(m.method);
    for (const tlab::Shape& s : shapes) {
      std::cerr << "[10-out-of-core] " << tlab::to_string(s) << " float: "
                << tlab::format_number(s.elements() * 4.0 / device, 3) << " x the device's memory\n";
      const tlab::OutOfCoreRun r = tlab::measure_out_of_core(s.rows, list, policy, &why);
      const double matrix = static_cast<double>(s.elements()) * sizeof(float);
      const double ceiling = 2 * r.copy_bytes / r.copy_both_ways.summary.median;
      auto line = [&](const std::string& name, const tlab::OutOfCoreMethod& m, const std::string& rows,
                      const std::string& cols, double mat, double moved, const tlab::Timed& t, const std::string& host) {
        std::vector<std::string> f{opt.experiment, name, m.access, m.kernel,
                                   m.block ? std::to_string(m.block) : "", m.streams ? std::to_string(m.streams) : "",
                                   host, "float", "4", rows, cols, tlab::format_number(mat, 15),
                                   tlab::format_number(device, 15), tlab::format_number(mat / device, 4),
                                   tlab::format_number(moved, 15)};
        for (auto& x : tlab::timing_fields(t.summary, t.stop)) f.push_back(std::move(x));
        const double gbs = moved / t.summary.median;
        f.push_back(tlab::format_number(gbs / 1e9));
        f.push_back(tlab::format_number(100 * gbs / ceiling, 4));
        f.push_back("yes");
        csv += tlab::csv_line(f);
      };
      line("copy-both-ways", {"copy", "", 0, 0}, "", "", r.copy_bytes, 2 * r.copy_bytes, r.copy_both_ways, "pinned");
      const std::string at = "float " + tlab::to_string(s);
      for (const tlab::OutOfCoreRow& row : r.rows) {
        std::string name;
        for (const Named& m : chosen)
          if (m.method.access == row.method.access && m.method.kernel == row.method.kernel &&
              m.method.block == row.method.block && m.method.streams == row.method.streams)
            name = m.name;
        line(name, row.method, std::to_string(s.rows), std::to_string(s.cols), matrix, 2 * matrix, row.timed, r.host_memory);
        const double pct = 100 * (2 * matrix / row.timed.summary.median) / ceiling;
        summary.push_back({"pct-of-copy-both-ways", name, tlab::format_number(pct, 4), "%", at, "float", s.rows, s.cols});
        std::cerr << "[10-out-of-core] " << name << ": median " << tlab::format_number(row.timed.summary.median, 4)
                  << " s, " << tlab::format_number(pct, 3) << "% of the pinned copies both ways\n";
      }
      for (const std::string& w : r.skipped) std::cerr << "[10-out-of-core] skipped " << w << "\n";
      summary.push_back({"times-device-memory", "matrix", tlab::format_number(matrix / device, 4), "x", at, "float",
                         s.rows, s.cols});
    }
    tlab::write_experiment_files(opt, csv, summary, load_at_start);
  });
}
