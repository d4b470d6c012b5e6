#include <algorithm>
#include <stdexcept>

#include "tlab/dist/distributed.hpp"
#include "tlab/dist/hash_blocks.cuh"
#include "tlab/dist/team.cuh"
#include "tlab/gpu/check.cuh"
#include "tlab/gpu/copy_rows.cuh"
#include "tlab/gpu/device_buffer.cuh"
#include "tlab/gpu/word_tile.cuh"
#include "tlab/registry.hpp"

namespace tlab::dist {

using gpu::DeviceBuffer;

std::string unavailable() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return std::string("no usable CUDA device (") + cudaGetErrorString(e) + ")";
  }
  return n == 0 ? "no CUDA device on this machine" : "";
}

int visible_gpus() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

namespace {

constexpr unsigned char kPoison = 0xA5;

// Every public call sets devices rank by rank; the caller gets its current device back.
class DeviceGuard {
 public:
  DeviceGuard() { cudaGetDevice(&device_); }
  ~DeviceGuard() { cudaSetDevice(device_); }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int device_ = 0;
};

cudaEvent_t new_event() {
  cudaEvent_t e{};
  TLAB_CUDA(cudaEventCreate(&e));
  return e;
}

float ms_between(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  TLAB_CUDA(cudaEventElapsedTime(&ms, a, b));
  return ms;
}

// The kernels that pack: transposes that take input and output pitches, so that each block of
// a chunk goes straight from A to where it is sent from, or for the rank's own block to its
// place in B. For 1 to 8 bytes where the block's rows are whole 8-byte words on both sides (the
// word kernels' own fast path, word::row_layout): w8-out, the fastest of those for the size on
// the H100 and the H200 in experiment 13. Elsewhere, and for 16-byte elements at every layout,
// sector-cut: off a word the word kernels would go element by element or shift, and for 16
// bytes experiment 13 has sector-cut ahead of w16 at every shape on both GPUs; it cuts each
// output row at its own sector boundary, which is what the plan runs on such matrices.
const Variant& pack_kernel(DType t, const Operands& op) {
  const int e = static_cast<int>(dtype_size(t));
  if (e == 16) return registry().get("gpu/word/sector-cut");
  const bool on_words = gpu::word::row_layout(op.in, op.out, op.shape.rows, op.shape.cols, e, 8, op.in_pitch,
                                              op.out_pitch) == gpu::word::kAlignedRows;
  return registry().get(on_words ? "gpu/word/w8-out" : "gpu/word/sector-cut");
}

// Everything one rank owns on its GPU. Streams: pack (the block transposes), xfer (NCCL, at
// the highest priority: its few blocks get SMs as soon as any free up, instead of after every
// block of a transpose queued before them), unpack (the received blocks into B's columns).
struct Local {
  int rank = 0, device = 0;
  ncclComm_t comm{};
  DeviceBuffer a, b, send, recv, scalars;  // scalars: 4 doubles or counters for reductions
  cudaStream_t pack{}, xfer{}, unpack{};
  cudaEvent_t start{}, end{}, transposed{};  // transposed: the last chunk's own block is in B
  std::vector<cudaEvent_t> packed, received;

  ~Local() {
    cudaSetDevice(device);
    for (cudaEvent_t e : packed) cudaEventDestroy(e);
    for (cudaEvent_t e : received) cudaEventDestroy(e);
    for (cudaEvent_t e : {start, end, transposed})
      if (e) cudaEventDestroy(e);
    for (cudaStream_t s : {pack, xfer, unpack})
      if (s) cudaStreamDestroy(s);
  }
};

}  // namespace

struct Transposer::Impl {
  Exchange x;
  DType type;
  int chunks = 1;  // of the transpose under way
  std::string kernels;  // the registered kernels that packed so far, "+" between them
  std::unique_ptr<Team> team;
  std::vector<std::unique_ptr<Local>> local;
  // False while NCCL work is in flight: a call that throws midway leaves kernels waiting for
  // peers, which freeing the buffers would wait on forever; the communicators are aborted
  // first then.
  bool settled = true;

  ~Impl() {
    if (!settled && team) team->abort();
  }

