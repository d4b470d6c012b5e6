// Row blocks of a matrix whose every element is a hash of (seed, its index), filled and
// checked on the GPU that holds them. A distributed matrix is too large to gather on one host
// for a reference, and no rank holds what another's B must contain: with elements computed
// from their indices, each rank checks its own B rows alone, exactly.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "tlab/matrix.hpp"

namespace tlab::dist {

// Rows [row0, row0 + rows) of the m x n matrix A (a.rows x a.cols), row major in `block`:
// element (i, j) gets the first `elem` bytes of hash(seed, i * n + j). elem: 1, 2, 4, 8, 16.
void fill_a_rows(void* block, std::size_t elem, Shape a, std::int64_t row0, std::int64_t rows, std::uint64_t seed,
                 cudaStream_t stream);

// Rows [row0, row0 + rows) of B = A^T (n x m), row major in `block`: adds to *wrong (device
// memory) the number of elements that differ from A's, as fill_a_rows(seed) made them.
void count_wrong_b_rows(const void* block, std::size_t elem, Shape a, std::int64_t row0, std::int64_t rows,
                        std::uint64_t seed, unsigned long long* wrong, cudaStream_t stream);

}  // namespace tlab::dist
