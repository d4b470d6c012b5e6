// GPU in-place transpose of an m x n matrix whose sides share a large factor
// (tlab/inplace_blocks_index.hpp): the g x g blocks through the tile-pair kernel in one
// launch, and the segment permutation by cycle following, one thread per word of a segment
// and cycle, so that a warp moves 512 contiguous bytes per instruction.
#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "tlab/gpu/device_buffer.cuh"
#include "tlab/gpu/inplace_blocks.cuh"
#include "tlab/gpu/word_inplace.cuh"
#include "tlab/gpu/word_tile.cuh"
#include "tlab/inplace_blocks_index.hpp"

namespace tlab::gpu {
namespace {

constexpr int kBlock = 256;

template <int W> struct SegmentWord {
  unsigned char* base;
  std::int64_t seg_bytes, offset;
  __device__ word::Word<W> load(std::int64_t pos) const {
    return *reinterpret_cast<const word::Word<W>*>(base + pos * seg_bytes + offset);
  }
  __device__ void store(std::int64_t pos, word::Word<W> v) const {
    *reinterpret_cast<word::Word<W>*>(base + pos * seg_bytes + offset) = v;
  }
};

// The device table: [short cycles, stretches, (leader, moves) per short cycle, (start, moves,
// next) per stretch]; the saved copies of the stretches' first segments follow at
// saved_offset(). Work item k is word k % wps of one cycle or stretch: neighbouring threads
// take neighbouring words of the same segments.
std::int64_t table_words(const blocks::Layout& l, int elem) {
  return 2 + 2 * blocks::max_short_cycles(l) + 3 * blocks::max_stretches(l, elem);
}
std::int64_t saved_offset(const blocks::Layout& l, int elem) { return ceil_div(table_words(l, elem) * 8, 256) * 256; }

template <int W>
__global__ void __launch_bounds__(kBlock) save_stretch_starts(unsigned char* base, std::int64_t seg_bytes,
                                                              const std::int64_t* __restrict__ table,
                                                              word::Word<W>* __restrict__ saved, c2r::Divisor wps) {
  const std::int64_t shorts = table[0], items = table[1] * wps.d;
  const std::int64_t* st = table + 2 + 2 * shorts;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < items; k += stride) {
    const std::int64_t j = c2r::quot(k, wps), w = k - j * wps.d;
    saved[k] = SegmentWord<W>{base, seg_bytes, w * W}.load(st[3 * j]);
  }
}

// L: sources loaded before their stores (L words in flight per thread). Register caps for
// three blocks per SM at L = 8 and four at L = 4; four loads at four blocks measured faster
// (docs/performance-notes.md, section 9): short cycles need threads more than depth.
template <int W, int L>
__global__ void __launch_bounds__(kBlock, L >= 8 ? 3 : 4) follow_segment_cycles(unsigned char* base, std::int64_t seg_bytes,
                                                                const std::int64_t* __restrict__ table,
                                                                const word::Word<W>* __restrict__ saved,
                                                                blocks::Layout l, c2r::Divisor wps) {
  const std::int64_t shorts = table[0], items = (shorts + table[1]) * wps.d;
  const std::int64_t* st = table + 2 + 2 * shorts;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < items; k += stride) {
    const std::int64_t c = c2r::quot(k, wps), w = k - c * wps.d;
    SegmentWord<W> mover{base, seg_bytes, w * W};
    if (c < shorts) {
      const std::int64_t leader = table[2 + 2 * c];
      blocks::follow_stretch<L>(leader, table[3 + 2 * c], l, mover, mover.load(leader));
    } else {
      const std::int64_t* r = st + 3 * (c - shorts);
      blocks::follow_stretch<L>(r[0], r[1], l, mover, saved[r[2] * wps.d + w]);
    }
  }
}

int word_for(const void* m, std::int64_t seg_bytes) {
  const auto at = reinterpret_cast<std::uintptr_t>(m);
  for (int w : {16, 8, 4, 2})
    if (seg_bytes % w == 0 && at % w == 0) return w;
  return 1;
}

