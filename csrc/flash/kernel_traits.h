// Every compile-time choice of one kernel variant: tile sizes, warps, the MMAs, shared memory
// layouts and the copies between global, shared memory and registers. FwdTraits and BwdTraits
// share what depends only on (head dim, threads, element type).
#pragma once

#include <cute/tensor.hpp>
#include <cutlass/numeric_types.h>

namespace flash {

using namespace cute;

template <int kHeadDim_, int kNWarps_, typename Element_>
struct TraitsBase {
  using Element = Element_;
  static constexpr int kHeadDim = kHeadDim_;
  static constexpr int kNWarps = kNWarps_;
  static constexpr int kNThreads = kNWarps * 32;
  static_assert(kHeadDim % 32 == 0);

  using MmaAtom = MMA_Atom<std::conditional_t<std::is_same_v<Element, cutlass::half_t>,
                                              SM80_16x8x16_F32F16F16F32_TN,
                                              SM80_16x8x16_F32BF16BF16F32_TN>>;

  // Shared memory rows of 64 (or 32) elements, swizzled so that ldmatrix is conflict-free.
  static constexpr int kBlockKSmem = kHeadDim % 64 == 0 ? 64 : 32;
  static constexpr int kSwizzle = kBlockKSmem == 32 ? 2 : 3;
  using SmemLayoutAtom = decltype(composition(
      Swizzle<kSwizzle, 3, 3>{},
      Layout<Shape<_8, Int<kBlockKSmem>>, Stride<Int<kBlockKSmem>, _1>>{}));

  using SmemCopyAtom = Copy_Atom<SM75_U32x4_LDSM_N, Element>;
  using SmemCopyAtomTransposed = Copy_Atom<SM75_U16x8_LDSM_T, Element>;
  // Accumulators to shared memory: two adjacent elements per store.
  using SmemCopyAtomAcc = Copy_Atom<AutoVectorizingCopyWithAssumedAlignment<32>, Element>;

  // Global memory: 16-byte accesses, kGmemThreadsPerRow threads across a row of kBlockKSmem.
  static constexpr int kGmemElemsPerLoad = 16 / sizeof(Element);
  static constexpr int kGmemThreadsPerRow = kBlockKSmem / kGmemElemsPerLoad;
  using GmemLayoutAtom = Layout<Shape<Int<kNThreads / kGmemThreadsPerRow>, Int<kGmemThreadsPerRow>>,
                                Stride<Int<kGmemThreadsPerRow>, _1>>;
  using GmemTiledCopyLoad = decltype(make_tiled_copy(
      Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<cute::uint128_t>, Element>{}, GmemLayoutAtom{},
      Layout<Shape<_1, Int<kGmemElemsPerLoad>>>{}));
  using GmemTiledCopyStore = decltype(make_tiled_copy(
      Copy_Atom<AutoVectorizingCopyWithAssumedAlignment<128>, Element>{}, GmemLayoutAtom{},
      Layout<Shape<_1, Int<kGmemElemsPerLoad>>>{}));

  // A (rows, kHeadDim) tile in shared memory, and its transpose (kHeadDim, rows).
  template <int kRows>
  using SmemLayoutRows = decltype(tile_to_shape(SmemLayoutAtom{}, Shape<Int<kRows>, Int<kHeadDim>>{}));
  template <int kRows>
  using SmemLayoutRowsT = decltype(composition(
      SmemLayoutRows<kRows>{}, make_layout(Shape<Int<kHeadDim>, Int<kRows>>{}, GenRowMajor{})));
};

template <int kHeadDim_, int kBlockM_, int kBlockN_, int kNWarps_, typename Element_>
struct FwdTraits : TraitsBase<kHeadDim_, kNWarps_, Element_> {
  using Base = TraitsBase<kHeadDim_, kNWarps_, Element_>;
  using Element = Element_;
  using typename Base::MmaAtom;
  static constexpr int kBlockM = kBlockM_;
  static constexpr int kBlockN = kBlockN_;
  static constexpr int kHeadDim = kHeadDim_;
  static_assert(kBlockN % 32 == 0 && kBlockM % (16 * kNWarps_) == 0);

  // Warps split the query rows; each warp owns 16 rows of every 16 * kNWarps.
  using TiledMma = TiledMMA<MmaAtom, Layout<Shape<Int<kNWarps_>, _1, _1>>,
                            Tile<Int<16 * kNWarps_>, _16, _16>>;

  using SmemLayoutQ = typename Base::template SmemLayoutRows<kBlockM>;
  using SmemLayoutKV = typename Base::template SmemLayoutRows<kBlockN>;
  // V read as V^T (kHeadDim, kBlockN) for the P V product.
  using SmemLayoutVt = typename Base::template SmemLayoutRowsT<kBlockN>;
  using SmemLayoutVtNoSwizzle = decltype(get_nonswizzle_portion(SmemLayoutVt{}));
  using SmemLayoutO = SmemLayoutQ;  // O is staged in Q's shared memory

