// Blocks of larger matrices: the variants that take pitches transpose a block of one matrix
// into a block of another, and the row copy moves a block between pitched buffers. In both,
// nothing outside the target block may change, and the input block may end at the last byte
// of its allocation (a word read past it would show under compute-sanitizer memcheck).
#include <doctest/doctest.h>

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "tlab/experiment.hpp"
#include "tlab/gpu/copy_rows.cuh"
#include "tlab/reference.hpp"

namespace {

constexpr unsigned char kPoison = 0x5A;

// A device copy of `host`, and back.
unsigned char* to_device(const std::vector<unsigned char>& host) {
  unsigned char* d = nullptr;
  REQUIRE(cudaMalloc(&d, host.size()) == cudaSuccess);
  REQUIRE(cudaMemcpy(d, host.data(), host.size(), cudaMemcpyHostToDevice) == cudaSuccess);
  return d;
}
std::vector<unsigned char> to_host(const unsigned char* d, std::size_t bytes) {
  std::vector<unsigned char> h(bytes);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  REQUIRE(cudaMemcpy(h.data(), d, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
  return h;
}

// Where a block sits in its parent: `pad` elements more per parent row than the block's
// width, the block `offset` (<= pad) elements into its rows, after `row` parent rows.
struct Placing {
  std::int64_t pad, offset, row = 1;
};

}  // namespace

TEST_CASE("variants that take pitches transpose a block of one matrix into a block of another") {
  const bool small = std::getenv("TLAB_GPU_TEST_SMALL") != nullptr;
  std::vector<tlab::Shape> shapes{{1, 1}, {5, 3}, {33, 31}, {64, 64}, {130, 97}, {515, 513}};
  if (!small) shapes.push_back({2049, 2051});
  int checked = 0;
  // Base pointers on words with rows off them (odd pads at offset 0: the shifted rows), off
  // words (element by element), and on words with whole-word pitches; the input ends at the
  // last byte of its allocation in every case.
  const std::vector<std::pair<Placing, Placing>> placings{
      {{0, 0, 0}, {0, 0}}, {{8, 8}, {16, 0}}, {{3, 1}, {5, 5}}, {{16, 16}, {16, 16}}, {{3, 0, 0}, {5, 0}}, {{1, 0, 2}, {7, 0}}};
  for (const tlab::Variant& v : tlab::registry().all()) {
    if (v.backend != tlab::Backend::gpu || !v.takes_in_pitch) continue;
    REQUIRE(v.takes_out_pitch);
    for (tlab::DType t : v.dtypes())
      for (tlab::Shape s : shapes)
        for (auto [in, out] : placings) {
          CAPTURE(v.name);
          CAPTURE(tlab::dtype_name(t));
          CAPTURE(tlab::to_string(s));
          CAPTURE(in.pad);
          CAPTURE(in.row);
          CAPTURE(out.pad);
          const std::size_t e = tlab::dtype_size(t);
          // The input allocation ends with the block's last element; the output has a poisoned
          // row after the block's (and `row` before it).
          const std::int64_t in_pitch = s.cols + in.pad, out_pitch = s.rows + out.pad;
          const std::int64_t in_first = in.row * in_pitch + in.offset, out_first = out.row * out_pitch + out.offset;
          const std::size_t in_bytes = (in_first + (s.rows - 1) * in_pitch + s.cols) * e;
          const std::size_t out_bytes = (out.row + s.cols + 1) * out_pitch * e;
          std::vector<unsigned char> a(in_bytes), block(s.elements() * e), block_t(block.size()), want(out_bytes, kPoison);
          tlab::fill_random(a.data(), static_cast<std::int64_t>(in_bytes / e), t);
          for (std::int64_t r = 0; r < s.rows; ++r)
            for (std::size_t b = 0; b < s.cols * e; ++b) block[r * s.cols * e + b] = a[(in_first + r * in_pitch) * e + b];
          tlab::reference_transpose(block.data(), block_t.data(), s, e);
          for (std::int64_t r = 0; r < s.cols; ++r)
            for (std::size_t b = 0; b < s.rows * e; ++b) want[(out_first + r * out_pitch) * e + b] = block_t[r * s.rows * e + b];
          unsigned char* da = to_device(a);
          unsigned char* db = to_device(std::vector<unsigned char>(out_bytes, kPoison));
          tlab::Operands op;
          op.in = da + in_first * e;
          op.out = db + out_first * e;
          op.shape = s;
          op.in_pitch = in_pitch;
          op.out_pitch = out_pitch;
          CHECK_NOTHROW(v.kernels.at(t)(op));
          CHECK(to_host(db, out_bytes) == want);
          cudaFree(da);
          cudaFree(db);
          ++checked;
        }
  }
  CHECK(checked >= 2 * 6 * 6 * 6);  // two variants or more, six types, six shapes, six placings
}

TEST_CASE("the row copy moves a block between pitched buffers, any alignment, nothing else touched") {
  int checked = 0;
  for (std::int64_t width : {1, 3, 16, 24, 47, 64, 79, 100, 4104, 70001})
    for (std::int64_t rows : {1, 7, 300})
      for (auto [from, to] : {std::pair<Placing, Placing>{{0, 0}, {0, 0}}, {{16, 16}, {32, 0}}, {{5, 5}, {3, 1}}, {{8, 4}, {24, 2}}}) {
        CAPTURE(width);
        CAPTURE(rows);
        CAPTURE(from.pad);
        CAPTURE(to.pad);
        const std::int64_t src_pitch = width + from.pad, dst_pitch = width + to.pad;
        std::vector<unsigned char> src((rows + 1) * src_pitch), want((rows + 2) * dst_pitch, kPoison);
        tlab::fill_random(src.data(), static_cast<std::int64_t>(src.size()), tlab::DType::u8);
        for (std::int64_t r = 0; r < rows; ++r)
          for (std::int64_t b = 0; b < width; ++b)
            want[(r + 1) * dst_pitch + to.offset + b] = src[(r + 1) * src_pitch + from.offset + b];
        unsigned char* ds = to_device(src);
        unsigned char* dd = to_device(std::vector<unsigned char>(want.size(), kPoison));
        tlab::gpu::copy_rows(dd + dst_pitch + to.offset, dst_pitch, ds + src_pitch + from.offset, src_pitch, width, rows,
                             nullptr);
        CHECK(to_host(dd, want.size()) == want);
        cudaFree(ds);
        cudaFree(dd);
        ++checked;
      }
  CHECK(checked == 10 * 3 * 4);
}
