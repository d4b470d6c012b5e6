// What a results folder records about the machine, build and run that produced it.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace tlab {

using Fields = std::vector<std::pair<std::string, std::string>>;

// Host, CPU, caches, memory, OS, compiler and flags, git commit and dirty flag, date,
// command line; GPU fields are appended by the GPU executor when one exists. Machine facts
// come from whichever source answers (machine_facts.hpp); fact_sources names it per fact, and
// not_recorded lists the facts no source gave (absent from the record, never guessed).
Fields capture_environment(const std::string& command_line);

// Which source tree the programs were built from: project_version (meson.build), and
// git_commit with git_dirty only when SOURCE_DIR is itself the top of a git checkout
// ("not a git checkout" otherwise, e.g. a copy unpacked inside another repository), unless
// TLAB_GIT_COMMIT (and TLAB_GIT_DIRTY) name them for a copy made elsewhere.
Fields source_provenance(const std::string& source_dir);

// A flat JSON object of string values (the report's Lua filter reads exactly this form).
std::string to_json(const Fields& f);
Fields parse_flat_json(const std::string& text);  // throws std::runtime_error

// Short machine name for results folders: the GPU model when a CUDA device is usable,
// else the CPU model, lower-case, with runs of other characters turned into '-'.
std::string machine_tag();
std::string slug(const std::string& s);

std::string cpu_model();
std::string load_average();  // the 1-minute load average, from /proc/loadavg

// What nvidia-smi reports about GPU 0 that changes a number: clocks (now and max), power
// limit and draw, ECC, persistence, temperature, and why clocks are held back. Empty
// without nvidia-smi. Keys start with "gpu_smi_".
Fields nvidia_smi_fields();
std::string utc_now_iso();

}  // namespace tlab
