// Linked instead of the GPU part when the build has no CUDA.
#include "tlab/device_memory.hpp"
#include "tlab/executor.hpp"
#include "tlab/host_paths.hpp"
#include "tlab/host_transpose.hpp"
#include "tlab/out_of_core.hpp"
#include "tlab/sort/gpu_sort.hpp"

namespace tlab {
Executor* gpu_executor(std::string* why) {
  if (why) *why = "this build has no CUDA (nvcc was not found or gpu=disabled)";
  return nullptr;
}
void register_gpu_variants(Registry&) {}

PointerInfo pointer_info(const void*) { return {}; }
DeviceInfo current_device() { return {}; }
int current_device_index() { return -1; }
void* device_alloc(std::size_t) { throw std::runtime_error("device_alloc: this build has no CUDA"); }
void device_free(void*) {}

std::int64_t pipeline_panel_rows(const PipelineOptions&, Shape, DType) { return 0; }
std::int64_t pipeline_panel_cols(const PipelineOptions&, Shape, DType) { return 0; }
std::uint64_t pipeline_device_bytes(const PipelineOptions&, Shape, DType) { return 0; }
struct HostTransposePlan::Impl {};
HostTransposePlan::HostTransposePlan(Shape, DType, const PipelineOptions&) {
  throw std::runtime_error("HostTransposePlan: this build has no CUDA");
}
HostTransposePlan::~HostTransposePlan() = default;
void HostTransposePlan::execute(const void*, void*) {}
void transpose_host_in_place(void*, Shape, DType, std::int64_t, int, const std::string&) {
  throw std::runtime_error("transpose_host_in_place: this build has no CUDA");
}
void transpose_host_in_place_mapped(void*, Shape, DType, const std::string&) {
  throw std::runtime_error("transpose_host_in_place_mapped: this build has no CUDA");
}
void transpose_host_to_host(const void*, void*, Shape, DType, const PipelineOptions&) {
  throw std::runtime_error("transpose_host_to_host: this build has no CUDA");
}
std::vector<HostPathRow> measure_host_paths(DType, Shape, const TimingPolicy&, const std::vector<PipelineOptions>&,
                                            std::string* why) {
  if (why) *why = "this build has no CUDA (nvcc was not found or gpu=disabled)";
  return {};
}
double device_memory_bytes(std::string* why) {
  if (why) *why = "this build has no CUDA (nvcc was not found or gpu=disabled)";
  return 0;
}
OutOfCoreRun measure_out_of_core(std::int64_t, const std::vector<OutOfCoreMethod>&, const TimingPolicy&, std::string* why) {
  device_memory_bytes(why);
  return {};
}
std::string host_paths_csv(const std::string&, const std::vector<HostPathRow>&) { return ""; }
}  // namespace tlab

namespace tlab::sort {
std::string gpu_sort_refuses(const GpuSortOptions&, DType, Shape) {
  return "this build has no CUDA (nvcc was not found or gpu=disabled)";
}
struct GpuMatrixSort::Impl {};
GpuMatrixSort::GpuMatrixSort(Shape, DType, const GpuSortOptions&) {
  throw std::runtime_error("GpuMatrixSort: this build has no CUDA");
}
GpuMatrixSort::~GpuMatrixSort() = default;
void GpuMatrixSort::load(const void*) {}
GpuSortTimes GpuMatrixSort::run() { return {}; }
void GpuMatrixSort::result(void*) const {}
void GpuMatrixSort::poison_result() {}
double GpuMatrixSort::device_bytes(Shape, DType, const GpuSortOptions&) { return 0; }
}  // namespace tlab::sort
