#include <cstdlib>
#include <stdexcept>
#include <string>

#include "tlab/cli.hpp"
#include "tlab/dist/distributed.hpp"

namespace tlab::dist {
namespace {

const char* get(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

constexpr std::int64_t kMostRanks = 1 << 20;

int whole(const char* name, const char* text, int lo) {
  return static_cast<int>(parse_count(text, name, lo, kMostRanks));
}

}  // namespace

TeamSpec team_from_environment(int ranks) {
  TeamSpec t;
  t.ranks = ranks;
  const char* rank = get("TLAB_DIST_RANK");
  if (!rank) return t;
  const char* n = get("TLAB_DIST_RANKS");
  const char* id = get("TLAB_DIST_ID_FILE");
  if (!n || !id) throw std::invalid_argument("TLAB_DIST_RANK is set: TLAB_DIST_RANKS and TLAB_DIST_ID_FILE must be too");
  t.ranks = whole("TLAB_DIST_RANKS", n, 1);
  t.rank = whole("TLAB_DIST_RANK", rank, 0);
  if (t.rank >= t.ranks)
    throw std::invalid_argument("TLAB_DIST_RANK=" + std::to_string(t.rank) + " is not below TLAB_DIST_RANKS=" +
                                std::to_string(t.ranks));
  t.id_file = id;
  const char* dev = get("TLAB_DIST_DEVICE");
  const int gpus = visible_gpus();
  t.device = dev ? whole("TLAB_DIST_DEVICE", dev, 0) : (gpus > 0 ? t.rank % gpus : 0);
  return t;
}

}  // namespace tlab::dist
