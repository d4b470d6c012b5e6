#include <algorithm>

#include "tlab/gpu/copy_rows.cuh"
#include "tlab/gpu/copy_strided.cuh"
#include "tlab/gpu/launch.cuh"
#include "tlab/gpu/shifted_words.cuh"

namespace tlab::gpu {
namespace {

constexpr int kThreads = 256;
constexpr int kUnroll = 4;  // independent loads in flight per thread before its stores
// Rows this wide or wider that are not all on 16-byte words take the shifted kernel: below it
// a row has too few whole words for the shifts to pay for the head and tail.
constexpr std::int64_t kShiftedFrom = 64;

// A block of kThreads threads is `lanes` threads per row times kThreads / lanes rows, the grid
// stepping over the rows: row(r, lane) for each of this thread's rows.
template <typename Row> __device__ __forceinline__ void each_row(std::int64_t rows, int lanes, Row row) {
  const int lane = threadIdx.x % lanes;
  const std::int64_t per_block = kThreads / lanes;
  for (std::int64_t r = blockIdx.x * per_block + threadIdx.x / lanes; r < rows; r += gridDim.x * per_block) row(r, lane);
}

// Each thread moves words lane, lane + lanes, ... of its row, kUnroll at a time.
template <typename V>
__global__ void __launch_bounds__(kThreads)
copy_rows_kernel(unsigned char* __restrict__ dst, std::int64_t dst_pitch, const unsigned char* __restrict__ src,
                 std::int64_t src_pitch, std::int64_t words, std::int64_t rows, int lanes) {
  each_row(rows, lanes, [&](std::int64_t r, int lane) {
    copy_strided<kUnroll>(reinterpret_cast<const V*>(src + r * src_pitch), reinterpret_cast<V*>(dst + r * dst_pitch),
                          lane, words, lanes, kUnroll * lanes);
  });
}

// Rows whose source and destination sit at different offsets in a 16-byte word (a block put
// into B's columns when P divides no side, or rows of an odd width): every store is an aligned
// 16-byte word of the destination, its bytes funnel-shifted from the two aligned source words
// under it; the few bytes before the row's first aligned word and after its last go one by one.
// Copying such rows in the widest word that every row start, pitch and width share (4 bytes
// for float, 1 for uint8 at three GPUs) placed them at half the rate (performance notes,
// section 10). The bytes each thread loads twice are its neighbour's, served by L1.
__global__ void __launch_bounds__(kThreads)
copy_rows_shifted(unsigned char* __restrict__ dst, std::int64_t dst_pitch, const unsigned char* __restrict__ src,
                  std::int64_t src_pitch, std::int64_t width, std::int64_t rows, int lanes) {
  each_row(rows, lanes, [&](std::int64_t r, int lane) {
    unsigned char* d = dst + r * dst_pitch;
    const unsigned char* s = src + r * src_pitch;
    const std::int64_t to_word = (16 - static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(d) & 15)) & 15;
    const std::int64_t head = to_word < width ? to_word : width;
    const std::int64_t words = (width - head) / 16, tail = head + words * 16;
    if (lane < head) d[lane] = s[lane];
    if (lane < width - tail) d[tail + lane] = s[tail + lane];
    const unsigned char* from = s + head;  // the source of the first aligned destination word
    const int phase = static_cast<int>(reinterpret_cast<std::uintptr_t>(from) & 15);
    const unsigned char* base = from - phase;  // on a word: word k and k + 1 hold destination word k
    uint4* out = reinterpret_cast<uint4*>(d + head);
    if (phase == 0) {  // source and destination on the same offset in a word: a plain copy
      copy_strided<kUnroll>(reinterpret_cast<const uint4*>(from), out, lane, words, lanes, kUnroll * lanes);
      return;
    }
    for (std::int64_t k0 = lane; k0 < words; k0 += static_cast<std::int64_t>(kUnroll) * lanes) {
      uint4 lo[kUnroll], hi[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const std::int64_t k = k0 + static_cast<std::int64_t>(u) * lanes;
        if (k < words) {
          lo[u] = load_within(base + 16 * k, s, s + width);
          hi[u] = load_within(base + 16 * k + 16, s, s + width);
        }
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const std::int64_t k = k0 + static_cast<std::int64_t>(u) * lanes;
        if (k >= words) break;
        out[k] = bytes_at(lo[u], hi[u], phase);  // phase is the same for the whole row: no divergence
      }
    }
  });
}

// Threads per row (whole warps, up to the block, for rows of `words` words) and blocks, at most
// sixteen an SM, the rest taken by the kernels' grid-stride loop over rows.
struct Launch {
  int lanes = 32;
  unsigned blocks = 0;
};
Launch launch_for(std::int64_t words, std::int64_t rows) {
  Launch l;
  while (l.lanes < kThreads && l.lanes < words) l.lanes *= 2;
  const std::int64_t per_block = kThreads / l.lanes;
  l.blocks = static_cast<unsigned>(std::min<std::int64_t>((rows + per_block - 1) / per_block, std::int64_t{sm_count()} * 16));
  return l;
}

template <typename V>
void launch(void* dst, std::int64_t dst_pitch, const void* src, std::int64_t src_pitch, std::int64_t width,
            std::int64_t rows, cudaStream_t stream) {
  const std::int64_t words = width / static_cast<std::int64_t>(sizeof(V));
  const Launch l = launch_for(words, rows);
  copy_rows_kernel<V><<<l.blocks, kThreads, 0, stream>>>(static_cast<unsigned char*>(dst), dst_pitch,
                                                        static_cast<const unsigned char*>(src), src_pitch, words, rows,
                                                        l.lanes);
  TLAB_CUDA_LAUNCHED();
}

void launch_shifted(void* dst, std::int64_t dst_pitch, const void* src, std::int64_t src_pitch, std::int64_t width,
                    std::int64_t rows, cudaStream_t stream) {
  const Launch l = launch_for(width / 16, rows);
  copy_rows_shifted<<<l.blocks, kThreads, 0, stream>>>(static_cast<unsigned char*>(dst), dst_pitch,
                                                       static_cast<const unsigned char*>(src), src_pitch, width, rows,
                                                       l.lanes);
  TLAB_CUDA_LAUNCHED();
}

}  // namespace

