// tlab::Plan: checks its arguments, picks a kernel (tuning.hpp) and runs it where the data is.
#include <cstdint>
#include <limits>

#include "tlab/api/tuning.hpp"
#include "tlab/device_memory.hpp"
#include "tlab/host_transpose.hpp"
#include "tlab/transpose.hpp"

namespace tlab {

const char* memory_name(Memory m) {
  switch (m) {
    case Memory::device: return "device";
    case Memory::pinned_host: return "page-locked host";
    case Memory::host: return "host";
  }
  return "?";
}

namespace {

[[noreturn]] void refuse(const std::string& why) { throw std::invalid_argument("tlab: " + why); }

bool is_kind(const PointerInfo& i, Memory m) {
  switch (m) {
    case Memory::device: return i.kind == PointerKind::device || i.kind == PointerKind::managed;
    case Memory::pinned_host: return i.kind == PointerKind::pinned_host;
    case Memory::host: return i.kind == PointerKind::host || i.kind == PointerKind::pinned_host;
  }
  return false;
}

Memory memory_of(const void* p) {
  switch (pointer_info(p).kind) {
    case PointerKind::device:
    case PointerKind::managed: return Memory::device;
    case PointerKind::pinned_host: return Memory::pinned_host;
    case PointerKind::host: return Memory::host;
  }
  return Memory::host;
}

}  // namespace

struct Plan::Impl {
  DType type;
  Shape shape;
  Placement placement;
  Memory memory;
  int device = -1;
  std::string kernel, reason;
  const Variant* variant = nullptr;
  void* scratch = nullptr;  // device scratch for kernels that need it
  std::unique_ptr<HostTransposePlan> mapped;  // page-locked, out of place

  ~Impl() { device_free(scratch); }

  void check_pointer(const void* p, const char* what) const {
    if (!p) refuse(std::string(what) + " is a null pointer");
    // The kernels load whole elements (16-byte words for complex128): an element off its own
    // alignment would fault on the GPU and is undefined behaviour on the CPU.
    if (reinterpret_cast<std::uintptr_t>(p) % dtype_size(type))
      refuse(std::string(what) + " is not aligned to its " + std::to_string(dtype_size(type)) + "-byte elements");
    const PointerInfo i = pointer_info(p);
    if (!is_kind(i, memory))
      refuse(std::string(what) + " is not in " + memory_name(memory) + " memory (this plan was made for " +
             memory_name(memory) + " memory)");
    if (memory == Memory::device && i.device != device)
      refuse(std::string(what) + " is on device " + std::to_string(i.device) + ", the plan on device " +
             std::to_string(device));
  }

  void run(void* out, const void* in, void* stream) const {
    if (memory == Memory::device) {
      // cudaGetDevice only: current_device() reads every property of the device, host work that
      // each timed launch of a small matrix (or of a distributed one's chunk) would carry.
      const int d = current_device_index();
      if (d != device)
        refuse("the plan was made for device " + std::to_string(device) + " but the current device is " +
               std::to_string(d));
    }
    if (memory == Memory::pinned_host && placement == Placement::out_of_place) return mapped->execute(in, out);
    if (memory == Memory::pinned_host && shape.square()) return transpose_host_in_place_mapped(out, shape, type, kernel);
    Operands op;
    op.in = in;
    op.out = out;
    op.shape = shape;
    op.stream = memory == Memory::device ? stream : nullptr;
    op.scratch = scratch;
    variant->kernels.at(type)(op);
  }
};

Plan::Plan(DType type, std::int64_t rows, std::int64_t cols, Placement placement, Memory memory)
    : impl_(std::make_unique<Impl>()) {
  if (rows <= 0 || cols <= 0) refuse("the matrix is " + std::to_string(rows) + " x " + std::to_string(cols) + ": sizes must be positive");
  const std::int64_t max = std::numeric_limits<std::int64_t>::max();
  if (rows > max / cols || rows * cols > max / static_cast<std::int64_t>(dtype_size(type)))
    refuse("a " + std::to_string(rows) + " x " + std::to_string(cols) + " matrix has more bytes than 64 bits count");
  Impl& p = *impl_;
  p.type = type;
  p.shape = {rows, cols};
  p.placement = placement;
  p.memory = memory;
  DeviceInfo d;
  if (memory != Memory::host) {
    d = current_device();
    if (d.index < 0) refuse(std::string("a plan for ") + memory_name(memory) + " memory needs a CUDA device, and there is none");
    p.device = d.index;
  }
  const tuning::Choice c = tuning::choose(type, p.shape, placement, memory, d.name, d.arch);
  p.kernel = c.variant;
  p.reason = c.reason;
  p.variant = &registry().get(c.variant);
  if (memory == Memory::device && p.variant->scratch_bytes) {
    p.scratch = device_alloc(static_cast<std::size_t>(p.variant->scratch_bytes(type, p.shape)));
    if (p.variant->prepare_scratch) p.variant->prepare_scratch(type, p.shape, p.scratch);
  }
  if (memory == Memory::pinned_host && placement == Placement::out_of_place) {
    PipelineOptions o;
    o.access = HostAccess::mapped;
    o.kernel = p.kernel;
    p.mapped = std::make_unique<HostTransposePlan>(p.shape, type, o);
  }
}

Plan::~Plan() = default;
Plan::Plan(Plan&&) noexcept = default;
Plan& Plan::operator=(Plan&&) noexcept = default;

void Plan::execute(void* dst, const void* src, void* stream) const {
  const Impl& p = *impl_;
  if (p.placement != Placement::out_of_place) refuse("this plan transposes in place: call execute_in_place(data, stream)");
  p.check_pointer(src, "the source");
  p.check_pointer(dst, "the destination");
  const auto bytes = static_cast<std::uintptr_t>(p.shape.elements() * dtype_size(p.type));
  const auto s = reinterpret_cast<std::uintptr_t>(src), d = reinterpret_cast<std::uintptr_t>(dst);
  if (s < d + bytes && d < s + bytes)
    refuse("source and destination overlap; an out-of-place transpose needs two buffers (use transpose_in_place)");
  p.run(dst, src, stream);
}

void Plan::execute_in_place(void* data, void* stream) const {
  const Impl& p = *impl_;
  if (p.placement != Placement::in_place) refuse("this plan transposes out of place: call execute(dst, src, stream)");
  p.check_pointer(data, "the matrix");
  p.run(data, data, stream);
}

const std::string& Plan::kernel() const { return impl_->kernel; }
const std::string& Plan::reason() const { return impl_->reason; }

void transpose(void* dst, const void* src, DType type, std::int64_t rows, std::int64_t cols, void* stream) {
  if (!src) refuse("the source is a null pointer");
  Plan(type, rows, cols, Placement::out_of_place, memory_of(src)).execute(dst, src, stream);
}

void transpose_in_place(void* data, DType type, std::int64_t rows, std::int64_t cols, void* stream) {
  if (!data) refuse("the matrix is a null pointer");
  Plan(type, rows, cols, Placement::in_place, memory_of(data)).execute_in_place(data, stream);
}

}  // namespace tlab
