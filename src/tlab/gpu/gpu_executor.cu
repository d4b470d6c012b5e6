// The GPU executor: verifies each configuration on the device against the CPU reference,
// then times it with CUDA events, flushing L2 before every sample so that small matrices
// are not measured out of cache ("cold" in the CSV).
//
// Verification fixture: for each (element type, shape) one fresh random input is drawn and
// its reference computed on the CPU; both, and their bitwise complements (the poison), stay
// on the device while the sweep checks every variant of that group against them. Each check
// re-poisons the output and compares it with the reference on the device, exactly, byte for
// byte: at 2^14 x 2^14 this costs milliseconds instead of seconds of host copies.
#include <cstring>
#include <memory>
#include <vector>

#include "tlab/executor.hpp"
#include "tlab/gpu/check.cuh"
#include "tlab/gpu/device_buffer.cuh"
#include "tlab/gpu/event_timer.cuh"
#include "tlab/reference.hpp"

// meson.build defines it: the architectures this build carries SASS for, and its PTX.
#ifndef TLAB_GPU_ARCH
#define TLAB_GPU_ARCH "unknown"
#endif

namespace tlab {
namespace {

__global__ void bitwise_not(const unsigned char* __restrict__ in, unsigned char* __restrict__ out, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = static_cast<unsigned char>(~in[i]);
}

// Counts differing bytes; a mismatch is then described on the host (rare path).
__global__ void count_differences(const unsigned char* __restrict__ a, const unsigned char* __restrict__ b, std::size_t n,
                                  unsigned long long* count) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long local = 0;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    local += a[i] != b[i];
  if (local) atomicAdd(count, local);
}

struct HostBuffer {
  std::unique_ptr<unsigned char[]> p;
  explicit HostBuffer(std::size_t n) : p(new unsigned char[n]) {}  // not zeroed: filled next
  unsigned char* get() const { return p.get(); }
};

class GpuExecutor final : public Executor {
 public:
  GpuExecutor() {
    TLAB_CUDA(cudaGetDeviceProperties(&prop_, 0));
    TLAB_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    // Twice L2: writing it evicts whatever the previous sample left there.
    flush_ = gpu::DeviceBuffer(2 * static_cast<std::size_t>(prop_.l2CacheSize));
    counter_ = gpu::DeviceBuffer(sizeof(unsigned long long));
  }
  ~GpuExecutor() override {
    // The process may be exiting with the CUDA context already torn down: ignore errors.
    cudaStreamDestroy(stream_);
  }

  void verify(const Config& c) override { prepare(c); }

  void apply(const Config& c, const void* in, void* out) override {
    if (const std::string why = c.variant->refuses(c.dtype, c.shape); !why.empty()) throw std::invalid_argument(why);
    const std::size_t bytes = static_cast<std::size_t>(c.shape.elements()) * dtype_size(c.dtype);
    const bool in_place = c.variant->placement == Placement::in_place;
    gpu::DeviceBuffer d_in(in_place ? 0 : bytes), d_out(bytes);
    // Every copy and memset goes on the kernel's own stream: it is non-blocking, so work on
    // the legacy default stream would not be ordered before the kernel.
    TLAB_CUDA(cudaMemcpyAsync(in_place ? d_out.get() : d_in.get(), in, bytes, cudaMemcpyHostToDevice, stream_));
    if (!in_place) TLAB_CUDA(cudaMemsetAsync(d_out.get(), kPoisonByte, bytes, stream_));
    c.variant->kernels.at(c.dtype)(operands(c, d_in.get(), d_out.get()));
    TLAB_CUDA_LAUNCHED();
    TLAB_CUDA(cudaMemcpyAsync(out, d_out.get(), bytes, cudaMemcpyDeviceToHost, stream_));
    TLAB_CUDA(cudaStreamSynchronize(stream_));
  }

  Result run(const Config& c, const TimingPolicy& p) override {
    void* out = prepare(c);
    const Operands op = operands(c, fixture_->input.get(), out);
    const KernelFn& k = c.variant->kernels.at(c.dtype);
    auto sample = [&] {
      TLAB_CUDA(cudaMemsetAsync(flush_.get(), 0, flush_.bytes(), stream_));
      return timer_.time(k, op);
    };
    return Result{c, measure(sample, p), "cold"};
  }

