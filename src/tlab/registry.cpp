#include "tlab/registry.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace tlab {

const char* backend_name(Backend b) { return b == Backend::cpu ? "cpu" : "gpu"; }
const char* placement_name(Placement p) {
  return p == Placement::in_place ? "in-place" : "out-of-place";
}

std::vector<DType> Variant::dtypes() const {
  std::vector<DType> out;
  for (const auto& kv : kernels) out.push_back(kv.first);
  return out;
}

std::string Variant::param(const std::string& key, const std::string& fallback) const {
  for (const auto& p : params)
    if (p.key == key) return p.value;
  return fallback;
}

std::string Variant::params_string() const {
  std::string s;
  for (const auto& p : params) {
    if (!s.empty()) s += ';';
    s += p.key + "=" + p.value;
  }
  return s;
}

std::string Variant::refuses(DType t, Shape s) const {
  if (!supports(t)) return name + " has no " + dtype_name(t) + " kernel";
  if (s.rows <= 0 || s.cols <= 0) return "shape " + to_string(s) + " is empty";
  if ((square_only || (placement == Placement::in_place && !any_shape)) && !s.square())
    return name + " transposes in place and needs a square matrix, not " + to_string(s);
  if (refuses_shape)
    if (std::string why = refuses_shape(t, s); !why.empty()) return name + ": " + why;
  return "";
}

void Registry::add(Variant v) {
  if (find(v.name)) throw std::logic_error("variant registered twice: " + v.name);
  variants_.push_back(std::move(v));
}

const Variant* Registry::find(const std::string& name) const {
  for (const auto& v : variants_)
    if (v.name == name) return &v;
  return nullptr;
}

const Variant& Registry::get(const std::string& name) const {
  if (const Variant* v = find(name)) return *v;
  std::ostringstream msg;
  msg << "unknown variant '" << name << "' (use --list to see the " << variants_.size()
      << " registered variants)";
  throw std::invalid_argument(msg.str());
}

bool glob_match(const std::string& pattern, const std::string& text) {
  return fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

std::vector<const Variant*> Registry::matching(const std::string& glob) const {
  std::vector<const Variant*> out;
  for (const auto& v : variants_)
    if (glob_match(glob, v.name)) out.push_back(&v);
  return out;
}

Registry& registry() {
  static Registry r = [] {
    Registry fresh;
    register_cpu_variants(fresh);
    register_gpu_variants(fresh);
    return fresh;
  }();
  return r;
}

}  // namespace tlab
