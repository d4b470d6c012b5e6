// Experiment 15's measurement at one element type and shape: the distributed transpose at
// each chunk count, the NCCL all-to-all of the same blocks (what it cannot beat) and, at one
// rank in one process, the single-GPU plan. Every transpose is checked exactly (hashed A,
// poisoned B) before it is timed and again after.
#pragma once
#include <string>
#include <vector>

#include "tlab/dist/distributed.hpp"
#include "tlab/timing.hpp"

namespace tlab::dist {

struct DistRow {
  std::string method;  // "single-gpu", "all-to-all", "chunks-<k>"
  int ranks = 1, chunks = 0;
  Timed timed;                               // seconds of the whole operation, slowest rank
  double pack_end = -1, exchange_end = -1;   // medians (distributed transposes only)
  std::string kernel;                        // single-gpu: the plan's kernel; chunks: the block transposes
  double exchange_bytes = 0;                 // bytes that cross between GPUs, all pairs
};

// Throws VerificationError on a wrong element, std::invalid_argument (before allocating)
// when the configuration cannot run here.
std::vector<DistRow> measure_distributed(const TeamSpec& team, DType type, Shape a, const std::vector<int>& chunks,
                                         const TimingPolicy& policy, std::uint64_t seed);

}  // namespace tlab::dist
