// The command line shared by every experiment program.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tlab/cli.hpp"

using namespace tlab;

namespace {

ExperimentSpec spec() {
  return {"99-test", "a test experiment", {{1024, 1024}, {2048, 2048}}, {{64, 64}}};
}

Options parse(std::vector<std::string> args) {
  args.insert(args.begin(), "exp-test");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return parse_experiment_args(static_cast<int>(args.size()), argv.data(), spec());
}

std::string shapes_str(const std::vector<Shape>& v) {
  std::string s;
  for (Shape x : v) s += (s.empty() ? "" : ",") + to_string(x);
  return s;
}

}  // namespace

TEST_SUITE("cli") {

TEST_CASE("parse_sizes reads plain sizes, rows x cols, powers of two, ranges and lists") {
  CHECK(shapes_str(parse_sizes("256")) == "256x256");
  CHECK(shapes_str(parse_sizes("4000x5000")) == "4000x5000");
  CHECK(shapes_str(parse_sizes("2^14")) == "16384x16384");
  CHECK(shapes_str(parse_sizes("2^8..2^10")) == "256x256,512x512,1024x1024");
  CHECK(shapes_str(parse_sizes("2^4..2^4")) == "16x16");
  CHECK(shapes_str(parse_sizes("1")) == "1x1");
  CHECK(shapes_str(parse_sizes("17,2^5,3x1000")) == "17x17,32x32,3x1000");
  CHECK(shapes_str(parse_sizes("2^22")) == "4194304x4194304");
  CHECK(shapes_str(parse_sizes("4194304")) == "4194304x4194304");
  CHECK(shapes_str(parse_sizes("2^3x7")) == "8x7");
}

TEST_CASE("parse_sizes rejects empty, zero, negative, malformed and absurd sizes with a UsageError") {
  for (const char* bad : {"", "0", "-5", "abc", "12x", "x12", "2^99", "2^10..2^8", "1,,2", ",256", "256,",
                          "99999999999999999999", "4194305", "2^23", "2^", "2^-1", "1x2x3", "0x5", "5x0",
                          "256..512", "2^8..", "..2^8", " 256", "25 6", "+5", "1.5", "2^8..2^10x3"}) {
    CAPTURE(std::string(bad));
    CHECK_THROWS_AS(parse_sizes(bad), UsageError);
  }
}

TEST_CASE("parse_experiment_args rejects unknown flags, missing or bad values and conflicting options") {
  const std::vector<std::vector<std::string>> bad{
      {"--bogus"},          {"-x"},           {"quick"},          {"--out"},         {"--sizes"},
      {"--reps"},           {"--budget"},     {"--variants"},     {"--reps", "0"},   {"--reps", "abc"},
      {"--reps", "-3"},     {"--reps", "2000000"}, {"--budget", "-1"}, {"--budget", "0"}, {"--budget", "abc"},
      {"--budget", "nan"},  {"--budget", "inf"},   {"--budget", "3601"}, {"--budget", "1s"}, {"--budget", ""},
      {"--reps", "5", "--budget", "1"}, {"--budget", "1", "--reps", "5"}, {"--sizes", "0"}, {"--out", ""},
      {"--quick", "--sizes", "2^99"}};
  for (const auto& args : bad) {
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    CAPTURE(joined);
    CHECK_THROWS_AS(parse(args), UsageError);
  }
}

TEST_CASE("parse_experiment_args gives the spec's sizes by default and the quick sizes with --quick") {
  Options o = parse({});
  CHECK(o.experiment == "99-test");
  CHECK(shapes_str(o.shapes) == "1024x1024,2048x2048");
  CHECK_FALSE(o.quick);
  CHECK_FALSE(o.list);
  CHECK(o.variant_glob == "*");
  CHECK(o.out_dir != "");
  CHECK(o.command_line == "exp-test");

  const TimingPolicy defaults;
  Options q = parse({"--quick"});
  CHECK(q.quick);
  CHECK(shapes_str(q.shapes) == "64x64");
  CHECK(q.timing.budget_s < defaults.budget_s);

  Options qs = parse({"--quick", "--sizes", "2^5", "--budget", "0.5"});
  CHECK(shapes_str(qs.shapes) == "32x32");
  CHECK(qs.timing.budget_s == 0.5);

  Options l = parse({"--list", "--variants", "cpu/*@O3", "--out", "/tmp/somewhere", "--sizes", "2^4"});
  CHECK(l.list);
  CHECK(l.variant_glob == "cpu/*@O3");
  CHECK(l.out_dir == "/tmp/somewhere");
  CHECK(l.command_line == "exp-test --list --variants cpu/*@O3 --out /tmp/somewhere --sizes 2^4");
}

TEST_CASE("--types narrows the element types, accepts the usual spellings and rejects unknown ones") {
  CHECK(parse({}).types.empty());
  const Options o = parse({"--types", "float,double,int"});
  REQUIRE(o.types.size() == 3);
  CHECK(o.types[0] == tlab::DType::f32);
  CHECK(o.types[1] == tlab::DType::f64);
  CHECK(o.types[2] == tlab::DType::i32);
  CHECK_THROWS_AS(parse({"--types", "float,complex7"}), tlab::UsageError);
  CHECK_THROWS_AS(parse({"--types", ""}), tlab::UsageError);
  CHECK_THROWS_AS(parse({"--types"}), tlab::UsageError);
  CHECK_THROWS_AS(parse({"--out", "--quick"}), tlab::UsageError);  // a flag is not a folder name
}

TEST_CASE("--reps N gives exactly N repetitions and no time budget; --budget sets the budget") {
  Options o = parse({"--reps", "5"});
  CHECK(o.timing.min_reps == 5);
  CHECK(o.timing.max_reps == 5);
  CHECK(std::isinf(o.timing.budget_s));
  Options q = parse({"--quick", "--reps", "3"});
  CHECK(q.timing.min_reps == 3);
  CHECK(q.timing.max_reps == 3);
  CHECK(std::isinf(q.timing.budget_s));

  Options b = parse({"--budget", "0.01"});
  CHECK(b.timing.budget_s == 0.01);
  CHECK(b.timing.max_reps >= b.timing.min_reps);
}

}  // TEST_SUITE("cli")
