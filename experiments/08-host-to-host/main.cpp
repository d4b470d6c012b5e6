// Experiment 08: a transpose of data that lives in host memory. Where the time goes
// (H2D, kernel, D2H) for pageable, pinned and managed memory with cudaMemcpy and
// cudaMemcpyAsync (seed 001), and the streamed pipeline with depth-first and breadth-first
// issue orders (seed 003) against the pinned-copy roofline measured in the same run.
#include <algorithm>
#include <iostream>

#include "tlab/experiment.hpp"
#include "tlab/host_paths.hpp"

namespace {
double median_where(const std::vector<tlab::HostPathRow>& rows, const std::string& c, const std::string& m,
                    const std::string& api, const std::string& phase) {
  for (const auto& r : rows)
    if (r.case_name == c && r.memory == m && r.api == api && r.phase == phase) return r.summary.median;
  return -1;
}
}  // namespace

int main(int argc, char** argv) {
  tlab::ExperimentSpec spec{"08-host-to-host", "host-to-host transposes: copy/kernel breakdown and the streamed pipeline",
                            tlab::parse_sizes("16384,32768x8192"), tlab::parse_sizes("2048")};
  return tlab::experiment_main(argc, argv, spec, [](tlab::ExperimentRun& run) {
    const tlab::Options& opt = run.options();
    // This experiment measures float paths, not registered variants: say so instead of
    // silently ignoring the options.
    if (!opt.types.empty() || opt.variant_glob != "*")
      throw tlab::UsageError("--types and --variants do not apply to this experiment (float host paths)");
    // Pinned in and out, pageable in and out, managed in and out, reference, input copy.
    for (const tlab::Shape& s : opt.shapes)
      tlab::require_host_memory(tlab::to_string(s) + " float", 8.0 * static_cast<double>(s.elements()) * 4);
    if (opt.list) {
      for (const tlab::Shape& s : opt.shapes) std::cout << "host paths float " << tlab::to_string(s) << "\n";
      return;
    }
    const std::string load_at_start = tlab::load_average();
    std::vector<tlab::HostPathRow> rows;
    std::vector<tlab::SummaryRow> summary;
    for (const tlab::Shape& s : opt.shapes) {
      const tlab::DType t = tlab::DType::f32;
      std::vector<tlab::PipelineOptions> pipelines;
      // Zero copy: the kernel itself loads and stores the pinned host matrices over the bus.
      // Measured first, right after the copies they are compared with (the copy engines'
      // rate drifts over a run; the SMs' rate does not: performance notes, section 6).
      for (const char* k : {"gpu/tiled/t32-pad", "gpu/unrolled/t32x4-pad", "gpu/unrolled/t64x4-pad", "gpu/rect/r32c128x8",
                            "gpu/rect/r32c256x8", "gpu/rect/r64c32x8", "gpu/rect/r128c32x8", "gpu/rect/r64c128x8",
                            "gpu/rect/r128c64x8", "gpu/rect/r256c32x8", "gpu/rect/r128c32x16"}) {
        tlab::PipelineOptions o;
        o.kernel = k;
        o.access = tlab::HostAccess::mapped;
        o.streams = 1;
        pipelines.push_back(o);
      }
      // Block shapes: full-width row panels of 1024 and 4096 rows (output rows of 4 and 16
      // KiB), square-ish blocks, and column stripes; each with 1..4 streams, both orders.
      const std::int64_t all = s.cols;
      // Column stripes (all rows x w) make every D2H contiguous and put the stride on the reads.
      const std::int64_t all_rows = s.rows;
      for (auto [pr, pc] : {std::pair<std::int64_t, std::int64_t>{1024, all}, {4096, all}, {4096, 4096}, {2048, 8192},
                            {all_rows, 1024}, {all_rows, 4096}})
        for (int streams : {1, 2, 3, 4})
          for (auto order : {tlab::IssueOrder::depth_first, tlab::IssueOrder::breadth_first}) {
            tlab::PipelineOptions o{pr, pc, streams, order, tlab::PipelineOptions{}.kernel};
            // Small matrices clamp several block shapes to the same one: measure it once.
            o.panel_rows = tlab::pipeline_panel_rows(o, s, tlab::DType::f32);
            o.panel_cols = tlab::pipeline_panel_cols(o, s, tlab::DType::f32);
            const bool seen = std::any_of(pipelines.begin(), pipelines.end(), [&](const tlab::PipelineOptions& q) {
              return q.access == o.access && q.panel_rows == o.panel_rows && q.panel_cols == o.panel_cols &&
                     q.streams == o.streams && q.order == o.order;
            });
            if (!seen) pipelines.push_back(o);
          }
      // Copies in, stores out: row panels (contiguous copies in) whose transposes the kernel
      // stores straight into the pinned output, in 512-byte pieces (128-row tiles).
      for (std::int64_t pr : {512, 1024})
        for (int streams : {2, 4})
          for (auto order : {tlab::IssueOrder::depth_first, tlab::IssueOrder::breadth_first}) {
            tlab::PipelineOptions o{pr, s.cols, streams, order, "gpu/rect/r128c32x8"};
            o.access = tlab::HostAccess::copy_in;
            pipelines.push_back(o);
          }
      std::string why;
      std::cerr << "[08-host-to-host] " << tlab::to_string(s) << " float\n";
      auto got = tlab::measure_host_paths(t, s, opt.timing, pipelines, &why);
      if (got.empty()) {
        std::cerr << "[08-host-to-host] skipping: " << why << "\n";
        return;
      }
      const std::string at = std::string("float ") + tlab::to_string(s);
      const double both = median_where(got, "roofline", "pinned", "copy", "both");
      const double sm_copy = median_where(got, "roofline", "pinned", "sm-copy", "both");
      for (const auto& r : got) {
        const std::string kernel = r.pipeline.kernel.substr(r.pipeline.kernel.find('/') + 1);
        if (r.case_name == "mapped" && both > 0)
          summary.push_back({"pct-of-pinned-copies", "mapped/" + kernel, tlab::format_number(100 * both / r.summary.median, 4),
                             "%", at, "float", s.rows, s.cols});
        if (r.case_name == "mapped" && sm_copy > 0)
          summary.push_back({"pct-of-sm-copy", "mapped/" + kernel, tlab::format_number(100 * sm_copy / r.summary.median, 4),
                             "%", at, "float", s.rows, s.cols});
        if (r.case_name == "roofline" && r.phase == "both" && r.api != "copy" && both > 0)
          summary.push_back({"pct-of-pinned-copies", r.api, tlab::format_number(100 * both / r.summary.median, 4), "%",
                             at, "float", s.rows, s.cols});
        if ((r.case_name == "pipeline" || r.case_name == "copy-in") && both > 0)
          summary.push_back({"pct-of-pinned-copies", std::string(r.case_name == "copy-in" ? "copy-in/" : "") +
                                                         tlab::issue_order_name(r.pipeline.order) + "/s" +
                                                         std::to_string(r.pipeline.streams) + "/b" +
                                                         std::to_string(r.pipeline.panel_rows) + "x" +
                                                         std::to_string(r.pipeline.panel_cols),
                             tlab::format_number(100 * both / r.summary.median, 4), "%", at, "float", s.rows, s.cols});
        if (r.case_name == "breakdown" && r.phase != "total") {
          const double total = median_where(got, "breakdown", r.memory, r.api, "total");
          summary.push_back({"share-of-total", r.memory + "/" + r.api + "/" + r.phase,
                             tlab::format_number(100 * r.summary.median / total, 4), "%", at, "float", s.rows, s.cols});
        }
      }
      rows.insert(rows.end(), got.begin(), got.end());
    }
    tlab::write_experiment_files(opt, tlab::host_paths_csv(opt.experiment, rows), summary, load_at_start);
  });
}
