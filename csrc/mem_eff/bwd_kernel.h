// The mem_eff backward, in two kernels that each own what they write, so no atomics: the
// gradients are bitwise reproducible and the bias gradient is written once per element.
//  - dq_kernel: a CTA owns kBlockM query rows of one head and walks their key blocks:
//    S = scale Q K^T + bias, P = exp(S - lse), dP = dO V^T, dS = P (dP - D), dQ += dS K, and
//    dS is the bias gradient.
//  - dkdv_kernel: a CTA owns kBlockN keys of one KV head and walks the query blocks of every
//    query head in its group, in transposed form: S^T = K Q^T, dP^T = V dO^T,
//    dV += P^T dO, dK += dS^T Q.
// D = rowsum(dO * O) comes first (flash's bwd_dsum_kernel). P and dS are staged through shared
// memory as the next GEMM's A operand, as in the forward.
#pragma once

#include <cmath>

#include <cute/tensor.hpp>

#include "../flash/dropout.h"
#include "../flash/mask.h"
#include "../flash/seqlen.h"
#include "config.h"
#include "gemm.h"
#include "params.h"
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

template <typename Traits>
__global__ void __launch_bounds__(Traits::kNThreads)
    dq_kernel(__grid_constant__ const BwdParams params) {
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
                         sdO, m_end - m0, params.head_dim, tidx);
    load_row_stats<kBlockM, kNThreads>(params, hv, bidb, bidh, m0, s_lse, s_dsum, tidx);

    Tensor coords = acc_coords<kBlockM, kBlockN>(tiled_mma, tidx);
    const float scale = params.scale;
    const float keep_scale = params.dropout_p > 0.f ? 1.f / (1.f - params.dropout_p) : 1.f;
    for (int n_block = n_begin; n_block < n_end; ++n_block) {
      const int n0 = n_block * kBlockN;
      const int keys = seq.seqlen_k - n0;
      __syncthreads();  // every thread is done with the last K, V, bias and dS
      load_tile<kNThreads>(rows_tile<kBlockN, kHeadDim>(k_ptr, params.k_row_stride, seq.seqlen_k, n_block),
                           sK, keys, params.head_dim, tidx);
      load_tile<kNThreads>(rows_tile<kBlockN, kHeadDim>(v_ptr, params.v_row_stride, seq.seqlen_k, n_block),
                           sV, keys, params.head_dim, tidx);
      if (has_bias) load_tile<kNThreads>(gBias(_, _, n_block), sBias, m_end - m0, keys, tidx);
      cp_async_fence();
      cp_async_wait<0>();
      __syncthreads();

      Tensor acc_s = partition_fragment_C(tiled_mma, Shape<Int<kBlockM>, Int<kBlockN>>{});
      Tensor acc_dp = partition_fragment_C(tiled_mma, Shape<Int<kBlockM>, Int<kBlockN>>{});
      clear(acc_s);
      clear(acc_dp);
      gemm_smem<false, false, Traits::kUnrollK>(tiled_mma, acc_s, sQ, sK, tidx);
      gemm_smem<false, false, Traits::kUnrollK>(tiled_mma, acc_dp, sdO, sV, tidx);
      const bool needs_mask = hv.mask.template block_needs_mask<kBlockN>(n0, m0, m_end);
      CUTE_UNROLL
      for (int i = 0; i < size(acc_s); ++i) {
        const int r = get<0>(coords(i)), c = get<1>(coords(i));
        float x = acc_s(i) * scale + (has_bias ? static_cast<float>(sBias(r, c)) : 0.f);
        hv.mask.apply_one(x, m0 + r, n0 + c, needs_mask);
        const float p = exp2f((x - s_lse[r]) * float(M_LOG2E));
        float dp = acc_dp(i);
        if (params.dropout_p > 0.f) dp = keeps(hv.dropout, m0 + r, n0 + c) ? dp * keep_scale : 0.f;
        const float ds = p * (dp - s_dsum[r]);
        acc_s(i) = ds;
        if (dbias_ptr != nullptr && m0 + r < seq.seqlen_q && n0 + c < seq.seqlen_k) {
          dbias_ptr[int64_t(m0 + r) * params.dbias_row_stride + n0 + c] = static_cast<Element>(ds);
        }
      }
      acc_to_smem(tiled_mma, acc_s, sdS, tidx);
      __syncthreads();  // dS is complete
      gemm_smem<false, true, Traits::kUnrollK>(tiled_mma, acc_dq, sdS, sKt, tidx);
    }
  }

  CUTE_UNROLL
  for (int i = 0; i < size(acc_dq); ++i) acc_dq(i) *= params.scale;
  __syncthreads();  // every thread is done with Q: dQ is staged there
  acc_to_smem(tiled_mma, acc_dq, sQ, tidx);
  __syncthreads();
  Element* dq_ptr = static_cast<Element*>(params.dq) +
      seq.q_offset(params.dq_batch_stride, params.dq_head_stride, params.dq_row_stride, bidb, bidh);
  Tensor gdQ = rows_tile<kBlockM, kHeadDim>(dq_ptr, params.dq_row_stride, seq.seqlen_q, m_block);
  store_tile<kNThreads>(sQ, gdQ, m_end - m0, params.head_dim, tidx);
}

