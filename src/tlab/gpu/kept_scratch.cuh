// Scratch for callers that pass none (the registered variants; a plan whose kernel needs none
// at its shape): one buffer per device, grown on demand and kept, so that timed repetitions do
// not allocate. Kernels on one stream may share it; it is not for two streams at once.
#pragma once
#include <cstdint>

namespace tlab::gpu {

void* kept_scratch(std::int64_t bytes);

}  // namespace tlab::gpu
