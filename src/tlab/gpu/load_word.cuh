// A global load of one 1- to 16-byte word that may ask the L2 to fetch more than the sectors it
// touches: PF = 128 or 256 is PTX's .L2::128B / .L2::256B prefetch size, the aligned block of
// that many bytes holding the word (0, or a GPU before sm_80: a plain load). Rows off 256-byte
// units leave each piece's end units shared with pieces that other blocks read at other
// times; fetched whole, such a unit is in L2 when the other block comes. The in-place tile
// pairs gain from it where their reads and writes mix, not in their reads alone (performance
// notes, section 9, "Loads that ask L2 for whole lines" and "Reads or writes: where the pairs
// still lose off a unit").
#pragma once
#include <cuda_runtime.h>

namespace tlab::gpu::word {

#define TLAB_LD_PF(TYPE, ...)                                                        \
  if constexpr (PF == 128) asm volatile("ld.global.L2::128B." TYPE " " __VA_ARGS__); \
  else asm volatile("ld.global.L2::256B." TYPE " " __VA_ARGS__);

template <int PF, typename T> __device__ __forceinline__ T load_word(const T* p) {
  static_assert(PF == 0 || PF == 128 || PF == 256, "a prefetch size PTX has");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  return *p;  // no prefetch-size qualifier before sm_80: a plain load
#else
  if constexpr (PF == 0) {
    return *p;
  } else if constexpr (sizeof(T) == 1) {
    unsigned v;
    TLAB_LD_PF("u8", "%0, [%1];" : "=r"(v) : "l"(p))
    return static_cast<T>(v);  // the byte, zero-extended into the register
  } else if constexpr (sizeof(T) == 2) {
    unsigned v;
    TLAB_LD_PF("u16", "%0, [%1];" : "=r"(v) : "l"(p))
    return static_cast<T>(v);
  } else if constexpr (sizeof(T) == 4) {
    unsigned v;
    TLAB_LD_PF("u32", "%0, [%1];" : "=r"(v) : "l"(p))
    return reinterpret_cast<const T&>(v);
  } else if constexpr (sizeof(T) == 8) {
    uint2 v;
    TLAB_LD_PF("v2.u32", "{%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(p))
    return reinterpret_cast<const T&>(v);
  } else {
    static_assert(sizeof(T) == 16, "a 1- to 16-byte word");
    uint4 v;
    TLAB_LD_PF("v4.u32", "{%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p))
    return reinterpret_cast<const T&>(v);
  }
#endif
}

#undef TLAB_LD_PF

}  // namespace tlab::gpu::word
