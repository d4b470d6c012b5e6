// The CPU's roofline for a transpose: the same bytes read and written with no reordering,
// on the same buffers and sizes as the transposes, at one thread and at all threads.
// cpu/copy/memcpy is the C library's copy; cpu/copy/stream is STREAM's "Copy" kernel, a
// plain element loop. meson builds this file with -fno-tree-loop-distribute-patterns: with
// it GCC would turn the loop back into a call to memcpy and the two rows would be one.
#include <algorithm>
#include <cstring>

#include "tlab/cpu/cpu_families.hpp"
#include "tlab/cpu/threads.hpp"

namespace tlab {

namespace {
// Chunks start on 4 KiB of the source so that no two threads share a page or a line.
constexpr std::int64_t kChunkBytes = 4096;

template <typename T> void stream_copy(const T* __restrict in, T* __restrict out, std::int64_t n) {
  for (std::int64_t k = 0; k < n; ++k) out[k] = in[k];
}

void add_copy(Registry& r, const std::string& kind, cpu::Threads t, std::string note, KernelFn (*make)(DType, int)) {
  Variant v = threaded_variant("cpu/copy/" + kind, "cpu-copy", Placement::out_of_place, t, {{"copy", kind}},
                               std::move(note));
  v.produces = Produces::copy;
  for (DType d : all_dtypes()) v.kernels[d] = make(d, cpu::thread_count(t));
  r.add(std::move(v));
}

KernelFn memcpy_kernel(DType d, int threads) {
  const std::int64_t elem = static_cast<std::int64_t>(dtype_size(d));
  return [elem, threads](const Operands& op) {
    const auto* in = static_cast<const unsigned char*>(op.in);
    auto* out = static_cast<unsigned char*>(op.out);
    cpu::parallel_ranges(threads, op.shape.elements() * elem, kChunkBytes, [&](std::int64_t b, std::int64_t e) {
      std::memcpy(out + b, in + b, static_cast<std::size_t>(e - b));
    });
  };
}

KernelFn stream_kernel(DType d, int threads) {
  return dispatch_dtype(d, [threads](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [threads](const Operands& op) {
      const T* in = static_cast<const T*>(op.in);
      T* out = static_cast<T*>(op.out);
      const std::int64_t grain = std::max<std::int64_t>(1, kChunkBytes / static_cast<std::int64_t>(sizeof(T)));
      cpu::parallel_ranges(threads, op.shape.elements(), grain,
                           [&](std::int64_t b, std::int64_t e) { stream_copy(in + b, out + b, e - b); });
    };
  });
}
}  // namespace

void register_cpu_copy_variants(Registry& r) {
  for (cpu::Threads t : cpu::thread_policies()) {
    add_copy(r, "memcpy", t, "the C library's memcpy of the whole matrix (threaded: one contiguous chunk per thread)",
             memcpy_kernel);
    add_copy(r, "stream", t, "STREAM's Copy: an element loop out[k] = in[k] (threaded: one contiguous chunk per thread)",
             stream_kernel);
  }
}

}  // namespace tlab
