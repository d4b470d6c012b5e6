// The copy loop of the row copy (copy_rows.cu) and the wide copy kernel (peers.cu): from
// element i, U elements `spacing` apart, their U loads in flight before their U stores, then
// the same `step` further on, below n. The row copy's lanes take elements a stride apart
// (spacing = stride, step = U stride); the copy kernel's blocks take U consecutive pieces of a
// block's width (spacing = the piece, step = the grid's U pieces).
#pragma once
#include <cstdint>

namespace tlab::gpu {

template <int U, typename V>
__device__ __forceinline__ void copy_strided(const V* __restrict__ in, V* __restrict__ out, std::int64_t i,
                                             std::int64_t n, std::int64_t spacing, std::int64_t step) {
  for (; i + (U - 1) * spacing < n; i += step) {
    V v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = in[i + u * spacing];
#pragma unroll
    for (int u = 0; u < U; ++u) out[i + u * spacing] = v[u];
  }
  for (; i < n; i += spacing) out[i] = in[i];  // the last step's elements below n, fewer than U
}

}  // namespace tlab::gpu