  std::size_t e() const { return x.elem; }
  RowBlocks chunk_rows(int p) const { return x.chunk_rows(p, chunks); }
  Local& of(int rank) {
    for (auto& l : local)
      if (l->rank == rank) return *l;
    throw std::invalid_argument("rank " + std::to_string(rank) + " is not driven by this process");
  }
  // The k x cols block of A at `from` (A's pitch) transposed to `to`, `pitch` elements apart.
  void transpose_block(void* to, std::int64_t pitch, const unsigned char* from, std::int64_t k, std::int64_t cols,
                       cudaStream_t stream) {
    if (k == 0 || cols == 0) return;
    Operands op;
    op.in = from;
    op.out = to;
    op.shape = {k, cols};
    op.stream = stream;
    op.in_pitch = x.a.cols;
    op.out_pitch = pitch;
    const Variant& v = pack_kernel(type, op);
    if (kernels.find(v.name) == std::string::npos) kernels += (kernels.empty() ? "" : "+") + v.name;
    v.kernels.at(type)(op);
  }

  // Reduces v (n doubles, one set per local rank) to the maximum over every rank.
  void max_over_ranks(std::vector<std::vector<double>>& v) {
    const std::size_t n = v[0].size();
    for (std::size_t i = 0; i < local.size(); ++i) {
      TLAB_CUDA(cudaSetDevice(local[i]->device));
      // On the stream NCCL then uses: a plain cudaMemcpy from pageable memory may return before
      // its copy lands, and nothing orders it before work on a non-blocking stream.
      TLAB_CUDA(cudaMemcpyAsync(local[i]->scalars.get(), v[i].data(), n * sizeof(double), cudaMemcpyHostToDevice,
                                local[i]->xfer));
    }
    TLAB_NCCL(ncclGroupStart());
    for (auto& l : local)
      TLAB_NCCL(ncclAllReduce(l->scalars.get(), l->scalars.get(), n, ncclDouble, ncclMax, l->comm, l->xfer));
    TLAB_NCCL(ncclGroupEnd());
    for (std::size_t i = 0; i < local.size(); ++i) {
      TLAB_CUDA(cudaSetDevice(local[i]->device));
      TLAB_CUDA(cudaStreamSynchronize(local[i]->xfer));
      TLAB_CUDA(cudaMemcpy(v[i].data(), local[i]->scalars.get(), n * sizeof(double), cudaMemcpyDeviceToHost));
    }
  }

  void synchronize() {
    for (auto& l : local) {
      TLAB_CUDA(cudaSetDevice(l->device));
      TLAB_CUDA(cudaDeviceSynchronize());
    }
  }

  // Chunk c of rank r's rows, k x n: the block for peer q (its B rows' columns of A) is
  // transposed into the send buffer, b_rows().count(q) x k at its message's place; the peers'
  // blocks first, so that the exchange can start while the rank's own block goes straight
  // into B's columns (pitch m), never through a buffer.
  void pack_chunk(Local& l, int c) {
    const int r = l.rank;
    const std::int64_t k = chunk_rows(r).count(c), r0 = chunk_rows(r).begin(c);
    // An empty chunk, or a rank without rows (whose buffers are null): only the event.
    if (k == 0) {
      TLAB_CUDA(cudaEventRecord(l.packed[c], l.pack));
      return;
    }
    const auto* a = static_cast<const unsigned char*>(l.a.get()) + r0 * x.a.cols * e();
    for (int q = 0; q < x.ranks; ++q)
      if (q != r && x.b_rows().count(q) > 0)
        transpose_block(static_cast<unsigned char*>(l.send.get()) + x.send_offset(r, q, chunks, c), k,
                        a + x.b_rows().begin(q) * e(), k, x.b_rows().count(q), l.pack);
    TLAB_CUDA(cudaEventRecord(l.packed[c], l.pack));
    if (x.b_rows().count(r) > 0)
      transpose_block(static_cast<unsigned char*>(l.b.get()) + (x.a_rows().begin(r) + r0) * e(), x.a.rows,
                      a + x.b_rows().begin(r) * e(), k, x.b_rows().count(r), l.pack);
  }

