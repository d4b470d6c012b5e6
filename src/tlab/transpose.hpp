// transpose-lab as a library: transpose a row-major matrix with the fastest kernel this
// package measured for your element type, shape and GPU, without knowing the kernels' names.
//
//   tlab::transpose(dst, src, tlab::DType::f32, rows, cols, stream);   // dst: cols x rows
//   tlab::transpose_in_place(data, tlab::DType::u8, rows, cols, stream); // any rows x cols
//
// or, to choose once and run many times (the choice and any scratch memory are made once):
//
//   tlab::Plan plan(tlab::DType::f64, rows, cols, tlab::Placement::out_of_place);
//   plan.execute(dst, src, stream);
//
// Where the data lives decides how: device (or managed) memory runs a GPU kernel on
// `stream` (asynchronous, like a kernel launch); page-locked host memory runs a zero-copy GPU
// kernel and pageable host memory a CPU one, both before the call returns. The kernel comes
// from a tuning table for (GPU, element size, in place or not, shape class) written by
// `tlab-tune`; without a table for this GPU a built-in default is used. plan.kernel() and
// plan.reason() say which and why.
//
// Bad arguments (null, misaligned or overlapping pointers, empty or overflowing shapes, host
// memory passed to a device plan, memory of another device) throw std::invalid_argument before
// anything is written; a GPU error throws std::runtime_error.
//
// A plan may own scratch memory (in place, rows != cols): run one plan on one stream at a
// time, or make one plan per stream.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "tlab/dtype.hpp"
#include "tlab/registry.hpp"

namespace tlab {

enum class Memory { device, pinned_host, host };
const char* memory_name(Memory m);

class Plan {
 public:
  // A plan for a rows x cols matrix of `type` in `memory`; device plans are for the current
  // CUDA device. In place, any rows x cols (not only square).
  Plan(DType type, std::int64_t rows, std::int64_t cols, Placement placement, Memory memory = Memory::device);
  ~Plan();
  Plan(Plan&&) noexcept;
  Plan& operator=(Plan&&) noexcept;

  // Out of place: dst (cols x rows) = transpose of src (rows x cols).
  void execute(void* dst, const void* src, void* stream = nullptr) const;
  // In place: data (rows x cols) becomes its cols x rows transpose.
  void execute_in_place(void* data, void* stream = nullptr) const;

  const std::string& kernel() const;  // the registered variant that runs
  const std::string& reason() const;  // where that choice came from (table row or default)

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One-shot forms: the memory kind is read from the pointers.
void transpose(void* dst, const void* src, DType type, std::int64_t rows, std::int64_t cols, void* stream = nullptr);
void transpose_in_place(void* data, DType type, std::int64_t rows, std::int64_t cols, void* stream = nullptr);

}  // namespace tlab
