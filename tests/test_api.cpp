// The library call (tlab/transpose.hpp) on host memory, its refusals, and its tuning tables.
// The GPU suite covers device and page-locked memory.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <vector>

#include "tlab/api/tuning.hpp"
#include "tlab/api/tuning_cases.hpp"
#include "tlab/device_memory.hpp"
#include "tlab/reference.hpp"
#include "tlab/transpose.hpp"

using namespace tlab;

namespace {

std::vector<unsigned char> random_matrix(DType t, Shape s) {
  std::vector<unsigned char> m(s.elements() * dtype_size(t));
  fill_random(m.data(), s.elements(), t);
  return m;
}

std::vector<unsigned char> transposed(const std::vector<unsigned char>& a, DType t, Shape s) {
  std::vector<unsigned char> out(a.size());
  reference_transpose(a.data(), out.data(), s, dtype_size(t));
  return out;
}

}  // namespace

TEST_SUITE("api") {

TEST_CASE("tlab::transpose and transpose_in_place on host memory give the exact transpose, any type and shape") {
  for (DType t : all_dtypes())
    for (Shape s : {Shape{1, 1}, Shape{1, 13}, Shape{13, 1}, Shape{97, 101}, Shape{64, 64}, Shape{300, 40}, Shape{129, 129}}) {
      CAPTURE(dtype_name(t));
      CAPTURE(to_string(s));
      const auto in = random_matrix(t, s), want = transposed(in, t, s);
      std::vector<unsigned char> out(in.size(), 0xA5);
      transpose(out.data(), in.data(), t, s.rows, s.cols);
      CHECK(out == want);
      std::vector<unsigned char> m = in;
      transpose_in_place(m.data(), t, s.rows, s.cols);
      CHECK(m == want);
    }
}

TEST_CASE("a host plan says which kernel it chose and why") {
  const Plan out(DType::f32, 500, 300, Placement::out_of_place, Memory::host);
  CHECK(out.kernel().rfind("cpu/", 0) == 0);
  CHECK(!out.reason().empty());
  const Plan rect(DType::u8, 500, 300, Placement::in_place, Memory::host);
  CHECK(rect.kernel() == "cpu/inplace-rect/c2r");
}

TEST_CASE("bad arguments are refused with std::invalid_argument before anything is written") {
  std::vector<float> a(12, 1.f), b(12, 7.f);
  CHECK_THROWS_AS(transpose(nullptr, a.data(), DType::f32, 3, 4), std::invalid_argument);
  CHECK_THROWS_AS(transpose(b.data(), nullptr, DType::f32, 3, 4), std::invalid_argument);
  CHECK_THROWS_AS(transpose_in_place(nullptr, DType::f32, 3, 4), std::invalid_argument);
  CHECK_THROWS_AS(transpose(b.data(), a.data(), DType::f32, 0, 4), std::invalid_argument);
  CHECK_THROWS_AS(transpose(b.data(), a.data(), DType::f32, 3, -4), std::invalid_argument);
  CHECK_THROWS_AS(Plan(DType::f64, std::int64_t{1} << 40, std::int64_t{1} << 30, Placement::out_of_place, Memory::host),
                  std::invalid_argument);
  // Overlapping buffers out of place: the same buffer, and one shifted by one element.
  CHECK_THROWS_AS(transpose(a.data(), a.data(), DType::f32, 3, 4), std::invalid_argument);
  std::vector<float> big(13, 2.f);
  CHECK_THROWS_AS(transpose(big.data() + 1, big.data(), DType::f32, 3, 4), std::invalid_argument);
  // The wrong form for the plan's placement.
  const Plan out(DType::f32, 3, 4, Placement::out_of_place, Memory::host);
  CHECK_THROWS_AS(out.execute_in_place(a.data()), std::invalid_argument);
  const Plan in(DType::f32, 3, 4, Placement::in_place, Memory::host);
  CHECK_THROWS_AS(in.execute(b.data(), a.data()), std::invalid_argument);
  // An element off its alignment: doubles starting 4 bytes into a buffer.
  std::vector<double> d(13, 3.0), e(13, 5.0);
  auto* off = reinterpret_cast<double*>(reinterpret_cast<char*>(d.data()) + 4);
  CHECK_THROWS_AS(transpose(e.data(), off, DType::f64, 3, 4), std::invalid_argument);
  CHECK_THROWS_AS(transpose_in_place(off, DType::f64, 3, 4), std::invalid_argument);
  CHECK(e == std::vector<double>(13, 5.0));
  CHECK(b == std::vector<float>(12, 7.f));
  CHECK(big == std::vector<float>(13, 2.f));
  try {
    transpose(a.data(), a.data(), DType::f32, 3, 4);
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("overlap") != std::string::npos);
  }
}

