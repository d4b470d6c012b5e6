// The shapes tlab-tune scores each tuning class at (tlab/api/tuning.hpp has the classes):
// shared by the tool and by the test that every committed table has a row for each class an
// element size can fall in.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "tlab/matrix.hpp"
#include "tlab/transpose.hpp"

namespace tlab::tuning {

struct Case {
  Placement placement;
  std::string shape_class;
  std::vector<Shape> shapes;  // empty: by element size (shapes_of)
};

// Every class tlab-tune measures, in the order its tables list them.
const std::vector<Case>& cases();

// The shapes of `c` for `elem`-byte elements that are in the class (none where an element size
// never falls in it: 16-byte rows are always whole 16-byte words).
std::vector<Shape> shapes_of(const Case& c, std::size_t elem);

}  // namespace tlab::tuning
