// CSV quoting and parsing, atomic writes, folder creation, and the results/summary tables.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "support.hpp"
#include "tlab/csv.hpp"
#include "tlab/results.hpp"

using namespace tlab;
using tlab_test::TempDir;

namespace {
void write_plain(const std::string& path, const std::string& content) {
  std::ofstream f(path, std::ios::binary);
  f << content;
}

// Runs f, which must throw std::runtime_error whose message contains `needle`.
template <typename F> void check_throws_naming(F f, const std::string& needle) {
  bool threw = false;
  try {
    f();
  } catch (const std::runtime_error& e) {
    threw = true;
    CHECK_MESSAGE(std::string(e.what()).find(needle) != std::string::npos,
                  "message '" << e.what() << "' does not name '" << needle << "'");
  }
  CHECK_MESSAGE(threw, "no std::runtime_error for " << needle);
}
}  // namespace

TEST_SUITE("csv") {

TEST_CASE("csv_field quotes exactly the fields that need it and doubles inner quotes") {
  CHECK(csv_field("plain") == "plain");
  CHECK(csv_field("") == "");
  CHECK(csv_field("a b") == "a b");  // inner space: no quotes needed
  CHECK(csv_field("1.5e-3") == "1.5e-3");
  CHECK(csv_field("a,b") == "\"a,b\"");
  CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csv_field("\"") == "\"\"\"\"");
  CHECK(csv_field("two\nlines") == "\"two\nlines\"");
  CHECK(csv_field("cr\rhere") == "\"cr\rhere\"");
  CHECK(csv_field(" lead") == "\" lead\"");
  CHECK(csv_field("trail ") == "\"trail \"");
}

TEST_CASE("csv_line and csv_parse round-trip rows of nasty fields") {
  const std::vector<std::vector<std::string>> rows{
      {"plain", "", "a,b", "\"quoted\"", "line\nbreak", " lead", "trail ", "crlf\r\ninside"},
      {"", "", ""},
      {"last field empty", ""},
      {"only"},
      {",", "\"\"", "\n", ",\",\n"},
      {"utf-8 \xc2\xb5s", "tab\there", "semi;colon=1"},
  };
  std::string doc;
  for (const auto& r : rows) {
    const std::string line = csv_line(r);
    CHECK(line.back() == '\n');
    CHECK(csv_parse(line) == std::vector<std::vector<std::string>>{r});
    doc += line;
  }
  CHECK(csv_parse(doc) == rows);
  // Without the final newline, and with CRLF line ends, the same rows come back.
  CHECK(csv_parse(doc.substr(0, doc.size() - 1)) == rows);
  CHECK(csv_parse("a,b\r\nc,d\r\n") == std::vector<std::vector<std::string>>{{"a", "b"}, {"c", "d"}});
  CHECK(csv_parse("").empty());
}

TEST_CASE("csv_parse throws on an unterminated quoted field") {
  CHECK_THROWS_AS(csv_parse("a,\"b\n"), std::runtime_error);
  CHECK_THROWS_AS(csv_parse("\""), std::runtime_error);
  CHECK_THROWS_AS(csv_parse("x\n\"never closed,\"\"\n"), std::runtime_error);
}

TEST_CASE("write_file_atomic writes the content, replaces an existing file and leaves no temporary file") {
  TempDir dir;
  const std::string path = dir / "out.csv";
  const std::string first = std::string("a,b\n1,2\n") + std::string(1, '\0') + "binary\xff";
  write_file_atomic(path, first);
  CHECK(read_file(path) == first);
  CHECK_FALSE(tlab_test::any_tmp_file(dir.path()));

  const std::string big(3 << 20, 'x');  // larger than one write() may take
  write_file_atomic(path, big);
  CHECK(read_file(path) == big);
  write_file_atomic(path, "");
  CHECK(read_file(path) == "");
  CHECK(tlab_test::list_dir(dir.path()) == std::vector<std::string>{"out.csv"});
}

