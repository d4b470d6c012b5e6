// Program level: runs the experiment-01 binary (path in $TLAB_EXP01, set by meson) and
// checks exit codes, messages and what it leaves in its results folder.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdlib>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "support.hpp"
#include "tlab/csv.hpp"
#include "tlab/env.hpp"
#include "tlab/results.hpp"

using tlab_test::TempDir;

namespace {

struct Outcome {
  int code = -1;
  std::string out, err;
};

std::string exp01() {
  const char* p = std::getenv("TLAB_EXP01");
  return p ? p : "";
}

// Runs the program with `args` (plain words, no single quotes), stdout and stderr captured.
Outcome run_exp01(const std::vector<std::string>& args) {
  TempDir io;
  std::string cmd = "'" + exp01() + "'";
  for (const auto& a : args) cmd += " '" + a + "'";
  cmd += " >'" + (io / "out") + "' 2>'" + (io / "err") + "' </dev/null";
  const int status = std::system(cmd.c_str());
  Outcome o;
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  o.out = tlab::read_file(io / "out");
  o.err = tlab::read_file(io / "err");
  return o;
}

bool exists(const std::string& p) {
  struct stat st {};
  return stat(p.c_str(), &st) == 0;
}

std::size_t count_lines(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// A usage error: exit 2, exactly one line on stderr that names `needle`, nothing written.
void check_usage_error(const std::vector<std::string>& args, const std::string& needle) {
  TempDir dir;
  bool has_out = false;
  for (const auto& a : args) has_out = has_out || a == "--out";
  std::vector<std::string> full;
  if (!has_out) full = {"--out", dir / "results"};  // first, so that a flag missing its value stays last
  full.insert(full.end(), args.begin(), args.end());
  const Outcome o = run_exp01(full);
  CHECK(o.code == 2);
  CHECK_MESSAGE(count_lines(o.err) == 1, "stderr: " << o.err);
  CHECK_MESSAGE(o.err.find(needle) != std::string::npos, "stderr: " << o.err);
  CHECK(o.out == "");
  CHECK_FALSE(exists(dir / "results"));
}

}  // namespace

TEST_SUITE("program") {

TEST_CASE("the experiment binary is there to test") {
  REQUIRE_MESSAGE(exp01() != "", "set TLAB_EXP01 to the exp-01-cpu-opt-levels binary (meson test does)");
  CHECK(exists(exp01()));
}

TEST_CASE("experiment 01 exits 2 with a one-line message for bad command lines and writes nothing") {
  REQUIRE(exp01() != "");
  check_usage_error({"--bogus"}, "--bogus");
  check_usage_error({"--sizes", "0"}, "size");
  check_usage_error({"--sizes", "2^99"}, "2^99");
  check_usage_error({"--reps", "0"}, "--reps");
  check_usage_error({"--reps", "5", "--budget", "1"}, "--budget");
  check_usage_error({"--sizes"}, "--sizes");
  check_usage_error({"--out", "/proc/nonexistent/x", "--sizes", "2^4"}, "/proc/nonexistent");
  check_usage_error({"--out", "/etc/passwd/x", "--sizes", "2^4"}, "/etc/passwd");
}

TEST_CASE("experiment 01 --help prints usage and exits 0") {
  REQUIRE(exp01() != "");
  const Outcome o = run_exp01({"--help"});
  CHECK(o.code == 0);
  CHECK(o.out.find("usage") != std::string::npos);
  CHECK(o.out.find("--sizes") != std::string::npos);
}

TEST_CASE("experiment 01 --list prints its configurations, runs nothing and writes nothing") {
  REQUIRE(exp01() != "");
  TempDir dir;
  const Outcome o = run_exp01({"--list", "--sizes", "2^4", "--out", dir / "results"});
  CHECK(o.code == 0);
  std::istringstream lines(o.out);
  std::string line;
  std::size_t n = 0;
  std::set<std::string> levels;
  while (std::getline(lines, line)) {
    CAPTURE(line);
    CHECK(line.rfind("cpu/", 0) == 0);
    CHECK(line.find(" int32 16x16") != std::string::npos);
    levels.insert(line.substr(line.find('@') + 1, 2));
    ++n;
  }
  CHECK(n >= 16);  // four algorithms at four optimisation levels, at least
  CHECK(levels == std::set<std::string>{"O0", "O1", "O2", "O3"});
  CHECK_FALSE(exists(dir / "results"));
}

TEST_CASE("a tiny run of experiment 01 writes a verified results CSV matching its listing, atomically") {
  REQUIRE(exp01() != "");
  TempDir dir;
  const Outcome listed = run_exp01({"--list", "--sizes", "2^4..2^5", "--out", dir / "listing"});
  REQUIRE(listed.code == 0);
  CHECK_FALSE(exists(dir / "listing"));
  std::set<std::string> want;
  {
    std::istringstream in(listed.out);
    for (std::string l; std::getline(in, l);) want.insert(l);
  }

  const Outcome o = run_exp01({"--sizes", "2^4..2^5", "--budget", "0.01", "--out", dir.path()});
  REQUIRE_MESSAGE(o.code == 0, "stderr: " << o.err);
  const std::string csv = dir / "01-cpu-opt-levels.csv";
  REQUIRE(exists(csv));
  const auto rows = tlab::csv_parse(tlab::read_file(csv));
  REQUIRE(rows.size() >= 2);
  const auto& cols = tlab::results_columns();
  CHECK(rows[0] == cols);
  auto at = [&](const std::vector<std::string>& row, const std::string& name) {
    for (std::size_t i = 0; i < cols.size() && i < row.size(); ++i)
      if (cols[i] == name) return row[i];
    return std::string("<missing>");
  };
  std::set<std::string> got;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    CAPTURE(r);
    REQUIRE(rows[r].size() == cols.size());
    CHECK(at(rows[r], "experiment") == "01-cpu-opt-levels");
    CHECK(at(rows[r], "verified") == "yes");
    CHECK(std::stoi(at(rows[r], "reps")) >= 1);
    const std::string stop = at(rows[r], "stop");
    CHECK((stop == "ci" || stop == "budget" || stop == "max-reps"));
    CHECK(std::stod(at(rows[r], "median_s")) > 0);
    CHECK(std::stod(at(rows[r], "gbs")) > 0);
    got.insert(at(rows[r], "variant") + " " + at(rows[r], "dtype") + " " + at(rows[r], "rows") + "x" +
               at(rows[r], "cols"));
  }
  CHECK(rows.size() - 1 == got.size());  // one row per configuration
  CHECK(got == want);                    // exactly what --list promised

  const std::string summary = dir / "01-cpu-opt-levels-summary.csv";
  REQUIRE(exists(summary));
  const auto srows = tlab::csv_parse(tlab::read_file(summary));
  REQUIRE(srows.size() >= 2);
  CHECK(srows[0] == tlab::summary_columns());
  for (std::size_t r = 1; r < srows.size(); ++r) CHECK(srows[r].size() == srows[0].size());

  const auto env = tlab::parse_flat_json(tlab::read_file(dir / "01-cpu-opt-levels.env.json"));
  bool has_cmd = false;
  for (const auto& kv : env) has_cmd = has_cmd || (kv.first == "command_line" && kv.second.find("2^4..2^5") != std::string::npos);
  CHECK(has_cmd);
  CHECK(exists(dir / "env.json"));
  CHECK_FALSE(tlab_test::any_tmp_file(dir.path()));

  // A later run with a bad flag leaves the earlier results exactly as they were.
  const std::string before = tlab::read_file(csv);
  const Outcome bad = run_exp01({"--sizes", "2^4", "--bogus", "--out", dir.path()});
  CHECK(bad.code == 2);
  CHECK(tlab::read_file(csv) == before);
  CHECK_FALSE(tlab_test::any_tmp_file(dir.path()));
}

}  // TEST_SUITE("program")
