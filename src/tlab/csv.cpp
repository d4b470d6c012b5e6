#include "tlab/csv.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace tlab {

std::string csv_field(const std::string& s) {
  const bool needs = s.find_first_of(",\"\r\n") != std::string::npos ||
                     (!s.empty() && (s.front() == ' ' || s.back() == ' '));
  if (!needs) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

std::string csv_line(const std::vector<std::string>& fields) {
  std::string line;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i) line += ',';
    line += csv_field(fields[i]);
  }
  return line + "\n";
}

std::vector<std::vector<std::string>> csv_parse(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, any = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
      continue;
    }
    any = true;
    if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(field);
      field.clear();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      row.push_back(field);
      rows.push_back(row);
      row.clear();
      field.clear();
      any = false;
    } else {
      field += c;
    }
  }
  if (quoted) throw std::runtime_error("csv: unterminated quoted field");
  if (any || !field.empty()) {
    row.push_back(field);
    rows.push_back(row);
  }
  return rows;
}

void make_dirs(const std::string& dir) {
  if (dir.empty()) return;
  std::string part;
  std::stringstream ss(dir);
  std::string piece;
  if (dir[0] == '/') part = "/";
  while (std::getline(ss, piece, '/')) {
    if (piece.empty()) continue;
    part += piece;
    if (mkdir(part.c_str(), 0777) != 0 && errno != EEXIST)
      throw std::runtime_error("cannot create folder '" + part + "': " + std::strerror(errno));
    struct stat st {};
    if (stat(part.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      throw std::runtime_error("'" + part + "' exists and is not a folder");
    part += "/";
  }
}

void write_file_atomic(const std::string& path, const std::string& content) {
  std::string tmpl = path + ".tmp.XXXXXX";
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  const int fd = mkstemp(name.data());
  if (fd < 0) throw std::runtime_error("cannot write '" + path + "': " + std::strerror(errno));
  const std::string tmp(name.data());
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t w = ::write(fd, content.data() + done, content.size() - done);
    if (w < 0) {
      const int e = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      throw std::runtime_error("cannot write '" + path + "': " + std::strerror(e));
    }
    done += static_cast<std::size_t>(w);
  }
  fchmod(fd, 0644);
  if (::fsync(fd) != 0 || ::close(fd) != 0 || std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error("cannot write '" + path + "': " + std::strerror(e));
  }
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read '" + path + "'");
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace tlab
