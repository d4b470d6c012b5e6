// The library call as two registered variants, so that experiments time and verify
// tlab::Plan exactly as they do every kernel: one plan per (type, shape, device), made at
// the first call (the executor's verification run) and reused by the timed runs.
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "tlab/device_memory.hpp"
#include "tlab/transpose.hpp"

namespace tlab {
namespace {

const Plan& cached_plan(DType t, Shape s, Placement p) {
  static std::mutex m;
  static std::map<std::tuple<int, std::int64_t, std::int64_t, int, int>, std::unique_ptr<Plan>> plans;
  const auto key = std::make_tuple(static_cast<int>(t), s.rows, s.cols, static_cast<int>(p), current_device().index);
  std::lock_guard<std::mutex> lock(m);
  auto& slot = plans[key];
  if (!slot) slot = std::make_unique<Plan>(t, s.rows, s.cols, p, Memory::device);
  return *slot;
}

Variant api_variant(const std::string& name, Placement p, const std::string& note) {
  Variant v;
  v.name = name;
  v.family = "api";
  v.backend = Backend::gpu;
  v.placement = p;
  v.any_shape = p == Placement::in_place;
  v.note = note;
  return v;
}

}  // namespace

std::string api_choice(DType t, Shape s, Placement p, std::string* reason) {
  const Plan& plan = cached_plan(t, s, p);
  if (reason) *reason = plan.reason();
  return plan.kernel();
}

void register_api_variants(Registry& r) {
  Variant out = api_variant("gpu/api", Placement::out_of_place, "tlab::Plan: the kernel its tuning table picks");
  out.kernels = instantiate_all([](auto tag, const Operands& op) {
    cached_plan(dtype_of<decltype(tag)>::value, op.shape, Placement::out_of_place).execute(op.out, op.in, op.stream);
  });
  r.add(std::move(out));
  Variant in = api_variant("gpu/api-inplace", Placement::in_place, "tlab::Plan in place, any shape");
  in.kernels = instantiate_all([](auto tag, const Operands& op) {
    cached_plan(dtype_of<decltype(tag)>::value, op.shape, Placement::in_place).execute_in_place(op.out, op.stream);
  });
  r.add(std::move(in));
}

}  // namespace tlab
