// Out-of-place transposes through the Tensor Memory Accelerator (sm_90 and later): a block
// asks the TMA for its 32 KiB tile of the source, in boxes of 128-byte row pieces, transposes
// it between two shared-memory tiles, and asks the TMA to store the result. The TMA moves
// every byte between memory and shared memory, so the SMs issue no global load or store of
// their own (only the shared-memory accesses of the transpose). It does not beat the word
// kernels where rows are whole 128-byte lines, but it measured the fastest where they are
// whole 16-byte units and no more (8200 floats, most sides of 16-byte elements) on the H100:
// performance notes, section 9, "TMA tiles".
//
// The TMA swizzles the eight 16-byte chunks of each 128-byte row by the row's index mod 8. A
// thread moves one c x c block of elements (c = 16 / S: one chunk from each of c rows, out as
// one chunk to each of c rows), and the threads of a quarter warp take blocks whose chunks,
// once swizzled, fall on eight different bank groups, on the way in and on the way out.
// The TMA zero-fills loads past the matrix's edges and clips stores there, so any shape whose
// rows are whole 16-byte units runs, with no bounds in the kernel.
#include <cuda.h>
#include <cudaTypedefs.h>

#include "tlab/gpu/word_tile.cuh"

namespace tlab::gpu {
namespace {

constexpr int kThreads = 128;
constexpr int kTileBytes = 32 * 1024;
constexpr int kBoxOuter = 256;  // the TMA's largest box side

template <int S> struct Geometry {
  static constexpr int C = 16 / S;                    // elements per 16-byte chunk
  static constexpr int sub = 8 * C;                   // a sub-tile: sub x sub elements, 128-byte rows
  static constexpr int subs = kBoxOuter / sub;        // sub-tiles per tile
  static constexpr int sub_bytes = sub * 128;
  static constexpr int blocks = subs * 64;            // c x c blocks per tile
  static constexpr std::size_t smem_bytes = 2 * kTileBytes + 1024 + 16;  // + alignment, + barrier
  static_assert(subs * sub_bytes == kTileBytes && blocks % kThreads == 0, "");
};

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
#endif

// A tile is 256 input rows by `sub` columns: one box of 128 bytes of each of 256 input rows in,
// and `subs` boxes out, each 128 bytes of `sub` output rows, so that a block writes 256-element
// pieces of its output rows. blockIdx.x walks down the input, so that consecutive blocks write
// neighbouring pieces of the same output rows. (The other orientation, 256-element input
// pieces and 128-byte output pieces, and the other block order measured slower at most
// shapes, and at every shape where this one beats the other kernels: performance notes,
// section 9, "TMA tiles".)
template <int S>
__global__ void __launch_bounds__(kThreads)
transpose_tma(const __grid_constant__ CUtensorMap src, const __grid_constant__ CUtensorMap dst, std::int64_t cols) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using G = Geometry<S>;
  constexpr int C = G::C;
  extern __shared__ unsigned char smem_raw[];
  // 128-byte swizzling repeats every 1024 bytes, and the TMA wants the tile on that boundary.
  unsigned char* tin = reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t{1023});
  unsigned char* tout = tin + kTileBytes;
  const unsigned bar = smem_addr(tout + kTileBytes);
  const std::uint64_t src_map = reinterpret_cast<std::uint64_t>(&src), dst_map = reinterpret_cast<std::uint64_t>(&dst);
  // The tile's column index may pass gridDim.y: it is looped over.
  const std::int64_t tiles_c = (cols + G::sub - 1) / G::sub;
  const std::int64_t r0 = static_cast<std::int64_t>(blockIdx.x) * kBoxOuter;
  const bool leader = threadIdx.x == 0;
  if (leader) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    // The barriers' initialisation visible to the TMA (the async proxy), as the CUDA guide does.
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  const auto load = [&](std::int64_t by) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(kTileBytes) : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
            smem_addr(tin)),
        "l"(src_map), "r"(static_cast<int>(by * G::sub * S)), "r"(static_cast<int>(r0)), "r"(bar)
        : "memory");
  };
  unsigned phase = 0;
  if (leader && blockIdx.y < tiles_c) load(blockIdx.y);
  for (std::int64_t by = blockIdx.y; by < tiles_c; by += gridDim.y, phase ^= 1) {
    asm volatile(
        "{\n .reg .pred done;\n wait:\n mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n @!done bra wait;\n}" ::"r"(
            bar),
        "r"(phase)
        : "memory");
    // Quarter warp j, lane i: block (chunk q = i, row block R = i ^ j); its c rows' chunks sit at
    // q ^ (row mod 8), its c output rows' at R ^ (row mod 8): both a permutation of i. One-chunk
    // blocks (c = 1) take R = j instead, since q ^ R would then be the same for all eight.
#pragma unroll
    for (int k = 0; k < G::blocks / kThreads; ++k) {
      const int p = threadIdx.x + k * kThreads, t = p % 64, i = t % 8, j = t / 8;
      const int q = i, R = C == 1 ? j : i ^ j;
      const unsigned char* from = tin + (p / 64) * G::sub_bytes;
      unsigned char* to = tout + (p / 64) * G::sub_bytes;
      uint4 v[C], w[C];
#pragma unroll
      for (int e = 0; e < C; ++e) {
        const int row = C * R + e;
        v[e] = *reinterpret_cast<const uint4*>(from + row * 128 + ((q ^ (row % 8)) * 16));
      }
      word::transpose_block<S, 16>(v, w);
#pragma unroll
      for (int e = 0; e < C; ++e) {
        const int row = C * q + e;
        *reinterpret_cast<uint4*>(to + row * 128 + ((R ^ (row % 8)) * 16)) = w[e];
      }
    }
    // The threads' stores to the tile must be visible to the TMA (the async proxy) before it reads.
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (leader) {
      const std::int64_t next = by + gridDim.y;
      if (next < tiles_c) load(next);  // the input tile is free: every thread has read it
#pragma unroll 1
      for (int b = 0; b < G::subs; ++b)
        asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(dst_map),
                     "r"(static_cast<int>((r0 + b * G::sub) * S)), "r"(static_cast<int>(by * G::sub)),
                     "r"(smem_addr(tout + b * G::sub_bytes))
                     : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      // The output tile is rewritten next round, and shared memory must outlive the TMA's reads.
      asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
    __syncthreads();
  }
#else
  __trap();  // built without sm_90 code (refuses() says so first): never a silent no-op
#endif
}

