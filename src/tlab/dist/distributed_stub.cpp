// Linked instead of the NCCL part when the build has no CUDA or no NCCL: every entry point
// says why, and unavailable() lets programs skip before reaching them.
#include <stdexcept>

#include "tlab/dist/distributed.hpp"

namespace tlab::dist {

std::string unavailable() { return TLAB_DIST_MISSING; }
int visible_gpus() { return 0; }

struct Transposer::Impl {};
Transposer::Transposer(const TeamSpec&, DType, Shape) { throw std::runtime_error(unavailable()); }
Transposer::~Transposer() = default;
const Exchange& Transposer::layout() const { throw std::runtime_error(unavailable()); }
const std::vector<int>& Transposer::local_ranks() const { throw std::runtime_error(unavailable()); }
const std::string& Transposer::kernel() const { throw std::runtime_error(unavailable()); }
void Transposer::upload_a(int, const void*) {}
void Transposer::download_b(int, void*) const {}
std::uint64_t Transposer::fill(std::uint64_t s) { return s; }
std::uint64_t Transposer::count_wrong(std::uint64_t) { return 0; }
Times Transposer::transpose(int) { return {}; }
double Transposer::all_to_all() { return 0; }

struct SingleGpu::Impl {};
SingleGpu::SingleGpu(DType, Shape) { throw std::runtime_error(unavailable()); }
SingleGpu::~SingleGpu() = default;
std::uint64_t SingleGpu::check(std::uint64_t) { return 0; }
double SingleGpu::transpose() { return 0; }
const std::string& SingleGpu::kernel() const { throw std::runtime_error(unavailable()); }

}  // namespace tlab::dist