TEST_CASE("write_file_atomic throws naming the path when the folder is missing or unwritable") {
  TempDir dir;
  const std::string missing = dir / "no-such-folder/out.csv";
  check_throws_naming([&] { write_file_atomic(missing, "x"); }, missing);
  CHECK(tlab_test::list_dir(dir.path()).empty());

  const std::string under_file = "/etc/passwd/out.csv";  // a file used as a folder
  check_throws_naming([&] { write_file_atomic(under_file, "x"); }, under_file);
  const std::string in_proc = "/proc/tlab-test-out.csv";  // nobody, root included, creates files here
  check_throws_naming([&] { write_file_atomic(in_proc, "x"); }, in_proc);

  if (geteuid() != 0) {  // root writes through permission bits
    const std::string ro = dir / "read-only";
    REQUIRE(mkdir(ro.c_str(), 0555) == 0);
    check_throws_naming([&] { write_file_atomic(ro + "/out.csv", "x"); }, ro + "/out.csv");
    CHECK(tlab_test::list_dir(ro).empty());
  }

  // A folder in the way of the target: the rename fails, and the temporary file goes.
  const std::string in_the_way = dir / "is-a-folder";
  REQUIRE(mkdir(in_the_way.c_str(), 0755) == 0);
  check_throws_naming([&] { write_file_atomic(in_the_way, "x"); }, in_the_way);
  CHECK_FALSE(tlab_test::any_tmp_file(dir.path()));
}

TEST_CASE("make_dirs creates nested folders, accepts existing ones and fails where a component is a file") {
  TempDir dir;
  const std::string nested = dir / "a/b/c";
  make_dirs(nested);
  struct stat st {};
  REQUIRE(stat(nested.c_str(), &st) == 0);
  CHECK(S_ISDIR(st.st_mode));
  CHECK_NOTHROW(make_dirs(nested));
  CHECK_NOTHROW(make_dirs(nested + "/"));
  CHECK_NOTHROW(make_dirs(dir / "a//b/d"));
  CHECK(stat((dir / "a/b/d").c_str(), &st) == 0);

  const std::string file = dir / "plain-file";
  write_plain(file, "x");
  check_throws_naming([&] { make_dirs(file + "/sub/deeper"); }, file);
  check_throws_naming([&] { make_dirs(file); }, file);
  check_throws_naming([&] { make_dirs("/proc/tlab-no-such/x"); }, "/proc/tlab-no-such");
}

TEST_CASE("read_file throws naming a missing file") {
  TempDir dir;
  check_throws_naming([&] { read_file(dir / "absent"); }, dir / "absent");
}

}  // TEST_SUITE("csv")

TEST_SUITE("results") {

namespace {
Variant odd_variant() {
  Variant v;
  v.name = "test/odd, \"name\"";
  v.family = "test family";
  v.params = {{"threshold", "128"}, {"opt", "O3"}};
  v.kernels = instantiate<double>([](auto, const Operands&) {});
  return v;
}
}  // namespace

TEST_CASE("the results CSV header is results_columns and every row has as many fields as the header") {
  const Variant v = odd_variant();
  Result a{{&v, DType::f64, {3, 5}}, {summarize({1e-3, 2e-3, 3e-3, 4e-3, 5e-3, 6e-3, 7e-3}), "ci"}, "warm"};
  Result b{{&v, DType::f64, {5, 3}}, {summarize({2e-6}), "budget"}, "cold"};
  const std::string doc = results_csv("01-test", {a, b});
  const auto rows = csv_parse(doc);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0] == results_columns());
  CHECK(results_row("01-test", a).size() == results_columns().size());
  const auto& cols = results_columns();
  auto col = [&](const std::vector<std::string>& row, const std::string& name) {
    for (std::size_t i = 0; i < cols.size(); ++i)
      if (cols[i] == name) return row.at(i);
    FAIL("no column " << name);
    return std::string();
  };
  for (std::size_t r = 1; r < rows.size(); ++r) {
    CAPTURE(r);
    REQUIRE(rows[r].size() == cols.size());
    CHECK(col(rows[r], "experiment") == "01-test");
    CHECK(col(rows[r], "variant") == v.name);
    CHECK(col(rows[r], "family") == v.family);
    CHECK(col(rows[r], "params") == "threshold=128;opt=O3");
    CHECK(col(rows[r], "dtype") == "double");
    CHECK(col(rows[r], "elem_bytes") == "8");
    CHECK(col(rows[r], "bytes_moved") == "240");  // 2 * 15 * 8
    CHECK(col(rows[r], "verified") == "yes");
    const double median = std::stod(col(rows[r], "median_s"));
    const double gbs = std::stod(col(rows[r], "gbs"));
    CHECK(gbs == doctest::Approx(240 / median / 1e9).epsilon(1e-5));
    CHECK(std::stod(col(rows[r], "gbs_ci_lo")) <= gbs);
    CHECK(std::stod(col(rows[r], "gbs_ci_hi")) >= gbs);
    CHECK(std::stod(col(rows[r], "ci_lo_s")) <= median);
    CHECK(std::stod(col(rows[r], "ci_hi_s")) >= median);
  }
  CHECK(col(rows[1], "rows") == "3");
  CHECK(col(rows[1], "cols") == "5");
  CHECK(col(rows[1], "reps") == "7");
  CHECK(col(rows[1], "stop") == "ci");
  CHECK(col(rows[1], "cache") == "warm");
  CHECK(std::stod(col(rows[1], "median_s")) == doctest::Approx(4e-3));
  CHECK(col(rows[2], "rows") == "5");
  CHECK(col(rows[2], "reps") == "1");
  CHECK(col(rows[2], "stop") == "budget");
  CHECK(col(rows[2], "cache") == "cold");
  CHECK(bandwidth_gbs(a) == doctest::Approx(240 / 4e-3 / 1e9));
  // An empty run still has the header.
  CHECK(csv_parse(results_csv("01-test", {})) == std::vector<std::vector<std::string>>{results_columns()});
}

