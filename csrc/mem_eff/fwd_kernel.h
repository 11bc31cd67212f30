// The mem_eff forward (after the CUTLASS memory-efficient attention, seed 001): one CTA computes
// kBlockM query rows of one (batch, head) against the key blocks they can see. Per key block:
// S = scale * Q K^T (softcapped: softcap.h) + bias (+ ALiBi, masks), the online softmax, P
// staged through shared memory (the element type's MMA A operand, fp32 included), O += P V (in
// fp32 with the warps split otherwise than for the scores: config.h's TiledMmaO, the softmax's
// warps handing the rows' factors over through shared memory). The bias tile of the block loads
// with K; the next K and bias load while the softmax and P V run (with a shared K/V
// buffer, V and the next bias load during the softmax, the next K after P V).
#pragma once

#include <cmath>

#include <cute/tensor.hpp>

#include "../flash/dropout.h"
#include "../flash/mask.h"
#include "../flash/seqlen.h"
#include "../flash/softmax.h"
#include "config.h"
#include "gemm.h"
#include "guard.h"
#include "params.h"
#include "softcap.h"
#include "tiles.h"
#include "traits.h"

namespace mem_eff {

using namespace cute;

// An output accumulator x normalized by its row's factor, where a factor of 0 (a row that saw
// no key) sets it to 0, a NaN that 0 * NaN would keep included: the P V products of a row
// without keys may have met a NaN or infinite value of a key it does not see.
__forceinline__ __device__ float normalized(float x, float factor) {
  return factor == 0.f ? 0.f : x * factor;
}

// One block of query rows; kGuard: see guard.h.
template <typename Traits, bool kSoftcap, bool kGuard>
__forceinline__ __device__ void fwd_block(const FwdParams& params) {
  using Element = typename Traits::Element;
  constexpr int kBlockM = Traits::kBlockM;
  constexpr int kBlockN = Traits::kBlockN;
  constexpr int kHeadDim = Traits::kHeadDim;
  constexpr int kNThreads = Traits::kNThreads;
  constexpr bool kShareKV = Traits::kShareKV;

  extern __shared__ __align__(128) char smem[];
  const int tidx = threadIdx.x;
  const int lane = tidx % 32, quad_lane = lane % 4;
  const int m_block = blockIdx.x, bidh = blockIdx.y, bidb = blockIdx.z;
  const flash::SeqLen seq(params, bidb);
  const int m0 = m_block * kBlockM;
  if (m0 >= seq.seqlen_q) return;
  const int m_end = min(m0 + kBlockM, seq.seqlen_q);

  // Scores are scaled in registers (the bias adds to scaled scores), so ALiBi's coefficient is
  // the slope itself and the softmax works in units of 1.
  const float alibi_coef = params.alibi_slopes == nullptr
      ? 0.f : -params.alibi_slopes[bidb * params.alibi_batch_stride + bidh];
  const flash::Mask<false> mask(seq.seqlen_q, seq.seqlen_k, params.bottom_right,
                                params.window_left, params.window_right, alibi_coef);
  const int n_begin = mask.template n_block_begin<kBlockN>(m0);
  const int n_end = mask.template n_block_end<kBlockN>(m_end);

  const int warp_row0 = m0 + (tidx / 32) * 16 + lane / 4;
  auto row_of = [&](int r) { return warp_row0 + (r % 2) * 8 + (r / 2) * kBlockM; };

  Tensor sQ = make_tensor(make_smem_ptr(reinterpret_cast<Element*>(smem)),
                          typename Traits::SmemLayoutQ{});  // (kBlockM, kHeadDim)
  Tensor sK = make_tensor(sQ.data() + size(sQ), typename Traits::SmemLayoutKV{});  // (kBlockN, kHeadDim)
  Tensor sV = make_tensor(sK.data() + (kShareKV ? 0 : size(sK)),
                          typename Traits::SmemLayoutKV{});
  Tensor sVt = make_tensor(sV.data(), typename Traits::SmemLayoutVt{});  // (kHeadDim, kBlockN)
  Tensor sBias = make_tensor(sV.data() + size(sV), typename Traits::SmemLayoutS{});  // (kBlockM, kBlockN)
  Tensor sP = make_tensor(sBias.data() + size(sBias), typename Traits::SmemLayoutS{});
  // Per row of the tile: the softmax's rescale factor of the step, and at the end its
  // normalizing factor (apart, so that the last step's readers of the first need no barrier).
  float* s_rescale = reinterpret_cast<float*>(smem + (Traits::kSmemSize - 2 * kBlockM * sizeof(float)));
  float* s_normalize = s_rescale + kBlockM;

  typename Traits::TiledMma tiled_mma;
  typename Traits::TiledMmaO mma_o;
  Tensor acc_o = partition_fragment_C(mma_o, Shape<Int<kBlockM>, Int<kHeadDim>>{});  // (MMA, MMA_M, MMA_K)
  Tensor acc_o_rc = make_tensor(acc_o.data(), flash::acc_rowcol_layout(acc_o.layout()));
  // The tile row of each of acc_o's rows.
  Tensor o_coords = acc_coords<kBlockM, kHeadDim>(mma_o, tidx);
  Tensor o_coords_rc = make_tensor(o_coords.data(), flash::acc_rowcol_layout(o_coords.layout()));
  // Scales the rows of acc_o by their factors (normalize: std::true_type for the final ones,
  // see normalized()).
  auto scale_o_rows = [&](const float* factors, auto normalize) {
    CUTE_UNROLL
    for (int r = 0; r < size<0>(acc_o_rc); ++r) {
      const float factor = factors[get<0>(o_coords_rc(r, 0))];
      CUTE_UNROLL
      for (int c = 0; c < size<1>(acc_o_rc); ++c) {
        acc_o_rc(r, c) = decltype(normalize)::value ? normalized(acc_o_rc(r, c), factor)
                                                    : acc_o_rc(r, c) * factor;
      }
    }
  };
  constexpr int kRows = 2 * kBlockM / (16 * Traits::kNWarps);  // the softmax's rows a thread
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
    Tensor gQ = rows_tile<kBlockM, kHeadDim>(q_ptr, params.q_row_stride, seq.seqlen_q, m_block);
    Tensor gK = rows_tile<kBlockN, kHeadDim>(k_ptr, params.k_row_stride, seq.seqlen_k, _);  // (kBlockN, kHeadDim, n)
    Tensor gV = rows_tile<kBlockN, kHeadDim>(v_ptr, params.v_row_stride, seq.seqlen_k, _);
    const bool has_bias = params.bias != nullptr;
    const Element* bias_ptr = has_bias
        ? static_cast<const Element*>(params.bias) + bias_offset(params, bidb, bidh, 0, 0) : nullptr;
    Tensor gBias = local_tile(make_tensor(make_gmem_ptr(bias_ptr), make_shape(seq.seqlen_q, seq.seqlen_k),
                                          make_stride(params.bias_row_stride, _1{})),
                              Shape<Int<kBlockM>, Int<kBlockN>>{}, make_coord(m_block, _));  // (kBlockM, kBlockN, n)

    auto load_k = [&](int n_block) {
      load_tile<kNThreads>(gK(_, _, n_block), sK, seq.seqlen_k - n_block * kBlockN,
                           params.head_dim, tidx);
    };
    auto load_v = [&](int n_block) {
      load_tile<kNThreads>(gV(_, _, n_block), sV, seq.seqlen_k - n_block * kBlockN,
                           params.head_dim_v, tidx);
    };
    auto load_bias = [&](int n_block) {
      if (has_bias) {
        load_tile<kNThreads>(gBias(_, _, n_block), sBias, m_end - m0,
                             seq.seqlen_k - n_block * kBlockN, tidx);
      }
    };
    load_tile<kNThreads>(gQ, sQ, m_end - m0, params.head_dim, tidx);
    load_k(n_begin);
    load_bias(n_begin);
    cp_async_fence();

    Tensor coords = acc_coords<kBlockM, kBlockN>(tiled_mma, tidx);  // (MMA, MMA_M, MMA_N) -> (row, col)
    flash::OnlineSoftmax<kRows> softmax;
    const flash::Dropout dropout = params.dropout_p > 0.f
        ? flash::Dropout(params.dropout_seed, params.dropout_p, bidb * params.heads_q + bidh)
        : flash::Dropout{};
    const Softcap<Element, kSoftcap> softcap(params.softcap, params.scale);
    const float scale = kSoftcap ? 1.f : params.scale;  // the cap's scores come out scaled

    auto step = [&](int n_block, auto is_first) __attribute__((always_inline)) {
      const int n0 = n_block * kBlockN;
      Tensor acc_s = partition_fragment_C(tiled_mma, Shape<Int<kBlockM>, Int<kBlockN>>{});
      clear(acc_s);
      cp_async_wait<0>();
      __syncthreads();  // K and bias of this block have landed; P V of the last one is done
      if constexpr (!kShareKV) {
        load_v(n_block);
        cp_async_fence();
      }

      gemm_smem<false, false>(tiled_mma, acc_s, sQ, sK, tidx, kGuard);
      if constexpr (kSoftcap) {
        CUTE_UNROLL
        for (int i = 0; i < size(acc_s); ++i) acc_s(i) = softcap.cap * softcap.tanh_of(acc_s(i));
      }
      if (has_bias) {
        CUTE_UNROLL
        for (int i = 0; i < size(acc_s); ++i) {
          acc_s(i) = with_bias(params, acc_s(i) * scale,
                               static_cast<float>(sBias(get<0>(coords(i)), get<1>(coords(i)))));
        }
      } else {
        CUTE_UNROLL
        for (int i = 0; i < size(acc_s); ++i) acc_s(i) *= scale;
      }
      const bool needs_mask = mask.template block_needs_mask<kBlockN>(n0, m0, m_end);
      if (needs_mask || alibi_coef != 0.f) {
        CUTE_UNROLL
        for (int i = 0; i < size(acc_s); ++i) {
          mask.apply_one(acc_s(i), m0 + get<0>(coords(i)), n0 + get<1>(coords(i)), needs_mask);
        }
      }

      const bool has_next = n_block + 1 < n_end;
      if constexpr (kShareKV) {
        __syncthreads();  // every thread is done with this K and bias: V and the next bias load
        load_v(n_block);
        if (has_next) load_bias(n_block + 1);
        cp_async_fence();
      } else {
        cp_async_wait<0>();
        __syncthreads();  // V has landed; every thread is done with this K and bias
        if (has_next) {
          load_k(n_block + 1);
          load_bias(n_block + 1);
          cp_async_fence();
        }
      }
      Tensor s = make_tensor(acc_s.data(), flash::acc_rowcol_layout(acc_s.layout()));  // (rows, cols)
      auto rescale = [&](int r, float factor) {
        if constexpr (Traits::kOWithScores) {
          CUTE_UNROLL
          for (int c = 0; c < size<1>(acc_o_rc); ++c) acc_o_rc(r, c) *= factor;
        } else if (quad_lane == 0) {
          s_rescale[row_of(r) - m0] = factor;
        }
      };
      softmax.template update<decltype(is_first)::value>(s, float(M_LOG2E), rescale);
      if (params.dropout_p > 0.f) dropout.apply(s, row_of, n0, quad_lane);
      acc_to_smem(tiled_mma, acc_s, sP, tidx);
      if constexpr (kShareKV) cp_async_wait<0>();
      __syncthreads();  // P and the rescale factors are complete (and V has landed)
      if constexpr (!decltype(is_first)::value && !Traits::kOWithScores) {
        scale_o_rows(s_rescale, std::false_type{});
      }
      gemm_smem<false, true>(mma_o, acc_o, sP, sVt, tidx, kGuard);
      if constexpr (kShareKV) {
        if (has_next) {
          __syncthreads();  // every thread is done with V: the next K loads into its buffer
          load_k(n_block + 1);
          cp_async_fence();
        }
      }
    };
    step(n_begin, std::true_type{});
    for (int n_block = n_begin + 1; n_block < n_end; ++n_block) step(n_block, std::false_type{});

    const float keep_scale = params.dropout_p > 0.f ? 1.f / (1.f - params.dropout_p) : 1.f;
    // A row that saw no key (lse -inf) gets the factor 0, so is 0 (normalized()); a row that
    // saw one has a factor above 0.
    softmax.finalize(keep_scale, lse, [&](int r, float factor) {
      factor = lse[r] == -INFINITY ? 0.f : factor;
      if constexpr (Traits::kOWithScores) {
        CUTE_UNROLL
        for (int c = 0; c < size<1>(acc_o_rc); ++c) acc_o_rc(r, c) = normalized(acc_o_rc(r, c), factor);
      } else if (quad_lane == 0) {
        s_normalize[row_of(r) - m0] = factor;
      }
    });
  } else {
    CUTE_UNROLL
    for (int r = 0; r < kRows; ++r) lse[r] = -INFINITY;  // no visible key: out 0, lse -inf
  }

