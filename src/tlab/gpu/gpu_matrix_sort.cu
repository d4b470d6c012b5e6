// The GPU matrix sort's plan: buffers, streams and events allocated once; each run sorts
// rows, transposes, sorts rows, transposes back (so the result always ends where it began),
// with the copies of its memory kind around it.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <vector>

#include "tlab/executor.hpp"
#include "tlab/gpu/device_buffer.cuh"
#include "tlab/gpu/host_memory.cuh"
#include "tlab/gpu/launch.cuh"
#include "tlab/gpu/sort_rows.cuh"
#include "tlab/reference.hpp"
#include "tlab/sort/gpu_sort.hpp"
#include "tlab/sort/sort_variants.hpp"
#include "tlab/timing.hpp"

namespace tlab::sort {

namespace gs = tlab::gpu::sort;

namespace {


// The transpose kernel for keys of this size: a registered transpose of a same-size type
// (it only moves bits).
const KernelFn& key_transpose(const std::string& name, std::size_t key_bytes) {
  if (const KernelFn* k = gpu::correct_gpu_transpose(name, key_bytes == 4 ? DType::i32 : DType::f64, Placement::out_of_place))
    return *k;
  throw std::invalid_argument("GPU matrix sort: " + name + " is not a correct out-of-place GPU transpose of " +
                              std::to_string(key_bytes) + "-byte elements");
}

using gpu::prefetch;

enum Phase { kSort, kTranspose, kKeys, kCheck, kCopy, kPhases };

}  // namespace

std::string gpu_sort_refuses(const GpuSortOptions& o, DType t, Shape s) {
  if (std::find(sort_types().begin(), sort_types().end(), t) == sort_types().end()) return std::string("the GPU matrix sort has no ") + dtype_name(t) + " version";
  if (std::find(gpu_row_sorts().begin(), gpu_row_sorts().end(), o.row_sort) == gpu_row_sorts().end())
    return "no row sort named '" + o.row_sort + "'";
  if (s.rows <= 0 || s.cols <= 0) return "empty shape";
  const gs::RowSort r = gs::parse_row_sort(o.row_sort);
  const std::int64_t cap = gs::max_row_length(r, dtype_size(t));
  if (cap && std::max(s.rows, s.cols) > cap)
    return o.row_sort + " takes rows of at most " + std::to_string(cap) + " elements of " +
           std::to_string(dtype_size(t)) + " bytes here";
  if (r == gs::RowSort::cub_radix && s.elements() > 0x7fffffff) return "cub-segmented-radix counts items with int";
  if (o.streams < 1 || o.streams > 64) return "streams must be 1..64";
  if (o.streams > 1 && o.memory != SortMemory::pinned) return "streams apply to pinned memory only";
  if (o.streams > 1 && o.seed_loop) return "the seed's loop runs on one stream";
  return "";
}

struct GpuMatrixSort::Impl {
  Shape s;
  DType t;
  GpuSortOptions o;
  gs::RowSort rs;
  std::size_t key = 0, bytes = 0;
  const KernelFn* transpose = nullptr;
  std::vector<cudaStream_t> streams;  // [0] is the main stream
  gpu::DeviceBuffer a, b, pristine, flag;
  std::vector<gpu::DeviceBuffer> temp;  // scratch, one per stream
  std::vector<std::size_t> temp_bytes;
  std::vector<cudaEvent_t> joins;       // banded schedule: bands -> main, main -> bands
  gpu::ManagedBuffer managed;
  gpu::PinnedBuffer pin_in, pin_out;
  std::vector<unsigned char> page_in, page_out, managed_input;
  std::vector<cudaEvent_t> events;  // pairs, reused across runs
  bool loaded = false;

  ~Impl() {
    for (auto e : events) cudaEventDestroy(e);
    for (auto e : joins) cudaEventDestroy(e);
    for (auto x : streams) cudaStreamDestroy(x);
  }

