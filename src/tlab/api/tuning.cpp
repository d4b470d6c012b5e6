#include "tlab/api/tuning.hpp"
#include "tlab/inplace_cube_index.hpp"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>

#ifndef TLAB_TUNING_INSTALL_DIR
#define TLAB_TUNING_INSTALL_DIR ""
#endif

namespace tlab::tuning {

std::string shape_class(Shape s, Placement p, std::size_t elem) {
  const auto e = static_cast<std::int64_t>(elem);
  const bool unaligned = (s.rows * e) % 16 || (s.cols * e) % 16;
  const bool off_lines = (s.rows * e) % 128 || (s.cols * e) % 128;
  if (p == Placement::in_place && !s.square()) {
    bool forward = false;
    if (s.elements() * e <= kRectSmallBytes) return "rect-small";
    return e >= 4 && cube::side(s, forward) ? "rect-cube" : "rect";  // cube has no 1- or 2-byte kernel
  }
  if (p == Placement::in_place) {
    // 1- and 2-byte rows off a 4-byte word (8191 bytes) and rows on words but off a 16-byte unit
    // (8200 bytes) have different winners: the first only `waves` moves near memcpy, the second
    // the shifted word tiles (performance notes, section 9).
    // Rows off 256-byte units: the tile pairs lose there, each piece's end units shared with
    // another block's (float `w8` on the H200: 77.5% of memcpy at 8200, rows off the lines,
    // 86.0 at 8224, whole lines half a unit off, 94.2 at 8256; performance notes, section 9,
    // "Which alignment the in-place squares lose at"). The two kinds lose by different amounts
    // and may have different winners (the H100 took different kernels for 1, 2 and 4 bytes),
    // so each has a row of its own ("Rows off the lines apart from rows half a unit off").
    const bool off_word = (s.rows * e) % 4 || (s.cols * e) % 4;
    const bool off_units = (s.rows * e) % 256 || (s.cols * e) % 256;
    // Bytes off a word at 2^25 elements (5793²) and more: on the H100 `waves` led the tile pairs
    // by 8 to 9 points at 4099² and 5003² and trailed them by 8 to 11 at 10001² to 14001²; with
    // the edge tiles on the inner path the pairs led from 8189² up (performance notes, section 9,
    // "The plan at sides it was not tuned at" and "Edge tiles at the inner tiles' speed").
    if (off_word) return s.elements() < (std::int64_t{1} << 25) ? "off-word" : "off-word-large";
    if (unaligned) return "unaligned";
    if (off_lines) return "odd";
    if (off_units) return "half-unit";
    return s.elements() < (std::int64_t{1} << 24) ? "medium" : "square";
  }
  if (s.elements() < (std::int64_t{1} << 20)) return "small";
  if (unaligned) return "unaligned";
  if (off_lines) return "odd";
  if (s.elements() < (std::int64_t{1} << 24)) return "medium";
  if (s.rows >= 4 * s.cols) return "tall";
  if (s.cols >= 4 * s.rows) return "wide";
  return "square";
}

std::vector<std::string> row_classes(const std::string& shape_class) {
  if (shape_class == "half-unit") return {shape_class, "odd"};
  if (shape_class == "off-word-large") return {shape_class, "off-word"};
  return {shape_class};
}

std::vector<std::string> fallback_classes(const std::string& shape_class) {
  // The H100's 1-byte "off-word" row names `on-grid`, which holds the whole matrix in the
  // grid's shared memory: 5003² and 4099² bytes, where it was tuned, fit; the class's largest
  // squares, up to 5792², do not (5632² is the largest on the H100). The tile pairs of
  // "off-word-large" led at 5793² (performance notes, section 9, "The off-word bound at 2^25
  // elements").
  if (shape_class == "off-word") return {"off-word-large"};
  return {};
}

const char* header() { return "target\telem_bytes\tplacement\tshape\tvariant\tnote"; }

std::vector<Row> read_table(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("tuning table " + path + ": cannot be read");
  std::vector<Row> rows;
  std::string line;
  int n = 0;
  while (std::getline(f, line)) {
    ++n;
    if (n == 1) {
      if (line != header()) throw std::runtime_error(path + ":1: not a tuning table header: '" + line + "'");
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cell;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, '\t');) cell.push_back(c);
    if (cell.size() < 5) throw std::runtime_error(path + ":" + std::to_string(n) + ": expected 6 tab-separated fields");
    Row r{cell[0], std::atoi(cell[1].c_str()), cell[2], cell[3], cell[4], cell.size() > 5 ? cell[5] : "",
          path + ":" + std::to_string(n)};
    if (r.elem_bytes <= 0) throw std::runtime_error(path + ":" + std::to_string(n) + ": bad elem_bytes '" + cell[1] + "'");
    rows.push_back(std::move(r));
  }
  return rows;
}

