// The copy loop of the row copy (copy_rows.cu): elements i, i + stride, ...
// below n, U loads in flight before their U stores.
#pragma once
#include <cstdint>

namespace tlab::gpu {

template <int U, typename V>
__device__ __forceinline__ void copy_strided(const V* __restrict__ in, V* __restrict__ out, std::int64_t i,
                                             std::int64_t n, std::int64_t stride) {
  for (; i + (U - 1) * stride < n; i += U * stride) {
    V v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = in[i + u * stride];
#pragma unroll
    for (int u = 0; u < U; ++u) out[i + u * stride] = v[u];
  }
  for (; i < n; i += stride) out[i] = in[i];
}

}  // namespace tlab::gpu
