// Experiment 13: the library call (tlab::Plan, "gpu/api") against the best registered
// kernels, cuBLAS geam and memcpy, for element sizes 1 to 16 bytes, out of place and in
// place, on powers of two, non-multiples of every tile, primes and 256:1 / 1:256 shapes.
// Summary rows name the kernel the plan chose for each case and why.
#include "tlab/experiment.hpp"

namespace {
const std::vector<tlab::DType> kTypes{tlab::DType::u8, tlab::DType::u16, tlab::DType::f32, tlab::DType::f64,
                                      tlab::DType::c128};
}

int main(int argc, char** argv) {
  tlab::ExperimentSpec spec{
      "13-best-transpose", "the library's choice against the best kernels, cuBLAS and memcpy, 1..16-byte elements",
      tlab::parse_sizes("2048,8192,16384,8200,8191,4099,16384x1024,1024x16384,65536x256,256x65536,12288x8192,16381x1021"),
      tlab::parse_sizes("1000,1024,1024x256,256x1024")};
  return tlab::experiment_main(argc, argv, spec, [](tlab::ExperimentRun& run) {
    const auto& shapes = run.options().shapes;
    run.run({tlab::variants_matching({"gpu/api", "gpu/word/*", "gpu/tma/*", "gpu/unrolled/t32x8-pad", "gpu/unrolled/t64x4-pad",
                                      "gpu/unrolled/t32x8-pad-out",
                                      "gpu/rect/r256c32x8", "gpu/tiled/t16-swizzle", "gpu/cublas-geam",
                                      "gpu/copy-kernel", "gpu/copy-kernel-wide", "gpu/copy-bulk", "gpu/memcpy"}),
             kTypes, shapes});
    // In place: square shapes through the tile-pair kernels; the others through the two
    // rectangular decompositions (blocks where the sides share a large factor, so not at
    // 16381 x 1021, two primes).
    std::vector<tlab::Shape> square, rect;
    for (const tlab::Shape& s : shapes) (s.square() ? square : rect).push_back(s);
    run.run({tlab::variants_matching({"gpu/api-inplace", "gpu/word-inplace/*", "gpu/inplace-tiled/t32x8"}), kTypes, square});
    run.run({tlab::variants_matching({"gpu/api-inplace", "gpu/inplace-rect/*"}), kTypes, rect});
    if (run.results().empty()) return;
    tlab::add_percent_of(run, "gpu/memcpy");
    tlab::add_best_of_family(run);
    // The plan against the fastest registered kernel of its placement, same run: the copies
    // and cuBLAS are the ceiling and the rival, not candidates the plan could have chosen.
    const std::vector<std::string> not_candidates{"gpu/api*", "gpu/memcpy", "gpu/copy-*", "gpu/cublas-geam"};
    for (const char* plan : {"gpu/api", "gpu/api-inplace"}) tlab::add_percent_of_fastest(run, plan, not_candidates);
    // The plan against cuBLAS, same type and shape, same run: positive means ahead.
    for (const tlab::Result& geam : run.results()) {
      if (geam.config.variant->name != "gpu/cublas-geam") continue;
      for (const tlab::Result& api : run.results())
        if (api.config.variant->name == "gpu/api" && api.config.dtype == geam.config.dtype &&
            api.config.shape == geam.config.shape)
          run.add_summary({"api-over-geam", "gpu/api",
                           tlab::format_number(100 * (tlab::bandwidth_gbs(api) / tlab::bandwidth_gbs(geam) - 1), 3), "%",
                           std::string(tlab::dtype_name(api.config.dtype)) + " " + tlab::to_string(api.config.shape),
                           tlab::dtype_name(api.config.dtype), api.config.shape.rows, api.config.shape.cols});
    }
    for (tlab::DType t : kTypes)
      for (const tlab::Shape& s : shapes)
        for (tlab::Placement p : {tlab::Placement::out_of_place, tlab::Placement::in_place}) {
          std::string why;
          const std::string kernel = tlab::api_choice(t, s, p, &why);
          run.add_summary({std::string("api-choice-") + tlab::placement_name(p), kernel, "1", "", why,
                           tlab::dtype_name(t), s.rows, s.cols});
        }
  });
}
