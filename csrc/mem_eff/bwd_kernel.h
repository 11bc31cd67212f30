// The mem_eff backward. D = rowsum(dO * O) comes first (flash's bwd_dsum_kernel), then:
//  - dkdv_kernel: a CTA owns kBlockN keys of one KV head and walks the query blocks of every
//    query head in its group, in transposed form: S^T = K Q^T + bias^T, P^T = exp(S^T - lse),
//    dP^T = V dO^T, dS^T = P^T (dP^T - D), dV += P^T dO, dK += dS^T Q. With kDq it also adds
//    its share of dQ, dS K, to fp32 accumulators in global memory (atomics; flash's convert
//    kernel turns them into dq) and writes the bias gradient dS: five GEMMs per tile.
//  - Deterministic calls instead get every gradient in a fixed order, no atomics, from two
//    kernels that each own what they write: dkdv_kernel without kDq, and dq_kernel, where a CTA
//    owns kBlockM query rows of one head and walks their key blocks, recomputing S, P, dP and dS
//    to add dQ += dS K and write the bias gradient: seven GEMMs per tile.
// Softcap (softcap.h): dQ and dK take dS times the cap's derivative 1 - tanh^2, the bias
// gradient dS itself. dq_kernel stages the two apart (dS over the bias tile it has read);
// dkdv_kernel stages only the first, so softcapped calls whose bias needs a gradient run the
// two-kernel backward (mem_eff.h's two_kernel_backward).
// P and dS are staged through shared memory as the next GEMM's A operand, as in the forward.
// Warps split each product their own way (config.h): in fp32 at D = 128, S^T and dP^T even go
// to different halves of the warps, which meet in shared memory to make dS^T.
#pragma once

#include <cmath>

#include <cute/tensor.hpp>

#include "../flash/bwd_prepost.h"
#include "../flash/dropout.h"
#include "../flash/mask.h"
#include "../flash/seqlen.h"
#include "config.h"
#include "gemm.h"
#include "guard.h"
#include "params.h"
#include "softcap.h"
#include "tiles.h"
#include "traits.h"

namespace mem_eff {

using namespace cute;

// Whether (row, col) keeps its probability: one Philox draw covers a pair of columns.
__forceinline__ __device__ bool keeps(const flash::Dropout& dropout, int row, int col) {
  bool keep0, keep1;
  dropout.keep_pair(row, col & ~1, keep0, keep1);
  return (col & 1) ? keep1 : keep0;
}

// What both kernels know of one (batch, query head): the sequence, the mask with its ALiBi,
// and the dropout draws.
struct HeadView {
  flash::SeqLen seq;
  flash::Mask<false> mask;
  flash::Dropout dropout;

