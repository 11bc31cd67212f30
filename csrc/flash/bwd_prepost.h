// The backward's two elementwise passes around its main kernel, over the rows of lse (B, Hq, Sq
// dense; Hq, Tq varlen, where the row stride walks the packed sequences and batch is 1):
// rowsum(dO * O) before it (the D_i of dS = P * (dP - D)), and the fp32 dq accumulators to dq
// after it (sum of the slices in a fixed order, times the softmax scale); and the main
// kernel's atomic adds into those accumulators; and the launches of the two passes. Shared with
// the mem_eff backward.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

#include <cute/tensor.hpp>
#include <cutlass/arch/memory.h>
#include <cutlass/array.h>
#include <cutlass/numeric_conversion.h>

#include "params.h"
#include "utils.h"

namespace flash {

struct LseRows {
  int batch, heads, rows;  // lse is (batch, heads, rows)

  explicit __host__ __device__ LseRows(const FwdParams& p)
      : batch(p.cu_seqlens_q != nullptr ? 1 : p.batch),
        heads(p.heads_q),
        rows(p.cu_seqlens_q != nullptr ? p.total_q : p.seqlen_q) {}

  __host__ __device__ int64_t count() const { return int64_t(batch) * heads * rows; }

  // Element offset of lse row `index` in a tensor with (batch, head, row) strides.
  __device__ int64_t offset(int64_t index, int64_t batch_stride, int64_t head_stride,
                            int64_t row_stride) const {
    const int64_t row = index % rows, bh = index / rows;
    return (bh / heads) * batch_stride + (bh % heads) * head_stride + row * row_stride;
  }
};

// Adds a thread's dq tile (its accumulator and `dst`, the same partition of kBlockM x kHeadDim
// fp32 rows in global memory) with one 8-byte atomic per pair of adjacent columns; rows at or
// past `rows` are skipped when kCheckRows. dst's static layout makes every address the thread's
// base plus an immediate.
template <bool kCheckRows, typename Acc, typename Dst, typename Coords>
__device__ __forceinline__ void atomic_add_dq(Acc const& acc, Dst& dst, Coords const& coords,
                                              int rows) {
  static_assert(decltype(cute::size<0, 0>(acc))::value == 2);  // (column pair, row halves)
  CUTE_UNROLL
  for (int j = 0; j < cute::size(acc); j += 2) {
    if (kCheckRows && cute::get<0>(coords(j)) >= rows) continue;
    float* ptr = &dst(j);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    atomicAdd(reinterpret_cast<float2*>(ptr), make_float2(acc(j), acc(j + 1)));
#else
    atomicAdd(ptr, acc(j));
    atomicAdd(ptr + 1, acc(j + 1));
#endif
  }
}

constexpr int kPrepostThreads = 256;

// 16 bytes of T, aligned to 16 so that a load or store of one is a single 16-byte access
// (cutlass::Array is aligned as its element: the passes' loads had compiled to 4-byte LDG.E).
template <typename T>
using Vec16 = cutlass::AlignedArray<T, 16 / sizeof(T), 16>;

// kLanes lanes per row, 16 bytes each per step across the head dim (a multiple of 16 bytes),
// 32 / kLanes rows per warp: a lane per 16 bytes of the kernel's head dim, up to a warp. (One
// warp per row left 24 of its lanes idle at D = 64: 126 us against 54 us this way for the
// (16, 32, 1024, 64) bf16 rows, H100.)
template <typename Element, int kLanes>
__global__ void __launch_bounds__(kPrepostThreads) bwd_dsum_kernel(const BwdParams p) {
  static_assert(kLanes >= 1 && kLanes <= 32 && (kLanes & (kLanes - 1)) == 0);
  using Vec = Vec16<Element>;
  constexpr int kVec = Vec::kElements;
  const LseRows rows(p);
  const int64_t index = (int64_t(blockIdx.x) * kPrepostThreads + threadIdx.x) / kLanes;
  const int lane = threadIdx.x % kLanes;
  // Rows past the end sum nothing but still take part in the warp's shuffles.
  const bool valid = index < rows.count();
  float sum = 0.f;
  if (valid) {
    const Element* dout = static_cast<const Element*>(p.dout) +
        rows.offset(index, p.do_batch_stride, p.do_head_stride, p.do_row_stride);
    const Element* out = static_cast<const Element*>(p.out) +
        rows.offset(index, p.o_batch_stride, p.o_head_stride, p.o_row_stride);
    for (int col = kVec * lane; col < p.head_dim_v; col += kVec * kLanes) {
      const Vec a = *reinterpret_cast<const Vec*>(dout + col);
      const Vec b = *reinterpret_cast<const Vec*>(out + col);
      #pragma unroll
      for (int i = 0; i < kVec; ++i) sum += static_cast<float>(a[i]) * static_cast<float>(b[i]);
    }
  }
  sum = lanes_allreduce<kLanes>(sum, SumOp{});
  if (valid && lane == 0) p.dsum[index] = sum;
  if (p.sink_rows == nullptr && p.grad_sinks == nullptr) return;  // no sinks' gradient wanted
  // The row's share of its head's sink gradient, -exp(sink - lse') rowsum(dO * O): 0 where lse'
  // is the sink's own infinity (no key and a sink of -inf, or a sink of +inf).
  const int head = static_cast<int>(index / rows.rows % rows.heads);
  float share = 0.f;
  if (valid && lane == 0) {
    const float sink = p.sinks[head], lse = p.lse[index];
    share = isinf(lse) && lse == sink ? 0.f : -__expf(sink - lse) * sum;
  }
  if (p.sink_rows != nullptr) {  // deterministic: summed per head in a fixed order afterwards
    if (valid && lane == 0) p.sink_rows[index] = share;
    return;
  }
  // Otherwise added into grad_sinks: one atomic a block where its rows are one (batch, head)'s
  // (a per-head sum of 1 MB of row shares afterwards had cost 16 us at gpt-oss's Sq = 4k).
  constexpr int kRowsPerBlock = kPrepostThreads / kLanes;
  const int64_t first = int64_t(blockIdx.x) * kRowsPerBlock;
  const int64_t last = min(first + kRowsPerBlock, rows.count()) - 1;
  if (first / rows.rows != last / rows.rows) {
    if (valid && lane == 0) atomicAdd(p.grad_sinks + head, share);
    return;
  }
  share = lanes_allreduce<32>(share, SumOp{});
  __shared__ float warp_shares[kPrepostThreads / 32];
  if (threadIdx.x % 32 == 0) warp_shares[threadIdx.x / 32] = share;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.f;
    #pragma unroll
    for (int w = 0; w < kPrepostThreads / 32; ++w) total += warp_shares[w];
    atomicAdd(p.grad_sinks + head, total);
  }
}

