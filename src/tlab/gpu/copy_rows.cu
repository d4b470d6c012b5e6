#include <algorithm>

#include "tlab/gpu/copy_rows.cuh"
#include "tlab/gpu/copy_strided.cuh"
#include "tlab/gpu/launch.cuh"

namespace tlab::gpu {
namespace {

constexpr int kThreads = 256;
constexpr int kUnroll = 4;  // independent loads in flight per thread before its stores

// A block of kThreads threads is `lanes` threads per row times kThreads / lanes rows; each
// thread moves words lane, lane + lanes, ... of its row, kUnroll at a time.
template <typename V>
__global__ void __launch_bounds__(kThreads)
copy_rows_kernel(unsigned char* __restrict__ dst, std::int64_t dst_pitch, const unsigned char* __restrict__ src,
                 std::int64_t src_pitch, std::int64_t words, std::int64_t rows, int lanes) {
  const int lane = threadIdx.x % lanes;
  const std::int64_t per_block = kThreads / lanes;
  for (std::int64_t r = blockIdx.x * per_block + threadIdx.x / lanes; r < rows; r += gridDim.x * per_block) {
    const V* from = reinterpret_cast<const V*>(src + r * src_pitch);
    V* to = reinterpret_cast<V*>(dst + r * dst_pitch);
    copy_strided<kUnroll>(from, to, lane, words, lanes, kUnroll * lanes);
  }
}

template <typename V>
void launch(void* dst, std::int64_t dst_pitch, const void* src, std::int64_t src_pitch, std::int64_t width,
            std::int64_t rows, cudaStream_t stream) {
  const std::int64_t words = width / static_cast<std::int64_t>(sizeof(V));
  int lanes = 32;  // whole warps per row, fewer rows per block for wide rows
  while (lanes < kThreads && lanes < words) lanes *= 2;
  const std::int64_t per_block = kThreads / lanes;
  const std::int64_t blocks = std::min<std::int64_t>((rows + per_block - 1) / per_block, std::int64_t{sm_count()} * 16);
  copy_rows_kernel<V><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
      static_cast<unsigned char*>(dst), dst_pitch, static_cast<const unsigned char*>(src), src_pitch, words, rows, lanes);
  TLAB_CUDA_LAUNCHED();
}

}  // namespace

void copy_rows(void* dst, std::int64_t dst_pitch, const void* src, std::int64_t src_pitch, std::int64_t width,
               std::int64_t rows, cudaStream_t stream) {
  if (rows <= 0 || width <= 0) return;
  // The widest word that every row start, pitch and the width are multiples of.
  const auto bits = reinterpret_cast<std::uintptr_t>(dst) | reinterpret_cast<std::uintptr_t>(src) |
                    static_cast<std::uintptr_t>(dst_pitch) | static_cast<std::uintptr_t>(src_pitch) |
                    static_cast<std::uintptr_t>(width);
  if (bits % 16 == 0) launch<uint4>(dst, dst_pitch, src, src_pitch, width, rows, stream);
  else if (bits % 8 == 0) launch<uint2>(dst, dst_pitch, src, src_pitch, width, rows, stream);
  else if (bits % 4 == 0) launch<unsigned>(dst, dst_pitch, src, src_pitch, width, rows, stream);
  else if (bits % 2 == 0) launch<unsigned short>(dst, dst_pitch, src, src_pitch, width, rows, stream);
  else launch<unsigned char>(dst, dst_pitch, src, src_pitch, width, rows, stream);
}

}  // namespace tlab::gpu