void copy_rows(void* dst, std::int64_t dst_pitch, const void* src, std::int64_t src_pitch, std::int64_t width,
               std::int64_t rows, cudaStream_t stream) {
  if (rows <= 0 || width <= 0) return;
  // Everything on 16-byte words: the plain copy. Otherwise the shifted one, but for rows too
  // narrow for it, which take the widest word that every row start, pitch and width share.
  const auto bits = reinterpret_cast<std::uintptr_t>(dst) | reinterpret_cast<std::uintptr_t>(src) |
                    static_cast<std::uintptr_t>(dst_pitch) | static_cast<std::uintptr_t>(src_pitch) |
                    static_cast<std::uintptr_t>(width);
  if (bits % 16 == 0) launch<uint4>(dst, dst_pitch, src, src_pitch, width, rows, stream);
  else if (width >= kShiftedFrom) launch_shifted(dst, dst_pitch, src, src_pitch, width, rows, stream);
  else if (bits % 8 == 0) launch<uint2>(dst, dst_pitch, src, src_pitch, width, rows, stream);
  else if (bits % 4 == 0) launch<unsigned>(dst, dst_pitch, src, src_pitch, width, rows, stream);
  else if (bits % 2 == 0) launch<unsigned short>(dst, dst_pitch, src, src_pitch, width, rows, stream);
  else launch<unsigned char>(dst, dst_pitch, src, src_pitch, width, rows, stream);
}

}  // namespace tlab::gpu
