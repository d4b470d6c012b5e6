// GPU suite: every GPU variant against the CPU reference. Exits 77 (skip) without a device.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <numeric>
#include <iostream>
#include <string>
#include <vector>

#include "tlab/executor.hpp"
#include "tlab/experiment.hpp"
#include "tlab/gpu/word_inplace.cuh"
#include "tlab/reference.hpp"
#include "guarded_in_place.hpp"

namespace {
tlab::Executor& gpu() { return *tlab::executor_for(tlab::Backend::gpu, nullptr); }

// Under compute-sanitizer everything runs tens of times slower: TLAB_GPU_TEST_SMALL keeps
// the shapes that exercise edges and drops the large ones.
bool small_only() { return std::getenv("TLAB_GPU_TEST_SMALL") != nullptr; }

// 515 x 513 and 2049 x 2051: interior tiles of every word size whose rows start off a word
// (the shifted path), and a last row whose shifted load would read past the matrix. 1001 and
// 2051 squares: the same for the in-place kernels, with interior tile pairs at every offset.
std::vector<tlab::Shape> awkward_shapes() {
  std::vector<tlab::Shape> s{{1, 1}, {1, 7}, {7, 1}, {2, 2}, {31, 33}, {33, 31}, {97, 101}, {100, 100}, {129, 129}, {17, 1000}, {515, 513}, {1001, 1001}};
  if (!small_only()) {
    // Non-multiples of every tile, and more tile rows than gridDim.y allows (65535).
    for (tlab::Shape x : {tlab::Shape{1000, 17}, {257, 255}, {1000, 1000}, {4000, 4000}, {2049, 2051}, {2051, 2051}, {70001, 5}, {5, 70001}, {2100001, 1}})
      s.push_back(x);
  }
  return s;
}
}  // namespace

TEST_CASE("every GPU variant matches the CPU reference on awkward shapes, for every element type") {
  int checked = 0;
  // TLAB_GPU_TEST_ONLY=glob,glob narrows the sweep (compute-sanitizer runs on the new kernels).
  const char* only = std::getenv("TLAB_GPU_TEST_ONLY");
  std::vector<std::string> globs;
  for (std::string rest = only ? only : ""; !rest.empty();) {
    const auto comma = rest.find(',');
    globs.push_back(rest.substr(0, comma));
    rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
  }
  auto selected = [&](const std::string& name) {
    for (const auto& g : globs)
      if (tlab::glob_match(g, name)) return true;
    return globs.empty();
  };
  for (const tlab::Variant& v : tlab::registry().all()) {
    if (v.backend != tlab::Backend::gpu || v.known_wrong) continue;
    if (!selected(v.name)) continue;
    for (tlab::DType t : v.dtypes())
      for (tlab::Shape s : awkward_shapes()) {
        if (!v.refuses(t, s).empty()) continue;
        CAPTURE(v.name);
        const std::string type = tlab::dtype_name(t);
        CAPTURE(type);
        CAPTURE(tlab::to_string(s));
        CHECK_NOTHROW(gpu().verify({&v, t, s}));
        ++checked;
      }
  }
  CHECK(checked > (only ? 0 : 500));
}

