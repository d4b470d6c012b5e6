// Experiment 02: seed 000's block-size sweep (its Table II), with correct kernels: naive and
// tiled, in place and out of place, block sizes 4..32, square int32 2^8..2^14, memcpy as roof.
#include "tlab/experiment.hpp"

int main(int argc, char** argv) {
  tlab::ExperimentSpec spec{"02-gpu-block-sizes", "GPU naive and tiled transposes across block sizes (seed 000, Table II)",
                            tlab::parse_sizes("2^8..2^14"), tlab::parse_sizes("2^8..2^10")};
  return tlab::experiment_main(argc, argv, spec, [](tlab::ExperimentRun& run) {
    run.run({tlab::variants_matching({"gpu/inplace-naive/b*", "gpu/inplace-tiled/*", "gpu/naive-rowread/b*",
                                      "gpu/naive-colread/b*", "gpu/tiled/t*-pad", "gpu/memcpy"}),
             {tlab::DType::i32}, run.options().shapes});
    tlab::add_percent_of(run, "gpu/memcpy");
    tlab::add_best_of_family(run);
  });
}
