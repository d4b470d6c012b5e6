// GPU passes of the in-place rectangular transpose: each gathers a batch of columns or rows
// into scratch memory (the index arithmetic is shared with the CPU code) and puts the batch
// back. Faster forms where the shape allows (performance notes, section 9, "c2r on chip" and
// "c2r's column pass across the grid"): rows short enough for shared memory are shuffled
// there, in place; on coprime shapes the column pass reads whole row pieces through a
// shared-memory tile instead of one element per sector, and `c2r-grid` runs that pass in
// place across the whole GPU's shared memory (inplace_rect_grid.cu).
#include <algorithm>

#include "tlab/gpu/inplace_rect.cuh"
#include "tlab/gpu/kept_scratch.cuh"
#include "tlab/gpu/word_tile.cuh"
#include "tlab/inplace_rect_index.hpp"

namespace tlab::gpu {
namespace {

constexpr int kBlock = 256;

enum class Pass { rotate, row_shuffle, column_shuffle };

// Column batch [j0, j0 + w): tmp (m x w) gets each element from the row the pass names.
template <int S, Pass P>
__global__ void gather_columns(const word::Word<S>* __restrict__ a, word::Word<S>* __restrict__ tmp, c2r::Params p,
                               std::int64_t j0, c2r::Divisor w) {
  const std::int64_t total = p.m * w.d, stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < total; k += stride) {
    const std::int64_t i = c2r::quot(k, w), j = j0 + k - i * w.d;
    const std::int64_t src = P == Pass::rotate ? c2r::rotate_source(p, i, j) : c2r::column_shuffle_source(p, i, j);
    tmp[k] = a[src * p.n + j];
  }
}

// Row batch [r0, r0 + h): tmp (h x n) gets each element of row r from the column the row
// shuffle names.
template <int S>
__global__ void gather_rows(const word::Word<S>* __restrict__ a, word::Word<S>* __restrict__ tmp, c2r::Params p,
                            std::int64_t r0, std::int64_t h) {
  const std::int64_t total = h * p.n, stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < total; k += stride) {
    const std::int64_t dr = c2r::quot(k, p.dn), r = r0 + dr, q = k - dr * p.n;
    tmp[k] = a[r * p.n + c2r::row_shuffle_source(p, r, q)];
  }
}

// A contiguous run of `bytes` bytes between global memory and shared memory in 16-byte words
// wherever the run has them: element-wise loads and stores of 1 and 2 bytes left the row pass
// at 1.3-2.5 memcpy times (performance notes, section 9, "Where the column pass's time goes"). The
// shared-memory copy starts `lead` = global address mod 16 bytes into its buffer, so that the
// global run's aligned words land on aligned shared words; the head and tail elements before
// the first and after the last aligned word move one at a time.
template <int S, bool ToShared>
__device__ __forceinline__ void move_run(word::Word<S>* global, unsigned char* shared, int bytes) {
  const auto g = reinterpret_cast<std::uintptr_t>(global);
  const int lead = static_cast<int>(g % 16), head = std::min(bytes, (16 - lead) % 16);
  const int words = (bytes - head) / 16, tail_from = head + words * 16;
  auto* g_words = reinterpret_cast<uint4*>(g + head);
  auto* s_words = reinterpret_cast<uint4*>(shared + lead + head);
  constexpr int kLoads = 4;
  for (int w0 = threadIdx.x; w0 < words; w0 += kLoads * blockDim.x) {
    uint4 x[kLoads];
#pragma unroll
    for (int i = 0; i < kLoads; ++i)
      if (w0 + i * blockDim.x < words) x[i] = ToShared ? g_words[w0 + i * blockDim.x] : s_words[w0 + i * blockDim.x];
#pragma unroll
    for (int i = 0; i < kLoads; ++i)
      if (w0 + i * blockDim.x < words) (ToShared ? s_words : g_words)[w0 + i * blockDim.x] = x[i];
  }
  auto* s_elems = reinterpret_cast<word::Word<S>*>(shared + lead);
  const int edge = head / S + (bytes - tail_from) / S;  // elements outside the words
  for (int k = threadIdx.x; k < edge; k += blockDim.x) {
    const int e = k < head / S ? k : tail_from / S + (k - head / S);
    if (ToShared) s_elems[e] = global[e];
    else global[e] = s_elems[e];
  }
}

