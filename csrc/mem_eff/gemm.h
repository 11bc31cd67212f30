// acc += A * B^T with both operands in shared memory, for any of the mem_eff element types.
// A is an (M, K) view and B an (N, K) view of shared memory tiles; kTransA / kTransB say that
// the view is a transpose (its K mode is not the contiguous one), which fp16/bf16 read with
// ldmatrix.trans. fp32 operands are read element by element and split into a TF32 high part and
// a TF32 remainder; a*b ~ hi(a)hi(b) + hi(a)lo(b) + lo(a)hi(b) keeps close to fp32 accuracy on
// the tensor cores (CUTLASS's "3xTF32").
#pragma once

#include <cute/tensor.hpp>
#include <cutlass/tfloat32.h>

#include "traits.h"

namespace mem_eff {

using namespace cute;

template <bool kTrans>
using LdsmAtom = std::conditional_t<kTrans, SM75_U16x8_LDSM_T, SM75_U32x4_LDSM_N>;

// Splits fp32 values into TF32 high parts and TF32 remainders.
template <typename Src, typename Hi, typename Lo>
__forceinline__ __device__ void split_tf32(Src const& src, Hi& hi, Lo& lo) {
  CUTE_UNROLL
  for (int i = 0; i < size(src); ++i) {
    const float x = src(i);
    // Rounded to nearest (TF32 keeps 10 mantissa bits), so that the remainders, and the
    // lo * lo terms left out, average to zero instead of adding up along the sums.
    const uint32_t big = (__float_as_uint(x) + 0x1000u) & 0xffffe000u;
    hi(i) = cutlass::tfloat32_t::bitcast(big);
    lo(i) = cutlass::tfloat32_t(x - __uint_as_float(big));
  }
}

template <bool kTransA, bool kTransB, typename TiledMma, typename Acc, typename SA, typename SB>
__forceinline__ __device__ void gemm_smem(TiledMma const& tiled_mma, Acc& acc, SA const& sA,
                                          SB const& sB, int tidx) {
  using Element = typename SA::value_type;
  auto thr_mma = tiled_mma.get_thread_slice(tidx);
  if constexpr (std::is_same_v<Element, float>) {
    Tensor tCsA = thr_mma.partition_A(sA);  // (MMA, MMA_M, MMA_K)
    Tensor tCsB = thr_mma.partition_B(sB);  // (MMA, MMA_N, MMA_K)
    Tensor rA = make_tensor<float>(shape(tCsA(_, _, 0)));
    Tensor rB = make_tensor<float>(shape(tCsB(_, _, 0)));
    Tensor hiA = make_tensor<cutlass::tfloat32_t>(shape(rA));
    Tensor loA = make_tensor<cutlass::tfloat32_t>(shape(rA));
    Tensor hiB = make_tensor<cutlass::tfloat32_t>(shape(rB));
    Tensor loB = make_tensor<cutlass::tfloat32_t>(shape(rB));
    CUTE_UNROLL
    for (int k = 0; k < size<2>(tCsA); ++k) {
      copy(tCsA(_, _, k), rA);
      copy(tCsB(_, _, k), rB);
      split_tf32(rA, hiA, loA);
      split_tf32(rB, hiB, loB);
      cute::gemm(tiled_mma, loA, hiB, acc);  // the small terms first
      cute::gemm(tiled_mma, hiA, loB, acc);
      cute::gemm(tiled_mma, hiA, hiB, acc);
    }
  } else {
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

// gemm_smem adding into an accumulator that sums many such products (over key or query
// blocks). fp32: the tensor cores truncate as they accumulate, which adds up along long sums;
// each product goes to a fresh fragment and is added with a rounding FADD instead.
template <bool kTransA, bool kTransB, typename TiledMma, typename Acc, typename SA, typename SB>
__forceinline__ __device__ void gemm_smem_sum(TiledMma const& tiled_mma, Acc& acc, SA const& sA,
                                              SB const& sB, int tidx) {
  if constexpr (std::is_same_v<typename SA::value_type, float>) {
    Tensor part = make_fragment_like(acc);
    clear(part);
    gemm_smem<kTransA, kTransB>(tiled_mma, part, sA, sB, tidx);
    CUTE_UNROLL
    for (int i = 0; i < size(acc); ++i) acc(i) += part(i);
  } else {
    gemm_smem<kTransA, kTransB>(tiled_mma, acc, sA, sB, tidx);
  }
}

}  // namespace mem_eff
