// The tuning tables behind tlab::Plan: which registered kernel runs for (GPU, element size,
// placement, shape class). Tables are TSV files written by tlab-tune, one per GPU, read from
// $TLAB_TUNING_DIR, the installed data folder and the source tree's tuning/ folder, in that
// order; a built-in default answers where no table does.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tlab/matrix.hpp"
#include "tlab/registry.hpp"
#include "tlab/transpose.hpp"

namespace tlab::tuning {

// "small" (< 2^20 elements); "unaligned" when a row of the input or of the output is not a
// whole number of 16-byte words (no whole-word access: 8191 x 8191 bytes, say); "odd" when
// the rows are whole words but not whole 128-byte lines (8200 x 8200 doubles: tiles then
// start off a sector); "medium" (< 2^24 elements: the matrix is within a few L2 sizes); else
// "tall" (rows >= 4 cols), "wide" (cols >= 4 rows) or "square". In place: for m != n,
// "rect-small" up to kRectSmallBytes (a size the shared memory of an H100's or an H200's
// grid holds at most shapes, with two tiles a block and their overlap kept aside past its 29
// MiB; not the thinnest, 2 x 16777216 bytes, whose tiles cannot be cut to fit a block, nor
// those near 32 MiB whose 256 rows of the longer side are less than the overlap, as 8192 x
// 4096 bytes or 4096 x 4093 2-byte elements: the plan then falls back); above that
// "rect-cube" for M x M² and M² x M of 4 bytes and more (one pass of cycles of three tiles:
// tlab/inplace_cube_index.hpp)
// and "rect" for the rest; for squares "off-word" (1- or 2-byte rows not a whole number of
// 4-byte words: 5003 x 5003 bytes; "off-word-large" from 2^25 elements, 8191 x 8191 bytes),
// "unaligned", "odd" (rows of whole words but not whole 128-byte lines), "half-unit" (rows of
// whole lines but not whole 256-byte units: 8200 x 8200 complex128), "medium" (< 2^24
// elements, rows of whole units) or "square".
constexpr std::int64_t kRectSmallBytes = std::int64_t{32} << 20;
std::string shape_class(Shape s, Placement p, std::size_t elem);

// The table rows that answer a class, best first: the class itself, then the class it was cut
// from, so that a table written before a class existed still answers its shapes as it did
// ("half-unit", then "odd"; "off-word-large", then "off-word").
std::vector<std::string> row_classes(const std::string& shape_class);
// The classes whose rows answer a shape after those, where their kernels cannot run it: a
// class beside it whose kernels run every shape ("off-word", then "off-word-large").
std::vector<std::string> fallback_classes(const std::string& shape_class);

struct Row {
  std::string target;  // GPU name as CUDA reports it, or "sm_90"-style architecture
  int elem_bytes = 0;
  std::string placement;  // placement_name()
  std::string shape;      // shape_class()
  std::string variant;
  std::string note;  // what the measurement gave, for people
  std::string origin;  // file:line, filled when read
};

const char* header();  // the TSV header line, without newline
std::vector<Row> read_table(const std::string& path);  // throws std::runtime_error naming the line
void write_table(const std::string& path, const std::vector<Row>& rows);  // atomically (temp + rename)
std::string file_name_for(const std::string& gpu_name);  // "nvidia-h100-80gb-hbm3.tsv"
std::vector<std::string> search_dirs();

struct Choice {
  std::string variant, reason;
};
// The kernel for `t` x `s` with placement `p` in `memory`; gpu_name and arch describe the
// device for device memory. Table rows whose variant cannot run this case are skipped, and
// the reason says so.
Choice choose(DType t, Shape s, Placement p, Memory memory, const std::string& gpu_name, const std::string& arch);

// The row of `rows` (tables in search order, each table's rows together) that answers class
// `cls` for `elem`-byte elements with placement `p` on the first of `targets` that has one,
// and whose kernel `runs`: in each table the class's own row before the class it was cut from
// (row_classes), so a table searched first wins even with a row written before the cut; only
// where no table has a row of those that runs, the fallback classes' rows. Rows
// passed over are noted in `skipped`; nullptr where none answers.
const Row* pick_row(const std::vector<Row>& rows, const std::string& cls, int elem, Placement p,
                    const std::vector<std::string>& targets, const std::function<bool(const Row&)>& runs,
                    std::string& skipped);

// Whether `v` can run `t` x `s` with placement `p` as a correct transpose on `backend`.
bool usable(const Variant& v, DType t, Shape s, Placement p, Backend backend);

}  // namespace tlab::tuning
