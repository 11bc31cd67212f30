// The flash backward on Hopper (sm_90a): bwd_kernel.h's algorithm (a CTA owns kBlockN keys and
// walks the query blocks of its KV head's group) with every GEMM on wgmma, whose operands come
// from shared memory by descriptor instead of ldmatrix: the mma.sync kernel is bound by issuing
// those loads and its MMAs. Two warpgroups own 64 keys each and compute the transposed scores:
//   S^T = K Q^T, dP^T = V dO^T            (shared memory operands, issued together)
//   P^T = exp2(S^T scale - lse), dS^T = P^T * (dP^T - D)
//   dV += P^T dO, dK += dS^T Q            (P^T, dS^T from registers)
//   dQ  = dS K                            (dS through shared memory; fp32 bulk reductions)
// Q and dO of the next step load by TMA (issued by one thread, an mbarrier per buffer), lse
// and D by cp.async, while this one computes: the warps issuing 64 KB of cp.async a step at
// D = 256 stalled about as long as the step's GEMMs took. dQ goes to the fp32 accumulators
// through shared memory: each warp stages its rows and sends each with one bulk reduction
// (cp.reduce.async.bulk), which the TMA unit performs while the warps go on (per-element
// atomics held the warps and their registers). A warp's wgmma batch issues only about as fast
// as the tensor cores take it, so whatever the warps issue after it starts when the batch is
// nearly done. Serves every feature but dropout, which stays on bwd_kernel.h; calls whose q or
// dout TMA cannot load (sm90_bwd_fits) run it too.
#pragma once

#include <cmath>
#include <type_traits>

#include <cute/tensor.hpp>
#include <cutlass/arch/barrier.h>
#include <cutlass/fast_math.h>

#include "bwd_block.h"
#include "bwd_prepost.h"
#include "kernel_traits.h"
#include "mask.h"
#include "params.h"
#include "seqlen.h"
#include "sm90.h"
#include "utils.h"

namespace flash {

using namespace cute;

// kBlockM query rows per step. Head dims up to 128: kBlockN = 128 keys, 64 per warpgroup, and
// dQ (kBlockM x kHeadDim) split between the warpgroups along the head dim when kBlockM = 64,
// along the rows when 128. Larger head dims (kSplitD): the dK and dV accumulators of 64 keys
// fill a warpgroup's registers, so both warpgroups own the same kBlockN = 64 keys, split S^T
// and dP^T along the queries, and dK, dV and dQ along the head dim; P^T and dS^T reach the dK
// and dV products through shared memory (FlashAttention-3's layout for D = 256).
template <int kHeadDim_, int kBlockM_, typename Element_>
struct Sm90BwdTraits : TraitsBase<kHeadDim_, 8, Element_> {
  using Base = TraitsBase<kHeadDim_, 8, Element_>;
  using Element = Element_;
  static constexpr int kHeadDim = kHeadDim_;
  static constexpr int kBlockM = kBlockM_;
  static constexpr bool kSplitD = kHeadDim > 128;
  static constexpr int kBlockN = kSplitD ? 64 : 128;
  static constexpr int kNThreads = 256;
  static_assert(kHeadDim % 64 == 0 && (kBlockM == 64 || kBlockM == 128));
  static_assert(!kSplitD || kBlockM == 64);

