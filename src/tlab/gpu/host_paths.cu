// Experiment 08's measuring code: host data, three kinds of host memory, two copy APIs,
// the managed-memory paths, the streamed pipeline, and the pinned-copy roofline, all at one
// shape in one run so that their ratios are meaningful.
#include <chrono>
#include <cstring>
#include <functional>
#include <memory>

#include "tlab/csv.hpp"
#include "tlab/executor.hpp"
#include "tlab/gpu/device_buffer.cuh"
#include "tlab/gpu/event_timer.cuh"
#include "tlab/gpu/host_memory.cuh"
#include "tlab/gpu/launch.cuh"
#include "tlab/host_paths.hpp"
#include "tlab/reference.hpp"
#include "tlab/results.hpp"
#include "tlab/timing.hpp"

namespace tlab {
namespace {


using Pinned = gpu::PinnedBuffer;
using Managed = gpu::ManagedBuffer;
using gpu::prefetch;

class Bench {
 public:
  Bench(DType t, Shape s, const TimingPolicy& p) : t_(t), s_(s), p_(p), bytes_(s.elements() * dtype_size(t)) {
    TLAB_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    TLAB_CUDA(cudaStreamCreateWithFlags(&stream2_, cudaStreamNonBlocking));
    input_.reset(new unsigned char[bytes_]);
    want_.reset(new unsigned char[bytes_]);
    fill_random(input_.get(), s.elements(), t);
    reference_transpose(input_.get(), want_.get(), s, dtype_size(t));
    kernel_ = &registry().get(PipelineOptions{}.kernel).kernels.at(t);
  }
  ~Bench() {
    cudaStreamDestroy(stream_);
    cudaStreamDestroy(stream2_);
  }

  // Phases measured together, one sample of each per repetition of the whole sequence; the
  // harness decides when to stop from the total. `sequence` returns the phase times. The
  // path runs once first on a poisoned output, which must then equal `expected` exactly.
  void phases(const std::string& case_name, const std::string& memory, const std::string& api,
              const std::vector<std::string>& names, const std::function<std::vector<double>()>& sequence,
              const std::function<const void*()>& output, const unsigned char* expected, void* poison_target,
              const PipelineOptions& po = {}) {
    if (poison_target) poison_against(poison_target, expected, bytes_);
    sequence();
    if (std::memcmp(output(), expected, bytes_) != 0)
      throw VerificationError("08 " + case_name + " " + memory + " " + api + ": output differs from the reference");
    std::vector<std::vector<double>> per(names.size());
    int calls = 0;
    const Timed total = measure(
        [&] {
          const auto t = sequence();
          double sum = 0;
          for (double x : t) sum += x;
          if (++calls > p_.warmup)
            for (std::size_t i = 0; i < t.size(); ++i) per[i].push_back(t[i]);
          return sum;
        },
        p_);
    if (names.size() == 1)
      return add(case_name, memory, api, names[0], bytes_of(memory, api, names[0]), total.summary, total.stop, po);
    for (std::size_t i = 0; i < names.size(); ++i)
      add(case_name, memory, api, names[i], bytes_of(memory, api, names[i]), summarize(per[i]), total.stop, po);
    add(case_name, memory, api, "total", bytes_of("total"), total.summary, total.stop, po);
  }

  // One direction of a copy moves the matrix once; a kernel reads and writes it on the
  // device; a host-to-host transpose (total) and both directions at once move it twice.
  double bytes_of(const std::string& phase) const {
    return phase == "h2d" || phase == "d2h" ? static_cast<double>(bytes_) : 2.0 * bytes_;
  }
  // The managed "h2d" phase prefetches the output to the device as well as the input.
  double bytes_of(const std::string& memory, const std::string& api, const std::string& phase) const {
    if (memory == "managed" && api == "prefetch" && phase == "h2d") return 2.0 * bytes_;
    return bytes_of(phase);
  }

  void add(std::string c, std::string m, std::string a, std::string ph, double bytes, Summary sum, std::string stop,
           PipelineOptions po) {
    HostPathRow r;
    r.case_name = std::move(c);
    r.memory = std::move(m);
    r.api = std::move(a);
    r.phase = std::move(ph);
    r.pipeline = po;
    r.dtype = t_;
    r.shape = s_;
    r.bytes = bytes;
    r.summary = sum;
    r.stop = std::move(stop);
    r.verified = true;  // phases() throws before adding rows for a path that failed its check
    rows.push_back(std::move(r));
  }

  double event_kernel(const void* in, void* out) {
    Operands op;
    op.in = in;
    op.out = out;
    op.shape = s_;
    op.stream = stream_;
    return timer_.time(*kernel_, op);
  }