  // Chunk c's blocks between every pair of ranks, in one group over every local rank (one
  // process driving several GPUs must issue them all inside one group).
  void exchange_chunk(int c) {
    for (auto& l : local) {
      TLAB_CUDA(cudaSetDevice(l->device));
      TLAB_CUDA(cudaStreamWaitEvent(l->xfer, l->packed[c]));
    }
    TLAB_NCCL(ncclGroupStart());
    for (auto& l : local) {
      const int r = l->rank;
      for (int q = 0; q < x.ranks; ++q) {
        if (q == r) continue;
        if (const std::size_t out = x.message_bytes(r, q, chunks, c))
          TLAB_NCCL(ncclSend(static_cast<unsigned char*>(l->send.get()) + x.send_offset(r, q, chunks, c), out, ncclChar,
                             q, l->comm, l->xfer));
        if (const std::size_t in = x.message_bytes(q, r, chunks, c))
          TLAB_NCCL(ncclRecv(static_cast<unsigned char*>(l->recv.get()) + x.recv_offset(r, q, chunks, c), in, ncclChar,
                             q, l->comm, l->xfer));
      }
    }
    TLAB_NCCL(ncclGroupEnd());
    for (auto& l : local) {
      TLAB_CUDA(cudaSetDevice(l->device));
      TLAB_CUDA(cudaEventRecord(l->received[c], l->xfer));
    }
  }

  // Block (p -> r) of chunk c into B's columns: b_rows().count(r) rows of k elements, at
  // column a_rows().begin(p) + the chunk's first row, B's pitch m elements.
  void place(Local& l, const unsigned char* from, int p, int c) {
    const std::int64_t k = chunk_rows(p).count(c), rows = x.b_rows().count(l.rank);
    if (k == 0 || rows == 0) return;
    auto* to = static_cast<unsigned char*>(l.b.get()) + (x.a_rows().begin(p) + chunk_rows(p).begin(c)) * e();
    gpu::copy_rows(to, x.a.rows * e(), from, k * e(), k * e(), rows, l.unpack);
  }

  void unpack_chunk(Local& l, int c) {
    const int r = l.rank;
    TLAB_CUDA(cudaStreamWaitEvent(l.unpack, l.received[c]));
    if (x.b_rows().count(r) == 0) return;  // no B rows: nothing arrives, and the buffers are null
    for (int p = 0; p < x.ranks; ++p)
      if (p != r) place(l, static_cast<const unsigned char*>(l.recv.get()) + x.recv_offset(r, p, chunks, c), p, c);
  }
};

Transposer::Transposer(const TeamSpec& spec, DType type, Shape a) : impl_(std::make_unique<Impl>()) {
  const DeviceGuard keep;
  Impl& m = *impl_;
  if (spec.ranks < 1) throw std::invalid_argument("a team needs at least one rank");
  m.x = Exchange{a, dtype_size(type), spec.ranks};
  m.type = type;
  const int gpus = visible_gpus();
  std::vector<int> devices;
  if (spec.rank < 0) {
    for (int r = 0; r < spec.ranks; ++r) devices.push_back(r);
  } else {
    if (spec.device >= gpus)
      throw std::invalid_argument("GPU " + std::to_string(spec.device) + " asked for, " + std::to_string(gpus) +
                                  " visible");
    devices.push_back(spec.device);
  }
  std::size_t free_min = ~std::size_t{0};
  for (int d : devices) {
    if (d >= gpus) break;  // refuse() names the shortfall of GPUs
    std::size_t free = 0, total = 0;
    TLAB_CUDA(cudaSetDevice(d));
    TLAB_CUDA(cudaMemGetInfo(&free, &total));
    free_min = std::min(free_min, free);
  }
  const std::string why = refuse(m.x, spec.rank < 0 ? gpus : spec.ranks, free_min);
  if (!why.empty()) throw std::invalid_argument(why);

  m.team = std::make_unique<Team>(spec);
  for (std::size_t i = 0; i < m.team->rank.size(); ++i) {
    auto l = std::make_unique<Local>();
    l->rank = m.team->rank[i];
    l->device = m.team->device[i];
    l->comm = m.team->comm[i];
    TLAB_CUDA(cudaSetDevice(l->device));
    l->a = DeviceBuffer(m.x.local_a_bytes(l->rank));
    l->b = DeviceBuffer(m.x.local_b_bytes(l->rank));
    // Sized for one chunk; transpose() grows them where more chunks round more messages up.
    l->send = DeviceBuffer(m.x.send_bytes(l->rank));
    l->recv = DeviceBuffer(m.x.recv_bytes(l->rank));
    l->scalars = DeviceBuffer(4 * sizeof(double));
    int lowest = 0, highest = 0;
    TLAB_CUDA(cudaDeviceGetStreamPriorityRange(&lowest, &highest));
    for (cudaStream_t* s : {&l->pack, &l->unpack}) TLAB_CUDA(cudaStreamCreateWithFlags(s, cudaStreamNonBlocking));
    TLAB_CUDA(cudaStreamCreateWithPriority(&l->xfer, cudaStreamNonBlocking, highest));
    l->start = new_event();
    l->end = new_event();
    l->transposed = new_event();
    m.local.push_back(std::move(l));
  }
}