PFN_cuTensorMapEncodeTiled_v12000 encoder() {
  static PFN_cuTensorMapEncodeTiled_v12000 f = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
    TLAB_CUDA(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || !p) throw std::runtime_error("the driver has no cuTensorMapEncodeTiled");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return f;
}

// A rows x row_bytes matrix of bytes, read or written in boxes of 128 bytes by box_rows rows.
CUtensorMap byte_map(const void* base, std::int64_t rows, std::int64_t row_bytes, int box_rows) {
  CUtensorMap m;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(row_bytes), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(row_bytes)};
  const cuuint32_t box[2] = {128, static_cast<cuuint32_t>(box_rows)}, unit[2] = {1, 1};
  const CUresult r = encoder()(&m, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, const_cast<void*>(base), dims, strides, box, unit,
                               CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                               CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) throw std::runtime_error("cuTensorMapEncodeTiled failed (" + std::to_string(r) + ")");
  return m;
}

bool device_has_tma() { return runs_sm90(reinterpret_cast<const void*>(transpose_tma<4>)); }

std::string refuses(int S, Shape s) {
  if (!device_has_tma()) return "needs a device of compute capability 9.0 or later (a TMA) and a build with code for it";
  if ((s.cols * S) % 16 || (s.rows * S) % 16) return "rows of the input and the output must be whole 16-byte units";
  if (s.cols * S >= (std::int64_t{1} << 31) || s.rows * S >= (std::int64_t{1} << 31))
    return "a row of 2 GiB or more is past the TMA's 32-bit coordinates";
  return "";
}

template <typename T> void launch(const Operands& op) {
  constexpr int S = sizeof(T);
  using G = Geometry<S>;
  const std::string why = refuses(S, op.shape);
  if (!why.empty()) throw std::invalid_argument(why);
  // The TMA wants both matrices on 16-byte boundaries; a caller's pointer into the middle of
  // an allocation need not be. Those go to the kernel that takes any alignment.
  if ((reinterpret_cast<std::uintptr_t>(op.in) | reinterpret_cast<std::uintptr_t>(op.out)) % 16) {
    (*correct_gpu_transpose("gpu/word/sector-cut", dtype_of<T>::value, Placement::out_of_place))(op);
    return;
  }
  static unsigned long long smem_allowed = 0;
  auto k = transpose_tma<S>;
  word::allow_smem(k, G::smem_bytes, smem_allowed);
  const std::int64_t rows = op.shape.rows, cols = op.shape.cols;
  const CUtensorMap src = byte_map(op.in, rows, cols * S, kBoxOuter);
  const CUtensorMap dst = byte_map(op.out, cols, rows * S, G::sub);
  const dim3 grid = TileOrder<true>::grid(ceil_div(rows, kBoxOuter), ceil_div(cols, G::sub));
  k<<<grid, kThreads, G::smem_bytes, stream_of(op)>>>(src, dst, cols);
  TLAB_CUDA_LAUNCHED();
}

}  // namespace

void register_gpu_tma(Registry& r) {
  Variant v = gpu_variant("gpu/tma/wide-out", "gpu-tma", Placement::out_of_place, {{"tile", "256x128B"}, {"swizzle", "128B"}},
                          "TMA boxes in and out; a block reads 128 bytes of each of 256 input rows and writes "
                          "256-element pieces of 128/S output rows");
  v.kernels = instantiate_all([](auto tag, const Operands& op) { launch<decltype(tag)>(op); });
  v.refuses_shape = [](DType t, Shape s) { return refuses(static_cast<int>(dtype_size(t)), s); };
  r.add(std::move(v));
}

}  // namespace tlab::gpu