TEST_CASE("a device plan without a CUDA device is refused with one clear line") {
  if (current_device().index >= 0) return;  // the GPU suite covers device plans
  try {
    Plan p(DType::f32, 64, 64, Placement::out_of_place, Memory::device);
    FAIL("a device plan was made without a device");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("needs a CUDA device") != std::string::npos);
  }
}

TEST_CASE("shape classes") {
  CHECK(tuning::shape_class({100, 100}, Placement::out_of_place, 4) == "small");
  CHECK(tuning::shape_class({8192, 8192}, Placement::out_of_place, 1) == "square");
  CHECK(tuning::shape_class({16384, 1024}, Placement::out_of_place, 2) == "tall");
  CHECK(tuning::shape_class({1024, 16384}, Placement::out_of_place, 4) == "wide");
  CHECK(tuning::shape_class({1024, 2048}, Placement::out_of_place, 8) == "medium");
  CHECK(tuning::shape_class({2048, 2048}, Placement::out_of_place, 4) == "medium");
  CHECK(tuning::shape_class({4096, 4096}, Placement::out_of_place, 4) == "square");
  CHECK(tuning::shape_class({8200, 8200}, Placement::out_of_place, 8) == "odd");
  CHECK(tuning::shape_class({8200, 8200}, Placement::out_of_place, 16) == "square");
  // A row of 8191 bytes, or of 8200 floats' transpose partner 8191: no whole 16-byte words.
  CHECK(tuning::shape_class({8191, 8191}, Placement::out_of_place, 1) == "unaligned");
  CHECK(tuning::shape_class({8200, 8191}, Placement::out_of_place, 4) == "unaligned");
  CHECK(tuning::shape_class({8191, 8191}, Placement::out_of_place, 16) == "odd");
  CHECK(tuning::shape_class({4096, 4096}, Placement::in_place, 1) == "square");
  // Squares within a few L2 sizes have their own row: at 2048² uint16 `w4` ran 10 points ahead
  // of the large squares' `w8` (experiment 13's references, both GPUs).
  CHECK(tuning::shape_class({128, 128}, Placement::in_place, 4) == "medium");
  CHECK(tuning::shape_class({4095, 4095}, Placement::in_place, 16) == "odd");
  CHECK(tuning::shape_class({4080, 4080}, Placement::in_place, 16) == "medium");
  // In place too, rows of whole 16-byte words off 128-byte lines have a class of their own:
  // 8200 doubles take 16-byte words there, 8192 doubles 8-byte ones (performance notes, section 9).
  CHECK(tuning::shape_class({100, 100}, Placement::in_place, 4) == "odd");
  CHECK(tuning::shape_class({8200, 8200}, Placement::in_place, 8) == "odd");
  CHECK(tuning::shape_class({8191, 8191}, Placement::in_place, 16) == "odd");
  // In place, rows of whole lines half a 256-byte unit off have a class of their own (8200
  // complex128: 131,200 bytes; 8224 floats), and so does a medium square of them; out of place
  // 8200 complex128 stays a square.
  CHECK(tuning::shape_class({8200, 8200}, Placement::in_place, 16) == "half-unit");
  CHECK(tuning::shape_class({8224, 8224}, Placement::in_place, 4) == "half-unit");
  CHECK(tuning::shape_class({4088, 4088}, Placement::in_place, 16) == "half-unit");
  CHECK(tuning::shape_class({8208, 8208}, Placement::in_place, 4) == "odd");
  CHECK(tuning::shape_class({8256, 8256}, Placement::in_place, 4) == "square");
  // 1- and 2-byte rows off a 4-byte word apart from rows on words but off 16 bytes: `waves`
  // wins the first, the shifted word tiles the second (8200² uint8: 77.4% against 68.5%).
  CHECK(tuning::shape_class({4099, 4099}, Placement::in_place, 2) == "off-word");
  CHECK(tuning::shape_class({5003, 5003}, Placement::in_place, 1) == "off-word");
  CHECK(tuning::shape_class({5791, 5791}, Placement::in_place, 1) == "off-word");
  // From 2^25 elements (5793²) rows off a word are a class of their own: there the tile pairs
  // overtook `waves` on the H100 (10001² uint8: 75.6% of memcpy against 67.3%; 8191² with the
  // edge tiles on the inner path, 75.4 against 70.4).
  CHECK(tuning::shape_class({5793, 5793}, Placement::in_place, 1) == "off-word-large");
  CHECK(tuning::shape_class({8191, 8191}, Placement::in_place, 1) == "off-word-large");
  CHECK(tuning::shape_class({8191, 8191}, Placement::in_place, 2) == "off-word-large");
  CHECK(tuning::shape_class({10001, 10001}, Placement::in_place, 1) == "off-word-large");
  CHECK(tuning::shape_class({8193, 8193}, Placement::in_place, 2) == "off-word-large");
  CHECK(tuning::shape_class({10001, 10001}, Placement::in_place, 4) == "unaligned");
  CHECK(tuning::shape_class({10001, 10001}, Placement::out_of_place, 1) == "unaligned");
  CHECK(tuning::shape_class({8200, 8200}, Placement::in_place, 1) == "unaligned");
  CHECK(tuning::shape_class({8196, 8196}, Placement::in_place, 2) == "unaligned");
  CHECK(tuning::shape_class({8191, 8191}, Placement::in_place, 4) == "unaligned");
  CHECK(tuning::shape_class({8200, 8200}, Placement::in_place, 2) == "odd");
  // Rectangles in place: up to 32 MiB a class of their own (one pass through the GPU's shared
  // memory, two tiles a block past 29 MiB, can hold them), "rect" above.
  CHECK(tuning::shape_class({100, 101}, Placement::in_place, 4) == "rect-small");
  CHECK(tuning::shape_class({4096, 2048}, Placement::in_place, 4) == "rect-small");
  CHECK(tuning::shape_class({4097, 2048}, Placement::in_place, 4) == "rect");
  CHECK(tuning::shape_class({16381, 1021}, Placement::in_place, 2) == "rect-small");
  CHECK(tuning::shape_class({16384, 1024}, Placement::in_place, 2) == "rect-small");
  CHECK(tuning::shape_class({16381, 1021}, Placement::in_place, 4) == "rect");
  CHECK(tuning::shape_class({8192, 6144}, Placement::in_place, 1) == "rect");  // tlab-tune's shapes for "rect"
  CHECK(tuning::shape_class({131072, 512}, Placement::in_place, 1) == "rect");
  // M x M² and M² x M above 32 MiB: one pass of cycles of three tiles.
  CHECK(tuning::shape_class({256, 65536}, Placement::in_place, 4) == "rect-cube");
  CHECK(tuning::shape_class({65536, 256}, Placement::in_place, 16) == "rect-cube");
  CHECK(tuning::shape_class({256, 65536}, Placement::in_place, 2) == "rect-small");
  CHECK(tuning::shape_class({256, 65537}, Placement::in_place, 4) == "rect");
  CHECK(tuning::shape_class({512, 262144}, Placement::in_place, 1) == "rect");  // no 1-byte kernel
}

