#include "tlab/sort/sort_variants.hpp"

#include <atomic>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "tlab/sort/gpu_sort.hpp"
#include "tlab/sort/matrix_sort.hpp"

namespace tlab::sort {

namespace {
template <typename T> MatrixView<T> view(void* p, Shape s) { return MatrixView<T>(static_cast<T*>(p), s.rows, s.cols); }

unsigned hardware_threads() { return std::max(1u, std::thread::hardware_concurrency()); }
}  // namespace

const std::vector<DType>& sort_types() {
  static const std::vector<DType> t{DType::i32, DType::f32, DType::f64};
  return t;
}

const std::vector<SortVariant>& sort_variants() {
  static const std::vector<SortVariant> v{
      {"cpu/sort-sequential", "sort each row, then each column through a transpose; one thread", 1,
       [](DType t, void* p, Shape s) {
         with_sort_type(t, [&](auto tag) { sort_matrix_sequential(view<decltype(tag)>(p, s)); });
         return 1;
       }},
      {"cpu/sort-threaded", "the same, rows and transposes split over all hardware threads", hardware_threads(),
       [](DType t, void* p, Shape s) {
         with_sort_type(t, [&](auto tag) { sort_matrix_threaded(view<decltype(tag)>(p, s), hardware_threads()); });
         return 1;
       }},
      {"cpu/sort-seed-loop", "seed 003's loop: sort rows, transpose, sort rows, transpose, check, until sorted", 1,
       [](DType t, void* p, Shape s) {
         return with_sort_type(t, [&](auto tag) { return sort_matrix_seed_loop(view<decltype(tag)>(p, s), 64); });
       }},
  };
  return v;
}

const std::vector<std::string>& gpu_row_sorts() {
  static const std::vector<std::string> v{"thread-bubble", "thread-merge", "block-oddeven", "block-bitonic",
                                          "cub-segmented-radix", "cub-segmented-sort"};
  return v;
}

const char* sort_memory_name(SortMemory m) {
  switch (m) {
    case SortMemory::device: return "device";
    case SortMemory::pinned: return "pinned";
    case SortMemory::pageable: return "pageable";
    case SortMemory::managed: return "managed";
    case SortMemory::managed_prefetch: return "managed-prefetch";
  }
  return "?";
}

// Both checks split the rows over all hardware threads: at 16384^2 a single thread spends
// seconds per check, and experiment 11 checks every configuration. The fingerprint's parts (a
// sum and an xor of hashes) do not depend on the order of the elements, so per-thread parts
// combine into the same value.
std::uint64_t multiset_fingerprint(const void* data, std::int64_t count, DType t) {
  const std::size_t e = dtype_size(t);
  const auto* p = static_cast<const unsigned char*>(data);
  std::mutex m;
  std::uint64_t total_sum = 0, total_mix = 0;
  detail::split_rows(count, hardware_threads(), [&](std::int64_t lo, std::int64_t hi) {
    std::uint64_t sum = 0, mix = 0;
    for (std::int64_t i = lo; i < hi; ++i) {
      std::uint64_t x = 0;
      std::memcpy(&x, p + i * e, std::min<std::size_t>(e, 8));
      // splitmix64 finaliser: spreads every bit so that sums of different multisets differ.
      x += 0x9E3779B97F4A7C15ull;
      x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
      x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
      x ^= x >> 31;
      sum += x;
      mix ^= x * 0xD6E8FEB86659FD93ull;
    }
    const std::lock_guard<std::mutex> lock(m);
    total_sum += sum;
    total_mix ^= mix;
  });
  return total_sum ^ (total_mix << 1);
}

bool rows_and_columns_sorted(const void* data, Shape s, DType t) {
  return with_sort_type(t, [&](auto tag) {
    using T = decltype(tag);
    const MatrixView<const T> v(static_cast<const T*>(data), s.rows, s.cols);
    std::atomic<bool> ok{true};
    // Each slice checks its rows against their left and upper neighbours (the first row of a
    // slice against the last of the previous one).
    detail::split_rows(s.rows, hardware_threads(), [&](std::int64_t r0, std::int64_t r1) {
      const less<T> lt;
      for (std::int64_t i = r0; i < r1 && ok; ++i)
        for (std::int64_t j = 0; j < s.cols; ++j)
          if ((j > 0 && lt(v(i, j), v(i, j - 1))) || (i > 0 && lt(v(i, j), v(i - 1, j)))) {
            ok = false;
            break;
          }
    });
    return ok.load();
  });
}

}  // namespace tlab::sort
