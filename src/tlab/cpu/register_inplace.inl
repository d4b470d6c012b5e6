// Registers the in-place CPU algorithms of inplace.hpp. Included by files that set
// TLAB_CPU_NS and TLAB_OPT_SUFFIX, once per optimisation level (see inplace.hpp for why).
#include <string>

#include "tlab/cpu/inplace.hpp"
#include "tlab/registry.hpp"

namespace tlab::cpu::TLAB_CPU_NS {

// Thresholds of seed 000's sweep; 128 was its best.
inline const std::int64_t kObliviousThresholds[] = {32, 64, 128, 256, 512};

inline void register_inplace(Registry& r, const std::string& suffix, const std::string& opt) {
  auto add = [&](std::string name, std::string family, std::vector<Param> params,
                 std::string note, auto body) {
    Variant v;
    v.name = name + suffix;
    v.family = family;
    v.backend = Backend::cpu;
    v.placement = Placement::in_place;
    v.square_only = true;
    v.note = std::move(note);
    v.params = std::move(params);
    v.params.push_back({"opt", opt});
    v.kernels = instantiate_all(body);
    r.add(std::move(v));
  };
  auto view = [](auto tag, const Operands& op) {
    using T = decltype(tag);
    return MatrixView<T>(static_cast<T*>(op.out), op.shape.rows, op.shape.cols);
  };
  add("cpu/inplace-naive", "cpu-inplace-naive", {}, "swap each element above the diagonal (seed 000, Alg. 1)",
      [view](auto tag, const Operands& op) { inplace_naive(view(tag, op)); });
  add("cpu/inplace-prefetch", "cpu-inplace-prefetch", {},
      "naive swap with __builtin_prefetch of the next row and column (seed 000, Alg. 2)",
      [view](auto tag, const Operands& op) { inplace_prefetch(view(tag, op)); });
  for (std::int64_t t : kObliviousThresholds) {
    const std::string ts = std::to_string(t);
    add("cpu/inplace-oblivious/t" + ts, "cpu-inplace-oblivious", {{"threshold", ts}},
        "cache-oblivious recursion, off-diagonal blocks swapped in one pass",
        [view, t](auto tag, const Operands& op) { inplace_oblivious(view(tag, op), t); });
    add("cpu/inplace-oblivious-seed/t" + ts, "cpu-inplace-oblivious-seed", {{"threshold", ts}},
        "seed 000's Alg. 3: transpose four quadrants, then swap two of them",
        [view, t](auto tag, const Operands& op) { inplace_oblivious_seed(view(tag, op), t); });
  }
}

}  // namespace tlab::cpu::TLAB_CPU_NS
