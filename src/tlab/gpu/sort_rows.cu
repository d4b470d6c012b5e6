#include <cub/device/device_segmented_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include <climits>
#include <stdexcept>

#include "tlab/gpu/launch.cuh"
#include "tlab/gpu/sort_rows.cuh"
#include "tlab/sort/ordered_keys.hpp"
#include "tlab/sort/sort_variants.hpp"

namespace tlab::gpu::sort {
namespace {

// One thread per row, in global memory, with the usual early exit when a sweep swaps nothing.
template <typename K> __global__ void bubble_rows(K* m, std::int64_t rows, std::int64_t cols) {
  const std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  K* row = m + r * cols;
  for (std::int64_t end = cols - 1; end > 0; --end) {
    bool swapped = false;
    for (std::int64_t j = 0; j < end; ++j) {
      const K a = row[j], b = row[j + 1];
      if (b < a) {
        row[j] = b;
        row[j + 1] = a;
        swapped = true;
      }
    }
    if (!swapped) break;
  }
}

// One thread per row: bottom-up merge sort, ping-ponging between the row and its scratch row.
template <typename K> __global__ void merge_rows(K* m, K* scratch, std::int64_t rows, std::int64_t cols) {
  const std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  K* a = m + r * cols;
  K* b = scratch + r * cols;
  for (std::int64_t width = 1; width < cols; width *= 2) {
    for (std::int64_t lo = 0; lo < cols; lo += 2 * width) {
      const std::int64_t mid = min(lo + width, cols), hi = min(lo + 2 * width, cols);
      std::int64_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) b[k++] = a[j] < a[i] ? a[j++] : a[i++];
      while (i < mid) b[k++] = a[i++];
      while (j < hi) b[k++] = a[j++];
    }
    K* t = a;
    a = b;
    b = t;
  }
  if (a != m + r * cols)
    for (std::int64_t k = 0; k < cols; ++k) m[r * cols + k] = a[k];
}

// One block per row, the row in shared memory: `cols` phases of compare-exchanges between
// neighbours, even pairs then odd pairs, which sorts any row (the parallel bubble sort).
template <typename K> __global__ void oddeven_rows(K* m, std::int64_t rows, int cols) {
  extern __shared__ unsigned char smem[];
  K* s = reinterpret_cast<K*>(smem);
  for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    K* row = m + r * cols;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) s[j] = row[j];
    __syncthreads();
    for (int phase = 0; phase < cols; ++phase) {
      for (int i = (phase & 1) + 2 * static_cast<int>(threadIdx.x); i + 1 < cols; i += 2 * blockDim.x) {
        const K a = s[i], b = s[i + 1];
        if (b < a) {
          s[i] = b;
          s[i + 1] = a;
        }
      }
      __syncthreads();
    }
    for (int j = threadIdx.x; j < cols; j += blockDim.x) row[j] = s[j];
    __syncthreads();
  }
}

// One block per row, the row in shared memory padded to a power of two p with the largest
// key (which sorts last and is never written back): a bitonic network, every thread doing a
// compare-exchange of one pair per step.
template <typename K> __global__ void bitonic_rows(K* m, std::int64_t rows, int cols, int log2p) {
  extern __shared__ unsigned char smem[];
  K* s = reinterpret_cast<K*>(smem);
  const int p = 1 << log2p;
  for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    K* row = m + r * cols;
    for (int j = threadIdx.x; j < p; j += blockDim.x) s[j] = j < cols ? row[j] : static_cast<K>(~K(0));
    __syncthreads();
    for (int k = 2; k <= p; k <<= 1)
      for (int lj = __ffs(k) - 2; lj >= 0; --lj) {
        const int j = 1 << lj;
        for (int t = threadIdx.x; t < p / 2; t += blockDim.x) {
          const int i = ((t >> lj) << (lj + 1)) | (t & (j - 1));
          const int l = i + j;
          const K a = s[i], b = s[l];
          const bool up = (i & k) == 0;
          if (up ? (b < a) : (a < b)) {
            s[i] = b;
            s[l] = a;
          }
        }
        __syncthreads();
      }
    for (int j = threadIdx.x; j < cols; j += blockDim.x) row[j] = s[j];
    __syncthreads();
  }
}

__global__ void fill_offsets(std::int64_t* off, std::int64_t count, std::int64_t step) {
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i <= count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    off[i] = i * step;
}

template <typename K>
__global__ void check_sorted_kernel(const K* m, std::int64_t rows, std::int64_t cols, int* flag) {
  const std::int64_t n = rows * cols, stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t idx = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; idx < n; idx += stride) {
    if (*static_cast<volatile int*>(flag)) return;  // someone found an unsorted pair: stop
    const std::int64_t i = idx / cols, j = idx - i * cols;
    const K x = m[idx];
    if ((j > 0 && x < m[idx - 1]) || (i > 0 && x < m[idx - cols])) {
      atomicExch(flag, 1);
      return;
    }
  }
}

