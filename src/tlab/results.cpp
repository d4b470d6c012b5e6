#include "tlab/results.hpp"

#include <cstdio>

#include "tlab/csv.hpp"

namespace tlab {

const std::vector<std::string>& results_columns() {
  static const std::vector<std::string> cols{
      "experiment", "variant", "family", "backend", "placement", "params", "dtype", "elem_bytes",
      "rows", "cols", "bytes_moved", "cache", "reps", "stop", "median_s", "mean_s", "min_s",
      "max_s", "ci_lo_s", "ci_hi_s", "gbs", "gbs_ci_lo", "gbs_ci_hi", "verified"};
  return cols;
}

std::string format_number(double v, int significant) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", significant, v);
  return buf;
}

const std::vector<std::string>& timing_columns() {
  static const std::vector<std::string> cols{"reps", "stop", "median_s", "mean_s", "min_s", "max_s", "ci_lo_s", "ci_hi_s"};
  return cols;
}

std::vector<std::string> timing_fields(const Summary& s, const std::string& stop) {
  return {std::to_string(s.n),     stop,
          format_number(s.median), format_number(s.mean),
          format_number(s.min),    format_number(s.max),
          format_number(s.ci_lo),  format_number(s.ci_hi)};
}

double bandwidth_gbs(const Result& r) {
  const double bytes = static_cast<double>(r.config.variant->bytes_moved(r.config.dtype, r.config.shape));
  return bytes / r.timed.summary.median / 1e9;
}

std::vector<std::string> results_row(const std::string& experiment, const Result& r) {
  const Variant& v = *r.config.variant;
  const Summary& s = r.timed.summary;
  const double bytes = static_cast<double>(v.bytes_moved(r.config.dtype, r.config.shape));
  // The bandwidth interval is the time interval inverted: the slow end bounds it below.
  std::vector<std::string> row{experiment,
          v.name,
          v.family,
          backend_name(v.backend),
          placement_name(v.placement),
          v.params_string(),
          dtype_name(r.config.dtype),
          std::to_string(dtype_size(r.config.dtype)),
          std::to_string(r.config.shape.rows),
          std::to_string(r.config.shape.cols),
          format_number(bytes, 15),
          r.cache};
  for (auto& f : timing_fields(s, r.timed.stop)) row.push_back(std::move(f));
  for (double t : {s.median, s.ci_hi, s.ci_lo}) row.push_back(format_number(bytes / t / 1e9));
  row.push_back("yes");
  return row;
}

std::string results_csv(const std::string& experiment, const std::vector<Result>& rs) {
  std::string out = csv_line(results_columns());
  for (const auto& r : rs) out += csv_line(results_row(experiment, r));
  return out;
}

const std::vector<std::string>& summary_columns() {
  static const std::vector<std::string> cols{"experiment", "metric", "subject", "value", "unit",
                                                "detail",     "dtype",  "rows",    "cols"};
  return cols;
}

std::string summary_csv(const std::string& experiment, const std::vector<SummaryRow>& rows) {
  std::string out = csv_line(summary_columns());
  for (const auto& r : rows)
    out += csv_line({experiment, r.metric, r.subject, r.value, r.unit, r.detail, r.dtype,
                     r.rows ? std::to_string(r.rows) : "", r.cols ? std::to_string(r.cols) : ""});
  return out;
}

double median_of(const std::vector<Result>& rs, const std::string& variant, DType t, Shape s) {
  for (const auto& r : rs)
    if (r.config.variant->name == variant && r.config.dtype == t && r.config.shape == s)
      return r.timed.summary.median;
  return -1;
}

}  // namespace tlab