TEST_CASE("the summary CSV header is summary_columns and rows round-trip with nasty fields") {
  auto make = [](std::string metric, std::string subject, std::string value, std::string unit, std::string detail) {
    SummaryRow r{};
    r.metric = std::move(metric);
    r.subject = std::move(subject);
    r.value = std::move(value);
    r.unit = std::move(unit);
    r.detail = std::move(detail);
    return r;
  };
  const std::vector<SummaryRow> in{make("speedup-O0-to-O3", "cpu/inplace-naive", "3.25", "x", "int32 256x256"),
                                   make("best, \"threshold\"", "cpu/x*@O3", "NA", "", "a\nb")};
  const auto rows = csv_parse(summary_csv("01-test", in));
  REQUIRE(rows.size() == 3);
  CHECK(rows[0] == summary_columns());
  const auto& cols = summary_columns();
  auto col = [&](const std::vector<std::string>& row, const std::string& name) {
    for (std::size_t i = 0; i < cols.size(); ++i)
      if (cols[i] == name) return row.at(i);
    FAIL("no column " << name);
    return std::string();
  };
  for (std::size_t r = 1; r < 3; ++r) {
    REQUIRE(rows[r].size() == cols.size());
    const SummaryRow& s = in[r - 1];
    CHECK(col(rows[r], "experiment") == "01-test");
    CHECK(col(rows[r], "metric") == s.metric);
    CHECK(col(rows[r], "subject") == s.subject);
    CHECK(col(rows[r], "value") == s.value);
    CHECK(col(rows[r], "unit") == s.unit);
    CHECK(col(rows[r], "detail") == s.detail);
  }
}

TEST_CASE("median_of finds a result by variant, type and shape, and is negative when absent") {
  const Variant v = odd_variant();
  Result a{{&v, DType::f64, {3, 5}}, {summarize({1.0, 2.0, 3.0}), "ci"}, "warm"};
  Result b{{&v, DType::f64, {5, 3}}, {summarize({7.0}), "ci"}, "warm"};
  CHECK(median_of({a, b}, v.name, DType::f64, {3, 5}) == 2.0);
  CHECK(median_of({a, b}, v.name, DType::f64, {5, 3}) == 7.0);
  CHECK(median_of({a, b}, v.name, DType::f32, {3, 5}) < 0);
  CHECK(median_of({a, b}, "other", DType::f64, {3, 5}) < 0);
  CHECK(median_of({}, v.name, DType::f64, {3, 5}) < 0);
}

TEST_CASE("format_number keeps the requested significant digits") {
  CHECK(format_number(1.0 / 3.0) == "0.333333");
  CHECK(format_number(1234567.0, 4) == "1.235e+06");
  CHECK(std::stod(format_number(2.5e-7)) == 2.5e-7);
}

}  // TEST_SUITE("results")