  using WarpGroupsM = Layout<Shape<_2, _1, _1>>;
  using WarpGroupsN = Layout<Shape<_1, _2, _1>>;
  using TiledMmaSdP = std::conditional_t<
      kSplitD,
      decltype(make_tiled_mma(
          GMMA::ss_op_selector<Element, Element, float,
                               Shape<_64, Int<kBlockM / 2>, Int<kHeadDim>>>(),
          WarpGroupsN{})),
      decltype(make_tiled_mma(
          GMMA::ss_op_selector<Element, Element, float, Shape<_64, Int<kBlockM>, Int<kHeadDim>>>(),
          WarpGroupsM{}))>;
  using TiledMmadKV = std::conditional_t<
      kSplitD,
      decltype(make_tiled_mma(
          GMMA::ss_op_selector<Element, Element, float,
                               Shape<_64, Int<kHeadDim / 2>, Int<kBlockM>>, GMMA::Major::K,
                               GMMA::Major::MN>(),
          WarpGroupsN{})),
      decltype(make_tiled_mma(
          GMMA::rs_op_selector<Element, Element, float, Shape<_64, Int<kHeadDim>, Int<kBlockM>>,
                               GMMA::Major::K, GMMA::Major::MN>(),
          WarpGroupsM{}))>;
  static constexpr bool kDqSplitD = kBlockM == 64;
  using TiledMmadQ = decltype(make_tiled_mma(
      GMMA::ss_op_selector<Element, Element, float,
                           Shape<_64, Int<kDqSplitD ? kHeadDim / 2 : kHeadDim>, Int<kBlockN>>,
                           GMMA::Major::MN, GMMA::Major::MN>(),
      std::conditional_t<kDqSplitD, WarpGroupsN, WarpGroupsM>{}));

  // Q, dO, K, V as loaded (head dim contiguous): K-major for S^T and dP^T; their transposed
  // views are the MN-major B operands of dK, dV and dQ. dS (and P, kSplitD) is stored
  // query-contiguous: the MN-major A of dQ, and transposed the K-major A of dK (and dV).
  template <int kRows>
  using SmemLayoutRowsK = decltype(tile_to_shape(GMMA::Layout_K_SW128_Atom<Element>{},
                                                 Shape<Int<kRows>, Int<kHeadDim>>{}));
  template <int kRows>
  using SmemLayoutRowsKt = decltype(composition(
      SmemLayoutRowsK<kRows>{}, make_layout(Shape<Int<kHeadDim>, Int<kRows>>{}, GenRowMajor{})));
  using SmemLayoutQ = SmemLayoutRowsK<kBlockM>;   // (kBlockM, kHeadDim), also dO
  using SmemLayoutQt = SmemLayoutRowsKt<kBlockM>;  // (kHeadDim, kBlockM)
  using SmemLayoutK = SmemLayoutRowsK<kBlockN>;   // (kBlockN, kHeadDim), also V
  using SmemLayoutKt = SmemLayoutRowsKt<kBlockN>;  // (kHeadDim, kBlockN)
  using SmemLayoutdS = decltype(tile_to_shape(GMMA::Layout_MN_SW128_Atom<Element>{},
                                              Shape<Int<kBlockM>, Int<kBlockN>>{}));
  using SmemLayoutdSt = decltype(composition(
      SmemLayoutdS{}, make_layout(Shape<Int<kBlockN>, Int<kBlockM>>{}, GenRowMajor{})));

  static constexpr int kSmemQ = kBlockM * kHeadDim;  // elements of one Q (or dO) buffer
  static constexpr int kSmemKV = kBlockN * kHeadDim;
  static constexpr int kSmemdS = kBlockM * kBlockN;
  // Two buffers of Q and of dO, K, V, dS, P (kSplitD); then two buffers of lse and of D (fp32).
  static constexpr int kSmemRowStats =
      (4 * kSmemQ + 2 * kSmemKV + (kSplitD ? 2 : 1) * kSmemdS) * sizeof(Element);
  // dq staging: a warpgroup's 64 rows x kDqCols of a step's dq, each row kDqRowBytes apart
  // (32 bytes of padding put the 8 rows of an accumulator store in distinct banks). Up to
  // D = 128 in a region of their own; at D = 256 there is no room for one, and the rows go to
  // the step's own Q and dO buffers (the warpgroup's column half of each, which only its own
  // dK and dV products read: free once it has waited for them) and, the last few, past lse/D.
  static constexpr int kDqCols = kDqSplitD ? kHeadDim / 2 : kHeadDim;
  static constexpr int kDqRowBytes = (kDqCols + 8) * sizeof(float);
  static constexpr int kSmemDqStage = kSmemRowStats + 4 * kBlockM * sizeof(float);
  static constexpr int kDqRowsInHalf = kSmemQ * sizeof(Element) / 2 / kDqRowBytes;  // kSplitD
  static constexpr int kDqRowsPast = kSplitD ? 64 - 2 * kDqRowsInHalf : 64;
  static_assert(kDqRowsPast >= 0);
  // Then an mbarrier per Q/dO buffer: its two TMA loads have landed.
  static constexpr int kSmemBarriers = kSmemDqStage + 2 * kDqRowsPast * kDqRowBytes;
  static_assert(kSmemBarriers % 8 == 0);
  static constexpr int kSmemSize = kSmemBarriers + 2 * sizeof(uint64_t);

