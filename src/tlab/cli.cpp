#include "tlab/cli.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>

#include "tlab/env.hpp"
#include "tlab/executor.hpp"

namespace tlab {

namespace {
// Largest side accepted: past this, a square matrix of even one-byte elements would not
// fit in any machine's memory, so the number is a typo.
constexpr std::int64_t kMaxSide = std::int64_t(1) << 22;

std::int64_t parse_positive(const std::string& s, const std::string& what) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError("bad " + what + " '" + s + "': expected a positive whole number");
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (errno == ERANGE || v > static_cast<unsigned long long>(std::numeric_limits<std::int64_t>::max()))
    throw UsageError("bad " + what + " '" + s + "': too large");
  if (v == 0) throw UsageError("bad " + what + " '" + s + "': must be at least 1");
  return static_cast<std::int64_t>(v);
}

std::int64_t parse_side(const std::string& s) {
  std::int64_t v;
  if (s.rfind("2^", 0) == 0) {
    const std::string digits = s.substr(2);
    const std::int64_t e = digits == "0" ? 0 : parse_positive(digits, "exponent");
    if (e > 22) throw UsageError("size '" + s + "' is too large (at most 2^22 per side)");
    v = std::int64_t(1) << e;
  } else {
    v = parse_positive(s, "size");
  }
  if (v > kMaxSide) throw UsageError("size '" + s + "' is too large (at most 2^22 per side)");
  return v;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

void print_help(const ExperimentSpec& spec, const char* argv0) {
  std::cout << argv0 << ": " << spec.description << "\n\n"
            << "usage: " << argv0 << " [options]\n"
            << "  --quick          small sizes and a short time budget (the whole pipeline in minutes)\n"
            << "  --out DIR        results folder (default: " << default_results_dir() << ")\n"
            << "  --sizes LIST     comma-separated sizes: 1024, 4000x5000 (rows x cols), 2^14, 2^8..2^14\n"
            << "  --reps N         exactly N timed repetitions per configuration (default: adaptive)\n"
            << "  --budget S       seconds of timed samples per configuration (default 2, quick 0.2)\n"
            << "  --variants GLOB  only the experiment's variants whose name matches GLOB\n"
            << "  --types LIST     only these element types of the experiment's (e.g. float,double)\n"
            << "  --list           print the variants and configurations, run nothing\n"
            << "  --help           this text\n"
            << "exit codes: 0 done, 2 bad input, 3 a variant gave a wrong result, 1 other errors\n";
}
}  // namespace

std::vector<Shape> parse_sizes(const std::string& text) {
  if (text.empty()) throw UsageError("--sizes needs a list, e.g. 256,1024 or 2^8..2^14");
  std::vector<Shape> out;
  for (const std::string& item : split(text, ',')) {
    if (item.empty()) throw UsageError("bad size list '" + text + "': empty item");
    if (auto dots = item.find(".."); dots != std::string::npos) {
      const std::string a = item.substr(0, dots), b = item.substr(dots + 2);
      if (a.rfind("2^", 0) != 0 || b.rfind("2^", 0) != 0)
        throw UsageError("bad size range '" + item + "': ranges are of powers of two, e.g. 2^8..2^14");
      const std::int64_t lo = parse_side(a), hi = parse_side(b);
      if (lo > hi) throw UsageError("bad size range '" + item + "': the first bound is larger");
      for (std::int64_t n = lo; n <= hi; n *= 2) out.push_back({n, n});
    } else if (auto x = item.find('x'); x != std::string::npos) {
      out.push_back({parse_side(item.substr(0, x)), parse_side(item.substr(x + 1))});
    } else {
      const std::int64_t n = parse_side(item);
      out.push_back({n, n});
    }
  }
  return out;
}

std::string default_results_dir() { return "results/" + machine_tag(); }

Options parse_experiment_args(int argc, char** argv, const ExperimentSpec& spec) {
  Options o;
  o.experiment = spec.name;
  for (int i = 0; i < argc; ++i) o.command_line += (i ? " " : "") + std::string(argv[i]);
  bool sizes_given = false, reps_given = false, budget_given = false;
  auto value = [&](int& i, const std::string& flag) -> std::string {
    if (i + 1 >= argc || std::string(argv[i + 1]).rfind("--", 0) == 0) throw UsageError(flag + " needs a value");
    return argv[++i];
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      print_help(spec, argv[0]);
      std::exit(0);
    } else if (a == "--quick") {
      o.quick = true;
    } else if (a == "--list") {
      o.list = true;
    } else if (a == "--out") {
      o.out_dir = value(i, a);
      if (o.out_dir.empty()) throw UsageError("--out needs a folder name");
    } else if (a == "--sizes") {
      o.shapes = parse_sizes(value(i, a));
      sizes_given = true;
    } else if (a == "--reps") {
      const std::int64_t n = parse_positive(value(i, a), "--reps");
      if (n > 1000000) throw UsageError("--reps " + std::to_string(n) + " is too many (at most 1000000)");
      o.timing.min_reps = o.timing.max_reps = static_cast<int>(n);
      o.timing.budget_s = std::numeric_limits<double>::infinity();
      reps_given = true;
    } else if (a == "--budget") {
      const std::string v = value(i, a);
      char* end = nullptr;
      const double s = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0' || !(s > 0) || s > 3600)
        throw UsageError("bad --budget '" + v + "': expected seconds, more than 0 and at most 3600");
      o.timing.budget_s = s;
      budget_given = true;
    } else if (a == "--variants") {
      o.variant_glob = value(i, a);
    } else if (a == "--types") {
      for (const std::string& t : split(value(i, a), ',')) {
        try {
          o.types.push_back(parse_dtype(t));
        } catch (const std::invalid_argument& e) {
          throw UsageError(std::string("--types: ") + e.what());
        }
      }
    } else {
      throw UsageError("unknown option '" + a + "' (see --help)");
    }
  }
  if (reps_given && budget_given) throw UsageError("--reps and --budget exclude each other");
  if (!sizes_given) o.shapes = o.quick ? spec.quick_sizes : spec.sizes;
  if (o.quick && !reps_given) {
    o.timing.warmup = 1;
    if (!budget_given) o.timing.budget_s = 0.2;
  }
  if (o.out_dir.empty()) o.out_dir = default_results_dir();
  return o;
}

std::int64_t parse_count(const std::string& text, const std::string& what, std::int64_t lo, std::int64_t hi) {
  if (lo == 0 && (text.empty() || text.find_first_not_of("0123456789") != std::string::npos))
    throw UsageError("bad " + what + " '" + text + "': expected a whole number");
  const std::int64_t v = text == "0" ? 0 : parse_positive(text, what);
  if (v < lo || v > hi)
    throw UsageError("bad " + what + " '" + text + "': must be from " + std::to_string(lo) + " to " + std::to_string(hi));
  return v;
}

int tool_main(const char* name, const std::function<int()>& body) {
  try {
    return body();
  } catch (const VerificationError& e) {
    std::cerr << name << ": " << e.what() << "\n";
    return 3;
  } catch (const std::invalid_argument& e) {  // usage, and the parsers' and refusals' own lines
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << name << ": " << e.what() << "\n";
    return 1;
  }
}

}  // namespace tlab