template <typename Traits>
__global__ void __launch_bounds__(Traits::kNThreads)
    dkdv_kernel(__grid_constant__ const BwdParams params) {
  using Element = typename Traits::Element;
  constexpr int kBlockM = Traits::kBlockM;
  constexpr int kBlockN = Traits::kBlockN;
  constexpr int kHeadDim = Traits::kHeadDim;
  constexpr int kNThreads = Traits::kNThreads;

  extern __shared__ __align__(128) char smem[];
  const int tidx = threadIdx.x;
  const int n_block = blockIdx.x, kv_head = blockIdx.y, bidb = blockIdx.z;
  const flash::SeqLen seq(params, bidb);
  const int n0 = n_block * kBlockN;
  if (n0 >= seq.seqlen_k) return;
  const int keys = seq.seqlen_k - n0;
  const int n_last = min(n0 + kBlockN, seq.seqlen_k) - 1;

  Tensor sQ = make_tensor(make_smem_ptr(reinterpret_cast<Element*>(smem)), typename Traits::SmemLayoutQ{});
  Tensor sQt = make_tensor(sQ.data(), typename Traits::SmemLayoutQt{});
  Tensor sdO = make_tensor(sQ.data() + size(sQ), typename Traits::SmemLayoutQ{});
  Tensor sdOt = make_tensor(sdO.data(), typename Traits::SmemLayoutQt{});
  Tensor sK = make_tensor(sdO.data() + size(sdO), typename Traits::SmemLayoutK{});
  Tensor sV = make_tensor(sK.data() + size(sK), typename Traits::SmemLayoutK{});
  Tensor sBias = make_tensor(sV.data() + size(sV), typename Traits::SmemLayoutS{});
  Tensor sPt = make_tensor(sBias.data() + size(sBias), typename Traits::SmemLayoutSt{});
  Tensor sdSt = make_tensor(sPt.data() + size(sPt), typename Traits::SmemLayoutSt{});
  float* s_lse = reinterpret_cast<float*>(smem + (Traits::kSmemSize - 2 * kBlockM * sizeof(float)));
  float* s_dsum = s_lse + kBlockM;

  const Element* k_ptr = static_cast<const Element*>(params.k) +
      seq.k_offset(params.k_batch_stride, params.k_head_stride, params.k_row_stride, bidb, kv_head);
  const Element* v_ptr = static_cast<const Element*>(params.v) +
      seq.k_offset(params.v_batch_stride, params.v_head_stride, params.v_row_stride, bidb, kv_head);
  load_tile<kNThreads>(rows_tile<kBlockN, kHeadDim>(k_ptr, params.k_row_stride, seq.seqlen_k, n_block),
                       sK, keys, params.head_dim, tidx);
  load_tile<kNThreads>(rows_tile<kBlockN, kHeadDim>(v_ptr, params.v_row_stride, seq.seqlen_k, n_block),
                       sV, keys, params.head_dim, tidx);
  cp_async_fence();

  typename Traits::TiledMma tiled_mma;
  Tensor acc_dk = partition_fragment_C(tiled_mma, Shape<Int<kBlockN>, Int<kHeadDim>>{});
  Tensor acc_dv = partition_fragment_C(tiled_mma, Shape<Int<kBlockN>, Int<kHeadDim>>{});
  clear(acc_dk);
  clear(acc_dv);
  Tensor coords = acc_coords<kBlockN, kBlockM>(tiled_mma, tidx);  // (key, query) in the tile
  const float scale = params.scale;
  const float keep_scale = params.dropout_p > 0.f ? 1.f / (1.f - params.dropout_p) : 1.f;
  const bool has_bias = params.bias != nullptr;
  const int group = params.heads_q / params.heads_kv;

  for (int bidh = kv_head * group; bidh < (kv_head + 1) * group; ++bidh) {
    const HeadView hv(params, bidb, bidh);
    const int m_begin = hv.mask.row_begin(n0) / kBlockM;
    const int m_stop = (hv.mask.row_end(n_last, seq.seqlen_q) + kBlockM - 1) / kBlockM;
    const Element* q_ptr = static_cast<const Element*>(params.q) +
        seq.q_offset(params.q_batch_stride, params.q_head_stride, params.q_row_stride, bidb, bidh);
    const Element* do_ptr = static_cast<const Element*>(params.dout) +
        seq.q_offset(params.do_batch_stride, params.do_head_stride, params.do_row_stride, bidb, bidh);
    const Element* bias_ptr = has_bias
        ? static_cast<const Element*>(params.bias) + bias_offset(params, bidb, bidh, 0, 0) : nullptr;
    Tensor gBias = local_tile(make_tensor(make_gmem_ptr(bias_ptr), make_shape(seq.seqlen_q, seq.seqlen_k),
                                          make_stride(params.bias_row_stride, _1{})),
                              Shape<Int<kBlockM>, Int<kBlockN>>{}, make_coord(_, n_block));

    for (int m_block = m_begin; m_block < m_stop; ++m_block) {
      const int m0 = m_block * kBlockM;
      const int m_end = min(m0 + kBlockM, seq.seqlen_q);
      __syncthreads();  // every thread is done with the last Q, dO, bias, P^T and dS^T
      load_tile<kNThreads>(rows_tile<kBlockM, kHeadDim>(q_ptr, params.q_row_stride, seq.seqlen_q, m_block),
                           sQ, m_end - m0, params.head_dim, tidx);
      load_tile<kNThreads>(rows_tile<kBlockM, kHeadDim>(do_ptr, params.do_row_stride, seq.seqlen_q, m_block),
                           sdO, m_end - m0, params.head_dim, tidx);
      if (has_bias) load_tile<kNThreads>(gBias(_, _, m_block), sBias, m_end - m0, keys, tidx);
      cp_async_fence();
      load_row_stats<kBlockM, kNThreads>(params, hv, bidb, bidh, m0, s_lse, s_dsum, tidx);
      cp_async_wait<0>();
      __syncthreads();

      Tensor acc_st = partition_fragment_C(tiled_mma, Shape<Int<kBlockN>, Int<kBlockM>>{});
      Tensor acc_dpt = partition_fragment_C(tiled_mma, Shape<Int<kBlockN>, Int<kBlockM>>{});
      clear(acc_st);
      clear(acc_dpt);
      gemm_smem<false, false, Traits::kUnrollK>(tiled_mma, acc_st, sK, sQ, tidx);
      gemm_smem<false, false, Traits::kUnrollK>(tiled_mma, acc_dpt, sV, sdO, tidx);
      const bool needs_mask = hv.mask.template block_needs_mask<kBlockN>(n0, m0, m_end);
      CUTE_UNROLL
      for (int i = 0; i < size(acc_st); ++i) {
        const int c = get<0>(coords(i)), r = get<1>(coords(i));  // key c, query r of the tile
        float x = acc_st(i) * scale + (has_bias ? static_cast<float>(sBias(r, c)) : 0.f);
        hv.mask.apply_one(x, m0 + r, n0 + c, needs_mask);
        float p = exp2f((x - s_lse[r]) * float(M_LOG2E));
        float dp = acc_dpt(i);
        const float ds_p = p;
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
      __syncthreads();  // P^T and dS^T are complete
      gemm_smem<false, true, Traits::kUnrollK>(tiled_mma, acc_dv, sPt, sdOt, tidx);
      gemm_smem<false, true, Traits::kUnrollK>(tiled_mma, acc_dk, sdSt, sQt, tidx);
    }
  }

  CUTE_UNROLL
  for (int i = 0; i < size(acc_dk); ++i) acc_dk(i) *= scale;
  cp_async_wait<0>();
  __syncthreads();  // every thread is done with K and V: dK and dV are staged there
  acc_to_smem(tiled_mma, acc_dk, sK, tidx);
  acc_to_smem(tiled_mma, acc_dv, sV, tidx);
  __syncthreads();
  Element* dk_ptr = static_cast<Element*>(params.dk) +
      seq.k_offset(params.dk_batch_stride, params.dk_head_stride, params.dk_row_stride, bidb, kv_head);
  Element* dv_ptr = static_cast<Element*>(params.dv) +
      seq.k_offset(params.dv_batch_stride, params.dv_head_stride, params.dv_row_stride, bidb, kv_head);
  Tensor gdK = rows_tile<kBlockN, kHeadDim>(dk_ptr, params.dk_row_stride, seq.seqlen_k, n_block);
  Tensor gdV = rows_tile<kBlockN, kHeadDim>(dv_ptr, params.dv_row_stride, seq.seqlen_k, n_block);
  store_tile<kNThreads>(sK, gdK, keys, params.head_dim, tidx);
  store_tile<kNThreads>(sV, gdV, keys, params.head_dim, tidx);
}

}  // namespace mem_eff
