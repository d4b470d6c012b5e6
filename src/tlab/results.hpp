// The tidy results CSV (one row per configuration; columns in docs/csv-schema.md) and the
// small derived-numbers CSV an experiment may add for its report section.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tlab/executor.hpp"

namespace tlab {

const std::vector<std::string>& results_columns();
std::vector<std::string> results_row(const std::string& experiment, const Result& r);
std::string results_csv(const std::string& experiment, const std::vector<Result>& rs);

// Derived numbers (speedups, winners) computed by an experiment from its own results.
struct SummaryRow {
  std::string metric;   // what the value is, e.g. "speedup-O0-to-O3"
  std::string subject;  // what it is about, e.g. a variant or family name
  std::string value;
  std::string unit;
  std::string detail;   // the configuration it was computed at, e.g. "int32 16384x16384"
  std::string dtype;    // the configuration again, as plottable columns ("" where not one)
  std::int64_t rows = 0, cols = 0;
};
const std::vector<std::string>& summary_columns();
std::string summary_csv(const std::string& experiment, const std::vector<SummaryRow>& rows);

// Median seconds of the result for (variant name, dtype, shape), or a negative number if absent.
double median_of(const std::vector<Result>& rs, const std::string& variant, DType t, Shape s);
double bandwidth_gbs(const Result& r);  // bytes moved / median time, in GB/s (1e9 bytes)

std::string format_number(double v, int significant = 6);

// The timing columns every measurement CSV shares, and their values for one measurement.
const std::vector<std::string>& timing_columns();  // reps, stop, median_s .. ci_hi_s
std::vector<std::string> timing_fields(const Summary& s, const std::string& stop);

}  // namespace tlab