  double copy(void* dst, const void* src, cudaMemcpyKind kind, bool async) {
    const auto t0 = Clock::now();
    if (async) {
      TLAB_CUDA(cudaMemcpyAsync(dst, src, bytes_, kind, stream_));
      TLAB_CUDA(cudaStreamSynchronize(stream_));
    } else {
      TLAB_CUDA(cudaMemcpy(dst, src, bytes_, kind));
      // From pageable memory cudaMemcpy may return once the data is staged, before the DMA
      // ends; the kernel on the non-blocking stream would not wait for it either.
      TLAB_CUDA(cudaDeviceSynchronize());
    }
    return seconds_since(t0);
  }

  void run_all(const std::vector<PipelineOptions>& pipelines) {
    gpu::DeviceBuffer d_in(bytes_), d_out(bytes_);
    {  // Roofline: pinned copies alone, each way and both at once. They copy, so the
       // expected result is the input itself.
      Pinned a(bytes_), b(bytes_);
      std::unique_ptr<unsigned char[]> back(new unsigned char[bytes_]);
      std::memcpy(a.get(), input_.get(), bytes_);
      const unsigned char* in = input_.get();
      auto h2d = [&] { return std::vector<double>{copy(d_in.get(), a.get(), cudaMemcpyHostToDevice, true)}; };
      auto arrived = [&]() -> const void* {
        TLAB_CUDA(cudaMemcpy(back.get(), d_in.get(), bytes_, cudaMemcpyDeviceToHost));
        return back.get();
      };
      // On the copies' stream: a legacy-stream memset could land after a non-blocking copy.
      TLAB_CUDA(cudaMemsetAsync(d_in.get(), kPoisonByte, bytes_, stream_));  // a copy that does nothing must fail
      phases("roofline", "pinned", "copy", {"h2d"}, h2d, arrived, in, nullptr);
      auto d2h = [&] { return std::vector<double>{copy(b.get(), d_in.get(), cudaMemcpyDeviceToHost, true)}; };
      phases("roofline", "pinned", "copy", {"d2h"}, d2h, [&] { return b.get(); }, in, b.get());
      auto both = [&] {
        const auto t0 = Clock::now();
        TLAB_CUDA(cudaMemcpyAsync(d_out.get(), a.get(), bytes_, cudaMemcpyHostToDevice, stream_));
        TLAB_CUDA(cudaMemcpyAsync(b.get(), d_in.get(), bytes_, cudaMemcpyDeviceToHost, stream2_));
        TLAB_CUDA(cudaStreamSynchronize(stream_));
        TLAB_CUDA(cudaStreamSynchronize(stream2_));
        return std::vector<double>{seconds_since(t0)};
      };
      phases("roofline", "pinned", "copy", {"both"}, both, [&] { return b.get(); }, in, b.get());
      // The SMs' own ceiling over the bus: a copy kernel that loads the pinned input and
      // stores the pinned output (zero copy without the reordering). A mapped transpose can
      // at best match it; how far the copy engines' both-ways rate lies above it is the
      // part of the gap that no kernel can close.
      const KernelFn& copier = registry().get("gpu/copy-kernel-wide").kernels.at(t_);
      auto launch_copier = [&](const void* from, void* to) {
        Operands op;
        op.in = from;
        op.out = to;
        op.shape = s_;
        op.stream = stream_;
        copier(op);
      };
      auto sm_copy = [&] {
        const auto t0 = Clock::now();
        launch_copier(a.get(), b.get());
        TLAB_CUDA(cudaStreamSynchronize(stream_));
        return std::vector<double>{seconds_since(t0)};
      };
      phases("roofline", "pinned", "sm-copy", {"both"}, sm_copy, [&] { return b.get(); }, in, b.get());
      // A kernel's bus traffic beside a copy engine's: the SM copy of the pinned input into
      // device memory while a DMA copy moves a device matrix to pinned memory. If the two
      // overlapped this would approach the both-ways copy; if they take turns, the sum of
      // the two one-way times.
      auto sm_and_dma = [&] {
        const auto t0 = Clock::now();
        launch_copier(a.get(), d_out.get());
        TLAB_CUDA(cudaMemcpyAsync(b.get(), d_in.get(), bytes_, cudaMemcpyDeviceToHost, stream2_));
        TLAB_CUDA(cudaStreamSynchronize(stream_));
        TLAB_CUDA(cudaStreamSynchronize(stream2_));
        return std::vector<double>{seconds_since(t0)};
      };
      phases("roofline", "pinned", "sm-h2d+dma-d2h", {"both"}, sm_and_dma, [&] { return b.get(); }, in, b.get());
      // The pipeline's output copies alone: the device matrix, read as panels of `width`
      // rows, written to the host as `cols` rows of `width` elements at the output's pitch,
      // exactly the pattern of a full-width panel pipeline's D2H copies.
      for (std::int64_t width : {std::int64_t(1024), std::int64_t(4096)}) {
        if (width > s_.rows || s_.rows % width != 0) continue;
        const std::size_t e = dtype_size(t_);
        auto* host = static_cast<unsigned char*>(b.get());
        const auto* dev = static_cast<const unsigned char*>(d_in.get());  // holds the input
        std::unique_ptr<unsigned char[]> expect(new unsigned char[bytes_]);
        for (std::int64_t r0 = 0; r0 < s_.rows; r0 += width)
          for (std::int64_t c = 0; c < s_.cols; ++c)
            std::memcpy(expect.get() + (c * s_.rows + r0) * e, in + (r0 * s_.cols + c * width) * e, width * e);
        auto strided = [&] {
          const auto t0 = Clock::now();
          for (std::int64_t r0 = 0; r0 < s_.rows; r0 += width)
            TLAB_CUDA(cudaMemcpy2DAsync(host + r0 * e, s_.rows * e, dev + r0 * s_.cols * e, width * e, width * e,
                                        s_.cols, cudaMemcpyDeviceToHost, stream_));
          TLAB_CUDA(cudaStreamSynchronize(stream_));
          return std::vector<double>{seconds_since(t0)};
        };
        phases("roofline", "pinned", "copy-2d-" + std::to_string(width * e) + "B", {"d2h"}, strided,
               [&] { return b.get(); }, expect.get(), b.get());
      }
      // The column-stripe pipeline's input copies alone: stripes of `width` columns read
      // from the host at the input's pitch, packed on the device stripe after stripe.
      for (std::int64_t width : {std::int64_t(1024), std::int64_t(4096)}) {
        if (width > s_.cols || s_.cols % width != 0) continue;
        const std::size_t e = dtype_size(t_);
        const auto* host = static_cast<const unsigned char*>(a.get());  // holds the input
        auto* dev = static_cast<unsigned char*>(d_out.get());
        std::unique_ptr<unsigned char[]> expect(new unsigned char[bytes_]);
        for (std::int64_t c0 = 0; c0 < s_.cols; c0 += width)
          for (std::int64_t r = 0; r < s_.rows; ++r)
            std::memcpy(expect.get() + (c0 * s_.rows + r * width) * e, in + (r * s_.cols + c0) * e, width * e);
        auto strided = [&] {
          const auto t0 = Clock::now();
          for (std::int64_t c0 = 0; c0 < s_.cols; c0 += width)
            TLAB_CUDA(cudaMemcpy2DAsync(dev + c0 * s_.rows * e, width * e, host + c0 * e, s_.cols * e, width * e,
                                        s_.rows, cudaMemcpyHostToDevice, stream_));
          TLAB_CUDA(cudaStreamSynchronize(stream_));
          return std::vector<double>{seconds_since(t0)};
        };
        auto arrived_out = [&]() -> const void* {
          TLAB_CUDA(cudaMemcpy(back.get(), d_out.get(), bytes_, cudaMemcpyDeviceToHost));
          return back.get();
        };
        TLAB_CUDA(cudaMemsetAsync(d_out.get(), kPoisonByte, bytes_, stream_));
        phases("roofline", "pinned", "copy-2d-" + std::to_string(width * e) + "B", {"h2d"}, strided, arrived_out,
               expect.get(), nullptr);
      }
    }
    for (const char* mem : {"pageable", "pinned"}) {
      const bool pinned = std::string(mem) == "pinned";
      std::unique_ptr<Pinned> pin_in, pin_out;
      std::unique_ptr<unsigned char[]> pg_in, pg_out;
      void *in, *out;
      if (pinned) {
        pin_in = std::make_unique<Pinned>(bytes_);
        pin_out = std::make_unique<Pinned>(bytes_);
        in = pin_in->get();
        out = pin_out->get();
      } else {
        pg_in.reset(new unsigned char[bytes_]);
        pg_out.reset(new unsigned char[bytes_]);
        in = pg_in.get();
        out = pg_out.get();
      }
      std::memcpy(in, input_.get(), bytes_);
      for (bool async : {false, true}) {
        auto seq = [&] {
          const double a = copy(d_in.get(), in, cudaMemcpyHostToDevice, async);
          const double k = event_kernel(d_in.get(), d_out.get());
          const double b = copy(out, d_out.get(), cudaMemcpyDeviceToHost, async);
          return std::vector<double>{a, k, b};
        };
        phases("breakdown", mem, async ? "memcpyAsync" : "memcpy", {"h2d", "kernel", "d2h"}, seq, [&] { return out; },
               want_.get(), out);
      }
    }
    {  // Managed memory: the kernel reads and writes it directly.
      Managed in(bytes_), out(bytes_);
      auto touch_input_on_host = [&] { std::memcpy(in.get(), input_.get(), bytes_); };
      auto on_demand = [&] {
        touch_input_on_host();  // pages back on the host before every sample (not timed)
        const double k = event_kernel(in.get(), out.get());
        const auto t0 = Clock::now();
        volatile unsigned char sink = 0;  // the host reads the output: pages migrate back
        const auto* o = static_cast<const unsigned char*>(out.get());
        for (std::size_t i = 0; i < bytes_; i += 4096) sink = sink + o[i];
        return std::vector<double>{k, seconds_since(t0)};
      };
      phases("breakdown", "managed", "on-demand", {"kernel", "d2h"}, on_demand, [&] { return out.get(); }, want_.get(),
             out.get());
      auto prefetched = [&] {
        touch_input_on_host();
        auto t0 = Clock::now();
        prefetch(in.get(), bytes_, true, stream_);
        prefetch(out.get(), bytes_, true, stream_);
        TLAB_CUDA(cudaStreamSynchronize(stream_));
        const double a = seconds_since(t0);
        const double k = event_kernel(in.get(), out.get());
        t0 = Clock::now();
        prefetch(out.get(), bytes_, false, stream_);
        TLAB_CUDA(cudaStreamSynchronize(stream_));
        return std::vector<double>{a, k, seconds_since(t0)};
      };
      phases("breakdown", "managed", "prefetch", {"h2d", "kernel", "d2h"}, prefetched, [&] { return out.get(); },
             want_.get(), out.get());
    }
    {  // The pipeline, pinned: host to host in one call, staged through device blocks or
       // mapped (the kernel on the host memory itself).
      Pinned in(bytes_), out(bytes_);
      std::memcpy(in.get(), input_.get(), bytes_);
      for (const PipelineOptions& po : pipelines) {
        // Allocation once, outside the timed region, as for the copies it is compared with.
        HostTransposePlan plan(s_, t_, po);
        auto seq = [&] {
          const auto t0 = Clock::now();
          plan.execute(in.get(), out.get());
          return std::vector<double>{seconds_since(t0)};
        };
        PipelineOptions used = po;
        used.panel_rows = pipeline_panel_rows(po, s_, t_);
        used.panel_cols = pipeline_panel_cols(po, s_, t_);
        const bool mapped = po.access == HostAccess::mapped;
        const char* case_name = mapped ? "mapped" : po.access == HostAccess::copy_in ? "copy-in" : "pipeline";
        phases(case_name, "pinned", mapped ? "kernel" : "pipeline", {"total"}, seq,
               [&] { return out.get(); }, want_.get(), out.get(), used);
      }
    }
  }

