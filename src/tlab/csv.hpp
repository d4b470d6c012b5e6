// CSV text (RFC 4180 quoting) and atomic file writes: a reader never sees a half-written file.
#pragma once
#include <string>
#include <vector>

namespace tlab {

std::string csv_field(const std::string& s);  // quoted only when it must be
std::string csv_line(const std::vector<std::string>& fields);  // ends with "\n"
// Parses one CSV document into rows of fields (quoted fields, embedded commas, quotes and
// newlines). Throws std::runtime_error on an unterminated quote.
std::vector<std::vector<std::string>> csv_parse(const std::string& text);

// Writes `content` to a temporary file beside `path`, flushes it, then renames it over
// `path`. Throws std::runtime_error naming the path when the folder is missing or unwritable.
void write_file_atomic(const std::string& path, const std::string& content);

// Creates a folder and its parents; throws std::runtime_error naming it on failure.
void make_dirs(const std::string& dir);

std::string read_file(const std::string& path);  // throws std::runtime_error

}  // namespace tlab