// The TMA variants take only rows of whole 16-byte units, so the awkward shapes above mostly
// pass them by; here every shape is in units of u = 16 / S elements: one box, boxes cut by
// both edges, one with more column tiles (8 u columns each) than gridDim.y holds, so that a
// block loops (the barrier's phase, the next tile's load, the output tile's reuse), and unless
// small a tall one. Devices or builds without a TMA refuse every shape, and the test says so.
TEST_CASE("TMA variants match the CPU reference on 16-byte rows cut by every edge, and refuse other rows") {
  int checked = 0;
  for (const tlab::Variant* v : tlab::registry().matching("gpu/tma/*"))
    for (tlab::DType t : v->dtypes()) {
      const std::int64_t u = 16 / static_cast<std::int64_t>(tlab::dtype_size(t));
      if (const std::string why = v->refuses(t, {u, u}); why.find("compute capability") != std::string::npos) {
        MESSAGE("left out: " << why);
        return;
      }
      std::vector<tlab::Shape> shapes{{u, u}, {3 * u, 5 * u}, {17 * u, 33 * u}, {129 * u, 65 * u}, {2 * u, 4100 * u}, {4100 * u, 2 * u}};
      // 134 MB / S: under the sanitizers only for 8 and 16 bytes
      if (!small_only() || u <= 2) shapes.push_back({u, 65536 * 8 * u + 8 * u});
      if (!small_only()) shapes.push_back({70000 * 8 * u + 3 * u, u});
      for (tlab::Shape s : shapes) {
        CAPTURE(v->name);
        const std::string type = tlab::dtype_name(t);
        CAPTURE(type);
        CAPTURE(tlab::to_string(s));
        REQUIRE(v->refuses(t, s).empty());
        CHECK_NOTHROW(gpu().verify({v, t, s}));
        ++checked;
      }
      if (u > 1) {
        CHECK(v->refuses(t, {u + 1, u}).find("16-byte") != std::string::npos);
        CHECK_THROWS_AS(gpu().verify({v, t, {u, u + 1}}), std::invalid_argument);
      }
    }
  CHECK(checked >= 6 * 6 + 2);  // one variant or more, six types, six shapes or more, the loop for two types
}

