#include "tlab/dist/measure.hpp"

#include <algorithm>

#include "tlab/executor.hpp"
#include "tlab/stats.hpp"
#include "tlab/transpose.hpp"

namespace tlab::dist {
namespace {

void require_exact(std::uint64_t wrong, const std::string& what, Shape a) {
  if (wrong)
    throw VerificationError(what + ": " + std::to_string(wrong) + " of " + std::to_string(a.elements()) +
                            " elements of the transpose are wrong");
}

DistRow row(std::string method, int ranks, int chunks) {
  DistRow r;
  r.method = std::move(method);
  r.ranks = ranks;
  r.chunks = chunks;
  return r;
}

}  // namespace

std::vector<DistRow> measure_distributed(const TeamSpec& team, DType type, Shape a, const std::vector<int>& chunks,
                                         const TimingPolicy& policy, std::uint64_t seed) {
  std::vector<DistRow> rows;
  const std::string at = std::string(dtype_name(type)) + " " + to_string(a);
  if (team.ranks == 1 && team.rank < 0) {
    SingleGpu g(type, a);
    require_exact(g.check(seed), "single-gpu " + at, a);
    DistRow r = row("single-gpu", 1, 0);
    r.timed = measure([&g] { return g.transpose(); }, policy);
    r.kernel = g.kernel();
    rows.push_back(r);
  }
  Transposer x(team, type, a);
  const Exchange& e = x.layout();
  double crossing = 0;
  for (int p = 0; p < e.ranks; ++p)
    for (int q = 0; q < e.ranks; ++q)
      if (p != q) crossing += static_cast<double>(e.block_bytes(p, q));
  for (int k : chunks) {
    const std::string name = "chunks-" + std::to_string(k);
    const std::string what = name + " over " + std::to_string(e.ranks) + " GPUs, " + at;
    seed = x.fill(seed);
    x.transpose(k);
    require_exact(x.count_wrong(seed), what, a);
    std::vector<double> pack, exchange;
    DistRow r = row(name, e.ranks, k);
    r.timed = measure(
        [&] {
          const Times t = x.transpose(k);
          pack.push_back(t.pack_end);
          exchange.push_back(t.exchange_end);
          return t.total;
        },
        policy);
    require_exact(x.count_wrong(seed), what + " (after the timed runs)", a);
    // The warm-up runs went through the same lambda: their phases are not samples.
    pack.erase(pack.begin(), pack.begin() + std::min<std::size_t>(pack.size(), policy.warmup));
    exchange.erase(exchange.begin(), exchange.begin() + std::min<std::size_t>(exchange.size(), policy.warmup));
    r.pack_end = summarize(pack).median;
    r.exchange_end = summarize(exchange).median;
    r.exchange_bytes = crossing;
    r.kernel = x.kernel();
    rows.push_back(r);
  }
  if (e.ranks > 1) {
    DistRow r = row("all-to-all", e.ranks, 1);
    r.timed = measure([&x] { return x.all_to_all(); }, policy);
    r.exchange_bytes = crossing;
    rows.push_back(r);
  }
  return rows;
}

}  // namespace tlab::dist
