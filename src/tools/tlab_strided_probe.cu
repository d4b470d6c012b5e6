// tlab-strided-probe: how fast the DRAM serves a matrix read (or written) as row pieces of a
// strip of columns, one block per SM, against the same bytes as whole rows. c2r's grid column
// pass reads and writes a coprime matrix that way, one 32-element piece of thousands of rows
// per block, at 1.5 memcpy times (docs/performance-notes.md, section 9): this asks how much of
// that the access pattern alone costs, by piece width and element size, with no permutation,
// no shared memory and no barrier.
//
// Each block takes tasks (a strip of `piece` elements, a run of rows whose pieces fill about
// a block's tile), the blocks of one wave on adjacent strips of the same rows, as a round of
// the grid pass does; a thread keeps 8 loads in flight. Output: CSV on stdout, one row per
// measurement: mode, element bytes, rows, pitch, piece bytes, median us, GB/s (bytes read or
// written), and the percentage of the whole-row rate of the same mode and shape.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <vector>

#include "tlab/gpu/device_buffer.cuh"
#include "tlab/gpu/event_timer.cuh"
#include "tlab/gpu/launch.cuh"
#include "tlab/gpu/word_tile.cuh"
#include "tlab/stats.hpp"

namespace {

using tlab::gpu::DeviceBuffer;

constexpr int kThreads = 1024, kInFlight = 8;

template <int S> using Elem = tlab::gpu::word::Word<S>;  // an S-byte element, loaded whole

__device__ inline unsigned fold(std::uint8_t x) { return x; }
__device__ inline unsigned fold(std::uint16_t x) { return x; }
__device__ inline unsigned fold(unsigned x) { return x; }
__device__ inline unsigned fold(uint2 x) { return x.x ^ x.y; }
__device__ inline unsigned fold(uint4 x) { return x.x ^ x.y ^ x.z ^ x.w; }
template <class T> __device__ inline T make(unsigned v) { return static_cast<T>(v); }
template <> __device__ inline uint2 make<uint2>(unsigned v) { return make_uint2(v, v); }
template <> __device__ inline uint4 make<uint4>(unsigned v) { return make_uint4(v, v, v, v); }

// Pieces of 2^log_piece elements; tasks numbered strip-fastest, so the blocks of a wave read
// adjacent strips of one run of rows.
template <int S, bool kWrite>
__global__ void __launch_bounds__(kThreads, 1) strips(Elem<S>* a, int rows, long long pitch,
                                                     int log_piece, int run, unsigned* sink) {
  using T = Elem<S>;
  const int piece = 1 << log_piece;
  const long long nstrips = (pitch + piece - 1) / piece, runs = (rows + run - 1) / run;
  unsigned acc = 0;
  for (long long task = blockIdx.x; task < nstrips * runs; task += gridDim.x) {
    const long long strip = task % nstrips, r0 = task / nstrips * run;
    const long long c0 = strip * piece;
    const int width = static_cast<int>(std::min<long long>(piece, pitch - c0));
    const int nrows = static_cast<int>(std::min<long long>(run, rows - r0));
    const long long count = static_cast<long long>(nrows) << log_piece;
    for (long long e0 = threadIdx.x; e0 < count; e0 += kInFlight * kThreads) {
      T x[kInFlight];
#pragma unroll
      for (int i = 0; i < kInFlight; ++i) {
        const long long e = e0 + static_cast<long long>(i) * kThreads;
        const int col = static_cast<int>(e & (piece - 1));
        T* p = a + (r0 + (e >> log_piece)) * pitch + c0 + col;
        if (e < count && col < width) {
          if constexpr (kWrite) *p = make<T>(static_cast<unsigned>(e));
          else x[i] = *p;
        } else if constexpr (!kWrite) {
          x[i] = make<T>(0u);
        }
      }
      if constexpr (!kWrite) {
#pragma unroll
        for (int i = 0; i < kInFlight; ++i) acc ^= fold(x[i]);
      }
    }
  }
  if (acc == 0x9e3779b9u) sink[blockIdx.x] = acc;  // keeps the loads; never true on zeroed data
}

struct Shape {
  int rows;
  long long cols;  // elements per row = the pitch
};

// Median seconds of `reps` timed runs of `launch` (after two untimed ones), by the project's
// event timer.
template <class Launch> double median_seconds(int reps, Launch launch) {
  launch();
  launch();
  tlab::gpu::EventTimer timer;
  const tlab::Operands op;  // default stream
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) t.push_back(timer.time([&](const tlab::Operands&) { launch(); }, op));
  return tlab::summarize(std::move(t)).median;
}