// Pass 2 in place, R consecutive rows at a time in shared memory: one read and one write of
// each row instead of a gather, a write to scratch and a copy back. The R rows are one
// contiguous run of memory, read with eight loads in flight per thread: one short row per
// block and step left the DRAM at under half its peak (performance notes, section 9, "c2r's
// column pass across the grid"). On coprime shapes the source column is
// ((q - r) mod n) a^-1 mod n, which steps by a constant from one q to the next and from one
// row to the next, so the loop carries it instead of recomputing it (`step_q` for
// q + blockDim.x, a^-1 for r + 1, `step_group` for r + gridDim.x R, all mod n).
//
// With Wide (1- and 2-byte elements), the run moves in 16-byte words (move_run); the rows are
// shuffled from one shared buffer into a second so that they can go back to global memory in
// whole words too (wide_buffer_bytes each).
//
// Indices within the rows are 32-bit: the rows on chip hold at most the shared memory's
// elements, and 32-bit arithmetic takes fewer issue slots per element (inplace_rect_grid.cu).
// Each of the wide path's two shared buffers for a run of `run_bytes`: 16 bytes more for the
// lead, rounded up to whole 16-byte words so that the second buffer starts on one.
__host__ __device__ constexpr std::int64_t wide_buffer_bytes(std::int64_t run_bytes) {
  return (run_bytes + 31) / 16 * 16;
}

template <int S, bool Coprime, bool Wide>
__global__ void __launch_bounds__(1024) shuffle_rows_on_chip(word::Word<S>* __restrict__ a, c2r::Params p, int R,
                                                             int step_q, int step_group) {
  constexpr int kLoads = 8;
  extern __shared__ __align__(16) unsigned char row_raw[];
  const int n = static_cast<int>(p.n), a_inv = static_cast<int>(p.a_inv), threads = static_cast<int>(blockDim.x);
  const int buffer = static_cast<int>(wide_buffer_bytes(R * n * S));  // Wide: where the shuffled rows go
  int v_first = 0;  // the source column of (the block's first row, threadIdx.x)
  if (Coprime)
    v_first = static_cast<int>(
        c2r::mod(static_cast<std::int64_t>(threadIdx.x) - static_cast<std::int64_t>(blockIdx.x) * R, p.dn) * p.a_inv %
        p.n);
  for (std::int64_t r0 = static_cast<std::int64_t>(blockIdx.x) * R; r0 < p.m;
       r0 += static_cast<std::int64_t>(gridDim.x) * R) {
    const int rows = static_cast<int>(std::min<std::int64_t>(R, p.m - r0)), count = rows * n;
    word::Word<S>* at = a + r0 * p.n;
    const int lead = Wide ? static_cast<int>(reinterpret_cast<std::uintptr_t>(at) % 16) : 0;
    auto* row = reinterpret_cast<word::Word<S>*>(row_raw + lead);
    if (Wide) {
      move_run<S, true>(at, row_raw, count * S);
    } else {
      for (int e0 = threadIdx.x; e0 < count; e0 += kLoads * threads) {
        word::Word<S> x[kLoads] = {};
#pragma unroll
        for (int i = 0; i < kLoads; ++i)
          if (e0 + i * threads < count) x[i] = at[e0 + i * threads];
#pragma unroll
        for (int i = 0; i < kLoads; ++i)
          if (e0 + i * threads < count) row[e0 + i * threads] = x[i];
      }
    }
    __syncthreads();
    for (int i = 0; i < rows; ++i) {
      word::Word<S>* out =
          (Wide ? reinterpret_cast<word::Word<S>*>(row_raw + buffer + lead) : at) + static_cast<std::int64_t>(i) * n;
      const word::Word<S>* in = row + i * n;
      if (Coprime) {
        int v = v_first;
        for (int q = threadIdx.x; q < n; q += threads) {
          out[q] = in[v];
          v += step_q;
          if (v >= n) v -= n;
        }
        v_first -= a_inv;  // the next row
        if (v_first < 0) v_first += n;
      } else {
        for (int q = threadIdx.x; q < n; q += threads) out[q] = in[c2r::row_shuffle_source(p, r0 + i, q)];
      }
    }
    if (Coprime) {  // from the row after this block's last to its next first row
      v_first -= step_group;
      if (v_first < 0) v_first += n;
    }
    if (Wide) {
      __syncthreads();
      move_run<S, false>(at, row_raw + buffer, count * S);
    }
    __syncthreads();
  }
}

