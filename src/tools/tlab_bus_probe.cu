// tlab-bus-probe: what the host link carries when the SMs drive it, against the copy engines.
// Experiment 08's zero-copy transposes load and store page-locked host memory from kernels;
// this asks whether any way of issuing those accesses (4- or 16-byte loads, L2 prefetch-size
// hints, Hopper's bulk asynchronous copies) comes closer to the copy engines, and whether SM
// traffic and copy-engine traffic add up when they run at once (docs/performance-notes.md,
// section 6). Plain copies only, no transposing: the library's copy kernels
// (gpu/copy-kernel-wide, gpu/copy-kernel) for the plain loads, and here only the two ways of
// issuing them that no variant uses (prefetch-size hints, bulk asynchronous copies).
//
// Output: CSV on stdout, one row per measurement: what, bytes over the bus per run, runs,
// median/min/max GB/s. Every copy is checked once against its source, output poisoned first.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "tlab/registry.hpp"

namespace {

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "tlab-bus-probe: %s: %s\n", what, cudaGetErrorString(e));
  std::exit(1);
}

// A 16-byte load that asks L2 to fetch H bytes around it (ld's L2::64B/128B/256B qualifier):
// if sysmem reads are cut per line, a larger fetch could mean fewer, longer bus reads.
template <int H> __device__ __forceinline__ uint4 load_hinted(const uint4* p) {
  uint4 v;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  v = *p;  // no prefetch-size qualifier before sm_80
#else
  if constexpr (H == 256)
    asm volatile("ld.global.nc.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  else if constexpr (H == 128)
    asm volatile("ld.global.nc.L2::128B.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  else
    asm volatile("ld.global.nc.L2::64B.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
#endif
  return v;
}

template <int H> __global__ void copy_hinted(const uint4* __restrict__ a, uint4* __restrict__ b, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    b[i] = load_hinted<H>(a + i);
}

// Bulk asynchronous copies (sm_90): one thread per block streams chunks of `chunk` bytes
// through `stages` shared-memory buffers, global -> shared on an mbarrier, shared -> global
// as a bulk group; the next load into a buffer waits until its store has read it.
__global__ void copy_bulk(const unsigned char* __restrict__ a, unsigned char* __restrict__ b, size_t chunks,
                          unsigned chunk, int stages) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  auto smem_addr = [](const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); };
  extern __shared__ __align__(128) unsigned char buf[];
  __shared__ __align__(8) unsigned long long bar[8];
  if (threadIdx.x != 0) return;
  for (int s = 0; s < stages; ++s) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bar[s])));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  // The barriers' initialisation visible to the TMA (the async proxy), as the CUDA guide does.
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  auto load = [&](size_t c, int s) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(&bar[s])), "r"(chunk) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     smem_addr(buf + size_t(s) * chunk)),
                 "l"(a + c * chunk), "r"(chunk), "r"(smem_addr(&bar[s]))
                 : "memory");
  };
  const size_t step = gridDim.x;
  size_t c = blockIdx.x;
  for (int s = 0; s < stages && c < chunks; ++s, c += step) load(c, s);
  size_t k = 0;
  for (size_t i = blockIdx.x; i < chunks; i += step, ++k) {
    const int s = static_cast<int>(k % stages);
    asm volatile(
        "{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra W;\n}" ::"r"(
            smem_addr(&bar[s])),
        "r"(static_cast<unsigned>((k / stages) & 1))
        : "memory");
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(b + i * chunk),
                 "r"(smem_addr(buf + size_t(s) * chunk)), "r"(chunk)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    if (i + size_t(stages) * step < chunks) load(i + size_t(stages) * step, s);
  }
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#endif
}

struct Probe {
  size_t bytes = size_t(1) << 30;
  cudaStream_t s1{}, s2{};
  cudaEvent_t start{}, end1{}, end2{};
  unsigned char *host_a = nullptr, *host_b = nullptr, *dev_a = nullptr, *dev_b = nullptr;
  int sms = 0;

