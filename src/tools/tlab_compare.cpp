// tlab-compare: sets results folders from several machines side by side, each normalised to
// its own roofline, with the seeds' published GPUs beside them.
//   tlab-compare OUT_DIR DIR...
// Reads each DIR's experiment CSVs (NN-name.csv) and env.json and writes, atomically,
// OUT_DIR/compare-machines.csv (one row per folder) and OUT_DIR/compare.csv (one row per
// number). Columns: docs/csv-schema.md, "Comparing machines". A ratio is only ever taken
// between two results of one folder (a kernel and the memcpy of the same run, element type
// and shape) or against that folder's own recorded peak; bandwidths of different machines
// are never divided by each other. Any unreadable input stops the tool (exit 2) before
// anything is written.
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "tlab/csv.hpp"
#include "tlab/env.hpp"
#include "tlab/published.hpp"
#include "tlab/results.hpp"

#ifndef TLAB_SOURCE_DIR
#define TLAB_SOURCE_DIR "."
#endif

namespace {

namespace fs = std::filesystem;
using tlab::Record;

// Bad input: the message names the path; main prints it and exits 2.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const char* const kUsage =
    "usage: tlab-compare OUT_DIR DIR...\n"
    "  reads each results folder DIR (NN-name.csv files and env.json) and writes\n"
    "  OUT_DIR/compare-machines.csv and OUT_DIR/compare.csv (docs/csv-schema.md)\n";

// Experiments whose per-variant CSV (the results schema) is compared. 08 and later are listed
// in compare-machines.csv but not compared: their rows are not one variant each.
bool compared_experiment(const std::string& nn) { return nn >= "01" && nn <= "07"; }

const std::vector<std::string> kNeeded = {"experiment", "variant", "family", "backend", "params",
                                          "dtype", "rows", "cols", "gbs"};

const std::vector<std::string> kCompareColumns = {
    "experiment", "origin", "machine", "metric", "family", "variant", "dtype", "rows", "cols",
    "headline", "gbs", "norm", "pct", "roofline_gbs", "file", "source"};

const std::vector<std::string> kMachineColumns = {
    "machine", "kind", "gpu", "cpu_model", "host", "date", "git_commit", "git_dirty",
    "gpu_peak_bandwidth_gbs", "experiments", "compared", "folder"};

using Env = std::map<std::string, std::string>;

Env read_env(const std::string& path) {
  Env env;
  try {
    for (const auto& kv : tlab::parse_flat_json(tlab::read_file(path))) env[kv.first] = kv.second;
  } catch (const std::exception& e) {
    throw InputError(path + ": " + e.what());
  }
  return env;
}

std::string field(const Env& env, const std::string& key) {
  auto it = env.find(key);
  return it == env.end() || it->second.empty() ? "NA" : it->second;
}

bool has_gpu(const Env& env) {
  auto it = env.find("gpu");
  return it != env.end() && !it->second.empty() && it->second.rfind("none", 0) != 0;
}

double number(const std::string& path, std::size_t line, const Record& r, const std::string& col) {
  const std::string& s = r.at(col);
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || !std::isfinite(v))
    throw InputError(path + ": line " + std::to_string(line) + ": " + col + " is '" + s + "', not a number");
  return v;
}

std::string pct(double part, double whole) { return tlab::format_number(100 * part / whole, 4); }

// One experiment CSV of one folder.
struct ExperimentData {
  std::string name;  // NN-name
  std::string path;  // as the tool was given it
  std::vector<Record> rows;
  Env env;  // NN-name.env.json, else the folder's env.json
};

struct Folder {
  std::string path;  // as given
  Env env;
  std::string label, kind;
  std::vector<std::string> held;  // experiment names with a results CSV, sorted
  std::vector<ExperimentData> compared;
};