TEST_CASE("tuning tables: written atomically, read back, refused with the line when malformed") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("tlab-tuning-" + std::to_string(std::rand()));
  fs::create_directories(dir);
  const std::string path = (dir / tuning::file_name_for("NVIDIA H100 80GB HBM3")).string();
  CHECK(fs::path(path).filename() == "nvidia-h100-80gb-hbm3.tsv");
  std::vector<tuning::Row> rows{{"NVIDIA H100 80GB HBM3", 1, "out-of-place", "square", "gpu/word/w4", "91% of memcpy", ""},
                                {"sm_90", 4, "in-place", "rect", "gpu/inplace-rect/c2r", "", ""}};
  tuning::write_table(path, rows);
  CHECK(!fs::exists(path + ".tmp"));
  const auto back = tuning::read_table(path);
  REQUIRE(back.size() == 2);
  CHECK(back[0].variant == "gpu/word/w4");
  CHECK(back[1].elem_bytes == 4);
  CHECK(back[1].origin == path + ":3");
  {
    std::ofstream f(path);
    f << tuning::header() << "\nsm_90\tfour\tin-place\trect\tx\t\n";
  }
  try {
    tuning::read_table(path);
    FAIL("a malformed table was read");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find(":2:") != std::string::npos);
  }
  {
    std::ofstream f(path);
    f << "not a header\n";
  }
  CHECK_THROWS_AS(tuning::read_table(path), std::runtime_error);
  fs::remove_all(dir);
}