  // Median, min and max GB/s of `runs` timed runs after two warm-ups; `work` enqueues on
  // s1 and/or s2, both of which start together and are waited for.
  void time(const std::string& what, double bus_bytes, const std::function<void()>& work, int runs = 9) {
    std::vector<double> gbs;
    for (int i = 0; i < runs + 2; ++i) {
      check(cudaDeviceSynchronize(), "synchronize");
      check(cudaEventRecord(start, s1), "event");
      check(cudaStreamWaitEvent(s2, start), "wait");
      work();
      check(cudaGetLastError(), what.c_str());
      check(cudaEventRecord(end2, s2), "event");
      check(cudaStreamWaitEvent(s1, end2), "wait");
      check(cudaEventRecord(end1, s1), "event");
      check(cudaEventSynchronize(end1), "event");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, start, end1), "elapsed");
      if (i >= 2) gbs.push_back(bus_bytes / (ms * 1e-3) / 1e9);
    }
    std::sort(gbs.begin(), gbs.end());
    std::printf("%s,%.0f,%d,%.2f,%.2f,%.2f\n", what.c_str(), bus_bytes, runs, gbs[gbs.size() / 2], gbs.front(),
                gbs.back());
    std::fflush(stdout);
  }

  // host_b must equal host_a after `work` (poisoned first): a probe that does not copy fails.
  void verify(const std::string& what, const std::function<void()>& work) {
    std::memset(host_b, 0xA5, bytes);
    work();
    check(cudaDeviceSynchronize(), what.c_str());
    if (std::memcmp(host_a, host_b, bytes) != 0) {
      std::fprintf(stderr, "tlab-bus-probe: %s did not copy its input exactly\n", what.c_str());
      std::exit(1);
    }
  }

  // A registered copy kernel over `bytes` bytes as elements of type t, on s1.
  void copy_with(const char* variant, tlab::DType t, const void* from, void* to) {
    tlab::Operands op;
    op.in = from;
    op.out = to;
    op.shape = {1, static_cast<std::int64_t>(bytes / tlab::dtype_size(t))};
    op.stream = s1;
    tlab::registry().get(variant).kernels.at(t)(op);
  }

  void dma_both() {
    time("dma-both", 2.0 * bytes, [&] {
      check(cudaMemcpyAsync(dev_a, host_a, bytes, cudaMemcpyHostToDevice, s1), "h2d");
      check(cudaMemcpyAsync(host_b, dev_b, bytes, cudaMemcpyDeviceToHost, s2), "d2h");
    });
  }

  void run() {
    const unsigned g = static_cast<unsigned>(sms) * 8;
    const auto* in16 = reinterpret_cast<const uint4*>(host_a);
    auto* out16 = reinterpret_cast<uint4*>(host_b);
    const size_t words = bytes / 16;
    time("dma-h2d", bytes, [&] { check(cudaMemcpyAsync(dev_a, host_a, bytes, cudaMemcpyHostToDevice, s1), "h2d"); });
    time("dma-d2h", bytes, [&] { check(cudaMemcpyAsync(host_b, dev_b, bytes, cudaMemcpyDeviceToHost, s1), "d2h"); });
    dma_both();
    const char* wide = "gpu/copy-kernel-wide";  // 16-byte words
    verify("sm-copy-16B", [&] { copy_with(wide, tlab::DType::u8, host_a, host_b); });
    time("sm-read-16B", bytes, [&] { copy_with(wide, tlab::DType::u8, host_a, dev_a); });
    time("sm-write-16B", bytes, [&] { copy_with(wide, tlab::DType::u8, dev_b, host_b); });
    time("sm-copy-16B", 2.0 * bytes, [&] { copy_with(wide, tlab::DType::u8, host_a, host_b); });
    verify("sm-copy-4B", [&] { copy_with("gpu/copy-kernel", tlab::DType::i32, host_a, host_b); });
    time("sm-copy-4B", 2.0 * bytes, [&] { copy_with("gpu/copy-kernel", tlab::DType::i32, host_a, host_b); });
    verify("sm-copy-L2-256B", [&] { copy_hinted<256><<<g, 256, 0, s1>>>(in16, out16, words); });
    time("sm-copy-L2-64B", 2.0 * bytes, [&] { copy_hinted<64><<<g, 256, 0, s1>>>(in16, out16, words); });
    time("sm-copy-L2-128B", 2.0 * bytes, [&] { copy_hinted<128><<<g, 256, 0, s1>>>(in16, out16, words); });
    time("sm-copy-L2-256B", 2.0 * bytes, [&] { copy_hinted<256><<<g, 256, 0, s1>>>(in16, out16, words); });
    int major = 0;
    check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), "attribute");
    if (major >= 9) {
      for (unsigned chunk : {4096u, 16384u, 32768u})
        for (int stages : {2, 4}) {
          const size_t smem = size_t(chunk) * stages;
          check(cudaFuncSetAttribute(copy_bulk, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)),
                "shared memory");
          auto bulk = [&] { copy_bulk<<<sms, 32, smem, s1>>>(host_a, host_b, bytes / chunk, chunk, stages); };
          const std::string what = "sm-copy-bulk-" + std::to_string(chunk / 1024) + "KiB-x" + std::to_string(stages);
          verify(what, bulk);
          time(what, 2.0 * bytes, bulk);
        }
    }
    // Two initiators at once, one per direction: the SMs read over the link while a copy
    // engine writes over it, and the reverse.
    time("sm-h2d+dma-d2h", 2.0 * bytes, [&] {
      copy_with(wide, tlab::DType::u8, host_a, dev_a);
      check(cudaMemcpyAsync(host_b, dev_b, bytes, cudaMemcpyDeviceToHost, s2), "d2h");
    });
    time("sm-d2h+dma-h2d", 2.0 * bytes, [&] {
      copy_with(wide, tlab::DType::u8, dev_b, host_b);
      check(cudaMemcpyAsync(dev_a, host_a, bytes, cudaMemcpyHostToDevice, s2), "h2d");
    });
    dma_both();  // again at the end: how much the copy engines' rate moved during the run
  }
};

}  // namespace

