// The distributed transpose: an m x n matrix held by row blocks on P GPUs becomes its n x m
// transpose held by row blocks (the layout of exchange.hpp), through NCCL.
//
//   tlab::dist::Transposer t(tlab::dist::team_from_environment(2), tlab::DType::f32, {m, n});
//   seed = t.fill(seed);                   // or upload_a(r, host) per rank this process drives
//   tlab::dist::Times s = t.transpose(8);  // in 8 chunks, every rank, timed; blocks until done
//   t.count_wrong(seed);                  // 0: every element of B is right, on every rank
//
// Each rank transposes its rows of A in chunks of rows: the transpose of a k x n chunk is n
// rows of k elements, and rank q's share is a contiguous run of them, so what travels is
// already transposed. Registered kernels that take pitches (kernel() names them) transpose each
// peer's block of the chunk straight from A into the send buffer, and the rank's own block
// straight into B's columns. Chunk c goes to every peer in one grouped ncclSend/ncclRecv on a
// stream of the highest priority while chunk c + 1 is transposed; each received block lands
// in B's columns by a row copy on a third stream.
//
// One process may drive every rank (one communicator per GPU, ncclCommInitAll), or each
// process one rank (ncclCommInitRank, the id passed through a file): the code is the same.
// Timings and the error count are reduced over every rank through NCCL, so every process
// sees the same numbers and takes the same decisions.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tlab/dist/exchange.hpp"
#include "tlab/dtype.hpp"

namespace tlab::dist {

// "" when this build can run the distributed transpose here, else why not (no CUDA, no
// NCCL in this build, no GPU).
std::string unavailable();
int visible_gpus();  // 0 without CUDA or without a GPU

struct TeamSpec {
  int ranks = 1;
  int rank = -1;        // -1: this process drives ranks 0..ranks-1 on devices 0..ranks-1
  int device = 0;       // rank >= 0: this process's GPU
  std::string id_file;  // rank >= 0: rank 0 writes the NCCL id there, the others wait for it
};

// One process driving `ranks` GPUs, 0 .. ranks - 1.
inline TeamSpec one_process(int ranks) {
  TeamSpec t;
  t.ranks = ranks;
  return t;
}

// One process per GPU when TLAB_DIST_RANK is set (with TLAB_DIST_RANKS, TLAB_DIST_ID_FILE and
// optionally TLAB_DIST_DEVICE, default the rank modulo the GPUs visible), else one process
// driving `ranks` GPUs. Throws std::invalid_argument on a malformed or incomplete set.
TeamSpec team_from_environment(int ranks);

// Seconds, the slowest rank's. pack_end: from the start until every block is transposed (the
// own block of the last chunk included, which runs beside that chunk's exchange);
// exchange_end: until the last chunk is received. The rest of the total is the placing of
// the last chunk.
struct Times {
  double total = 0, pack_end = 0, exchange_end = 0;
};

class Transposer {
 public:
  // Refuses with std::invalid_argument (one line: more ranks than GPUs, sizes beyond the
  // devices' memory) before anything is allocated. Sets up NCCL and allocates A, B and the
  // two exchange buffers on every rank this process drives.
  Transposer(const TeamSpec& team, DType type, Shape a);
  ~Transposer();
  Transposer(const Transposer&) = delete;
  Transposer& operator=(const Transposer&) = delete;

  const Exchange& layout() const;
  const std::string& kernel() const;  // the registered kernels that transposed blocks so far, joined by "+"
  const std::vector<int>& local_ranks() const;  // the ranks this process drives

  // Host copies of one local rank's blocks (for tests): A's rows, B's rows, row major.
  void upload_a(int rank, const void* host);
  void download_b(int rank, void* host) const;

  // A's element (i, j) := a hash of (seed, i, j) on every local rank; B poisoned. Every rank
  // uses rank 0's seed, which it returns (processes need not agree on one beforehand).
  std::uint64_t fill(std::uint64_t seed);
  // Elements of B that differ from the transpose of fill(seed)'s A, summed over every rank.
  std::uint64_t count_wrong(std::uint64_t seed);

  // One distributed transpose, each rank's rows in `chunks` chunks (>= 1; more chunks than
  // rows leaves some empty). Every rank calls it with the same count.
  Times transpose(int chunks);
  double all_to_all(); // the same blocks sent and received in one group, nothing transposed

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The P = 1 point: the single-GPU plan (tlab::Plan) on the whole matrix, on device 0.
// Throws ResourceError when the matrix and its transpose do not fit there.
class SingleGpu {
 public:
  SingleGpu(DType type, Shape a);
  ~SingleGpu();
  SingleGpu(const SingleGpu&) = delete;
  SingleGpu& operator=(const SingleGpu&) = delete;
  std::uint64_t check(std::uint64_t seed);  // wrong elements after one transpose of the hashed A
  double transpose();                        // seconds of one transpose, by events
  const std::string& kernel() const;         // the registered kernel the plan runs

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tlab::dist
