// The reference every variant is checked against, and the data it is checked on. The
// reference is deliberately the plainest possible element-by-element loop over bytes,
// sharing no code with any variant.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tlab/dtype.hpp"
#include "tlab/matrix.hpp"

namespace tlab {

// out (cols x rows) = transpose of in (rows x cols); elements of `elem` bytes, packed.
void reference_transpose(const void* in, void* out, Shape s, std::size_t elem);

// Fresh random contents: every call draws a new seed, so no two checks see the same data.
// Floating-point elements get finite values of both signs (never all zeros).
void fill_random(void* data, std::int64_t count, DType t);

// Square inputs get every mirrored pair (i,j), (j,i) made unequal, so that an in-place
// variant that skips a swap cannot pass by luck (one-byte elements are equal 1 time in 256).
void make_mirror_pairs_differ(void* data, Shape s, std::size_t elem);

// Fills `out` with the bitwise complement of the expected result `want`: an element the
// variant never writes then differs from the reference in every byte, whatever the data.
void poison_against(void* out, const void* want, std::size_t bytes);

// Where no expected result is known (Executor::apply), outputs get this fixed pattern.
constexpr unsigned char kPoisonByte = 0xA5;
void poison(void* data, std::size_t bytes);

// Compares element by element; "" when equal, else a message naming the first mismatch
// and how many elements differ.
std::string compare_exact(const void* got, const void* want, Shape out_shape, std::size_t elem);

}  // namespace tlab
