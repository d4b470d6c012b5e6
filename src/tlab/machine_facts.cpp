#include "tlab/machine_facts.hpp"

#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define TLAB_HAVE_CPUID 1
#endif

namespace tlab {

namespace {

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

std::string root_of(const char* var, const char* fallback) {
  const char* v = std::getenv(var);
  return v && *v ? v : fallback;
}

bool allowed(const std::string& source) {
  const char* v = std::getenv("TLAB_ENV_SOURCES");
  if (!v || !*v) return true;
  std::stringstream ss(v);
  for (std::string s; std::getline(ss, s, ',');)
    if (trim(s) == source) return true;
  return false;
}

std::string first_line(const std::string& path) {
  std::ifstream f(path);
  std::string line;
  return f && std::getline(f, line) ? trim(line) : "";
}

std::string proc_value(const std::string& file, const std::string& key) {
  std::ifstream f(file);
  for (std::string line; std::getline(f, line);) {
    const auto colon = line.find(':');
    if (colon != std::string::npos && trim(line.substr(0, colon)) == key) return trim(line.substr(colon + 1));
  }
  return "";
}

// AArch64's /proc/cpuinfo has no "model name": its cores say who designed them ("CPU
// implementer") and which design they are ("CPU part"), the MIDR fields. A few designs by
// their published names (the Linux kernel's and util-linux's tables); any other by its codes.
std::string arm_cpu_name(const std::string& cpuinfo) {
  const std::string implementer = proc_value(cpuinfo, "CPU implementer"), part = proc_value(cpuinfo, "CPU part");
  if (implementer.empty() || part.empty()) return "";
  struct Design {
    const char *implementer, *part, *name;
  };
  static const Design designs[] = {
      {"0x41", "0xd03", "ARM Cortex-A53"},     {"0x41", "0xd08", "ARM Cortex-A72"},
      {"0x41", "0xd0b", "ARM Cortex-A76"},     {"0x41", "0xd0c", "ARM Neoverse-N1"},
      {"0x41", "0xd40", "ARM Neoverse-V1"},    {"0x41", "0xd49", "ARM Neoverse-N2"},
      {"0x41", "0xd4f", "ARM Neoverse-V2"},    {"0x41", "0xd84", "ARM Neoverse-V3"},
      {"0x41", "0xd8e", "ARM Neoverse-N3"},    {"0xc0", "0xac3", "Ampere Ampere-1"},
      {"0xc0", "0xac4", "Ampere Ampere-1a"},   {"0x48", "0xd01", "HiSilicon Kunpeng-920"},
      {"0x46", "0x001", "Fujitsu A64FX"},
  };
  for (const Design& d : designs)
    if (implementer == d.implementer && part == d.part) return d.name;
  return "AArch64 CPU implementer " + implementer + ", part " + part;
}

std::string kib(long long bytes) { return bytes > 0 ? std::to_string(bytes / 1024) + "K" : ""; }

// "0-3,8-11" -> 8
std::string count_cpu_list(const std::string& list) {
  if (list.empty()) return "";
  long long n = 0;
  std::stringstream ss(list);
  for (std::string part; std::getline(ss, part, ',');) {
    const auto dash = part.find('-');
    try {
      n += dash == std::string::npos ? 1 : std::stoll(part.substr(dash + 1)) - std::stoll(part.substr(0, dash)) + 1;
    } catch (const std::exception&) {
      return "";
    }
  }
  return n > 0 ? std::to_string(n) : "";
}

// One fact: the first source whose reader gives a non-empty value.
using Reader = std::function<std::string()>;
Fact first_of(const std::string& key, const std::vector<std::pair<std::string, Reader>>& sources) {
  for (const auto& [name, read] : sources) {
    if (!allowed(name)) continue;
    std::string v = read();
    if (!v.empty()) return {key, v, name};
  }
  return {key, "", ""};
}

const char* const kCacheKeys[] = {"cache_l1d", "cache_l1i", "cache_l2", "cache_l3"};

std::string sysfs_cache(const std::string& sys, const std::string& key) {
  for (int i = 0; i < 16; ++i) {
    const std::string base = sys + "/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    const std::string level = first_line(base + "level");
    if (level.empty()) break;
    const std::string type = first_line(base + "type");
    if ("cache_l" + level + (type == "Data" ? "d" : type == "Instruction" ? "i" : "") == key) {
      return first_line(base + "size");
    }
  }
  return "";
}

std::string sysconf_cache(const std::string& key) {
#if defined(_SC_LEVEL1_DCACHE_SIZE)
  const int name = key == "cache_l1d"   ? _SC_LEVEL1_DCACHE_SIZE
                   : key == "cache_l1i" ? _SC_LEVEL1_ICACHE_SIZE
                   : key == "cache_l2"  ? _SC_LEVEL2_CACHE_SIZE
                                        : _SC_LEVEL3_CACHE_SIZE;
  return kib(sysconf(name));
#else
  (void)key;
  return "";
#endif
}

}  // namespace

#if defined(TLAB_HAVE_CPUID)
namespace {
struct Regs {
  unsigned a = 0, b = 0, c = 0, d = 0;
};
Regs cpuid(unsigned leaf, unsigned sub = 0) {
  Regs r;
  __cpuid_count(leaf, sub, r.a, r.b, r.c, r.d);
  return r;
}
// Leaf 4 (Intel) and 0x8000001D (AMD) share one layout: type, level, ways, partitions, line, sets.
void deterministic_caches(unsigned leaf, std::vector<Fact>& out) {
  for (unsigned sub = 0; sub < 16; ++sub) {
    const Regs r = cpuid(leaf, sub);
    const unsigned type = r.a & 0x1f, level = (r.a >> 5) & 0x7;
    if (type == 0) break;
    const long long bytes = (long long)(((r.b >> 22) & 0x3ff) + 1) * (((r.b >> 12) & 0x3ff) + 1) *
                            ((r.b & 0xfff) + 1) * ((long long)r.c + 1);
    const std::string key = "cache_l" + std::to_string(level) + (type == 1 ? "d" : type == 2 ? "i" : "");
    out.push_back({key, kib(bytes), "cpuid"});
  }
}
}  // namespace

std::vector<Fact> cpuid_caches() {
  std::vector<Fact> out;
  const Regs v = cpuid(0);
  char vendor[13] = {0};
  std::memcpy(vendor, &v.b, 4);
  std::memcpy(vendor + 4, &v.d, 4);
  std::memcpy(vendor + 8, &v.c, 4);
  const std::string ven = vendor;
  const unsigned max_ext = cpuid(0x80000000).a;
  if (ven == "GenuineIntel" && v.a >= 4) {
    deterministic_caches(4, out);
  } else if (max_ext >= 0x8000001D && (cpuid(0x80000001).c & (1u << 22))) {  // AMD with topology extensions
    deterministic_caches(0x8000001D, out);
  } else if (max_ext >= 0x80000006) {  // older AMD: sizes in KiB straight from two leaves
    const Regs l1 = cpuid(0x80000005), l23 = cpuid(0x80000006);
    out.push_back({"cache_l1d", kib((long long)(l1.c >> 24) * 1024), "cpuid"});
    out.push_back({"cache_l1i", kib((long long)(l1.d >> 24) * 1024), "cpuid"});
    out.push_back({"cache_l2", kib((long long)(l23.c >> 16) * 1024), "cpuid"});
    out.push_back({"cache_l3", kib((long long)(l23.d >> 18) * 512 * 1024), "cpuid"});
  }
  return out;
}

std::string cpuid_brand() {
  if (cpuid(0x80000000).a < 0x80000004) return "";
  char brand[49] = {0};
  for (unsigned i = 0; i < 3; ++i) {
    const Regs r = cpuid(0x80000002 + i);
    std::memcpy(brand + 16 * i, &r.a, 4);
    std::memcpy(brand + 16 * i + 4, &r.b, 4);
    std::memcpy(brand + 16 * i + 8, &r.c, 4);
    std::memcpy(brand + 16 * i + 12, &r.d, 4);
  }
  return trim(brand);
}
#else
std::vector<Fact> cpuid_caches() { return {}; }
std::string cpuid_brand() { return ""; }
#endif

std::vector<Fact> machine_facts() {
  const std::string sys = root_of("TLAB_SYSFS_ROOT", "/sys"), proc = root_of("TLAB_PROC_ROOT", "/proc");
  const std::string cpuinfo = proc + "/cpuinfo";
  std::vector<Fact> out;
  out.push_back(first_of("cpu_model", {{"procfs", [&] {
                                          const std::string name = proc_value(cpuinfo, "model name");
                                          return name.empty() ? arm_cpu_name(cpuinfo) : name;
                                        }},
                                       {"cpuid", [] { return cpuid_brand(); }}}));
  out.push_back(first_of(
      "cpu_logical_cores",
      {{"sysfs", [&] { return count_cpu_list(first_line(sys + "/devices/system/cpu/online")); }},
       {"sysconf", [] { const long n = sysconf(_SC_NPROCESSORS_ONLN); return n > 0 ? std::to_string(n) : ""; }},
       {"procfs", [&] {
          std::ifstream f(cpuinfo);
          long n = 0;
          for (std::string line; std::getline(f, line);) n += line.compare(0, 9, "processor") == 0;
          return n > 0 ? std::to_string(n) : std::string();
        }}}));
  out.push_back(first_of("cpu_governor", {{"sysfs", [&] {
                                             return first_line(sys + "/devices/system/cpu/cpu0/cpufreq/scaling_governor");
                                           }}}));
  const std::vector<Fact> from_cpuid = allowed("cpuid") ? cpuid_caches() : std::vector<Fact>{};
  for (const char* key : kCacheKeys) {
    out.push_back(first_of(key, {{"sysfs", [&] { return sysfs_cache(sys, key); }},
                                 {"sysconf", [&] { return sysconf_cache(key); }},
                                 {"cpuid", [&] { return fact_value(from_cpuid, key); }}}));
  }
  out.push_back(first_of("memory_total", {{"procfs", [&] { return proc_value(proc + "/meminfo", "MemTotal"); }},
                                          {"sysconf", [] {
                                             const long long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
                                             return pages > 0 && size > 0 ? std::to_string(pages * size / 1024) + " kB"
                                                                          : std::string();
                                           }}}));
  return out;
}

std::string fact_value(const std::vector<Fact>& facts, const std::string& key) {
  for (const auto& f : facts)
    if (f.key == key && !f.value.empty()) return f.value;
  return "";
}

}  // namespace tlab
