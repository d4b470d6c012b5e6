// A block of rows copied between two pitched buffers on one GPU: how the distributed
// transpose puts a received block into B's columns. cudaMemcpy2DAsync does the same, but ran
// at 1.7 to 3.2 TB/s on an H200 depending on the row width (docs/performance-notes.md,
// section 10); this one stores aligned 16-byte words of every row of 64 bytes or more, whatever
// the offsets of the rows' starts.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace tlab::gpu {

// rows x width bytes: row i from src + i * src_pitch to dst + i * dst_pitch (bytes). Nothing
// is launched for an empty block.
void copy_rows(void* dst, std::int64_t dst_pitch, const void* src, std::int64_t src_pitch, std::int64_t width,
               std::int64_t rows, cudaStream_t stream);

}  // namespace tlab::gpu
