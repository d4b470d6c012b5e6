// tlab-once: one CPU variant, one matrix, one transpose, and nothing else, for tools that
// count what a whole process does (valgrind --tool=cachegrind in scripts/cachegrind-inplace).
// Such a tool cannot tell the transpose from the set-up around it, so a second run with
// --fill-only does the same set-up without the transpose: the difference is the transpose.
//   tlab-once VARIANT TYPE SIZE               fill the matrix, transpose it once
//   tlab-once VARIANT TYPE SIZE --fill-only   the same without the transpose
//   tlab-once VARIANT TYPE SIZE --verify      check the variant exactly (random input,
//                                             poisoned output) before anything is counted
// Bad input: one line on stderr, exit 2; a wrong result: exit 3.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "tlab/cli.hpp"
#include "tlab/executor.hpp"
#include "tlab/registry.hpp"

namespace {

struct FreeBuffer {
  void operator()(unsigned char* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<unsigned char, FreeBuffer>;

// Line-aligned, so that the counts do not depend on where the allocator put the matrix.
Buffer allocate(std::size_t bytes) {
  auto* p = static_cast<unsigned char*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64));
  if (!p) throw tlab::ResourceError("tlab-once: cannot allocate " + std::to_string(bytes >> 20) + " MiB");
  return Buffer(p);
}

// The same cheap pattern in both runs (a counter in 8-byte words, which the compiler
// vectorises): what the values are does not change which lines a transpose touches, and a
// random generator would cost more than the transpose to count.
void fill(unsigned char* p, std::size_t bytes) {
  for (std::size_t k = 0; k < bytes / 8; ++k) {
    const std::uint64_t w = k;
    std::memcpy(p + 8 * k, &w, 8);
  }
  for (std::size_t k = bytes / 8 * 8; k < bytes; ++k) p[k] = static_cast<unsigned char>(k);
}

int run(int argc, char** argv) {
  const std::string mode = argc == 5 ? argv[4] : "";
  if ((argc != 4 && argc != 5) || (argc == 5 && mode != "--fill-only" && mode != "--verify"))
    throw tlab::UsageError("usage: tlab-once VARIANT TYPE SIZE [--fill-only|--verify]");
  tlab::Registry& r = tlab::registry();
  tlab::register_cpu_opt_level_variants(r);
  const tlab::Variant* v = r.find(argv[1]);
  if (!v) throw tlab::UsageError(std::string("tlab-once: no variant named '") + argv[1] + "' (tlab-info variants lists them)");
  if (v->backend != tlab::Backend::cpu) throw tlab::UsageError("tlab-once: " + v->name + " is not a CPU variant");
  const tlab::DType t = tlab::parse_dtype(argv[2]);
  const auto shapes = tlab::parse_sizes(argv[3]);
  if (shapes.size() != 1) throw tlab::UsageError(std::string("tlab-once: one size, not '") + argv[3] + "'");
  const tlab::Shape s = shapes.front();
  if (const std::string why = v->refuses(t, s); !why.empty()) throw tlab::UsageError("tlab-once: " + why);

  if (mode == "--verify") {
    tlab::executor_for(tlab::Backend::cpu, nullptr)->verify({v, t, s});
    return 0;
  }
  const std::size_t bytes = static_cast<std::size_t>(s.elements()) * tlab::dtype_size(t);
  const bool in_place = v->placement == tlab::Placement::in_place;
  Buffer a = allocate(bytes), b = in_place ? nullptr : allocate(bytes);
  fill(a.get(), bytes);
  tlab::Operands op;
  op.shape = s;
  op.in = a.get();
  op.out = in_place ? a.get() : b.get();
  if (mode != "--fill-only") v->kernels.at(t)(op);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return tlab::tool_main("tlab-once", [&] { return run(argc, argv); });
}
