// The environment record: flat JSON writing and reading, slugs, machine tags.
#include <doctest/doctest.h>

#include <regex>
#include <set>
#include <string>

#include "tlab/env.hpp"

using namespace tlab;

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
  CHECK((commit == "unknown" || std::regex_match(commit, std::regex("[0-9a-f]{40}"))));
  // The record survives its own file format.
  CHECK(parse_flat_json(to_json(f)) == f);
}

}  // TEST_SUITE("env")
