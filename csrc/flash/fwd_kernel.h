// The flash forward kernel (FlashAttention-2): one CTA computes a block of kBlockM query rows of
// one (batch, head) against the key blocks it can see, keeping the scores on chip. Loads of the
// next K (and the current V) block overlap the two GEMMs; the online softmax rescales the output
// accumulator as the row maxima grow. With kSplit, a CTA covers one slice of the keys and writes
// fp32 partials that fwd_combine.h reduces (decoding: few query rows, many keys).
#pragma once

#include <cmath>

#include <cute/tensor.hpp>
#include <cutlass/fast_math.h>

#include "dropout.h"
#include "kernel_traits.h"
#include "mask.h"
#include "params.h"
#include "seqlen.h"
#include "softmax.h"
#include "utils.h"

namespace flash {

using namespace cute;

template <typename Traits, bool kCausal, bool kDropout, bool kSplit>
__global__ void __launch_bounds__(Traits::kNThreads, 1)
    fwd_kernel(__grid_constant__ const FwdParams params) {
  using Element = typename Traits::Element;
  constexpr int kBlockM = Traits::kBlockM;
  constexpr int kBlockN = Traits::kBlockN;
  constexpr int kHeadDim = Traits::kHeadDim;
  constexpr int kNWarps = Traits::kNWarps;

  extern __shared__ __align__(128) char smem[];
  const int tidx = threadIdx.x;
  const int lane = tidx % 32, quad_lane = lane % 4;
  // Causal: the longest rows first, so that the short ones fill the tail of the grid.
  const int m_block = kCausal ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
  const int bidh = blockIdx.y;
  const int bidb = kSplit ? blockIdx.z / params.num_splits : blockIdx.z;
  const int split = kSplit ? blockIdx.z % params.num_splits : 0;

  const SeqLen seq(params, bidb);
  const int m0 = m_block * kBlockM;
  if (m0 >= seq.seqlen_q) return;
  const int m_end = min(m0 + kBlockM, seq.seqlen_q);

  // Scores stay raw in registers; the softmax scale is applied inside exp2. Under softcap the
  // raw score is tanh(scale * q.k / softcap) and the softmax scale becomes softcap.
  const bool has_softcap = params.softcap > 0.f;
  const float softmax_scale = has_softcap ? params.softcap : params.scale;
  const float softcap_prescale = has_softcap ? params.scale / params.softcap : 1.f;
  const Mask<kCausal> mask = fwd_mask<kCausal>(params, seq, bidb, bidh, softmax_scale);
  // The sink joins the rows here, or, split across CTAs, in the combine kernel.
  const float sink = !kSplit && params.sinks != nullptr ? params.sinks[bidh] : -INFINITY;

  int n_begin = mask.template n_block_begin<kBlockN>(m0);
  int n_end = mask.template n_block_end<kBlockN>(m_end);
  if (kSplit) {
    const int per_split = (((seq.seqlen_k + kBlockN - 1) / kBlockN) + params.num_splits - 1) /
                          params.num_splits;
    n_begin = max(n_begin, split * per_split);
    n_end = min(n_end, (split + 1) * per_split);
  }

  // Rows of this thread's accumulator fragments: see acc_rowcol_layout.
  const int warp_row0 = m0 + (tidx / 32) * 16 + lane / 4;
  auto row_of = [&](int r) { return warp_row0 + (r % 2) * 8 + (r / 2) * 16 * kNWarps; };

  Tensor sQ = make_tensor(make_smem_ptr(reinterpret_cast<Element*>(smem)),
                          typename Traits::SmemLayoutQ{});  // (kBlockM, kHeadDim)
  Tensor sK = make_tensor(sQ.data() + size(sQ), typename Traits::SmemLayoutKV{});  // (kBlockN, kHeadDim)
  Tensor sV = make_tensor(sK.data() + size(sK), typename Traits::SmemLayoutKV{});  // (kBlockN, kHeadDim)
  Tensor sVt = make_tensor(sV.data(), typename Traits::SmemLayoutVt{});  // (kHeadDim, kBlockN)
  Tensor sVtNoSwizzle = make_tensor(sV.data().get(), typename Traits::SmemLayoutVtNoSwizzle{});

  typename Traits::TiledMma tiled_mma;
  auto thr_mma = tiled_mma.get_thread_slice(tidx);
  Tensor acc_o = partition_fragment_C(tiled_mma, Shape<Int<kBlockM>, Int<kHeadDim>>{});  // (MMA, MMA_M, MMA_K)
  Tensor acc_o_rc = make_tensor(acc_o.data(), acc_rowcol_layout(acc_o.layout()));  // (rows, cols)
  constexpr int kRows = decltype(size<0>(acc_o_rc))::value;
  float lse[kRows];
  clear(acc_o);

  if (n_end > n_begin) {
    const int kv_head = bidh / (params.heads_q / params.heads_kv);
    const Element* q_ptr = static_cast<const Element*>(params.q) +
        seq.q_offset(params.q_batch_stride, params.q_head_stride, params.q_row_stride, bidb, bidh);
    const Element* k_ptr = static_cast<const Element*>(params.k) +
        seq.k_offset(params.k_batch_stride, params.k_head_stride, params.k_row_stride, bidb, kv_head);
    const Element* v_ptr = static_cast<const Element*>(params.v) +
        seq.k_offset(params.v_batch_stride, params.v_head_stride, params.v_row_stride, bidb, kv_head);
    Tensor mQ = make_tensor(make_gmem_ptr(q_ptr), make_shape(seq.seqlen_q, Int<kHeadDim>{}),
                            make_stride(params.q_row_stride, _1{}));
    Tensor mK = make_tensor(make_gmem_ptr(k_ptr), make_shape(seq.seqlen_k, Int<kHeadDim>{}),
                            make_stride(params.k_row_stride, _1{}));
    Tensor mV = make_tensor(make_gmem_ptr(v_ptr), make_shape(seq.seqlen_k, Int<kHeadDim>{}),
                            make_stride(params.v_row_stride, _1{}));
    Tensor gQ = local_tile(mQ, Shape<Int<kBlockM>, Int<kHeadDim>>{}, make_coord(m_block, 0));  // (kBlockM, kHeadDim)
    Tensor gK = local_tile(mK, Shape<Int<kBlockN>, Int<kHeadDim>>{}, make_coord(_, 0));  // (kBlockN, kHeadDim, n)
    Tensor gV = local_tile(mV, Shape<Int<kBlockN>, Int<kHeadDim>>{}, make_coord(_, 0));  // (kBlockN, kHeadDim, n)

    typename Traits::GmemTiledCopyQKV gmem_tiled_copy;
    auto gmem_thr_copy = gmem_tiled_copy.get_thread_slice(tidx);
    Tensor tQgQ = gmem_thr_copy.partition_S(gQ);  // (CPY, CPY_M, CPY_K)
    Tensor tQsQ = gmem_thr_copy.partition_D(sQ);
    Tensor tKgK = gmem_thr_copy.partition_S(gK);  // (CPY, CPY_N, CPY_K, n)
    Tensor tKsK = gmem_thr_copy.partition_D(sK);
    Tensor tVgV = gmem_thr_copy.partition_S(gV);  // (CPY, CPY_N, CPY_K, n)
    Tensor tVsV = gmem_thr_copy.partition_D(sV);
    Tensor tQcQ = gmem_thr_copy.partition_S(make_identity_tensor(make_shape(size<0>(sQ), size<1>(sQ))));  // (CPY, CPY_M, CPY_K) -> (row, col)
    Tensor tKVcKV = gmem_thr_copy.partition_S(make_identity_tensor(make_shape(size<0>(sK), size<1>(sK))));  // (CPY, CPY_N, CPY_K)
    // Columns past the call's head dim (it runs in the next larger kernel) read as zeros.
    Tensor tQKVpD = columns_below(tQcQ, params.head_dim);  // (CPY_K)

    // Only the last key block can be partial; its rows past the end are zero-filled so that
    // their V rows contribute 0 * 0, not 0 * garbage.
    auto load_kv = [&](auto& tSrc, auto& tDst, int n_block) {
      const int rows = seq.seqlen_k - n_block * kBlockN;
      if (rows < kBlockN) {
        copy_tile<true>(gmem_tiled_copy, tSrc(_, _, _, n_block), tDst, tKVcKV, tQKVpD, rows);
      } else {
        copy_tile<false>(gmem_tiled_copy, tSrc(_, _, _, n_block), tDst, tKVcKV, tQKVpD, rows);
      }
    };

    auto smem_tiled_copy_Q = make_tiled_copy_A(typename Traits::SmemCopyAtom{}, tiled_mma);
    auto smem_thr_copy_Q = smem_tiled_copy_Q.get_thread_slice(tidx);
    Tensor tSsQ = smem_thr_copy_Q.partition_S(sQ);
    auto smem_tiled_copy_K = make_tiled_copy_B(typename Traits::SmemCopyAtom{}, tiled_mma);
    auto smem_thr_copy_K = smem_tiled_copy_K.get_thread_slice(tidx);
    Tensor tSsK = smem_thr_copy_K.partition_S(sK);
    auto smem_tiled_copy_V = make_tiled_copy_B(typename Traits::SmemCopyAtomTransposed{}, tiled_mma);
    auto smem_thr_copy_V = smem_tiled_copy_V.get_thread_slice(tidx);
    Tensor tOsVt = smem_thr_copy_V.partition_S(sVt);
    Tensor tSrQ = thr_mma.partition_fragment_A(sQ);  // (MMA, MMA_M, MMA_K)
    Tensor tSrK = thr_mma.partition_fragment_B(sK);  // (MMA, MMA_N, MMA_K)
    Tensor tOrVt = thr_mma.partition_fragment_B(sVtNoSwizzle);  // (MMA, MMA_K, MMA_N)

    copy_tile<true>(gmem_tiled_copy, tQgQ, tQsQ, tQcQ, tQKVpD, seq.seqlen_q - m0);
    const KeyBlockOrder<kBlockN> order(mask, m0, m_end, n_begin, n_end,
                                       has_softcap || mask.alibi_coef != 0.f);
    const int num_masked = order.num_masked, num_blocks = order.num_blocks;
    load_kv(tKgK, tKsK, order.at(0));
    cp_async_fence();

    OnlineSoftmax<kRows> softmax;
    const float scale_log2 = softmax_scale * float(M_LOG2E);
    const int bh = bidb * params.heads_q + bidh;
    const Dropout dropout = kDropout ? Dropout(params.dropout_seed, params.dropout_p, bh)
                                     : Dropout{};

    // Step i: key block order.at(i); the first step starts the online softmax. Only masked
    // steps carry the softcap, ALiBi and mask code: a hot loop with it measured 256 TFLOP/s,
    // without it 330 (D=128, S=1k, bf16, H100). Forced inline: a called lambda would pass the
    // accumulators through the stack.
    auto step = [&](int i, auto is_first, auto is_masked) __attribute__((always_inline)) {
      const int n_block = order.at(i);
      const int n0 = n_block * kBlockN;
      Tensor acc_s = partition_fragment_C(tiled_mma, Shape<Int<kBlockM>, Int<kBlockN>>{});  // (MMA, MMA_M, MMA_N)
      clear(acc_s);
      cp_async_wait<0>();
      __syncthreads();  // this K block has landed; every thread is done with the last V
      load_kv(tVgV, tVsV, n_block);
      cp_async_fence();

      gemm_ss(acc_s, tSrQ, tSrK, tSsQ, tSsK, tiled_mma, smem_tiled_copy_Q, smem_tiled_copy_K,
              smem_thr_copy_Q, smem_thr_copy_K);
      Tensor s = make_tensor(acc_s.data(), acc_rowcol_layout(acc_s.layout()));  // (rows, cols)
      if constexpr (decltype(is_masked)::value) {
        if (has_softcap) {
          CUTE_UNROLL
          for (int j = 0; j < size(acc_s); ++j) acc_s(j) = cutlass::fast_tanh(acc_s(j) * softcap_prescale);
        }
        mask.apply(s, row_of, n0, quad_lane,
                   mask.template block_needs_mask<kBlockN>(n0, m0, m_end));
      }

      cp_async_wait<0>();
      __syncthreads();  // this V block has landed; every thread is done with this K
      if (i + 1 < num_blocks) {
        load_kv(tKgK, tKsK, order.at(i + 1));
        cp_async_fence();
      }
      softmax.template update<decltype(is_first)::value>(s, acc_o_rc, scale_log2);

      Tensor rP = convert_type<Element>(acc_s);  // (MMA, MMA_M, MMA_N)
      if constexpr (kDropout) {
        Tensor p = make_tensor(rP.data(), acc_rowcol_layout(rP.layout()));
        dropout.apply(p, row_of, n0, quad_lane);
      }
      Tensor tOrP = make_tensor(rP.data(), acc_as_a_layout(rP.layout()));  // (MMA, MMA_M, MMA_N / 2)
      gemm_rs(acc_o, tOrP, tOrVt, tOsVt, tiled_mma, smem_tiled_copy_V, smem_thr_copy_V);
    };
    step(0, std::true_type{}, std::true_type{});
    int i = 1;
    for (; i < num_masked; ++i) step(i, std::false_type{}, std::true_type{});
    for (; i < num_blocks; ++i) step(i, std::false_type{}, std::false_type{});

    const float keep_scale = kDropout ? 1.f / (1.f - params.dropout_p) : 1.f;
    softmax.finalize(acc_o_rc, keep_scale, lse, sink);
  } else {
    CUTE_UNROLL
    for (int r = 0; r < kRows; ++r) lse[r] = sink;  // no visible key: out 0, lse the sink's
  }

  if constexpr (kSplit) {
    // fp32 partials straight from registers: out_accum (splits, B, Hq, Sq, kHeadDim).
    const int64_t row0 = (((int64_t(split) * params.batch + bidb) * params.heads_q) + bidh) *
                         params.seqlen_q;
    CUTE_UNROLL
    for (int r = 0; r < kRows; ++r) {
      const int row = row_of(r);
      if (row >= seq.seqlen_q) continue;
      float* o_row = params.out_accum + (row0 + row) * kHeadDim;
      CUTE_UNROLL
      for (int t = 0; t < size<1, 1>(acc_o_rc); ++t) {
        const int col = 8 * t + 2 * quad_lane;
        *reinterpret_cast<float2*>(o_row + col) =
            make_float2(acc_o_rc(r, make_coord(0, t)), acc_o_rc(r, make_coord(1, t)));
      }
      if (quad_lane == 0) params.lse_accum[row0 + row] = lse[r];
    }
    return;
  } else {
    seq.store_lse(params, bidb, bidh, lse, row_of, quad_lane);
    // O goes through shared memory (Q's, no longer read) for 16-byte global stores.
    Tensor sO = make_tensor(sQ.data(), typename Traits::SmemLayoutO{});  // (kBlockM, kHeadDim)
    Element* o_ptr = static_cast<Element*>(params.out) +
        seq.q_offset(params.o_batch_stride, params.o_head_stride, params.o_row_stride, bidb, bidh);
    Tensor mO = make_tensor(make_gmem_ptr(o_ptr), make_shape(seq.seqlen_q, Int<kHeadDim>{}),
                            make_stride(params.o_row_stride, _1{}));
    Tensor gO = local_tile(mO, Shape<Int<kBlockM>, Int<kHeadDim>>{}, make_coord(m_block, 0));  // (kBlockM, kHeadDim)
    store_o<typename Traits::GmemTiledCopyO, typename Traits::SmemCopyAtomAcc>(
        tiled_mma, acc_o, sO, gO, tidx, seq.seqlen_q - m0, params.head_dim, [] { __syncthreads(); });
  }
}

}  // namespace flash
