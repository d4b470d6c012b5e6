// tlab-on-grid-probe: where the in-place transpose on the grid (gpu/inplace-rect/on-grid)
// spends its time. It times the same kernel whole, with the read phase and the barrier only,
// the barrier and the write phase only, the barrier only, nothing (the cooperative launch
// alone) and nothing through a plain launch, each after an L2 flush as experiment 13 times it;
// the whole transpose once more without the flush (the matrix left in L2 by the run before);
// and memcpy of the same bytes, in the same run. Tiles are the chooser's unless a case names them,
// so that other tile shapes can be weighed against it. A case "waves:N:BYTES" times the square
// transpose in waves (gpu/word-inplace/waves) the same way, but for the plain launch, and with
// its pieces written widened to whole sectors (not a transpose: what its writes would cost
// without a sector written in parts), its read phase with the loads alone (what follows each
// step of loads left out), and adds
// the matrix's bytes read and written as streams by a grid of the same shape, and read in
// 128-row units of 512 bytes, or of 480 bytes from byte 7, stacked down a column strip or side
// by side along a band of rows, read and written (as the transpose writes a piece, or widened to
// whole 16-byte words or 32-byte sectors, which neighbouring pieces then both write),
// and both streams cut into as many parts as the transpose has waves, a grid barrier after each
// (or only the block's: "-block").
//
// Usage: tlab-on-grid-probe [ROWSxCOLS:BYTES[:HxW] | waves:N:BYTES ...]   (no case: experiment
// 13's 1-byte rectangles, and smaller ones of 1 to 8 bytes)
// Output: CSV on stdout, one row per case and part: rows, cols, elem_bytes, tile_h, tile_w,
// tiles (for waves: 0, 0 and the count of waves), part, median_us, ci_lo_us and ci_hi_us (95% interval of the median), reps, pct_of_memcpy (memcpy's time over
// the part's, so a part alone shows its share of a copy's time).
#include <cuda_runtime.h>

#include <cstdio>
#include <exception>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "tlab/gpu/device_buffer.cuh"
#include "tlab/gpu/event_timer.cuh"
#include "tlab/gpu/inplace_on_grid.cuh"
#include "tlab/gpu/inplace_square_waves.cuh"
#include "grid_streams.cuh"
#include "tlab/stats.hpp"
#include "tlab/timing.hpp"