// The TMA needs both matrices on 16-byte boundaries; a pointer into an allocation need not
// be on one (an 8-byte offset for doubles is legal input), and the variant must still transpose.
TEST_CASE("TMA variants transpose matrices that start off a 16-byte boundary") {
  for (const tlab::Variant* v : tlab::registry().matching("gpu/tma/*")) {
    const tlab::Shape s{34, 66};  // rows of whole 16-byte units
    if (!v->refuses(tlab::DType::f64, s).empty()) continue;
    const std::size_t n = static_cast<std::size_t>(s.elements());
    std::vector<double> in(n), got(n), want(n);
    tlab::fill_random(in.data(), static_cast<std::int64_t>(n), tlab::DType::f64);
    tlab::reference_transpose(in.data(), want.data(), s, sizeof(double));
    double *din = nullptr, *dout = nullptr;
    REQUIRE(cudaMalloc(&din, (n + 1) * sizeof(double)) == cudaSuccess);
    REQUIRE(cudaMalloc(&dout, (n + 1) * sizeof(double)) == cudaSuccess);
    REQUIRE(cudaMemcpy(din + 1, in.data(), n * sizeof(double), cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemset(dout, 0xff, (n + 1) * sizeof(double)) == cudaSuccess);
    tlab::Operands op;
    op.in = din + 1;
    op.out = dout + 1;
    op.shape = s;
    CHECK_NOTHROW(v->kernels.at(tlab::DType::f64)(op));
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    REQUIRE(cudaMemcpy(got.data(), dout + 1, n * sizeof(double), cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(std::memcmp(got.data(), want.data(), n * sizeof(double)) == 0);
    cudaFree(din);
    cudaFree(dout);
  }
}

// The output-order kernels loop over column tiles through gridDim.y: one row of more tiles
// than gridDim.y holds, for the smallest (32) and largest (256 bytes of words) tile widths.
TEST_CASE("output-order GPU variants loop over more column tiles than gridDim.y holds") {
  if (small_only()) return;
  int checked = 0;
  for (const char* glob : {"gpu/word/*-out", "gpu/unrolled/*-out"})
    for (const tlab::Variant* v : tlab::registry().matching(glob))
      for (tlab::DType t : {tlab::DType::u8, tlab::DType::f32, tlab::DType::c128}) {
        if (!v->supports(t)) continue;
        const tlab::Shape s{1, 65536 * 256 + 1};
        CAPTURE(v->name);
        const std::string type = tlab::dtype_name(t);
        CAPTURE(type);
        CHECK_NOTHROW(gpu().verify({v, t, s}));
        ++checked;
      }
  CHECK(checked >= 3);
}

TEST_CASE("in-place GPU variants refuse non-square matrices") {
  for (const tlab::Variant& v : tlab::registry().all())
    if (v.backend == tlab::Backend::gpu && v.placement == tlab::Placement::in_place && !v.any_shape)
      CHECK_THROWS_AS(gpu().verify({&v, tlab::DType::f32, {64, 32}}), std::invalid_argument);
}

// What seed 002's kernel computes: every TILE x TILE tile transposed where it lies.
static std::vector<float> tiles_transposed_in_place(const std::vector<float>& a, std::int64_t n, std::int64_t tile) {
  std::vector<float> out(a);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const std::int64_t ti = i / tile * tile, tj = j / tile * tile;
      out[(ti + j - tj) * n + (tj + i - ti)] = a[i * n + j];
    }
  return out;
}

TEST_CASE("seed 002's in-place tiled kernel is a transpose only when the matrix is one tile") {
  int wrong = 0;
  for (const tlab::Variant* v : tlab::registry().matching("gpu/inplace-tiled-seed002/*")) {
    REQUIRE(v->known_wrong);
    const std::int64_t tile = std::atoll(v->param("block").c_str());
    CAPTURE(v->name);
    CHECK_NOTHROW(gpu().verify({v, tlab::DType::f32, {tile, tile}}));
    for (std::int64_t n : {2 * tile, 8 * tile}) {
      CAPTURE(n);
      CHECK_THROWS_AS(gpu().verify({v, tlab::DType::f32, {n, n}}), tlab::VerificationError);
      std::vector<float> in(n * n), got(n * n), want_t(n * n);
      tlab::fill_random(in.data(), n * n, tlab::DType::f32);
      gpu().apply({v, tlab::DType::f32, {n, n}}, in.data(), got.data());
      tlab::reference_transpose(in.data(), want_t.data(), {n, n}, sizeof(float));
      CHECK(std::memcmp(got.data(), want_t.data(), got.size() * sizeof(float)) != 0);
      const auto per_tile = tiles_transposed_in_place(in, n, tile);
      CHECK(std::memcmp(got.data(), per_tile.data(), got.size() * sizeof(float)) == 0);
      ++wrong;
    }
  }
  CHECK(wrong == 8);
}

TEST_CASE("a variant registered as wrong cannot be timed as a transpose") {
  tlab::Options opt;
  opt.experiment = "test";
  tlab::ExperimentRun run(opt);
  tlab::Sweep sweep{tlab::registry().matching("gpu/inplace-tiled-seed002/b16"), {tlab::DType::f32}, {{64, 64}}};
  CHECK_THROWS_AS(run.run(sweep), std::logic_error);
}

// `w8-ahead-filled` takes `w8-ahead` where the side is whole 256-byte tiles, the matrix starts
// on an 8-byte word and the pairs fill at least 95% of its rounds' block slots, else
// `w4-fetch256`. `w8-ahead`'s pair of 128 KiB keeps one block an SM (by its registers too), so
// its grid is the SM count and one tile fills one slot of it. The rule is checked at the first
// filling side on this GPU with the buffer off a word and with the side off the tiles, and
// pinned at sides whose fills a GPU of 132 SMs gives (an H100, an H200); each branch must be
// exact.
TEST_CASE("w8-ahead-filled: w8-ahead where its pairs fill its rounds, w4-fetch256 elsewhere, exact either way") {
  const tlab::Variant& v = tlab::registry().get("gpu/word-inplace/w8-ahead-filled");
  CHECK(v.dtypes() == std::vector<tlab::DType>{tlab::DType::u8});
  int dev = 0, sms = 0, optin = 0;
  REQUIRE(cudaGetDevice(&dev) == cudaSuccess);
  REQUIRE(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess);
  REQUIRE(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) == cudaSuccess);
  unsigned char* buf = nullptr;
  REQUIRE(cudaMalloc(&buf, 256) == cudaSuccess);
  const bool holds_pair = optin >= 128 * 1024;
  CHECK(tlab::gpu::ahead_rounds_fill_w8_uint8(0) == 0.0);
  std::vector<std::int64_t> sides{300, 1001};
  if (!holds_pair) {  // no `w8-ahead` block fits: always the fallback
    CHECK(tlab::gpu::ahead_rounds_fill_w8_uint8(8192) == 0.0);
    CHECK_FALSE(tlab::gpu::w8_ahead_filled_takes_ahead(buf, 8192));
  } else {
    CHECK(tlab::gpu::ahead_rounds_fill_w8_uint8(256) == doctest::Approx(1.0 / sms));
    if (sms == 132) {
      CHECK(tlab::gpu::ahead_rounds_fill_w8_uint8(5376) == doctest::Approx(231.0 / 264));  // 21 tiles
      CHECK(tlab::gpu::ahead_rounds_fill_w8_uint8(6144) == doctest::Approx(300.0 / 396));
      CHECK(tlab::gpu::ahead_rounds_fill_w8_uint8(8192) == doctest::Approx(1.0));
      CHECK(tlab::gpu::ahead_rounds_fill_w8_uint8(14336) == doctest::Approx(1596.0 / 1716));  // 0.930
      CHECK(tlab::gpu::ahead_rounds_fill_w8_uint8(16128) == doctest::Approx(2016.0 / 2112));  // 0.955
      CHECK_FALSE(tlab::gpu::w8_ahead_filled_takes_ahead(buf, 6144));
      CHECK_FALSE(tlab::gpu::w8_ahead_filled_takes_ahead(buf, 14336));
      CHECK(tlab::gpu::w8_ahead_filled_takes_ahead(buf, 16128));
      CHECK(tlab::gpu::w8_ahead_filled_takes_ahead(buf, 5632));  // the first side that fills
    }
    std::int64_t fills = 0;
    for (std::int64_t n = 256; n <= 64 * 256 && !fills; n += 256)
      if (tlab::gpu::w8_ahead_filled_takes_ahead(buf, n)) fills = n;
    REQUIRE(fills > 0);
    CAPTURE(fills);
    CHECK(tlab::gpu::ahead_rounds_fill_w8_uint8(fills - 255) == tlab::gpu::ahead_rounds_fill_w8_uint8(fills));
    CHECK_FALSE(tlab::gpu::w8_ahead_filled_takes_ahead(buf + 1, fills));  // off a word
    CHECK_FALSE(tlab::gpu::w8_ahead_filled_takes_ahead(buf, fills - 8));  // off the tiles, on words
    for (std::int64_t n : {fills, fills - 8, fills - 1}) sides.push_back(n);
  }
  REQUIRE(cudaFree(buf) == cudaSuccess);
  for (std::int64_t n : sides) {
    CAPTURE(n);
    CHECK_NOTHROW(gpu().verify({&v, tlab::DType::u8, {n, n}}));
  }
}

TEST_CASE("kernels index with 64 bits: a matrix of more than 2^31 elements") {
  if (small_only()) return;
  const tlab::Shape s{46341, 46341};  // 2,147,488,281 one-byte elements > 2^31
  const auto bytes = static_cast<std::size_t>(s.elements());
  for (const char* name :
       {"gpu/tiled/t32-pad", "gpu/naive-rowread/b16", "gpu/inplace-naive/b32", "gpu/word/sector-cut", "gpu/word-inplace/waves"}) {
    const tlab::Variant& v = tlab::registry().get(name);
    if (!v.supports(tlab::DType::u8)) continue;
    CAPTURE(name);
    CHECK_NOTHROW(gpu().verify({&v, tlab::DType::u8, s}));
  }
  CHECK(bytes > (std::size_t(1) << 31));
  // The -ahead pairs' register path needs rows on words: 46344 bytes are whole 8-byte words.
  const tlab::Shape w{46344, 46344};
  for (const char* name : {"gpu/word-inplace/w4-ahead", "gpu/word-inplace/w8-ahead"}) {
    const tlab::Variant& v = tlab::registry().get(name);
    CAPTURE(name);
    CHECK_NOTHROW(gpu().verify({&v, tlab::DType::u8, w}));
  }
}

TEST_CASE("the in-place block decomposition: tall, wide, 3:2, sides off every tile and word, every type") {
  std::vector<tlab::Shape> shapes{{4096, 16}, {16, 4096}, {3 * 97, 97}, {97, 5 * 97}, {1000, 1}, {1, 1000}, {66, 33},
                                  {300, 200}};
  if (!small_only())
    for (tlab::Shape x : {tlab::Shape{65536, 256}, {256, 65536}, {8192, 2048}, {3 * 1025, 1025}, {1030, 4 * 1030},
                          {1080, 1920}, {3000, 2000}, {7 * 129, 64 * 129}})
      shapes.push_back(x);
  for (const char* name : {"gpu/inplace-rect/blocks", "gpu/inplace-rect/blocks-b8"}) {
    const tlab::Variant& v = tlab::registry().get(name);
    CAPTURE(name);
    int verified = 0;
    for (tlab::DType t : v.dtypes())
      for (tlab::Shape s : shapes) {
        const std::string type = tlab::dtype_name(t);
        CAPTURE(type);
        CAPTURE(tlab::to_string(s));
        // Rows of blocks under 64 bytes (1 x n, small common factors) are c2r's.
        const std::int64_t g = std::gcd(s.rows, s.cols);
        if (g * static_cast<std::int64_t>(tlab::dtype_size(t)) < 64) {
          CHECK_FALSE(v.refuses(t, s).empty());
          CHECK_THROWS_AS(gpu().verify({&v, t, s}), std::invalid_argument);
          continue;
        }
        REQUIRE(v.refuses(t, s).empty());
        CHECK_NOTHROW(gpu().verify({&v, t, s}));
        ++verified;
      }
    CHECK(verified > (small_only() ? 20 : 60));
    CHECK_FALSE(v.refuses(tlab::DType::f32, {16381, 1021}).empty());  // two primes: c2r's
    CHECK_THROWS_AS(gpu().verify({&v, tlab::DType::f32, {16381, 1021}}), std::invalid_argument);
  }
}

TEST_CASE("in-place rectangular transposes index with 64 bits: more than 2^31 elements") {
  if (small_only()) return;
  // One side dividing the other (blocks), and two primes (c2r).
  for (auto [name, s] : std::vector<std::pair<const char*, tlab::Shape>>{{"gpu/inplace-rect/blocks", {4195328, 512}},
                                                                         {"gpu/inplace-rect/c2r", {65537, 32771}},
                                                                         {"gpu/inplace-rect/c2r-r256", {32771, 65537}},
                                                                         {"gpu/inplace-rect/c2r-grid", {65537, 32771}}}) {
    CAPTURE(name);
    CAPTURE(tlab::to_string(s));
    REQUIRE(s.elements() > (std::int64_t{1} << 31));
    const tlab::Variant& v = tlab::registry().get(name);
    CHECK_NOTHROW(gpu().verify({&v, tlab::DType::u8, s}));
  }
}

int main(int argc, char** argv) {
  std::string why;
  if (!tlab::executor_for(tlab::Backend::gpu, &why)) {
    std::cout << "SKIP: GPU tests need a CUDA device: " << why << "\n";
    return 77;
  }
  doctest::Context ctx(argc, argv);
  return ctx.run();
}

// The sector-cut kernel works from absolute addresses: buffers that start anywhere in a sector
// (element offsets 0 .. 5) must give the same transpose, and no byte outside the output may
// change, though its first and last words share sectors with the bytes around it.
TEST_CASE("the sector-cut kernel: buffers at any offset in a sector, nothing written outside the output") {
  const tlab::Variant& v = tlab::registry().get("gpu/word/sector-cut");
  const int expected = static_cast<int>(v.dtypes().size()) * 5 * 3 * 2;
  int checked = 0;
  for (tlab::DType t : v.dtypes())
    for (tlab::Shape s : {tlab::Shape{1, 7}, tlab::Shape{7, 1}, tlab::Shape{33, 31}, tlab::Shape{300, 301}, tlab::Shape{515, 513}})
      for (int in_off : {0, 1, 5})
        for (int out_off : {0, 3}) {
          const std::size_t e = tlab::dtype_size(t), bytes = s.elements() * e, guard = 128;
          CAPTURE(tlab::dtype_name(t));
          CAPTURE(tlab::to_string(s));
          CAPTURE(in_off);
          CAPTURE(out_off);
          std::vector<unsigned char> in(bytes), want(bytes + 2 * guard, 0x5A), got(bytes + 2 * guard);
          tlab::fill_random(in.data(), s.elements(), t);
          tlab::reference_transpose(in.data(), want.data() + guard + out_off * e, s, e);
          unsigned char *a = nullptr, *b = nullptr;
          REQUIRE(cudaMalloc(&a, bytes + 2 * guard) == cudaSuccess);
          REQUIRE(cudaMalloc(&b, bytes + 2 * guard) == cudaSuccess);
          REQUIRE(cudaMemcpy(a + guard + in_off * e, in.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
          REQUIRE(cudaMemset(b, 0x5A, bytes + 2 * guard) == cudaSuccess);
          tlab::Operands op;
          op.in = a + guard + in_off * e;
          op.out = b + guard + out_off * e;
          op.shape = s;
          v.kernels.at(t)(op);
          REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
          REQUIRE(cudaMemcpy(got.data(), b, got.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
          cudaFree(a);
          cudaFree(b);
          CHECK(got == want);
          ++checked;
        }
  CHECK(checked == expected);
}

// In place, a matrix that starts anywhere in a word must be transposed exactly, and no byte
// around it may change, though the kernels' loads and stores reach the words around each row
// piece. At offset 0 the odd sides take the rows-off-a-word paths (element runs, or the shifted
// loads of `-shifted`) and 300 the whole-word path for most element sizes; at offsets 1 and 3
// every side takes the element path (row_layout: a base off a word).
TEST_CASE("in-place word kernels: a matrix at any offset in a word, nothing written outside it") {
  int checked = 0;
  for (const tlab::Variant* v : tlab::registry().matching("gpu/word-inplace/*"))
    for (tlab::DType t : v->dtypes())
      for (std::int64_t n : {std::int64_t{7}, std::int64_t{129}, std::int64_t{300}, std::int64_t{301}, std::int64_t{1001}})
        for (int off : {0, 1, 3}) {
          CAPTURE(v->name);
          CAPTURE(tlab::dtype_name(t));
          CAPTURE(n);
          CAPTURE(off);
          CHECK(tlab_test::transposed_within_guards(t, {n, n}, off, 128, 0x5A, [&](unsigned char* m) {
            tlab::Operands op;
            op.in = op.out = m;
            op.shape = {n, n};
            v->kernels.at(t)(op);
          }));
          ++checked;
        }
  // Six variants of two to five types each when this was written (22 pairs; 17 variants
  // now, with `waves`, the `-ahead` pairs, the two-pair kernels and `w8-ahead-filled`): a
  // registry that lost most of them fails here.
  CHECK(checked >= 20 * 5 * 3);
}

// Every type of the in-place word variants matching `glob` at the sides `tiles` whole tiles of
// the variant's word plus each of `past` elements, at offset 0 with guard bytes around: the
// number of (variant, type, side) checked.
static int square_in_place_past_tiles(const char* glob, std::int64_t tiles, std::initializer_list<std::int64_t> past,
                                      unsigned char guard) {
  int checked = 0;
  for (const tlab::Variant* v : tlab::registry().matching(glob))
    for (tlab::DType t : v->dtypes()) {
      const std::int64_t side = 32 * std::stoll(v->param("word")) / static_cast<std::int64_t>(tlab::dtype_size(t));
      for (const std::int64_t p : past) {
        const std::int64_t n = tiles * side + p;
        CAPTURE(v->name);
        CAPTURE(tlab::dtype_name(t));
        CAPTURE(n);
        CHECK(tlab_test::transposed_within_guards(t, {n, n}, 0, 128, guard, [&](unsigned char* m) {
          tlab::Operands op;
          op.in = op.out = m;
          op.shape = {n, n};
          v->kernels.at(t)(op);
        }));
        ++checked;
      }
    }
  return checked;
}

// The two-pair kernels take whole items of two tile pairs one way (one held in registers in
// `-held`) and items on the diagonal, at the matrix's edge or with rows off a word another:
// a side that is a whole number of tiles, one 8 elements past (rows on words: inner items
// the first way, the last band the second) and one 7 past (rows off a word for elements
// narrower than the word). Six tiles a side under the sanitizers, still with inner items.
TEST_CASE("two pairs a block: inner, diagonal and edge items, rows on and off a word, nothing outside written") {
  const int checked = square_in_place_past_tiles("gpu/word-inplace/*-two-*", small_only() ? 6 : 40, {0, 8, 7}, 0x3C);
  // w4-two: uint8, uint16, int32, float; w8-two: int32, float, double; w8-two-held: int32, float;
  // w4-two-held: uint8.
  CHECK(checked >= (4 + 3 + 2 + 1) * 3);
}

// The `-edges` pairs take edge tiles of rows off a word by the inner tiles' paths with bounds
// where the edge is at least half a tile (reading on into the next row), and by the element
// path where it is thinner or at the corner: sides a whole tile past plus 127, 65, 64 and 63
// elements (for 128-element tiles: edges of 127, 65 and 64 take the bounded path, 63 does not),
// 33 and 31 (for 64-element tiles, either side of half) and 3, at offset 0 with guard bytes.
TEST_CASE("in-place pairs with bounded edge tiles: edges either side of half a tile, the corner, nothing outside written") {
  const int checked =
      square_in_place_past_tiles("gpu/word-inplace/*-edges*", small_only() ? 3 : 17, {127, 65, 64, 63, 33, 31, 3}, 0x6B);
  CHECK(checked >= (2 + 2 + 4) * 7);  // w4 in both orders: uint8, uint16; w8: uint8, uint16, int32, float
}

// The `-ahead` pairs hold a block's next pair in registers while they store the present one,
// so a block must walk several pairs for that path to run at all: at 66 whole tiles a side
// and a part (67 tiles, 2278 pairs) every block walks two or more on a GPU of up to 132 SMs
// at eight blocks each; 24 and a part (325 pairs) under the sanitizers, still two or more for
// the pairs that keep one block an SM. Sides 8 elements past the tiles keep rows on words, so
// that inner pairs go through the registers and edge pairs load directly in one walk; sides 7
// past put rows off a word for elements narrower than the word, the element-run path.
TEST_CASE("in-place pairs with the next pair ahead: blocks that walk many pairs, inner and edge, nothing outside written") {
  const int checked = square_in_place_past_tiles("gpu/word-inplace/*-ahead", small_only() ? 24 : 66, {8, 7}, 0xA5);
  CHECK(checked >= 3 * 3 * 2);  // three words, three or more types each, two sides
}
