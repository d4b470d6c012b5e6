#include "tlab/dist/distributed.hpp"
#include "tlab/dist/hash_blocks.cuh"
#include "tlab/executor.hpp"
#include "tlab/gpu/check.cuh"
#include "tlab/gpu/device_buffer.cuh"
#include "tlab/gpu/event_timer.cuh"
#include "tlab/transpose.hpp"

namespace tlab::dist {

struct SingleGpu::Impl {
  Shape a;
  std::size_t elem;
  Plan plan;
  gpu::DeviceBuffer in, out, wrong;
  cudaStream_t stream{};
  Impl(DType t, Shape s)
      : a(s), elem(dtype_size(t)), plan(t, s.rows, s.cols, Placement::out_of_place) {}
  ~Impl() {
    if (stream) cudaStreamDestroy(stream);
  }
};

SingleGpu::SingleGpu(DType type, Shape a) {
  std::size_t free = 0, total = 0;
  TLAB_CUDA(cudaSetDevice(0));
  TLAB_CUDA(cudaMemGetInfo(&free, &total));
  const double need = 2.0 * static_cast<double>(a.elements()) * dtype_size(type);
  if (need > static_cast<double>(free))
    throw ResourceError("device memory: " + to_string(a) + " and its transpose need about " +
                        std::to_string(static_cast<long long>(need / (1 << 20))) + " MiB on GPU 0, " +
                        std::to_string(free >> 20) + " MiB are free");
  impl_ = std::make_unique<Impl>(type, a);  // the plan is for the current device: 0
  const std::size_t bytes = static_cast<std::size_t>(a.elements()) * impl_->elem;
  impl_->in = gpu::DeviceBuffer(bytes);
  impl_->out = gpu::DeviceBuffer(bytes);
  impl_->wrong = gpu::DeviceBuffer(sizeof(unsigned long long));
  TLAB_CUDA(cudaStreamCreateWithFlags(&impl_->stream, cudaStreamNonBlocking));
}

SingleGpu::~SingleGpu() = default;

std::uint64_t SingleGpu::check(std::uint64_t seed) {
  Impl& m = *impl_;
  TLAB_CUDA(cudaSetDevice(0));
  fill_a_rows(m.in.get(), m.elem, m.a, 0, m.a.rows, seed, m.stream);
  TLAB_CUDA(cudaMemsetAsync(m.out.get(), 0xA5, m.out.bytes(), m.stream));
  TLAB_CUDA(cudaMemsetAsync(m.wrong.get(), 0, sizeof(unsigned long long), m.stream));
  m.plan.execute(m.out.get(), m.in.get(), m.stream);
  auto* wrong = static_cast<unsigned long long*>(m.wrong.get());
  count_wrong_b_rows(m.out.get(), m.elem, m.a, 0, m.a.cols, seed, wrong, m.stream);
  unsigned long long n = 0;
  TLAB_CUDA(cudaMemcpyAsync(&n, wrong, sizeof n, cudaMemcpyDeviceToHost, m.stream));
  TLAB_CUDA(cudaStreamSynchronize(m.stream));
  return n;
}

double SingleGpu::transpose() {
  Impl& m = *impl_;
  TLAB_CUDA(cudaSetDevice(0));
  gpu::EventTimer timer;
  const Operands op{m.in.get(), m.out.get(), m.a, m.stream};
  return timer.time([&m](const Operands& o) { m.plan.execute(o.out, o.in, o.stream); }, op);
}

const std::string& SingleGpu::kernel() const { return impl_->plan.kernel(); }

}  // namespace tlab::dist
