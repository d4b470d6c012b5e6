// TLAB_HD marks a function that the CPU code and the CUDA kernels share, so that tests on a
// machine without a GPU check the kernels' index arithmetic too.
#pragma once

#if defined(__CUDACC__)
#define TLAB_HD __host__ __device__ __forceinline__
#else
#define TLAB_HD inline
#endif
