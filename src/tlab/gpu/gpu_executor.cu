// The GPU executor: verifies each configuration on the device against the CPU reference,
// then times it with CUDA events, flushing L2 before every sample so that small matrices
// are not measured out of cache ("cold" in the CSV).
#include <cstring>
#include <memory>
#include <vector>

#include "tlab/executor.hpp"
#include "tlab/gpu/check.cuh"
#include "tlab/gpu/device_buffer.cuh"
#include "tlab/reference.hpp"

namespace tlab {
namespace {

class GpuExecutor final : public Executor {
 public:
  GpuExecutor() {
    TLAB_CUDA(cudaGetDeviceProperties(&prop_, 0));
    TLAB_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    TLAB_CUDA(cudaEventCreate(&start_));
    TLAB_CUDA(cudaEventCreate(&stop_));
    // Twice L2: writing it evicts whatever the previous sample left there.
    flush_ = gpu::DeviceBuffer(2 * static_cast<std::size_t>(prop_.l2CacheSize));
  }

  void verify(const Config& c) override { prepare(c); }

  void apply(const Config& c, const void* in, void* out) override {
    if (const std::string why = c.variant->refuses(c.dtype, c.shape); !why.empty()) throw std::invalid_argument(why);
    const std::size_t bytes = static_cast<std::size_t>(c.shape.elements()) * dtype_size(c.dtype);
    const bool in_place = c.variant->placement == Placement::in_place;
    Buffers b{gpu::DeviceBuffer(in_place ? 0 : bytes), gpu::DeviceBuffer(bytes)};
    // Every copy and memset goes on the kernel's own stream: it is non-blocking, so work on
    // the legacy default stream would not be ordered before the kernel.
    TLAB_CUDA(cudaMemcpyAsync(in_place ? b.out.get() : b.in.get(), in, bytes, cudaMemcpyHostToDevice, stream_));
    if (!in_place) TLAB_CUDA(cudaMemsetAsync(b.out.get(), kPoisonByte, bytes, stream_));
    c.variant->kernels.at(c.dtype)(b.operands(c, stream_));
    TLAB_CUDA_LAUNCHED();
    TLAB_CUDA(cudaMemcpyAsync(out, b.out.get(), bytes, cudaMemcpyDeviceToHost, stream_));
    TLAB_CUDA(cudaStreamSynchronize(stream_));
  }

  Result run(const Config& c, const TimingPolicy& p) override {
    Buffers b = prepare(c);
    const Operands op = b.operands(c, stream_);
    const KernelFn& k = c.variant->kernels.at(c.dtype);
    auto sample = [&] {
      TLAB_CUDA(cudaMemsetAsync(flush_.get(), 0, flush_.bytes(), stream_));
      TLAB_CUDA(cudaEventRecord(start_, stream_));
      k(op);
      TLAB_CUDA_LAUNCHED();
      TLAB_CUDA(cudaEventRecord(stop_, stream_));
      TLAB_CUDA(cudaEventSynchronize(stop_));
      float ms = 0;
      TLAB_CUDA(cudaEventElapsedTime(&ms, start_, stop_));
      return ms * 1e-3;
    };
    return Result{c, measure(sample, p), "cold"};
  }

  std::string device_name() const override { return prop_.name; }

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
    return {{"gpu", prop_.name},
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
            {"nvcc", std::to_string(__CUDACC_VER_MAJOR__) + "." + std::to_string(__CUDACC_VER_MINOR__) + "." +
                         std::to_string(__CUDACC_VER_BUILD__)}};
  }

 private:
  struct Buffers {
    gpu::DeviceBuffer in, out;
    Operands operands(const Config& c, cudaStream_t s) const {
      Operands op;
      op.shape = c.shape;
      op.out = out.get();
      op.in = c.variant->placement == Placement::in_place ? out.get() : in.get();
      op.stream = s;
      return op;
    }
  };

  Buffers prepare(const Config& c) {
    const Variant& v = *c.variant;
    if (const std::string why = v.refuses(c.dtype, c.shape); !why.empty()) throw std::invalid_argument(why);
    const std::size_t elem = dtype_size(c.dtype);
    const std::size_t bytes = static_cast<std::size_t>(c.shape.elements()) * elem;
    const bool in_place = v.placement == Placement::in_place;
    std::vector<unsigned char> host_in(bytes), want(bytes), got(bytes);
    fill_random(host_in.data(), c.shape.elements(), c.dtype);
    make_mirror_pairs_differ(host_in.data(), c.shape, elem);
    const bool copy = v.produces == Produces::copy;
    if (copy) std::memcpy(want.data(), host_in.data(), bytes);
    else reference_transpose(host_in.data(), want.data(), c.shape, elem);
    Buffers b{gpu::DeviceBuffer(in_place ? 0 : bytes), gpu::DeviceBuffer(bytes)};
    // All on stream_ (non-blocking): see apply().
    if (in_place) {
      TLAB_CUDA(cudaMemcpyAsync(b.out.get(), host_in.data(), bytes, cudaMemcpyHostToDevice, stream_));
    } else {
      poison_against(got.data(), want.data(), bytes);
      TLAB_CUDA(cudaMemcpyAsync(b.in.get(), host_in.data(), bytes, cudaMemcpyHostToDevice, stream_));
      TLAB_CUDA(cudaMemcpyAsync(b.out.get(), got.data(), bytes, cudaMemcpyHostToDevice, stream_));
    }
    v.kernels.at(c.dtype)(b.operands(c, stream_));
    TLAB_CUDA_LAUNCHED();
    TLAB_CUDA(cudaStreamSynchronize(stream_));
    TLAB_CUDA(cudaMemcpyAsync(got.data(), b.out.get(), bytes, cudaMemcpyDeviceToHost, stream_));
    TLAB_CUDA(cudaStreamSynchronize(stream_));
    const Shape out_shape = copy ? c.shape : c.shape.transposed();
    if (std::string diff = compare_exact(got.data(), want.data(), out_shape, elem); !diff.empty())
      throw VerificationError(v.name + " " + dtype_name(c.dtype) + " " + to_string(c.shape) + ": " + diff);
    return b;
  }

  cudaDeviceProp prop_{};
  cudaStream_t stream_{};
  cudaEvent_t start_{}, stop_{};
  gpu::DeviceBuffer flush_;
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