template <int W, int L>
void permute_segments(void* m, std::int64_t seg_bytes, const blocks::Layout& l, const void* scratch, std::int64_t shorts,
                      std::int64_t stretches, cudaStream_t stream) {
  const std::int64_t wps = seg_bytes / W;
  int sms = 0, dev = 0;
  TLAB_CUDA(cudaGetDevice(&dev));
  TLAB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  auto grid = [&](std::int64_t items) {
    return static_cast<unsigned>(std::clamp<std::int64_t>(ceil_div(items, kBlock), 1, 8LL * sms));
  };
  auto* b = static_cast<unsigned char*>(m);
  const auto* table = static_cast<const std::int64_t*>(scratch);
  auto* saved = reinterpret_cast<word::Word<W>*>(static_cast<unsigned char*>(const_cast<void*>(scratch)) +
                                                  saved_offset(l, static_cast<int>(seg_bytes / l.g)));
  const c2r::Divisor per = c2r::divisor(wps);
  if (stretches > 0) {
    save_stretch_starts<W><<<grid(stretches * wps), kBlock, 0, stream>>>(b, seg_bytes, table, saved, per);
    TLAB_CUDA_LAUNCHED();
  }
  if (shorts + stretches > 0) {
    follow_segment_cycles<W, L><<<grid((shorts + stretches) * wps), kBlock, 0, stream>>>(b, seg_bytes, table, saved, l, per);
    TLAB_CUDA_LAUNCHED();
  }
}

// The registered variant's tables, one per (shape, element size, device), made once and
// kept, so that timed repetitions neither build nor upload them (their counts are kept with
// every table's: counts_or_bounds).
const void* cached_table(Shape s, int elem) {
  static std::mutex mu;
  static std::map<std::tuple<std::int64_t, std::int64_t, int, int>, DeviceBuffer> tables;
  int dev = 0;
  TLAB_CUDA(cudaGetDevice(&dev));
  std::lock_guard<std::mutex> lock(mu);
  DeviceBuffer& slot = tables[std::make_tuple(s.rows, s.cols, elem, dev)];
  if (!slot.get()) {
    slot = DeviceBuffer(static_cast<std::size_t>(in_place_blocks_scratch_bytes(s, elem)));
    fill_in_place_blocks_table(s, elem, slot.get());
  }
  return slot.get();
}

}  // namespace

std::int64_t in_place_blocks_scratch_bytes(Shape s, int elem) {
  const blocks::Layout l = blocks::layout(s.rows, s.cols);
  return saved_offset(l, elem) + blocks::max_stretches(l, elem) * l.g * elem;
}

namespace {

// The counts of every table built, by shape and element size, for the kernels of a plan's
// scratch (filled once, run many times): with the counts the kernel that saves the stretches'
// first segments is not launched where there are none, an empty launch that cost a plan 1 to 3 %
// of a 64 MiB matrix against the registered variant (performance notes, section 9).
using CountKey = std::tuple<std::int64_t, std::int64_t, int>;
std::mutex counts_mu;
std::map<CountKey, std::pair<std::int64_t, std::int64_t>> known_counts;

void remember_counts(Shape s, int elem, std::pair<std::int64_t, std::int64_t> counts) {
  std::lock_guard<std::mutex> lock(counts_mu);
  known_counts[CountKey{s.rows, s.cols, elem}] = counts;
}

// The counts of the table for `s`, or bounds above them where none was built in this process.
std::pair<std::int64_t, std::int64_t> counts_or_bounds(Shape s, int elem) {
  {
    std::lock_guard<std::mutex> lock(counts_mu);
    const auto it = known_counts.find(CountKey{s.rows, s.cols, elem});
    if (it != known_counts.end()) return it->second;
  }
  const blocks::Layout l = blocks::layout(s.rows, s.cols);
  return {blocks::max_short_cycles(l), blocks::max_stretches(l, elem)};
}

}  // namespace

std::pair<std::int64_t, std::int64_t> fill_in_place_blocks_table(Shape s, int elem, void* scratch) {
  const blocks::CycleTable t = blocks::cycle_table(blocks::layout(s.rows, s.cols), elem);
  std::vector<std::int64_t> words{t.short_count(), t.stretch_count()};
  words.insert(words.end(), t.cycles.begin(), t.cycles.end());
  words.insert(words.end(), t.stretches.begin(), t.stretches.end());
  TLAB_CUDA(cudaMemcpy(scratch, words.data(), words.size() * sizeof(std::int64_t), cudaMemcpyHostToDevice));
  // A copy from pageable memory may return before its DMA ends, and the kernels run on the
  // caller's stream, which may not wait for the legacy default stream: wait here, once per table.
  TLAB_CUDA(cudaDeviceSynchronize());
  remember_counts(s, elem, {t.short_count(), t.stretch_count()});
  return {t.short_count(), t.stretch_count()};
}