  using TmaQ = Sm90TmaLoad<Element, SmemLayoutQ>;  // a (kBlockM, kHeadDim) tile of q or do
  static constexpr uint32_t kBytesQ = kSmemQ * sizeof(Element);

  // Byte offset of warpgroup wg's staged dq row `row` (0..63) in step i.
  static __device__ __forceinline__ int dq_row_offset(int wg, int row, int i) {
    if constexpr (kSplitD) {
      constexpr int kHalf = kSmemQ * sizeof(Element) / 2;
      const int q_half = (i % 2) * kSmemQ * int(sizeof(Element)) + wg * kHalf;
      if (row < kDqRowsInHalf) return q_half + row * kDqRowBytes;
      if (row < 2 * kDqRowsInHalf) {
        return q_half + 2 * kSmemQ * int(sizeof(Element)) + (row - kDqRowsInHalf) * kDqRowBytes;
      }
      row -= 2 * kDqRowsInHalf;
    }
    return kSmemDqStage + (wg * kDqRowsPast + row) * kDqRowBytes;
  }
};

// The TMA descriptors of one call (built on the host by make_sm90_bwd_tma).
template <typename Traits>
struct Sm90BwdTma {
  typename Traits::TmaQ q;
  typename Traits::TmaQ dout;
};

// Calls whose q or dout TMA cannot load (sm90_tma_fits) run bwd_kernel.h.
template <typename Traits>
bool sm90_bwd_fits(const BwdParams& p) {
  using Element = typename Traits::Element;
  return sm90_tma_fits<Element>(p, p.q, p.q_row_stride, p.q_head_stride, p.q_batch_stride) &&
         sm90_tma_fits<Element>(p, p.dout, p.do_row_stride, p.do_head_stride, p.do_batch_stride);
}

template <typename Traits>
Sm90BwdTma<Traits> make_sm90_bwd_tma(const BwdParams& p) {
  using Element = typename Traits::Element;
  auto tma = [&](const void* ptr, int64_t row, int64_t head, int64_t batch) {
    return make_tma_copy(SM90_TMA_LOAD{}, sm90_qkv_tensor<Element>(p, ptr, false, row, head, batch),
                         typename Traits::SmemLayoutQ{},
                         Shape<Int<Traits::kBlockM>, Int<Traits::kHeadDim>>{}, _1{});
  };
  return {tma(p.q, p.q_row_stride, p.q_head_stride, p.q_batch_stride),
          tma(p.dout, p.do_row_stride, p.do_head_stride, p.do_batch_stride)};
}

// 4-byte cp.async.
__forceinline__ __device__ void cp_async_4(float* smem, const float* gmem) {
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(gmem));
}

