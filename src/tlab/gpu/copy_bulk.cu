// A copy through the TMA's bulk copies (sm_90 and later): one thread of a block asks the TMA
// to bring a chunk of the source into shared memory, and when it has arrived, to store it to
// the destination, with several chunks in flight. No thread loads or stores a byte of the
// matrix itself. cudaMemcpy device to device runs on the copy engines, not on the SMs (under
// Nsight Compute it shows no kernel), at about 88% of the H200's DRAM peak; every SM copy of
// ours reaches 80-83%. This one asks whether large contiguous requests that bypass the SMs'
// loads close that gap: on the H200 they do not (82% of the peak, 91-97% of memcpy, a point
// or more above the copy kernels at 1 and 2 bytes), so what holds the SMs' copies lies in the
// path from the SMs to memory, whoever issues the requests (performance notes, section 9,
// "The copy engines' rate, and bulk copies").
#include "tlab/gpu/launch.cuh"
#include "tlab/gpu/word_tile.cuh"

namespace tlab::gpu {
namespace {

constexpr int kThreads = 32;  // thread 0 drives the TMA; threads below 16 copy the bytes past the last 16-byte word
// 16 KiB chunks, six in flight, two blocks an SM: at 1 and 2 bytes up to 3 points of memcpy
// faster on the H200 than 32 KiB chunks four in flight with one block an SM, level at the rest
// (performance notes, section 9, "The copy engines' rate, and bulk copies").
constexpr int kChunk = 16 * 1024, kStages = 6;

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
__device__ __forceinline__ unsigned shared_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
#endif

constexpr std::size_t kSmemBytes = kStages * kChunk + 8 * kStages;  // the stages, then their barriers

// Chunk c of `chunks` (kChunk bytes each, the last one `last` bytes) goes through stage c % kStages
// of the block that takes it; blocks take chunks a grid apart, so that the blocks in flight
// stream through one contiguous stretch of the matrix.
__global__ void __launch_bounds__(kThreads)
copy_bulk(const unsigned char* __restrict__ in, unsigned char* __restrict__ out, std::int64_t chunks, int last,
          const unsigned char* __restrict__ in_tail, unsigned char* __restrict__ out_tail, int tail) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ __align__(128) unsigned char smem[];
  if (blockIdx.x == 0 && static_cast<int>(threadIdx.x) < tail) out_tail[threadIdx.x] = in_tail[threadIdx.x];
  if (threadIdx.x != 0) return;
  const unsigned data = shared_addr(smem), bars = data + kStages * kChunk;
  for (int s = 0; s < kStages; ++s) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bars + 8 * s));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  // The barriers' initialisation visible to the TMA (the async proxy), as the CUDA guide does.
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  const std::int64_t first = blockIdx.x, step = gridDim.x;
  auto bytes_of = [&](std::int64_t c) { return c == chunks - 1 ? last : kChunk; };
  auto load = [&](std::int64_t c) {
    const int s = static_cast<int>(((c - first) / step) % kStages), n = bytes_of(c);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bars + 8 * s), "r"(n) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     data + s * kChunk),
                 "l"(in + c * kChunk), "r"(n), "r"(bars + 8 * s)
                 : "memory");
  };
  for (int i = 0; i < kStages && first + i * step < chunks; ++i) load(first + i * step);
  unsigned phases = 0;  // bit s: the parity that stage s's barrier completes next
  for (std::int64_t i = 0; first + i * step < chunks; ++i) {
    const std::int64_t c = first + i * step;
    const int s = static_cast<int>(i % kStages);
    asm volatile(
        "{\n .reg .pred done;\n wait:\n mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n @!done bra wait;\n}" ::"r"(
            bars + 8 * s),
        "r"((phases >> s) & 1u)
        : "memory");
    phases ^= 1u << s;
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(out + c * kChunk), "r"(data + s * kChunk),
                 "r"(bytes_of(c))
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    // The stage of the chunk before this one is free once its store has read it: refill it.
    if (i >= 1) {
      asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
      const std::int64_t next = c - step + kStages * step;
      if (next < chunks) load(next);
    }
  }
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#endif
}

void launch(const Operands& op, std::int64_t bytes) {
  const auto* in = static_cast<const unsigned char*>(op.in);
  auto* out = static_cast<unsigned char*>(op.out);
  if (!runs_sm90(reinterpret_cast<const void*>(copy_bulk)))
    throw std::invalid_argument("needs a device of compute capability 9.0 or later and a build with code for it");
  if ((reinterpret_cast<std::uintptr_t>(in) | reinterpret_cast<std::uintptr_t>(out)) % 16)
    throw std::invalid_argument("the bulk copy needs 16-byte aligned buffers");
  static unsigned long long allowed = 0;  // a bit per device
  word::allow_smem(copy_bulk, kSmemBytes, allowed);
  // Whole 16-byte words through the TMA; the bytes past them (all of a copy under 16 bytes) by
  // block 0's threads.
  const std::int64_t words = bytes / 16 * 16, chunks = ceil_div(words, kChunk);
  const int last = chunks ? static_cast<int>(words - (chunks - 1) * kChunk) : 0;
  int per_sm = 0;
  TLAB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, copy_bulk, kThreads, kSmemBytes));
  const std::int64_t blocks = std::max<std::int64_t>(1, std::min<std::int64_t>(chunks, std::int64_t{per_sm} * sm_count()));
  copy_bulk<<<static_cast<unsigned>(blocks), kThreads, kSmemBytes, stream_of(op)>>>(in, out, chunks, last, in + words,
                                                                                   out + words,
                                                                                   static_cast<int>(bytes - words));
  TLAB_CUDA_LAUNCHED();
}

}  // namespace

void register_gpu_copy_bulk(Registry& r) {
  Variant v = gpu_variant("gpu/copy-bulk", "peer-copy", Placement::out_of_place, {{"chunk", "16KiB"}, {"stages", "6"}},
                          "TMA bulk copies of 16 KiB chunks, six in flight per block, two blocks an SM: no SM load or store");
  v.produces = Produces::copy;
  v.kernels = instantiate_all([](auto tag, const Operands& op) {
    launch(op, op.shape.elements() * static_cast<std::int64_t>(sizeof(decltype(tag))));
  });
  v.refuses_shape = [](DType, Shape) {
    return runs_sm90(reinterpret_cast<const void*>(copy_bulk)) ? std::string() : std::string("needs a TMA (compute capability 9.0)");
  };
  r.add(std::move(v));
}

}  // namespace tlab::gpu
