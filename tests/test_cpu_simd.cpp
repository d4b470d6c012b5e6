// The SIMD transposes, the copy roofline and the run-time choice of instruction set: every
// new kernel exact for every element size on odd and prime shapes, on each path this CPU can
// take (forced through TLAB_CPU_ISA, so the paths this machine would not choose are run too),
// with and without non-temporal stores, aligned or not, on one thread and on all.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "support.hpp"
#include "tlab/cpu/cpu_dispatch.hpp"
#include "tlab/cpu/simd_transpose.hpp"
#include "tlab/cpu/threads.hpp"
#include "tlab/machine_facts.hpp"
#include "tlab/reference.hpp"

using namespace tlab;
using tlab_test::cpu_executor;
using tlab_test::full_registry;
using tlab_test::ScopedEnv;

namespace {

// Odd, prime and edge shapes around the tile (2..16), line square (4..64) and block (64)
// sizes; 1 x n and n x 1 both within one block and across many.
const std::vector<Shape>& odd_shapes() {
  static const std::vector<Shape> s{{1, 1},   {1, 37},   {37, 1},    {1, 1031},   {1031, 1}, {7, 13},  {13, 7},
                                    {16, 16}, {17, 17},  {61, 67},   {64, 64},    {65, 63},  {127, 129}, {257, 1031}};
  return s;
}
const std::vector<std::int64_t>& square_sides() {
  static const std::vector<std::int64_t> n{1, 2, 3, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 67, 128, 131, 257};
  return n;
}

std::vector<const Variant*> simd_variants() {
  std::vector<const Variant*> out;
  for (const char* g : {"cpu/simd/*", "cpu/simd-inplace/*"})
    for (const Variant* v : full_registry().matching(g)) out.push_back(v);
  return out;
}

// Every shape a variant accepts (square sides in place), each element type, via the executor:
// fresh random data, output poisoned with the complement of the expected result.
std::size_t verify_all_shapes(const Variant& v) {
  std::size_t n = 0;
  std::vector<Shape> shapes;
  if (v.placement == Placement::in_place)
    for (std::int64_t k : square_sides()) shapes.push_back({k, k});
  else
    shapes = odd_shapes();
  for (DType t : v.dtypes())
    for (Shape s : shapes) {
      CAPTURE(v.name + " " + dtype_name(t) + " " + to_string(s));
      CHECK_NOTHROW(cpu_executor().verify({&v, t, s}));
      ++n;
    }
  return n;
}

struct Buffer {
  struct Free {
    void operator()(unsigned char* p) const { std::free(p); }
  };
  std::unique_ptr<unsigned char, Free> p;
  explicit Buffer(std::size_t bytes) : p(static_cast<unsigned char*>(std::aligned_alloc(64, (bytes + 127) / 64 * 64))) {}
};

// An element type of each size the kernels take.
DType type_of_size(std::size_t elem) {
  return elem == 1 ? DType::u8 : elem == 2 ? DType::u16 : elem == 4 ? DType::f32 : elem == 8 ? DType::f64 : DType::c128;
}

// simd_transpose called directly at a chosen byte offset from 64-byte alignment; "" when exact.
std::string direct(const cpu::SimdPlan& plan, Shape s, std::size_t elem, std::size_t offset) {
  const std::size_t bytes = static_cast<std::size_t>(s.elements()) * elem;
  Buffer in(bytes + offset), out(bytes + offset), want(bytes);
  unsigned char* src = in.p.get() + offset;
  unsigned char* dst = out.p.get() + offset;
  const DType t = type_of_size(elem);
  fill_random(src, s.elements(), t);
  reference_transpose(src, want.p.get(), s, elem);
  poison_against(dst, want.p.get(), bytes);
  cpu::simd_transpose(plan, src, dst, s, elem);
  return compare_exact(dst, want.p.get(), s.transposed(), elem);
}

const std::vector<std::size_t> kElemSizes{1, 2, 4, 8, 16};

}  // namespace

