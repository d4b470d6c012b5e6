// In place, any m x n, in one read and one write of each element, where the whole matrix fits
// the shared memory of a grid of one block per SM: every block reads one h x w tile of the
// input into its shared memory, a grid-wide barrier waits until every tile is on chip, and
// every block writes its tile transposed to where it belongs in the n x m result, the same
// bytes. c2r (inplace_rect.cu) needs two passes at least, so it cannot pass half a copy's
// rate; this needs the GPU's shared memory to hold the matrix (about 29 MiB on an H100 or an
// H200; a little more with two tiles a block, their overlap kept in global memory between the
// phases: on_grid::plan_tiles), so it serves the smaller matrices (performance notes, section
// 9, "The whole matrix on the grid" and "Two tiles a block"). Both phases move aligned 16-byte words of global memory, so that a warp
// issues as few instructions per byte as a copy does: the layout below serves that.
#include <cooperative_groups.h>

#include <algorithm>

#include "tlab/gpu/inplace_on_grid.cuh"
#include "tlab/gpu/kept_scratch.cuh"
#include "tlab/gpu/launch.cuh"
#include "tlab/gpu/word_tile.cuh"
#include "tlab/inplace_on_grid_tiles.hpp"

namespace tlab::gpu {
namespace {

using on_grid::Columns;
using on_grid::Piece;
using on_grid::tile_bytes;
using on_grid::Tiles;

constexpr int kThreads = 1024, kWarps = kThreads / 32;

// Rows a warp reads at once (R-row groups of them), a 16-byte word a lane from each: 64 KiB
// in flight per SM. A thread of a 1024-thread block has 64 registers, and eight rows' words
// would need 32 of them for the loads alone.
constexpr int kRowsInFlight = 4;

// Bytes [s, s + 16) of the 32 bytes lo, hi (lo first in memory), 0 <= s < 16 the same across
// the warp: a switch on the 4-byte word they start in, then four funnel shifts.
__device__ __forceinline__ uint4 bytes_at(const uint4& lo, const uint4& hi, int s) {
  unsigned a, b, c, d, e;
  switch (s >> 2) {
    case 0: a = lo.x, b = lo.y, c = lo.z, d = lo.w, e = hi.x; break;
    case 1: a = lo.y, b = lo.z, c = lo.w, d = hi.x, e = hi.y; break;
    case 2: a = lo.z, b = lo.w, c = hi.x, d = hi.y, e = hi.z; break;
    default: a = lo.w, b = hi.x, c = hi.y, d = hi.z, e = hi.w; break;
  }
  const unsigned sh = 8u * static_cast<unsigned>(s & 3);
  return make_uint4(__funnelshift_r(a, b, sh), __funnelshift_r(b, c, sh), __funnelshift_r(c, d, sh),
                    __funnelshift_r(d, e, sh));
}

// The aligned 16 bytes at `at`, but only those in [begin, end) (the rest zero): the words
// under a matrix that does not start or end on a 16-byte boundary.
__device__ __forceinline__ uint4 load_within(const unsigned char* at, const unsigned char* begin,
                                             const unsigned char* end) {
  if (at >= begin && at + 16 <= end) return *reinterpret_cast<const uint4*>(at);
  unsigned l[4] = {0, 0, 0, 0};
  for (int b = 0; b < 16; ++b)
    if (at + b >= begin && at + b < end) l[b / 4] |= static_cast<unsigned>(at[b]) << (8 * (b % 4));
  return make_uint4(l[0], l[1], l[2], l[3]);
}

// A 16-byte load from shared memory that the compiler keeps whole (as four 4-byte loads, 16
// bytes apart across the lanes, they would meet in four-way bank conflicts).
__device__ __forceinline__ uint4 lds128(const unsigned char* p) {
  uint4 v;
  asm("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
      : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
      : "r"(static_cast<unsigned>(__cvta_generic_to_shared(p))));
  return v;
}

// Where tile `index` lies in the matrix, and what of the matrix its reads may touch.
struct Place {
  int i0, j0, h, w, skew;
  const unsigned char *begin, *end;
  template <int S>
  __device__ Place(const unsigned char* a, int m, int n, const Tiles& t, int index, std::integral_constant<int, S>)
      : i0(index / t.across * t.h), j0(index % t.across * t.w), h(min(t.h, m - i0)), w(min(t.w, n - j0)),
        skew(static_cast<int>(reinterpret_cast<std::uintptr_t>(a) % 16)), begin(a),
        end(a + static_cast<std::int64_t>(m) * n * S) {}
};

// Reads tile `at` of the m x n matrix into `tile`. A warp takes kRowsInFlight rows: groups of R
// consecutive rows, kWarps groups apart. For each row its lanes load the aligned 16-byte words
// under the piece (bytes of the neighbouring tiles too: nothing is written before the grid's
// barrier) and lanes 0-30 shift word j of the piece into place from their word and the next
// lane's; then each lane stores its words' G columns, R rows at a time. A last word that runs
// past the piece fills columns past w, which are never written out.
template <int S>
__device__ __forceinline__ void read_tile(unsigned char* tile, const unsigned char* a, int m, int n, const Tiles& t,
                                          const Place& at) {
  using C = Columns<S>;
  using Elem = word::Word<S>;
  constexpr int R = C::R, G = C::G;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int h = at.h, pitch = t.pitch;
  const int row_bytes = at.w * S, words = (row_bytes + 15) / 16;  // a piece's words, realigned
  constexpr int kGroups = kRowsInFlight / R;
  for (int g0 = warp; g0 * R < h; g0 += kWarps * kGroups)
    for (int j = 0; j < words; j += 31) {  // realigned words j .. j + 30
      uint4 x[kRowsInFlight];
      int off[kRowsInFlight];
#pragma unroll
      for (int u = 0; u < kRowsInFlight; ++u) {
        const int r = (g0 + u / R * kWarps) * R + u % R, first = ((at.i0 + r) * n + at.j0) * S;
        off[u] = (at.skew + first) % 16;
        const int q = j + lane;  // aligned word q under the piece starts 16 q - off bytes into it
        x[u] = r < h && 16 * q < off[u] + row_bytes ? load_within(a + first - off[u] + 16 * q, at.begin, at.end)
                                                    : make_uint4(0, 0, 0, 0);
      }
#pragma unroll
      for (int u = 0; u < kRowsInFlight; ++u) {
        uint4 next;
        next.x = __shfl_down_sync(0xffffffffu, x[u].x, 1);
        next.y = __shfl_down_sync(0xffffffffu, x[u].y, 1);
        next.z = __shfl_down_sync(0xffffffffu, x[u].z, 1);
        next.w = __shfl_down_sync(0xffffffffu, x[u].w, 1);
        x[u] = bytes_at(x[u], next, off[u]);
      }
      const int q = j + lane;
      if (lane == 31 || q >= words) continue;
      const int at0 = q * (G * pitch + C::K);  // column G q
#pragma unroll
      for (int k = 0; k < kGroups; ++k) {
        const int r = (g0 + k * kWarps) * R;  // the group's first row
        if (r >= h) break;
        if constexpr (S >= 4) {
#pragma unroll
          for (int e = 0; e < G; ++e)
            *reinterpret_cast<Elem*>(tile + at0 + e * pitch + r * S) = word::element_of<S, 16>(x[k], e);
        } else {
          // Lane l of each of the R rows' words holds columns 4l / S ..; the R x R block of
          // those columns and rows, transposed, gives each column's R rows as one 4-byte word.
#pragma unroll
          for (int l = 0; l < 4; ++l) {
            unsigned in[R], col[R];
#pragma unroll
            for (int i = 0; i < R; ++i) {
              unsigned lanes[4];
              word::to_lanes(x[k * R + i], lanes);
              in[i] = lanes[l];
            }
            word::transpose_block<S, 4>(in, col);
#pragma unroll
            for (int i = 0; i < R; ++i)
              *reinterpret_cast<unsigned*>(tile + at0 + (l * R + i) * pitch + r * S) = col[i];
          }
        }
      }
    }
}

// Writes `tile` transposed to where it belongs in the n x m result. A warp takes a column
// (output row j0 + c, columns i0 .. i0 + h - 1), its lanes the aligned 16-byte words inside
// that piece, each shifted into place from two aligned 16-byte loads of the column, and the
// head's and tail's elements (words that neighbouring pieces share) one a lane (lanes 0-15 the
// head, 16-31 the tail).
template <int S>
__device__ __forceinline__ void write_tile(const unsigned char* tile, unsigned char* a, int m, const Tiles& t,
                                           const Place& at) {
  using C = Columns<S>;
  using Elem = word::Word<S>;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int piece_bytes = at.h * S;
  for (int c = warp; c < at.w; c += kWarps) {
    const int first = ((at.j0 + c) * m + at.i0) * S, off = (at.skew + first) % 16;
    const Piece p(off, piece_bytes);
    const int col = C::base(c, t.pitch), shift = ((col - off) % 16 + 16) % 16;
    unsigned char* out = a + first - off;  // output word q is out + 16 q
    for (int q = p.lo + lane; q < p.hi; q += 32) {
      const int from = col + 16 * q - off - shift;  // 16-byte aligned, and not negative as q > 0 or off == 0
      *reinterpret_cast<uint4*>(out + 16 * q) = bytes_at(lds128(tile + from), lds128(tile + from + 16), shift);
    }
    const int e = lane < 16 ? lane * S : p.tail + (lane - 16) * S;
    if (lane < 16 ? e < p.head : e < piece_bytes)
      *reinterpret_cast<Elem*>(a + first + e) = *reinterpret_cast<const Elem*>(tile + col + e);
  }
}

// Copies `bytes` (a multiple of 16) from `from` to `to`, a block's threads 16 bytes each.
__device__ __forceinline__ void copy_words(void* to, const void* from, int bytes) {
  for (int i = threadIdx.x; i < bytes / 16; i += kThreads)
    static_cast<uint4*>(to)[i] = static_cast<const uint4*>(from)[i];
}

// Element indices fit 32 bits: the matrix fits the GPU's shared memory and the spill. Block b
// takes tile b and, where there are more tiles than blocks, tile b + blocks too (plan_tiles in
// tlab/inplace_on_grid_tiles.hpp; `spill` then holds t.spill bytes a block). P says which
// phases run (kOnGridRead | kOnGridBarrier | kOnGridWrite): the transpose runs all three;
// tlab-on-grid-probe times them apart.
template <int S, int P>
__global__ void __launch_bounds__(kThreads, 1)
    transpose_on_grid(unsigned char* a, int m, int n, Tiles t, unsigned char* spill) {
  extern __shared__ __align__(16) unsigned char smem[];
  const std::integral_constant<int, S> size;
  const Place own(a, m, n, t, static_cast<int>(blockIdx.x), size);
  const int second = static_cast<int>(blockIdx.x + gridDim.x);
  unsigned char* const kept = spill + static_cast<std::int64_t>(blockIdx.x) * t.spill;
  if constexpr ((P & kOnGridRead) != 0) {
    if (second < t.count) {
      read_tile<S>(smem, a, m, n, t, Place(a, m, n, t, second, size));
      __syncthreads();
      copy_words(kept, smem + t.first_at, t.spill);
      __syncthreads();
    }
    read_tile<S>(smem + t.first_at, a, m, n, t, own);
  }
  if constexpr ((P & kOnGridBarrier) != 0)
    cooperative_groups::this_grid().sync();  // every tile is on chip or aside: the matrix may be overwritten
  if constexpr ((P & kOnGridWrite) != 0) {
    write_tile<S>(smem + t.first_at, a, m, t, own);
    if (second < t.count) {
      __syncthreads();
      copy_words(smem + t.first_at, kept, t.spill);
      __syncthreads();
      write_tile<S>(smem, a, m, t, Place(a, m, n, t, second, size));
    }
  }
}

struct Launch {
  Tiles tiles;
  int smem = 0, blocks = 0;
  std::int64_t spill = 0;  // bytes kept aside in global memory (on_grid::spill_bytes)
};

// The launch for an m x n matrix on the current device, or false where it does not fit: the
// chooser's tiles, or `forced` where given (and it fits).
template <int S, int P> bool plan(std::int64_t m, std::int64_t n, const Tiles* forced, Launch& l) {
  int dev = 0, optin = 0, coop = 0;
  TLAB_CUDA(cudaGetDevice(&dev));
  TLAB_CUDA(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
  TLAB_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  // Element offsets are 32-bit in the kernel; m * n * S may itself overflow, hence the division.
  if (!coop || m < 1 || n < 1 || m > (std::int64_t{1} << 31) / S / n) return false;
  auto kernel = transpose_on_grid<S, P>;
  const int smem = (optin - 1024) / 16 * 16;  // as c2r-grid: a margin under the opt-in limit
  static unsigned long long smem_allowed = 0;
  word::allow_smem(kernel, static_cast<std::size_t>(smem), smem_allowed);
  int per_sm = 0;
  TLAB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, smem));
  const int blocks = sm_count() * per_sm;
  if (forced == nullptr) {
    if (!on_grid::plan_tiles<S>(m, n, blocks, smem, l.tiles)) return false;
  } else {
    l.tiles = on_grid::tiles_of<S>(m, n, forced->h, forced->w);
    if (!on_grid::place_tiles<S>(m, n, blocks, smem, l.tiles)) return false;
  }
  l.blocks = std::min(l.tiles.count, blocks);
  l.smem = l.tiles.count > blocks ? smem : static_cast<int>(tile_bytes<S>(l.tiles.h, l.tiles.w));
  l.spill = on_grid::spill_bytes(l.tiles, blocks);
  return true;
}

template <int S, int P>
void run(void* matrix, Shape s, const Tiles* forced, void* scratch, cudaStream_t stream, bool plain = false) {
  if (s.rows == 1 || s.cols == 1) return;  // a vector's transpose has the same layout
  Launch l;
  if (!plan<S, P>(s.rows, s.cols, forced, l))
    throw std::invalid_argument(
        "in-place transpose on the grid: " + to_string(s) +
        (forced ? " in tiles of " + std::to_string(forced->h) + "x" + std::to_string(forced->w) +
                      ": more than two tiles a block, a tile larger than a block's shared memory, or more to keep "
                      "aside than " + std::to_string(on_grid::kSpillRows) + " rows of the longer side"
                : " does not fit this GPU's shared memory and the room it may keep aside"));
  auto* a = static_cast<unsigned char*>(matrix);
  auto* spill = static_cast<unsigned char*>(l.spill > 0 && scratch == nullptr ? kept_scratch(l.spill) : scratch);
  int m = static_cast<int>(s.rows), n = static_cast<int>(s.cols);
  void* args[] = {&a, &m, &n, &l.tiles, &spill};
  if (plain) {
    if constexpr ((P & kOnGridBarrier) != 0) throw std::invalid_argument("a grid barrier needs the cooperative launch");
    else
      transpose_on_grid<S, P><<<l.blocks, kThreads, static_cast<std::size_t>(l.smem), stream>>>(a, m, n, l.tiles, spill);
  } else {
    TLAB_CUDA(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(transpose_on_grid<S, P>), dim3(l.blocks),
                                          dim3(kThreads), args, static_cast<std::size_t>(l.smem), stream));
  }
  TLAB_CUDA_LAUNCHED();
}