template <typename T> __global__ void to_keys_kernel(T* d, std::int64_t n) {
  using Key = tlab::sort::ordered_key<T>;
  auto* k = reinterpret_cast<typename Key::type*>(d);
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    k[i] = Key::to(d[i]);
}

template <typename T> __global__ void from_keys_kernel(T* d, std::int64_t n) {
  using Key = tlab::sort::ordered_key<T>;
  const auto* k = reinterpret_cast<const typename Key::type*>(d);
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    d[i] = Key::from(k[i]);
}

unsigned elementwise_grid(std::int64_t n) {
  return static_cast<unsigned>(std::max<std::int64_t>(1, std::min<std::int64_t>(ceil_div(n, 256), 65536)));
}

// Asked once per process (one device): every sort_rows call needs it, inside timed regions.
int shared_optin_bytes() {
  static const int bytes = [] {
    int dev = 0, b = 0;
    TLAB_CUDA(cudaGetDevice(&dev));
    TLAB_CUDA(cudaDeviceGetAttribute(&b, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    return b;
  }();
  return bytes;
}

int log2_ceil(std::int64_t x) {
  int l = 0;
  while ((std::int64_t(1) << l) < x) ++l;
  return l;
}

// Block-per-row launch: enough blocks to fill the device, each looping over rows.
template <typename Kernel, typename... Args>
void launch_block_per_row(Kernel k, std::size_t smem, std::int64_t rows, int threads, cudaStream_t stream, Args... args) {
  // Allow the device's whole opt-in shared memory once per kernel, not on every launch (each
  // instantiation of this template is one kernel: the two kernels' signatures differ).
  static const bool allowed = [k] {
    TLAB_CUDA(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_optin_bytes()));
    return true;
  }();
  (void)allowed;
  const unsigned grid = static_cast<unsigned>(std::min<std::int64_t>(rows, 1 << 20));
  k<<<grid, threads, smem, stream>>>(args...);
  TLAB_CUDA_LAUNCHED();
}

constexpr std::int64_t kBubbleCap = 4096;  // O(n^2) per thread: 16384 would take minutes per pass

std::size_t aligned(std::size_t x) { return (x + 255) / 256 * 256; }

}  // namespace

RowSort parse_row_sort(const std::string& n) {
  if (n == "thread-bubble") return RowSort::thread_bubble;
  if (n == "thread-merge") return RowSort::thread_merge;
  if (n == "block-oddeven") return RowSort::block_oddeven;
  if (n == "block-bitonic") return RowSort::block_bitonic;
  if (n == "cub-segmented-radix") return RowSort::cub_radix;
  if (n == "cub-segmented-sort") return RowSort::cub_segmented;
  throw std::invalid_argument("GPU matrix sort: no row sort named '" + n + "'");
}

bool sorts_in_place(RowSort r) { return r != RowSort::cub_radix && r != RowSort::cub_segmented; }

std::int64_t max_row_length(RowSort r, std::size_t key_bytes) {
  switch (r) {
    case RowSort::thread_bubble: return kBubbleCap;
    case RowSort::block_oddeven: return shared_optin_bytes() / static_cast<std::int64_t>(key_bytes);
    case RowSort::block_bitonic: {  // the padded power of two must fit
      std::int64_t p = 1;
      while (2 * p * static_cast<std::int64_t>(key_bytes) <= shared_optin_bytes()) p *= 2;
      return p;
    }
    default: return 0;
  }
}

template <typename K> std::size_t sort_rows_temp_bytes(RowSort r, std::int64_t rows, std::int64_t cols) {
  if (sorts_in_place(r)) return 0;
  const std::int64_t n = rows * cols;
  std::size_t bytes = 0;
  const std::int64_t* off = nullptr;
  if (r == RowSort::cub_radix) {
    if (n > INT_MAX) throw std::invalid_argument("cub-segmented-radix: more than 2^31 - 1 elements");
    TLAB_CUDA(cub::DeviceSegmentedRadixSort::SortKeys(nullptr, bytes, static_cast<const K*>(nullptr),
                                                      static_cast<K*>(nullptr), static_cast<int>(n),
                                                      static_cast<int>(rows), off, off + 1));
  } else {
    TLAB_CUDA(cub::DeviceSegmentedSort::SortKeys(nullptr, bytes, static_cast<const K*>(nullptr), static_cast<K*>(nullptr),
                                                 n, rows, off, off + 1));
  }
  return aligned(static_cast<std::size_t>(rows + 1) * sizeof(std::int64_t)) + bytes;
}