// Pass 3 on a coprime shape, for the column batch [j0, j0 + w): tmp row r, column j - j0
// gets a[(t + j) mod m][j] with t = r n mod m (c2r::coprime_base). A block takes T
// consecutive bases and 32 columns; their sources are the T + 31 consecutive rows from
// t0 + jb, loaded as 32-element row pieces into a tile whose row k is source row t0 + jb + k.
// Output base t0 + dt, column jb + lane is then tile row dt + lane: a diagonal, which a row
// pitch of 32 elements spreads over the banks. A warp steps through rows `warps` apart, so
// both its source row and its output row advance by a constant mod m (`r_step`: warps n^-1).
template <int S> constexpr int kBases = S == 16 ? 64 : 128;  // tile under 48 KiB

template <int S>
__global__ void __launch_bounds__(kBlock) gather_columns_coprime(const word::Word<S>* __restrict__ a,
                                                                 word::Word<S>* __restrict__ tmp, c2r::Params p,
                                                                 std::int64_t j0, std::int64_t w, std::int64_t r_step) {
  constexpr int T = kBases<S>, warps = kBlock / 32;
  __shared__ word::Word<S> tile[(T + 31) * 32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const std::int64_t pieces = (w + 31) / 32;
  for (std::int64_t piece = blockIdx.y; piece < pieces; piece += gridDim.y) {
    const std::int64_t jb = j0 + piece * 32;
    const bool inside = piece * 32 + lane < w;
    for (std::int64_t t0 = static_cast<std::int64_t>(blockIdx.x) * T; t0 < p.m; t0 += static_cast<std::int64_t>(gridDim.x) * T) {
      std::int64_t src = c2r::mod(t0 + jb + warp, p.dm);
      for (int k = warp; k < T + 31; k += warps) {
        if (inside) tile[k * 32 + lane] = a[src * p.n + jb + lane];
        src += warps;
        while (src >= p.m) src -= p.m;  // more than once only where m < warps
      }
      __syncthreads();
      std::int64_t r = c2r::coprime_row(p, t0 + warp);
      for (int dt = warp; dt < T && t0 + dt < p.m; dt += warps) {
        if (inside) tmp[r * w + (jb - j0) + lane] = tile[(dt + lane) * 32 + lane];
        r += r_step;
        if (r >= p.m) r -= p.m;
      }
      __syncthreads();
    }
  }
}

// The column batch back into its place: a[i][j0 + jj] = tmp[i][jj], a warp per row. It
// replaced a 2-D copy (one descriptor per row of 64-256 elements) in the same change that
// took the index arithmetic out of the coprime passes; together they nearly doubled c2r's
// rate, not measured apart (performance notes, section 9, "c2r on chip").
template <int S>
__global__ void put_columns_back(word::Word<S>* __restrict__ a, const word::Word<S>* __restrict__ tmp, std::int64_t m,
                                 std::int64_t n, std::int64_t j0, std::int64_t w) {
  constexpr int warps = kBlock / 32;
  const int lane = threadIdx.x % 32;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * warps + threadIdx.x / 32; i < m;
       i += static_cast<std::int64_t>(gridDim.x) * warps)
    for (std::int64_t jj = lane; jj < w; jj += 32) a[i * n + j0 + jj] = tmp[i * w + jj];
}

// Rows of this many bytes or fewer are shuffled in shared memory.
std::int64_t on_chip_row_bytes() {
  int dev = 0, optin = 0;
  TLAB_CUDA(cudaGetDevice(&dev));
  TLAB_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  return optin;
}

// Blocks of `smem` bytes of shared memory that one SM holds at once (the runtime's reserve
// counted per block).
int blocks_per_sm_by_smem(std::int64_t smem) {
  int dev = 0, per_sm = 0, reserved = 0;
  TLAB_CUDA(cudaGetDevice(&dev));
  TLAB_CUDA(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
  TLAB_CUDA(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, dev));
  return static_cast<int>(per_sm / (smem + reserved));
}

unsigned blocks_for(std::int64_t work) {
  return static_cast<unsigned>(std::clamp<std::int64_t>(ceil_div(work, kBlock), 1, 65535));
}

