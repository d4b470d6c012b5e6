#include "tlab/dist/exchange.hpp"

#include <cstring>

namespace tlab::dist {

std::int64_t RowBlocks::begin(int p) const {
  const std::int64_t base = total / parts, extra = total % parts;
  return p * base + (p < extra ? p : extra);
}

int RowBlocks::owner(std::int64_t i) const {
  const std::int64_t base = total / parts, extra = total % parts;
  const std::int64_t long_part = base + 1;
  if (i < extra * long_part) return static_cast<int>(i / long_part);
  return static_cast<int>(extra + (i - extra * long_part) / base);
}

std::size_t Exchange::block_bytes(int from, int to) const {
  return static_cast<std::size_t>(a_rows().count(from)) * static_cast<std::size_t>(b_rows().count(to)) * elem;
}

namespace {
std::size_t rounded(std::size_t bytes) { return (bytes + kMessageAlign - 1) / kMessageAlign * kMessageAlign; }
}  // namespace

std::size_t Exchange::message_bytes(int from, int to, int chunks, int c) const {
  return static_cast<std::size_t>(chunk_rows(from, chunks).count(c)) * static_cast<std::size_t>(b_rows().count(to)) *
         elem;
}

// The sums below run over at most P x K messages; the pipeline asks for a few per message, so
// a transpose spends O(P^3 K^2) additions on them (16 chunks over 8 GPUs: about 10^5).
std::size_t Exchange::send_offset(int from, int to, int chunks, int c) const {
  std::size_t at = 0;
  for (int k = 0; k <= c; ++k)
    for (int q = 0; q < ranks && (k < c || q < to); ++q) at += rounded(message_bytes(from, q, chunks, k));
  return at;
}
std::size_t Exchange::recv_offset(int to, int from, int chunks, int c) const {
  std::size_t at = 0;
  for (int p = 0; p <= from; ++p)
    for (int k = 0; k < chunks && (p < from || k < c); ++k) at += rounded(message_bytes(p, to, chunks, k));
  return at;
}
std::size_t Exchange::send_bytes(int p, int chunks) const { return send_offset(p, 0, chunks, chunks); }
std::size_t Exchange::recv_bytes(int q, int chunks) const { return recv_offset(q, ranks, chunks, 0); }
std::size_t Exchange::local_a_bytes(int p) const {
  return static_cast<std::size_t>(a_rows().count(p)) * static_cast<std::size_t>(a.cols) * elem;
}
std::size_t Exchange::local_b_bytes(int q) const {
  return static_cast<std::size_t>(b_rows().count(q)) * static_cast<std::size_t>(a.rows) * elem;
}

std::string refuse(const Exchange& x, int devices, std::size_t free_bytes) {
  if (x.ranks < 1) return "the number of ranks must be at least 1, not " + std::to_string(x.ranks);
  if (x.a.rows < 1 || x.a.cols < 1) return "the matrix must have at least one row and one column, not " + to_string(x.a);
  if (x.elem == 0) return "elements of 0 bytes";
  if (x.ranks > devices)
    return "asked for " + std::to_string(x.ranks) + " GPUs (one per rank); this machine has " + std::to_string(devices);
  // The largest rank holds a_rows.count(0) rows of A and b_rows.count(0) rows of B (the
  // first blocks are the longest), each twice: the matrix and its buffer. In long double, so
  // that sizes whose bytes overflow 64 bits are refused rather than wrapped.
  const long double need = 2.0L * x.elem *
                               (static_cast<long double>(x.a_rows().count(0)) * x.a.cols +
                                static_cast<long double>(x.b_rows().count(0)) * x.a.rows) +
                           kHeadroomBytes;
  if (need > static_cast<long double>(free_bytes))
    return to_string(x.a) + " of " + std::to_string(x.elem) + "-byte elements over " + std::to_string(x.ranks) +
           " GPUs needs " + std::to_string(static_cast<unsigned long long>(need / (1 << 20))) + " MiB on each (" + std::to_string(kHeadroomBytes >> 20) + " of them for NCCL); " +
           std::to_string(free_bytes >> 20) + " MiB are free";
  return "";
}

void pack_transposed(const Exchange& x, int p, const void* a_local, void* send) {
  const auto* a = static_cast<const unsigned char*>(a_local);
  auto* s = static_cast<unsigned char*>(send);
  const RowBlocks rows = x.a_rows(), cols = x.b_rows();
  const std::int64_t mine = rows.count(p);
  for (int q = 0; q < x.ranks; ++q) {
    unsigned char* out = s + x.send_offset(p, q);
    const std::int64_t c0 = cols.begin(q), nc = cols.count(q);
    for (std::int64_t j = 0; j < nc; ++j)
      for (std::int64_t i = 0; i < mine; ++i)
        std::memcpy(out + (j * mine + i) * x.elem, a + (i * x.a.cols + c0 + j) * x.elem, x.elem);
  }
}

void unpack(const Exchange& x, int q, const void* recv, void* b_local) {
  const auto* r = static_cast<const unsigned char*>(recv);
  auto* b = static_cast<unsigned char*>(b_local);
  const RowBlocks rows = x.a_rows();
  const std::int64_t mine = x.b_rows().count(q);
  for (int p = 0; p < x.ranks; ++p) {
    const std::int64_t width = rows.count(p) * static_cast<std::int64_t>(x.elem);
    if (width == 0 || mine == 0) continue;  // an empty block may sit in a buffer with no address
    const unsigned char* in = r + x.recv_offset(q, p);
    for (std::int64_t j = 0; j < mine; ++j)
      std::memcpy(b + (j * x.a.rows + rows.begin(p)) * static_cast<std::int64_t>(x.elem), in + j * width, width);
  }
}

void exchange_on_host(const Exchange& x, const void* const* send, void* const* recv) {
  for (int p = 0; p < x.ranks; ++p)
    for (int q = 0; q < x.ranks; ++q)
      if (x.block_bytes(p, q) != 0)
        std::memcpy(static_cast<unsigned char*>(recv[q]) + x.recv_offset(q, p),
                    static_cast<const unsigned char*>(send[p]) + x.send_offset(p, q), x.block_bytes(p, q));
}

}  // namespace tlab::dist
