// The environment record: flat JSON writing and reading, slugs, machine tags.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <string>

#include "support.hpp"
#include "tlab/env.hpp"
#include "tlab/machine_facts.hpp"

using namespace tlab;
using tlab_test::ScopedEnv;
using tlab_test::TempDir;

namespace {

void write_file(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

const Fact* find_fact(const std::vector<Fact>& facts, const std::string& key) {
  for (const auto& f : facts)
    if (f.key == key) return &f;
  return nullptr;
}

std::string get(const Fields& f, const std::string& k) {
  for (const auto& kv : f)
    if (kv.first == k) return kv.second;
  return "<absent>";
}

// Runs a shell command; true when it exits 0.
bool sh(const std::string& cmd) { return std::system((cmd + " >/dev/null 2>&1").c_str()) == 0; }

const bool kX86 =
#if defined(__x86_64__) || defined(__i386__)
    true;
#else
    false;
#endif
}  // namespace

TEST_SUITE("env") {

TEST_CASE("to_json and parse_flat_json round-trip quotes, backslashes, newlines and tabs") {
  const Fields f{{"plain", "value"},
                 {"quote\"key", "say \"hi\""},
                 {"backslash", "C:\\path\\to\\"},
                 {"trailing-backslash", "\\"},
                 {"newline", "line one\nline two\n"},
                 {"tab", "a\tb"},
                 {"empty", ""},
                 {"", "empty key"},
                 {"json-looking", "{\"a\": \"b\", }"},
                 {"utf-8", "\xc2\xb5s \xe2\x86\x92 GB/s"},
                 {"command_line", "exp --variants 'cpu/*' --out \"my results\""}};
  const std::string json = to_json(f);
  CHECK(json.front() == '{');
  CHECK(parse_flat_json(json) == f);
  CHECK(parse_flat_json(to_json({})).empty());
  // Key order is kept, and duplicate keys are not merged away.
  const Fields dup{{"b", "1"}, {"a", "2"}, {"b", "3"}};
  CHECK(parse_flat_json(to_json(dup)) == dup);
}

TEST_CASE("to_json output of every other control character is read back unchanged by parse_flat_json") {
  // to_json writes control characters other than \n and \t as \u00XX (valid JSON);
  // the reader of that very form must turn them back into the same byte.
  for (int c = 1; c < 0x20; ++c) {
    CAPTURE(c);
    const Fields f{{"k", std::string("x") + static_cast<char>(c) + "y"}};
    const std::string json = to_json(f);
    const Fields back = parse_flat_json(json);
    CHECK_MESSAGE(back == f, "written as " << json << "read back as " << (back.empty() ? "nothing" : to_json(back)));
  }
}

TEST_CASE("parse_flat_json reads hand-written flat JSON with any spacing") {
  CHECK(parse_flat_json("{}") == Fields{});
  CHECK(parse_flat_json("  {\"a\":\"1\",\"b\" : \"2\"}\n") == Fields{{"a", "1"}, {"b", "2"}});
  CHECK(parse_flat_json("{\n\t\"x\": \"a\\\"b\"\n}") == Fields{{"x", "a\"b"}});
}

TEST_CASE("parse_flat_json throws on garbage") {
  for (const char* bad : {"", "garbage", "{", "[\"a\"]", "{\"a\"}", "{\"a\":}", "{\"a\" \"b\"}", "{\"a\":\"b\"",
                          "{\"a\":\"b", "{\"a\":1}", "{a:\"b\"}", "\"a\":\"b\"", "{\"a\":\"b\",", "{\"a\":null}"}) {
    CAPTURE(std::string(bad));
    CHECK_THROWS_AS(parse_flat_json(bad), std::runtime_error);
  }
}

TEST_CASE("slug lower-cases and joins runs of other characters with one dash") {
  CHECK(slug("NVIDIA H100 80GB HBM3") == "nvidia-h100-80gb-hbm3");
  CHECK(slug("  Intel(R) Xeon(R)  Gold 6230 ") == "intel-r-xeon-r-gold-6230");
  CHECK(slug("a--b__c") == "a-b-c");
  CHECK(slug("ABC") == "abc");
  CHECK(slug("") == "unknown");
  CHECK(slug("---") == "unknown");
}

TEST_CASE("the machine tag is a clean slug") {
  const std::string tag = machine_tag();
  CAPTURE(tag);
  CHECK(std::regex_match(tag, std::regex("[a-z0-9]+(-[a-z0-9]+)*")));
  const std::string model = cpu_model();
  if (model.find("(R)") != std::string::npos && tag.find("intel") == 0)
    CHECK(tag.find("-r-") == std::string::npos);  // "(R)" marks are dropped, not slugged
  CHECK(slug(tag) == tag);
}

TEST_CASE("capture_environment records the date, host, CPU, compiler, git commit and command line") {
  const std::string cmd = "exp-01 --sizes 2^4 --out \"a b\"";
  const Fields f = capture_environment(cmd);
  std::set<std::string> keys;
  for (const auto& kv : f) keys.insert(kv.first);
  for (const char* k : {"date", "host", "cpu_model", "compiler", "git_commit", "command_line", "os", "build_type"})
    CHECK_MESSAGE(keys.count(k) == 1, "missing key " << k);
  auto get = [&](const std::string& k) {
    for (const auto& kv : f)
      if (kv.first == k) return kv.second;
    return std::string("<absent>");
  };
  CHECK(get("command_line") == cmd);
  CHECK(std::regex_match(get("date"), std::regex("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ")));
  CHECK(get("compiler") != "");
  CHECK(get("cpu_model") != "");
  const std::string commit = get("git_commit");
  CHECK((commit == "not a git checkout" || std::regex_match(commit, std::regex("[0-9a-f]{40}"))));
  // The record survives its own file format.
  CHECK(parse_flat_json(to_json(f)) == f);
}

TEST_CASE("machine facts come from sysfs and procfs first, as those files say") {
  TempDir sys, proc;
  write_file(sys / "devices/system/cpu/online", "0-3,8-9\n");
  write_file(sys / "devices/system/cpu/cpu0/cache/index0/level", "1\n");
  write_file(sys / "devices/system/cpu/cpu0/cache/index0/type", "Data\n");
  write_file(sys / "devices/system/cpu/cpu0/cache/index0/size", "99K\n");
  write_file(sys / "devices/system/cpu/cpu0/cache/index1/level", "3\n");
  write_file(sys / "devices/system/cpu/cpu0/cache/index1/type", "Unified\n");
  write_file(sys / "devices/system/cpu/cpu0/cache/index1/size", "7777K\n");
  write_file(proc / "cpuinfo", "processor\t: 0\nmodel name\t: Planted CPU 9000\n");
  write_file(proc / "meminfo", "MemFree: 1 kB\nMemTotal:       1234 kB\n");
  ScopedEnv s("TLAB_SYSFS_ROOT", sys.path()), p("TLAB_PROC_ROOT", proc.path());
  const auto facts = machine_facts();
  auto check = [&](const char* key, const char* value, const char* source) {
    CAPTURE(key);
    const Fact* f = find_fact(facts, key);
    REQUIRE(f != nullptr);
    CHECK(f->value == value);
    CHECK(f->source == source);
  };
  check("cpu_model", "Planted CPU 9000", "procfs");
  check("cpu_logical_cores", "6", "sysfs");
  check("cache_l1d", "99K", "sysfs");
  check("cache_l3", "7777K", "sysfs");
  check("memory_total", "1234 kB", "procfs");
  // No cpufreq folder planted: the governor has no other source and stays absent.
  check("cpu_governor", "", "");
}

TEST_CASE("an AArch64 CPU is named from its implementer and part, since its cpuinfo has no model name") {
  TempDir proc;
  ScopedEnv p("TLAB_PROC_ROOT", proc.path());
  auto model = [&](const std::string& cpuinfo) {
    write_file(proc / "cpuinfo", cpuinfo);
    const auto facts = machine_facts();
    const Fact* f = find_fact(facts, "cpu_model");
    REQUIRE(f != nullptr);
    return *f;
  };
  const std::string core = "processor\t: 0\nBogoMIPS\t: 2000.00\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\n"
                           "CPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: ";
  const Fact grace = model(core + "0xd4f\nCPU revision\t: 0\n\n");
  CHECK(grace.value == "ARM Neoverse-V2");
  CHECK(grace.source == "procfs");
  CHECK(model(core + "0x999\nCPU revision\t: 0\n").value == "AArch64 CPU implementer 0x41, part 0x999");
  // A model name, where there is one, is what the kernel says the CPU is called.
  CHECK(model("model name\t: Planted CPU 9000\nCPU implementer\t: 0x41\nCPU part\t: 0xd4f\n").value == "Planted CPU 9000");
  // Half the codes name nothing: the next source, or missing.
  CHECK(model("processor\t: 0\nCPU implementer\t: 0x41\n").source != "procfs");
}

TEST_CASE("with sysfs and procfs hidden, machine facts come from sysconf and cpuid") {
  TempDir empty;
  ScopedEnv s("TLAB_SYSFS_ROOT", empty.path()), p("TLAB_PROC_ROOT", empty.path());
  const auto facts = machine_facts();
  const Fact* cores = find_fact(facts, "cpu_logical_cores");
  REQUIRE(cores != nullptr);
  CHECK(cores->source == "sysconf");
  CHECK(std::stoi(cores->value) >= 1);
  const Fact* mem = find_fact(facts, "memory_total");
  REQUIRE(mem != nullptr);
  CHECK(mem->source == "sysconf");
  CHECK(std::regex_match(mem->value, std::regex("[1-9][0-9]* kB")));
  if (kX86) {
    // The CPU itself always answers on x86: its brand string and its caches.
    const Fact* model = find_fact(facts, "cpu_model");
    REQUIRE(model != nullptr);
    CHECK(model->source == "cpuid");
    CHECK(!model->value.empty());
    const Fact* l1d = find_fact(facts, "cache_l1d");
    REQUIRE(l1d != nullptr);
    CHECK(!l1d->value.empty());
    CHECK((l1d->source == "sysconf" || l1d->source == "cpuid"));
  }
  // And the whole record is still written and read back.
  const Fields f = capture_environment("hidden sysfs");
  CHECK(get(f, "cpu_logical_cores") == cores->value);
  CHECK(parse_flat_json(to_json(f)) == f);
}

TEST_CASE("cpuid reports plausible cache sizes on x86, the same L1d as sysconf where both answer") {
  const auto caches = cpuid_caches();
  if (!kX86) {
    CHECK(caches.empty());
    return;
  }
  const std::string l1d = fact_value(caches, "cache_l1d");
  CAPTURE(l1d);
  REQUIRE(std::regex_match(l1d, std::regex("[0-9]+K")));
  const long kb = std::stol(l1d);
  CHECK(kb >= 8);
  CHECK(kb <= 512);
  TempDir empty;
  ScopedEnv s("TLAB_SYSFS_ROOT", empty.path()), src("TLAB_ENV_SOURCES", "sysconf");
  const std::string via_sysconf = fact_value(machine_facts(), "cache_l1d");
  if (!via_sysconf.empty()) CHECK(via_sysconf == l1d);
}

TEST_CASE("a machine fact that no source gives is absent from the record and named in not_recorded") {
  ScopedEnv none("TLAB_ENV_SOURCES", "none");
  const Fields f = capture_environment("no sources");
  for (const char* k : {"cpu_model", "cpu_logical_cores", "cache_l1d", "cache_l2", "cache_l3", "memory_total"}) {
    CAPTURE(k);
    CHECK(get(f, k) == "<absent>");
    CHECK(("," + get(f, "not_recorded") + ",").find(std::string(",") + k + ",") != std::string::npos);
  }
  // The rest of the record is still there, and the machine tag still a clean slug.
  CHECK(get(f, "date") != "<absent>");
  CHECK(get(f, "command_line") == "no sources");
  CHECK(parse_flat_json(to_json(f)) == f);
  CHECK(cpu_model() == "unknown-cpu");
}

TEST_CASE("git_commit names the project's own checkout only, never an enclosing repository") {
  REQUIRE_MESSAGE(sh("git --version"), "git is needed (scripts/install-deps installs it)");
  ScopedEnv no_given("TLAB_GIT_COMMIT", "");
  TempDir outer;
  const std::string q = "'" + outer.path() + "'";
  const std::string git = "git -C " + q + " -c user.email=t@example.invalid -c user.name=t ";
  REQUIRE(sh("git init -q " + q));
  write_file(outer / "project/meson.build", "project('x')\n");
  REQUIRE(sh(git + "add -A"));
  REQUIRE(sh(git + "commit -q -m one"));

  // The repository's own top: its commit, clean.
  Fields own = source_provenance(outer.path());
  CHECK(std::regex_match(get(own, "git_commit"), std::regex("[0-9a-f]{40}")));
  CHECK(get(own, "git_dirty") == "no");
  CHECK(get(own, "project_version") != "<absent>");
  write_file(outer / "project/meson.build", "project('y')\n");  // changed, not staged
  CHECK(get(source_provenance(outer.path()), "git_dirty") == "yes");

  // A copy unpacked inside that repository (a folder below its top) is not its checkout.
  const Fields inner = source_provenance(outer / "project");
  CHECK(get(inner, "git_commit") == "not a git checkout");
  CHECK(get(inner, "git_dirty") == "<absent>");
  CHECK(get(inner, "project_version") == get(own, "project_version"));

  // Outside any repository.
  TempDir plain;
  CHECK(get(source_provenance(plain.path()), "git_commit") == "not a git checkout");

  // A copy made elsewhere says where it came from.
  ScopedEnv given("TLAB_GIT_COMMIT", "0123abcd"), dirty("TLAB_GIT_DIRTY", "no");
  const Fields told = source_provenance(plain.path());
  CHECK(get(told, "git_commit") == "0123abcd");
  CHECK(get(told, "git_dirty") == "no");
}

}  // TEST_SUITE("env")