  // The matrix the kernels work on (A) and the transpose target (B).
  void* A() const { return managed.get() ? managed.get() : a.get(); }
  void* B() const { return b.get(); }
};

namespace {
// Scratch bytes per stream: stream 0 runs both passes over the whole matrix; the other
// streams only sort their band of rows in the first pass (at most ceil(rows / streams) rows).
std::vector<std::size_t> scratch_sizes(Shape s, DType t, const GpuSortOptions& o) {
  const gs::RowSort r = gs::parse_row_sort(o.row_sort);
  if (gs::sorts_in_place(r)) return {};
  const auto f = dtype_size(t) == 4 ? gs::sort_rows_temp_bytes<std::uint32_t> : gs::sort_rows_temp_bytes<std::uint64_t>;
  std::vector<std::size_t> v{std::max(f(r, s.rows, s.cols), f(r, s.cols, s.rows))};
  const std::int64_t band = (s.rows + o.streams - 1) / o.streams;
  for (int i = 1; i < o.streams; ++i) v.push_back(f(r, band, s.cols));
  return v;
}
}  // namespace

double GpuMatrixSort::device_bytes(Shape s, DType t, const GpuSortOptions& o) {
  const double m = static_cast<double>(s.elements()) * dtype_size(t);
  double temp = 0;
  for (std::size_t b : scratch_sizes(s, t, o)) temp += static_cast<double>(b);
  return m * (o.memory == SortMemory::device ? 3 : 2) + temp;
}

GpuMatrixSort::GpuMatrixSort(Shape s, DType t, const GpuSortOptions& o) : impl_(std::make_unique<Impl>()) {
  if (const std::string why = gpu_sort_refuses(o, t, s); !why.empty()) throw std::invalid_argument("GPU matrix sort: " + why);
  Impl& m = *impl_;
  m.s = s;
  m.t = t;
  m.o = o;
  m.rs = gs::parse_row_sort(o.row_sort);
  m.key = dtype_size(t);
  m.bytes = static_cast<std::size_t>(s.elements()) * m.key;
  m.transpose = &key_transpose(o.transpose, m.key);
  std::size_t free_b = 0, total_b = 0;
  TLAB_CUDA(cudaMemGetInfo(&free_b, &total_b));
  const double need = device_bytes(s, t, o);
  if (need > 0.95 * static_cast<double>(free_b))
    throw ResourceError("device memory: the sort of " + to_string(s) + " " + dtype_name(t) + " needs " +
                        std::to_string(static_cast<long long>(need) >> 20) + " MiB, " + std::to_string(free_b >> 20) +
                        " MiB are free");
  m.streams.resize(static_cast<std::size_t>(o.streams));
  for (auto& x : m.streams) TLAB_CUDA(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
  if (o.memory == SortMemory::managed || o.memory == SortMemory::managed_prefetch) {
    m.managed = gpu::ManagedBuffer(m.bytes);
    m.managed_input.resize(m.bytes);
  } else {
    m.a = gpu::DeviceBuffer(m.bytes);
  }
  m.b = gpu::DeviceBuffer(m.bytes);
  m.flag = gpu::DeviceBuffer(sizeof(int));
  if (o.memory == SortMemory::device) m.pristine = gpu::DeviceBuffer(m.bytes);
  if (o.memory == SortMemory::pinned) {
    m.pin_in = gpu::PinnedBuffer(m.bytes);
    m.pin_out = gpu::PinnedBuffer(m.bytes);
  }
  if (o.memory == SortMemory::pageable) {
    m.page_in.resize(m.bytes);
    m.page_out.resize(m.bytes);
  }
  m.temp_bytes = scratch_sizes(s, t, o);
  for (std::size_t b : m.temp_bytes) m.temp.emplace_back(b);
  // Cross-stream joins of the banded schedule: created once, not inside the timed runs.
  if (o.streams > 1) {
    m.joins.resize(2 * static_cast<std::size_t>(o.streams));
    for (auto& e : m.joins) TLAB_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  }
}

GpuMatrixSort::~GpuMatrixSort() = default;

void GpuMatrixSort::load(const void* host) {
  Impl& m = *impl_;
  switch (m.o.memory) {
    case SortMemory::device:
      // From pageable memory cudaMemcpy may return once the data is staged, before the DMA
      // lands; run() reads it on a non-blocking stream, which would not wait for it.
      TLAB_CUDA(cudaMemcpy(m.pristine.get(), host, m.bytes, cudaMemcpyHostToDevice));
      TLAB_CUDA(cudaDeviceSynchronize());
      break;
    case SortMemory::pinned: std::memcpy(m.pin_in.get(), host, m.bytes); break;
    case SortMemory::pageable: std::memcpy(m.page_in.data(), host, m.bytes); break;
    case SortMemory::managed:
    case SortMemory::managed_prefetch: std::memcpy(m.managed_input.data(), host, m.bytes); break;
  }
  m.loaded = true;
}

void GpuMatrixSort::result(void* host) const {
  const Impl& m = *impl_;
  TLAB_CUDA(cudaDeviceSynchronize());
  switch (m.o.memory) {
    case SortMemory::device: TLAB_CUDA(cudaMemcpy(host, m.a.get(), m.bytes, cudaMemcpyDeviceToHost)); break;
    case SortMemory::pinned: std::memcpy(host, m.pin_out.get(), m.bytes); break;
    case SortMemory::pageable: std::memcpy(host, m.page_out.data(), m.bytes); break;
    case SortMemory::managed:
    case SortMemory::managed_prefetch: std::memcpy(host, m.managed.get(), m.bytes); break;
  }
}

void GpuMatrixSort::poison_result() {
  Impl& m = *impl_;
  TLAB_CUDA(cudaDeviceSynchronize());
  switch (m.o.memory) {
    case SortMemory::device: TLAB_CUDA(cudaMemset(m.a.get(), kPoisonByte, m.bytes)); break;
    case SortMemory::pinned: std::memset(m.pin_out.get(), kPoisonByte, m.bytes); break;
    case SortMemory::pageable: std::memset(m.page_out.data(), kPoisonByte, m.bytes); break;
    case SortMemory::managed:
    case SortMemory::managed_prefetch: std::memset(m.managed.get(), kPoisonByte, m.bytes); break;
  }
  TLAB_CUDA(cudaDeviceSynchronize());
}

namespace {

// Event pairs around phases on one stream; read after the stream is synchronised.
struct PhaseClock {
  std::vector<cudaEvent_t>& pool;
  std::vector<std::pair<Phase, std::size_t>> marks;  // phase, index of its start event
  std::size_t next = 0;
  bool on = true;
  explicit PhaseClock(std::vector<cudaEvent_t>& p, bool enabled) : pool(p), on(enabled) {}
  cudaEvent_t event() {
    if (next == pool.size()) {
      cudaEvent_t e;
      TLAB_CUDA(cudaEventCreate(&e));
      pool.push_back(e);
    }
    return pool[next++];
  }
  template <typename F> void time(Phase ph, cudaStream_t s, F f) {
    if (!on) return f();
    const std::size_t i = next;
    TLAB_CUDA(cudaEventRecord(event(), s));
    f();
    TLAB_CUDA(cudaEventRecord(event(), s));
    marks.push_back({ph, i});
  }
  void add_to(GpuSortTimes& t) const {
    for (auto [ph, i] : marks) {
      float ms = 0;
      TLAB_CUDA(cudaEventElapsedTime(&ms, pool[i], pool[i + 1]));
      double* slot[] = {&t.sort_s, &t.transpose_s, &t.keys_s, &t.check_s, &t.copy_s};
      *slot[ph] += ms * 1e-3;
    }
  }
};

}  // namespace

GpuSortTimes GpuMatrixSort::run() {
  Impl& m = *impl_;
  if (!m.loaded) throw std::logic_error("GpuMatrixSort::run without load");
  const Shape s = m.s;
  const std::int64_t n = s.elements();
  cudaStream_t main = m.streams[0];
  const bool banded = m.o.streams > 1;
  // Untimed set-up: the unsorted input where the memory kind keeps it.
  if (m.o.memory == SortMemory::device)
    TLAB_CUDA(cudaMemcpyAsync(m.a.get(), m.pristine.get(), m.bytes, cudaMemcpyDeviceToDevice, main));
  if (m.managed.get()) std::memcpy(m.managed.get(), m.managed_input.data(), m.bytes);  // its pages are on the host now
  TLAB_CUDA(cudaStreamSynchronize(main));

  GpuSortTimes out;
  PhaseClock clock(m.events, !banded);
  auto* A = static_cast<unsigned char*>(m.A());
  auto* B = static_cast<unsigned char*>(m.B());
  auto sort_rows = [&](void* data, void* other, std::int64_t rows, std::int64_t cols, int slot, cudaStream_t st) {
    const auto i = static_cast<std::size_t>(slot);
    void* temp = m.temp.empty() ? nullptr : m.temp[i].get();
    const std::size_t temp_bytes = m.temp.empty() ? 0 : m.temp_bytes[i];
    out.launches += m.key == 4 ? gs::sort_rows(m.rs, static_cast<std::uint32_t*>(data), static_cast<std::uint32_t*>(other),
                                               rows, cols, temp, temp_bytes, st)
                               : gs::sort_rows(m.rs, static_cast<std::uint64_t*>(data), static_cast<std::uint64_t*>(other),
                                               rows, cols, temp, temp_bytes, st);
  };
  auto transpose = [&](const void* in, void* to, Shape shape) {
    Operands op;
    op.in = in;
    op.out = to;
    op.shape = shape;
    op.stream = main;
    clock.time(kTranspose, main, [&] { (*m.transpose)(op); });
    ++out.launches;
  };
  const bool in_place = gs::sorts_in_place(m.rs);
  // Rows of A, then columns through B; the result is back in A (see the file comment).
  auto rows_then_columns = [&](bool first_pass_done) {
    if (!first_pass_done) clock.time(kSort, main, [&] { sort_rows(A, B, s.rows, s.cols, 0, main); });
    transpose(in_place ? A : B, in_place ? B : A, s);  // -> cols x rows
    unsigned char* t = in_place ? B : A;
    unsigned char* o = in_place ? A : B;
    clock.time(kSort, main, [&] { sort_rows(t, o, s.cols, s.rows, 0, main); });
    transpose(in_place ? t : o, A, s.transposed());
  };

  const auto t0 = Clock::now();
  // In: the copy (or the prefetch) of the unsorted matrix.
  switch (m.o.memory) {
    case SortMemory::pinned:
      if (!banded)
        clock.time(kCopy, main, [&] { TLAB_CUDA(cudaMemcpyAsync(A, m.pin_in.get(), m.bytes, cudaMemcpyHostToDevice, main)); });
      break;
    case SortMemory::pageable:
      clock.time(kCopy, main, [&] { TLAB_CUDA(cudaMemcpyAsync(A, m.page_in.data(), m.bytes, cudaMemcpyHostToDevice, main)); });
      break;
    case SortMemory::managed_prefetch: clock.time(kCopy, main, [&] { prefetch(A, m.bytes, true, main); }); break;
    default: break;
  }
  if (banded) {
    // Seed 003's schedules: bands of rows whose copy in, key map and first row sort share a
    // stream; depth-first issues band by band, breadth-first stage by stage.
    const int k = m.o.streams;
    struct Band {
      std::int64_t rows;
      std::size_t off, len;  // bytes into the key matrices, and bytes long
    };
    auto band = [&](int i) {
      const std::int64_t r0 = s.rows * i / k, r1 = s.rows * (i + 1) / k;
      return Band{r1 - r0, static_cast<std::size_t>(r0 * s.cols) * m.key, static_cast<std::size_t>((r1 - r0) * s.cols) * m.key};
    };
    auto h2d = [&](int i) {
      const Band b = band(i);
      TLAB_CUDA(cudaMemcpyAsync(A + b.off, static_cast<unsigned char*>(m.pin_in.get()) + b.off, b.len, cudaMemcpyHostToDevice,
                                m.streams[i]));
    };
    auto keys = [&](int i) {
      const Band b = band(i);
      gs::to_keys(m.t, A + b.off, b.rows * s.cols, m.streams[i]);
      ++out.launches;
    };
    auto rows = [&](int i) {
      const Band b = band(i);
      sort_rows(A + b.off, B + b.off, b.rows, s.cols, i, m.streams[i]);
    };
    // from_bands: main waits for every band; else every band waits for main.
    auto join = [&](bool from_bands) {
      for (int i = 1; i < k; ++i) {
        cudaEvent_t e = m.joins[static_cast<std::size_t>(from_bands ? i : k + i)];
        TLAB_CUDA(cudaEventRecord(e, from_bands ? m.streams[i] : main));
        TLAB_CUDA(cudaStreamWaitEvent(from_bands ? main : m.streams[i], e, 0));
      }
    };
    if (m.o.order == IssueOrder::depth_first) {
      for (int i = 0; i < k; ++i) { h2d(i); keys(i); rows(i); }
    } else {
      for (int i = 0; i < k; ++i) h2d(i);
      for (int i = 0; i < k; ++i) keys(i);
      for (int i = 0; i < k; ++i) rows(i);
    }
    join(true);
    rows_then_columns(true);
    join(false);
    auto back = [&](int i) {
      const Band b = band(i);
      gs::from_keys(m.t, A + b.off, b.rows * s.cols, m.streams[i]);
      ++out.launches;
    };
    auto d2h = [&](int i) {
      const Band b = band(i);
      TLAB_CUDA(cudaMemcpyAsync(static_cast<unsigned char*>(m.pin_out.get()) + b.off, A + b.off, b.len, cudaMemcpyDeviceToHost,
                                m.streams[i]));
    };
    if (m.o.order == IssueOrder::depth_first) {
      for (int i = 0; i < k; ++i) { back(i); d2h(i); }
    } else {
      for (int i = 0; i < k; ++i) back(i);
      for (int i = 0; i < k; ++i) d2h(i);
    }
    for (auto x : m.streams) TLAB_CUDA(cudaStreamSynchronize(x));
    out.iterations = 1;
  } else {
    clock.time(kKeys, main, [&] { gs::to_keys(m.t, A, n, main); });
    ++out.launches;
    for (int it = 1;; ++it) {
      rows_then_columns(false);
      out.iterations = it;
      if (!m.o.seed_loop) break;
      int unsorted = 0;
      clock.time(kCheck, main, [&] {
        TLAB_CUDA(cudaMemsetAsync(m.flag.get(), 0, sizeof(int), main));
        if (m.key == 4)
          gs::check_sorted(static_cast<const std::uint32_t*>(m.A()), s.rows, s.cols, static_cast<int*>(m.flag.get()), main);
        else
          gs::check_sorted(static_cast<const std::uint64_t*>(m.A()), s.rows, s.cols, static_cast<int*>(m.flag.get()), main);
      });
      ++out.launches;
      TLAB_CUDA(cudaMemcpyAsync(&unsorted, m.flag.get(), sizeof(int), cudaMemcpyDeviceToHost, main));
      TLAB_CUDA(cudaStreamSynchronize(main));
      if (!unsorted) break;
      if (it == 64) throw std::runtime_error("GPU matrix sort: the seed's loop did not finish in 64 iterations");
    }
    clock.time(kKeys, main, [&] { gs::from_keys(m.t, A, n, main); });
    ++out.launches;
    switch (m.o.memory) {
      case SortMemory::pinned:
        clock.time(kCopy, main, [&] { TLAB_CUDA(cudaMemcpyAsync(m.pin_out.get(), A, m.bytes, cudaMemcpyDeviceToHost, main)); });
        break;
      case SortMemory::pageable:
        clock.time(kCopy, main, [&] { TLAB_CUDA(cudaMemcpyAsync(m.page_out.data(), A, m.bytes, cudaMemcpyDeviceToHost, main)); });
        break;
      case SortMemory::managed_prefetch: clock.time(kCopy, main, [&] { prefetch(A, m.bytes, false, main); }); break;
      default: break;
    }
    TLAB_CUDA(cudaStreamSynchronize(main));
    if (m.o.memory == SortMemory::managed) {  // the host reads the result: its pages come back
      volatile unsigned char sink = 0;
      for (std::size_t i = 0; i < m.bytes; i += 4096) sink = sink + A[i];
    }
  }
  out.total_s = seconds_since(t0);
  clock.add_to(out);
  return out;
}

}  // namespace tlab::sort