TEST_CASE("every committed tuning table reads and names only registered kernels") {
  namespace fs = std::filesystem;
  int files = 0;
  for (const auto& e : fs::directory_iterator(std::string(TLAB_SOURCE_DIR) + "/tuning")) {
    if (e.path().extension() != ".tsv") continue;
    ++files;
    for (const tuning::Row& r : tuning::read_table(e.path().string())) {
      CAPTURE(r.origin);
      // A build without CUDA registers no GPU kernel; the names must still look like ours.
      if (registry().find("gpu/memcpy")) CHECK(registry().find(r.variant) != nullptr);
      CHECK(r.variant.rfind("gpu/", 0) == 0);
      CHECK((r.placement == "in-place" || r.placement == "out-of-place"));
    }
  }
  CHECK(files >= 1);
}

TEST_CASE("a class cut from another is answered by the older class's row where a table has none of its own") {
  CHECK(tuning::row_classes("half-unit") == std::vector<std::string>{"half-unit", "odd"});
  CHECK(tuning::row_classes("odd") == std::vector<std::string>{"odd"});
  CHECK(tuning::row_classes("off-word-large") == std::vector<std::string>{"off-word-large", "off-word"});
  CHECK(tuning::row_classes("off-word") == std::vector<std::string>{"off-word"});
  CHECK(tuning::row_classes("square") == std::vector<std::string>{"square"});
  const auto row = [](const char* table, int line, const char* target, const char* shape, const char* variant) {
    return tuning::Row{target, 2, "in-place", shape, variant, "", std::string(table) + ":" + std::to_string(line)};
  };
  const auto all = [](const tuning::Row&) { return true; };
  const auto pick = [&](const std::vector<tuning::Row>& rows, const std::string& cls,
                        const std::function<bool(const tuning::Row&)>& runs) -> std::string {
    std::string skipped;
    const tuning::Row* r = tuning::pick_row(rows, cls, 2, Placement::in_place, {"GPU X", "sm_90"}, runs, skipped);
    return r ? r->variant : "none";
  };
  // A table with both rows answers with its own; one with the older row alone, with that one.
  const std::vector<tuning::Row> both{row("/a b/t.tsv", 2, "GPU X", "odd", "k-odd"),
                                      row("/a b/t.tsv", 3, "GPU X", "half-unit", "k-half")};
  CHECK(pick(both, "half-unit", all) == "k-half");
  CHECK(pick(both, "odd", all) == "k-odd");
  CHECK(pick({both[0]}, "half-unit", all) == "k-odd");
  CHECK(pick({both[1]}, "odd", all) == "none");  // a cut class never answers the class it came from
  // A table searched first (a user's $TLAB_TUNING_DIR) wins with its older row over a later
  // table's own row; a row whose kernel cannot run passes to the next.
  const std::vector<tuning::Row> two_tables{row("/user/t.tsv", 2, "GPU X", "odd", "k-user"),
                                            row("/src/t.tsv", 2, "GPU X", "half-unit", "k-src")};
  CHECK(pick(two_tables, "half-unit", all) == "k-user");
  CHECK(pick(two_tables, "half-unit", [](const tuning::Row& r) { return r.variant != "k-user"; }) == "k-src");
  // The GPU's own name before its architecture, whichever class the architecture's row has.
  const std::vector<tuning::Row> targets{row("/src/t.tsv", 2, "sm_90", "half-unit", "k-arch"),
                                         row("/src/t.tsv", 3, "GPU X", "odd", "k-gpu")};
  CHECK(pick(targets, "half-unit", all) == "k-gpu");
}

