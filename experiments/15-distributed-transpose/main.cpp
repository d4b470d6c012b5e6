// Experiment 15: an m x n matrix held by row blocks on P GPUs transposed into n x m held the
// same way, through NCCL (src/tlab/dist/distributed.hpp): P = 1 and every P the machine has,
// 1, 2, 4, 8 and 16 chunks, against the NCCL all-to-all of the same blocks and the
// single-GPU plan, all in the same run. With TLAB_DIST_RANK set, each process is one rank
// (scripts/dist-launch) and rank 0 writes the files.
#include <iostream>
#include <map>
#include <random>

#include "tlab/csv.hpp"
#include "tlab/dist/measure.hpp"
#include "tlab/experiment.hpp"

namespace {
const std::vector<tlab::DType> kTypes{tlab::DType::u8, tlab::DType::f32, tlab::DType::c128};
const std::vector<int> kChunks{1, 2, 4, 8, 16};
}  // namespace

int main(int argc, char** argv) {
  tlab::ExperimentSpec spec{
      "15-distributed-transpose", "a matrix in row blocks over P GPUs transposed through NCCL, against the all-to-all",
      tlab::parse_sizes("16384,32768,65536x32768,32768x65536,65536,30011x40009"), tlab::parse_sizes("1000,999x1001")};
  return tlab::experiment_main(argc, argv, spec, [](tlab::ExperimentRun& run) {
    const tlab::Options& opt = run.options();
    std::vector<std::string> methods{"single-gpu", "all-to-all"};
    for (int k : kChunks) methods.push_back("chunks-" + std::to_string(k));
    std::vector<std::string> chosen;
    for (const std::string& m : methods)
      if (tlab::glob_match(opt.variant_glob, m)) chosen.push_back(m);
    if (chosen.empty()) throw tlab::UsageError("--variants '" + opt.variant_glob + "' matches none of " + methods[0] + ", " +
                                               methods[1] + ", chunks-<k>");
    if (opt.list) {
      for (const std::string& m : chosen) std::cout << m << "\n";
      return;
    }
    const tlab::dist::TeamSpec env = tlab::dist::team_from_environment(1);
    const std::string why = tlab::dist::unavailable();
    if (!why.empty()) {
      std::cerr << "[15-distributed-transpose] skipping: " << why << "\n";
      return;
    }
    std::vector<int> ranks;
    if (env.rank >= 0) ranks.push_back(env.ranks);
    else
      for (int p = 1; p <= tlab::dist::visible_gpus(); ++p) ranks.push_back(p);
    std::vector<int> chunks;
    for (int k : kChunks)
      if (tlab::glob_match(opt.variant_glob, "chunks-" + std::to_string(k))) chunks.push_back(k);
    const std::vector<tlab::DType> types = opt.types.empty() ? kTypes : opt.types;
    const std::string load_at_start = tlab::load_average();
    std::vector<std::string> header{"experiment", "method", "ranks", "chunks", "dtype", "elem_bytes", "rows", "cols",
                                    "matrix_bytes", "exchange_bytes", "bytes_moved"};
    for (const auto& c : tlab::timing_columns()) header.push_back(c);
    for (const char* c : {"pack_end_s", "exchange_end_s", "gbs", "pct_of_all_to_all", "kernel", "verified"})
      header.push_back(c);
    std::string csv = tlab::csv_line(header);
    std::vector<tlab::SummaryRow> summary;
    std::vector<std::string> refused;
    struct Best {
      tlab::DType dtype;
      tlab::Shape shape;
      int ranks;
      double seconds;
      std::string method;
    };
    std::vector<Best> best_at;  // the fastest chunk count per type, shape and P
    std::random_device device_seed;
    for (tlab::DType t : types)
      for (const tlab::Shape& s : opt.shapes) {
        const std::string at = std::string(tlab::dtype_name(t)) + " " + tlab::to_string(s);
        const double matrix = static_cast<double>(s.elements()) * tlab::dtype_size(t);
        double single = -1;
        for (int p : ranks) {
          tlab::dist::TeamSpec team = env;
          team.ranks = p;
          std::vector<tlab::dist::DistRow> rows;
          try {
            const std::uint64_t seed = (static_cast<std::uint64_t>(device_seed()) << 32) | device_seed();
            rows = tlab::dist::measure_distributed(team, t, s, chunks, opt.timing, seed);
          } catch (const tlab::ResourceError& e) {
            refused.push_back(std::string("P=") + std::to_string(p) + " " + at + ": " + e.what());
          } catch (const std::invalid_argument& e) {
            refused.push_back(std::string("P=") + std::to_string(p) + " " + at + ": " + e.what());
          }
          double a2a = -1;
          for (const auto& r : rows)
            if (r.method == "all-to-all") a2a = r.timed.summary.median;
            else if (r.method == "single-gpu") single = r.timed.summary.median;
          double best = -1;
          std::string best_name;
          for (const auto& r : rows) {
            if (!tlab::glob_match(opt.variant_glob, r.method)) continue;
            const double med = r.timed.summary.median;
            const bool transposes = r.method != "all-to-all";
            const double moved = transposes ? 2 * matrix : r.exchange_bytes;
            std::vector<std::string> f{opt.experiment, r.method, std::to_string(r.ranks), std::to_string(r.chunks),
                                       tlab::dtype_name(t), std::to_string(tlab::dtype_size(t)), std::to_string(s.rows),
                                       std::to_string(s.cols), tlab::format_number(matrix, 15),
                                       tlab::format_number(r.exchange_bytes, 15),
                                       tlab::format_number(moved, 15)};
            for (auto& x : tlab::timing_fields(r.timed.summary, r.timed.stop)) f.push_back(std::move(x));
            f.push_back(r.pack_end >= 0 ? tlab::format_number(r.pack_end) : "NA");
            f.push_back(r.exchange_end >= 0 ? tlab::format_number(r.exchange_end) : "NA");
            f.push_back(tlab::format_number(moved / med / 1e9));
            f.push_back(a2a > 0 && r.chunks > 0 ? tlab::format_number(100 * a2a / med, 4) : "NA");
            f.push_back(r.kernel.empty() ? "NA" : r.kernel);
            f.push_back("yes");
            csv += tlab::csv_line(f);
            std::cerr << "[15-distributed-transpose] P=" << p << " " << at << " " << r.method << ": median "
                      << tlab::format_number(med * 1e3, 4) << " ms"
                      << (a2a > 0 && r.chunks > 0 ? ", " + tlab::format_number(100 * a2a / med, 3) + "% of the all-to-all" : "")
                      << "\n";
            if (r.method.rfind("chunks-", 0) == 0 && (best < 0 || med < best)) {
              best = med;
              best_name = r.method;
            }
          }
          if (best > 0 && a2a > 0)
            summary.push_back({"best-pct-of-all-to-all", "P=" + std::to_string(p), tlab::format_number(100 * a2a / best, 4),
                               "%", at + " " + best_name, tlab::dtype_name(t), s.rows, s.cols});
          if (best > 0 && single > 0)
            summary.push_back({"single-gpu-over-best", "P=" + std::to_string(p), tlab::format_number(single / best, 4), "x",
                               at + " " + best_name, tlab::dtype_name(t), s.rows, s.cols});
          if (best > 0) best_at.push_back({t, s, p, best, best_name});
        }
      }
    // Scaling, from the best chunk count of each case. Strong: the same matrix on one GPU and on
    // P, time(1) / time(P). Weak: the same bytes per GPU, time(1, S) / time(P, a matrix P times
    // S's bytes), 1 when P GPUs take P times the matrix in the same time.
    for (const Best& one : best_at) {
      if (one.ranks != 1) continue;
      const double bytes = static_cast<double>(one.shape.elements());
      for (const Best& b : best_at) {
        if (b.ranks == 1 || b.dtype != one.dtype) continue;
        const std::string at = std::string(tlab::dtype_name(b.dtype)) + " " + tlab::to_string(b.shape) + " " + b.method +
                               " against " + tlab::to_string(one.shape) + " " + one.method + " on one GPU";
        if (b.shape == one.shape)
          summary.push_back({"strong-scaling-speedup", "P=" + std::to_string(b.ranks),
                             tlab::format_number(one.seconds / b.seconds, 4), "x", at, tlab::dtype_name(b.dtype),
                             b.shape.rows, b.shape.cols});
        if (static_cast<double>(b.shape.elements()) == b.ranks * bytes)
          summary.push_back({"weak-scaling-efficiency", "P=" + std::to_string(b.ranks),
                             tlab::format_number(100 * one.seconds / b.seconds, 4), "%", at, tlab::dtype_name(b.dtype),
                             b.shape.rows, b.shape.cols});
      }
    }
    for (const std::string& r : refused) std::cerr << "[15-distributed-transpose] skipped " << r << "\n";
    if (csv.find('\n') == csv.size() - 1) {  // the header alone: nothing could run
      if (!refused.empty()) throw tlab::UsageError(refused.front());
      return;
    }
    if (env.rank > 0) return;  // one process per GPU: rank 0 writes the files
    tlab::write_experiment_files(opt, csv, summary, load_at_start);
  });
}
