// tlab-dist: one distributed transpose over NCCL, every element checked, and its time
// against the all-to-all of the same blocks. For the tests and for one process per GPU
// (scripts/dist-launch sets TLAB_DIST_RANK, TLAB_DIST_RANKS and TLAB_DIST_ID_FILE; each
// process is then one rank, and RANKS must equal TLAB_DIST_RANKS).
//   tlab-dist RANKS TYPE SIZE [CHUNKS]
// Exit codes: 0 exact, 2 bad input (more ranks than GPUs, sizes beyond their memory, before
// anything is allocated), 3 a wrong element, 77 nothing to run on (no GPU, no NCCL).
#include <iostream>
#include <random>
#include <stdexcept>
#include <string>

#include "tlab/cli.hpp"
#include "tlab/dist/distributed.hpp"
#include "tlab/executor.hpp"
#include "tlab/results.hpp"

namespace {

int whole(const std::string& what, const char* text) {
  return static_cast<int>(tlab::parse_count(text, "tlab-dist " + what, 1, 1 << 20));
}

int run(int argc, char** argv) {
  if (argc != 4 && argc != 5) throw tlab::UsageError("usage: tlab-dist RANKS TYPE SIZE [CHUNKS]");
  const int ranks = whole("RANKS", argv[1]);
  const tlab::DType t = tlab::parse_dtype(argv[2]);
  const auto shapes = tlab::parse_sizes(argv[3]);
  if (shapes.size() != 1) throw tlab::UsageError(std::string("tlab-dist: one size, not '") + argv[3] + "'");
  const int chunks = argc == 5 ? whole("CHUNKS", argv[4]) : 4;
  const tlab::dist::TeamSpec team = tlab::dist::team_from_environment(ranks);
  if (team.ranks != ranks)
    throw tlab::UsageError("tlab-dist: RANKS is " + std::to_string(ranks) + " but TLAB_DIST_RANKS is " +
                           std::to_string(team.ranks));
  if (const std::string why = tlab::dist::unavailable(); !why.empty()) {
    std::cerr << "tlab-dist: skipping: " << why << "\n";
    return 77;
  }
  const tlab::Shape s = shapes.front();
  tlab::dist::Transposer x(team, t, s);
  std::random_device rd;
  const std::uint64_t seed = x.fill((static_cast<std::uint64_t>(rd()) << 32) | rd());
  const tlab::dist::Times first = x.transpose(chunks);
  if (const std::uint64_t wrong = x.count_wrong(seed))
    throw tlab::VerificationError(std::to_string(wrong) + " of " + std::to_string(s.elements()) + " elements wrong");
  const double a2a = ranks > 1 ? x.all_to_all() : 0;
  if (team.rank <= 0)
    std::cout << "exact: " << tlab::dtype_name(t) << " " << tlab::to_string(s) << " over " << ranks << " GPUs in " << chunks
              << " chunks, " << tlab::format_number(first.total * 1e3, 4) << " ms"
              << (a2a > 0 ? " (all-to-all " + tlab::format_number(a2a * 1e3, 4) + " ms)" : "") << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return tlab::tool_main("tlab-dist", [&] { return run(argc, argv); });
}