// `phases` bit b: the parity of the next completion of Q/dO buffer b's mbarrier (kept across
// the CTA's key blocks).
template <typename Traits, bool kCausal>
__device__ __forceinline__ void bwd_sm90_key_block(const BwdParams& params,
                                                   const Sm90BwdTma<Traits>& tma,
                                                   const SeqLen& seq, int bidb, int kv_head,
                                                   int n_block, int dq_slice, char* smem,
                                                   uint32_t& phases) {
  using Barrier = cutlass::arch::ClusterTransactionBarrier;
  using Element = typename Traits::Element;
  constexpr int kBlockM = Traits::kBlockM;
  constexpr int kBlockN = Traits::kBlockN;
  constexpr int kHeadDim = Traits::kHeadDim;
  const int tidx = threadIdx.x;
  const int n0 = n_block * kBlockN;
  const int keys = min(kBlockN, seq.seqlen_k - n0);

  const Mask<kCausal> visible(seq.seqlen_q, seq.seqlen_k, params.bottom_right,
                              params.window_left, params.window_right, 0.f);
  const int row_begin = visible.row_begin(n0);
  const int row_end = visible.row_end(n0 + keys - 1, seq.seqlen_q);
  const int m_first = row_begin / kBlockM;
  const int num_m = row_end > row_begin ? (row_end + kBlockM - 1) / kBlockM - m_first : 0;
  const int group = params.heads_q / params.heads_kv;
  const int num_steps = num_m * group;

  Element* smem_e = reinterpret_cast<Element*>(smem);
  Tensor sQ = make_tensor(make_smem_ptr(smem_e), typename Traits::SmemLayoutQ{});
  Tensor sQt = make_tensor(make_smem_ptr(smem_e), typename Traits::SmemLayoutQt{});
  Tensor sdO = make_tensor(make_smem_ptr(smem_e + 2 * Traits::kSmemQ), typename Traits::SmemLayoutQ{});
  Tensor sdOt = make_tensor(make_smem_ptr(smem_e + 2 * Traits::kSmemQ), typename Traits::SmemLayoutQt{});
  Element* smem_k = smem_e + 4 * Traits::kSmemQ;
  Tensor sK = make_tensor(make_smem_ptr(smem_k), typename Traits::SmemLayoutK{});
  Tensor sKt = make_tensor(make_smem_ptr(smem_k), typename Traits::SmemLayoutKt{});
  Tensor sV = make_tensor(make_smem_ptr(smem_k + Traits::kSmemKV), typename Traits::SmemLayoutK{});
  Element* smem_ds = smem_k + 2 * Traits::kSmemKV;
  Tensor sdS = make_tensor(make_smem_ptr(smem_ds), typename Traits::SmemLayoutdS{});
  Tensor sdSt = make_tensor(make_smem_ptr(smem_ds), typename Traits::SmemLayoutdSt{});
  Tensor sPt = make_tensor(make_smem_ptr(smem_ds + Traits::kSmemdS), typename Traits::SmemLayoutdSt{});
  float* smem_lse = reinterpret_cast<float*>(smem + Traits::kSmemRowStats);  // [2][kBlockM]
  float* smem_dsum = smem_lse + 2 * kBlockM;                                  // [2][kBlockM]
  // Q-like buffer of step i (two of each: the next step's loads while this one computes).
  auto buffer = [&](int i) { return (i % 2) * Traits::kSmemQ; };

  typename Traits::GmemTiledCopyLoad gmem_copy;
  auto gmem_thr_copy = gmem_copy.get_thread_slice(tidx);
  Tensor tKVcKV = gmem_thr_copy.partition_S(make_identity_tensor(Shape<Int<kBlockN>, Int<kHeadDim>>{}));
  Tensor tpD = make_tensor<bool>(make_shape(size<2>(tKVcKV)));
  CUTE_UNROLL
  for (int k = 0; k < size(tpD); ++k) tpD(k) = get<1>(tKVcKV(0, 0, k)) < params.head_dim;

  const int h_first = kv_head * group;
  const int m_last = m_first + num_m - 1;
  uint64_t* const loaded = reinterpret_cast<uint64_t*>(smem + Traits::kSmemBarriers);
  // Q, dO (TMA, one thread), lse and D of step i's (head h, query block m). Rows past the
  // sequence get lse = -inf, so P = dS = 0 there: their P^T dO and dS^T Q terms vanish
  // whatever TMA read (zeros past the tensor; a varlen call's next sequence).
  auto load_step = [&](int i, int h, int m) {
    if (tidx == 0) {
      const int b = seq.varlen ? 0 : bidb;
      auto tile = [&](auto const& tma_rows, Element* dst) {
        Tensor mX = tma_rows.get_tma_tensor(sm90_qkv_shape(params, false))(_, _, h, b);
        Tensor gX = local_tile(domain_offset(make_coord(int32_t(seq.q_row0), _0{}), mX),
                               Shape<Int<kBlockM>, Int<kHeadDim>>{}, make_coord(m, _0{}));
        Tensor sX = make_tensor(make_smem_ptr(dst), typename Traits::SmemLayoutQ{});
        auto [tXgX, tXsX] = tma_partition(tma_rows, _0{}, Layout<_1>{}, group_modes<0, 2>(sX),
                                          group_modes<0, 2>(gX));
        copy(tma_rows.with(loaded[i % 2]), tXgX, tXsX);
      };
      Barrier::arrive_and_expect_tx(&loaded[i % 2], 2 * Traits::kBytesQ);
      tile(tma.q, smem_e + buffer(i));
      tile(tma.dout, smem_e + 2 * Traits::kSmemQ + buffer(i));
    }
    if (tidx < 2 * kBlockM) {
      const int row = m * kBlockM + tidx % kBlockM;
      float* dst = (tidx < kBlockM ? smem_lse : smem_dsum) + (i % 2) * kBlockM + tidx % kBlockM;
      if (row < seq.seqlen_q) {
        const int64_t offset = seq.lse_offset(params, bidb, h) + row;
        cp_async_4(dst, (tidx < kBlockM ? params.lse : params.dsum) + offset);
      } else {
        *dst = tidx < kBlockM ? -INFINITY : 0.f;
      }
    }
  };

  typename Traits::TiledMmaSdP mma_sdp;
  auto thr_sdp = mma_sdp.get_thread_slice(tidx);
  Tensor tSrK = thr_sdp.partition_fragment_A(sK);   // descriptors (MMA, MMA_M, MMA_K)
  Tensor tSrQ = thr_sdp.partition_fragment_B(sQ);   // (MMA, MMA_N, MMA_K)
  Tensor tdPrV = thr_sdp.partition_fragment_A(sV);
  Tensor tdPrdO = thr_sdp.partition_fragment_B(sdO);
  typename Traits::TiledMmadKV mma_dkv;
  auto thr_dkv = mma_dkv.get_thread_slice(tidx);
  Tensor tdVrdO = thr_dkv.partition_fragment_B(sdOt);  // (MMA, MMA_N, MMA_K)
  Tensor tdKrQ = thr_dkv.partition_fragment_B(sQt);
  Tensor tdVrPt = thr_dkv.partition_fragment_A(sPt);  // kSplitD: descriptors (MMA, MMA_M, MMA_K)
  Tensor tdKrdSt = thr_dkv.partition_fragment_A(sdSt);
  typename Traits::TiledMmadQ mma_dq;
  auto thr_dq = mma_dq.get_thread_slice(tidx);
  Tensor tdQrdS = thr_dq.partition_fragment_A(sdS);  // (MMA, MMA_M, MMA_K)
  Tensor tdQrK = thr_dq.partition_fragment_B(sKt);   // (MMA, MMA_N, MMA_K)
  // Descriptors of buffer i (step i's Q and dO): their iterator counts 16-byte units.
  auto at_buffer = [&](auto const& desc, int i) {
    return make_tensor(desc.data() + buffer(i) * int(sizeof(Element)) / 16, desc.layout());
  };

  auto copy_dS = make_tiled_copy_C(typename Traits::SmemCopyAtomAcc{}, mma_sdp);
  auto thr_copy_dS = copy_dS.get_thread_slice(tidx);
  Tensor tdSsdS = thr_copy_dS.partition_D(sdSt);
  Tensor tPsP = thr_copy_dS.partition_D(sPt);

  // (key, query) of each element of this thread's S^T accumulator.
  Tensor tScS = thr_sdp.partition_C(make_identity_tensor(Shape<Int<kBlockN>, Int<kBlockM>>{}));
  Tensor tScS_rc = make_tensor(tScS.data(), gmma_acc_rowcol_layout(tScS.layout()));  // (rows, cols)
  // This warp's dq rows, 16 from warpgroup row wg_row0 (query row dq_row0 of the block), and
  // kDqCols columns from dq_col0; lanes 0..15 send one row each.
  const int wg = tidx / 128, lane = tidx % 32;
  const int wg_row0 = tidx / 32 % 4 * 16;
  const int dq_row0 = (Traits::kDqSplitD ? 0 : wg * 64) + wg_row0;
  const int dq_col0 = Traits::kDqSplitD ? wg * Traits::kDqCols : 0;
  constexpr int kCols = decltype(size<1>(tScS_rc))::value;

  Tensor acc_dk = partition_fragment_C(mma_dkv, Shape<Int<kBlockN>, Int<kHeadDim>>{});  // (MMA, MMA_M, MMA_N)
  Tensor acc_dv = partition_fragment_C(mma_dkv, Shape<Int<kBlockN>, Int<kHeadDim>>{});
  clear(acc_dk);
  clear(acc_dv);

  const bool has_softcap = params.softcap > 0.f;
  const float softmax_scale = has_softcap ? params.softcap : params.scale;
  const float softcap_prescale = has_softcap ? params.scale / params.softcap : 1.f;
  const float scale_log2 = softmax_scale * float(M_LOG2E);
  const bool all_masked = has_softcap || params.alibi_slopes != nullptr;
  float* const dq_accum = params.dq_accum + dq_slice * LseRows(params).count() * kHeadDim;

  // The dq_accum row (< 2^31: dq_accum would hold 2^40 bytes) of this lane's staged dq row of
  // step i (-1: none), sent during step i + 1.
  int pending_row = -1;
  auto send_pending_dq = [&](int i) {
    if (pending_row >= 0) {
      bulk_reduce_add(dq_accum + int64_t(pending_row) * kHeadDim + dq_col0,
                      reinterpret_cast<const float*>(
                          smem + Traits::dq_row_offset(wg, wg_row0 + lane, i)),
                      Traits::kDqCols * sizeof(float));
    }
    bulk_commit_group();
  };

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
    load_step(0, h_first, m_first);
    cp_async_fence();
  }

  auto step = [&](int i, int h, int m, int h_next, int m_next, auto is_masked)
                  __attribute__((always_inline)) {
    const int m0 = m * kBlockM;
    const int m_end = min(m0 + kBlockM, seq.seqlen_q);
    cp_async_wait<0>();
    fence_async_proxy();
    Barrier::wait(&loaded[i % 2], (phases >> (i % 2)) & 1);
    phases ^= 1u << (i % 2);
    __syncthreads();  // step i's loads have landed; step i - 1 is done with the other buffers
    auto load_next = [&] {
      if (i + 1 < num_steps) {
        load_step(i + 1, h_next, m_next);
        cp_async_fence();
      }
    };

    Tensor acc_s = partition_fragment_C(mma_sdp, Shape<Int<kBlockN>, Int<kBlockM>>{});  // (MMA, MMA_M, MMA_N)
    Tensor acc_dp = partition_fragment_C(mma_sdp, Shape<Int<kBlockN>, Int<kBlockM>>{});
    gmma_issue<true>(mma_sdp, tSrK, at_buffer(tSrQ, i), acc_s);
    gmma_issue<true>(mma_sdp, tdPrV, at_buffer(tdPrdO, i), acc_dp);
    // The next step's loads (kSplitD: later, once step i - 1's dq rows staged in those buffers
    // have been read) and step i - 1's dq reductions.
    if constexpr (!Traits::kSplitD) load_next();
    send_pending_dq(i - 1);
    Tensor s = make_tensor(acc_s.data(), gmma_acc_rowcol_layout(acc_s.layout()));  // (keys, queries)
    Tensor dp = make_tensor(acc_dp.data(), gmma_acc_rowcol_layout(acc_dp.layout()));
    const float* lse_i = smem_lse + (i % 2) * kBlockM;
    const float* dsum_i = smem_dsum + (i % 2) * kBlockM;
    // lse of query column c, log2-scaled; a row with no visible key (lse = -inf) gets P = 0.
    auto lse_log2 = [&](int c) {
      const float lse = lse_i[get<1>(tScS_rc(0, c))];
      return lse == -INFINITY ? INFINITY : lse * float(M_LOG2E);
    };
    warpgroup_wait<1>();
    gmma_done(acc_s);

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
        for (int c = 0; c < kCols; ++c) {
          mask.apply_one(s(r, c), m0 + get<1>(tScS_rc(r, c)), n0 + get<0>(tScS_rc(r, c)),
                         visibility);
        }
      }
    }
    CUTE_UNROLL
    for (int c = 0; c < kCols; ++c) {
      const float lse = lse_log2(c);
      CUTE_UNROLL
      for (int r = 0; r < size<0>(s); ++r) s(r, c) = exp2f(s(r, c) * scale_log2 - lse);
    }
    Tensor rP = convert_type<Element>(acc_s);
    warpgroup_wait<0>();
    gmma_done(acc_dp);
    CUTE_UNROLL
    for (int c = 0; c < kCols; ++c) {
      const float dsum = dsum_i[get<1>(tScS_rc(0, c))];
      CUTE_UNROLL
      for (int r = 0; r < size<0>(s); ++r) {
        const float p = s(r, c);
        float ds = p * (dp(r, c) - dsum);
        if constexpr (decltype(is_masked)::value) {
          // Softcap's 1 - tanh^2 from P, as in bwd_kernel.h.
          if (has_softcap && p != 0.f) {
            float x = 0.f;
            mask.apply_one(x, m0 + get<1>(tScS_rc(r, c)), n0 + get<0>(tScS_rc(r, c)), false);
            const float t = (__log2f(p) + lse_log2(c)) / scale_log2 - x;
            ds *= 1.f - t * t;
          }
        }
        dp(r, c) = ds;
      }
    }
    Tensor rdS = convert_type<Element>(acc_dp);
    if constexpr (Traits::kSplitD) {
      // Each warpgroup holds the P^T, dS^T of half the queries; dK, dV need all of them.
      copy(copy_dS, thr_copy_dS.retile_S(rP), tPsP);
      copy(copy_dS, thr_copy_dS.retile_S(rdS), tdSsdS);
      fence_async_proxy();
      __syncthreads();  // P and dS of both warpgroups are in shared memory
      gmma_issue<false>(mma_dkv, tdVrPt, at_buffer(tdVrdO, i), acc_dv);
      gmma_issue<false>(mma_dkv, tdKrdSt, at_buffer(tdKrQ, i), acc_dk);
      bulk_wait_group_read<0>();  // step i - 1's dq rows have been read out
      __syncthreads();
      load_next();
    } else {
      Tensor tdVrP = make_tensor(rP.data(), gmma_acc_as_a_layout(rP.layout()));  // (MMA, MMA_M, MMA_K)
      Tensor tdKrdS = make_tensor(rdS.data(), gmma_acc_as_a_layout(rdS.layout()));
      gmma_issue<false>(mma_dkv, tdVrP, at_buffer(tdVrdO, i), acc_dv);
      gmma_issue<false>(mma_dkv, tdKrdS, at_buffer(tdKrQ, i), acc_dk);
      copy(copy_dS, thr_copy_dS.retile_S(rdS), tdSsdS);
      fence_async_proxy();
      __syncthreads();  // dS of both warpgroups is in shared memory
    }

    Tensor acc_dq = partition_fragment_C(mma_dq, Shape<Int<kBlockM>, Int<kHeadDim>>{});  // (MMA, MMA_M, MMA_N)
    gmma_issue<true>(mma_dq, tdQrdS, tdQrK, acc_dq);
    warpgroup_wait<0>();
    gmma_done(acc_dv);
    gmma_done(acc_dk);
    gmma_done(acc_dq);
    warpgroup_fence_operand(rP);
    warpgroup_fence_operand(rdS);
    const int64_t row_offset = seq.lse_offset(params, bidb, h);
    if constexpr (!Traits::kSplitD) {
      bulk_wait_group_read<0>();  // the previous step's rows (sent at its top) have been read
      __syncwarp();
    }
    // Accumulator rows lane/4 and lane/4 + 8 of the warp's 16; column 8t + 2(lane % 4) + c.
    Tensor dq = make_tensor(acc_dq.data(), gmma_acc_rowcol_layout(acc_dq.layout()));
    static_assert(decltype(size<0>(dq))::value == 2);
    CUTE_UNROLL
    for (int r = 0; r < 2; ++r) {
      char* row = smem + Traits::dq_row_offset(wg, wg_row0 + lane / 4 + 8 * r, i) + lane % 4 * 8;
      CUTE_UNROLL
      for (int k = 0; k < size<1>(dq); k += 2) {
        *reinterpret_cast<float2*>(row + k / 2 * 32) = make_float2(dq(r, k), dq(r, k + 1));
      }
    }
    fence_async_proxy();
    __syncwarp();
    const int row = m0 + dq_row0 + lane;
    pending_row = lane < 16 && row < seq.seqlen_q ? int(row_offset + row) : -1;
  };

  for_each_step<kBlockM, kBlockN>(num_steps, h_first, m_first, m_last, all_masked, visible, n0,
                                  seq.seqlen_q, step);
  send_pending_dq(num_steps - 1);
  // Shared memory stays until the reductions have read it; deterministic mode also lets them
  // finish, so that the next key block's additions come after these.
  if (params.deterministic) {
    bulk_wait_group<0>();
  } else {
    bulk_wait_group_read<0>();
  }

  // dK = scale * dS^T Q.
  store_dk_dv<Traits>(params, seq, bidb, kv_head, n0, keys, mma_dkv, acc_dk, acc_dv, 1.f, smem_k,
                      smem_k + Traits::kSmemKV);
}

