// Shared by the GPU family files: launch geometry and the one way a GPU variant is built.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tlab/gpu/check.cuh"
#include "tlab/matrix.hpp"
#include "tlab/registry.hpp"

namespace tlab::gpu {

// gridDim.y and .z are limited to 65535; kernels loop over the rest (see tile loops), so a
// tall matrix never needs a launch that the device refuses.
constexpr std::int64_t kMaxGridY = 65535;

using tlab::ceil_div;

inline dim3 grid_2d(std::int64_t blocks_x, std::int64_t blocks_y) {
  if (blocks_x > 0x7fffffff) throw std::invalid_argument("matrix too wide for one launch");
  return dim3(static_cast<unsigned>(std::max<std::int64_t>(blocks_x, 1)),
              static_cast<unsigned>(std::clamp<std::int64_t>(blocks_y, 1, kMaxGridY)));
}

inline cudaStream_t stream_of(const Operands& op) { return static_cast<cudaStream_t>(op.stream); }

// The current device's SM count, for grids of one or a few resident waves.
inline int sm_count() {
  int sms = 0, dev = 0;
  TLAB_CUDA(cudaGetDevice(&dev));
  TLAB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  return sms;
}

// The order in which a tiled out-of-place kernel's blocks take a down x across grid of tiles:
// blockIdx.x takes one tile index and blockIdx.y loops over the other, which may pass
// gridDim.y. OutOrder: blockIdx.x walks down the input, so that the blocks launched together
// write neighbouring pieces of the same output rows (the faster order on these GPUs:
// performance notes, section 9, "16-byte elements in geam's shape"); else across it.
template <bool OutOrder> struct TileOrder {
  static dim3 grid(std::int64_t down, std::int64_t across) {
    return OutOrder ? grid_2d(down, across) : grid_2d(across, down);
  }
  // How many tiles blockIdx.y loops over, and tile `by` of that loop's row and column index.
  __device__ static std::int64_t looped(std::int64_t down, std::int64_t across) { return OutOrder ? across : down; }
  __device__ static std::int64_t row(std::int64_t by) { return OutOrder ? static_cast<std::int64_t>(blockIdx.x) : by; }
  __device__ static std::int64_t col(std::int64_t by) { return OutOrder ? by : static_cast<std::int64_t>(blockIdx.x); }
};

inline Variant gpu_variant(std::string name, std::string family, Placement placement,
                           std::vector<Param> params, std::string note) {
  Variant v;
  v.name = std::move(name);
  v.family = std::move(family);
  v.backend = Backend::gpu;
  v.placement = placement;
  v.params = std::move(params);
  v.note = std::move(note);
  return v;
}

// A variant's refusal that asks the device whether it can run a case: "" where `fits()`
// says so, else why not: no device, a failed query (its message: a reason, not an escape from
// a plan's choice), or `otherwise`.
template <class Fits> std::string device_refusal(Fits fits, const std::string& otherwise) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    cudaGetLastError();  // the failed query's error is not a kernel's
    return "no CUDA device";
  }
  try {
    if (fits()) return "";
  } catch (const std::exception& e) {
    return e.what();
  }
  return otherwise;
}

// The kernel of the registered variant `name` when it is a correct GPU transpose of t with
// placement p (not a roofline peer, not registered as known to be wrong), else nullptr.
// Code that runs a kernel by name checks it once with this and says what it needed.
inline const KernelFn* correct_gpu_transpose(const std::string& name, DType t, Placement p) {
  const Variant& k = registry().get(name);
  if (k.backend != Backend::gpu || k.placement != p || k.produces != Produces::transpose || k.known_wrong ||
      !k.supports(t))
    return nullptr;
  return &k.kernels.at(t);
}

// The element types the GPU sweeps use; experiment 07 adds the others through the
// families registered with all types.
#define TLAB_GPU_MAIN_TYPES std::int32_t, float, double

void register_gpu_naive(Registry& r);
void register_gpu_tiled(Registry& r);
void register_gpu_inplace(Registry& r);
// Whether the current device is of compute capability 9.0 or later and `kernel` has code built
// for it, not an older target's JIT-compiled body (the TMA and cluster kernels compile their
// bodies for sm_90 only); asked once per device and kernel.
bool runs_sm90(const void* kernel);

void register_gpu_peers(Registry& r);
void register_gpu_copy_bulk(Registry& r);
void register_gpu_vector(Registry& r);
void register_gpu_rect(Registry& r);
void register_gpu_word(Registry& r);
void register_gpu_sector(Registry& r);
void register_gpu_tma(Registry& r);
void register_gpu_word_in_place(Registry& r);
void register_gpu_word_in_place_ahead(Registry& r);
void register_gpu_word_in_place_bands(Registry& r);
void register_gpu_inplace_rect(Registry& r);
void register_gpu_inplace_on_grid(Registry& r);
void register_gpu_inplace_square_waves(Registry& r);
void register_gpu_inplace_blocks(Registry& r);
void register_gpu_inplace_cube(Registry& r);

}  // namespace tlab::gpu
