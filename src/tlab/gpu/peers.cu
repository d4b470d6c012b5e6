// What a transpose is measured against in the same run: cudaMemcpy device-to-device (the
// roofline: the same bytes moved with no reordering), a plain copy kernel, and cuBLAS geam
// (the library call a user would pick for a float or double transpose).
#include <cublas_v2.h>

#include <memory>

#include "tlab/gpu/copy_strided.cuh"
#include "tlab/gpu/launch.cuh"

namespace tlab::gpu {
namespace {

template <typename T> __global__ void copy_elements(const T* __restrict__ in, T* __restrict__ out, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = in[i];
}

// The copy as a transpose kernel should move it: whole 16-byte words, U in flight per thread,
// one resident wave of blocks. A block's U loads are U consecutive pieces of 256 words (4 KiB),
// so that each block streams through U x 4 KiB of contiguous memory a step: 1-3 points of
// memcpy faster than U loads a grid apart (performance notes, section 9, "The copy kernel's
// order"). The bytes past the last whole word go one at a time.
constexpr int kCopyThreads = 256;  // a block, and a piece in words: one per thread
template <int U>
__global__ void __launch_bounds__(kCopyThreads) copy_words(const uint4* __restrict__ in, uint4* __restrict__ out, std::int64_t words,
                                                  const unsigned char* __restrict__ in_tail, unsigned char* __restrict__ out_tail,
                                                  int tail) {
  if (blockIdx.x == 0 && static_cast<int>(threadIdx.x) < tail) out_tail[threadIdx.x] = in_tail[threadIdx.x];
  copy_strided<U>(in, out, static_cast<std::int64_t>(blockIdx.x) * U * kCopyThreads + threadIdx.x, words, kCopyThreads,
                  static_cast<std::int64_t>(gridDim.x) * U * kCopyThreads);
}

template <int U> void launch_copy_words(const unsigned char* in, unsigned char* out, std::int64_t bytes, cudaStream_t stream) {
  const std::int64_t words = bytes / 16;
  const std::int64_t blocks = std::max<std::int64_t>(1, std::min<std::int64_t>(ceil_div(words, U * kCopyThreads), 8LL * sm_count()));
  copy_words<U><<<static_cast<unsigned>(blocks), kCopyThreads, 0, stream>>>(reinterpret_cast<const uint4*>(in), reinterpret_cast<uint4*>(out),
                                                                   words, in + words * 16, out + words * 16,
                                                                   static_cast<int>(bytes % 16));
  TLAB_CUDA_LAUNCHED();
}

void check_cublas(cublasStatus_t s, const char* call) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(call) + " failed: " + cublasGetStatusName(s) + " (" + cublasGetStatusString(s) + ")");
}

// One handle per process: creating it costs milliseconds and must stay out of the timings
// (the executor's warm-up runs absorb the first call).
cublasHandle_t cublas() {
  static cublasHandle_t h = [] {
    cublasHandle_t made{};
    check_cublas(cublasCreate(&made), "cublasCreate");
    return made;
  }();
  return h;
}

// Row-major rows x cols input is column-major cols x rows with ld = cols. Its transpose, row-
// major cols x rows, is column-major rows x cols with ld = rows: C = 1 * A^T + 0 * C.
template <typename T, typename F> void geam(F fn, const char* name, const Operands& op, T one, T zero) {
  const int m = static_cast<int>(op.shape.rows), n = static_cast<int>(op.shape.cols);
  if (op.shape.rows > 0x7fffffff || op.shape.cols > 0x7fffffff) throw std::invalid_argument("geam: sizes above 2^31");
  check_cublas(cublasSetStream(cublas(), stream_of(op)), "cublasSetStream");
  T* c = static_cast<T*>(op.out);
  check_cublas(fn(cublas(), CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, static_cast<const T*>(op.in), n, &zero, c, m, c, m),
               name);
}

}  // namespace

void register_gpu_peers(Registry& r) {
  Variant memcpy_v = gpu_variant("gpu/memcpy", "peer-memcpy", Placement::out_of_place, {},
                                 "cudaMemcpyAsync device to device: the bandwidth ceiling");
  memcpy_v.produces = Produces::copy;
  memcpy_v.kernels = instantiate_all([](auto tag, const Operands& op) {
    TLAB_CUDA(cudaMemcpyAsync(op.out, op.in, static_cast<std::size_t>(op.shape.elements()) * sizeof(decltype(tag)),
                              cudaMemcpyDeviceToDevice, stream_of(op)));
  });
  r.add(std::move(memcpy_v));

  Variant copy_v = gpu_variant("gpu/copy-kernel", "peer-copy", Placement::out_of_place, {},
                               "element-wise copy kernel, grid-stride loop");
  copy_v.produces = Produces::copy;
  copy_v.kernels = instantiate_all([](auto tag, const Operands& op) {
    using T = decltype(tag);
    const std::int64_t blocks = std::min<std::int64_t>(ceil_div(op.shape.elements(), 256), 32LL * sm_count());
    copy_elements<T><<<static_cast<unsigned>(std::max<std::int64_t>(blocks, 1)), 256, 0, stream_of(op)>>>(
        static_cast<const T*>(op.in), static_cast<T*>(op.out), op.shape.elements());
    TLAB_CUDA_LAUNCHED();
  });
  r.add(std::move(copy_v));

  Variant wide_v = gpu_variant("gpu/copy-kernel-wide", "peer-copy", Placement::out_of_place, {},
                               "copy kernel moving 16-byte words, eight in flight per thread (four for small matrices) over consecutive 4 KiB pieces: "
                               "the roofline's own check");
  wide_v.produces = Produces::copy;
  wide_v.kernels = instantiate_all([](auto tag, const Operands& op) {
    const std::int64_t bytes = op.shape.elements() * static_cast<std::int64_t>(sizeof(decltype(tag)));
    const auto* in = static_cast<const unsigned char*>(op.in);
    auto* out = static_cast<unsigned char*>(op.out);
    if (reinterpret_cast<std::uintptr_t>(in) % 16 || reinterpret_cast<std::uintptr_t>(out) % 16)
      throw std::invalid_argument("gpu/copy-kernel-wide needs 16-byte aligned buffers");
    // Eight words in flight where the matrix gives every resident block a step of eight pieces,
    // else four, so that a smaller matrix still keeps every block busy.
    if (bytes / 16 >= 8LL * kCopyThreads * 8 * sm_count())
      launch_copy_words<8>(in, out, bytes, stream_of(op));
    else
      launch_copy_words<4>(in, out, bytes, stream_of(op));
  });
  r.add(std::move(wide_v));

  Variant geam_v = gpu_variant("gpu/cublas-geam", "peer-cublas", Placement::out_of_place, {},
                               "cuBLAS geam with op(A) = A^T (float, double, complex128)");
  geam_v.kernels[DType::f32] = [](const Operands& op) { geam<float>(cublasSgeam, "cublasSgeam", op, 1.f, 0.f); };
  geam_v.kernels[DType::f64] = [](const Operands& op) { geam<double>(cublasDgeam, "cublasDgeam", op, 1.0, 0.0); };
  geam_v.kernels[DType::c128] = [](const Operands& op) {
    static_assert(sizeof(Complex128) == sizeof(cuDoubleComplex));
    geam<cuDoubleComplex>(cublasZgeam, "cublasZgeam", op, {1.0, 0.0}, {0.0, 0.0});
  };
  r.add(std::move(geam_v));
}

}  // namespace tlab::gpu
