// Experiment 05: several elements per thread. Seed 004's (TILE, SIDE) = (32,16), (32,8),
// (64,16) and the rest of the grid, padded and swizzled, against one element per thread.
#include "tlab/experiment.hpp"

int main(int argc, char** argv) {
  tlab::ExperimentSpec spec{"05-gpu-unrolling", "unrolled tiled transposes: the (TILE, SIDE) grid",
                            tlab::parse_sizes("4000,8192,16384"), tlab::parse_sizes("1000,1024")};
  return tlab::experiment_main(argc, argv, spec, [](tlab::ExperimentRun& run) {
    run.run({tlab::variants_matching({"gpu/unrolled/*-pad", "gpu/unrolled/*-swizzle", "gpu/tiled/t16-pad",
                                      "gpu/tiled/t32-pad", "gpu/tiled/t32-swizzle", "gpu/memcpy"}),
             {tlab::DType::f32}, run.options().shapes});
    tlab::add_percent_of(run, "gpu/memcpy");
  });
}