template <int S>
double time_one(bool write, Elem<S>* a, Shape sh, int log_piece, int blocks, long long tile_bytes,
                unsigned* sink, int reps) {
  const int piece = 1 << log_piece;
  const int run = static_cast<int>(std::max<long long>(1, tile_bytes / (static_cast<long long>(piece) * S)));
  return median_seconds(reps, [&] {
    if (write) strips<S, true><<<blocks, kThreads>>>(a, sh.rows, sh.cols, log_piece, run, sink);
    else strips<S, false><<<blocks, kThreads>>>(a, sh.rows, sh.cols, log_piece, run, sink);
    TLAB_CUDA_LAUNCHED();
  });
}

template <int S> void sweep(Shape sh, int blocks, long long tile_bytes, int reps) {
  using T = Elem<S>;
  const std::size_t bytes = static_cast<std::size_t>(sh.rows) * sh.cols * S;
  DeviceBuffer in(bytes), out(bytes), sinks(blocks * sizeof(unsigned));
  auto* a = static_cast<T*>(in.get());
  auto* sink = static_cast<unsigned*>(sinks.get());
  TLAB_CUDA(cudaMemset(a, 0, bytes));
  int whole = 0;
  while ((1LL << whole) < sh.cols) ++whole;
  for (int write = 0; write < 2; ++write) {
    const double ref = time_one<S>(write, a, sh, whole, blocks, tile_bytes, sink, reps);
    for (int lp = 3; lp <= whole; ++lp) {
      const long long piece_bytes = std::min<long long>(1LL << lp, sh.cols) * S;
      if (piece_bytes < 32 || (piece_bytes > 2048 && lp != whole)) continue;
      const double sec = lp == whole ? ref : time_one<S>(write, a, sh, lp, blocks, tile_bytes, sink, reps);
      std::printf("%s,%d,%d,%lld,%lld,%s,%.2f,%.1f,%.1f\n", write ? "write" : "read", S, sh.rows, sh.cols * S,
                  piece_bytes, lp == whole ? "whole-rows" : "strip", sec * 1e6, bytes / (sec * 1e9), 100.0 * ref / sec);
    }
  }
  const double copy = median_seconds(reps, [&] {
    TLAB_CUDA(cudaMemcpyAsync(out.get(), in.get(), bytes, cudaMemcpyDeviceToDevice));
  });
  std::printf("memcpy,%d,%d,%lld,%lld,read+write,%.2f,%.1f,\n", S, sh.rows, sh.cols * S, sh.cols * S, copy * 1e6,
              2.0 * bytes / (copy * 1e9));
}

}  // namespace

int main(int argc, char**) {
  if (argc > 1) {
    std::fprintf(stderr, "usage: tlab-strided-probe (no arguments; CSV on stdout)\n");
    return 2;
  }
  try {
    int dev = 0, optin = 0;
    TLAB_CUDA(cudaGetDevice(&dev));
    TLAB_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    const long long tile = optin - 1024;  // what the grid pass's tile holds
    const int sms = tlab::gpu::sm_count(), reps = 15;
    std::printf("mode,elem_bytes,rows,pitch_bytes,piece_bytes,pattern,median_us,gb_per_s,pct_of_whole_rows\n");
    // The shapes of experiment 13's coprime pair, and an aligned pitch.
    const Shape shapes[] = {{16381, 1021}, {1021, 16381}, {16384, 1024}};
    for (const Shape& sh : shapes) {
      sweep<1>(sh, sms, tile, reps);
      sweep<2>(sh, sms, tile, reps);
      sweep<4>(sh, sms, tile, reps);
      sweep<8>(sh, sms, tile, reps);
      sweep<16>(sh, sms, tile, reps);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tlab-strided-probe: %s\n", e.what());
    return 1;
  }
  return 0;
}