int main(int argc, char**) {
  if (argc > 1) {
    std::fprintf(stderr, "tlab-bus-probe: takes no arguments (it prints CSV: what,bus_bytes,runs,median_gbs,min_gbs,max_gbs)\n");
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "tlab-bus-probe: no CUDA device\n");
    return 77;
  }
  Probe p;
  check(cudaDeviceGetAttribute(&p.sms, cudaDevAttrMultiProcessorCount, 0), "attribute");
  check(cudaStreamCreateWithFlags(&p.s1, cudaStreamNonBlocking), "stream");
  check(cudaStreamCreateWithFlags(&p.s2, cudaStreamNonBlocking), "stream");
  check(cudaEventCreate(&p.start), "event");
  check(cudaEventCreate(&p.end1), "event");
  check(cudaEventCreate(&p.end2), "event");
  // Page-locked and mapped: with unified addressing the host pointers are the kernels' too.
  check(cudaHostAlloc(&p.host_a, p.bytes, cudaHostAllocMapped), "page-locked host memory (2 GiB in all)");
  check(cudaHostAlloc(&p.host_b, p.bytes, cudaHostAllocMapped), "page-locked host memory (2 GiB in all)");
  check(cudaMalloc(&p.dev_a, p.bytes), "device memory");
  check(cudaMalloc(&p.dev_b, p.bytes), "device memory");
  for (size_t i = 0; i < p.bytes; ++i) p.host_a[i] = static_cast<unsigned char>(i * 2654435761u >> 13);
  check(cudaMemset(p.dev_b, 0x3C, p.bytes), "memset");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "properties");
  std::printf("# %s\nwhat,bus_bytes,runs,median_gbs,min_gbs,max_gbs\n", prop.name);
  try {
    p.run();
  } catch (const std::exception& e) {  // the library's kernels report CUDA errors by throwing
    std::fprintf(stderr, "tlab-bus-probe: %s\n", e.what());
    return 1;
  }
  cudaFreeHost(p.host_a);
  cudaFreeHost(p.host_b);
  cudaFree(p.dev_a);
  cudaFree(p.dev_b);
  return 0;
}
