#include "tlab/dtype.hpp"

namespace tlab {

DType parse_dtype(const std::string& name) {
  std::string known;
  for (DType t : all_dtypes()) {
    if (name == dtype_name(t)) return t;
    known += (known.empty() ? "" : ", ") + std::string(dtype_name(t));
  }
  if (name == "int" || name == "i32") return DType::i32;
  if (name == "f32") return DType::f32;
  if (name == "f64") return DType::f64;
  throw std::invalid_argument("unknown element type '" + name + "' (known: " + known + ")");
}

}  // namespace tlab
