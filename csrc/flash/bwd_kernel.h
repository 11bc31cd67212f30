// The flash backward kernel (FlashAttention-2, key-parallel): a CTA owns kBlockN keys of one
// (batch, KV head) and walks the query blocks that can see them, for every query head of the
// KV head's group, recomputing P = exp(S - lse) on chip:
//   dV += P^T dO,  dP = dO V^T,  dS = P * (dP - D),  dK += dS^T Q,  dQ += dS K
// dK and dV stay in registers (summed over the group: GQA needs no reduction pass); dQ of one
// query block gets contributions from every key block, so it is added to fp32 accumulators in
// global memory (atomics), converted by bwd_prepost.h. Deterministic calls give each CTA
// column its own accumulator slice, so that every address is added to in a fixed order.
//
// Dropout replays the forward's keep-mask (dropout.h) from the same seed: with Z the mask and
// r = 1 / (1 - p), the forward computed O = (P * Z * r) V, so dV = (P * Z * r)^T dO and
// dS = P * (Z * r * dP - D), with D = rowsum(dO * O) as without dropout.
// Softcap: S = c tanh(scale q.k / c) gives d(q.k) = dS * scale * (1 - tanh^2).
#pragma once

#include <cmath>

#include <cute/tensor.hpp>
#include <cutlass/fast_math.h>

#include "bwd_block.h"
#include "bwd_prepost.h"
#include "dropout.h"
#include "kernel_traits.h"
#include "mask.h"
#include "params.h"
#include "seqlen.h"
#include "utils.h"

