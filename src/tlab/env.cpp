#include "tlab/env.hpp"

#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "tlab/executor.hpp"
#include "tlab/machine_facts.hpp"

#ifndef TLAB_SOURCE_DIR
#define TLAB_SOURCE_DIR "."
#endif
#ifndef TLAB_CXX_FLAGS
#define TLAB_CXX_FLAGS "unknown"
#endif
#ifndef TLAB_VERSION
#define TLAB_VERSION "unknown"
#endif
#ifndef TLAB_BUILD_TYPE
#define TLAB_BUILD_TYPE "unknown"
#endif

namespace tlab {

namespace {
std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

std::string first_line_of(const std::string& path) {
  std::ifstream f(path);
  std::string line;
  if (!f || !std::getline(f, line)) return "";
  return trim(line);
}

std::string command_output(const std::string& cmd) {
  std::string out;
  if (FILE* p = popen((cmd + " 2>/dev/null").c_str(), "r")) {
    char buf[256];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    if (pclose(p) != 0) return "";
  }
  return trim(out);
}

// The same folder, however each path spells it (symbolic links, trailing slashes).
bool same_directory(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  return stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
}  // namespace

std::string cpu_model() {
  std::string m = fact_value(machine_facts(), "cpu_model");
  return m.empty() ? "unknown-cpu" : m;
}

std::string load_average() {
  const char* proc = std::getenv("TLAB_PROC_ROOT");
  const std::string line = first_line_of(std::string(proc && *proc ? proc : "/proc") + "/loadavg");
  return line.substr(0, line.find(' '));
}

Fields source_provenance(const std::string& source_dir) {
  Fields f;
  f.emplace_back("project_version", TLAB_VERSION);
  // A copy of the tree without .git (a lent GPU machine, a container) gets the commit from
  // whoever made the copy, through TLAB_GIT_COMMIT and TLAB_GIT_DIRTY.
  const char* given = std::getenv("TLAB_GIT_COMMIT");
  if (given && *given) {
    const char* d = std::getenv("TLAB_GIT_DIRTY");
    f.emplace_back("git_commit", given);
    f.emplace_back("git_dirty", d && *d ? d : "unknown");
    return f;
  }
  // Only the project's own repository names its commit: a copy unpacked inside another
  // checkout would otherwise record the enclosing repository's.
  const std::string q = "'" + source_dir + "'";
  const std::string top = command_output("git -C " + q + " rev-parse --show-toplevel");
  if (top.empty() || !same_directory(top, source_dir)) {
    f.emplace_back("git_commit", "not a git checkout");
    return f;
  }
  const std::string commit = command_output("git -C " + q + " rev-parse HEAD");
  if (commit.empty()) {  // a repository with no commit yet
    f.emplace_back("git_commit", "not a git checkout");
    return f;
  }
  f.emplace_back("git_commit", commit);
  // The whole listing: its first character is a space for a file changed but not staged.
  const std::string dirty = command_output("git -C " + q + " status --porcelain --untracked-files=no");
  f.emplace_back("git_dirty", dirty.empty() ? "no" : "yes");
  return f;
}

Fields nvidia_smi_fields() {
  Fields f;
  static const char* kBase[] = {"clocks.sm", "clocks.max.sm", "clocks.mem", "clocks.max.mem", "power.limit",
                                "power.draw", "ecc.mode.current", "persistence_mode", "temperature.gpu",
                                "driver_version"};
  std::string query;
  for (const char* k : kBase) query += (query.empty() ? "" : ",") + std::string(k);
  const std::string base = command_output("nvidia-smi -i 0 --query-gpu=" + query + " --format=csv,noheader");
  if (base.empty()) return f;
  std::vector<std::string> values;
  std::string cur;
  for (char c : base + ",") {
    if (c == ',') {
      values.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  for (std::size_t i = 0; i < values.size() && i < sizeof kBase / sizeof *kBase; ++i) {
    std::string key = kBase[i];
    for (char& c : key)
      if (c == '.') c = '_';
    f.emplace_back("gpu_smi_" + key, values[i]);
  }
  // The field was renamed from clocks_throttle_reasons to clocks_event_reasons; ask for both.
  for (const char* reasons : {"clocks_event_reasons.active", "clocks_throttle_reasons.active"}) {
    const std::string r = command_output(std::string("nvidia-smi -i 0 --query-gpu=") + reasons + " --format=csv,noheader");
    if (!r.empty()) {
      f.emplace_back("gpu_smi_clock_event_reasons", r);
      break;
    }
  }
  return f;
}

std::string utc_now_iso() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string slug(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "unknown" : out;
}

std::string machine_tag() {
  std::string why;
  if (Executor* gpu = executor_for(Backend::gpu, &why)) {
    // A machine with several GPUs gets "-x<N>" (nvidia-h200-x2): its results (experiment 15's
    // above all) are not those of a machine with one.
    std::string count;
    for (const auto& kv : gpu->describe())
      if (kv.first == "gpu_count") count = kv.second;
    return slug(gpu->device_name()) + (!count.empty() && count != "0" && count != "1" ? "-x" + count : "");
  }
  std::string m = cpu_model();
  // Marketing marks and the clock say nothing that tells two machines apart.
  for (const char* noise : {"(R)", "(TM)", "(tm)", " CPU", " Processor"}) {
    for (auto p = m.find(noise); p != std::string::npos; p = m.find(noise)) m.erase(p, std::string(noise).size());
  }
  if (auto at = m.find('@'); at != std::string::npos) m.erase(at);
  return slug(m);
}

Fields capture_environment(const std::string& command_line) {
  Fields f;
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  struct utsname u {};
  uname(&u);
  f.emplace_back("date", utc_now_iso());
  f.emplace_back("host", host);
  f.emplace_back("os", std::string(u.sysname) + " " + u.release + " " + u.machine);
  const std::vector<Fact> facts = machine_facts();
  std::string missing, sources;
  for (const Fact& x : facts) {
    if (x.value.empty()) {
      missing += (missing.empty() ? "" : ",") + x.key;
      continue;
    }
    f.emplace_back(x.key, x.value);
    sources += (sources.empty() ? "" : " ") + x.key + ":" + x.source;
  }
  // CPU kernels run on one thread unless their params say threads=N (the "@all" variants:
  // every logical core at run time); verification uses all of them (not timed).
  f.emplace_back("timed_threads_cpu", "1, or the threads= of the variant's params");
  f.emplace_back("load_average_1min_at_end", load_average());
  f.emplace_back("compiler", std::string(
#if defined(__clang__)
      "clang "
#elif defined(__GNUC__)
      "gcc "
#endif
      __VERSION__));
  f.emplace_back("cxx_flags", TLAB_CXX_FLAGS);
  f.emplace_back("build_type", TLAB_BUILD_TYPE);
  for (auto& kv : source_provenance(TLAB_SOURCE_DIR)) f.push_back(kv);
  f.emplace_back("command_line", command_line);
  // Which source gave each machine fact, and which facts none gave: a reader of another
  // machine's record can tell "not measured" from "not there".
  f.emplace_back("fact_sources", sources);
  if (!missing.empty()) f.emplace_back("not_recorded", missing);
  for (auto& kv : executor_for(Backend::cpu, nullptr)->describe()) f.push_back(kv);
  std::string why;
  if (Executor* gpu = executor_for(Backend::gpu, &why)) {
    for (auto& kv : gpu->describe()) f.push_back(kv);
    for (auto& kv : nvidia_smi_fields()) f.push_back(kv);
  } else {
    f.emplace_back("gpu", "none (" + why + ")");
  }
  return f;
}

std::string to_json(const Fields& f) {
  auto esc = [](const std::string& s) {
    std::string o;
    for (char c : s) {
      switch (c) {
        case '"': o += "\\\""; break;
        case '\\': o += "\\\\"; break;
        case '\n': o += "\\n"; break;
        case '\t': o += "\\t"; break;
        default:
          if (static_cast<unsigned char>(c) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            o += buf;
          } else {
            o += c;
          }
      }
    }
    return o;
  };
  std::string out = "{\n";
  for (std::size_t i = 0; i < f.size(); ++i)
    out += "  \"" + esc(f[i].first) + "\": \"" + esc(f[i].second) + "\"" + (i + 1 < f.size() ? ",\n" : "\n");
  return out + "}\n";
}

Fields parse_flat_json(const std::string& text) {
  Fields f;
  std::size_t i = 0;
  auto fail = [&](const char* what) {
    throw std::runtime_error(std::string("env.json: ") + what + " at byte " + std::to_string(i));
  };
  auto skip = [&] { while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i; };
  auto str = [&] {
    if (text[i] != '"') fail("expected a string");
    std::string s;
    for (++i; i < text.size() && text[i] != '"'; ++i) {
      if (text[i] == '\\' && i + 1 < text.size()) {
        const char e = text[++i];
        switch (e) {
          case 'n': s += '\n'; break;
          case 't': s += '\t'; break;
          case 'r': s += '\r'; break;
          case 'b': s += '\b'; break;
          case 'f': s += '\f'; break;
          case 'u': {
            // Only what to_json writes: \u00XX for control characters.
            if (i + 4 >= text.size()) fail("short \\u escape");
            const unsigned long v = std::stoul(text.substr(i + 1, 4), nullptr, 16);
            if (v > 0xff) fail("\\u escape beyond one byte");
            s += static_cast<char>(v);
            i += 4;
            break;
          }
          default: s += e;  // \" \\ \/
        }
      } else {
        s += text[i];
      }
    }
    if (i >= text.size()) fail("unterminated string");
    ++i;
    return s;
  };
  skip();
  if (i >= text.size() || text[i++] != '{') fail("expected '{'");
  skip();
  while (i < text.size() && text[i] != '}') {
    std::string k = str();
    skip();
    if (text[i++] != ':') fail("expected ':'");
    skip();
    f.emplace_back(k, str());
    skip();
    if (i < text.size() && text[i] == ',') {
      ++i;
      skip();
      if (i < text.size() && text[i] == '}') fail("trailing ','");
    } else if (i < text.size() && text[i] != '}') {
      fail("expected ',' or '}'");
    }
  }
  if (i >= text.size()) fail("expected '}'");
  ++i;
  skip();
  if (i != text.size()) fail("text after the closing '}'");
  return f;
}

}  // namespace tlab
