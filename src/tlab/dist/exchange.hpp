// A matrix held by row blocks across P ranks (GPUs), and what transposing it moves between
// them. The m x n matrix A is cut into P row blocks; its n x m transpose B is cut the same
// way. Rank p holds rows a_rows().range(p) of A and must end up with rows b_rows().range(p)
// of B, so every rank sends every rank one block: rank p sends rank q the block of A at p's
// rows and q's columns, transposed (so that what travels is already in B's orientation).
//
// Each rank's send buffer holds its P outgoing blocks one after another, in rank order, each
// contiguous (b_rows().count(q) rows of a_rows().count(p) elements); each receive buffer holds
// the P incoming blocks the same way. pack/unpack below are the host reference for the
// device pipeline, which must match them byte for byte.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "tlab/matrix.hpp"

namespace tlab::dist {

// [0, total) in `parts` contiguous ranges; the first total % parts ranges are one longer.
struct RowBlocks {
  std::int64_t total = 0;
  int parts = 1;
  std::int64_t begin(int p) const;
  std::int64_t count(int p) const { return begin(p + 1) - begin(p); }
  int owner(std::int64_t i) const;  // the part holding index i
};

struct Exchange {
  Shape a;           // the whole matrix before the transpose, m x n
  std::size_t elem;  // bytes per element
  int ranks;

  RowBlocks a_rows() const { return {a.rows, ranks}; }
  RowBlocks b_rows() const { return {a.cols, ranks}; }  // = the column blocks of A
  std::size_t block_bytes(int from, int to) const;     // what `from` sends `to`
  std::size_t send_offset(int from, int to) const;     // where it sits in from's send buffer
  std::size_t recv_offset(int to, int from) const;     // and in to's receive buffer
  std::size_t local_a_bytes(int p) const;              // = p's send buffer
  std::size_t local_b_bytes(int q) const;              // = q's receive buffer
};

// Device memory a rank leaves for NCCL's own buffers and channels beside the four below.
constexpr std::size_t kHeadroomBytes = std::size_t{512} << 20;

// Why the exchange cannot run with `devices` devices of `free_bytes` free memory each, or ""
// when it can. Each rank holds its A block, its B block and the two buffers, and leaves
// kHeadroomBytes.
std::string refuse(const Exchange& x, int devices, std::size_t free_bytes);

// Host reference of the three steps. pack: p's rows of A (count x n, row major) into p's
// send buffer, each block transposed. unpack: q's receive buffer into q's rows of B
// (count x m, row major). exchange: every block from its send buffer to its receive buffer.
void pack_transposed(const Exchange& x, int p, const void* a_local, void* send);
void unpack(const Exchange& x, int q, const void* recv, void* b_local);
void exchange_on_host(const Exchange& x, const void* const* send, void* const* recv);

}  // namespace tlab::dist
