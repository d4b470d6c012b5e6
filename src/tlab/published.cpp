#include "tlab/published.hpp"

#include <cstdlib>
#include <stdexcept>

#include "tlab/csv.hpp"

#ifndef TLAB_SOURCE_DIR
#define TLAB_SOURCE_DIR "."
#endif

namespace tlab {

std::string published_dir() {
  if (const char* d = std::getenv("TLAB_DATA_DIR"); d && *d) return d;
  return std::string(TLAB_SOURCE_DIR) + "/data/published";
}

std::vector<Record> read_records(const std::string& path, const std::vector<std::string>& required) {
  const auto rows = csv_parse(read_file(path));
  if (rows.size() < 2) throw std::runtime_error(path + ": no data rows");
  const auto& header = rows[0];
  for (const auto& col : required) {
    bool found = false;
    for (const auto& h : header) found = found || h == col;
    if (!found) throw std::runtime_error(path + ": missing column '" + col + "'");
  }
  std::vector<Record> out;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    if (rows[i].size() != header.size())
      throw std::runtime_error(path + ": row " + std::to_string(i + 1) + " has " + std::to_string(rows[i].size()) +
                               " fields, the header " + std::to_string(header.size()));
    Record rec;
    for (std::size_t j = 0; j < header.size(); ++j) rec[header[j]] = rows[i][j];
    out.push_back(std::move(rec));
  }
  return out;
}

}  // namespace tlab
