#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>

#include "tlab/executor.hpp"
#include "tlab/gpu/device_buffer.cuh"
#include "tlab/gpu/check.cuh"
#include "tlab/gpu/host_memory.cuh"
#include "tlab/host_transpose.hpp"
#include "tlab/out_of_core.hpp"
#include "tlab/timing.hpp"

namespace tlab {
namespace {


// Element (i, j): a hash, exact in a float (24 bits), equal for no simple symmetry.
float cell(std::int64_t i, std::int64_t j) {
  std::uint64_t x = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull ^ static_cast<std::uint64_t>(j);
  x = (x ^ (x >> 31)) * 0xBF58476D1CE4E5B9ull;
  return static_cast<float>(static_cast<std::uint32_t>(x >> 40));
}

// Calls f(r0, r1) on bands of [0, n) rows, one per hardware thread.
template <typename F> void bands(std::int64_t n, F f) {
  struct Pool {  // joined on every way out: a joinable thread destroyed ends the program
    std::vector<std::thread> threads;
    ~Pool() {
      for (auto& x : threads)
        if (x.joinable()) x.join();
    }
  } pool;
  const unsigned k = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned t = 0; t < k; ++t) pool.threads.emplace_back(f, n * t / k, n * (t + 1) / k);
}

// A host range registered with CUDA (pinned) for as long as this lives, exceptions included:
// freeing registered memory without unregistering it is undefined.
struct HostRegistration {
  void* p = nullptr;
  bool pinned = false;
  HostRegistration(void* ptr, std::size_t bytes) : p(ptr) {
    pinned = cudaHostRegister(ptr, bytes, cudaHostRegisterDefault) == cudaSuccess;
    if (!pinned) cudaGetLastError();  // the refusal is an answer, not a sticky error
  }
  ~HostRegistration() {
    if (pinned) cudaHostUnregister(p);
  }
};

using Stream = std::unique_ptr<CUstream_st, decltype(&cudaStreamDestroy)>;
Stream make_stream() {
  cudaStream_t s = nullptr;
  TLAB_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return Stream(s, cudaStreamDestroy);
}

// Wrong elements of m against the matrix (transposed or not).
long long wrong_elements(const float* m, std::int64_t n, bool transposed) {
  std::atomic<long long> bad{0};
  bands(n, [&](std::int64_t r0, std::int64_t r1) {
    long long local = 0;
    for (std::int64_t i = r0; i < r1; ++i) {
      const float* row = m + static_cast<std::size_t>(i) * n;
      for (std::int64_t j = 0; j < n; ++j) local += row[j] != (transposed ? cell(j, i) : cell(i, j));
    }
    bad += local;
  });
  return bad.load();
}

// Pinned H2D and D2H of `bytes` each, at once, on two streams: the bus's two-way ceiling.
Timed copy_both_ways(std::size_t bytes, const TimingPolicy& p) {
  const gpu::PinnedBuffer pa(bytes), pb(bytes);
  void *a = pa.get(), *b = pb.get();
  gpu::DeviceBuffer d1(bytes), d2(bytes);
  std::memset(a, 0x5A, bytes);
  const Stream st1 = make_stream(), st2 = make_stream();
  cudaStream_t s1 = st1.get(), s2 = st2.get();
  return measure(
      [&] {
        const auto t0 = Clock::now();
        TLAB_CUDA(cudaMemcpyAsync(d1.get(), a, bytes, cudaMemcpyHostToDevice, s1));
        TLAB_CUDA(cudaMemcpyAsync(b, d2.get(), bytes, cudaMemcpyDeviceToHost, s2));
        TLAB_CUDA(cudaStreamSynchronize(s1));
        TLAB_CUDA(cudaStreamSynchronize(s2));
        return seconds_since(t0);
      },
      p);
}

}  // namespace

double device_memory_bytes(std::string* why) {
  if (!executor_for(Backend::gpu, why)) return 0;
  std::size_t free_b = 0, total_b = 0;
  TLAB_CUDA(cudaMemGetInfo(&free_b, &total_b));
  return static_cast<double>(total_b);
}

OutOfCoreRun measure_out_of_core(std::int64_t n, const std::vector<OutOfCoreMethod>& methods, const TimingPolicy& p,
                                 std::string* why) {
  OutOfCoreRun run;
  run.device_memory_bytes = device_memory_bytes(why);
  if (run.device_memory_bytes == 0) return run;
  // The ceiling first, while the host still has room for two pinned buffers.
  run.copy_bytes = 1 << 30;
  run.copy_both_ways = copy_both_ways(static_cast<std::size_t>(run.copy_bytes), p);
  run.n = n;
  const std::size_t count = static_cast<std::size_t>(n) * n, bytes = count * sizeof(float);
  std::unique_ptr<float[]> m(new float[count]);
  bands(n, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t i = r0; i < r1; ++i)
      for (std::int64_t j = 0; j < n; ++j) m[static_cast<std::size_t>(i) * n + j] = cell(i, j);
  });
  const HostRegistration registration(m.get(), bytes);  // declared after m: unregistered before m is freed
  const bool pinned = registration.pinned;
  run.host_memory = pinned ? "pinned" : "pageable";
  bool transposed = false;
  const Shape s{n, n};
  for (const OutOfCoreMethod& method : methods) {
    const std::string label = method.access + " " + method.kernel;
    if (method.access == "mapped" && !pinned) {
      run.skipped.push_back(label + ": the host refused to pin the matrix, and a mapped kernel needs it pinned");
      continue;
    }
    auto once = [&] {
      const auto t0 = Clock::now();
      if (method.access == "mapped")
        transpose_host_in_place_mapped(m.get(), s, DType::f32, method.kernel);
      else
        transpose_host_in_place(m.get(), s, DType::f32, method.block, method.streams, method.kernel);
      transposed = !transposed;
      return seconds_since(t0);
    };
    once();
    if (const long long bad = wrong_elements(m.get(), n, transposed))
      throw VerificationError("10 out-of-core " + label + ": " + std::to_string(bad) + " wrong elements");
    OutOfCoreRow row;
    row.method = method;
    row.timed = measure(once, p);
    if (const long long bad = wrong_elements(m.get(), n, transposed))
      throw VerificationError("10 out-of-core " + label + ": " + std::to_string(bad) + " wrong elements after timing");
    row.verified = true;
    run.rows.push_back(row);
  }
  return run;
}

}  // namespace tlab