Transposer::~Transposer() = default;

const Exchange& Transposer::layout() const { return impl_->x; }
const std::string& Transposer::kernel() const { return impl_->kernels; }
const std::vector<int>& Transposer::local_ranks() const { return impl_->team->rank; }

void Transposer::upload_a(int rank, const void* host) {
  const DeviceGuard keep;
  Local& l = impl_->of(rank);
  TLAB_CUDA(cudaSetDevice(l.device));
  // A rank may hold no rows (fewer rows than ranks): its buffers are empty and null.
  if (l.a.bytes()) TLAB_CUDA(cudaMemcpy(l.a.get(), host, l.a.bytes(), cudaMemcpyHostToDevice));
  if (l.b.bytes()) TLAB_CUDA(cudaMemset(l.b.get(), kPoison, l.b.bytes()));
}

void Transposer::download_b(int rank, void* host) const {
  const DeviceGuard keep;
  Local& l = impl_->of(rank);
  TLAB_CUDA(cudaSetDevice(l.device));
  if (l.b.bytes()) TLAB_CUDA(cudaMemcpy(host, l.b.get(), l.b.bytes(), cudaMemcpyDeviceToHost));
}

std::uint64_t Transposer::fill(std::uint64_t seed) {
  const DeviceGuard keep;
  impl_->settled = false;
  Impl& m = *impl_;
  static_assert(sizeof(unsigned long long) == sizeof(std::uint64_t));
  for (auto& l : m.local) {
    TLAB_CUDA(cudaSetDevice(l->device));
    TLAB_CUDA(cudaMemcpyAsync(l->scalars.get(), &seed, sizeof seed, cudaMemcpyHostToDevice, l->xfer));
  }
  TLAB_NCCL(ncclGroupStart());
  for (auto& l : m.local)
    TLAB_NCCL(ncclBroadcast(l->scalars.get(), l->scalars.get(), 1, ncclUint64, 0, l->comm, l->xfer));
  TLAB_NCCL(ncclGroupEnd());
  m.synchronize();
  TLAB_CUDA(cudaSetDevice(m.local.front()->device));
  TLAB_CUDA(cudaMemcpy(&seed, m.local.front()->scalars.get(), sizeof seed, cudaMemcpyDeviceToHost));
  for (auto& l : m.local) {
    TLAB_CUDA(cudaSetDevice(l->device));
    fill_a_rows(l->a.get(), m.e(), m.x.a, m.x.a_rows().begin(l->rank), m.x.a_rows().count(l->rank), seed, l->pack);
    if (l->b.bytes()) TLAB_CUDA(cudaMemsetAsync(l->b.get(), kPoison, l->b.bytes(), l->pack));
  }
  m.synchronize();
  impl_->settled = true;
  return seed;
}

std::uint64_t Transposer::count_wrong(std::uint64_t seed) {
  const DeviceGuard keep;
  impl_->settled = false;
  Impl& m = *impl_;
  auto counter = [](Local& l) { return static_cast<unsigned long long*>(l.scalars.get()); };
  for (auto& l : m.local) {
    TLAB_CUDA(cudaSetDevice(l->device));
    TLAB_CUDA(cudaMemsetAsync(counter(*l), 0, sizeof(unsigned long long), l->xfer));
    count_wrong_b_rows(l->b.get(), m.e(), m.x.a, m.x.b_rows().begin(l->rank), m.x.b_rows().count(l->rank), seed,
                       counter(*l), l->xfer);
  }
  TLAB_NCCL(ncclGroupStart());
  for (auto& l : m.local) TLAB_NCCL(ncclAllReduce(counter(*l), counter(*l), 1, ncclUint64, ncclSum, l->comm, l->xfer));
  TLAB_NCCL(ncclGroupEnd());
  unsigned long long wrong = 0;
  Local& first = *m.local.front();
  TLAB_CUDA(cudaSetDevice(first.device));
  TLAB_CUDA(cudaMemcpyAsync(&wrong, counter(first), sizeof wrong, cudaMemcpyDeviceToHost, first.xfer));
  m.synchronize();
  impl_->settled = true;
  return wrong;
}