  std::string device_name() const override { return prop_.name; }
  // The fixture (input, reference, their complements, output) plus the L2 flush buffer.
  double bytes_needed(DType t, Shape s) const override {
    return 5.0 * s.elements() * dtype_size(t) + 2.0 * prop_.l2CacheSize;
  }
  double bytes_free() const override {
    std::size_t free_b = 0, total_b = 0;
    return cudaMemGetInfo(&free_b, &total_b) == cudaSuccess ? static_cast<double>(free_b) : 0;
  }

  Fields describe() const override {
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    auto ver = [](int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); };
    int mem_clock_khz = 0, bus_bits = 0, sm_clock_khz = 0;
    cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, 0);
    cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0);
    cudaDeviceGetAttribute(&sm_clock_khz, cudaDevAttrClockRate, 0);
    // DDR: two transfers per clock.
    const double peak_gbs = 2.0 * mem_clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
    // Every experiment but 15 runs on device 0; the count says whether others were there.
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) cudaGetLastError();
    return {{"gpu", prop_.name},
            {"gpu_count", std::to_string(count)},
            {"gpu_compute_capability", std::to_string(prop_.major) + "." + std::to_string(prop_.minor)},
            {"gpu_sm_count", std::to_string(prop_.multiProcessorCount)},
            {"gpu_l2_bytes", std::to_string(prop_.l2CacheSize)},
            {"gpu_memory_bytes", std::to_string(prop_.totalGlobalMem)},
            {"gpu_ecc", prop_.ECCEnabled ? "on" : "off"},
            {"gpu_sm_clock_max_mhz", std::to_string(sm_clock_khz / 1000)},
            {"gpu_memory_clock_max_mhz", std::to_string(mem_clock_khz / 1000)},
            {"gpu_memory_bus_bits", std::to_string(bus_bits)},
            {"gpu_peak_bandwidth_gbs", std::to_string(static_cast<long long>(peak_gbs + 0.5))},
            {"cuda_driver", ver(driver)},
            {"cuda_runtime", ver(runtime)},
            {"gpu_arch_built", TLAB_GPU_ARCH},
            {"nvcc", std::to_string(__CUDACC_VER_MAJOR__) + "." + std::to_string(__CUDACC_VER_MINOR__) + "." +
                         std::to_string(__CUDACC_VER_BUILD__)}};
  }

 private:
  struct Fixture {
    DType dtype;
    Shape shape;
    std::size_t bytes;
    gpu::DeviceBuffer input, transpose, not_transpose, not_input, out;
  };

  Operands operands(const Config& c, const void* in, void* out) const {
    Operands op;
    op.shape = c.shape;
    op.out = out;
    op.in = c.variant->placement == Placement::in_place ? out : in;
    op.stream = stream_;
    return op;
  }

  void not_on_device(const gpu::DeviceBuffer& from, gpu::DeviceBuffer& to) {
    bitwise_not<<<4 * prop_.multiProcessorCount, 256, 0, stream_>>>(static_cast<const unsigned char*>(from.get()),
                                                                      static_cast<unsigned char*>(to.get()), from.bytes());
    TLAB_CUDA_LAUNCHED();
  }

  // A fresh random input and its CPU reference for (dtype, shape), on the device.
  Fixture& fixture(DType t, Shape s) {
    if (fixture_ && fixture_->dtype == t && fixture_->shape == s) return *fixture_;
    fixture_.reset();  // free the previous group's device memory first
    const std::size_t elem = dtype_size(t);
    const std::size_t bytes = static_cast<std::size_t>(s.elements()) * elem;
    HostBuffer in(bytes), ref(bytes);
    fill_random(in.get(), s.elements(), t);
    make_mirror_pairs_differ(in.get(), s, elem);
    reference_transpose(in.get(), ref.get(), s, elem);
    auto f = std::make_unique<Fixture>(Fixture{t, s, bytes, gpu::DeviceBuffer(bytes), gpu::DeviceBuffer(bytes),
                                               gpu::DeviceBuffer(bytes), gpu::DeviceBuffer(bytes), gpu::DeviceBuffer(bytes)});
    TLAB_CUDA(cudaMemcpyAsync(f->input.get(), in.get(), bytes, cudaMemcpyHostToDevice, stream_));
    TLAB_CUDA(cudaMemcpyAsync(f->transpose.get(), ref.get(), bytes, cudaMemcpyHostToDevice, stream_));
    not_on_device(f->transpose, f->not_transpose);
    not_on_device(f->input, f->not_input);
    TLAB_CUDA(cudaStreamSynchronize(stream_));  // the host buffers die at return
    fixture_ = std::move(f);
    return *fixture_;
  }

  // Runs the variant once on the group's input with a poisoned output and compares on the
  // device. Returns the output buffer, left ready for timing.
  void* prepare(const Config& c) {
    const Variant& v = *c.variant;
    if (const std::string why = v.refuses(c.dtype, c.shape); !why.empty()) throw std::invalid_argument(why);
    Fixture& f = fixture(c.dtype, c.shape);
    const bool copy = v.produces == Produces::copy;
    const gpu::DeviceBuffer& want = copy ? f.input : f.transpose;
    if (v.placement == Placement::in_place)
      TLAB_CUDA(cudaMemcpyAsync(f.out.get(), f.input.get(), f.bytes, cudaMemcpyDeviceToDevice, stream_));
    else
      TLAB_CUDA(cudaMemcpyAsync(f.out.get(), (copy ? f.not_input : f.not_transpose).get(), f.bytes,
                                cudaMemcpyDeviceToDevice, stream_));
    v.kernels.at(c.dtype)(operands(c, f.input.get(), f.out.get()));
    TLAB_CUDA_LAUNCHED();
    TLAB_CUDA(cudaMemsetAsync(counter_.get(), 0, sizeof(unsigned long long), stream_));
    count_differences<<<4 * prop_.multiProcessorCount, 256, 0, stream_>>>(
        static_cast<const unsigned char*>(f.out.get()), static_cast<const unsigned char*>(want.get()), f.bytes,
        static_cast<unsigned long long*>(counter_.get()));
    TLAB_CUDA_LAUNCHED();
    unsigned long long differing = 0;
    TLAB_CUDA(cudaMemcpyAsync(&differing, counter_.get(), sizeof differing, cudaMemcpyDeviceToHost, stream_));
    TLAB_CUDA(cudaStreamSynchronize(stream_));
    if (differing) {
      HostBuffer got(f.bytes), expect(f.bytes);
      TLAB_CUDA(cudaMemcpy(got.get(), f.out.get(), f.bytes, cudaMemcpyDeviceToHost));
      TLAB_CUDA(cudaMemcpy(expect.get(), want.get(), f.bytes, cudaMemcpyDeviceToHost));
      const Shape out_shape = copy ? c.shape : c.shape.transposed();
      throw VerificationError(v.name + " " + dtype_name(c.dtype) + " " + to_string(c.shape) + ": " +
                              compare_exact(got.get(), expect.get(), out_shape, dtype_size(c.dtype)));
    }
    return f.out.get();
  }

  cudaDeviceProp prop_{};
  cudaStream_t stream_{};
  gpu::EventTimer timer_;
  gpu::DeviceBuffer flush_, counter_;
  std::unique_ptr<Fixture> fixture_;
};

}  // namespace

Executor* gpu_executor(std::string* why) {
  static std::string reason;
  static std::unique_ptr<GpuExecutor> exec = []() -> std::unique_ptr<GpuExecutor> {
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
      reason = std::string("no usable CUDA device (") + cudaGetErrorString(e) + ")";
      return nullptr;
    }
    if (n == 0) {
      reason = "no CUDA device on this machine";
      return nullptr;
    }
    return std::make_unique<GpuExecutor>();
  }();
  if (!exec && why) *why = reason;
  return exec.get();
}

}  // namespace tlab