  std::vector<HostPathRow> rows;

 private:
  DType t_;
  Shape s_;
  TimingPolicy p_;
  std::size_t bytes_;
  cudaStream_t stream_{}, stream2_{};
  gpu::EventTimer timer_;
  std::unique_ptr<unsigned char[]> input_, want_;
  const KernelFn* kernel_ = nullptr;
};

}  // namespace

std::vector<HostPathRow> measure_host_paths(DType t, Shape s, const TimingPolicy& p,
                                            const std::vector<PipelineOptions>& pipelines, std::string* why) {
  if (!executor_for(Backend::gpu, why)) return {};
  Bench b(t, s, p);
  b.run_all(pipelines);
  return std::move(b.rows);
}

}  // namespace tlab

namespace tlab {

std::string host_paths_csv(const std::string& experiment, const std::vector<HostPathRow>& rows) {
  std::vector<std::string> header{"experiment", "case",  "memory", "api",  "phase", "order",      "streams",
                                  "block",      "kernel", "dtype", "elem_bytes", "rows", "cols", "bytes_moved"};
  for (const auto& c : timing_columns()) header.push_back(c);
  header.push_back("gbs");
  header.push_back("verified");
  std::string out = csv_line(header);
  for (const auto& r : rows) {
    const bool pipe = r.case_name == "pipeline" || r.case_name == "copy-in";
    std::vector<std::string> f{experiment,
                               r.case_name,
                               r.memory,
                               r.api,
                               r.phase,
                               pipe ? issue_order_name(r.pipeline.order) : "",
                               pipe ? std::to_string(r.pipeline.streams) : "",
                               pipe ? std::to_string(r.pipeline.panel_rows) + "x" + std::to_string(r.pipeline.panel_cols) : "",
                               r.case_name == "roofline" ? "" : r.pipeline.kernel,
                               dtype_name(r.dtype),
                               std::to_string(dtype_size(r.dtype)),
                               std::to_string(r.shape.rows),
                               std::to_string(r.shape.cols),
                               format_number(r.bytes, 15)};
    for (auto& x : timing_fields(r.summary, r.stop)) f.push_back(std::move(x));
    f.push_back(format_number(r.bytes / r.summary.median / 1e9));
    f.push_back(r.verified ? "yes" : "no");
    out += csv_line(f);
  }
  return out;
}

}  // namespace tlab
