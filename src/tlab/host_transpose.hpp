// Transposing a matrix that lives in host memory through the GPU: a pipeline that cuts the
// input into blocks of panel_rows x panel_cols and, per block, copies it in, transposes it
// and copies the result out (a 2-D strided copy into its place in the output), spread over
// several streams so that copies in both directions overlap the kernels. Device memory use
// is bounded by streams x 2 blocks, whatever the matrix size.
//
// The block shape matters for the copies: the output of a block is panel_cols rows of
// panel_rows elements at a pitch of the whole output row, and narrow rows (a few KiB)
// copy far slower than wide ones (docs/performance-notes.md, section 6).
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "tlab/dtype.hpp"
#include "tlab/matrix.hpp"

namespace tlab {

enum class IssueOrder {
  depth_first,   // panel by panel: H2D, kernel, D2H of one panel, then the next
  breadth_first  // a round of panels at a time: all their H2Ds, then all kernels, then all D2Hs
};
const char* issue_order_name(IssueOrder o);

// How the kernel reaches host memory.
enum class HostAccess {
  staged,  // through device blocks: 2-D copies in, the kernel on device memory, 2-D copies out
  mapped,  // zero copy: the kernel loads and stores page-locked host memory over the bus, so the
           // SMs issue the bus traffic and no copy engine or strided copy is involved
  copy_in  // blocks copied in as for staged; the kernel then stores each transposed block straight
           // into the page-locked host output (a kernel that takes an output pitch: gpu/rect/*),
           // so the SMs issue no reads over the bus and no copy out is needed
};
const char* host_access_name(HostAccess a);

struct PipelineOptions {
  std::int64_t panel_rows = 0;  // 0: 4096, or all rows when fewer
  std::int64_t panel_cols = 0;  // 0: 4096, or all columns when fewer
  int streams = 3;
  IssueOrder order = IssueOrder::depth_first;
  std::string kernel = "gpu/unrolled/t32x4-pad";  // any registered out-of-place GPU transpose
  // mapped: one launch over the whole matrix; blocks, streams and order do not apply, and
  // both matrices must be page-locked (cudaMallocHost or cudaHostRegister). copy_in: the
  // output must be page-locked and the kernel must take an output pitch.
  HostAccess access = HostAccess::staged;
};

// The block height and width the pipeline will use for (options, shape, dtype).
std::int64_t pipeline_panel_rows(const PipelineOptions& o, Shape s, DType t);
std::int64_t pipeline_panel_cols(const PipelineOptions& o, Shape s, DType t);
// Device bytes the pipeline will allocate (none when mapped, one block per stream for copy_in).
std::uint64_t pipeline_device_bytes(const PipelineOptions& o, Shape s, DType t);

// The pipeline's streams and device blocks for one (shape, type, options), allocated once so
// that repeated transposes (and their timing) do not pay for allocation. Construction throws
// as transpose_host_to_host does, before any byte is written.
class HostTransposePlan {
 public:
  HostTransposePlan(Shape s, DType t, const PipelineOptions& o);
  ~HostTransposePlan();
  HostTransposePlan(const HostTransposePlan&) = delete;
  HostTransposePlan& operator=(const HostTransposePlan&) = delete;
  // out (cols x rows, host) = transpose of in (rows x cols, host); returns when done.
  // Mapped and copy_in plans throw std::invalid_argument, before writing, for memory that is
  // not page-locked.
  void execute(const void* in, void* out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One plan, used once.
// out (cols x rows, host) = transpose of in (rows x cols, host). For overlap both should be
// pinned (cudaMallocHost or cudaHostRegister); pageable memory works but serialises.
// Before any byte is written: throws std::invalid_argument for bad options (no such kernel,
// streams < 1), ResourceError when the device cannot hold the pipeline's buffers.
void transpose_host_to_host(const void* in, void* out, Shape s, DType t, const PipelineOptions& o);

// In place, for a square matrix in host memory of any size (out of core: larger than the
// device): the matrix is cut into block x block tiles; tile pairs (i, j) and (j, i) are
// copied in, each transposed, and copied back into each other's place, diagonal tiles into
// their own. Each stream owns whole pairs, so no two streams touch the same bytes. Device
// memory: streams x 4 tiles. `m` should be pinned (cudaHostRegister) for overlap.
// Throws before touching `m` for a non-square shape, bad options or short device memory.
void transpose_host_in_place(void* m, Shape s, DType t, std::int64_t block, int streams,
                             const std::string& kernel = PipelineOptions{}.kernel);

// In place, zero copy: one launch of a registered in-place GPU kernel directly on the
// page-locked host matrix (any size; no device memory). Each tile pair crosses the bus once
// each way. Throws std::invalid_argument before touching `m` for a non-square shape, a
// kernel that is not a correct in-place GPU transpose of t, or memory that is not page-locked.
void transpose_host_in_place_mapped(void* m, Shape s, DType t, const std::string& kernel = "gpu/inplace-tiled/t32x8");

}  // namespace tlab
