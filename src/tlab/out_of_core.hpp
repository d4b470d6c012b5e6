// Experiment 10's measurement: a square float matrix larger than the GPU's memory, in host
// memory, transposed in place through the GPU by each method, every element checked after
// the first transpose and again after the timed ones. Elements are a hash of (row, column),
// so the check needs no second copy of a matrix that already fills most of the host.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tlab/matrix.hpp"
#include "tlab/timing.hpp"

namespace tlab {

struct OutOfCoreMethod {
  std::string access;  // "staged" (transpose_host_in_place) or "mapped" (transpose_host_in_place_mapped)
  std::string kernel;
  std::int64_t block = 0;  // staged: tile side
  int streams = 0;         // staged
};

struct OutOfCoreRow {
  OutOfCoreMethod method;
  Timed timed;
  bool verified = false;  // every element right after the first and after the last transpose
};

struct OutOfCoreRun {
  std::int64_t n = 0;                // the matrix is n x n float
  double device_memory_bytes = 0;    // the GPU's total memory
  std::string host_memory;           // "pinned" (cudaHostRegister succeeded) or "pageable"
  Timed copy_both_ways;              // pinned H2D and D2H of copy_bytes at once, same run
  double copy_bytes = 0;
  std::vector<OutOfCoreRow> rows;
  std::vector<std::string> skipped;  // "<method>: why"
};

// The GPU's total memory in bytes, or 0 (and *why) without one.
double device_memory_bytes(std::string* why);

// Runs every method on one n x n float matrix. Returns n == 0 (and *why) without a GPU.
// Throws VerificationError when an element is wrong.
OutOfCoreRun measure_out_of_core(std::int64_t n, const std::vector<OutOfCoreMethod>& methods, const TimingPolicy& p,
                                 std::string* why);

}  // namespace tlab
