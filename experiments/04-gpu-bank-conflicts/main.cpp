// Experiment 04: shared-memory bank conflicts. The same tiled kernel with three layouts of
// its tile (plain, +1 padding, seed 004's swizzle) for tiles 8, 16, 32.
#include "tlab/experiment.hpp"

int main(int argc, char** argv) {
  tlab::ExperimentSpec spec{"04-gpu-bank-conflicts", "tiled transposes with plain, padded and swizzled shared-memory tiles",
                            tlab::parse_sizes("4000,4096,8192,16384"), tlab::parse_sizes("1000,1024")};
  return tlab::experiment_main(argc, argv, spec, [](tlab::ExperimentRun& run) {
    run.run({tlab::variants_matching({"gpu/tiled/t8-*", "gpu/tiled/t16-*", "gpu/tiled/t32-*", "gpu/unrolled/t32x8-*",
                                      "gpu/memcpy"}),
             {tlab::DType::f32, tlab::DType::f64}, run.options().shapes});
    tlab::add_percent_of(run, "gpu/memcpy");
  });
}