TEST_CASE("a shape whose class's kernel cannot run it is answered by the fallback class's row, not the built-in default") {
  CHECK(tuning::fallback_classes("off-word") == std::vector<std::string>{"off-word-large"});
  CHECK(tuning::fallback_classes("off-word-large").empty());
  CHECK(tuning::fallback_classes("square").empty());
  const auto row = [](int line, const char* shape, const char* variant) {
    return tuning::Row{"GPU X", 1, "in-place", shape, variant, "", "/src/t.tsv:" + std::to_string(line)};
  };
  const std::vector<tuning::Row> rows{row(2, "off-word", "k-grid"), row(3, "off-word-large", "k-pairs")};
  const auto pick = [&](const std::string& cls, bool grid_fits) -> std::string {
    std::string skipped;
    const tuning::Row* r = tuning::pick_row(rows, cls, 1, Placement::in_place, {"GPU X"},
                                            [&](const tuning::Row& x) { return grid_fits || x.variant != "k-grid"; }, skipped);
    return r ? r->variant + skipped : "none";
  };
  CHECK(pick("off-word", true) == "k-grid");
  // The skipped row is named in the reason.
  CHECK(pick("off-word", false) == "k-pairs; /src/t.tsv:2 names k-grid, which cannot run it");
  CHECK(pick("off-word-large", true) == "k-pairs");
  CHECK(pick("square", true) == "none");
  // A fallback row of a table searched first does not win over a later table's own row.
  const std::vector<tuning::Row> two_tables{
      {"GPU X", 1, "in-place", "off-word-large", "k-user", "", "/user/t.tsv:2"},
      {"GPU X", 1, "in-place", "off-word", "k-src", "", "/src/t.tsv:2"}};
  std::string skipped;
  const auto all = [](const tuning::Row&) { return true; };
  const tuning::Row* r = tuning::pick_row(two_tables, "off-word", 1, Placement::in_place, {"GPU X"}, all, skipped);
  REQUIRE(r != nullptr);
  CHECK(r->variant == "k-src");
}

