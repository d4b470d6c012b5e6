// Experiment 09: sorting a matrix so that every row and column is non-decreasing (seed 003).
// CPU baselines for now: one pass sequential and threaded, and the seed's repeat-until-sorted
// loop with its iteration count. Each sample sorts a fresh copy of the same unsorted input.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <iostream>
#include <memory>

#include "tlab/csv.hpp"
#include "tlab/experiment.hpp"
#include "tlab/reference.hpp"
#include "tlab/sort/sort_variants.hpp"

int main(int argc, char** argv) {
  tlab::ExperimentSpec spec{"09-matrix-sort", "row-and-column matrix sort: CPU baselines and the seed's loop",
                            tlab::parse_sizes("1024,2048,4096,4096x1024,1024x4096"),
                            tlab::parse_sizes("256,1024,1024x256")};
  return tlab::experiment_main(argc, argv, spec, [](tlab::ExperimentRun& run) {
    const tlab::Options& opt = run.options();
    for (tlab::DType t : opt.types)
      if (std::find(tlab::sort::sort_types().begin(), tlab::sort::sort_types().end(), t) == tlab::sort::sort_types().end())
        throw tlab::UsageError(std::string("--types: the matrix sort has no ") + tlab::dtype_name(t) +
                               " version (int32, float, double)");
    // Input and work copy, of the widest type.
    for (const tlab::Shape& s : opt.shapes)
      tlab::require_host_memory(tlab::to_string(s), 2.0 * static_cast<double>(s.elements()) * 8);
    const std::string load_at_start = tlab::load_average();
    std::vector<std::string> header{"experiment", "variant", "dtype", "elem_bytes", "rows", "cols", "threads", "iterations"};
    for (const auto& c : tlab::timing_columns()) header.push_back(c);
    header.push_back("elements_per_s");
    header.push_back("verified");
    std::string csv = tlab::csv_line(header);
    std::vector<tlab::SummaryRow> summary;
    std::size_t rows = 0;
    for (tlab::DType t : tlab::sort::sort_types()) {
      if (!opt.types.empty() && std::find(opt.types.begin(), opt.types.end(), t) == opt.types.end()) continue;
      for (const tlab::Shape& s : opt.shapes) {
        const std::size_t bytes = static_cast<std::size_t>(s.elements()) * tlab::dtype_size(t);
        std::unique_ptr<unsigned char[]> input(new unsigned char[bytes]), work(new unsigned char[bytes]);
        tlab::fill_random(input.get(), s.elements(), t);
        const std::uint64_t print = tlab::sort::multiset_fingerprint(input.get(), s.elements(), t);
        for (const auto& v : tlab::sort::sort_variants()) {
          if (!tlab::glob_match(opt.variant_glob, v.name)) continue;
          const std::string label = v.name + " " + tlab::dtype_name(t) + " " + tlab::to_string(s);
          if (opt.list) {
            std::cout << label << "\n";
            continue;
          }
          std::cerr << "[09-matrix-sort] " << label << std::flush;
          std::memcpy(work.get(), input.get(), bytes);
          const int iterations = v.run(t, work.get(), s);
          if (!tlab::sort::rows_and_columns_sorted(work.get(), s, t) ||
              tlab::sort::multiset_fingerprint(work.get(), s.elements(), t) != print)
            throw tlab::VerificationError(label + ": not a sorted permutation of the input");
          auto sample = [&] {
            std::memcpy(work.get(), input.get(), bytes);  // fresh unsorted data, not timed
            const auto t0 = std::chrono::steady_clock::now();
            v.run(t, work.get(), s);
            return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          };
          const tlab::Timed tm = tlab::measure(sample, opt.timing);
          std::vector<std::string> f{opt.experiment, v.name, tlab::dtype_name(t), std::to_string(tlab::dtype_size(t)),
                                     std::to_string(s.rows), std::to_string(s.cols), std::to_string(v.threads),
                                     std::to_string(iterations)};
          for (auto& x : tlab::timing_fields(tm.summary, tm.stop)) f.push_back(std::move(x));
          f.push_back(tlab::format_number(static_cast<double>(s.elements()) / tm.summary.median));
          f.push_back("yes");
          csv += tlab::csv_line(f);
          ++rows;
          std::cerr << ": median " << tlab::format_number(tm.summary.median * 1e3, 4) << " ms, " << iterations
                    << " iteration(s)\n";
          if (v.name == "cpu/sort-seed-loop")
            summary.push_back({"seed-loop-iterations", v.name, std::to_string(iterations), "iterations",
                               std::string(tlab::dtype_name(t)) + " " + tlab::to_string(s), tlab::dtype_name(t), s.rows,
                               s.cols});
        }
      }
    }
    if (opt.list) return;
    if (rows == 0) throw tlab::UsageError("--variants '" + opt.variant_glob + "' matches none of this experiment's sorts");
    tlab::write_experiment_files(opt, csv, summary, load_at_start);
  });
}
