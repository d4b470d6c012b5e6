// The row-block exchange of the distributed transpose (src/tlab/dist/exchange.hpp): the
// partition, the buffer offsets, and the host pipeline pack -> exchange -> unpack, which must
// give exactly the transpose for any shape, rank count and element size.
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "tlab/dist/exchange.hpp"
#include "tlab/dtype.hpp"
#include "tlab/reference.hpp"

using tlab::Shape;
using tlab::dist::Exchange;
using tlab::dist::RowBlocks;

TEST_SUITE("dist") {

TEST_CASE("row blocks cover [0, total) in order, the longer ones first, with owners that agree") {
  for (std::int64_t total : {0, 1, 2, 5, 7, 64, 97, 1000})
    for (int parts = 1; parts <= 9; ++parts) {
      const RowBlocks b{total, parts};
      CAPTURE(total);
      CAPTURE(parts);
      CHECK(b.begin(0) == 0);
      CHECK(b.begin(parts) == total);
      for (int p = 0; p < parts; ++p) {
        CHECK(b.count(p) >= 0);
        if (p > 0) CHECK(b.count(p) <= b.count(p - 1));
        CHECK(b.count(0) - b.count(p) <= 1);
        for (std::int64_t i = b.begin(p); i < b.begin(p + 1); ++i) CHECK(b.owner(i) == p);
      }
    }
}

namespace {
// [offset, offset + bytes) of one message in a buffer.
struct Span {
  std::size_t at, bytes;
};
// Messages in buffer order lie one after the next, each on a 16-byte boundary (NCCL's word, the
// measured reason for the rounding), with less than kMessageAlign bytes between the end of one
// and the start of the next, and the buffer ends within kMessageAlign bytes of the last.
void check_packed(const std::vector<Span>& in_order, std::size_t buffer) {
  const std::size_t align = tlab::dist::kMessageAlign;
  REQUIRE(align % 16 == 0);
  std::size_t end = 0;
  for (const Span& m : in_order) {
    CHECK(m.at % align == 0);
    CHECK(m.at >= end);
    CHECK(m.at - end < align);
    end = m.at + m.bytes;
  }
  CHECK(buffer >= end);
  CHECK(buffer - end < align);
  CHECK(buffer % align == 0);
}
}  // namespace

TEST_CASE("the messages of each send and receive buffer tile it in order, each on a 16-byte boundary") {
  for (Shape s : {Shape{1, 1}, Shape{7, 3}, Shape{97, 101}, Shape{5, 64}, Shape{1000, 3}})
    for (int ranks = 1; ranks <= 5; ++ranks)
      for (int chunks : {1, 2, 3, 7}) {
        CAPTURE(tlab::to_string(s));
        CAPTURE(ranks);
        CAPTURE(chunks);
        const Exchange x{s, 1, ranks};
        std::size_t sent = 0;
        for (int p = 0; p < ranks; ++p) {
          std::vector<Span> send, recv;
          for (int c = 0; c < chunks; ++c)
            for (int q = 0; q < ranks; ++q) send.push_back({x.send_offset(p, q, chunks, c), x.message_bytes(p, q, chunks, c)});
          for (int q = 0; q < ranks; ++q)
            for (int c = 0; c < chunks; ++c) recv.push_back({x.recv_offset(p, q, chunks, c), x.message_bytes(q, p, chunks, c)});
          check_packed(send, x.send_bytes(p, chunks));
          check_packed(recv, x.recv_bytes(p, chunks));
          for (int q = 0; q < ranks; ++q) {
            std::size_t block = 0;
            for (int c = 0; c < chunks; ++c) block += x.message_bytes(p, q, chunks, c);
            CHECK(block == x.block_bytes(p, q));  // the chunks of a block are the whole block
            sent += block;
          }
        }
        CHECK(sent == static_cast<std::size_t>(s.elements()));
      }
}

TEST_CASE("pack, exchange and unpack give exactly the transpose, for every element size") {
  int checked = 0;
  for (tlab::DType t : {tlab::DType::u8, tlab::DType::u16, tlab::DType::f32, tlab::DType::f64, tlab::DType::c128})
    for (Shape s : {Shape{1, 1}, Shape{1, 7}, Shape{7, 1}, Shape{2, 9}, Shape{13, 29}, Shape{64, 48}, Shape{97, 101}})
      for (int ranks = 1; ranks <= 5; ++ranks) {
        const std::size_t e = tlab::dtype_size(t);
        const Exchange x{s, e, ranks};
        std::vector<unsigned char> a(s.elements() * e), want(a.size());
        tlab::fill_random(a.data(), s.elements(), t);
        tlab::reference_transpose(a.data(), want.data(), s, e);
        std::vector<std::vector<unsigned char>> send(ranks), recv(ranks);
        std::vector<const void*> send_p(ranks);
        std::vector<void*> recv_p(ranks);
        for (int p = 0; p < ranks; ++p) {
          send[p].resize(x.send_bytes(p));
          recv[p].resize(x.recv_bytes(p));
          tlab::poison(send[p].data(), send[p].size());
          tlab::poison(recv[p].data(), recv[p].size());
          const auto* mine = a.data() + x.a_rows().begin(p) * s.cols * e;
          tlab::dist::pack_transposed(x, p, mine, send[p].data());
          send_p[p] = send[p].data();
          recv_p[p] = recv[p].data();
        }
        tlab::dist::exchange_on_host(x, send_p.data(), recv_p.data());
        std::vector<unsigned char> b(want.size());
        tlab::poison_against(b.data(), want.data(), b.size());
        for (int q = 0; q < ranks; ++q)
          tlab::dist::unpack(x, q, recv[q].data(), b.data() + x.b_rows().begin(q) * s.rows * e);
        CAPTURE(tlab::dtype_name(t));
        CAPTURE(tlab::to_string(s));
        CAPTURE(ranks);
        CHECK(std::memcmp(b.data(), want.data(), b.size()) == 0);
        ++checked;
      }
  CHECK(checked == 5 * 7 * 5);
}

TEST_CASE("offsets and sizes are 64-bit: a matrix of more than 2^32 bytes per rank") {
  const Exchange x{{200000, 300001}, 8, 2};  // 480 GB in all
  CHECK(x.local_a_bytes(0) == std::size_t{100000} * 300001 * 8);
  CHECK(x.send_offset(0, 1) == std::size_t{100000} * 150001 * 8);  // a multiple of 16 already
  CHECK(x.recv_offset(1, 1) == std::size_t{150000} * 100000 * 8);
  CHECK(x.local_a_bytes(0) > (std::size_t{1} << 32));
}

TEST_CASE("what cannot run is refused with one line before anything is allocated") {
  const std::size_t gib = std::size_t{1} << 30;
  CHECK(tlab::dist::refuse({{4096, 4096}, 4, 2}, 2, 80 * gib).empty());
  CHECK(tlab::dist::refuse({{4096, 4096}, 4, 1}, 0, 80 * gib).find("this machine has 0") != std::string::npos);
  CHECK(tlab::dist::refuse({{4096, 4096}, 4, 3}, 2, 80 * gib).find("asked for 3 GPUs") != std::string::npos);
  CHECK(!tlab::dist::refuse({{4096, 4096}, 4, 0}, 2, 80 * gib).empty());
  CHECK(!tlab::dist::refuse({{0, 4096}, 4, 1}, 2, 80 * gib).empty());
  // 2 x (A block + B block) per rank: 2 x 2 x 8 GiB for 65536^2 floats over two GPUs.
  CHECK(tlab::dist::refuse({{65536, 65536}, 4, 2}, 2, 32 * gib + tlab::dist::kHeadroomBytes).empty());
  CHECK(tlab::dist::refuse({{65536, 65536}, 4, 2}, 2, 32 * gib + tlab::dist::kHeadroomBytes - 1).find("needs 33280 MiB") !=
        std::string::npos);
  CHECK(!tlab::dist::refuse({{std::int64_t{1} << 40, std::int64_t{1} << 40}, 16, 2}, 2, ~std::size_t{0}).empty());
  CHECK(tlab::dist::refuse({{4096, 4096}, 4, 3}, 2, gib).find('\n') == std::string::npos);
}

}  // TEST_SUITE
