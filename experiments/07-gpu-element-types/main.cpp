// Experiment 07: element sizes 1, 2, 4, 8 and 16 bytes through the same generic kernels, on
// square, tall, wide and awkward shapes (seed 001's int/double and tile-width question).
// Every shape of the aspect-ratio family holds the same 2^24 elements, so only the shape moves.
#include "tlab/experiment.hpp"

int main(int argc, char** argv) {
  tlab::ExperimentSpec spec{
      "07-gpu-element-types", "element sizes 1..16 bytes and matrix shapes through the same generic kernels",
      tlab::parse_sizes("65536x256,16384x1024,8192x2048,4096x4096,2048x8192,1024x16384,256x65536,4000,4099,5000"),
      tlab::parse_sizes("4096x256,1024,256x4096,1000")};
  return tlab::experiment_main(argc, argv, spec, [](tlab::ExperimentRun& run) {
    run.run({tlab::variants_matching({"gpu/naive-rowread/b16", "gpu/tiled/t8-swizzle", "gpu/tiled/t16-swizzle",
                                      "gpu/tiled/t32-pad", "gpu/tiled/t32-swizzle", "gpu/cublas-geam", "gpu/copy-kernel",
                                      "gpu/memcpy"}),
             {tlab::DType::u8, tlab::DType::u16, tlab::DType::i32, tlab::DType::f32, tlab::DType::f64, tlab::DType::c128},
             run.options().shapes});
    tlab::add_percent_of(run, "gpu/memcpy");
    tlab::add_best_of_family(run);
  });
}
