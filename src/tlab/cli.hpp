// The command line shared by every experiment program.
#pragma once
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "tlab/dtype.hpp"
#include "tlab/matrix.hpp"
#include "tlab/timing.hpp"

namespace tlab {

// Bad input on the command line: main prints the message on one line and exits with 2.
struct UsageError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

struct ExperimentSpec {
  std::string name;         // "01-cpu-opt-levels": also the CSV's file name
  std::string description;  // one line for --help
  std::vector<Shape> sizes;        // full run
  std::vector<Shape> quick_sizes;  // --quick
};

struct Options {
  std::string experiment;
  std::string out_dir;             // results folder
  bool quick = false;
  bool list = false;               // print the variants this program would run and exit
  std::vector<Shape> shapes;       // from --sizes, or the spec's defaults
  std::string variant_glob = "*";  // --variants: narrows the experiment's own choice
  std::vector<DType> types;        // --types: narrows the experiment's element types (empty: all)
  TimingPolicy timing;
  std::string command_line;
};

// "256", "4000x5000", "2^14", "2^8..2^14" (powers of two), comma-separated.
// Throws UsageError for anything else, for zero, negative or absurd sizes.
std::vector<Shape> parse_sizes(const std::string& text);

// Parses argv; on --help prints usage to stdout and exits 0. Throws UsageError.
Options parse_experiment_args(int argc, char** argv, const ExperimentSpec& spec);

std::string default_results_dir();  // results/<machine-tag>

// A whole number in [lo, hi] written in digits (0 allowed where lo is), or UsageError naming
// `what`: the sizes' and --reps' parser, for the tools' and environment's counts.
std::int64_t parse_count(const std::string& text, const std::string& what, std::int64_t lo, std::int64_t hi);

// A small tool's main: runs body and maps what it throws to exit codes, one line on stderr:
// 3 a wrong result (VerificationError), 2 bad input (std::invalid_argument, UsageError
// among them: printed as is), 1 anything else. Returns body's code otherwise.
int tool_main(const char* name, const std::function<int()>& body);

}  // namespace tlab
