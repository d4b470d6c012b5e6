#include <algorithm>
#include <vector>

#include "tlab/executor.hpp"
#include "tlab/gpu/device_buffer.cuh"
#include "tlab/gpu/launch.cuh"
#include "tlab/host_transpose.hpp"

namespace tlab {

const char* issue_order_name(IssueOrder o) { return o == IssueOrder::depth_first ? "depth-first" : "breadth-first"; }

std::int64_t pipeline_panel_rows(const PipelineOptions& o, Shape s, DType t) {
  if (o.panel_rows > 0) return std::min(o.panel_rows, s.rows);
  const std::int64_t row_bytes = s.cols * static_cast<std::int64_t>(dtype_size(t));
  return std::clamp<std::int64_t>((std::int64_t(64) << 20) / std::max<std::int64_t>(row_bytes, 1), 1, s.rows);
}

std::uint64_t pipeline_device_bytes(const PipelineOptions& o, Shape s, DType t) {
  const std::uint64_t panel = static_cast<std::uint64_t>(pipeline_panel_rows(o, s, t)) * s.cols * dtype_size(t);
  return 2ull * panel * static_cast<std::uint64_t>(std::max(o.streams, 1));
}

namespace {
struct Streams {
  std::vector<cudaStream_t> s;
  explicit Streams(int n) : s(n) {
    for (auto& x : s) TLAB_CUDA(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
  }
  ~Streams() {
    for (auto& x : s) cudaStreamDestroy(x);
  }
};
}  // namespace

void transpose_host_to_host(const void* in, void* out, Shape s, DType t, const PipelineOptions& o) {
  if (o.streams < 1 || o.streams > 64) throw std::invalid_argument("pipeline: streams must be 1..64");
  if (s.rows <= 0 || s.cols <= 0) throw std::invalid_argument("pipeline: empty shape " + to_string(s));
  const Variant& k = registry().get(o.kernel);
  if (k.backend != Backend::gpu || k.placement != Placement::out_of_place || k.produces != Produces::transpose ||
      k.known_wrong || !k.supports(t))
    throw std::invalid_argument("pipeline: " + o.kernel + " is not a correct out-of-place GPU transpose for " + dtype_name(t));
  const std::size_t elem = dtype_size(t);
  const std::int64_t p = pipeline_panel_rows(o, s, t);
  const std::size_t panel_bytes = static_cast<std::size_t>(p) * s.cols * elem;
  const std::uint64_t need = pipeline_device_bytes(o, s, t);
  std::size_t free_b = 0, total_b = 0;
  TLAB_CUDA(cudaMemGetInfo(&free_b, &total_b));
  if (need > free_b)
    throw ResourceError("device memory: the pipeline needs " + std::to_string(need >> 20) + " MiB (" +
                        std::to_string(o.streams) + " streams x 2 panels of " + std::to_string(p) + " rows), " +
                        std::to_string(free_b >> 20) + " MiB are free; use fewer streams or smaller panels");
  Streams streams(o.streams);
  std::vector<gpu::DeviceBuffer> d_in, d_out;
  for (int i = 0; i < o.streams; ++i) {
    d_in.emplace_back(panel_bytes);
    d_out.emplace_back(panel_bytes);
  }
  const auto* src = static_cast<const unsigned char*>(in);
  auto* dst = static_cast<unsigned char*>(out);
  const std::int64_t panels = (s.rows + p - 1) / p;
  // Panel k: input rows [k p, k p + h) -> output columns [k p, k p + h), a strided block.
  auto rows_of = [&](std::int64_t k) { return std::min(p, s.rows - k * p); };
  auto h2d = [&](std::int64_t k) {
    const int slot = static_cast<int>(k % o.streams);
    TLAB_CUDA(cudaMemcpyAsync(d_in[slot].get(), src + static_cast<std::size_t>(k * p) * s.cols * elem,
                              static_cast<std::size_t>(rows_of(k)) * s.cols * elem, cudaMemcpyHostToDevice,
                              streams.s[slot]));
  };
  const KernelFn& transpose = k.kernels.at(t);
  auto kernel = [&](std::int64_t k) {
    const int slot = static_cast<int>(k % o.streams);
    Operands op;
    op.in = d_in[slot].get();
    op.out = d_out[slot].get();
    op.shape = {rows_of(k), s.cols};
    op.stream = streams.s[slot];
    transpose(op);
  };
  auto d2h = [&](std::int64_t k) {
    const int slot = static_cast<int>(k % o.streams);
    const std::size_t h = static_cast<std::size_t>(rows_of(k));
    // The panel's transpose is cols x h, packed; it lands at column k p of every output row.
    TLAB_CUDA(cudaMemcpy2DAsync(dst + static_cast<std::size_t>(k * p) * elem, static_cast<std::size_t>(s.rows) * elem,
                                d_out[slot].get(), h * elem, h * elem, static_cast<std::size_t>(s.cols),
                                cudaMemcpyDeviceToHost, streams.s[slot]));
  };
  // Panels that share a slot are ordered by their stream, so either issue order is correct;
  // they differ in how the host fills the copy engines' queues.
  if (o.order == IssueOrder::depth_first) {
    for (std::int64_t i = 0; i < panels; ++i) {
      h2d(i);
      kernel(i);
      d2h(i);
    }
  } else {
    for (std::int64_t r = 0; r < panels; r += o.streams) {
      const std::int64_t end = std::min(panels, r + o.streams);
      for (std::int64_t i = r; i < end; ++i) h2d(i);
      for (std::int64_t i = r; i < end; ++i) kernel(i);
      for (std::int64_t i = r; i < end; ++i) d2h(i);
    }
  }
  for (auto& x : streams.s) TLAB_CUDA(cudaStreamSynchronize(x));
}

}  // namespace tlab