template <int S>
void run(void* matrix, Shape s, void* scratch, int scratch_rows, bool columns_on_grid, cudaStream_t stream) {
  using Wd = word::Word<S>;
  const c2r::Params p = c2r::make_params(s.rows, s.cols);
  auto* a = static_cast<Wd*>(matrix);
  auto* tmp = static_cast<Wd*>(scratch);
  const std::int64_t scratch_elems = in_place_rect_scratch_bytes(s, S, scratch_rows) / S;
  auto take_scratch = [&] {
    if (!tmp) tmp = static_cast<Wd*>(kept_scratch(scratch_elems * S));
  };
  // gather(j0, w) launches the gather of the column batch [j0, j0 + w) into tmp (m x w).
  auto column_pass = [&](auto gather) {
    take_scratch();
    const std::int64_t width = scratch_elems / p.m;
    for (std::int64_t j0 = 0; j0 < p.n; j0 += width) {
      const std::int64_t w = std::min(width, p.n - j0);
      gather(j0, w);
      TLAB_CUDA_LAUNCHED();
      put_columns_back<S><<<blocks_for(p.m * 32), kBlock, 0, stream>>>(a, tmp, p.m, p.n, j0, w);
      TLAB_CUDA_LAUNCHED();
    }
  };
  auto gather_general = [&](auto kernel) {
    return [&, kernel](std::int64_t j0, std::int64_t w) {
      kernel<<<blocks_for(p.m * w), kBlock, 0, stream>>>(a, tmp, p, j0, c2r::divisor(w));
    };
  };
  if (p.c > 1) column_pass(gather_general(gather_columns<S, Pass::rotate>));
  const std::int64_t row_bytes = p.n * S;
  // 1- and 2-byte rows in 16-byte words, through two buffers, where both fit.
  const bool wide = S <= 2 && 2 * wide_buffer_bytes(row_bytes) <= on_chip_row_bytes();
  if (row_bytes <= on_chip_row_bytes()) {
    // About 16 KiB of rows a block where rows are short. A longer row is a block's alone: of
    // 512 threads where three such blocks fit an SM's shared memory, so that three rows are
    // in flight where blocks of 1024 threads left two (float 1021 x 16381: the row pass from
    // 50.9 to 42.7 us on the H200), else of 1024, so that as many loads are in flight with
    // the one or two blocks an SM then holds (performance notes, section 9, "c2r's passes in
    // one launch").
    const int R = static_cast<int>(std::clamp<std::int64_t>(16 * 1024 / row_bytes, 1, p.m));
    const unsigned blocks = static_cast<unsigned>(std::min<std::int64_t>(ceil_div(p.m, R), 65535));
    const std::int64_t smem = wide ? 2 * wide_buffer_bytes(R * row_bytes) : R * row_bytes;
    const int threads = row_bytes <= 16 * 1024 ? kBlock : blocks_per_sm_by_smem(smem) >= 3 ? 512 : 1024;
    auto launch = [&](auto kernel) {
      if (smem > 48 * 1024)
        TLAB_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
      // From the row after a block's R rows to its next first row: (gridDim.x - 1) R rows.
      const std::int64_t group_rows = static_cast<std::int64_t>(blocks - 1) * R;
      kernel<<<blocks, threads, smem, stream>>>(a, p, R, static_cast<int>(threads * p.a_inv % p.n),
                                                static_cast<int>(group_rows % p.n * p.a_inv % p.n));
      TLAB_CUDA_LAUNCHED();
    };
    if (wide && p.c == 1)
      launch(shuffle_rows_on_chip<S, true, S <= 2>);
    else if (wide)
      launch(shuffle_rows_on_chip<S, false, S <= 2>);
    else if (p.c == 1)
      launch(shuffle_rows_on_chip<S, true, false>);
    else
      launch(shuffle_rows_on_chip<S, false, false>);
  } else {
    take_scratch();
    const std::int64_t height = scratch_elems / p.n;
    for (std::int64_t r0 = 0; r0 < p.m; r0 += height) {
      const std::int64_t h = std::min(height, p.m - r0);
      gather_rows<S><<<blocks_for(h * p.n), kBlock, 0, stream>>>(a, tmp, p, r0, h);
      TLAB_CUDA_LAUNCHED();
      TLAB_CUDA(cudaMemcpyAsync(a + r0 * p.n, tmp, h * p.n * S, cudaMemcpyDeviceToDevice, stream));
    }
  }
  if (p.c > 1) return column_pass(gather_general(gather_columns<S, Pass::column_shuffle>));
  if (columns_on_grid && shuffle_columns_coprime_on_grid(matrix, p, S, stream)) return;
  column_pass([&](std::int64_t j0, std::int64_t w) {
    const dim3 grid(blocks_for(ceil_div(p.m, kBases<S>) * kBlock),
                    static_cast<unsigned>(std::min<std::int64_t>(ceil_div(w, 32), 65535)));
    gather_columns_coprime<S><<<grid, kBlock, 0, stream>>>(a, tmp, p, j0, w, kBlock / 32 * p.n_inv % p.m);
  });
}

}  // namespace