Times Transposer::transpose(int chunks) {
  const DeviceGuard keep;
  impl_->settled = false;
  Impl& m = *impl_;
  if (chunks < 1) throw std::invalid_argument("chunks must be at least 1, not " + std::to_string(chunks));
  m.chunks = chunks;
  m.synchronize();
  for (auto& l : m.local) {
    TLAB_CUDA(cudaSetDevice(l->device));
    // Each of a rank's messages is rounded up to kMessageAlign bytes: more chunks, more of them.
    // Grown before the start event, so only the first transpose at a new chunk count pays.
    // The old buffer goes first: a matrix that fills the GPU has no room for both.
    auto grow = [](DeviceBuffer& buf, std::size_t need) {
      if (buf.bytes() == 0 || buf.bytes() >= need) return;  // empty: a rank without rows
      buf = DeviceBuffer();
      buf = DeviceBuffer(need);
    };
    grow(l->send, m.x.send_bytes(l->rank, chunks));
    grow(l->recv, m.x.recv_bytes(l->rank, chunks));
    while (static_cast<int>(l->packed.size()) < chunks) {
      l->packed.push_back(new_event());
      l->received.push_back(new_event());
    }
    TLAB_CUDA(cudaEventRecord(l->start, l->pack));
  }
  // Chunk c's pack is queued before chunk c - 1's exchange and unpack, so that the pack stream
  // never waits behind them: the GPU transposes chunk c while chunk c - 1 travels.
  for (int c = 0; c <= m.chunks; ++c) {
    if (c < m.chunks)
      for (auto& l : m.local) {
        TLAB_CUDA(cudaSetDevice(l->device));
        m.pack_chunk(*l, c);
      }
    if (c == 0) continue;
    m.exchange_chunk(c - 1);
    for (auto& l : m.local) {
      TLAB_CUDA(cudaSetDevice(l->device));
      m.unpack_chunk(*l, c - 1);
    }
  }
  std::vector<std::vector<double>> t;
  for (auto& l : m.local) {
    TLAB_CUDA(cudaSetDevice(l->device));
    TLAB_CUDA(cudaEventRecord(l->transposed, l->pack));
    TLAB_CUDA(cudaStreamWaitEvent(l->unpack, l->transposed));
    TLAB_CUDA(cudaEventRecord(l->end, l->unpack));
    TLAB_CUDA(cudaEventSynchronize(l->end));
    t.push_back({ms_between(l->start, l->end) * 1e-3, ms_between(l->start, l->transposed) * 1e-3,
                 ms_between(l->start, l->received[chunks - 1]) * 1e-3});
  }
  m.max_over_ranks(t);
  impl_->settled = true;
  return {t[0][0], t[0][1], t[0][2]};
}

double Transposer::all_to_all() {
  const DeviceGuard keep;
  impl_->settled = false;
  Impl& m = *impl_;
  m.synchronize();
  for (auto& l : m.local) {
    TLAB_CUDA(cudaSetDevice(l->device));
    TLAB_CUDA(cudaEventRecord(l->start, l->xfer));
  }
  TLAB_NCCL(ncclGroupStart());
  for (auto& l : m.local) {
    const int r = l->rank;
    for (int q = 0; q < m.x.ranks; ++q) {
      if (q == r) continue;
      if (const std::size_t out = m.x.block_bytes(r, q))
        TLAB_NCCL(ncclSend(static_cast<unsigned char*>(l->send.get()) + m.x.send_offset(r, q), out, ncclChar, q, l->comm,
                           l->xfer));
      if (const std::size_t in = m.x.block_bytes(q, r))
        TLAB_NCCL(ncclRecv(static_cast<unsigned char*>(l->recv.get()) + m.x.recv_offset(r, q), in, ncclChar, q, l->comm,
                           l->xfer));
    }
  }
  TLAB_NCCL(ncclGroupEnd());
  std::vector<std::vector<double>> t;
  for (auto& l : m.local) {
    TLAB_CUDA(cudaSetDevice(l->device));
    TLAB_CUDA(cudaEventRecord(l->end, l->xfer));
    TLAB_CUDA(cudaEventSynchronize(l->end));
    t.push_back({ms_between(l->start, l->end) * 1e-3});
  }
  m.max_over_ranks(t);
  impl_->settled = true;
  return t[0][0];
}

}  // namespace tlab::dist
