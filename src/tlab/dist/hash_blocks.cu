#include "tlab/dist/hash_blocks.cuh"

#include <stdexcept>
#include <string>

#include "tlab/gpu/check.cuh"

namespace tlab::dist {
namespace {

__device__ std::uint64_t mix(std::uint64_t x) {  // splitmix64's finaliser
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The element of global index g as a T: the low bytes of one hash word, or two words for 16.
template <typename T> __device__ T element(std::uint64_t seed, std::uint64_t g) {
  const std::uint64_t w0 = mix(seed ^ mix(2 * g));
  if constexpr (sizeof(T) == 16) {
    const std::uint64_t w1 = mix(seed ^ mix(2 * g + 1));
    return T{static_cast<unsigned>(w0), static_cast<unsigned>(w0 >> 32), static_cast<unsigned>(w1),
             static_cast<unsigned>(w1 >> 32)};
  } else {
    return static_cast<T>(w0);
  }
}

template <typename T> __device__ bool same(const T& x, const T& y) {
  if constexpr (sizeof(T) == 16) return x.x == y.x && x.y == y.y && x.z == y.z && x.w == y.w;
  else return x == y;
}

template <typename T>
__global__ void fill_kernel(T* block, std::int64_t n, std::int64_t row0, std::int64_t count, std::uint64_t seed) {
  const std::uint64_t first = static_cast<std::uint64_t>(row0) * n;  // rows are whole: the block is contiguous in A
  for (std::int64_t k = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; k < count;
       k += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    block[k] = element<T>(seed, first + k);
}

template <typename T>
__global__ void check_kernel(const T* block, std::int64_t m, std::int64_t n, std::int64_t row0, std::int64_t count,
                             std::uint64_t seed, unsigned long long* wrong) {
  unsigned long long mine = 0;
  for (std::int64_t k = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; k < count;
       k += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t j = row0 + k / m, i = k % m;  // B(j, i) = A(i, j)
    if (!same(block[k], element<T>(seed, static_cast<std::uint64_t>(i) * n + j))) ++mine;
  }
  if (mine) atomicAdd(wrong, mine);
}

unsigned blocks_for(std::int64_t count) {
  const std::int64_t b = (count + 255) / 256;
  return static_cast<unsigned>(b < 65536 ? (b > 0 ? b : 1) : 65536);
}

template <typename F> void by_size(std::size_t elem, F f) {
  switch (elem) {
    case 1: f(std::uint8_t{}); return;
    case 2: f(std::uint16_t{}); return;
    case 4: f(std::uint32_t{}); return;
    case 8: f(std::uint64_t{}); return;
    case 16: f(uint4{}); return;
  }
  throw std::invalid_argument("hash blocks: no " + std::to_string(elem) + "-byte elements");
}

}  // namespace

void fill_a_rows(void* block, std::size_t elem, Shape a, std::int64_t row0, std::int64_t rows, std::uint64_t seed,
                 cudaStream_t stream) {
  const std::int64_t count = rows * a.cols;
  if (count == 0) return;
  by_size(elem, [&](auto t) {
    using T = decltype(t);
    fill_kernel<T><<<blocks_for(count), 256, 0, stream>>>(static_cast<T*>(block), a.cols, row0, count, seed);
  });
  TLAB_CUDA_LAUNCHED();
}

void count_wrong_b_rows(const void* block, std::size_t elem, Shape a, std::int64_t row0, std::int64_t rows,
                        std::uint64_t seed, unsigned long long* wrong, cudaStream_t stream) {
  const std::int64_t count = rows * a.rows;
  if (count == 0) return;
  by_size(elem, [&](auto t) {
    using T = decltype(t);
    check_kernel<T><<<blocks_for(count), 256, 0, stream>>>(static_cast<const T*>(block), a.rows, a.cols, row0, count,
                                                           seed, wrong);
  });
  TLAB_CUDA_LAUNCHED();
}

}  // namespace tlab::dist