template <typename K>
int sort_rows(RowSort r, K* data, K* out, std::int64_t rows, std::int64_t cols, void* temp, std::size_t temp_bytes,
              cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return 0;
  if (r == RowSort::cub_radix && rows * cols > INT_MAX)
    throw std::invalid_argument("cub-segmented-radix: more than 2^31 - 1 elements");
  const std::int64_t cap = max_row_length(r, sizeof(K));
  if (cap && cols > cap)
    throw std::invalid_argument("GPU row sort: rows of " + std::to_string(cols) + " elements exceed its limit of " +
                                std::to_string(cap));
  switch (r) {
    case RowSort::thread_bubble:
      bubble_rows<K><<<static_cast<unsigned>(ceil_div(rows, 128)), 128, 0, stream>>>(data, rows, cols);
      TLAB_CUDA_LAUNCHED();
      return 1;
    case RowSort::thread_merge:
      merge_rows<K><<<static_cast<unsigned>(ceil_div(rows, 128)), 128, 0, stream>>>(data, out, rows, cols);
      TLAB_CUDA_LAUNCHED();
      return 1;
    case RowSort::block_oddeven: {
      const int threads = static_cast<int>(std::min<std::int64_t>(1024, std::max<std::int64_t>(32, (cols + 1) / 2)));
      launch_block_per_row(oddeven_rows<K>, static_cast<std::size_t>(cols) * sizeof(K), rows, threads, stream, data,
                           rows, static_cast<int>(cols));
      return 1;
    }
    case RowSort::block_bitonic: {
      const int lp = log2_ceil(cols);
      const int threads = static_cast<int>(std::min<std::int64_t>(1024, std::max<std::int64_t>(32, (std::int64_t(1) << lp) / 2)));
      launch_block_per_row(bitonic_rows<K>, (std::size_t(1) << lp) * sizeof(K), rows, threads, stream, data, rows,
                           static_cast<int>(cols), lp);
      return 1;
    }
    case RowSort::cub_radix:
    case RowSort::cub_segmented: {
      auto* off = static_cast<std::int64_t*>(temp);
      const std::size_t off_bytes = aligned(static_cast<std::size_t>(rows + 1) * sizeof(std::int64_t));
      if (temp_bytes < off_bytes) throw std::logic_error("sort_rows: scratch too small");
      fill_offsets<<<elementwise_grid(rows + 1), 256, 0, stream>>>(off, rows, cols);
      TLAB_CUDA_LAUNCHED();
      void* cub_temp = static_cast<unsigned char*>(temp) + off_bytes;
      std::size_t cub_bytes = temp_bytes - off_bytes;
      if (r == RowSort::cub_radix)
        TLAB_CUDA(cub::DeviceSegmentedRadixSort::SortKeys(cub_temp, cub_bytes, static_cast<const K*>(data), out,
                                                          static_cast<int>(rows * cols), static_cast<int>(rows), off,
                                                          off + 1, 0, static_cast<int>(sizeof(K) * 8), stream));
      else
        TLAB_CUDA(cub::DeviceSegmentedSort::SortKeys(cub_temp, cub_bytes, static_cast<const K*>(data), out, rows * cols,
                                                     rows, off, off + 1, stream));
      return 2;
    }
  }
  return 0;
}

void to_keys(DType t, void* data, std::int64_t n, cudaStream_t stream) {
  tlab::sort::with_sort_type(t, [&](auto tag) {
    using T = decltype(tag);
    to_keys_kernel<T><<<elementwise_grid(n), 256, 0, stream>>>(static_cast<T*>(data), n);
  });
  TLAB_CUDA_LAUNCHED();
}

void from_keys(DType t, void* data, std::int64_t n, cudaStream_t stream) {
  tlab::sort::with_sort_type(t, [&](auto tag) {
    using T = decltype(tag);
    from_keys_kernel<T><<<elementwise_grid(n), 256, 0, stream>>>(static_cast<T*>(data), n);
  });
  TLAB_CUDA_LAUNCHED();
}

template <typename K> void check_sorted(const K* m, std::int64_t rows, std::int64_t cols, int* flag, cudaStream_t stream) {
  check_sorted_kernel<K><<<elementwise_grid(rows * cols), 256, 0, stream>>>(m, rows, cols, flag);
  TLAB_CUDA_LAUNCHED();
}

template std::size_t sort_rows_temp_bytes<std::uint32_t>(RowSort, std::int64_t, std::int64_t);
template std::size_t sort_rows_temp_bytes<std::uint64_t>(RowSort, std::int64_t, std::int64_t);
template int sort_rows<std::uint32_t>(RowSort, std::uint32_t*, std::uint32_t*, std::int64_t, std::int64_t, void*,
                                      std::size_t, cudaStream_t);
template int sort_rows<std::uint64_t>(RowSort, std::uint64_t*, std::uint64_t*, std::int64_t, std::int64_t, void*,
                                      std::size_t, cudaStream_t);
template void check_sorted<std::uint32_t>(const std::uint32_t*, std::int64_t, std::int64_t, int*, cudaStream_t);
template void check_sorted<std::uint64_t>(const std::uint64_t*, std::int64_t, std::int64_t, int*, cudaStream_t);

}  // namespace tlab::gpu::sort
