// The matrix sorts an experiment can time, by name, for any element type the sort supports,
// and the checks a sorted result must pass.
#pragma once
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "tlab/dtype.hpp"
#include "tlab/matrix.hpp"

namespace tlab::sort {

struct SortVariant {
  std::string name;  // "cpu/sort-sequential", ...
  std::string note;
  unsigned threads;  // host threads it uses
  // Sorts the rows x cols matrix in place; returns the iterations of "sort rows, sort
  // columns" it ran (1 for the one-pass sorts).
  std::function<int(DType, void*, Shape)> run;
};

const std::vector<SortVariant>& sort_variants();
const std::vector<DType>& sort_types();  // int32, float, double

// Calls f(T{}) for the element type T of t, one of sort_types(); throws std::invalid_argument
// for the others.
template <typename F> auto with_sort_type(DType t, F f) {
  switch (t) {
    case DType::i32: return f(std::int32_t{});
    case DType::f32: return f(float{});
    case DType::f64: return f(double{});
    default: throw std::invalid_argument(std::string("matrix sort: no ") + dtype_name(t) + " version");
  }
}

// Order-independent fingerprint of the elements' bit patterns: equal for any permutation,
// different (with overwhelming probability) when an element is lost or changed.
std::uint64_t multiset_fingerprint(const void* data, std::int64_t count, DType t);
bool rows_and_columns_sorted(const void* data, Shape s, DType t);

}  // namespace tlab::sort
