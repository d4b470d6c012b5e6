// Whole 16-byte words from data at any byte offset: a word loaded only where it lies inside
// its buffer, and 16 bytes funnel-shifted out of two aligned words. Shared by the kernels that
// read or write rows off a word as aligned words (on_grid_tile.cuh, copy_rows.cu).
#pragma once
#include <cuda_runtime.h>

namespace tlab::gpu {

// Bytes [s, s + 16) of the 32 bytes lo, hi (lo first in memory), 0 <= s < 16 the same across
// the warp: a switch on the 4-byte word they start in, then four funnel shifts.
__device__ __forceinline__ uint4 bytes_at(const uint4& lo, const uint4& hi, int s) {
  unsigned a, b, c, d, e;
  switch (s >> 2) {
    case 0: a = lo.x, b = lo.y, c = lo.z, d = lo.w, e = hi.x; break;
    case 1: a = lo.y, b = lo.z, c = lo.w, d = hi.x, e = hi.y; break;
    case 2: a = lo.z, b = lo.w, c = hi.x, d = hi.y, e = hi.z; break;
    default: a = lo.w, b = hi.x, c = hi.y, d = hi.z, e = hi.w; break;
  }
  const unsigned sh = 8u * static_cast<unsigned>(s & 3);
  return make_uint4(__funnelshift_r(a, b, sh), __funnelshift_r(b, c, sh), __funnelshift_r(c, d, sh),
                    __funnelshift_r(d, e, sh));
}

// The aligned 16 bytes at `at`, but only those in [begin, end) (the rest zero), so that no
// access leaves the buffer: the words under data that does not start or end on a 16-byte
// boundary, which may end at the last byte of its allocation.
__device__ __forceinline__ uint4 load_within(const unsigned char* at, const unsigned char* begin,
                                             const unsigned char* end) {
  if (at >= begin && at + 16 <= end) return *reinterpret_cast<const uint4*>(at);
  unsigned l[4] = {0, 0, 0, 0};
  for (int b = 0; b < 16; ++b)
    if (at + b >= begin && at + b < end) l[b / 4] |= static_cast<unsigned>(at[b]) << (8 * (b % 4));
  return make_uint4(l[0], l[1], l[2], l[3]);
}

}  // namespace tlab::gpu
