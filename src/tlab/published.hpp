// Reads the seeds' published tables (data/published/*.csv) so that an experiment can set
// them beside its own results as percentages of each GPU's own ceiling.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace tlab {

using Record = std::map<std::string, std::string>;

// The data/published folder: $TLAB_DATA_DIR when set, else the source tree's.
std::string published_dir();
// Rows of a CSV file as column -> value maps. Throws std::runtime_error naming the file when
// it is missing, empty, ragged, or lacks one of `required` columns.
std::vector<Record> read_records(const std::string& path, const std::vector<std::string>& required);

}  // namespace tlab
