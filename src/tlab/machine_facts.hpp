// Facts about the CPU and memory, each from whichever source answers first, and where it came
// from. Machines differ: a VM or container may have no /sys/devices/system/cpu/cpu0/cache, an
// Arm /proc/cpuinfo has no "model name". A fact no source gives is left empty, never guessed.
#pragma once
#include <string>
#include <vector>

namespace tlab {

struct Fact {
  std::string key;     // the env.json key: cpu_model, cpu_logical_cores, cache_l1d, ...
  std::string value;   // empty: no source gave it
  std::string source;  // "sysfs", "procfs", "sysconf" or "cpuid"; empty with value
};

// In the order env.json records them: cpu_model, cpu_logical_cores, cpu_governor, cache_l1d,
// cache_l1i, cache_l2, cache_l3, memory_total. Cache sizes read "48K" (KiB, as sysfs writes
// them) from every source; memory "N kB" (as /proc/meminfo writes it).
//
// Sources, tried in this order per fact: sysfs, procfs, sysconf, cpuid (x86 only).
// Environment, for machines unlike this one and for tests:
//   TLAB_SYSFS_ROOT   where sysfs is (default /sys); an empty folder hides it
//   TLAB_PROC_ROOT    where procfs is (default /proc)
//   TLAB_ENV_SOURCES  the sources allowed, comma-separated (default: all; "none" allows none)
std::vector<Fact> machine_facts();

// The value of one fact ("" when absent).
std::string fact_value(const std::vector<Fact>& facts, const std::string& key);

// Cache sizes straight from the CPU (leaf 4 on Intel, 0x8000001D or 0x80000005/6 on AMD),
// keyed cache_l1d, cache_l1i, cache_l2, cache_l3; empty off x86. Exposed for tests.
std::vector<Fact> cpuid_caches();
std::string cpuid_brand();  // the brand string, "" off x86 or when the CPU has none

}  // namespace tlab
