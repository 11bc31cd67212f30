// acc += A * B^T with both operands in shared memory, for any of the mem_eff element types.
// A is an (M, K) view and B an (N, K) view of shared memory tiles; kTransA / kTransB say that
// the view is a transpose (its K mode is not the contiguous one), which fp16/bf16 read with
// ldmatrix.trans. fp32 operands are split into a TF32 high part and a TF32 remainder; a*b ~
// hi(a)hi(b) + hi(a)lo(b) + lo(a)hi(b) keeps close to fp32 accuracy on the tensor cores
// (CUTLASS's "3xTF32"). The tensor cores round toward zero as they accumulate: fed the running
// sum, every MMA would pull it toward zero by up to an ulp, an error that grows with the length
// of the sum (dk over 1k query rows, O over 16k keys). So each k-step's products go to fresh
// fragments, per 16 x 8 tile, and reach the sum through FADDs, which round to nearest (or, for
// products over a short k, one chain per product: Chains in traits.h).
#pragma once

#include <cute/tensor.hpp>
#include <cutlass/tfloat32.h>

#include "traits.h"

namespace mem_eff {

using namespace cute;

template <bool kTrans>
using LdsmAtom = std::conditional_t<kTrans, SM75_U16x8_LDSM_T, SM75_U32x4_LDSM_N>;

// fp32 operands whose K mode is the contiguous one load by ldmatrix too: read as 32-bit
// elements, each 8 x 16-byte matrix is 8 rows by 4 k values, and lane l receives (row l / 4,
// k l % 4), the TF32 MMA's fragment order (A: four matrices, rows 0-7 / 8-15 by k 0-3 / 4-7; B:
// two, k 0-3 / 4-7). One instruction instead of four (A) or two (B) 4-byte loads: +4-6% on
// the fp32 kernels with rolled k loops (H100). Transposed fp32 tiles have no such instruction and
// are read element by element, as are all of the unrolled ones (kUnrollK, the D = 256
// backward), which ran 5% slower with ldmatrix.
template <bool kIsA>
using Fp32LdsmAtom = Copy_Atom<std::conditional_t<kIsA, SM75_U32x4_LDSM_N, SM75_U32x2_LDSM_N>, float>;

// Splits fp32 values into TF32 high parts and TF32 remainders. The tensor cores read the top 19
// bits of a TF32 operand register; the remainder gets half of its dropped part added first, so
// that this read rounds it to nearest.
// kGuard: see gemm_smem's `guard`.
template <bool kGuard, typename Src, typename Hi, typename Lo>
__forceinline__ __device__ void split_tf32(Src const& src, Hi& hi, Lo& lo) {
  CUTE_UNROLL
  for (int i = 0; i < size(src); ++i) {
    const float x = src(i);
    // Rounded to nearest, so that the remainders, and the lo * lo terms left out, have random
    // signs and average to zero instead of adding up along the sums. The remainder itself is
    // left to the tensor cores' truncation (its sign, so the error's, is random): rounding it
    // took an instruction per element, 3-6% of the fp32 kernels' time (H100), and halved the
    // gradients' error only on short sums (64 x 64 at D = 64: 0.05 of the float64 rule's
    // tolerance against 0.10 now; 0.02-0.2 either way on longer ones).
    uint32_t big = (__float_as_uint(x) + 0x1000u) & 0xffffe000u;
    // Guarded, infinities and NaN (and the few values that round up to infinity) go whole into
    // the remainder, with a high part of 0, so that an infinite x times a finite y comes out of
    // the three products as IEEE's +-inf (NaN where y is 0 or NaN): as the high part, inf left
    // inf - inf = NaN for the remainder, and met the finite partner's remainder of either sign.
    // Two infinite operands give NaN here, not inf. (An FSETP and a SEL an element, 10-20% of
    // the fp32 kernels' time on the H100 when every split paid them.)
    if constexpr (kGuard) big = fabsf(x) < __uint_as_float(0x7f7ff000u) ? big : 0u;
    hi(i) = cutlass::tfloat32_t::bitcast(big);
    lo(i) = cutlass::tfloat32_t::bitcast(__float_as_uint(x - __uint_as_float(big)));
  }
}

// The fp32 case of gemm_smem, with kGuard its guard.
template <bool kTransA, bool kTransB, bool kUnrollK, Chains kChains, bool kGuard,
          typename TiledMma, typename Acc, typename SA, typename SB>
__forceinline__ __device__ void gemm_smem_fp32(TiledMma const& tiled_mma, Acc& acc,
                                               SA const& sA, SB const& sB, int tidx) {
  auto thr_mma = tiled_mma.get_thread_slice(tidx);
  if constexpr (kChains == Chains::kPerProduct) {
    Tensor part = make_fragment_like(acc);
    clear(part);
    gemm_smem_fp32<kTransA, kTransB, kUnrollK, Chains::kWhole, kGuard>(tiled_mma, part, sA, sB,
                                                                      tidx);
    CUTE_UNROLL
    for (int i = 0; i < size(acc); ++i) acc(i) += part(i);
  } else {
    Tensor tCsA = thr_mma.partition_A(sA);  // (MMA, MMA_M, MMA_K)
    Tensor tCsB = thr_mma.partition_B(sB);  // (MMA, MMA_N, MMA_K)
    auto copy_a = make_tiled_copy_A(Fp32LdsmAtom<true>{}, tiled_mma);
    auto copy_b = make_tiled_copy_B(Fp32LdsmAtom<false>{}, tiled_mma);
    auto thr_copy_a = copy_a.get_thread_slice(tidx);
    auto thr_copy_b = copy_b.get_thread_slice(tidx);
    Tensor tLsA = thr_copy_a.partition_S(sA);  // (CPY, CPY_M, CPY_K)
    Tensor tLsB = thr_copy_b.partition_S(sB);  // (CPY, CPY_N, CPY_K)
    // One k-step of each operand as loaded: (MMA, MMA_M or MMA_N, 1), rank 3 for retile_D.
    Tensor rawA3 = make_tensor<float>(append(shape(tCsA(_, _, 0)), _1{}));
    Tensor rawB3 = make_tensor<float>(append(shape(tCsB(_, _, 0)), _1{}));
    Tensor rawA_view = thr_copy_a.retile_D(rawA3)(_, _, 0);
    Tensor rawB_view = thr_copy_b.retile_D(rawB3)(_, _, 0);
    Tensor rawA = rawA3(_, _, 0);
    Tensor rawB = rawB3(_, _, 0);
    static_assert(size<1>(rawB_view) == size<1>(rawB));  // one copy per 8-column slice
    Tensor hiA = make_tensor<cutlass::tfloat32_t>(shape(rawA));
    Tensor loA = make_tensor<cutlass::tfloat32_t>(shape(hiA));
    // B is split one 8-column slice at a time: the whole of it (V^T at D = 256) would not fit
    // in registers next to the accumulator.
    Tensor hiB = make_tensor<cutlass::tfloat32_t>(shape(rawB(_, 0)));
    Tensor loB = make_tensor<cutlass::tfloat32_t>(shape(hiB));
    constexpr bool kLdsmA = !kTransA && !kUnrollK, kLdsmB = !kTransB && !kUnrollK;
    auto step = [&](int k) __attribute__((always_inline)) {
      if constexpr (kLdsmA) {
        copy(copy_a, tLsA(_, _, k), rawA_view);
        split_tf32<kGuard>(rawA, hiA, loA);
      } else {
        split_tf32<kGuard>(tCsA(_, _, k), hiA, loA);
      }
      CUTE_UNROLL
      for (int n = 0; n < size<2>(acc); ++n) {
        if constexpr (kLdsmB) {
          copy(copy_b, tLsB(_, n, k), rawB_view(_, n));
          split_tf32<kGuard>(rawB(_, n), hiB, loB);
        } else {
          split_tf32<kGuard>(tCsB(_, n, k), hiB, loB);
        }
        CUTE_UNROLL
        for (int m = 0; m < size<1>(acc); ++m) {
          if constexpr (kChains == Chains::kWhole) {
            cute::gemm(tiled_mma, loA(_, m), hiB, acc(_, m, n));
            cute::gemm(tiled_mma, hiA(_, m), loB, acc(_, m, n));
            cute::gemm(tiled_mma, hiA(_, m), hiB, acc(_, m, n));
          } else if constexpr (kChains == Chains::kSplitPerStep) {
            // The high product in a chain of its own, so that it does not wait for the small
            // ones (the caller's choice, see below).
            Tensor big = make_fragment_like(acc(_, m, n));
            Tensor small = make_fragment_like(acc(_, m, n));
            clear(big);
            clear(small);
            cute::gemm(tiled_mma, hiA(_, m), hiB, big);
            cute::gemm(tiled_mma, loA(_, m), hiB, small);
            cute::gemm(tiled_mma, hiA(_, m), loB, small);
            CUTE_UNROLL
            for (int i = 0; i < size(big); ++i) acc(i, m, n) += big(i) + small(i);
          } else {
            Tensor part = make_fragment_like(acc(_, m, n));
            clear(part);
            cute::gemm(tiled_mma, loA(_, m), hiB, part);  // the small terms first
            cute::gemm(tiled_mma, hiA(_, m), loB, part);
            cute::gemm(tiled_mma, hiA(_, m), hiB, part);
            CUTE_UNROLL
            for (int i = 0; i < size(part); ++i) acc(i, m, n) += part(i);
          }
        }
      }
    };
    // Whether to unroll the k loop is the caller's (kUnrollK, config.h's kUnrollFp32K):
    // unrolled, the compiler hoists the shared memory loads of later steps ahead, which spills
    // in some kernels and pays off in others. So are the chains (config.h's kSplitFp32Chains:
    // two chains of MMAs per k-step paid off in the unrolled D = 256 backward only). Scores the
    // backward recomputes must keep kPerStep: they have to round as the forward's did, or the
    // probabilities rebuilt from lse drift off (the bias gradient, P (dP - D) itself, went to
    // 2.3x the float64 rule's tolerance).
    constexpr int kSteps = decltype(size<2>(tCsA))::value;
    if constexpr (kUnrollK) {
      CUTE_UNROLL
      for (int k = 0; k < kSteps; ++k) step(k);
    } else {
      CUTE_NO_UNROLL
      for (int k = 0; k < kSteps; ++k) step(k);
    }
  }
}

// acc += A * B^T (see the top of the file). guard (fp32 only; the kernel's compile-time kGuard,
// guard.h) says that an operand may hold an infinity, a NaN or a value near the end of the float
// range, which the split then takes apart with care (split_tf32).
template <bool kTransA, bool kTransB, bool kUnrollK = false, Chains kChains = Chains::kPerStep,
          typename TiledMma, typename Acc, typename SA, typename SB>
__forceinline__ __device__ void gemm_smem(TiledMma const& tiled_mma, Acc& acc, SA const& sA,
                                          SB const& sB, int tidx, bool guard) {
  using Element = typename SA::value_type;
  if constexpr (std::is_same_v<Element, float>) {
    if (guard) {
      gemm_smem_fp32<kTransA, kTransB, kUnrollK, kChains, true>(tiled_mma, acc, sA, sB, tidx);
    } else {
      gemm_smem_fp32<kTransA, kTransB, kUnrollK, kChains, false>(tiled_mma, acc, sA, sB, tidx);
    }
  } else {
    auto thr_mma = tiled_mma.get_thread_slice(tidx);
    Tensor tCrA = make_tensor<Element>(partition_shape_A(tiled_mma, shape(sA)));  // (MMA, MMA_M, MMA_K)
    Tensor tCrB = make_tensor<Element>(partition_shape_B(tiled_mma, shape(sB)));  // (MMA, MMA_N, MMA_K)
    auto copy_a = make_tiled_copy_A(Copy_Atom<LdsmAtom<kTransA>, Element>{}, tiled_mma);
    auto copy_b = make_tiled_copy_B(Copy_Atom<LdsmAtom<kTransB>, Element>{}, tiled_mma);
    auto thr_copy_a = copy_a.get_thread_slice(tidx);
    auto thr_copy_b = copy_b.get_thread_slice(tidx);
    Tensor tCsA = thr_copy_a.partition_S(sA);  // (CPY, CPY_M, CPY_K)
    Tensor tCsB = thr_copy_b.partition_S(sB);
    Tensor tCrA_view = thr_copy_a.retile_D(tCrA);
    Tensor tCrB_view = thr_copy_b.retile_D(tCrB);
    copy(copy_a, tCsA(_, _, _0{}), tCrA_view(_, _, _0{}));
    copy(copy_b, tCsB(_, _, _0{}), tCrB_view(_, _, _0{}));
    CUTE_UNROLL
    for (int k = 0; k < size<2>(tCrA); ++k) {
      if (k + 1 < size<2>(tCrA)) {
        copy(copy_a, tCsA(_, _, k + 1), tCrA_view(_, _, k + 1));
        copy(copy_b, tCsB(_, _, k + 1), tCrB_view(_, _, k + 1));
      }
      cute::gemm(tiled_mma, tCrA(_, _, k), tCrB(_, _, k), acc);
    }
  }
}

}  // namespace mem_eff