// rowsum(dO * O) of every lse row, for a kernel head dim (its lanes per row from it).
template <typename Element, int kHeadDim>
cudaError_t launch_bwd_dsum(const BwdParams& p, cudaStream_t stream) {
  constexpr int kPieces = kHeadDim * int(sizeof(Element)) / 16;
  constexpr int kLanes = kPieces >= 32 ? 32 : kPieces > 8 ? 16 : kPieces > 4 ? 8 : 4;
  const int64_t threads = LseRows(p).count() * kLanes;
  const unsigned blocks =
      static_cast<unsigned>((threads + kPrepostThreads - 1) / kPrepostThreads);
  bwd_dsum_kernel<Element, kLanes><<<blocks, kPrepostThreads, 0, stream>>>(p);
  return cudaGetLastError();
}

// Columns of a row of dq per thread of the conversion: its fp32 sums come in as 16-byte loads,
// kDqCols / 4 of them per slice, and leave as 16-byte stores.
constexpr int kDqCols = 16;

template <typename Element, int kHeadDim>
__global__ void __launch_bounds__(kPrepostThreads) bwd_convert_dq_kernel(const BwdParams p) {
  static_assert(kHeadDim % kDqCols == 0);
  using Acc = Vec16<float>;
  using Out = Vec16<Element>;
  const LseRows rows(p);
  constexpr int kPieces = kHeadDim / kDqCols;
  const int64_t thread = int64_t(blockIdx.x) * kPrepostThreads + threadIdx.x;
  const int64_t index = thread / kPieces;
  const int col = static_cast<int>(thread % kPieces) * kDqCols;
  if (index >= rows.count() || col >= p.head_dim) return;
  const int64_t slice = rows.count() * kHeadDim;
  const float* acc = p.dq_accum + index * kHeadDim + col;
  cutlass::Array<float, kDqCols> sum;
  sum.fill(0.f);
  for (int s = 0; s < p.dq_splits; ++s) {
    #pragma unroll
    for (int v = 0; v < kDqCols / Acc::kElements; ++v) {
      const Acc part = reinterpret_cast<const Acc*>(acc + s * slice)[v];
      #pragma unroll
      for (int i = 0; i < Acc::kElements; ++i) sum[v * Acc::kElements + i] += part[i];
    }
  }
  // A row that saw no key (lse -inf) gets 0: its dS is 0, but the dS K products may have met a
  // NaN or infinite key it does not see (mem_eff's boolean masks).
  const bool saw_key = p.lse[index] != -INFINITY;
  #pragma unroll
  for (int i = 0; i < kDqCols; ++i) sum[i] = saw_key ? sum[i] * p.scale : 0.f;
  cutlass::NumericArrayConverter<Element, float, kDqCols> convert;
  const cutlass::Array<Element, kDqCols> converted = convert(sum);
  Element* dq = static_cast<Element*>(p.dq) +
      rows.offset(index, p.dq_batch_stride, p.dq_head_stride, p.dq_row_stride) + col;
  // head_dim is a multiple of 16 bytes (flash's head dims; mem_eff pads to row_alignment), so a
  // piece is in the row whole or not at all.
  #pragma unroll
  for (int v = 0; v < kDqCols / Out::kElements; ++v) {
    Out piece;
    #pragma unroll
    for (int i = 0; i < Out::kElements; ++i) piece[i] = converted[v * Out::kElements + i];
    cutlass::arch::global_store<Out, 16>(piece, dq + v * Out::kElements,
                                         col + (v + 1) * Out::kElements <= p.head_dim);
  }
}

// dq from the fp32 accumulators, every lse row.
template <typename Element, int kHeadDim>
cudaError_t launch_bwd_convert_dq(const BwdParams& p, cudaStream_t stream) {
  const int64_t threads = LseRows(p).count() * (kHeadDim / kDqCols);
  const unsigned blocks =
      static_cast<unsigned>((threads + kPrepostThreads - 1) / kPrepostThreads);
  bwd_convert_dq_kernel<Element, kHeadDim><<<blocks, kPrepostThreads, 0, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace flash
