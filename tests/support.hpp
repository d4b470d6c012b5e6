// Helpers shared by the CPU test files (tests/*.cpp). Header-only, tests only.
#pragma once
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "tlab/executor.hpp"
#include "tlab/registry.hpp"

namespace tlab_test {

// Whether `got`, an m x n matrix whose elements were their own row-major indices, now holds
// its n x m transpose.
inline bool is_index_transpose(const std::vector<std::int64_t>& got, std::int64_t m, std::int64_t n) {
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i)
      if (got[j * m + i] != i * n + j) return false;
  return true;
}

// The process-wide registry with the -O0..-O3 copies added, exactly once: a second
// register_cpu_opt_level_variants on the same registry throws (duplicate names).
inline tlab::Registry& full_registry() {
  static tlab::Registry& r = []() -> tlab::Registry& {
    tlab::Registry& g = tlab::registry();
    tlab::register_cpu_opt_level_variants(g);
    return g;
  }();
  return r;
}

// Every CPU variant that claims to be correct.
inline std::vector<const tlab::Variant*> cpu_variants() {
  std::vector<const tlab::Variant*> out;
  for (const auto& v : full_registry().all())
    if (v.backend == tlab::Backend::cpu && !v.known_wrong) out.push_back(&v);
  return out;
}

inline tlab::Executor& cpu_executor() {
  std::string why;
  tlab::Executor* e = tlab::executor_for(tlab::Backend::cpu, &why);
  if (!e) throw std::runtime_error("no CPU executor: " + why);
  return *e;
}

// Sets an environment variable for one scope and puts back what was there.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() { had_ ? setenv(name_, old_.c_str(), 1) : unsetenv(name_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

// A fresh, empty folder under $TMPDIR (or /tmp), removed with everything in it when the
// object goes out of scope.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/tlab-test.XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data())) throw std::runtime_error("mkdtemp failed for " + tmpl);
    path_ = buf.data();
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Names of the entries of a folder (not recursive).
inline std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) out.push_back(e.path().filename().string());
  return out;
}

inline bool any_tmp_file(const std::string& dir) {
  for (const auto& name : list_dir(dir))
    if (name.find(".tmp.") != std::string::npos) return true;
  return false;
}

}  // namespace tlab_test