namespace flash {

using namespace cute;

// One key block: dK and dV of keys [n_block * kBlockN, + kBlockN) of (bidb, kv_head), and its
// share of dQ.
template <typename Traits, bool kCausal, bool kDropout>
__device__ __forceinline__ void bwd_key_block(const BwdParams& params, const SeqLen& seq,
                                              int bidb, int kv_head, int n_block, int dq_slice,
                                              char* smem) {
  using Element = typename Traits::Element;
  constexpr int kBlockM = Traits::kBlockM;
  constexpr int kBlockN = Traits::kBlockN;
  constexpr int kHeadDim = Traits::kHeadDim;
  constexpr bool kDoubleBufferQ = Traits::kDoubleBufferQ;
  const int tidx = threadIdx.x;
  const KeyBlockSteps<kBlockM, kBlockN, kCausal> steps(params, seq, kv_head, n_block);
  const int n0 = steps.n0, keys = steps.keys, num_steps = steps.num_steps;
  const int h_first = steps.h_first;

  Tensor sQ = make_tensor(make_smem_ptr(reinterpret_cast<Element*>(smem)),
                          typename Traits::SmemLayoutQdO{});  // (kBlockM, kHeadDim), 1 or 2 buffers
  Tensor sQt = make_tensor(sQ.data(), typename Traits::SmemLayoutQdOt{});
  Tensor sQtNoSwizzle = make_tensor(sQ.data().get(), typename Traits::SmemLayoutQdOtNoSwizzle{});
  Tensor sdO = make_tensor(sQ.data() + (kDoubleBufferQ ? 2 : 1) * size(sQ),
                           typename Traits::SmemLayoutQdO{});
  Tensor sdOt = make_tensor(sdO.data(), typename Traits::SmemLayoutQdOt{});
  Tensor sdOtNoSwizzle = make_tensor(sdO.data().get(), typename Traits::SmemLayoutQdOtNoSwizzle{});
  Tensor sK = make_tensor(sdO.data() + size(sdO), typename Traits::SmemLayoutKV{});  // (kBlockN, kHeadDim)
  Tensor sKt = make_tensor(sK.data(), typename Traits::SmemLayoutKt{});
  Tensor sKtNoSwizzle = make_tensor(sK.data().get(), typename Traits::SmemLayoutKtNoSwizzle{});
  Tensor sV = make_tensor(sK.data() + size(sK), typename Traits::SmemLayoutKV{});
  Tensor sdS = make_tensor(sV.data() + size(sV), typename Traits::SmemLayoutPdS{});  // (kBlockM, kBlockN)
  Tensor sdSt = make_tensor(sdS.data(), typename Traits::SmemLayoutPdSt{});
  Tensor sdStNoSwizzle = make_tensor(sdS.data().get(), typename Traits::SmemLayoutPdStNoSwizzle{});
  Tensor sP = make_tensor(sdS.data() + size(sdS), typename Traits::SmemLayoutPdS{});
  Tensor sPt = make_tensor(sP.data(), typename Traits::SmemLayoutPdSt{});
  Tensor sPtNoSwizzle = make_tensor(sP.data().get(), typename Traits::SmemLayoutPdStNoSwizzle{});

  // Global -> shared loads; columns past the call's head dim read as zeros, rows past the
  // sequence too (their scores are masked or their lse makes P = 0).
  typename Traits::GmemTiledCopyLoad gmem_copy;
  auto gmem_thr_copy = gmem_copy.get_thread_slice(tidx);
  Tensor tQcQ = gmem_thr_copy.partition_S(make_identity_tensor(Shape<Int<kBlockM>, Int<kHeadDim>>{}));
  Tensor tKVcKV = gmem_thr_copy.partition_S(make_identity_tensor(Shape<Int<kBlockN>, Int<kHeadDim>>{}));
  Tensor tpD = columns_below(tQcQ, params.head_dim);
  Tensor tQsQ = gmem_thr_copy.partition_D(sQ);
  Tensor tdOsdO = gmem_thr_copy.partition_D(sdO);

  // The steps walk (query head, query block) pairs: heads h_first.. of the group, blocks
  // m_first.. of each. Each thread's share of the Q and dO tiles of (h_first, block 0) is
  // partitioned once; a step only moves its base pointer.
  auto rows_at = [&](const void* base, int64_t batch_stride, int64_t head_stride,
                     int64_t row_stride) {
    const Element* ptr = static_cast<const Element*>(base) +
        seq.q_offset(batch_stride, head_stride, row_stride, bidb, h_first);
    return gmem_thr_copy.partition_S(make_tensor(
        make_gmem_ptr(ptr), Shape<Int<kBlockM>, Int<kHeadDim>>{}, make_stride(row_stride, _1{})));
  };
  Tensor tQgQ = rows_at(params.q, params.q_batch_stride, params.q_head_stride, params.q_row_stride);
  Tensor tdOgdO = rows_at(params.dout, params.do_batch_stride, params.do_head_stride,
                          params.do_row_stride);
  auto load_rows = [&](auto const& src0, int64_t head_stride, int64_t row_stride, int h, int m,
                       auto& dst) {
    Tensor src = make_tensor(src0.data() + (int64_t(h - h_first) * head_stride +
                                            int64_t(m) * kBlockM * row_stride),
                             src0.layout());
    const int rows = seq.seqlen_q - m * kBlockM;
    if (rows >= kBlockM) {
      copy_tile<false>(gmem_copy, src, dst, tQcQ, tpD, rows);
    } else {
      copy_tile<true>(gmem_copy, src, dst, tQcQ, tpD, rows);
    }
  };
  // With two Q buffers, step i uses buffer i % 2.
  auto q_buffer = [&](int i) { return kDoubleBufferQ ? (i % 2) * int(size(sQ)) : 0; };
  auto load_q = [&](int i, int h, int m) {
    Tensor dst = make_tensor(tQsQ.data() + q_buffer(i), tQsQ.layout());
    load_rows(tQgQ, params.q_head_stride, params.q_row_stride, h, m, dst);
  };
  auto load_do = [&](int h, int m) {
    load_rows(tdOgdO, params.do_head_stride, params.do_row_stride, h, m, tdOsdO);
  };

  typename Traits::TiledMmaSdP mma_sdp;
  auto thr_sdp = mma_sdp.get_thread_slice(tidx);
  Tensor tSrQ = thr_sdp.partition_fragment_A(sQ);  // (MMA, MMA_M, MMA_K)
  Tensor tSrK = thr_sdp.partition_fragment_B(sK);  // (MMA, MMA_N, MMA_K)
  Tensor tdPrdO = thr_sdp.partition_fragment_A(sdO);
  Tensor tdPrV = thr_sdp.partition_fragment_B(sV);
  typename Traits::TiledMmadKV mma_dkv;
  auto thr_dkv = mma_dkv.get_thread_slice(tidx);
  Tensor tdKrdSt = thr_dkv.partition_fragment_A(sdStNoSwizzle);  // (MMA, MMA_N, MMA_M)
  Tensor tdKrQt = thr_dkv.partition_fragment_B(sQtNoSwizzle);    // (MMA, MMA_D, MMA_M)
  Tensor tdVrPt = thr_dkv.partition_fragment_A(sPtNoSwizzle);
  Tensor tdVrdO = thr_dkv.partition_fragment_B(sdOtNoSwizzle);
  typename Traits::TiledMmadQ mma_dq;
  auto thr_dq = mma_dq.get_thread_slice(tidx);
  Tensor tdQrdS = thr_dq.partition_fragment_A(sdS);          // (MMA, MMA_M, MMA_N)
  Tensor tdQrKt = thr_dq.partition_fragment_B(sKtNoSwizzle);  // (MMA, MMA_D, MMA_N)

  auto copy_QdO = make_tiled_copy_A(typename Traits::SmemCopyAtom{}, mma_sdp);
  auto thr_copy_QdO = copy_QdO.get_thread_slice(tidx);
  Tensor tSsQ = thr_copy_QdO.partition_S(sQ);
  Tensor tdPsdO = thr_copy_QdO.partition_S(sdO);
  auto copy_KV = make_tiled_copy_B(typename Traits::SmemCopyAtom{}, mma_sdp);
  auto thr_copy_KV = copy_KV.get_thread_slice(tidx);
  Tensor tSsK = thr_copy_KV.partition_S(sK);
  Tensor tdPsV = thr_copy_KV.partition_S(sV);
  auto copy_PdS = make_tiled_copy_C(typename Traits::SmemCopyAtomAcc{}, mma_sdp);
  auto thr_copy_PdS = copy_PdS.get_thread_slice(tidx);
  Tensor tPsP = thr_copy_PdS.partition_D(sP);
  Tensor tdSsdS = thr_copy_PdS.partition_D(sdS);
  auto copy_PdSt = make_tiled_copy_A(typename Traits::SmemCopyAtomTransposed{}, mma_dkv);
  auto thr_copy_PdSt = copy_PdSt.get_thread_slice(tidx);
  Tensor tdVsPt = thr_copy_PdSt.partition_S(sPt);
  Tensor tdKsdSt = thr_copy_PdSt.partition_S(sdSt);
  auto copy_QdOt = make_tiled_copy_B(typename Traits::SmemCopyAtomTransposed{}, mma_dkv);
  auto thr_copy_QdOt = copy_QdOt.get_thread_slice(tidx);
  Tensor tdVsdOt = thr_copy_QdOt.partition_S(sdOt);
  Tensor tdKsQt = thr_copy_QdOt.partition_S(sQt);
  auto copy_dS = make_tiled_copy_A(typename Traits::SmemCopyAtom{}, mma_dq);
  auto thr_copy_dS = copy_dS.get_thread_slice(tidx);
  Tensor tdQsdS = thr_copy_dS.partition_S(sdS);
  auto copy_Kt = make_tiled_copy_B(typename Traits::SmemCopyAtomTransposed{}, mma_dq);
  auto thr_copy_Kt = copy_Kt.get_thread_slice(tidx);
  Tensor tdQsKt = thr_copy_Kt.partition_S(sKt);

  // (row, col) in the tile of each element of this thread's S and dQ accumulators.
  Tensor tScS = thr_sdp.partition_C(make_identity_tensor(Shape<Int<kBlockM>, Int<kBlockN>>{}));
  Tensor tScS_rc = make_tensor(tScS.data(), acc_rowcol_layout(tScS.layout()));  // (rows, cols)
  Tensor tdQcdQ = thr_dq.partition_C(make_identity_tensor(Shape<Int<kBlockM>, Int<kHeadDim>>{}));
  constexpr int kRows = decltype(size<0>(tScS_rc))::value;

  Tensor acc_dk = partition_fragment_C(mma_dkv, Shape<Int<kBlockN>, Int<kHeadDim>>{});  // (MMA, MMA_N, MMA_D)
  Tensor acc_dv = partition_fragment_C(mma_dkv, Shape<Int<kBlockN>, Int<kHeadDim>>{});
  clear(acc_dk);
  clear(acc_dv);

  const bool has_softcap = params.softcap > 0.f;
  const float softmax_scale = has_softcap ? params.softcap : params.scale;
  const float softcap_prescale = has_softcap ? params.scale / params.softcap : 1.f;
  const float scale_log2 = softmax_scale * float(M_LOG2E);
  const float keep_scale = kDropout ? 1.f / (1.f - params.dropout_p) : 1.f;
  const bool all_masked = has_softcap || params.alibi_slopes != nullptr;
  float* const dq_accum = params.dq_accum + dq_slice * LseRows(params).count() * kHeadDim;

  if (num_steps > 0) {
    Tensor tKsK = gmem_thr_copy.partition_D(sK);
    Tensor tVsV = gmem_thr_copy.partition_D(sV);
    copy_tile<true>(gmem_copy,
                    gmem_thr_copy.partition_S(key_rows<Element, kBlockN, kHeadDim>(
                        params.k, params.k_batch_stride, params.k_head_stride, params.k_row_stride,
                        seq, bidb, kv_head, n0)),
                    tKsK, tKVcKV, tpD, keys);
    copy_tile<true>(gmem_copy,
                    gmem_thr_copy.partition_S(key_rows<Element, kBlockN, kHeadDim>(
                        params.v, params.v_batch_stride, params.v_head_stride, params.v_row_stride,
                        seq, bidb, kv_head, n0)),
                    tVsV, tKVcKV, tpD, keys);
    load_q(0, h_first, steps.m_first);
    load_do(h_first, steps.m_first);
    cp_async_fence();
  }

  // One (head, query block) step; is_masked carries the softcap, ALiBi and visibility code,
  // which costs registers in the hot loop when it is there (see fwd_kernel.h).
  // Step i covers query head h and block m; the next step's are (h_next, m_next).
  auto step = [&](int i, int h, int m, int h_next, int m_next, auto is_masked)
                  __attribute__((always_inline)) {
    const int m0 = m * kBlockM;
    const int m_end = min(m0 + kBlockM, seq.seqlen_q);
    const bool has_next = i + 1 < num_steps;
    cp_async_wait<0>();
    __syncthreads();  // Q and dO of this step have landed; the last step is done with sdS
    if (kDoubleBufferQ && has_next) {
      load_q(i + 1, h_next, m_next);
      cp_async_fence();
    }

    const int64_t row_offset = seq.lse_offset(params, bidb, h);
    // Rows past the end, and rows that saw no key (lse = -inf, output 0), get P = 0.
    float lse_log2[kRows], dsum[kRows];
    CUTE_UNROLL
    for (int r = 0; r < kRows; ++r) {
      const int row = m0 + get<0>(tScS_rc(r, 0));
      const float lse = row < seq.seqlen_q ? params.lse[row_offset + row] : INFINITY;
      lse_log2[r] = lse == -INFINITY ? INFINITY : lse * float(M_LOG2E);
      dsum[r] = row < seq.seqlen_q ? params.dsum[row_offset + row] : 0.f;
    }

    Tensor acc_s = partition_fragment_C(mma_sdp, Shape<Int<kBlockM>, Int<kBlockN>>{});  // (MMA, MMA_M, MMA_N)
    clear(acc_s);
    Tensor tSsQ_i = make_tensor(tSsQ.data() + q_buffer(i), tSsQ.layout());
    gemm_ss(acc_s, tSrQ, tSrK, tSsQ_i, tSsK, mma_sdp, copy_QdO, copy_KV, thr_copy_QdO, thr_copy_KV);
    Tensor s = make_tensor(acc_s.data(), acc_rowcol_layout(acc_s.layout()));  // (rows, cols)
    const float alibi_coef = decltype(is_masked)::value && params.alibi_slopes != nullptr
        ? -params.alibi_slopes[bidb * params.alibi_batch_stride + h] / softmax_scale
        : 0.f;
    const Mask<kCausal> mask(seq.seqlen_q, seq.seqlen_k, params.bottom_right, params.window_left,
                             params.window_right, alibi_coef);
    if constexpr (decltype(is_masked)::value) {
      if (has_softcap) {
        CUTE_UNROLL
        for (int j = 0; j < size(acc_s); ++j) acc_s(j) = cutlass::fast_tanh(acc_s(j) * softcap_prescale);
      }
      const bool visibility = mask.template block_needs_mask<kBlockN>(n0, m0, m_end);
      CUTE_UNROLL
      for (int r = 0; r < size<0>(s); ++r) {
        CUTE_UNROLL
        for (int c = 0; c < size<1>(s); ++c) {
          mask.apply_one(s(r, c), m0 + get<0>(tScS_rc(r, c)), n0 + get<1>(tScS_rc(r, c)),
                         visibility);
        }
      }
    }
    CUTE_UNROLL
    for (int r = 0; r < size<0>(s); ++r) {
      CUTE_UNROLL
      for (int c = 0; c < size<1>(s); ++c) s(r, c) = exp2f(s(r, c) * scale_log2 - lse_log2[r]);
    }
    // Dropped probabilities keep their value with the sign flipped: dS needs P, dV needs P * Z.
    Tensor p_kept = make_fragment_like(acc_s);
    if constexpr (kDropout) {
      const Dropout dropout(params.dropout_seed, params.dropout_p, bidb * params.heads_q + h);
      CUTE_UNROLL
      for (int r = 0; r < size<0>(s); ++r) {
        CUTE_UNROLL
        for (int t = 0; t < size<1, 1>(s); ++t) {
          bool keep0, keep1;
          dropout.keep_pair(m0 + get<0>(tScS_rc(r, 0)), n0 + get<1>(tScS_rc(r, make_coord(0, t))),
                            keep0, keep1);
          float& p0 = s(r, make_coord(0, t));
          float& p1 = s(r, make_coord(1, t));
          if (!keep0) p0 = -p0;
          if (!keep1) p1 = -p1;
        }
      }
      CUTE_UNROLL
      for (int j = 0; j < size(acc_s); ++j) p_kept(j) = fmaxf(acc_s(j), 0.f);
    } else {
      CUTE_UNROLL
      for (int j = 0; j < size(acc_s); ++j) p_kept(j) = acc_s(j);
    }
    Tensor rP = convert_type<Element>(p_kept);
    copy(copy_PdS, thr_copy_PdS.retile_S(rP), tPsP);

    Tensor acc_dp = partition_fragment_C(mma_sdp, Shape<Int<kBlockM>, Int<kBlockN>>{});
    clear(acc_dp);
    gemm_ss(acc_dp, tdPrdO, tdPrV, tdPsdO, tdPsV, mma_sdp, copy_QdO, copy_KV, thr_copy_QdO,
            thr_copy_KV);
    Tensor dp = make_tensor(acc_dp.data(), acc_rowcol_layout(acc_dp.layout()));
    CUTE_UNROLL
    for (int r = 0; r < size<0>(dp); ++r) {
      CUTE_UNROLL
      for (int c = 0; c < size<1>(dp); ++c) {
        const float p = s(r, c);
        float ds;
        if constexpr (kDropout) {
          ds = fabsf(p) * ((p >= 0.f ? dp(r, c) * keep_scale : 0.f) - dsum[r]);
        } else {
          ds = p * (dp(r, c) - dsum[r]);
        }
        if constexpr (decltype(is_masked)::value) {
          // Softcap: tanh recovered from P (log2 P + lse = (tanh + ALiBi) * scale_log2)
          // instead of being kept in registers through the dP product; P = 0 gives dS = 0.
          if (has_softcap && p != 0.f) {
            const float t = (__log2f(fabsf(p)) + lse_log2[r]) / scale_log2 -
                            mask.alibi(m0 + get<0>(tScS_rc(r, c)), n0 + get<1>(tScS_rc(r, c)));
            ds *= 1.f - t * t;
          }
        }
        dp(r, c) = ds;
      }
    }
    Tensor rdS = convert_type<Element>(acc_dp);
    copy(copy_PdS, thr_copy_PdS.retile_S(rdS), tdSsdS);
    __syncthreads();  // P and dS are in shared memory

    gemm_ss(acc_dv, tdVrPt, tdVrdO, tdVsPt, tdVsdOt, mma_dkv, copy_PdSt, copy_QdOt, thr_copy_PdSt,
            thr_copy_QdOt);
    Tensor tdKsQt_i = make_tensor(tdKsQt.data() + q_buffer(i), tdKsQt.layout());
    gemm_ss(acc_dk, tdKrdSt, tdKrQt, tdKsdSt, tdKsQt_i, mma_dkv, copy_PdSt, copy_QdOt,
            thr_copy_PdSt, thr_copy_QdOt);
    __syncthreads();  // every thread is done with this dO (and Q)
    if (has_next) {
      if (!kDoubleBufferQ) load_q(i + 1, h_next, m_next);
      load_do(h_next, m_next);
      cp_async_fence();
    }

    Tensor acc_dq = partition_fragment_C(mma_dq, Shape<Int<kBlockM>, Int<kHeadDim>>{});  // (MMA, MMA_M, MMA_D)
    clear(acc_dq);
    gemm_ss(acc_dq, tdQrdS, tdQrKt, tdQsdS, tdQsKt, mma_dq, copy_dS, copy_Kt, thr_copy_dS,
            thr_copy_Kt);
    add_dq<kBlockM, kHeadDim>(dq_accum, thr_dq, acc_dq, tdQcdQ, row_offset, m0, seq.seqlen_q);
  };

  steps.for_each_step(all_masked, seq.seqlen_q, step);

  // dK = scale * dS^T Q, dV = r * (P Z)^T dO.
  store_dk_dv<Traits>(params, seq, bidb, kv_head, n0, keys, mma_dkv, mma_dkv, acc_dk, acc_dv,
                      keep_scale, sK.data().get(), sV.data().get(), tidx,
                      [] { __syncthreads(); });
}

// Grid: BwdTile's.
template <typename Traits, bool kCausal, bool kDropout>
__global__ void __launch_bounds__(Traits::kNThreads, 1)
    bwd_kernel(__grid_constant__ const BwdParams params) {
  extern __shared__ __align__(128) char smem[];
  const BwdTile tile(params, Traits::kBlockN);
  const SeqLen seq(params, tile.bidb);
  for (int n_block = tile.n_block; tile.has(n_block, Traits::kBlockN, seq.seqlen_k);
       n_block = tile.next(n_block, Traits::kBlockN, seq.seqlen_k)) {
    bwd_key_block<Traits, kCausal, kDropout>(params, seq, tile.bidb, tile.kv_head, n_block,
                                             tile.dq_slice, smem);
    __syncthreads();  // the next key block reuses the shared memory
  }
}

}  // namespace flash
