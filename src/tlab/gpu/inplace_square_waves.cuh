// The in-place transpose of an n x n matrix in waves through the grid's shared memory
// (inplace_square_waves.cu, tlab/inplace_square_waves.hpp): any side and alignment, one read
// and one write of each element.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace tlab::gpu {

// A launch: its waves, blocks and shared memory a block (waves 0 where the current device
// cannot run the side). As an argument, `blocks` and `smem` bound the launch (for tests: a
// small matrix in many waves); `waves` is then ignored.
struct SquareWaves {
  int waves = 0, blocks = 0;
  std::int64_t smem = 0;
};

// The launch the transpose of n x n with `elem`-byte elements takes on the current device.
SquareWaves square_waves_plan(std::int64_t n, int elem);

// Transposes the n x n matrix at `matrix` (device memory, any address that is a multiple of the
// element size) in place on `stream`; throws std::invalid_argument where the device cannot.
// `bound`: fewer blocks and less shared memory than the device's.
void transpose_square_in_waves(void* matrix, std::int64_t n, int elem, cudaStream_t stream,
                               const SquareWaves* bound = nullptr);

// For tlab-on-grid-probe: the same launch with only some of its phases (on-grid's bit mask,
// inplace_on_grid.cuh: kOnGridRead, kOnGridBarrier, kOnGridWrite; with one left out the result
// is not a transpose), or with kWavesWideWrite for kOnGridWrite: every piece written widened to
// the whole 32-byte sectors under it, the widened bytes whatever shared memory holds there (a
// timing of the write phase without a sector written in parts, not a transpose).
constexpr int kWavesWideWrite = 16;
// ... or with kWavesReadLoads for kOnGridRead: read_tile's loads alone, in its order and with its
// words in flight, without the shifts and stores into the tile that follow each step (a timing
// of what the read phase's global loads cost, not a transpose).
constexpr int kWavesReadLoads = 32;
void square_waves_phases(void* matrix, std::int64_t n, int elem, int phases, cudaStream_t stream);

}  // namespace tlab::gpu
