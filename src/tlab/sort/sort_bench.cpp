#include "tlab/sort/sort_bench.hpp"

#include <chrono>
#include <cstring>
#include <limits>
#include <memory>

#include <algorithm>
#include <iostream>

#include "tlab/csv.hpp"
#include "tlab/experiment.hpp"
#include "tlab/reference.hpp"
#include "tlab/executor.hpp"
#include "tlab/results.hpp"
#include "tlab/timing.hpp"

namespace tlab::sort {

const std::vector<GpuSortCase>& gpu_sort_cases() {
  static const std::vector<GpuSortCase> cases = [] {
    std::vector<GpuSortCase> v;
    for (const std::string& r : gpu_row_sorts()) {
      GpuSortOptions o;
      o.row_sort = r;
      v.push_back({"gpu/" + r, o});
    }
    GpuSortOptions loop;
    loop.row_sort = "block-oddeven";
    loop.seed_loop = true;
    v.push_back({"gpu/seed-loop/block-oddeven", loop});
    for (SortMemory m : {SortMemory::pinned, SortMemory::pageable, SortMemory::managed, SortMemory::managed_prefetch}) {
      GpuSortOptions o;
      o.memory = m;
      v.push_back({"gpu/cub-segmented-radix@" + std::string(sort_memory_name(m)), o});
    }
    for (IssueOrder order : {IssueOrder::depth_first, IssueOrder::breadth_first}) {
      GpuSortOptions o;
      o.memory = SortMemory::pinned;
      o.streams = 4;
      o.order = order;
      v.push_back({"gpu/cub-segmented-radix@pinned-s4-" + std::string(issue_order_name(order)), o});
    }
    return v;
  }();
  return cases;
}

namespace {


void check_sorted_permutation(const std::string& label, const void* got, const void* input, DType t, Shape s) {
  const bool sorted = rows_and_columns_sorted(got, s, t);
  const bool same = multiset_fingerprint(got, s.elements(), t) == multiset_fingerprint(input, s.elements(), t);
  if (!sorted || !same)
    throw VerificationError(label + " " + dtype_name(t) + " " + to_string(s) + ": not a sorted permutation of the input (" +
                            (sorted ? "sorted" : "NOT sorted") + ", " + (same ? "same elements" : "elements CHANGED") + ")");
}

double median_of(std::vector<double> xs) { return xs.empty() ? -1 : summarize(std::move(xs)).median; }

bool is_seed_loop(const std::string& name) { return name.find("seed-loop") != std::string::npos; }

// The verified first run already warmed caches and pages; when it alone outlasts the time
// budget, another untimed run would only double the cost of a configuration.
TimingPolicy after_first_run(TimingPolicy p, double first_s) {
  if (first_s > p.budget_s) p.warmup = 0;
  return p;
}

// The seed's GPU kernels (O(n^2) per row for two of them): above large_elements they run for
// int32 only, like the CPU sorts.
bool is_seed_kernel(const GpuSortOptions& o) {
  return o.row_sort == "thread-bubble" || o.row_sort == "thread-merge" || o.row_sort == "block-oddeven";
}

}  // namespace

SortRow measure_cpu_sort(const SortVariant& v, DType t, Shape s, const void* input, const TimingPolicy& p) {
  const std::size_t bytes = static_cast<std::size_t>(s.elements()) * dtype_size(t);
  std::unique_ptr<unsigned char[]> work(new unsigned char[bytes]);
  SortRow row;
  row.variant = v.name;
  row.memory = "host";
  row.dtype = t;
  row.shape = s;
  row.threads = v.threads;
  auto sample = [&] {
    std::memcpy(work.get(), input, bytes);  // fresh unsorted data, its pages touched: not timed
    const auto t0 = Clock::now();
    row.iterations = v.run(t, work.get(), s);
    return seconds_since(t0);
  };
  const double first = sample();
  check_sorted_permutation(v.name, work.get(), input, t, s);
  if (first > p.budget_s) {
    // A sort that outlasts the budget on its own (tens of seconds at 16384^2): the verified
    // run is the first of the three samples such a configuration gets, rather than a fourth
    // run; it ran on a fresh copy like every sample, so nothing in it is a warm-up effect.
    std::vector<double> xs{first};
    TimingPolicy rest = p;
    rest.warmup = 0;
    rest.min_reps = rest.max_reps = 2;
    rest.budget_s = std::numeric_limits<double>::infinity();
    measure([&] { xs.push_back(sample()); return xs.back(); }, rest);
    check_sorted_permutation(v.name, work.get(), input, t, s);
    row.timed = {summarize(xs), "budget"};
    return row;
  }
  row.timed = measure(sample, after_first_run(p, first));
  return row;
}

SortRow measure_gpu_sort(const GpuSortCase& c, DType t, Shape s, const void* input, const TimingPolicy& p) {
  const std::size_t bytes = static_cast<std::size_t>(s.elements()) * dtype_size(t);
  GpuMatrixSort plan(s, t, c.options);
  SortRow row;
  row.variant = c.name;
  row.memory = sort_memory_name(c.options.memory);
  row.streams = c.options.streams;
  row.order = c.options.streams > 1 ? issue_order_name(c.options.order) : "";
  row.dtype = t;
  row.shape = s;
  GpuSortTimes first;
  plan.load(input);
  std::unique_ptr<unsigned char[]> got(new unsigned char[bytes]);
  // The first run is checked before timing, and one more after it, each on a poisoned result:
  // a fault that only warm runs show (a race between streams, say) must not pass either.
  auto checked_run = [&] {
    plan.poison_result();
    const GpuSortTimes x = plan.run();
    plan.result(got.get());
    check_sorted_permutation(c.name, got.get(), input, t, s);
    return x;
  };
  first = checked_run();
  row.iterations = first.iterations;
  row.launches = first.launches;
  std::vector<double> sort, transpose, keys, check, copy;
  int calls = 0;
  row.timed = measure(
      [&] {
        const GpuSortTimes x = plan.run();
        if (++calls > after_first_run(p, first.total_s).warmup) {
          sort.push_back(x.sort_s);
          transpose.push_back(x.transpose_s);
          keys.push_back(x.keys_s);
          check.push_back(x.check_s);
          copy.push_back(x.copy_s);
        }
        return x.total_s;
      },
      after_first_run(p, first.total_s));
  checked_run();
  if (c.options.streams == 1) {
    row.sort_s = median_of(sort);
    row.transpose_s = median_of(transpose);
    row.keys_s = median_of(keys);
    row.check_s = median_of(check);
    row.copy_s = median_of(copy);
  }
  return row;
}

std::string sort_rows_csv(const std::string& experiment, const std::vector<SortRow>& rows) {
  std::vector<std::string> header{"experiment", "variant", "memory", "streams", "order", "dtype", "elem_bytes",
                                  "rows",       "cols",    "threads", "iterations", "launches"};
  for (const auto& c : timing_columns()) header.push_back(c);
  for (const char* c : {"sort_s", "transpose_s", "keys_s", "check_s", "copy_s", "elements_per_s", "verified"})
    header.push_back(c);
  std::string out = csv_line(header);
  auto opt = [](double x) { return x < 0 ? std::string() : format_number(x); };
  for (const SortRow& r : rows) {
    std::vector<std::string> f{experiment,
                               r.variant,
                               r.memory,
                               r.memory == "host" ? "" : std::to_string(r.streams),
                               r.order,
                               dtype_name(r.dtype),
                               std::to_string(dtype_size(r.dtype)),
                               std::to_string(r.shape.rows),
                               std::to_string(r.shape.cols),
                               std::to_string(r.threads),
                               std::to_string(r.iterations),
                               r.memory == "host" ? "" : std::to_string(r.launches)};
    for (auto& x : timing_fields(r.timed.summary, r.timed.stop)) f.push_back(std::move(x));
    for (double x : {r.sort_s, r.transpose_s, r.keys_s, r.check_s, r.copy_s}) f.push_back(opt(x));
    f.push_back(format_number(static_cast<double>(r.shape.elements()) / r.timed.summary.median));
    f.push_back("yes");
    out += csv_line(f);
  }
  return out;
}

void run_sort_sweep(ExperimentRun& run, const SortSweep& sweep) {
  const Options& opt = run.options();
  for (DType t : opt.types)
    if (std::find(sort_types().begin(), sort_types().end(), t) == sort_types().end())
      throw UsageError(std::string("--types: the matrix sort has no ") + dtype_name(t) + " version (int32, float, double)");
  // Input, work copy and result check, of the widest type.
  for (const Shape& s : opt.shapes)
    require_host_memory(to_string(s), 3.0 * static_cast<double>(s.elements()) * 8);
  std::string gpu_why;
  const bool gpu = sweep.gpu && executor_for(Backend::gpu, &gpu_why) != nullptr;
  if (sweep.gpu && !gpu) {
    std::cerr << "[" << opt.experiment << "] skipping: " << gpu_why << "\n";
    return;
  }
  // A sort samples fresh data each time; one warm-up run after the verified one is enough.
  TimingPolicy policy = opt.timing;
  policy.warmup = std::min(policy.warmup, 1);
  const std::string load_at_start = load_average();
  std::vector<SortRow> rows;
  std::vector<SummaryRow> summary;
  for (DType t : sort_types()) {
    if (!opt.types.empty() && std::find(opt.types.begin(), opt.types.end(), t) == opt.types.end()) continue;
    for (const Shape& s : opt.shapes) {
      const bool large = s.elements() > sweep.large_elements;
      const std::size_t bytes = static_cast<std::size_t>(s.elements()) * dtype_size(t);
      std::unique_ptr<unsigned char[]> input;
      auto fresh_input = [&] {
        if (!input) {
          input.reset(new unsigned char[bytes]);
          fill_random(input.get(), s.elements(), t);
        }
        return input.get();
      };
      const std::string at = std::string(dtype_name(t)) + " " + to_string(s);
      auto note = [&](const std::string& label, const std::string& what) {
        std::cerr << "[" << opt.experiment << "] " << label << " " << at << what;
      };
      double cpu_sequential = -1, cpu_threaded = -1;
      for (const auto& v : sort_variants()) {
        if (!glob_match(opt.variant_glob, v.name) ||
          std::none_of(sweep.cpu_variants.begin(), sweep.cpu_variants.end(),
                       [&](const std::string& g) { return glob_match(g, v.name); }))
        continue;
        if (large && (t != DType::i32 || is_seed_loop(v.name))) continue;
        if (!sweep.cpu_types.empty() && std::find(sweep.cpu_types.begin(), sweep.cpu_types.end(), t) == sweep.cpu_types.end())
          continue;
        if (opt.list) {
          std::cout << v.name << " " << at << "\n";
          continue;
        }
        note(v.name, "");
        rows.push_back(measure_cpu_sort(v, t, s, fresh_input(), policy));
        const SortRow& r = rows.back();
        std::cerr << ": median " << format_number(r.timed.summary.median * 1e3, 4) << " ms, " << r.iterations
                  << " iteration(s)\n";
        if (v.name == "cpu/sort-sequential") cpu_sequential = r.timed.summary.median;
        if (v.name == "cpu/sort-threaded") cpu_threaded = r.timed.summary.median;
        if (is_seed_loop(v.name))
          summary.push_back({"seed-loop-iterations", v.name, std::to_string(r.iterations), "iterations", at,
                             dtype_name(t), s.rows, s.cols});
      }
      for (const auto& c : gpu_sort_cases()) {
        if (!sweep.gpu || !glob_match(opt.variant_glob, c.name) ||
            std::none_of(sweep.gpu_cases.begin(), sweep.gpu_cases.end(),
                         [&](const std::string& g) { return glob_match(g, c.name); }))
          continue;
        // The seed's kernels take seconds from 2^24 elements on: int32 only there.
        if (large && is_seed_loop(c.name)) continue;
        if (s.elements() >= sweep.large_elements && is_seed_kernel(c.options) && t != DType::i32) continue;
        if (!gpu) continue;
        if (const std::string why = gpu_sort_refuses(c.options, t, s); !why.empty()) {
          if (!opt.list) note(c.name, ": not run: " + why + "\n");
          continue;
        }
        if (opt.list) {
          std::cout << c.name << " " << at << "\n";
          continue;
        }
        require_memory("device", c.name + " " + at, GpuMatrixSort::device_bytes(s, t, c.options),
                             executor_for(Backend::gpu, nullptr)->bytes_free());
        note(c.name, "");
        rows.push_back(measure_gpu_sort(c, t, s, fresh_input(), policy));
        const SortRow& r = rows.back();
        std::cerr << ": median " << format_number(r.timed.summary.median * 1e3, 4) << " ms\n";
        if (r.memory == "device" && r.transpose_s >= 0) {
          const double work = r.sort_s + r.transpose_s + r.keys_s + std::max(0.0, r.check_s);
          summary.push_back({"transpose-share", c.name, format_number(100 * r.transpose_s / work, 4), "%", at,
                             dtype_name(t), s.rows, s.cols});
        }
        for (const auto& [metric, cpu] : {std::pair{"speedup-over-cpu-sequential", cpu_sequential},
                                          std::pair{"speedup-over-cpu-threaded", cpu_threaded}})
          if (cpu > 0)
            summary.push_back({metric, c.name, format_number(cpu / r.timed.summary.median, 4), "x", at,
                               dtype_name(t), s.rows, s.cols});
        if (is_seed_loop(c.name)) {
          summary.push_back({"seed-loop-iterations", c.name, std::to_string(r.iterations), "iterations", at,
                             dtype_name(t), s.rows, s.cols});
          summary.push_back({"seed-loop-launches", c.name, std::to_string(r.launches), "launches", at,
                             dtype_name(t), s.rows, s.cols});
        }
      }
    }
  }
  if (opt.list) return;
  if (rows.empty()) throw UsageError("--variants '" + opt.variant_glob + "' matches none of this experiment's sorts");
  write_experiment_files(opt, sort_rows_csv(opt.experiment, rows), summary, load_at_start);
}

}  // namespace tlab::sort
