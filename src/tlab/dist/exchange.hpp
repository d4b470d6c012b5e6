// A matrix held by row blocks across P ranks (GPUs), and what transposing it moves between
// them. The m x n matrix A is cut into P row blocks; its n x m transpose B is cut the same
// way. Rank p holds rows a_rows().range(p) of A and must end up with rows b_rows().range(p)
// of B, so every rank sends every rank one block: rank p sends rank q the block of A at p's
// rows and q's columns, transposed (so that what travels is already in B's orientation).
//
// A transpose in K chunks cuts each rank's rows into K chunks (RowBlocks{a_rows().count(p), K});
// one message carries chunk c of one block, b_rows().count(q) rows of the chunk's row count.
// Rank p's send buffer holds its messages chunk by chunk, each chunk's in rank order; rank q's
// receive buffer holds them by sender, each sender's chunks in order. Every message starts on
// a multiple of kMessageAlign bytes. pack/unpack below are the host reference (K = 1) for the
// device pipeline, which uses the same offsets.
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

// NCCL moved a message that starts off a 16-byte boundary at a third to two thirds of its rate
// on four H200s (experiment 15: uint8 and float blocks at 108-242 GB/s a GPU, complex128's,
// always on the boundary, at 324-365), and reads a message's last 16-byte word whole, past an
// end off the boundary (NVIDIA/nccl issue 265): messages start, and buffers end, on it.
constexpr std::size_t kMessageAlign = 16;

struct Exchange {
  Shape a;           // the whole matrix before the transpose, m x n
  std::size_t elem;  // bytes per element
  int ranks;

  RowBlocks a_rows() const { return {a.rows, ranks}; }
  RowBlocks b_rows() const { return {a.cols, ranks}; }  // = the column blocks of A
  std::size_t block_bytes(int from, int to) const;     // what `from` sends `to`
  std::size_t local_a_bytes(int p) const;              // p's rows of A
  std::size_t local_b_bytes(int q) const;              // q's rows of B

  RowBlocks chunk_rows(int p, int chunks) const { return {a_rows().count(p), chunks}; }
  // Chunk c of the block from `from` to `to`, in a transpose of `chunks` chunks.
  std::size_t message_bytes(int from, int to, int chunks = 1, int c = 0) const;
  std::size_t send_offset(int from, int to, int chunks = 1, int c = 0) const;  // in from's send buffer
  std::size_t recv_offset(int to, int from, int chunks = 1, int c = 0) const;  // in to's receive buffer
  std::size_t send_bytes(int p, int chunks = 1) const;  // p's send buffer: its messages, each rounded up
  std::size_t recv_bytes(int q, int chunks = 1) const;  // q's receive buffer
};

// Device memory a rank leaves for NCCL's own buffers and channels beside the four below.
constexpr std::size_t kHeadroomBytes = std::size_t{512} << 20;

// Why the exchange cannot run with `devices` devices of `free_bytes` free memory each, or ""
// when it can. Each rank holds its A block, its B block and the two buffers, and leaves
// kHeadroomBytes (which also covers the buffers' rounding to kMessageAlign).
std::string refuse(const Exchange& x, int devices, std::size_t free_bytes);

// Host reference of the three steps. pack: p's rows of A (count x n, row major) into p's
// send buffer, each block transposed. unpack: q's receive buffer into q's rows of B
// (count x m, row major). exchange: every block from its send buffer to its receive buffer.
void pack_transposed(const Exchange& x, int p, const void* a_local, void* send);
void unpack(const Exchange& x, int q, const void* recv, void* b_local);
void exchange_on_host(const Exchange& x, const void* const* send, void* const* recv);

}  // namespace tlab::dist
