#include "tlab/dist/team.cuh"

#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "tlab/gpu/check.cuh"

namespace tlab::dist {
namespace {

// Rank 0 writes the id beside its final name and renames it, so that a waiting rank never
// reads half an id.
void publish(const ncclUniqueId& id, const std::string& path) {
  const std::string tmp = path + ".partial";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(id.internal, sizeof id.internal);
    if (!f) throw std::runtime_error("NCCL id: cannot write " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error("NCCL id: cannot rename " + tmp + " to " + path);
}

ncclUniqueId wait_for(const std::string& path) {
  constexpr auto kPatience = std::chrono::seconds(120);
  const auto t0 = std::chrono::steady_clock::now();
  ncclUniqueId id{};
  for (;;) {
    std::ifstream f(path, std::ios::binary);
    if (f && f.read(id.internal, sizeof id.internal)) return id;
    if (std::chrono::steady_clock::now() - t0 > kPatience)
      throw std::runtime_error("NCCL id: rank 0 wrote no " + path + " within 120 s");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace

void nccl_check(ncclResult_t r, const char* call, const char* file, int line) {
  if (r == ncclSuccess) return;  // blocking communicators only: ncclInProgress would be a surprise too
  throw std::runtime_error(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                           ncclGetErrorString(r));
}

Team::Team(const TeamSpec& spec) : ranks(spec.ranks) {
  // NVLink multicast stays off unless the caller chose otherwise: on the two-GPU machine it
  // must (the device tool's KINDS.md), and nothing here uses NVLS collectives.
  setenv("NCCL_NVLS_ENABLE", "0", 0);
  if (spec.rank < 0) {
    for (int r = 0; r < ranks; ++r) {
      rank.push_back(r);
      device.push_back(r);
    }
    comm.assign(ranks, nullptr);
    TLAB_NCCL(ncclCommInitAll(comm.data(), ranks, device.data()));
    return;
  }
  rank.push_back(spec.rank);
  device.push_back(spec.device);
  TLAB_CUDA(cudaSetDevice(spec.device));
  // One process may make several teams in turn (experiment 15 makes one per shape); every
  // process makes them in the same order, so the n-th team's id goes through file n and a rank
  // never reads an id left from an earlier team.
  static int generation = 0;
  const std::string path = spec.id_file + "." + std::to_string(generation++);
  ncclUniqueId id{};
  if (spec.rank == 0) {
    TLAB_NCCL(ncclGetUniqueId(&id));
    publish(id, path);
  } else {
    id = wait_for(path);
  }
  comm.assign(1, nullptr);
  TLAB_NCCL(ncclCommInitRank(&comm[0], ranks, id, spec.rank));
  if (spec.rank == 0) std::remove(path.c_str());  // every rank has read it: the init needed them all
}

void Team::abort() {
  for (ncclComm_t& c : comm)
    if (c) {
      ncclCommAbort(c);
      c = nullptr;
    }
}

Team::~Team() {
  for (ncclComm_t c : comm)
    if (c) ncclCommDestroy(c);
}

}  // namespace tlab::dist