namespace {

using tlab::Shape;
using tlab::gpu::DeviceBuffer;

struct Case {
  Shape shape;
  int elem = 1;
  bool forced = false;
  bool waves = false;          // the square in waves instead of on-grid
  tlab::on_grid::Tiles tiles;  // h and w where forced
};

// "16384x1024:1" or "1024x16384:1:512x249": digits, 'x' and ':' only (sscanf alone would take
// spaces and signs), and tile sides that fit an int.
Case parse(const std::string& arg) {
  if (arg.rfind("waves:", 0) == 0) {  // waves:N:BYTES, the same checks on N x N:BYTES
    const std::string rest = arg.substr(6);
    const std::size_t colon = rest.find(':');
    if (colon == std::string::npos || rest.find_first_not_of("0123456789:") != std::string::npos)
      throw std::invalid_argument("not a case: '" + arg + "' (waves:N:BYTES)");
    const std::string side = rest.substr(0, colon);
    Case c = parse(side + "x" + side + rest.substr(colon));
    if (c.forced) throw std::invalid_argument("not a case: '" + arg + "' (waves:N:BYTES takes no tiles)");
    c.waves = true;
    return c;
  }
  Case c;
  long long m = 0, n = 0, h = 0, w = 0;
  int elem = 0, used = 0;
  const bool plain = !arg.empty() && arg.find_first_not_of("0123456789x:") == std::string::npos;
  const int got = plain ? std::sscanf(arg.c_str(), "%lldx%lld:%d%n:%lldx%lld%n", &m, &n, &elem, &used, &h, &w, &used) : 0;
  if ((got != 3 && got != 5) || used != static_cast<int>(arg.size()) || m < 1 || n < 1 ||
      (elem != 1 && elem != 2 && elem != 4 && elem != 8 && elem != 16) ||
      (got == 5 && (h < 1 || w < 1 || h > std::numeric_limits<int>::max() || w > std::numeric_limits<int>::max())))
    throw std::invalid_argument("not a case: '" + arg + "' (ROWSxCOLS:BYTES[:HxW], BYTES 1, 2, 4, 8 or 16)");
  c.shape = Shape{m, n};
  c.elem = elem;
  c.forced = got == 5;
  c.tiles.h = static_cast<int>(h);
  c.tiles.w = static_cast<int>(w);
  return c;
}

// Spins for about `ns` nanoseconds: an untimed wait on the stream before a timed launch.
__global__ void hold_stream(unsigned ns) {
  for (unsigned t = 0; t < ns; t += 1000) __nanosleep(1000);
}

struct Timing {
  double median = 0, lo = 0, hi = 0;
  int reps = 0;
};

// The project's sampling (tlab::measure) held to a fixed count: two untimed runs, then `reps`
// timed ones, each after `before` (untimed, on the same stream).
template <class Before, class Run> Timing time(int reps, Before before, Run run) {
  tlab::gpu::EventTimer timer;
  const tlab::Operands op;  // default stream
  tlab::TimingPolicy fixed;
  fixed.warmup = 2;
  fixed.min_reps = fixed.max_reps = reps;
  fixed.budget_s = std::numeric_limits<double>::infinity();
  fixed.target_rel_ci = -1;  // never met: every run of the `reps` is taken
  const tlab::Summary s = tlab::measure(
                              [&] {
                                before();
                                return timer.time([&](const tlab::Operands&) { run(); }, op);
                              },
                              fixed)
                              .summary;
  return Timing{s.median, s.ci_lo, s.ci_hi, static_cast<int>(s.n)};
}

void probe(const Case& c, DeviceBuffer& flush, int reps) {
  // Refused before anything is allocated: a case the grid cannot hold may not fit the device
  // memory either (or its size overflow).
  const tlab::gpu::SquareWaves plan = c.waves ? tlab::gpu::square_waves_plan(c.shape.rows, c.elem) : tlab::gpu::SquareWaves{};
  const int waves = plan.waves, blocks = plan.blocks;
  if (c.waves && waves == 0) throw std::invalid_argument(tlab::to_string(c.shape) + ": no waves on this GPU");
  if (!c.waves && !c.forced && tlab::gpu::on_grid_tiles(c.shape, c.elem).count == 0)
    throw std::invalid_argument(tlab::to_string(c.shape) + " does not fit this GPU's shared memory");
  if (c.forced && (tlab::on_grid::tiles_of<1>(c.shape.rows, c.shape.cols, c.tiles.h, c.tiles.w).count == 0 ||
                   !tlab::gpu::in_place_on_grid_fits(c.shape, c.elem)))
    throw std::invalid_argument(tlab::to_string(c.shape) + " in tiles of " + std::to_string(c.tiles.h) + "x" +
                                std::to_string(c.tiles.w) + ": not a tiling the grid can hold");
  const std::size_t bytes = static_cast<std::size_t>(c.shape.elements()) * c.elem;
  DeviceBuffer a(bytes), b(bytes);
  const std::int64_t words = static_cast<std::int64_t>(bytes / 16);  // the streams' whole words
  const bool pieces = c.waves && (c.shape.cols * c.elem) % 512 == 0 && c.shape.rows % 128 == 0;
  // The units' reads and writes (into b, not the matrix), by layout, piece and first byte.
  auto run_pieces = [&](bool stacked, int mode, int piece, int first) {
    return [&, stacked, mode, piece, first] {
      auto* m = static_cast<unsigned char*>(mode != kPieceRead ? b.get() : a.get());
      auto* sink = static_cast<uint4*>(b.get());
      const std::int64_t row_bytes = c.shape.cols * c.elem;
      auto go = [&](auto m_) {
        constexpr int M = decltype(m_)::value;
        if (stacked) piece_units<true, M><<<blocks, 1024>>>(m, c.shape.rows, row_bytes, piece, first, sink);
        else piece_units<false, M><<<blocks, 1024>>>(m, c.shape.rows, row_bytes, piece, first, sink);
      };
      switch (mode) {
        case kPieceRead: go(std::integral_constant<int, kPieceRead>{}); break;
        case kPieceEdgeBytes: go(std::integral_constant<int, kPieceEdgeBytes>{}); break;
        case kPieceWholeWords: go(std::integral_constant<int, kPieceWholeWords>{}); break;
        default: go(std::integral_constant<int, kPieceWholeSectors>{}); break;
      }
      TLAB_CUDA_LAUNCHED();
    };
  };
  TLAB_CUDA(cudaMemset(a.get(), 1, bytes));
  const tlab::on_grid::Tiles* forced = c.forced ? &c.tiles : nullptr;
  auto flush_l2 = [&] { TLAB_CUDA(cudaMemsetAsync(flush.get(), 0, flush.bytes(), nullptr)); };
  // Without a flush, something must still keep the stream busy while the host enqueues the
  // timed launch, or the host's launch latency would be timed too.
  auto hold = [] {
    hold_stream<<<1, 1>>>(20000);
    TLAB_CUDA_LAUNCHED();
  };
  const Timing copy = time(reps, flush_l2, [&] {
    TLAB_CUDA(cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, nullptr));
  });
  auto phases = [&](int p) {
    return [&, p] {
      if (c.waves) tlab::gpu::square_waves_phases(a.get(), c.shape.rows, c.elem, p, nullptr);
      else tlab::gpu::on_grid_phases(a.get(), c.shape, c.elem, p, forced, nullptr);
    };
  };
  struct Part {
    const char* name;
    Timing t;
  };
  const Part parts[] = {
      {"memcpy", copy},
      {"transpose", time(reps, flush_l2, phases(tlab::gpu::kOnGridAll))},
      {"read-and-barrier", time(reps, flush_l2, phases(tlab::gpu::kOnGridRead | tlab::gpu::kOnGridBarrier))},
      {"read-loads-and-barrier", c.waves ? time(reps, flush_l2, phases(tlab::gpu::kOnGridBarrier | tlab::gpu::kWavesReadLoads))
                                         : Timing{}},
      {"barrier-and-write", time(reps, flush_l2, phases(tlab::gpu::kOnGridBarrier | tlab::gpu::kOnGridWrite))},
      {"barrier-and-wide-write", c.waves ? time(reps, flush_l2, phases(tlab::gpu::kOnGridBarrier | tlab::gpu::kWavesWideWrite))
                                         : Timing{}},
      {"transpose-wide-write", c.waves ? time(reps, flush_l2, phases(tlab::gpu::kOnGridAll | tlab::gpu::kWavesWideWrite))
                                       : Timing{}},
      {"barrier", time(reps, flush_l2, phases(tlab::gpu::kOnGridBarrier))},
      {"launch", time(reps, flush_l2, phases(0))},
      {"plain-launch", c.waves ? Timing{} : time(reps, flush_l2, phases(tlab::gpu::kOnGridPlainLaunch))},
      {"transpose-warm", time(reps, hold, phases(tlab::gpu::kOnGridAll))},
      {"stream-read-4", c.waves ? time(reps, flush_l2, [&] {
         stream_read<4><<<blocks, 1024>>>(static_cast<const uint4*>(a.get()), words, static_cast<uint4*>(b.get()));
         TLAB_CUDA_LAUNCHED();
       }) : Timing{}},
      {"stream-read-8", c.waves ? time(reps, flush_l2, [&] {
         stream_read<8><<<blocks, 1024>>>(static_cast<const uint4*>(a.get()), words, static_cast<uint4*>(b.get()));
         TLAB_CUDA_LAUNCHED();
       }) : Timing{}},
      {"pieces-stacked-512", pieces ? time(reps, flush_l2, run_pieces(true, kPieceRead, 512, 0)) : Timing{}},
      {"pieces-side-by-side-512", pieces ? time(reps, flush_l2, run_pieces(false, kPieceRead, 512, 0)) : Timing{}},
      {"pieces-stacked-480+7", pieces ? time(reps, flush_l2, run_pieces(true, kPieceRead, 480, 7)) : Timing{}},
      {"pieces-side-by-side-480+7", pieces ? time(reps, flush_l2, run_pieces(false, kPieceRead, 480, 7)) : Timing{}},
      {"pieces-write-stacked-512", pieces ? time(reps, flush_l2, run_pieces(true, kPieceEdgeBytes, 512, 0)) : Timing{}},
      {"pieces-write-side-by-side-512", pieces ? time(reps, flush_l2, run_pieces(false, kPieceEdgeBytes, 512, 0)) : Timing{}},
      {"pieces-write-stacked-480+7", pieces ? time(reps, flush_l2, run_pieces(true, kPieceEdgeBytes, 480, 7)) : Timing{}},
      {"pieces-write-side-by-side-480+7", pieces ? time(reps, flush_l2, run_pieces(false, kPieceEdgeBytes, 480, 7)) : Timing{}},
      {"pieces-words-stacked-480+7", pieces ? time(reps, flush_l2, run_pieces(true, kPieceWholeWords, 480, 7)) : Timing{}},
      {"pieces-words-side-by-side-480+7", pieces ? time(reps, flush_l2, run_pieces(false, kPieceWholeWords, 480, 7)) : Timing{}},
      {"pieces-sectors-stacked-480+7", pieces ? time(reps, flush_l2, run_pieces(true, kPieceWholeSectors, 480, 7)) : Timing{}},
      {"pieces-sectors-side-by-side-480+7", pieces ? time(reps, flush_l2, run_pieces(false, kPieceWholeSectors, 480, 7)) : Timing{}},
      {"pieces-write-stacked-421+5", pieces ? time(reps, flush_l2, run_pieces(true, kPieceEdgeBytes, 421, 5)) : Timing{}},
      {"pieces-words-stacked-421+5", pieces ? time(reps, flush_l2, run_pieces(true, kPieceWholeWords, 421, 5)) : Timing{}},
      {"stream-read-in-waves", c.waves ? time(reps, flush_l2, [&] {
         launch_stream_in_waves<false>(a.get(), words, waves, b.get(), blocks);
       }) : Timing{}},
      {"stream-write-in-waves", c.waves ? time(reps, flush_l2, [&] {
         launch_stream_in_waves<true>(b.get(), words, waves, b.get(), blocks);
       }) : Timing{}},
      {"stream-read-in-waves-block", c.waves ? time(reps, flush_l2, [&] {
         launch_stream_in_waves<false, false>(a.get(), words, waves, b.get(), blocks);
       }) : Timing{}},
      {"stream-write-in-waves-block", c.waves ? time(reps, flush_l2, [&] {
         launch_stream_in_waves<true, false>(b.get(), words, waves, b.get(), blocks);
       }) : Timing{}},
      {"stream-write", c.waves ? time(reps, flush_l2, [&] {
         stream_write<<<blocks, 1024>>>(static_cast<uint4*>(b.get()), words);
         TLAB_CUDA_LAUNCHED();
       }) : Timing{}},
  };
  // Forced tiles as the launch clips them (h and w only: the count does not depend on the
  // element size).
  tlab::on_grid::Tiles shown = forced ? tlab::on_grid::tiles_of<1>(c.shape.rows, c.shape.cols, c.tiles.h, c.tiles.w)
                               : c.waves ? tlab::on_grid::Tiles{} : tlab::gpu::on_grid_tiles(c.shape, c.elem);
  if (c.waves) shown.count = waves;
  for (const Part& p : parts) {
    if (p.t.reps == 0) continue;  // not timed for this case
    std::printf("%lld,%lld,%d,%d,%d,%d,%s,%.2f,%.2f,%.2f,%d,%.1f\n", static_cast<long long>(c.shape.rows),
                static_cast<long long>(c.shape.cols), c.elem, shown.h, shown.w, shown.count, p.name, p.t.median * 1e6,
                p.t.lo * 1e6, p.t.hi * 1e6, p.t.reps, 100.0 * copy.median / p.t.median);
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::vector<Case> cases;
    for (int i = 1; i < argc; ++i) cases.push_back(parse(argv[i]));
    if (cases.empty())
      for (const char* d : {"16381x1021:1", "16384x1024:1", "1024x16384:1", "65536x256:1", "256x65536:1", "4093x1021:1",
                            "4093x1021:2", "4093x1021:4", "2039x1021:8"})
        cases.push_back(parse(d));
    int dev = 0, l2 = 0;
    TLAB_CUDA(cudaGetDevice(&dev));
    TLAB_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    DeviceBuffer flush(2 * static_cast<std::size_t>(l2));  // as experiment 13's executor flushes
    std::printf("rows,cols,elem_bytes,tile_h,tile_w,tiles,part,median_us,ci_lo_us,ci_hi_us,reps,pct_of_memcpy\n");
    int refused = 0;
    for (const Case& c : cases) try {
        probe(c, flush, 41);
      } catch (const std::exception& e) {  // a case the grid or the device cannot take: the others still run
        std::fprintf(stderr, "tlab-on-grid-probe: %s\n", e.what());
        ++refused;
      }
    return refused > 0 ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tlab-on-grid-probe: %s\n", e.what());
    return 1;
  }
}