std::int64_t in_place_rect_scratch_bytes(Shape s, int elem, int scratch_rows) {
  return std::min(s.elements(), scratch_rows * std::max(s.rows, s.cols)) * elem;
}

std::int64_t in_place_rect_grid_scratch_bytes(Shape s, int elem, int scratch_rows) {
  const c2r::Params p = c2r::make_params(s.rows, s.cols);
  if (p.c == 1 && p.n * elem <= on_chip_row_bytes() && coprime_on_grid_fits(p, elem)) return 0;
  return in_place_rect_scratch_bytes(s, elem, scratch_rows);
}

void transpose_in_place_rect(void* m, Shape s, int elem, void* scratch, int scratch_rows, cudaStream_t stream,
                             bool columns_on_grid) {
  switch (elem) {
    case 1: return run<1>(m, s, scratch, scratch_rows, columns_on_grid, stream);
    case 2: return run<2>(m, s, scratch, scratch_rows, columns_on_grid, stream);
    case 4: return run<4>(m, s, scratch, scratch_rows, columns_on_grid, stream);
    case 8: return run<8>(m, s, scratch, scratch_rows, columns_on_grid, stream);
    case 16: return run<16>(m, s, scratch, scratch_rows, columns_on_grid, stream);
  }
  throw std::invalid_argument("in-place rectangular transpose: element size " + std::to_string(elem) +
                              " is not 1, 2, 4, 8 or 16 bytes");
}

void register_gpu_inplace_rect(Registry& r) {
  // Scratch of 64 rows of the longer side, and of 256: four times fewer column batches, each a
  // launch and a strided copy back (performance notes, section 9, "c2r on chip"). `c2r-grid`
  // puts a coprime shape's columns in place through the grid's shared memory, where a strip of
  // them fits ("c2r's column pass across the grid"), and is `c2r-r256` elsewhere.
  struct Form {
    const char* name;
    int rows;
    bool grid;
  };
  for (Form f : {Form{"gpu/inplace-rect/c2r", 64, false}, Form{"gpu/inplace-rect/c2r-r256", 256, false},
                 Form{"gpu/inplace-rect/c2r-grid", 256, true}}) {
    std::vector<Param> params{{"scratch_rows", std::to_string(f.rows)}};
    if (f.grid) params.push_back({"columns", "grid"});
    Variant v = gpu_variant(f.name, "gpu-inplace-rect", Placement::in_place, std::move(params),
                            "any m x n in place: column rotate, row shuffle, column shuffle (Catanzaro et al. 2014)");
    v.any_shape = true;
    const int rows = f.rows;
    const bool grid = f.grid;
    // A plan's scratch; none for the grid path where every pass runs in place (computed once,
    // when the plan is made: a call with none takes a kept buffer only if a pass needs one).
    auto bytes_for = [rows, grid](Shape s, int elem) {
      return grid ? in_place_rect_grid_scratch_bytes(s, elem, rows) : in_place_rect_scratch_bytes(s, elem, rows);
    };
    v.scratch_bytes = [bytes_for](DType t, Shape s) { return bytes_for(s, static_cast<int>(dtype_size(t))); };
    v.kernels = instantiate_all([rows, grid](auto tag, const Operands& op) {
      constexpr int S = sizeof(decltype(tag));
      c2r::make_params(op.shape.rows, op.shape.cols);  // refuses before any allocation
      transpose_in_place_rect(op.out, op.shape, S, op.scratch, rows, stream_of(op), grid);
    });
    r.add(std::move(v));
  }
}

}  // namespace tlab::gpu