TEST_CASE("every committed tuning table has a row for each class that tlab-tune measures, or for the class it was cut from") {
  // A class without a row falls back to the built-in default without a word (as the in-place
  // "medium" and "off-word" classes would have before their tables were rerun); one cut from
  // another class falls back to that class's row (row_classes), which must then be there.
  namespace fs = std::filesystem;
  for (const auto& e : fs::directory_iterator(std::string(TLAB_SOURCE_DIR) + "/tuning")) {
    if (e.path().extension() != ".tsv") continue;
    const std::vector<tuning::Row> rows = tuning::read_table(e.path().string());
    for (const std::size_t elem : {1, 2, 4, 8, 16})
      for (const tuning::Case& c : tuning::cases()) {
        if (tuning::shapes_of(c, elem).empty()) continue;  // no shape of this size is in the class
        CAPTURE(e.path().filename().string());
        CAPTURE(elem);
        CAPTURE(c.shape_class);
        CAPTURE(placement_name(c.placement));
        CHECK(std::any_of(rows.begin(), rows.end(), [&](const tuning::Row& r) {
          return r.elem_bytes == static_cast<int>(elem) && r.shape == tuning::row_classes(c.shape_class).back() &&
                 r.placement == placement_name(c.placement);
        }));
      }
  }
}

TEST_CASE("tlab-tune measures every class at shapes of that class") {
  const auto find = [](Placement p, const char* name) -> const tuning::Case& {
    for (const tuning::Case& c : tuning::cases())
      if (c.placement == p && c.shape_class == name) return c;
    throw std::runtime_error(std::string("no case ") + name);
  };
  // Every class is reached by some element size (a class none reaches would never be tuned).
  for (const tuning::Case& c : tuning::cases()) {
    CAPTURE(c.shape_class);
    std::size_t shapes = 0;
    for (const std::size_t elem : {1, 2, 4, 8, 16}) shapes += tuning::shapes_of(c, elem).size();
    CHECK(shapes > 0);
  }
  // In place, 1- and 2-byte rows on words but off 16 bytes are tuned at shapes of that kind, not
  // at the rows off a word that "off-word" has; 16-byte rows are never off a word.
  const tuning::Case& unaligned = find(Placement::in_place, "unaligned");
  CHECK(tuning::shapes_of(unaligned, 1).front().rows == 8200);
  CHECK(tuning::shapes_of(unaligned, 2).front().rows == 8196);
  CHECK(tuning::shapes_of(unaligned, 4).front().rows == 8191);
  CHECK(tuning::shapes_of(find(Placement::in_place, "off-word"), 1).size() == 2);
  CHECK(tuning::shapes_of(find(Placement::in_place, "off-word"), 16).empty());
  for (const std::size_t elem : {1, 2}) {
    const std::vector<Shape> large = tuning::shapes_of(find(Placement::in_place, "off-word-large"), elem);
    REQUIRE(large.size() == 3);
    for (const Shape& s : large) CHECK((s.rows != 10001 && s.rows != 12290 && s.rows != 14001));  // the check sides
    CHECK(std::any_of(large.begin(), large.end(), [](const Shape& s) { return s.rows < 8191; }));  // one near its low end
  }
  CHECK(tuning::shapes_of(find(Placement::in_place, "off-word-large"), 4).empty());
  CHECK(tuning::shapes_of(find(Placement::in_place, "medium"), 16).size() == 2);
  // In place, "odd" is scored at rows off the lines only, and "half-unit" at rows of whole
  // lines half a 256-byte unit off, for every element size.
  const std::vector<Shape> odd8 = tuning::shapes_of(find(Placement::in_place, "odd"), 8);
  REQUIRE(odd8.size() == 2);
  CHECK(odd8[0].rows == 8194);
  CHECK(odd8[1].rows == 4098);
  const std::vector<Shape> half8 = tuning::shapes_of(find(Placement::in_place, "half-unit"), 8);
  REQUIRE(half8.size() == 2);
  CHECK(half8[0].rows == 8208);
  CHECK(half8[1].rows == 4112);
  for (const std::size_t elem : {1, 2, 4, 8, 16}) {
    CAPTURE(elem);
    CHECK(tuning::shapes_of(find(Placement::in_place, "odd"), elem).size() == 2);
    CHECK(tuning::shapes_of(find(Placement::in_place, "half-unit"), elem).size() == 2);
    CHECK(tuning::shapes_of(find(Placement::out_of_place, "odd"), elem).size() == 2);
  }
}

}  // TEST_SUITE("api")