// Grid: BwdTile's, as bwd_kernel.
template <typename Traits, bool kCausal>
__global__ void __launch_bounds__(Traits::kNThreads, 1)
    bwd_sm90_kernel(__grid_constant__ const BwdParams params,
                    __grid_constant__ const Sm90BwdTma<Traits> tma) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using Barrier = cutlass::arch::ClusterTransactionBarrier;
  extern __shared__ __align__(1024) char smem[];
  const BwdTile tile(params, Traits::kBlockN);
  const SeqLen seq(params, tile.bidb);
  if (threadIdx.x == 0) {
    uint64_t* loaded = reinterpret_cast<uint64_t*>(smem + Traits::kSmemBarriers);
    Barrier::init(&loaded[0], 1);
    Barrier::init(&loaded[1], 1);
    cutlass::arch::fence_barrier_init();
  }
  __syncthreads();
  uint32_t phases = 0;
  for (int n_block = tile.n_block; tile.has(n_block, Traits::kBlockN, seq.seqlen_k);
       n_block += tile.n_step) {
    bwd_sm90_key_block<Traits, kCausal>(params, tma, seq, tile.bidb, tile.kv_head, n_block,
                                        tile.dq_slice, smem, phases);
    __syncthreads();  // the next key block reuses the shared memory
  }
#endif
}

}  // namespace flash
