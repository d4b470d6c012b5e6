#include <map>
#include <mutex>
#include <utility>

#include "tlab/gpu/launch.cuh"

namespace tlab::gpu {

bool runs_sm90(const void* kernel) {
  static std::mutex m;
  static std::map<std::pair<int, const void*>, bool> known;
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) return false;
  const std::lock_guard<std::mutex> lock(m);
  const auto at = known.find({dev, kernel});
  if (at != known.end()) return at->second;
  int major = 0;
  cudaFuncAttributes a{};
  const bool yes = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess && major >= 9 &&
                   cudaFuncGetAttributes(&a, kernel) == cudaSuccess && a.ptxVersion >= 90;
  known[{dev, kernel}] = yes;
  return yes;
}

}  // namespace tlab::gpu