template <int S>
void run_phases(void* matrix, Shape s, int phases, const Tiles* forced, void* scratch, cudaStream_t stream) {
  switch (phases) {
    case 0: return run<S, 0>(matrix, s, forced, scratch, stream);
    case kOnGridPlainLaunch: return run<S, 0>(matrix, s, forced, scratch, stream, true);
    case kOnGridBarrier: return run<S, kOnGridBarrier>(matrix, s, forced, scratch, stream);
    case kOnGridRead | kOnGridBarrier: return run<S, kOnGridRead | kOnGridBarrier>(matrix, s, forced, scratch, stream);
    case kOnGridBarrier | kOnGridWrite: return run<S, kOnGridBarrier | kOnGridWrite>(matrix, s, forced, scratch, stream);
    case kOnGridAll: return run<S, kOnGridAll>(matrix, s, forced, scratch, stream);
  }
  throw std::invalid_argument("in-place transpose on the grid: no launch of phases " + std::to_string(phases));
}

void dispatch(void* matrix, Shape s, int elem, int phases, const Tiles* forced, void* scratch, cudaStream_t stream) {
  if (s.rows < 1 || s.cols < 1) throw std::invalid_argument("in-place transpose on the grid: empty shape");
  switch (elem) {
    case 1: return run_phases<1>(matrix, s, phases, forced, scratch, stream);
    case 2: return run_phases<2>(matrix, s, phases, forced, scratch, stream);
    case 4: return run_phases<4>(matrix, s, phases, forced, scratch, stream);
    case 8: return run_phases<8>(matrix, s, phases, forced, scratch, stream);
    case 16: return run_phases<16>(matrix, s, phases, forced, scratch, stream);
  }
  throw std::invalid_argument("in-place transpose on the grid: element size " + std::to_string(elem) +
                              " is not 1, 2, 4, 8 or 16 bytes");
}

