// The variant registry: every kernel (CPU or GPU, transpose or roofline peer) is registered
// once, with its parameters, and found by name or glob. Experiments and tests enumerate it.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tlab/dtype.hpp"
#include "tlab/matrix.hpp"

namespace tlab {

enum class Backend { cpu, gpu };
enum class Placement { in_place, out_of_place };
// What a correct run leaves in the output: the transpose, or (roofline peers such as
// memcpy) an unchanged copy of the input.
enum class Produces { transpose, copy };

const char* backend_name(Backend b);
const char* placement_name(Placement p);

// Dense row-major operands. For in-place variants `in == out`. `stream` is a cudaStream_t
// for GPU variants (pointers are then device pointers) and null for CPU variants.
struct Operands {
  const void* in = nullptr;
  void* out = nullptr;
  Shape shape;  // shape of the input; the output is shape.transposed()
  void* stream = nullptr;
  // Elements from one output row to the next; 0: dense (shape.rows). Read only by variants
  // with takes_out_pitch, so that an output block can land inside a larger matrix.
  std::int64_t out_pitch = 0;
  // Elements from one input row to the next; 0: dense (shape.cols). Read only by variants
  // with takes_in_pitch, so that the input can be a block of a larger matrix.
  std::int64_t in_pitch = 0;
  // Working memory of Variant::scratch_bytes(t, shape) bytes on the variant's backend, owned
  // by the caller (a plan); null: the variant keeps its own.
  void* scratch = nullptr;
};

using KernelFn = std::function<void(const Operands&)>;

struct Param {
  std::string key, value;
};

struct Variant {
  std::string name;    // unique: "family/detail", e.g. "cpu/inplace-oblivious/t128@O3"
  std::string family;  // groups variants for "best of family" questions
  Backend backend = Backend::cpu;
  Placement placement = Placement::out_of_place;
  Produces produces = Produces::transpose;
  bool square_only = false;
  // Registered so that a test can show it is wrong; runners refuse to time it as a transpose.
  bool known_wrong = false;
  bool takes_out_pitch = false;  // honours Operands::out_pitch
  bool takes_in_pitch = false;   // honours Operands::in_pitch
  bool any_shape = false;        // in place, yet any m x n (not only square)
  std::string note;  // one line for --list and the report
  // Throws std::invalid_argument when this process's environment makes the variant unusable
  // (TLAB_CPU_ISA asking for an instruction set this CPU lacks), so that a runner refuses the
  // run before measuring anything; empty for most variants.
  std::function<void()> check_environment;
  std::vector<Param> params;
  std::map<DType, KernelFn> kernels;
  // Working memory a run needs beyond its operands (see Operands::scratch); empty: none.
  std::function<std::int64_t(DType, Shape)> scratch_bytes;
  // Fills freshly allocated scratch once (a table the kernels read); empty: nothing to fill.
  std::function<void(DType, Shape, void*)> prepare_scratch;
  // Why a shape this variant's placement allows is still one it cannot take; empty: none.
  std::function<std::string(DType, Shape)> refuses_shape;

  bool supports(DType t) const { return kernels.count(t) != 0; }
  std::vector<DType> dtypes() const;
  std::string param(const std::string& key, const std::string& fallback = "") const;
  std::string params_string() const;  // "k=v;k=v", stable order
  // Bytes a transpose must move through memory: every element read once and written once.
  std::uint64_t bytes_moved(DType t, Shape s) const {
    return 2ull * static_cast<std::uint64_t>(s.elements()) * dtype_size(t);
  }
  // Why this variant cannot run on (t, s), or "" when it can.
  std::string refuses(DType t, Shape s) const;
};

// Builds the per-dtype kernel table from one generic callable `g(T{}, const Operands&)`,
// so that a variant's code is written once for every element type. Only the listed types
// are instantiated (each GPU instantiation costs compile time for every target arch).
template <typename... Ts, typename Generic> std::map<DType, KernelFn> instantiate(Generic g) {
  std::map<DType, KernelFn> table;
  ((table[dtype_of<Ts>::value] = [g](const Operands& op) { g(Ts{}, op); }), ...);
  return table;
}

// Every element type of dtype.hpp.
template <typename Generic> std::map<DType, KernelFn> instantiate_all(Generic g) {
  return instantiate<std::uint8_t, std::uint16_t, std::int32_t, float, double, Complex128>(g);
}

class Registry {
 public:
  void add(Variant v);  // throws std::logic_error on a duplicate name
  const Variant& get(const std::string& name) const;  // throws std::invalid_argument
  const Variant* find(const std::string& name) const;
  // Shell-style glob over names ("cpu/*", "*@O3"); order of registration is kept.
  std::vector<const Variant*> matching(const std::string& glob) const;
  const std::vector<Variant>& all() const { return variants_; }

 private:
  std::vector<Variant> variants_;
};

// The process-wide registry, filled with the built-in variants on first use.
Registry& registry();

// Registration entry points, one per family file. Each returns nothing and adds to `r`.
void register_cpu_variants(Registry& r);
void register_cpu_inplace_rect(Registry& r);
// tlab::Plan as the variants "gpu/api" and "gpu/api-inplace" (GPU builds only), and the
// kernel its plan picks for (t, s, p) on the current device.
void register_api_variants(Registry& r);
std::string api_choice(DType t, Shape s, Placement p, std::string* reason = nullptr);
void register_gpu_variants(Registry& r);  // no-op in a build without CUDA
// The in-place CPU algorithms compiled once per optimisation level (-O0..-O3), named
// "...@O0" to "...@O3". Only experiment 01 and the tests need them.
void register_cpu_opt_level_variants(Registry& r);

bool glob_match(const std::string& pattern, const std::string& text);

}  // namespace tlab