  using GmemTiledCopyQKV = typename Base::GmemTiledCopyLoad;
  using GmemTiledCopyO = typename Base::GmemTiledCopyStore;

  static constexpr int kSmemSize = (kBlockM + 2 * kBlockN) * kHeadDim * sizeof(Element);
};

// The backward (FlashAttention-2): a CTA owns kBlockN keys and walks the query blocks. Three
// tiled MMAs: S = Q K^T and dP = dO V^T (kBlockM x kBlockN, warps kWarpsMSdP along M),
// dV = P^T dO and dK = dS^T Q (kBlockN x kHeadDim, kWarpsNdKV along N), dQ = dS K
// (kBlockM x kHeadDim, kWarpsMdQ along M). kDoubleBufferQ keeps two Q tiles so that the next
// one loads during a whole step (A100/H100 have the shared memory for it).
template <int kHeadDim_, int kBlockM_, int kBlockN_, int kNWarps_, int kWarpsMSdP, int kWarpsNdKV,
          int kWarpsMdQ, bool kDoubleBufferQ_, typename Element_>
struct BwdTraits : TraitsBase<kHeadDim_, kNWarps_, Element_> {
  using Base = TraitsBase<kHeadDim_, kNWarps_, Element_>;
  using Element = Element_;
  using typename Base::MmaAtom;
  static constexpr int kBlockM = kBlockM_;
  static constexpr int kBlockN = kBlockN_;
  static constexpr int kHeadDim = kHeadDim_;
  static constexpr int kNWarps = kNWarps_;
  static constexpr bool kDoubleBufferQ = kDoubleBufferQ_;

  template <int kWarpsM>
  using Mma = TiledMMA<MmaAtom, Layout<Shape<Int<kWarpsM>, Int<kNWarps / kWarpsM>, _1>>,
                       Tile<Int<16 * kWarpsM>, Int<16 * (kNWarps / kWarpsM)>, _16>>;
  using TiledMmaSdP = Mma<kWarpsMSdP>;
  using TiledMmadKV = Mma<kWarpsNdKV>;
  using TiledMmadQ = Mma<kWarpsMdQ>;
  static_assert(kBlockM % (16 * kWarpsMSdP) == 0 && kBlockN % (16 * (kNWarps / kWarpsMSdP)) == 0);
  static_assert(kBlockN % (16 * kWarpsNdKV) == 0 && kHeadDim % (16 * (kNWarps / kWarpsNdKV)) == 0);
  static_assert(kBlockM % (16 * kWarpsMdQ) == 0 && kHeadDim % (16 * (kNWarps / kWarpsMdQ)) == 0);
  static_assert(kBlockN % 32 == 0);

  using SmemLayoutQdO = typename Base::template SmemLayoutRows<kBlockM>;  // (kBlockM, kHeadDim)
  using SmemLayoutQdOt = typename Base::template SmemLayoutRowsT<kBlockM>;  // (kHeadDim, kBlockM)
  using SmemLayoutQdOtNoSwizzle = decltype(get_nonswizzle_portion(SmemLayoutQdOt{}));
  using SmemLayoutKV = typename Base::template SmemLayoutRows<kBlockN>;  // (kBlockN, kHeadDim)
  using SmemLayoutKt = typename Base::template SmemLayoutRowsT<kBlockN>;  // (kHeadDim, kBlockN)
  using SmemLayoutKtNoSwizzle = decltype(get_nonswizzle_portion(SmemLayoutKt{}));

  // P and dS (kBlockM, kBlockN), read back transposed for dV and dK.
  static constexpr int kPBlockN = kBlockN >= 64 ? 64 : 32;
  using SmemLayoutAtomPdS = decltype(composition(
      Swizzle<kPBlockN == 64 ? 3 : 2, 3, 3>{},
      Layout<Shape<_8, Int<kPBlockN>>, Stride<Int<kPBlockN>, _1>>{}));
  using SmemLayoutPdS = decltype(tile_to_shape(SmemLayoutAtomPdS{}, Shape<Int<kBlockM>, Int<kBlockN>>{}));
  using SmemLayoutPdSt = decltype(composition(
      SmemLayoutPdS{}, make_layout(Shape<Int<kBlockN>, Int<kBlockM>>{}, GenRowMajor{})));
  using SmemLayoutPdStNoSwizzle = decltype(get_nonswizzle_portion(SmemLayoutPdSt{}));

  static constexpr int kSmemQ = kBlockM * kHeadDim;  // elements of one Q (or dO) tile
  static constexpr int kSmemKV = kBlockN * kHeadDim;
  static constexpr int kSmemPdS = kBlockM * kBlockN;
  static constexpr int kSmemSize =
      ((kDoubleBufferQ ? 3 : 2) * kSmemQ + 2 * kSmemKV + 2 * kSmemPdS) * sizeof(Element);
};

}  // namespace flash