  seq.store_lse(params, bidb, bidh, lse, row_of, quad_lane);
  __syncthreads();  // every thread is done with Q (O is staged there); the factors are complete
  if (!Traits::kOWithScores && n_end > n_begin) scale_o_rows(s_normalize, std::true_type{});
  Tensor sO = make_tensor(sQ.data(), typename Traits::SmemLayoutQ{});
  acc_to_smem(mma_o, acc_o, sO, tidx);
  __syncthreads();
  Element* o_ptr = static_cast<Element*>(params.out) +
      seq.q_offset(params.o_batch_stride, params.o_head_stride, params.o_row_stride, bidb, bidh);
  Tensor gO = rows_tile<kBlockM, kHeadDim>(o_ptr, params.o_row_stride, seq.seqlen_q, m_block);
  store_tile<kNThreads>(sO, gO, m_end - m0, params.head_dim_v, tidx);
}

template <typename Traits, bool kSoftcap>
__global__ void __launch_bounds__(Traits::kNThreads)
    fwd_kernel(__grid_constant__ const FwdParams params) {
  constexpr Bodies kHeld =
      kBodies<typename Traits::Element, kFp32FwdBothBodies<Traits::kHeadDim>>;
  if constexpr (kHeld == Bodies::kBoth) {
    with_guard(params, [&](auto guard) {
      fwd_block<Traits, kSoftcap, decltype(guard)::value>(params);
    });
  } else {
    fwd_block<Traits, kSoftcap, kHeld == Bodies::kGuarded>(params);
  }
}

}  // namespace mem_eff
