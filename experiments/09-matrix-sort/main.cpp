// Experiment 09: sorting a matrix so that every row and column is non-decreasing (seed 003),
// on the CPU: one pass sequential and threaded, and the seed's repeat-until-sorted loop with
// its iteration count. The GPU sorts are experiment 11.
#include "tlab/sort/sort_bench.hpp"

int main(int argc, char** argv) {
  tlab::ExperimentSpec spec{"09-matrix-sort", "row-and-column matrix sort on the CPU, and the seed's loop",
                            tlab::parse_sizes("1024,2048,4096,4096x1024,1024x4096"),
                            tlab::parse_sizes("256,1024,1024x256")};
  return tlab::experiment_main(argc, argv, spec,
                               [](tlab::ExperimentRun& run) { tlab::sort::run_sort_sweep(run, {{"cpu/*"}, {}, false}); });
}
