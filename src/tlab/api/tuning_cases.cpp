#include "tlab/api/tuning_cases.hpp"

#include <algorithm>
#include <cstdint>

#include "tlab/api/tuning.hpp"

namespace tlab::tuning {

namespace {

// The squares of sides 8192 and 4096 widened by `bytes` (at least one element) of `elem`-byte
// elements: rows just past a power of two by that many bytes.
std::vector<Shape> squares_past(std::int64_t bytes, std::size_t elem) {
  const std::int64_t d = std::max<std::int64_t>(bytes / static_cast<std::int64_t>(elem), 1);
  return {{8192 + d, 8192 + d}, {4096 + d, 4096 + d}};
}

// Rows of whole 16-byte words but not whole 128-byte lines (8208 bytes: 8200 uint16, 8196
// float, 8194 double, 8193 complex128).
std::vector<Shape> odd_sides(std::size_t elem) { return squares_past(16, elem); }

// Rows of whole 4-byte words but not 16-byte ones, 8 bytes past a unit for 1 and 2 bytes (8200
// and 4104 uint8, 8196 and 4100 uint16: experiment 13's 8200² uint8 is of this kind); wider
// elements are always on words, and 8191 and 4099 do.
std::vector<Shape> unaligned_sides(std::size_t elem) {
  if (elem >= 4) return {{8191, 8191}, {4099, 4099}};
  return squares_past(8, elem);
}

// In place, "half-unit" holds rows of whole lines half a 256-byte unit off (8320 and 4224
// bytes, 8208 and 4112 doubles).
std::vector<Shape> half_unit_sides(std::size_t elem) { return squares_past(128, elem); }

// The shapes of a class given by element size: "odd", "half-unit" and in-place "unaligned" as
// above; "rect-small" at 16 MiB, the most that one tile a block holds at every shape (the class
// goes on to 32 MiB, two tiles a block, which experiment 13's 2-byte rectangles measure): 8192 x
// 2048 bytes, 8192 x 128 complex128.
std::vector<Shape> sides_for(const Case& c, std::size_t elem) {
  if (c.shape_class == "rect-small") return {{8192, 2048 / static_cast<std::int64_t>(elem)}};
  if (c.shape_class == "unaligned") return unaligned_sides(elem);
  if (c.shape_class == "half-unit") return half_unit_sides(elem);
  return odd_sides(elem);
}

}  // namespace

// A kernel is chosen for a whole class, so it is scored on more than one of its shapes: with a
// single shape, run-to-run noise between kernels within a point of each other picked ones that
// are not the best elsewhere in the class. Two shapes per class or more (four for "square": 6152 is a
// square of whole lines only for 16-byte elements, off every tile, and 16384 is as large as
// the class gets, 0.25-4 GiB, where the ranking of 8192 did not hold; one for in-place
// "rect-small", whose kernels refuse different shapes; for "rect-cube" 256 x 65536 and its mirror
// (4 to 16 bytes: below, 32 MiB and less, those are "rect-small"); for "rect" a 3:4 and a 256:1 shape, as
// one shape picked `blocks-b8`, which ran 8 points under `blocks` at 256 x 65536 complex128;
// in-place "medium" at 2048² and 3072², the squares that fit a few L2 sizes; in-place
// "off-word-large" at 6143², 11001² and 13001²: two large sides apart from 10001², 12290² and
// 14001², which found the class and stay a check of the table, and one near its low end, where
// the edge pairs launched last-column first led the plain order by 6 points that the two large
// sides did not show; three for it), large enough that the memory
// system, not launch latency, decides (except "small", where latency is the point). Shapes
// outside the class for an element size are skipped.
const std::vector<Case>& cases() {
  static const std::vector<Case> c{{Placement::out_of_place, "square", {{8192, 8192}, {6144, 6144}, {6152, 6152}, {16384, 16384}}},
                                   {Placement::out_of_place, "tall", {{16384, 1024}, {65536, 256}}},
                                   {Placement::out_of_place, "wide", {{1024, 16384}, {256, 65536}}},
                                   {Placement::out_of_place, "small", {{512, 512}, {1000, 1000}}},
                                   {Placement::out_of_place, "unaligned", {{8191, 8191}, {4099, 4099}}},
                                   {Placement::out_of_place, "odd", {}},
                                   {Placement::out_of_place, "medium", {{2048, 2048}, {4096, 2048}}},
                                   {Placement::in_place, "off-word", {{5003, 5003}, {4099, 4099}}},
                                   {Placement::in_place, "off-word-large", {{6143, 6143}, {11001, 11001}, {13001, 13001}}},
                                   {Placement::in_place, "unaligned", {}},
                                   {Placement::in_place, "odd", {}},
                                   {Placement::in_place, "half-unit", {}},
                                   {Placement::in_place, "medium", {{2048, 2048}, {3072, 3072}}},
                                   {Placement::in_place, "square", {{8192, 8192}, {6144, 6144}}},
                                   {Placement::in_place, "rect-small", {}},
                                   {Placement::in_place, "rect", {{8192, 6144}, {131072, 512}}},
                                   {Placement::in_place, "rect-cube", {{256, 65536}, {65536, 256}}}};
  return c;
}

std::vector<Shape> shapes_of(const Case& c, std::size_t elem) {
  std::vector<Shape> in;
  for (const Shape& s : c.shapes.empty() ? sides_for(c, elem) : c.shapes)
    if (shape_class(s, c.placement, elem) == c.shape_class) in.push_back(s);
  return in;
}

}  // namespace tlab::tuning