void write_table(const std::string& path, const std::vector<Row>& rows) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp);
    if (!f) throw std::runtime_error("cannot write " + tmp);
    f << header() << '\n';
    for (const Row& r : rows)
      f << r.target << '\t' << r.elem_bytes << '\t' << r.placement << '\t' << r.shape << '\t' << r.variant << '\t'
        << r.note << '\n';
    if (!f.flush()) throw std::runtime_error("cannot write " + tmp);
  }
  std::filesystem::rename(tmp, path);
}

std::string file_name_for(const std::string& gpu_name) {
  std::string s;
  for (char c : gpu_name) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) s += static_cast<char>(std::tolower(u));
    else if (!s.empty() && s.back() != '-') s += '-';
  }
  while (!s.empty() && s.back() == '-') s.pop_back();
  return (s.empty() ? "unnamed-gpu" : s) + ".tsv";
}

std::vector<std::string> search_dirs() {
  std::vector<std::string> d;
  if (const char* e = std::getenv("TLAB_TUNING_DIR"); e && *e) d.push_back(e);
  if (*TLAB_TUNING_INSTALL_DIR) d.push_back(TLAB_TUNING_INSTALL_DIR);
#ifdef TLAB_SOURCE_DIR
  d.push_back(std::string(TLAB_SOURCE_DIR) + "/tuning");
#endif
  return d;
}

namespace {

std::string table_of(const Row& r) { return r.origin.substr(0, r.origin.rfind(':')); }  // origin: file:line

// Every table found, first directory first. A table that cannot be read is skipped with one
// line on stderr: a broken table must not stop a transpose.
const std::vector<Row>& all_rows() {
  static std::vector<Row> rows;
  static std::once_flag once;
  std::call_once(once, [] {
    namespace fs = std::filesystem;
    for (const std::string& dir : search_dirs()) {
      std::error_code ec;
      if (!fs::is_directory(dir, ec)) continue;
      std::vector<std::string> files;
      for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.path().extension() == ".tsv") files.push_back(e.path().string());
      std::sort(files.begin(), files.end());
      for (const std::string& f : files) {
        try {
          for (Row& r : read_table(f)) rows.push_back(std::move(r));
        } catch (const std::exception& e) {
          std::fprintf(stderr, "tlab: ignoring tuning table: %s\n", e.what());
        }
      }
    }
  });
  return rows;
}

// Built in, from the reference measurements (docs/performance-notes.md): used where no
// table names this GPU. The first candidate that can run the case is taken.
std::vector<std::string> default_variants(std::size_t elem, Placement p, Shape s, Memory m) {
  const bool in_place = p == Placement::in_place;
  if (m == Memory::host) {  // issue 13's SIMD kernels, the ISA chosen at run time, all threads
    if (!in_place) return {"cpu/simd/auto@all"};
    return {s.square() ? "cpu/simd-inplace/auto@all" : "cpu/inplace-rect/c2r"};
  }
  // Rectangular in place: two passes where one side divides the other, else the three of c2r,
  // with the larger scratch and, on coprime shapes, the column pass across the grid (faster at
  // the coprime shapes measured, and the same code as c2r-r256 elsewhere; at 65536 x 256,
  // which the blocks take, the smaller scratch of c2r is ahead: performance notes, section 9).
  // Where the matrix fits the GPU's shared memory, one pass through it comes first, and one
  // pass of cycles of three tiles where it is M x M² or M² x M.
  if (in_place && !s.square())
    return m == Memory::device ? std::vector<std::string>{"gpu/inplace-rect/on-grid", "gpu/inplace-rect/cube",
                                                          "gpu/inplace-rect/blocks", "gpu/inplace-rect/c2r-grid"}
                               : std::vector<std::string>{"cpu/inplace-rect/c2r"};
  if (m == Memory::pinned_host && !in_place && (elem == 4 || elem == 8)) return {"gpu/rect/r256c32x8"};
  const char* by_size[] = {"w4", "w4", "w8", "w16", "w16"};  // 1, 2, 4, 8, 16 bytes
  const int k = elem == 1 ? 0 : elem == 2 ? 1 : elem == 4 ? 2 : elem == 8 ? 3 : 4;
  return {std::string(in_place ? "gpu/word-inplace/" : "gpu/word/") + by_size[k]};
}

}  // namespace