bool is_dir(const std::string& p) {
  struct stat st {};
  return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
bool is_file(const std::string& p) {
  struct stat st {};
  return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The folder's results CSVs: NN-name.csv, leaving out files derived from another one
// (NN-name-summary.csv, NN-name-ncu.csv, ...).
std::vector<std::string> results_csvs(const std::string& dir) {
  std::vector<std::string> stems;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string n = it->path().filename().string();
    if (n.size() > 7 && std::isdigit(static_cast<unsigned char>(n[0])) &&
        std::isdigit(static_cast<unsigned char>(n[1])) && n[2] == '-' && n.compare(n.size() - 4, 4, ".csv") == 0)
      stems.push_back(n.substr(0, n.size() - 4));
  }
  if (ec) throw InputError(dir + ": cannot list the folder: " + ec.message());
  std::sort(stems.begin(), stems.end());
  std::vector<std::string> out;
  for (const auto& s : stems) {
    bool derived = false;
    for (const auto& t : stems) derived = derived || (t != s && s.rfind(t + "-", 0) == 0);
    if (!derived) out.push_back(s);
  }
  return out;
}

std::string join(const std::string& dir, const std::string& name) {
  return dir.empty() || dir.back() == '/' ? dir + name : dir + "/" + name;
}

Folder read_folder(const std::string& dir) {
  if (!is_dir(dir)) throw InputError(dir + ": no such results folder");
  Folder f;
  f.path = dir;
  const auto stems = results_csvs(dir);
  if (stems.empty()) throw InputError(dir + ": no experiment CSV (NN-name.csv) in the folder");

  // The machine: env.json (the newest run), else the newest NN-name.env.json.
  std::vector<Env> envs;
  const std::string main_env = join(dir, "env.json");
  if (is_file(main_env)) f.env = read_env(main_env);
  for (const auto& s : stems) {
    const std::string p = join(dir, s + ".env.json");
    if (is_file(p)) envs.push_back(read_env(p));
  }
  if (f.env.empty()) {
    if (envs.empty()) throw InputError(dir + ": no env.json (nor NN-name.env.json): the machine is unknown");
    f.env = *std::max_element(envs.begin(), envs.end(),
                              [](const Env& a, const Env& b) { return field(a, "date") < field(b, "date"); });
  }
  const Env* gpu_env = has_gpu(f.env) ? &f.env : nullptr;
  for (const auto& e : envs)
    if (!gpu_env && has_gpu(e)) gpu_env = &e;
  f.kind = gpu_env ? "gpu" : "cpu";
  f.label = gpu_env ? gpu_env->at("gpu") : field(f.env, "cpu_model");

  for (const auto& s : stems) {
    const std::string path = join(dir, s + ".csv");
    const bool compare = compared_experiment(s.substr(0, 2));
    std::vector<Record> rows;
    try {
      rows = tlab::read_records(path, compare ? kNeeded : std::vector<std::string>{});
    } catch (const std::exception& e) {
      const std::string what = e.what();
      throw InputError(what.rfind(path, 0) == 0 ? what : path + ": " + what);
    }
    f.held.push_back(s);
    if (!compare) continue;
    ExperimentData d{s, path, std::move(rows), f.env};
    const std::string ep = join(dir, s + ".env.json");
    if (is_file(ep)) d.env = read_env(ep);
    std::size_t line = 1;
    for (const auto& r : d.rows) {  // every number the comparison uses must be one
      ++line;
      number(path, line, r, "gbs");
      if (number(path, line, r, "rows") < 1 || number(path, line, r, "cols") < 1)
        throw InputError(path + ": line " + std::to_string(line) + ": rows and cols must be positive");
    }
    f.compared.push_back(std::move(d));
  }
  return f;
}

// "opt=O3;threshold=128" -> the value of key, or "" when absent.
std::string param(const std::string& params, const std::string& key) {
  std::size_t start = 0;
  while (start <= params.size()) {
    const std::size_t end = std::min(params.find(';', start), params.size());
    const std::string kv = params.substr(start, end - start);
    if (kv.rfind(key + "=", 0) == 0) return kv.substr(key.size() + 1);
    start = end + 1;
  }
  return "";
}

struct Row {
  std::string experiment, origin, machine, metric, family, variant, dtype;
  std::int64_t rows = 0, cols = 0;
  std::string gbs, norm, pct, roofline, file, source;
  std::string group;  // headline group: experiment + dtype (+ seed table for published rows)
  std::size_t owner = 0;  // folder index (published: index past the folders)
  bool headline = false;
};

std::vector<std::string> cells(const Row& r) {
  return {r.experiment, r.origin, r.machine, r.metric, r.family, r.variant, r.dtype, std::to_string(r.rows),
          std::to_string(r.cols), r.headline ? "yes" : "no", r.gbs, r.norm, r.pct, r.roofline, r.file, r.source};
}

// The rows of one folder's experiment: each kept variant, then the best of each family.
void compare_experiment(const Folder& f, std::size_t owner, const ExperimentData& d, std::vector<Row>& out) {
  using Key = std::tuple<std::string, std::int64_t, std::int64_t>;  // dtype, rows, cols
  std::map<Key, double> memcpy_gbs;
  for (const auto& r : d.rows)
    if (r.at("backend") == "gpu" && r.at("variant") == "gpu/memcpy") {
      const Key k{r.at("dtype"), std::atoll(r.at("rows").c_str()), std::atoll(r.at("cols").c_str())};
      if (!memcpy_gbs.count(k)) memcpy_gbs[k] = std::strtod(r.at("gbs").c_str(), nullptr);
    }
  const double peak = std::strtod(field(d.env, "gpu_peak_bandwidth_gbs").c_str(), nullptr);

  // emit: the rows for one result (one per normalisation).
  auto emit = [&](const Record& r, const std::string& metric, const std::string& subject_family) {
    Row base;
    base.experiment = d.name;
    base.origin = "measured";
    base.machine = f.label;
    base.metric = metric;
    base.family = subject_family;
    base.variant = r.at("variant");
    base.dtype = r.at("dtype");
    base.rows = std::atoll(r.at("rows").c_str());
    base.cols = std::atoll(r.at("cols").c_str());
    base.gbs = r.at("gbs");
    base.file = d.path;
    base.source = "measured";
    base.group = d.name + "\n" + base.dtype;
    base.owner = owner;
    const double g = std::strtod(base.gbs.c_str(), nullptr);
    if (r.at("backend") != "gpu") {
      Row x = base;
      x.norm = "none", x.pct = "NA", x.roofline = "NA";
      out.push_back(x);
      return;
    }
    Row m = base;
    m.norm = "memcpy";
    auto it = memcpy_gbs.find(Key{base.dtype, base.rows, base.cols});
    if (it != memcpy_gbs.end() && it->second > 0) {
      m.pct = pct(g, it->second);
      m.roofline = tlab::format_number(it->second);
    } else {
      m.pct = "NA", m.roofline = "NA";  // the run has no memcpy at this type and shape
    }
    out.push_back(m);
    if (peak > 0) {
      Row p = base;
      p.norm = "peak", p.pct = pct(g, peak), p.roofline = field(d.env, "gpu_peak_bandwidth_gbs");
      out.push_back(p);
    }
  };

  std::vector<const Record*> kept;
  for (const auto& r : d.rows) {
    const std::string opt = param(r.at("params"), "opt");
    if (!opt.empty() && opt != "O3") continue;  // experiment 01: the algorithms as built at -O3
    kept.push_back(&r);
    const bool roofline = r.at("backend") == "gpu" && r.at("variant") == "gpu/memcpy";
    emit(r, roofline ? "roofline" : "variant", r.at("family"));
  }
  // Best of each family at each type and shape, in the order the families first appear.
  std::map<std::tuple<std::string, std::int64_t, std::int64_t, std::string>, const Record*> best;
  std::vector<std::tuple<std::string, std::int64_t, std::int64_t, std::string>> order;
  for (const Record* r : kept) {
    if (r->at("family") == "peer-memcpy") continue;  // the roofline itself
    const auto k = std::make_tuple(r->at("dtype"), std::atoll(r->at("rows").c_str()),
                                   std::atoll(r->at("cols").c_str()), r->at("family"));
    auto it = best.find(k);
    if (it == best.end()) {
      best[k] = r;
      order.push_back(k);
    } else if (std::strtod(r->at("gbs").c_str(), nullptr) > std::strtod(it->second->at("gbs").c_str(), nullptr)) {
      it->second = r;
    }
  }
  for (const auto& k : order) emit(*best[k], "best-of-family", std::get<3>(k));
}

// The seeds' published GPU tables, each as a percentage of its own GPU's ceilings.
// Seed 000's kernels are in place (ours: gpu-inplace-naive); its "tiled" kernel transposes
// each tile where it lies and is not a transpose (experiment 06), so it has no family here.
std::string seed_family(const std::string& table, const std::string& variant) {
  if (table == "000") {
    if (variant.rfind("gpu_naive_", 0) == 0) return "gpu-inplace-naive";
    if (variant.rfind("gpu_tiled_", 0) == 0) return "not-a-transpose";
  } else if (table == "004") {
    if (variant == "Naive") return "gpu-naive";
    if (variant == "Shared" || variant == "SharedwBC") return "gpu-tiled";
    if (variant == "Unrolled") return "gpu-unrolled";
    if (variant == "memcpy") return "peer-memcpy";
  }
  return "";
}

void published_rows(std::size_t owner, std::vector<Row>& out) {
  const std::string dir = tlab::published_dir();
  const std::string default_dir = std::string(TLAB_SOURCE_DIR) + "/data/published";
  auto shown = [&](const std::string& name) {
    return dir == default_dir ? "data/published/" + name : join(dir, name);
  };
  struct Table {
    std::string id, file, dtype;
  };
  for (const Table& t : {Table{"000", "000-gpu-bandwidth.csv", "int32"}, Table{"004", "004-a800.csv", "float"}}) {
    const std::string path = join(dir, t.file);
    std::vector<Record> recs;
    try {
      recs = tlab::read_records(path, {"source", "gpu", "peak_gbs", "variant", "n", "gbs"});
    } catch (const std::exception& e) {
      const std::string what = e.what();
      throw InputError(what.rfind(path, 0) == 0 ? what : path + ": " + what);
    }
    double memcpy_gbs = 0;
    std::size_t line = 1;
    for (const auto& r : recs) {
      ++line;
      number(path, line, r, "gbs"), number(path, line, r, "peak_gbs"), number(path, line, r, "n");
      if (r.at("variant") == "memcpy") memcpy_gbs = std::strtod(r.at("gbs").c_str(), nullptr);
    }
    std::vector<Row> variants;
    for (const auto& r : recs) {
      const std::string fam = seed_family(t.id, r.at("variant"));
      if (fam.empty()) continue;  // the seeds' CPU rows: not a GPU
      Row base;
      base.experiment = "published";
      base.origin = "published";
      base.machine = r.at("gpu") + " (seed " + t.id + ")";
      base.metric = fam == "peer-memcpy" ? "roofline" : "variant";
      base.family = fam;
      base.variant = r.at("variant");
      base.dtype = t.dtype;
      base.rows = base.cols = std::atoll(r.at("n").c_str());
      base.gbs = r.at("gbs");
      base.file = shown(t.file);
      base.source = r.at("source");
      base.group = "published\n" + t.id;
      base.owner = owner;
      const double g = std::strtod(base.gbs.c_str(), nullptr);
      if (memcpy_gbs > 0) {
        Row m = base;
        m.norm = "memcpy", m.pct = pct(g, memcpy_gbs), m.roofline = tlab::format_number(memcpy_gbs);
        variants.push_back(m);
      }
      Row p = base;
      p.norm = "peak", p.pct = pct(g, std::strtod(r.at("peak_gbs").c_str(), nullptr)), p.roofline = r.at("peak_gbs");
      variants.push_back(p);
    }
    // Best of each family at each n and normalisation, as for the measured folders.
    std::vector<Row> bests;
    for (const Row& v : variants) {
      if (v.metric != "variant" || v.family == "not-a-transpose") continue;
      auto it = std::find_if(bests.begin(), bests.end(), [&](const Row& b) {
        return b.family == v.family && b.rows == v.rows && b.norm == v.norm;
      });
      if (it == bests.end()) {
        bests.push_back(v);
        bests.back().metric = "best-of-family";
      } else if (std::strtod(v.gbs.c_str(), nullptr) > std::strtod(it->gbs.c_str(), nullptr)) {
        *it = v;
        it->metric = "best-of-family";
      }
    }
    out.insert(out.end(), variants.begin(), variants.end());
    out.insert(out.end(), bests.begin(), bests.end());
  }
}

// Marks the rows at the headline shape of each (experiment, element type): the largest square
// shape that every folder holding that pair ran; when they share none, each folder's own
// largest square (or, with no square, its largest matrix). A seed table's headline is its
// largest n.
void mark_headlines(std::vector<Row>& rows) {
  using Shape = std::pair<std::int64_t, std::int64_t>;
  std::map<std::string, std::map<std::size_t, std::set<Shape>>> shapes;  // group -> owner -> shapes
  for (const Row& r : rows) shapes[r.group][r.owner].insert({r.rows, r.cols});
  std::map<std::pair<std::string, std::size_t>, Shape> chosen;
  for (const auto& g : shapes) {
    std::set<Shape> common;
    bool first = true;
    for (const auto& o : g.second) {
      std::set<Shape> squares;
      for (const Shape& s : o.second)
        if (s.first == s.second) squares.insert(s);
      if (first) {
        common = squares, first = false;
      } else {
        std::set<Shape> both;
        std::set_intersection(common.begin(), common.end(), squares.begin(), squares.end(),
                              std::inserter(both, both.begin()));
        common = both;
      }
    }
    for (const auto& o : g.second) {
      Shape pick{0, 0};
      if (!common.empty()) {
        pick = *common.rbegin();
      } else {
        for (const Shape& s : o.second)
          if (s.first == s.second && s.first > pick.first) pick = s;
        if (pick.first == 0)
          for (const Shape& s : o.second)
            if (s.first * s.second > pick.first * pick.second) pick = s;
      }
      chosen[{g.first, o.first}] = pick;
    }
  }
  for (Row& r : rows) r.headline = chosen[{r.group, r.owner}] == Shape{r.rows, r.cols};
}

// The folder's own name: "results/reference/x/" -> "x".
std::string folder_name(std::string p) {
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  const std::string n = fs::path(p).filename().string();
  if (!n.empty() && n != "." && n != "..") return n;
  fs::path a = fs::absolute(p).lexically_normal();  // "." -> the folder's own name
  if (a.filename().empty()) a = a.parent_path();
  return a.filename().string();
}

std::string join_words(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : " ") + n.substr(0, 2);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      std::cout << kUsage;
      return 0;
    }
  if (argc < 3) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string out_dir = argv[1];
  try {
    std::vector<Folder> folders;
    for (int i = 2; i < argc; ++i) folders.push_back(read_folder(argv[i]));

    // Labels must tell folders apart: a repeated label gets the folder's name, then a number.
    std::map<std::string, int> seen;
    for (const auto& f : folders) ++seen[f.label];
    std::set<std::string> used;
    for (auto& f : folders) {
      if (seen[f.label] > 1) f.label += " (" + folder_name(f.path) + ")";
      std::string l = f.label;
      for (int k = 2; used.count(l); ++k) l = f.label + " #" + std::to_string(k);
      f.label = l;
      used.insert(l);
    }

    std::vector<Row> rows;
    std::set<std::string> experiments;
    for (const auto& f : folders)
      for (const auto& d : f.compared) experiments.insert(d.name);
    for (const auto& name : experiments)  // experiment by experiment, folders in the order given
      for (std::size_t k = 0; k < folders.size(); ++k)
        for (const auto& d : folders[k].compared)
          if (d.name == name) compare_experiment(folders[k], k, d, rows);
    published_rows(folders.size(), rows);
    mark_headlines(rows);

    std::string machines = tlab::csv_line(kMachineColumns);
    for (const auto& f : folders) {
      std::vector<std::string> compared;
      for (const auto& d : f.compared) compared.push_back(d.name);
      machines += tlab::csv_line({f.label, f.kind, field(f.env, "gpu"), field(f.env, "cpu_model"), field(f.env, "host"),
                                  field(f.env, "date"), field(f.env, "git_commit"), field(f.env, "git_dirty"),
                                  field(f.env, "gpu_peak_bandwidth_gbs"), join_words(f.held),
                                  compared.empty() ? "none" : join_words(compared), f.path});
    }
    std::string compare = tlab::csv_line(kCompareColumns);
    for (const Row& r : rows) compare += tlab::csv_line(cells(r));

    // Everything is read and computed: only now is anything created. Should the second
    // write fail, the first file goes too, so OUT_DIR never holds a mismatched pair.
    const std::string machines_path = join(out_dir, "compare-machines.csv");
    tlab::make_dirs(out_dir);
    tlab::write_file_atomic(machines_path, machines);
    try {
      tlab::write_file_atomic(join(out_dir, "compare.csv"), compare);
    } catch (...) {
      std::remove(machines_path.c_str());
      throw;
    }
    std::cerr << "tlab-compare: wrote " << join(out_dir, "compare.csv") << " (" << rows.size() << " rows) and "
              << join(out_dir, "compare-machines.csv") << " (" << folders.size()
              << (folders.size() == 1 ? " folder)\n" : " folders)\n");
  } catch (const std::exception& e) {  // bad input, or OUT_DIR cannot be written
    std::cerr << "tlab-compare: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