// The chooser's launch for `s` on the current device (tiles.count 0 where it does not fit).
Launch planned(Shape s, int elem) {
  Launch l;
  bool ok = false;
  switch (elem) {
    case 1: ok = plan<1, kOnGridAll>(s.rows, s.cols, nullptr, l); break;
    case 2: ok = plan<2, kOnGridAll>(s.rows, s.cols, nullptr, l); break;
    case 4: ok = plan<4, kOnGridAll>(s.rows, s.cols, nullptr, l); break;
    case 8: ok = plan<8, kOnGridAll>(s.rows, s.cols, nullptr, l); break;
    case 16: ok = plan<16, kOnGridAll>(s.rows, s.cols, nullptr, l); break;
  }
  return ok ? l : Launch{};
}

}  // namespace

void transpose_in_place_on_grid(void* matrix, Shape s, int elem, cudaStream_t stream, void* scratch) {
  dispatch(matrix, s, elem, kOnGridAll, nullptr, scratch, stream);
}

void on_grid_phases(void* matrix, Shape s, int elem, int phases, const on_grid::Tiles* tiles, cudaStream_t stream) {
  dispatch(matrix, s, elem, phases, tiles, nullptr, stream);
}

on_grid::Tiles on_grid_tiles(Shape s, int elem) { return planned(s, elem).tiles; }