  __device__ __forceinline__ HeadView(const BwdParams& p, int b, int h)
      : seq(p, b),
        mask(seq.seqlen_q, seq.seqlen_k, p.bottom_right, p.window_left, p.window_right,
             p.alibi_slopes == nullptr ? 0.f : -p.alibi_slopes[b * p.alibi_batch_stride + h]),
        dropout(p.dropout_p > 0.f ? flash::Dropout(p.dropout_seed, p.dropout_p, b * p.heads_q + h)
                                  : flash::Dropout{}) {}
};

// lse (+inf for rows without keys or past the end, so that P = exp(x - lse) = 0) and D of
// query rows [m0, m0 + kBlockM) into shared memory.
template <int kBlockM, int kNThreads>
__forceinline__ __device__ void load_row_stats(const BwdParams& p, const HeadView& hv, int b,
                                               int h, int m0, float* s_lse, float* s_dsum,
                                               int tidx) {
  const int64_t offset = hv.seq.lse_offset(p, b, h);
  for (int i = tidx; i < kBlockM; i += kNThreads) {
    const int row = m0 + i;
    const float lse = row < hv.seq.seqlen_q ? p.lse[offset + row] : -INFINITY;
    s_lse[i] = lse == -INFINITY ? INFINITY : lse;
    s_dsum[i] = row < hv.seq.seqlen_q ? p.dsum[offset + row] : 0.f;
  }
}

// Writes rows [0, rows) x columns [0, cols) of the dS tile `sdS` (a (kBlockM, kBlockN) view
// of shared memory, transposed in the dK/dV kernel) to the bias gradient at `dst` with row stride
// `row_stride`, 16 bytes at a time: the bias gradient's rows are whole 16-byte pieces.
template <int kNThreads, typename STile, typename Element>
__forceinline__ __device__ void store_dbias(STile const& sdS, Element* dst, int64_t row_stride,
                                            int rows, int cols, int tidx) {
  constexpr int kVec = 16 / sizeof(Element);
  constexpr int kRows = decltype(size<0>(sdS))::value;
  constexpr int kPieces = decltype(size<1>(sdS))::value / kVec;
  for (int i = tidx; i < kRows * kPieces; i += kNThreads) {
    const int r = i / kPieces, c = (i % kPieces) * kVec;
    if (r >= rows || c >= cols) continue;
    cutlass::AlignedArray<Element, kVec> piece;
    CUTE_UNROLL
    for (int j = 0; j < kVec; ++j) piece[j] = sdS(r, c + j);
    *reinterpret_cast<cutlass::AlignedArray<Element, kVec>*>(dst + r * row_stride + c) = piece;
  }
}

// dQ (and the bias gradient) of one block of query rows; kGuard: see guard.h.
template <typename Traits, bool kSoftcap, bool kGuard>
__forceinline__ __device__ void dq_block(const BwdParams& params) {
  using Element = typename Traits::Element;
  constexpr int kBlockM = Traits::kBlockM;
  constexpr int kBlockN = Traits::kBlockN;
  constexpr int kHeadDim = Traits::kHeadDim;
  constexpr int kNThreads = Traits::kNThreads;

  extern __shared__ __align__(128) char smem[];
  const int tidx = threadIdx.x;
  const int m_block = blockIdx.x, bidh = blockIdx.y, bidb = blockIdx.z;
  const HeadView hv(params, bidb, bidh);
  const flash::SeqLen& seq = hv.seq;
  const int m0 = m_block * kBlockM;
  if (m0 >= seq.seqlen_q) return;
  const int m_end = min(m0 + kBlockM, seq.seqlen_q);
  const int n_begin = hv.mask.template n_block_begin<kBlockN>(m0);
  const int n_end = hv.mask.template n_block_end<kBlockN>(m_end);

  Tensor sQ = make_tensor(make_smem_ptr(reinterpret_cast<Element*>(smem)), typename Traits::SmemLayoutQ{});
  Tensor sdO = make_tensor(sQ.data() + size(sQ), typename Traits::SmemLayoutQ{});
  Tensor sK = make_tensor(sdO.data() + size(sdO), typename Traits::SmemLayoutK{});
  Tensor sKt = make_tensor(sK.data(), typename Traits::SmemLayoutKt{});
  Tensor sV = make_tensor(sK.data() + size(sK), typename Traits::SmemLayoutK{});
  Tensor sBias = make_tensor(sV.data() + size(sV), typename Traits::SmemLayoutS{});
  Tensor sdS = make_tensor(sBias.data() + size(sBias), typename Traits::SmemLayoutS{});
  float* s_lse = reinterpret_cast<float*>(smem + (Traits::kSmemSize - 2 * kBlockM * sizeof(float)));
  float* s_dsum = s_lse + kBlockM;

  typename Traits::TiledMma tiled_mma;
  Tensor acc_dq = partition_fragment_C(tiled_mma, Shape<Int<kBlockM>, Int<kHeadDim>>{});
  clear(acc_dq);

  const int kv_head = bidh / (params.heads_q / params.heads_kv);
  const Element* k_ptr = static_cast<const Element*>(params.k) +
      seq.k_offset(params.k_batch_stride, params.k_head_stride, params.k_row_stride, bidb, kv_head);
  const Element* v_ptr = static_cast<const Element*>(params.v) +
      seq.k_offset(params.v_batch_stride, params.v_head_stride, params.v_row_stride, bidb, kv_head);
  const bool has_bias = params.bias != nullptr;
  const Element* bias_ptr = has_bias
      ? static_cast<const Element*>(params.bias) + bias_offset(params, bidb, bidh, 0, 0) : nullptr;
  Tensor gBias = local_tile(make_tensor(make_gmem_ptr(bias_ptr), make_shape(seq.seqlen_q, seq.seqlen_k),
                                        make_stride(params.bias_row_stride, _1{})),
                            Shape<Int<kBlockM>, Int<kBlockN>>{}, make_coord(m_block, _));
  Element* dbias_ptr = params.dbias == nullptr ? nullptr
      : static_cast<Element*>(params.dbias) + bidb * params.dbias_batch_stride +
            bidh * params.dbias_head_stride;

  if (n_end > n_begin) {
    const Element* q_ptr = static_cast<const Element*>(params.q) +
        seq.q_offset(params.q_batch_stride, params.q_head_stride, params.q_row_stride, bidb, bidh);
    const Element* do_ptr = static_cast<const Element*>(params.dout) +
        seq.q_offset(params.do_batch_stride, params.do_head_stride, params.do_row_stride, bidb, bidh);
    load_tile<kNThreads>(rows_tile<kBlockM, kHeadDim>(q_ptr, params.q_row_stride, seq.seqlen_q, m_block),
                         sQ, m_end - m0, params.head_dim, tidx);
    load_tile<kNThreads>(rows_tile<kBlockM, kHeadDim>(do_ptr, params.do_row_stride, seq.seqlen_q, m_block),
                         sdO, m_end - m0, params.head_dim_v, tidx);
    load_row_stats<kBlockM, kNThreads>(params, hv, bidb, bidh, m0, s_lse, s_dsum, tidx);

    Tensor coords = acc_coords<kBlockM, kBlockN>(tiled_mma, tidx);
    const float scale = params.scale;
    const float keep_scale = params.dropout_p > 0.f ? 1.f / (1.f - params.dropout_p) : 1.f;
    const Softcap<Element, kSoftcap> softcap(params.softcap, params.scale);
    // The bias gradient, dS before the cap's derivative, goes to the bias tile: each thread
    // writes where it read its bias, which no other thread reads.
    const bool dbias_apart = kSoftcap && dbias_ptr != nullptr;
    for (int n_block = n_begin; n_block < n_end; ++n_block) {
      const int n0 = n_block * kBlockN;
      const int keys = seq.seqlen_k - n0;
      __syncthreads();  // every thread is done with the last K, V, bias and dS
      load_tile<kNThreads>(rows_tile<kBlockN, kHeadDim>(k_ptr, params.k_row_stride, seq.seqlen_k, n_block),
                           sK, keys, params.head_dim, tidx);
      load_tile<kNThreads>(rows_tile<kBlockN, kHeadDim>(v_ptr, params.v_row_stride, seq.seqlen_k, n_block),
                           sV, keys, params.head_dim_v, tidx);
      if (has_bias) load_tile<kNThreads>(gBias(_, _, n_block), sBias, m_end - m0, keys, tidx);
      cp_async_fence();
      cp_async_wait<0>();
      __syncthreads();

      Tensor acc_s = partition_fragment_C(tiled_mma, Shape<Int<kBlockM>, Int<kBlockN>>{});
      Tensor acc_dp = partition_fragment_C(tiled_mma, Shape<Int<kBlockM>, Int<kBlockN>>{});
      clear(acc_s);
      clear(acc_dp);
      gemm_smem<false, false, Traits::kUnrollK>(tiled_mma, acc_s, sQ, sK, tidx, kGuard);
      gemm_smem<false, false, Traits::kUnrollK, Traits::kChains>(
          tiled_mma, acc_dp, sdO, sV, tidx, kGuard);
      const bool needs_mask = hv.mask.template block_needs_mask<kBlockN>(n0, m0, m_end);
      CUTE_UNROLL
      for (int i = 0; i < size(acc_s); ++i) {
        const int r = get<0>(coords(i)), c = get<1>(coords(i));
        float x = acc_s(i) * scale, dcap = 1.f;
        if constexpr (kSoftcap) {
          const float t = softcap.tanh_of(acc_s(i));
          x = softcap.cap * t;
          dcap = 1.f - t * t;
        }
        if (has_bias) x = with_bias(params, x, static_cast<float>(sBias(r, c)));
        hv.mask.apply_one(x, m0 + r, n0 + c, needs_mask);
        const float p = exp2f((x - s_lse[r]) * float(M_LOG2E));
        if constexpr (kSoftcap) dcap = softcap.derivative_where_seen(dcap, p);
        float dp = acc_dp(i);
        if (params.dropout_p > 0.f) dp = keeps(hv.dropout, m0 + r, n0 + c) ? dp * keep_scale : 0.f;
        const float ds = p * (dp - s_dsum[r]);
        acc_s(i) = ds * dcap;  // dS of scale * q.k
        if (dbias_apart) sBias(r, c) = static_cast<Element>(ds);
      }
      acc_to_smem(tiled_mma, acc_s, sdS, tidx);
      __syncthreads();  // dS is complete
      if (dbias_ptr != nullptr) {
        store_dbias<kNThreads>(dbias_apart ? sBias : sdS,
                               dbias_ptr + int64_t(m0) * params.dbias_row_stride + n0,
                               params.dbias_row_stride, m_end - m0, keys, tidx);
      }
      gemm_smem<false, true, Traits::kUnrollK, Traits::kChains>(
          tiled_mma, acc_dq, sdS, sKt, tidx, kGuard);
    }
  }

  CUTE_UNROLL
  for (int i = 0; i < size(acc_dq); ++i) acc_dq(i) *= params.scale;
  __syncthreads();  // every thread is done with Q: dQ is staged there
  acc_to_smem(tiled_mma, acc_dq, sQ, tidx);
  __syncthreads();
  // Rows that saw no key (s_lse +inf) get dQ = 0: their dS is 0, but the dS K product may have
  // met a NaN or infinite key they do not see. A thread a row, in shared memory.
  for (int r = tidx; n_end > n_begin && r < m_end - m0; r += kNThreads) {
    if (s_lse[r] != INFINITY) continue;
    for (int c = 0; c < kHeadDim; ++c) sQ(r, c) = Element(0);
  }
  __syncthreads();
  Element* dq_ptr = static_cast<Element*>(params.dq) +
      seq.q_offset(params.dq_batch_stride, params.dq_head_stride, params.dq_row_stride, bidb, bidh);
  Tensor gdQ = rows_tile<kBlockM, kHeadDim>(dq_ptr, params.dq_row_stride, seq.seqlen_q, m_block);
  store_tile<kNThreads>(sQ, gdQ, m_end - m0, params.head_dim, tidx);
}

template <typename Traits, bool kSoftcap>
__global__ void __launch_bounds__(Traits::kNThreads)
    dq_kernel(__grid_constant__ const BwdParams params) {
  constexpr Bodies kHeld = kBodies<typename Traits::Element, true>;
  if constexpr (kHeld == Bodies::kBoth) {
    with_guard(params, [&](auto guard) {
      dq_block<Traits, kSoftcap, decltype(guard)::value>(params);
    });
  } else {
    dq_block<Traits, kSoftcap, kHeld == Bodies::kGuarded>(params);
  }
}

// dK and dV (and with kDq, dQ's share and the bias gradient) of one block of keys; kGuard: see
// guard.h.
template <typename Traits, bool kDq, bool kSoftcap, bool kGuard>
__forceinline__ __device__ void dkdv_block(const BwdParams& params) {
  using Element = typename Traits::Element;
  constexpr int kBlockM = Traits::kBlockM;
  constexpr int kBlockN = Traits::kBlockN;
  constexpr int kHeadDim = Traits::kHeadDim;
  constexpr int kNThreads = Traits::kNThreads;
  constexpr int kStages = Traits::kStages;
  static_assert(kBlockM <= kNThreads);

  extern __shared__ __align__(128) char smem[];
  const int tidx = threadIdx.x;
  const int n_block = blockIdx.x, kv_head = blockIdx.y, bidb = blockIdx.z;
  const flash::SeqLen seq(params, bidb);
  const int n0 = n_block * kBlockN;
  if (n0 >= seq.seqlen_k) return;
  const int keys = seq.seqlen_k - n0;
  const int n_last = min(n0 + kBlockN, seq.seqlen_k) - 1;

  // kStages each of Q, dO and the bias tile of a query block (stage s at s tiles past the
  // first), then K, V, P^T, dS^T, lse and D.
  Tensor sQ = make_tensor(make_smem_ptr(reinterpret_cast<Element*>(smem)), typename Traits::SmemLayoutQ{});
  Tensor sdO = make_tensor(sQ.data() + kStages * size(sQ), typename Traits::SmemLayoutQ{});
  Tensor sBias = make_tensor(sdO.data() + kStages * size(sdO), typename Traits::SmemLayoutS{});
  auto staged = [](auto const& tile, int stage, auto layout) {
    return make_tensor(tile.data() + stage * size(tile), layout);
  };
  Tensor sK = make_tensor(sBias.data() + kStages * size(sBias), typename Traits::SmemLayoutK{});
  Tensor sKt = make_tensor(sK.data(), typename Traits::SmemLayoutKt{});
  Tensor sV = make_tensor(sK.data() + size(sK), typename Traits::SmemLayoutK{});
  Tensor sPt = make_tensor(sV.data() + size(sV), typename Traits::SmemLayoutSt{});
  Tensor sdSt = make_tensor(sPt.data() + size(sPt), typename Traits::SmemLayoutSt{});
  Tensor sdS = make_tensor(sdSt.data(), typename Traits::SmemLayoutStT{});  // (kBlockM, kBlockN)
  float* s_lse = reinterpret_cast<float*>(smem + (Traits::kSmemSize - 2 * kBlockM * sizeof(float)));
  float* s_dsum = s_lse + kBlockM;

  const Element* k_ptr = static_cast<const Element*>(params.k) +
      seq.k_offset(params.k_batch_stride, params.k_head_stride, params.k_row_stride, bidb, kv_head);
  const Element* v_ptr = static_cast<const Element*>(params.v) +
      seq.k_offset(params.v_batch_stride, params.v_head_stride, params.v_row_stride, bidb, kv_head);
  load_tile<kNThreads>(rows_tile<kBlockN, kHeadDim>(k_ptr, params.k_row_stride, seq.seqlen_k, n_block),
                       sK, keys, params.head_dim, tidx);
  load_tile<kNThreads>(rows_tile<kBlockN, kHeadDim>(v_ptr, params.v_row_stride, seq.seqlen_k, n_block),
                       sV, keys, params.head_dim_v, tidx);

  typename Traits::TiledMma tiled_mma;
  typename Traits::TiledMmaKV mma_kv;
  Tensor acc_dk = partition_fragment_C(mma_kv, Shape<Int<kBlockN>, Int<kHeadDim>>{});
  Tensor acc_dv = partition_fragment_C(mma_kv, Shape<Int<kBlockN>, Int<kHeadDim>>{});
  clear(acc_dk);
  clear(acc_dv);
  Tensor coords = acc_coords<kBlockN, kBlockM>(tiled_mma, tidx);  // (key, query) in the tile
  // With kSplitScoreWarps, the half of the warps this thread is in, and its place there.
  typename Traits::TiledMmaHalf mma_half;
  const bool scores_half = tidx < kNThreads / 2;
  const int half_tidx = tidx % (kNThreads / 2);
  Tensor half_coords = acc_coords<kBlockN, kBlockM>(mma_half, half_tidx);
  const float scale = params.scale;
  const float keep_scale = params.dropout_p > 0.f ? 1.f / (1.f - params.dropout_p) : 1.f;
  const bool has_bias = params.bias != nullptr;
  const Softcap<Element, kSoftcap> softcap(params.softcap, params.scale);
  typename Traits::TiledMmaDq mma_dq;
  // A thread's part of a dQ tile, and the (row, col) of each of its elements.
  auto thr_dq = mma_dq.get_thread_slice(tidx);
  Tensor tdQc = thr_dq.partition_C(make_identity_tensor(Shape<Int<kBlockM>, Int<kHeadDim>>{}));

  // The steps: every query block that sees a key of this block (the same for every head:
  // windows do not depend on it), for each query head of the group in turn.
  const int group = params.heads_q / params.heads_kv;
  const int h_begin = kv_head * group;
  const flash::Mask<false> rows(seq.seqlen_q, seq.seqlen_k, params.bottom_right,
                                params.window_left, params.window_right, 0.f);
  const int m_begin = rows.row_begin(n0) / kBlockM;
  const int m_count = (rows.row_end(n_last, seq.seqlen_q) + kBlockM - 1) / kBlockM - m_begin;
  const int steps = m_count > 0 ? group * m_count : 0;

  // Loads step `step`'s Q, dO and bias into `stage` (cp.async) and its lse and D into the
  // thread's registers (thread i < kBlockM takes row i), which the step writes to shared memory.
  float next_lse = 0.f, next_dsum = 0.f;
  auto load_step = [&](int step, int stage) {
    const int h = h_begin + step / m_count, m_block = m_begin + step % m_count;
    const int m0 = m_block * kBlockM, m_rows = min(kBlockM, seq.seqlen_q - m0);
    const Element* q_ptr = static_cast<const Element*>(params.q) +
        seq.q_offset(params.q_batch_stride, params.q_head_stride, params.q_row_stride, bidb, h);
    const Element* do_ptr = static_cast<const Element*>(params.dout) +
        seq.q_offset(params.do_batch_stride, params.do_head_stride, params.do_row_stride, bidb, h);
    Tensor sQ_s = staged(sQ, stage, sQ.layout());
    Tensor sdO_s = staged(sdO, stage, sdO.layout());
    load_tile<kNThreads>(rows_tile<kBlockM, kHeadDim>(q_ptr, params.q_row_stride, seq.seqlen_q, m_block),
                         sQ_s, m_rows, params.head_dim, tidx);
    load_tile<kNThreads>(rows_tile<kBlockM, kHeadDim>(do_ptr, params.do_row_stride, seq.seqlen_q, m_block),
                         sdO_s, m_rows, params.head_dim_v, tidx);
    if (has_bias) {
      Tensor gBias = make_tensor(
          make_gmem_ptr(static_cast<const Element*>(params.bias) + bias_offset(params, bidb, h, m0, n0)),
          Shape<Int<kBlockM>, Int<kBlockN>>{}, make_stride(params.bias_row_stride, _1{}));
      Tensor sBias_s = staged(sBias, stage, sBias.layout());
      load_tile<kNThreads>(gBias, sBias_s, m_rows, keys, tidx);
    }
    cp_async_fence();
    if (tidx < kBlockM) {
      const int64_t offset = seq.lse_offset(params, bidb, h);
      next_lse = tidx < m_rows ? params.lse[offset + m0 + tidx] : -INFINITY;
      next_dsum = tidx < m_rows ? params.dsum[offset + m0 + tidx] : 0.f;
    }
  };

  if (steps > 0) load_step(0, 0);
  // Per query head of the group (its mask, ALiBi and dropout), the query blocks in turn.
  for (int bidh = h_begin, step = 0; step < steps; ++bidh) {
    const HeadView hv(params, bidb, bidh);
    for (int m_block = m_begin; m_block < m_begin + m_count; ++m_block, ++step) {
      const int stage = kStages == 2 ? step % 2 : 0;
      const int m0 = m_block * kBlockM;
      const int m_end = min(m0 + kBlockM, seq.seqlen_q);
      // The step's lse (+inf for rows without keys or past the end, so that P = exp(x - lse) = 0)
      // and D. The last step's readers of s_lse and s_dsum are past its middle barrier.
      if (tidx < kBlockM) {
        s_lse[tidx] = next_lse == -INFINITY ? INFINITY : next_lse;
        s_dsum[tidx] = next_dsum;
      }
      cp_async_wait<0>();
      __syncthreads();  // the step's tiles are in; every thread is done with the last step's
      if (kStages == 2 && step + 1 < steps) load_step(step + 1, stage ^ 1);
      Tensor sQ_s = staged(sQ, stage, sQ.layout());
      Tensor sQt_s = staged(sQ, stage, typename Traits::SmemLayoutQt{});
      Tensor sdO_s = staged(sdO, stage, sdO.layout());
      Tensor sdOt_s = staged(sdO, stage, typename Traits::SmemLayoutQt{});
      Tensor sBias_s = staged(sBias, stage, sBias.layout());

      const bool needs_mask = hv.mask.template block_needs_mask<kBlockN>(n0, m0, m_end);
      // P of key c, query r of the tile from its score s (the mask's -inf gives 0), and the
      // softcap's derivative there (1 without softcap).
      auto prob = [&](float s, int c, int r, float& dcap) {
        float x = s * scale;
        dcap = 1.f;
        if constexpr (kSoftcap) {
          const float t = softcap.tanh_of(s);
          x = softcap.cap * t;
          dcap = 1.f - t * t;
        }
        // The bias added as it is, a boolean mask's -inf included (with_bias here took 20-44 B
        // more spills, sm_90a bf16 D = 64): a NaN score of a key the row does not see makes
        // P, so dK, dV and the row's dQ, NaN, which the backward may give (rows that saw no key
        // get dQ = 0 in bwd_convert_dq_kernel).
        x += has_bias ? static_cast<float>(sBias_s(r, c)) : 0.f;
        hv.mask.apply_one(x, m0 + r, n0 + c, needs_mask);
        const float p = exp2f((x - s_lse[r]) * float(M_LOG2E));
        if constexpr (kSoftcap) dcap = softcap.derivative_where_seen(dcap, p);
        return p;
      };
      if constexpr (Traits::kSplitScoreWarps) {
        // S^T on the first half of the warps, dP^T on the second, at once. The first half
        // stages the dropped-out P^T for dV and P^T itself (times the softcap's derivative) in
        // the dS^T tile, from which the second half makes dS^T in place (a dropped entry is one
        // whose P^T became 0 while P^T was not: dS is P times 0 - D there, and 0 wherever P
        // is).
        Tensor acc = partition_fragment_C(mma_half, Shape<Int<kBlockN>, Int<kBlockM>>{});
        clear(acc);
        if (scores_half) {
          gemm_smem<false, false, Traits::kUnrollK>(mma_half, acc, sK, sQ_s, half_tidx, kGuard);
          Tensor acc_p = make_fragment_like(acc);
          CUTE_UNROLL
          for (int i = 0; i < size(acc); ++i) {
            const int c = get<0>(half_coords(i)), r = get<1>(half_coords(i));
            float dcap;
            const float p = prob(acc(i), c, r, dcap);
            acc_p(i) = p;
            if (params.dropout_p > 0.f) {
              acc_p(i) = keeps(hv.dropout, m0 + r, n0 + c) ? p * keep_scale : 0.f;
            }
            acc(i) = p * dcap;
          }
          acc_to_smem(mma_half, acc_p, sPt, half_tidx);
          acc_to_smem(mma_half, acc, sdSt, half_tidx);
        } else {
          gemm_smem<false, false, Traits::kUnrollK, Traits::kChains>(
              mma_half, acc, sV, sdO_s, half_tidx, kGuard);
        }
        __syncthreads();  // P^T and P are staged
        if (!scores_half) {
          Tensor acc_p = make_fragment_like(acc);
          smem_to_acc(mma_half, acc_p, sdSt, half_tidx);
          if (params.dropout_p > 0.f) {
            Tensor acc_kept = make_fragment_like(acc);
            smem_to_acc(mma_half, acc_kept, sPt, half_tidx);
            CUTE_UNROLL
            for (int i = 0; i < size(acc); ++i) {
              acc(i) = acc_kept(i) != 0.f ? acc(i) * keep_scale : 0.f;
            }
          }
          CUTE_UNROLL
          for (int i = 0; i < size(acc); ++i) {
            acc(i) = acc_p(i) * (acc(i) - s_dsum[get<1>(half_coords(i))]);
          }
          acc_to_smem(mma_half, acc, sdSt, half_tidx);
        }
      } else {
        Tensor acc_st = partition_fragment_C(tiled_mma, Shape<Int<kBlockN>, Int<kBlockM>>{});
        Tensor acc_dpt = partition_fragment_C(tiled_mma, Shape<Int<kBlockN>, Int<kBlockM>>{});
        clear(acc_st);
        clear(acc_dpt);
        gemm_smem<false, false, Traits::kUnrollK>(tiled_mma, acc_st, sK, sQ_s, tidx, kGuard);
        gemm_smem<false, false, Traits::kUnrollK, Traits::kChains>(
            tiled_mma, acc_dpt, sV, sdO_s, tidx, kGuard);
        CUTE_UNROLL
        for (int i = 0; i < size(acc_st); ++i) {
          const int c = get<0>(coords(i)), r = get<1>(coords(i));  // key c, query r of the tile
          float dcap;
          float p = prob(acc_st(i), c, r, dcap), dp = acc_dpt(i);
          const float ds_p = p * dcap;
          if (params.dropout_p > 0.f) {
            const bool keep = keeps(hv.dropout, m0 + r, n0 + c);
            p = keep ? p * keep_scale : 0.f;
            dp = keep ? dp * keep_scale : 0.f;
          }
          acc_st(i) = p;                          // dropped-out P, for dV
          acc_dpt(i) = ds_p * (dp - s_dsum[r]);  // dS
        }
        acc_to_smem(tiled_mma, acc_st, sPt, tidx);
        acc_to_smem(tiled_mma, acc_dpt, sdSt, tidx);
      }
      __syncthreads();  // P^T and dS^T are complete
      gemm_smem<false, true, Traits::kUnrollK, Traits::kChainsKV>(
          mma_kv, acc_dv, sPt, sdOt_s, tidx, kGuard);
      gemm_smem<false, true, Traits::kUnrollK, Traits::kChainsKV>(
          mma_kv, acc_dk, sdSt, sQt_s, tidx, kGuard);
      if (kStages == 1 && step + 1 < steps) {
        // One buffer: the next step's Q, dO and bias load once every warp is done with this
        // step's (dV and dK were their last readers), behind the dQ product.
        __syncthreads();
        load_step(step + 1, 0);
      }
      if constexpr (kDq) {
        if (params.dbias != nullptr) {
          Element* dbias_ptr = static_cast<Element*>(params.dbias) + bidb * params.dbias_batch_stride +
              bidh * params.dbias_head_stride + int64_t(m0) * params.dbias_row_stride + n0;
          store_dbias<kNThreads>(sdS, dbias_ptr, params.dbias_row_stride, m_end - m0, keys, tidx);
        }
        Tensor acc_dq = partition_fragment_C(mma_dq, Shape<Int<kBlockM>, Int<kHeadDim>>{});
        clear(acc_dq);
        gemm_smem<true, true, Traits::kUnrollK, Traits::kChainsDq>(mma_dq, acc_dq, sdS, sKt, tidx,
                                                                    kGuard);
        const int64_t row0 = seq.lse_offset(params, bidb, bidh) + m0;  // dq_accum's rows are lse's
        Tensor gdQaccum = make_tensor(make_gmem_ptr(params.dq_accum + row0 * kHeadDim),
                                      Shape<Int<kBlockM>, Int<kHeadDim>>{}, Stride<Int<kHeadDim>, _1>{});
        Tensor tdQg = thr_dq.partition_C(gdQaccum);  // like acc_dq
        if (m_end - m0 == kBlockM) {
          flash::atomic_add_dq<false>(acc_dq, tdQg, tdQc, kBlockM);
        } else {
          flash::atomic_add_dq<true>(acc_dq, tdQg, tdQc, m_end - m0);
        }
      }
    }
  }

  CUTE_UNROLL
  for (int i = 0; i < size(acc_dk); ++i) acc_dk(i) *= scale;
  cp_async_wait<0>();
  __syncthreads();  // every thread is done with K and V: dK and dV are staged there
  acc_to_smem(mma_kv, acc_dk, sK, tidx);
  acc_to_smem(mma_kv, acc_dv, sV, tidx);
  __syncthreads();
  Element* dk_ptr = static_cast<Element*>(params.dk) +
      seq.k_offset(params.dk_batch_stride, params.dk_head_stride, params.dk_row_stride, bidb, kv_head);
  Element* dv_ptr = static_cast<Element*>(params.dv) +
      seq.k_offset(params.dv_batch_stride, params.dv_head_stride, params.dv_row_stride, bidb, kv_head);
  Tensor gdK = rows_tile<kBlockN, kHeadDim>(dk_ptr, params.dk_row_stride, seq.seqlen_k, n_block);
  Tensor gdV = rows_tile<kBlockN, kHeadDim>(dv_ptr, params.dv_row_stride, seq.seqlen_k, n_block);
  store_tile<kNThreads>(sK, gdK, keys, params.head_dim, tidx);
  store_tile<kNThreads>(sV, gdV, keys, params.head_dim_v, tidx);
}

template <typename Traits, bool kDq, bool kSoftcap>
__global__ void __launch_bounds__(Traits::kNThreads)
    dkdv_kernel(__grid_constant__ const BwdParams params) {
  constexpr Bodies kHeld = kBodies<typename Traits::Element, true>;
  if constexpr (kHeld == Bodies::kBoth) {
    with_guard(params, [&](auto guard) {
      dkdv_block<Traits, kDq, kSoftcap, decltype(guard)::value>(params);
    });
  } else {
    dkdv_block<Traits, kDq, kSoftcap, kHeld == Bodies::kGuarded>(params);
  }
}

}  // namespace mem_eff
