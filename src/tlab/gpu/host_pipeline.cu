#include <algorithm>
#include <vector>

#include "tlab/executor.hpp"
#include "tlab/gpu/device_buffer.cuh"
#include "tlab/gpu/launch.cuh"
#include "tlab/host_transpose.hpp"

namespace tlab {

// 4096 elements: rows of 16 KiB for float in both 2-D copies, where the copy engines reach
// the contiguous rate (section 6 of the performance notes).
constexpr std::int64_t kDefaultBlock = 4096;

std::int64_t pipeline_panel_rows(const PipelineOptions& o, Shape s, DType) {
  return std::min(o.panel_rows > 0 ? o.panel_rows : kDefaultBlock, s.rows);
}

std::int64_t pipeline_panel_cols(const PipelineOptions& o, Shape s, DType) {
  return std::min(o.panel_cols > 0 ? o.panel_cols : kDefaultBlock, s.cols);
}

std::uint64_t pipeline_device_bytes(const PipelineOptions& o, Shape s, DType t) {
  if (o.access == HostAccess::mapped) return 0;
  const std::uint64_t block =
      static_cast<std::uint64_t>(pipeline_panel_rows(o, s, t)) * pipeline_panel_cols(o, s, t) * dtype_size(t);
  const std::uint64_t per_stream = o.access == HostAccess::copy_in ? 1 : 2;  // copy_in has no output block
  return per_stream * block * static_cast<std::uint64_t>(std::max(o.streams, 1));
}

namespace {
// The kernel a host transpose runs, checked once: a correct GPU transpose of t with placement p.
const KernelFn& transpose_kernel(const std::string& name, DType t, Placement p, const char* who) {
  if (const KernelFn* k = gpu::correct_gpu_transpose(name, t, p)) return *k;
  throw std::invalid_argument(std::string(who) + ": " + name + " is not a correct " + placement_name(p) +
                              " GPU transpose for " + dtype_name(t));
}

// The device's address for page-locked host memory; refuses pageable memory, which a
// kernel cannot reach.
void* mapped_address(const void* host, const char* what, const char* who = "mapped host access") {
  cudaPointerAttributes a{};
  TLAB_CUDA(cudaPointerGetAttributes(&a, host));
  if (a.type != cudaMemoryTypeHost || a.devicePointer == nullptr)
    throw std::invalid_argument(std::string(who) + ": the " + what +
                                " is not page-locked host memory (use cudaMallocHost or cudaHostRegister)");
  return a.devicePointer;
}

// Refuses, before anything is allocated or written, a plan the device cannot hold.
void require_device_bytes(std::uint64_t need, const std::string& what) {
  std::size_t free_b = 0, total_b = 0;
  TLAB_CUDA(cudaMemGetInfo(&free_b, &total_b));
  if (need > free_b)
    throw ResourceError("device memory: " + what + " needs " + std::to_string(need >> 20) + " MiB, " +
                        std::to_string(free_b >> 20) + " MiB are free; use fewer streams or smaller blocks");
}

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

struct HostTransposePlan::Impl {
  Shape s;
  std::size_t elem;
  std::int64_t p, q;  // block rows and columns
  PipelineOptions o;
  const KernelFn* transpose;
  Streams streams;
  std::vector<gpu::DeviceBuffer> d_in, d_out;
  Impl(Shape s_, DType t, const PipelineOptions& o_, const KernelFn* k, std::int64_t p_, std::int64_t q_)
      : s(s_), elem(dtype_size(t)), p(p_), q(q_), o(o_), transpose(k), streams(o_.streams) {}
};

HostTransposePlan::HostTransposePlan(Shape s, DType t, const PipelineOptions& o) {
  if (o.streams < 1 || o.streams > 64) throw std::invalid_argument("pipeline: streams must be 1..64");
  if (s.rows <= 0 || s.cols <= 0) throw std::invalid_argument("pipeline: empty shape " + to_string(s));
  const KernelFn& k = transpose_kernel(o.kernel, t, Placement::out_of_place, "pipeline");
  if (o.access == HostAccess::copy_in && !registry().get(o.kernel).takes_out_pitch)
    throw std::invalid_argument("pipeline: copy_in needs a kernel that stores into a larger matrix (an output pitch: "
                                "gpu/rect/*, gpu/word/w*), not " + o.kernel);
  const std::int64_t p = pipeline_panel_rows(o, s, t), q = pipeline_panel_cols(o, s, t);
  require_device_bytes(pipeline_device_bytes(o, s, t), "the pipeline (" + std::to_string(o.streams) +
                                                           (o.access == HostAccess::copy_in ? " streams x 1 block of " : " streams x 2 blocks of ") + std::to_string(p) + " x " +
                                                           std::to_string(q) + ")");
  impl_ = std::make_unique<Impl>(s, t, o, &k, p, q);
  if (o.access == HostAccess::mapped) return;  // no device blocks: the kernel works on host memory
  const std::size_t block_bytes = static_cast<std::size_t>(p) * q * impl_->elem;
  for (int i = 0; i < o.streams; ++i) {
    impl_->d_in.emplace_back(block_bytes);
    if (o.access == HostAccess::staged) impl_->d_out.emplace_back(block_bytes);
  }
}

HostTransposePlan::~HostTransposePlan() = default;

void HostTransposePlan::execute(const void* in, void* out) {
  Impl& m = *impl_;
  const Shape s = m.s;
  const std::size_t elem = m.elem;
  const std::int64_t p = m.p, q = m.q;
  const auto* src = static_cast<const unsigned char*>(in);
  auto* dst = static_cast<unsigned char*>(out);
  if (m.o.access == HostAccess::mapped) {
    Operands op;
    op.in = mapped_address(in, "input");
    op.out = mapped_address(out, "output");
    op.shape = s;
    op.stream = m.streams.s[0];
    (*m.transpose)(op);
    TLAB_CUDA(cudaStreamSynchronize(m.streams.s[0]));
    return;
  }
  const std::int64_t block_cols = (s.cols + q - 1) / q;
  const std::int64_t blocks = (s.rows + p - 1) / p * block_cols;
  // Block b: input rows [r0, r0 + h) x columns [c0, c0 + w) -> output rows [c0, c0 + w) x
  // columns [r0, r0 + h).
  struct Block {
    std::int64_t r0, c0, h, w;
    int slot;
  };
  auto block = [&](std::int64_t b) {
    const std::int64_t r0 = b / block_cols * p, c0 = b % block_cols * q;
    return Block{r0, c0, std::min(p, s.rows - r0), std::min(q, s.cols - c0), static_cast<int>(b % m.o.streams)};
  };
  auto h2d = [&](const Block& b) {
    TLAB_CUDA(cudaMemcpy2DAsync(m.d_in[b.slot].get(), b.w * elem, src + (b.r0 * s.cols + b.c0) * elem, s.cols * elem,
                                b.w * elem, b.h, cudaMemcpyHostToDevice, m.streams.s[b.slot]));
  };
  // copy_in: the kernel's stores land in the host output itself, at the block's place.
  auto* mapped_out = m.o.access == HostAccess::copy_in ? static_cast<unsigned char*>(mapped_address(out, "output", "copy-in pipeline")) : nullptr;
  auto kernel = [&](const Block& b) {
    Operands op;
    op.in = m.d_in[b.slot].get();
    op.shape = {b.h, b.w};
    op.stream = m.streams.s[b.slot];
    if (mapped_out) {
      op.out = mapped_out + (b.c0 * s.rows + b.r0) * elem;
      op.out_pitch = s.rows;
    } else {
      op.out = m.d_out[b.slot].get();
    }
    (*m.transpose)(op);
  };
  auto d2h = [&](const Block& b) {
    if (mapped_out) return;
    TLAB_CUDA(cudaMemcpy2DAsync(dst + (b.c0 * s.rows + b.r0) * elem, s.rows * elem, m.d_out[b.slot].get(), b.h * elem,
                                b.h * elem, b.w, cudaMemcpyDeviceToHost, m.streams.s[b.slot]));
  };
  // Blocks that share a slot are ordered by their stream, so either issue order is correct;
  // they differ in how the host fills the copy engines' queues.
  if (m.o.order == IssueOrder::depth_first) {
    for (std::int64_t i = 0; i < blocks; ++i) {
      const Block b = block(i);
      h2d(b);
      kernel(b);
      d2h(b);
    }
  } else {
    for (std::int64_t r = 0; r < blocks; r += m.o.streams) {
      const std::int64_t end = std::min(blocks, r + m.o.streams);
      for (std::int64_t i = r; i < end; ++i) h2d(block(i));
      for (std::int64_t i = r; i < end; ++i) kernel(block(i));
      for (std::int64_t i = r; i < end; ++i) d2h(block(i));
    }
  }
  for (auto& x : m.streams.s) TLAB_CUDA(cudaStreamSynchronize(x));
}

void transpose_host_in_place(void* m, Shape s, DType t, std::int64_t block, int streams, const std::string& kernel) {
  if (!s.square()) throw std::invalid_argument("in-place host transpose needs a square matrix, not " + to_string(s));
  if (s.rows <= 0) throw std::invalid_argument("in-place host transpose: empty shape");
  if (streams < 1 || streams > 64) throw std::invalid_argument("in-place host transpose: streams must be 1..64");
  if (block < 1) throw std::invalid_argument("in-place host transpose: block must be at least 1");
  const KernelFn& transpose = transpose_kernel(kernel, t, Placement::out_of_place, "in-place host transpose");
  const std::int64_t n = s.rows, b = std::min(block, n);
  const std::size_t elem = dtype_size(t), tile = static_cast<std::size_t>(b) * b * elem;
  require_device_bytes(4ull * tile * static_cast<std::uint64_t>(streams),
                       "the in-place transpose (" + std::to_string(streams) + " streams x 4 tiles of " +
                           std::to_string(b) + "^2)");
  Streams st(streams);
  // Per stream: the two tiles of a pair as they arrive (a, m) and transposed (at, mt).
  std::vector<gpu::DeviceBuffer> a, mir, at, mt;
  for (int i = 0; i < streams; ++i) {
    a.emplace_back(tile);
    mir.emplace_back(tile);
    at.emplace_back(tile);
    mt.emplace_back(tile);
  }
  auto* host = static_cast<unsigned char*>(m);
  const std::size_t pitch = static_cast<std::size_t>(n) * elem;
  auto at_rc = [&](std::int64_t r, std::int64_t c) { return host + static_cast<std::size_t>(r) * pitch + c * elem; };
  auto run_kernel = [&](const void* in, void* out, std::int64_t h, std::int64_t w, cudaStream_t stream) {
    Operands op;
    op.in = in;
    op.out = out;
    op.shape = {h, w};
    op.stream = stream;
    transpose(op);
  };
  const std::int64_t tiles = (n + b - 1) / b;
  std::int64_t pair = 0;
  for (std::int64_t ti = 0; ti < tiles; ++ti)
    for (std::int64_t tj = ti; tj < tiles; ++tj, ++pair) {
      const int slot = static_cast<int>(pair % streams);
      cudaStream_t stream = st.s[slot];
      const std::int64_t r0 = ti * b, c0 = tj * b, h = std::min(b, n - r0), w = std::min(b, n - c0);
      // Tile (ti, tj) is h x w at (r0, c0); its mirror (tj, ti) is w x h at (c0, r0).
      TLAB_CUDA(cudaMemcpy2DAsync(a[slot].get(), w * elem, at_rc(r0, c0), pitch, w * elem, h, cudaMemcpyHostToDevice, stream));
      if (ti != tj)
        TLAB_CUDA(cudaMemcpy2DAsync(mir[slot].get(), h * elem, at_rc(c0, r0), pitch, h * elem, w, cudaMemcpyHostToDevice,
                                    stream));
      run_kernel(a[slot].get(), at[slot].get(), h, w, stream);  // -> w x h, goes to (c0, r0)
      if (ti != tj) run_kernel(mir[slot].get(), mt[slot].get(), w, h, stream);  // -> h x w, goes to (r0, c0)
      TLAB_CUDA(cudaMemcpy2DAsync(at_rc(c0, r0), pitch, at[slot].get(), h * elem, h * elem, w, cudaMemcpyDeviceToHost, stream));
      if (ti != tj)
        TLAB_CUDA(cudaMemcpy2DAsync(at_rc(r0, c0), pitch, mt[slot].get(), w * elem, w * elem, h, cudaMemcpyDeviceToHost,
                                    stream));
    }
  for (auto& x : st.s) TLAB_CUDA(cudaStreamSynchronize(x));
}

void transpose_host_in_place_mapped(void* m, Shape s, DType t, const std::string& kernel) {
  if (!s.square()) throw std::invalid_argument("in-place host transpose needs a square matrix, not " + to_string(s));
  if (s.rows <= 0) throw std::invalid_argument("in-place host transpose: empty shape");
  const KernelFn& transpose = transpose_kernel(kernel, t, Placement::in_place, "mapped in-place host transpose");
  Streams st(1);
  Operands op;
  op.out = mapped_address(m, "matrix");
  op.in = op.out;
  op.shape = s;
  op.stream = st.s[0];
  transpose(op);
  TLAB_CUDA(cudaStreamSynchronize(st.s[0]));
}

void transpose_host_to_host(const void* in, void* out, Shape s, DType t, const PipelineOptions& o) {
  HostTransposePlan(s, t, o).execute(in, out);
}

}  // namespace tlab
