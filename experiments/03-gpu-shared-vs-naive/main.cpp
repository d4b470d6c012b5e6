// Experiment 03: does staging through shared memory pay, out of place and in place, across
// sizes and element types (seeds 001, 004)?
#include "tlab/experiment.hpp"

int main(int argc, char** argv) {
  tlab::ExperimentSpec spec{"03-gpu-shared-vs-naive", "GPU naive vs shared-memory tiled, in and out of place, int32/float/double",
                            tlab::parse_sizes("1024,2048,4000,4096,8192,16384"), tlab::parse_sizes("256,1000,1024")};
  return tlab::experiment_main(argc, argv, spec, [](tlab::ExperimentRun& run) {
    run.run({tlab::variants_matching({"gpu/naive-rowread/b16", "gpu/naive-rowread/b32", "gpu/naive-colread/b16",
                                      "gpu/naive-colread/b32", "gpu/tiled/t16-pad", "gpu/tiled/t32-pad",
                                      "gpu/inplace-naive/b16", "gpu/inplace-naive/b32", "gpu/inplace-tiled/*", "gpu/memcpy"}),
             {tlab::DType::i32, tlab::DType::f32, tlab::DType::f64}, run.options().shapes});
    tlab::add_percent_of(run, "gpu/memcpy");
    tlab::add_best_of_family(run);
  });
}