namespace {

// Rows of blocks shorter than kMinSegmentBytes move in partial sectors, and their table
// (16 bytes per short cycle) outweighs them: 1 x n, 2 x n and small common factors go to c2r.
constexpr std::int64_t kMinSegmentBytes = 64;

// Why this GPU code does not take `s` with `elem`-byte elements, or "".
std::string shape_refusal(Shape s, int elem) {
  if (std::string why = blocks::refusal(s.rows, s.cols); !why.empty()) return why;
  const std::int64_t bytes = blocks::layout(s.rows, s.cols).g * elem;
  if (bytes >= kMinSegmentBytes) return "";
  return "rows of its blocks would be " + std::to_string(bytes) + " bytes, under " + std::to_string(kMinSegmentBytes);
}

template <int L>
void permute(void* m, std::int64_t seg_bytes, const blocks::Layout& l, const void* scratch, std::int64_t shorts,
             std::int64_t stretches, cudaStream_t stream) {
  switch (word_for(m, seg_bytes)) {
    case 16: return permute_segments<16, L>(m, seg_bytes, l, scratch, shorts, stretches, stream);
    case 8: return permute_segments<8, L>(m, seg_bytes, l, scratch, shorts, stretches, stream);
    case 4: return permute_segments<4, L>(m, seg_bytes, l, scratch, shorts, stretches, stream);
    case 2: return permute_segments<2, L>(m, seg_bytes, l, scratch, shorts, stretches, stream);
    default: return permute_segments<1, L>(m, seg_bytes, l, scratch, shorts, stretches, stream);
  }
}

}  // namespace

void transpose_in_place_blocks(void* m, Shape s, int elem, const void* scratch, std::int64_t shorts,
                               std::int64_t stretches, int batch, cudaStream_t stream) {
  if (const std::string why = shape_refusal(s, elem); !why.empty())
    throw std::invalid_argument("in-place block transpose: " + why);
  if (batch != 4 && batch != 8) throw std::invalid_argument("in-place block transpose: batch must be 4 or 8");
  const blocks::Layout l = blocks::layout(s.rows, s.cols);
  const std::int64_t seg_bytes = l.g * elem;
  // One block row (a = 1): moving the segments first makes each block contiguous, so the
  // block pass runs without a pitch (the two passes commute there: segments move whole).
  if (l.a > 1) transpose_square_blocks_in_place(m, l.g, l.a * l.b, s.cols, l.b, elem, stream);
  if (batch == 4) permute<4>(m, seg_bytes, l, scratch, shorts, stretches, stream);
  else permute<8>(m, seg_bytes, l, scratch, shorts, stretches, stream);
  if (l.a == 1) transpose_square_blocks_in_place(m, l.g, l.b, l.g, 1, elem, stream);
}

namespace {

template <int L> void add_blocks(Registry& r, const std::string& name) {
  Variant v = gpu_variant(name, "gpu-inplace-rect", Placement::in_place, {{"batch", std::to_string(L)}},
                          "m x n in place when gcd(m, n) >= min(m, n) / 64: g x g blocks by tile pairs, then their rows "
                          "by cycle following, " + std::to_string(L) + " loads in flight per thread (two passes)");
  v.any_shape = true;
  // A square is one block: the tile-pair kernels (gpu/word-inplace/*) are that pass alone,
  // and the tuning tables should name them for squares.
  v.refuses_shape = [](DType t, Shape s) {
    if (s.square()) return std::string("a square matrix is one block: use gpu/word-inplace/*");
    return shape_refusal(s, static_cast<int>(dtype_size(t)));
  };
  v.scratch_bytes = [](DType t, Shape s) { return in_place_blocks_scratch_bytes(s, static_cast<int>(dtype_size(t))); };
  v.prepare_scratch = [](DType t, Shape s, void* scratch) {
    fill_in_place_blocks_table(s, static_cast<int>(dtype_size(t)), scratch);
  };
  v.kernels = instantiate_all([name](auto tag, const Operands& op) {
    constexpr int S = sizeof(decltype(tag));
    // Before any table is built: a refused shape's could be large.
    if (const std::string why = shape_refusal(op.shape, S); !why.empty()) throw std::invalid_argument(name + ": " + why);
    // The table: a plan's scratch, filled by prepare_scratch, or the variant's own, built once.
    const void* table = op.scratch ? op.scratch : cached_table(op.shape, S);
    // The kernels read the counts from the table; the host needs them (or bounds) for the
    // grids and to leave out a launch with nothing to do.
    const auto counts = counts_or_bounds(op.shape, S);
    transpose_in_place_blocks(op.out, op.shape, S, table, counts.first, counts.second, L, stream_of(op));
  });
  r.add(std::move(v));
}

}  // namespace

void register_gpu_inplace_blocks(Registry& r) {
  // Four loads in flight at four blocks per SM measured faster than eight at three
  // (docs/performance-notes.md, section 9): the short cycles need threads, not depth.
  add_blocks<4>(r, "gpu/inplace-rect/blocks");
  add_blocks<8>(r, "gpu/inplace-rect/blocks-b8");
}

}  // namespace tlab::gpu