std::int64_t in_place_on_grid_scratch_bytes(Shape s, int elem) {
  if (s.rows < 2 || s.cols < 2) return 0;
  return planned(s, elem).spill;
}

bool in_place_on_grid_fits(Shape s, int elem) {
  if (s.rows < 1 || s.cols < 1) return false;
  if (s.rows == 1 || s.cols == 1) return true;
  return on_grid_tiles(s, elem).count > 0;
}

void register_gpu_inplace_on_grid(Registry& r) {
  Variant v = gpu_variant("gpu/inplace-rect/on-grid", "gpu-inplace-rect", Placement::in_place, {},
                          "any m x n in place that fits the GPU's shared memory (two tiles a block, the overlap "
                          "kept aside, up to " + std::to_string(on_grid::kSpillRows) +
                              " rows more): tiles read into every SM, a grid barrier, tiles written transposed (one "
                              "read and one write)");
  v.any_shape = true;
  v.refuses_shape = [](DType t, Shape s) -> std::string {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
      cudaGetLastError();  // the failed query's error is not a kernel's
      return "no CUDA device to hold the matrix";
    }
    try {
      if (in_place_on_grid_fits(s, static_cast<int>(dtype_size(t)))) return "";
    } catch (const std::exception& e) {  // a failed device query: a reason, not an escape from the plan's choice
      return e.what();
    }
    return "the matrix does not fit the shared memory of this GPU's grid";
  };
  // A plan's scratch: the tiles kept aside where the grid takes two a block, else none.
  v.scratch_bytes = [](DType t, Shape s) {
    try {
      return in_place_on_grid_scratch_bytes(s, static_cast<int>(dtype_size(t)));
    } catch (const std::exception&) {  // no device: the plan refuses the variant first
      return std::int64_t{0};
    }
  };
  v.kernels = instantiate_all([](auto tag, const Operands& op) {
    transpose_in_place_on_grid(op.out, op.shape, static_cast<int>(sizeof(decltype(tag))), stream_of(op), op.scratch);
  });
  r.add(std::move(v));
}

}  // namespace tlab::gpu