TEST_SUITE("simd") {

TEST_CASE("the registry holds the copies and the SIMD transposes at @1t and @all, and each ISA only where the CPU has it") {
  const Registry& r = full_registry();
  for (const char* base : {"cpu/copy/memcpy", "cpu/copy/stream", "cpu/simd/auto", "cpu/simd-inplace/auto"})
    for (const char* t : {"@1t", "@all"}) {
      const std::string name = std::string(base) + t;
      CAPTURE(name);
      const Variant* v = r.find(name);
      REQUIRE(v != nullptr);
      CHECK(v->dtypes().size() == all_dtypes().size());
      CHECK(v->param("threads") == std::to_string(cpu::thread_count(std::string(t) == "@1t" ? cpu::Threads::one : cpu::Threads::all)));
    }
  CHECK(r.get("cpu/copy/memcpy@1t").produces == Produces::copy);
  CHECK(r.get("cpu/simd-inplace/auto@1t").placement == Placement::in_place);
  const auto& have = cpu::available_isas();
  CHECK(have.front() == cpu::Isa::scalar);
  for (cpu::Isa isa : {cpu::Isa::avx2, cpu::Isa::avx512, cpu::Isa::neon}) {
    const bool on_cpu = std::find(have.begin(), have.end(), isa) != have.end();
    for (const char* t : {"@1t", "@all"}) {
      CHECK((r.find(std::string("cpu/simd/") + cpu::isa_name(isa) + t) != nullptr) == on_cpu);
      CHECK((r.find(std::string("cpu/simd-inplace/") + cpu::isa_name(isa) + t) != nullptr) == on_cpu);
    }
  }
  MESSAGE("instruction sets here: " << have.size() << ", best " << cpu::isa_name(cpu::best_isa()));
}

TEST_CASE("every SIMD variant is exact for every element type on odd, prime and block-edge shapes") {
  std::size_t checked = 0;
  for (const Variant* v : simd_variants()) checked += verify_all_shapes(*v);
  CHECK(checked > 500);
}

TEST_CASE("the auto variants are exact on every path this CPU can run, each forced through TLAB_CPU_ISA") {
  for (cpu::Isa isa : cpu::available_isas()) {
    ScopedEnv force("TLAB_CPU_ISA", cpu::isa_name(isa));
    CAPTURE(std::string(cpu::isa_name(isa)));
    // The request is what the auto variants resolve to, and the table they get is that path's.
    REQUIRE(cpu::isa_from_environment() == isa);
    CHECK(std::string(cpu::kernels_for(cpu::isa_from_environment()).isa) == cpu::isa_name(isa));
    for (const char* name : {"cpu/simd/auto@1t", "cpu/simd/auto@all", "cpu/simd-inplace/auto@1t", "cpu/simd-inplace/auto@all"})
      CHECK(verify_all_shapes(full_registry().get(name)) > 50);
  }
}

TEST_CASE("TLAB_CPU_ISA refuses an unknown name, and a path the CPU lacks, naming the choices") {
  using cpu::Isa;
  const std::vector<Isa> scalar_only{Isa::scalar};
  CHECK(cpu::resolve_isa("", scalar_only) == Isa::scalar);
  CHECK(cpu::resolve_isa("", {Isa::scalar, Isa::avx2}) == Isa::avx2);
  CHECK(cpu::resolve_isa("scalar", {Isa::scalar, Isa::avx2, Isa::avx512}) == Isa::scalar);
  CHECK(cpu::resolve_isa("avx2", {Isa::scalar, Isa::avx2, Isa::avx512}) == Isa::avx2);
  CHECK_THROWS_WITH_AS(cpu::resolve_isa("avx512", {Isa::scalar, Isa::avx2}),
                       doctest::Contains("available here: scalar, avx2"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(cpu::resolve_isa("avx2", scalar_only), doctest::Contains("no avx2 path"), std::invalid_argument);
  CHECK(cpu::resolve_isa("neon", {Isa::scalar, Isa::neon}) == Isa::neon);
  CHECK_THROWS_WITH_AS(cpu::resolve_isa("neon", {Isa::scalar, Isa::avx2}), doctest::Contains("no neon path"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(cpu::resolve_isa("sse9", scalar_only), doctest::Contains("not an instruction set"),
                       std::invalid_argument);
  // Through a variant: the experiment runner turns std::invalid_argument into exit code 2.
  ScopedEnv bogus("TLAB_CPU_ISA", "sse9");
  CHECK_THROWS_AS(cpu_executor().verify({&full_registry().get("cpu/simd/auto@1t"), DType::f32, {8, 8}}),
                  std::invalid_argument);
}

TEST_CASE("non-temporal stores give the same exact transpose, and fall back to plain stores when not aligned") {
  for (cpu::Isa isa : cpu::available_isas())
    for (std::size_t elem : kElemSizes)
      for (cpu::Streaming st : {cpu::Streaming::always, cpu::Streaming::never})
        for (std::size_t offset : {std::size_t{0}, elem})  // elem: aligned to itself only
          for (Shape s : {Shape{64, 64}, Shape{128, 96}, Shape{61, 67}, Shape{257, 131}}) {
            cpu::SimdPlan plan;
            plan.kernels = &cpu::kernels_for(isa);
            plan.streaming = st;
            CAPTURE(std::string(cpu::isa_name(isa)) + " elem " + std::to_string(elem) + " offset " + std::to_string(offset) +
                    (st == cpu::Streaming::always ? " stream " : " plain ") + to_string(s));
            CHECK(direct(plan, s, elem, offset) == "");
          }
}

TEST_CASE("block sizes that are not multiples of the line square are rounded to one, and stay exact") {
  for (cpu::Isa isa : cpu::available_isas())
    for (std::int64_t block : {1, 15, 16, 40, 100, 1000}) {
      cpu::SimdPlan plan;
      plan.kernels = &cpu::kernels_for(isa);
      plan.block = block;
      plan.threads = 2;
      for (std::size_t elem : kElemSizes) {
        CAPTURE(std::string(cpu::isa_name(isa)) + " block " + std::to_string(block) + " elem " + std::to_string(elem));
        CHECK(direct(plan, {131, 203}, elem, 0) == "");
      }
    }
}

TEST_CASE("in place, blocks of several line squares (their own mirror squares inside a diagonal block) stay exact") {
  // Blocks of 1 to 16 line squares a side (rounded), over sides that leave strips of tiles and
  // of single elements past the last whole square.
  for (cpu::Isa isa : cpu::available_isas())
    for (std::int64_t block : {64, 130, 200, 1000})
      for (std::int64_t n : {128, 200, 457})
        for (std::size_t elem : kElemSizes) {
          cpu::SimdPlan plan;
          plan.kernels = &cpu::kernels_for(isa);
          plan.block = block;
          plan.threads = 2;
          const std::size_t bytes = static_cast<std::size_t>(n * n) * elem;
          Buffer a(bytes), want(bytes);
          const DType t = type_of_size(elem);
          fill_random(a.p.get(), n * n, t);
          reference_transpose(a.p.get(), want.p.get(), {n, n}, elem);
          cpu::simd_transpose_in_place(plan, a.p.get(), n, elem);
          CAPTURE(std::string(cpu::isa_name(isa)) + " block " + std::to_string(block) + " n " + std::to_string(n) +
                  " elem " + std::to_string(elem));
          CHECK(compare_exact(a.p.get(), want.p.get(), {n, n}, elem) == "");
        }
}

TEST_CASE("streaming starts above the last-level cache of the environment record, with a fallback when none is recorded") {
  using F = std::vector<Fact>;
  const auto t3 = cpu::streaming_threshold(F{{"cache_l2", "1024K", "sysfs"}, {"cache_l3", "32768K", "sysconf"}});
  CHECK(t3.bytes == (std::size_t{32768} << 10));
  CHECK(t3.from == "cache_l3 (sysconf)");
  // A CPU without an L3: its L2 is the last level.
  const auto t2 = cpu::streaming_threshold(F{{"cache_l2", "2048K", "cpuid"}, {"cache_l3", "", ""}});
  CHECK(t2.bytes == (std::size_t{2048} << 10));
  CHECK(t2.from == "cache_l2 (cpuid)");
  // Nothing recorded (no sysfs, no sysconf answer, no CPUID), or a value that is no size.
  for (const F& none : {F{}, F{{"cache_l3", "", ""}}, F{{"cache_l3", "big", "procfs"}}}) {
    const auto t = cpu::streaming_threshold(none);
    CHECK(t.bytes == cpu::kFallbackStreamingBytes);
    CHECK(t.from.rfind("fallback", 0) == 0);
  }
  // This machine's threshold comes from its own facts, and env.json says where from.
  CHECK(cpu::streaming_threshold().bytes == cpu::streaming_threshold(machine_facts()).bytes);
  const Fields env = cpu_executor().describe();
  CHECK(std::count_if(env.begin(), env.end(), [](const auto& kv) { return kv.first == "cpu_stream_threshold_from"; }) == 1);
}

TEST_CASE("streamed outputs are exact at all threads, in and out of place") {
  // Streaming forced (the automatic choice streams only outputs larger than the last-level
  // cache, which a test cannot afford on every machine), the work split over all threads.
  cpu::SimdPlan plan;
  plan.kernels = &cpu::kernels_for(cpu::best_isa());
  plan.streaming = cpu::Streaming::always;
  plan.threads = cpu::thread_count(cpu::Threads::all);
  for (std::size_t elem : kElemSizes) {
    CAPTURE(elem);
    CHECK(direct(plan, {1024, 768}, elem, 0) == "");
  }
  CHECK_NOTHROW(cpu_executor().verify({&full_registry().get("cpu/simd/auto@all"), DType::f32, {2048, 1536}}));
  CHECK_NOTHROW(cpu_executor().verify({&full_registry().get("cpu/simd-inplace/auto@all"), DType::f32, {2048, 2048}}));
}

TEST_CASE("parallel_ranges covers [0, n) once, in ranges on grain boundaries, and passes exceptions back") {
  for (int threads : {1, 2, 3, 8})
    for (std::int64_t n : {1, 5, 64, 1000, 4097})
      for (std::int64_t grain : {1, 7, 64, 4096}) {
        std::vector<int> seen(static_cast<std::size_t>(n), 0);
        std::vector<std::pair<std::int64_t, std::int64_t>> ranges(64);
        std::size_t count = 0;
        cpu::parallel_ranges(threads, n, grain, [&](std::int64_t b, std::int64_t e) {
          for (std::int64_t k = b; k < e; ++k) __atomic_fetch_add(&seen[static_cast<std::size_t>(k)], 1, __ATOMIC_RELAXED);
          ranges[__atomic_fetch_add(&count, 1, __ATOMIC_RELAXED)] = {b, e};
        });
        CAPTURE(std::to_string(threads) + " threads, n " + std::to_string(n) + ", grain " + std::to_string(grain));
        CHECK(std::count(seen.begin(), seen.end(), 1) == n);
        CHECK(count >= 1);
        CHECK(count <= static_cast<std::size_t>(threads));
        for (std::size_t k = 0; k < count; ++k) {
          CHECK(ranges[k].first < ranges[k].second);
          CHECK((ranges[k].first % grain == 0));
        }
      }
  CHECK_THROWS_AS(cpu::parallel_ranges(2, 100, 1, [](std::int64_t b, std::int64_t) {
                    if (b > 0) throw std::runtime_error("second range");
                  }),
                  std::runtime_error);
}

TEST_CASE("the copies leave an exact copy at every element size, threaded or not") {
  for (const Variant* v : full_registry().matching("cpu/copy/*"))
    for (DType t : v->dtypes())
      for (Shape s : {Shape{1, 1}, Shape{7, 13}, Shape{257, 1031}, Shape{1031, 1031}}) {
        CAPTURE(v->name + " " + dtype_name(t) + " " + to_string(s));
        CHECK_NOTHROW(cpu_executor().verify({v, t, s}));
      }
}

TEST_CASE("the library peers, where built, are exact on odd shapes and squares") {
  const auto peers = full_registry().matching("cpu/peer/*");
  if (peers.empty()) MESSAGE("no OpenBLAS or Eigen in this build: the peer variants are absent");
  for (const Variant* v : peers) verify_all_shapes(*v);
}

}  // TEST_SUITE("simd")
