#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#include "tlab/cpu/cpu_dispatch.hpp"
#include "tlab/cpu/cpu_families.hpp"
#include "tlab/cpu/simd_transpose.hpp"
#include "tlab/cpu/threads.hpp"
#include "tlab/executor.hpp"
#include "tlab/reference.hpp"

namespace tlab {

namespace {
struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<unsigned char, FreeDeleter>;

Buffer allocate(std::size_t bytes) {
  // Page alignment keeps the start of every matrix on the same cache-set footing.
  const std::size_t rounded = (bytes + 4095) / 4096 * 4096;
  void* p = std::aligned_alloc(4096, rounded ? rounded : 4096);
  if (!p) throw ResourceError("host memory: cannot allocate " + std::to_string(bytes >> 20) + " MiB");
  return Buffer(static_cast<unsigned char*>(p));
}

class CpuExecutor final : public Executor {
 public:
  void verify(const Config& c) override { prepare(c); }

  void apply(const Config& c, const void* in, void* out) override {
    if (const std::string why = c.variant->refuses(c.dtype, c.shape); !why.empty()) throw std::invalid_argument(why);
    const std::size_t bytes = static_cast<std::size_t>(c.shape.elements()) * dtype_size(c.dtype);
    Buffers b{allocate(bytes), allocate(bytes)};
    poison(b.out.get(), bytes);
    std::memcpy(c.variant->placement == Placement::in_place ? b.out.get() : b.in.get(), in, bytes);
    c.variant->kernels.at(c.dtype)(b.operands(c));
    std::memcpy(out, b.out.get(), bytes);
  }

  Result run(const Config& c, const TimingPolicy& p) override {
    Buffers b = prepare(c);
    const Operands op = b.operands(c);
    const KernelFn& k = c.variant->kernels.at(c.dtype);
    auto sample = [&] {
      const auto t0 = std::chrono::steady_clock::now();
      k(op);
      const auto t1 = std::chrono::steady_clock::now();
      return std::chrono::duration<double>(t1 - t0).count();
    };
    return Result{c, measure(sample, p), "warm"};
  }

  std::string device_name() const override { return "cpu"; }
  // Input, output and reference.
  double bytes_needed(DType t, Shape s) const override { return 3.0 * s.elements() * dtype_size(t); }
  double bytes_free() const override {
    const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && size > 0 ? static_cast<double>(pages) * size : 0;
  }
  // What the CPU-side choices were for this run: the SIMD paths, the one "auto" took, the
  // thread count of "@all" and where non-temporal stores start.
  Fields describe() const override {
    std::string isas, chosen;
    for (cpu::Isa isa : cpu::available_isas()) isas += std::string(isas.empty() ? "" : " ") + cpu::isa_name(isa);
    try {
      chosen = cpu::isa_name(cpu::isa_from_environment());
    } catch (const std::invalid_argument& e) {
      chosen = std::string("refused: ") + e.what();
    }
    const char* forced = std::getenv("TLAB_CPU_ISA");
    Fields f{{"cpu_simd_isas", isas},
            {"cpu_simd_auto", chosen + (forced && *forced ? " (TLAB_CPU_ISA)" : " (best available)")},
            {"cpu_threads_all", std::to_string(cpu::thread_count(cpu::Threads::all))},
            {"cpu_stream_threshold_bytes", std::to_string(cpu::streaming_threshold().bytes)},
            {"cpu_stream_threshold_from", cpu::streaming_threshold().from}};
    for (auto& kv : describe_cpu_peers()) f.push_back(std::move(kv));
    return f;
  }

 private:
  struct Buffers {
    Buffer in, out;
    Operands operands(const Config& c) const {
      Operands op;
      op.shape = c.shape;
      op.out = out.get();
      op.in = c.variant->placement == Placement::in_place ? out.get() : in.get();
      return op;
    }
  };

  // Allocates, fills with fresh random data, runs once on a poisoned output and compares
  // with the reference. Returns the buffers so that timing reuses them.
  Buffers prepare(const Config& c) {
    const Variant& v = *c.variant;
    if (const std::string why = v.refuses(c.dtype, c.shape); !why.empty()) throw std::invalid_argument(why);
    const std::size_t elem = dtype_size(c.dtype);
    const std::size_t bytes = static_cast<std::size_t>(c.shape.elements()) * elem;
    Buffers b{allocate(bytes), allocate(bytes)};
    Buffer want = allocate(bytes);
    fill_random(b.in.get(), c.shape.elements(), c.dtype);
    make_mirror_pairs_differ(b.in.get(), c.shape, elem);
    const bool copy = v.produces == Produces::copy;
    if (copy) std::memcpy(want.get(), b.in.get(), bytes);
    else reference_transpose(b.in.get(), want.get(), c.shape, elem);
    if (v.placement == Placement::in_place) std::memcpy(b.out.get(), b.in.get(), bytes);
    else poison_against(b.out.get(), want.get(), bytes);
    v.kernels.at(c.dtype)(b.operands(c));
    const Shape out_shape = copy ? c.shape : c.shape.transposed();
    if (std::string diff = compare_exact(b.out.get(), want.get(), out_shape, elem); !diff.empty())
      throw VerificationError(v.name + " " + dtype_name(c.dtype) + " " + to_string(c.shape) + ": " + diff);
    return b;
  }
};
}  // namespace

Executor* gpu_executor(std::string* why);  // gpu/gpu_executor.cu, or gpu_stub.cpp without CUDA

Executor* executor_for(Backend b, std::string* why) {
  if (b == Backend::cpu) {
    static CpuExecutor cpu;
    return &cpu;
  }
  return gpu_executor(why);
}

}  // namespace tlab