bool usable(const Variant& v, DType t, Shape s, Placement p, Backend backend) {
  return v.backend == backend && v.placement == p && v.produces == Produces::transpose && !v.known_wrong &&
         v.refuses(t, s).empty();
}

const Row* pick_row(const std::vector<Row>& rows, const std::string& cls, int elem, Placement p,
                    const std::vector<std::string>& targets, const std::function<bool(const Row&)>& runs,
                    std::string& skipped) {
  std::vector<std::string> files;  // rows of one table are consecutive
  for (const Row& r : rows)
    if (files.empty() || files.back() != table_of(r)) files.push_back(table_of(r));
  // The class's rows in every table and target first, then the fallback classes' rows.
  for (const std::vector<std::string>& classes : {row_classes(cls), fallback_classes(cls)})
    for (const std::string& target : targets)
      for (const std::string& file : files)
        for (const std::string& row_class : classes)
          for (const Row& r : rows) {
            if (table_of(r) != file || r.target != target || r.elem_bytes != elem || r.placement != placement_name(p) ||
                r.shape != row_class)
              continue;
            if (runs(r)) return &r;
            skipped += "; " + r.origin + " names " + r.variant + ", which cannot run it";
          }
  return nullptr;
}

Choice choose(DType t, Shape s, Placement p, Memory memory, const std::string& gpu_name, const std::string& arch) {
  const Backend backend = memory == Memory::host ? Backend::cpu : Backend::gpu;
  const std::size_t elem = dtype_size(t);
  const std::string cls = shape_class(s, p, elem);
  std::string skipped;
  if (memory == Memory::device && (s.rows == 1 || s.cols == 1)) {
    // A vector's transpose is its bytes as they are: a copy by the copy engines, or nothing.
    const std::string name = p == Placement::in_place ? "gpu/vector/in-place" : "gpu/vector/copy";
    const Variant* v = registry().find(name);
    if (v && usable(*v, t, s, p, backend)) return {name, "a vector: its transpose is its bytes as they are"};
  }
  if (memory == Memory::device) {
    const auto runs = [&](const Row& r) {
      const Variant* v = registry().find(r.variant);
      return v && usable(*v, t, s, p, backend);
    };
    if (const Row* r = pick_row(all_rows(), cls, static_cast<int>(elem), p, {gpu_name, arch}, runs, skipped))
      return {r->variant, "tuning table " + r->origin + (r->shape == cls ? "" : " (" + cls + " from its " + r->shape + " row)")};
  }
  // Page-locked memory runs a GPU kernel or, where none fits, the CPU one.
  for (const std::string& d : default_variants(elem, p, s, memory)) {
    const Variant* v = registry().find(d);
    if (!v || !usable(*v, t, s, p, memory == Memory::pinned_host ? v->backend : backend)) {
      if (const std::string why = v ? v->refuses(t, s) : ""; !why.empty()) skipped += "; " + why;
      continue;
    }
    return {d, "built-in default for " + std::string(memory_name(memory)) + " memory, " + std::to_string(elem) +
                   "-byte " + cls + (memory == Memory::device ? " (no tuning table row for " + gpu_name + ")" : "") +
                   skipped};
  }
  throw std::invalid_argument(std::string("no ") + memory_name(memory) + " kernel in this build transposes " +
                              dtype_name(t) + " " + to_string(s) + " " + placement_name(p));
}

}  // namespace tlab::tuning
