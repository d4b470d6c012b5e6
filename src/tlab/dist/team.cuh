// The NCCL side of a distributed transpose: the communicators of the ranks this process
// drives, made either all at once in one process or one per process through a shared id.
#pragma once
#include <nccl.h>

#include <string>
#include <vector>

#include "tlab/dist/distributed.hpp"

#define TLAB_NCCL(call) ::tlab::dist::nccl_check((call), #call, __FILE__, __LINE__)

namespace tlab::dist {

void nccl_check(ncclResult_t r, const char* call, const char* file, int line);

struct Team {
  int ranks = 0;
  std::vector<int> rank;          // the ranks this process drives, ascending
  std::vector<int> device;        // their GPUs
  std::vector<ncclComm_t> comm;   // their communicators
  explicit Team(const TeamSpec& spec);
  ~Team();
  void abort();  // ncclCommAbort on every communicator: after an error, instead of waiting
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;
};

}  // namespace tlab::dist
