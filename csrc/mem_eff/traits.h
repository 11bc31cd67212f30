// Compile-time choices of the mem_eff kernels that depend on the element type: the tensor-core
// MMA (fp16/bf16: 16x8x16; fp32: 16x8x8 TF32, run three times per product, see gemm.h), shared
// memory tiles of 128-byte rows swizzled in 16-byte units, 16-byte global copies, and the
// shared-to-register copies of the MMA operands.
#pragma once

#include <type_traits>

#include <cute/tensor.hpp>
#include <cutlass/numeric_types.h>

namespace mem_eff {

using namespace cute;

// How each k-step's three fp32 MMAs per 16 x 8 tile reach the accumulator (gemm.h): kPerStep,
// one chain into a fresh fragment, added with FADDs; kSplitPerStep, the high product in a chain
// of its own (two fresh fragments); kPerProduct, one chain through the whole k loop into a
// fresh fragment, added once; kWhole, that chain straight into acc, which must start at zero.
// The last two need fewer FADDs and suit products with short k loops (a tile of queries or
// keys), where the tensor cores' truncations along the chain stay few.
enum class Chains { kPerStep, kSplitPerStep, kPerProduct, kWhole };

// kPermuteRows: see SmemLayoutAtom (fp32 only).
template <typename Element_, bool kPermuteRows = std::is_same_v<Element_, float>>
struct ElementTraits {
  using Element = Element_;
  static constexpr bool kIsFloat = std::is_same_v<Element, float>;
  using MmaOp = std::conditional_t<
      kIsFloat, SM80_16x8x8_F32TF32TF32F32_TN,
      std::conditional_t<std::is_same_v<Element, cutlass::half_t>, SM80_16x8x16_F32F16F16F32_TN,
                         SM80_16x8x16_F32BF16BF16F32_TN>>;
  static constexpr int kMmaK = kIsFloat ? 8 : 16;
  // fp16/bf16 warps take 16 columns (two MMAs), so that one ldmatrix.x4 feeds the B operand.
  static constexpr int kWarpN = kIsFloat ? 8 : 16;

  static constexpr int kVec = 16 / sizeof(Element);        // elements per 16-byte access
  static constexpr int kRowElems = 128 / sizeof(Element);  // elements per 128-byte smem row
  static constexpr int kVecLog2 = kIsFloat ? 2 : 3;
  // Rows of 128 bytes (or 64 for narrower tiles), swizzled so that 16-byte units of 8
  // consecutive rows fall in different banks. With kPermuteRows, 128-byte fp32 rows are also
  // stored permuted within each 8 (row r at 2 (r % 4) + r / 4): the TF32 MMA's transposed
  // operand reads (4 consecutive rows by 8 columns, element by element) then find the 4 rows'
  // units XORed with 0, 2, 4, 6 (distinct pairs of units) instead of 0, 1, 2, 3 (2-way bank
  // conflicts). H100: fp32 forward and backward at D = 64 and 128 +1-2%; the D = 256 backward
  // (unrolled k loops) spilled 8 -> 148 B and ran 1-2% slower, so it keeps plain rows.
  using Rows8 = std::conditional_t<
      kIsFloat && kPermuteRows,
      Layout<Shape<Shape<_2, _2, _2>, Int<kRowElems>>,
             Stride<Stride<Int<2 * kRowElems>, Int<4 * kRowElems>, Int<kRowElems>>, _1>>,
      Layout<Shape<_8, Int<kRowElems>>, Stride<Int<kRowElems>, _1>>>;
  template <int kCols>
  using SmemLayoutAtom = std::conditional_t<
      kCols % kRowElems == 0, decltype(composition(Swizzle<3, kVecLog2, 3>{}, Rows8{})),
      decltype(composition(Swizzle<2, kVecLog2, 3>{},
                           Layout<Shape<_8, Int<kRowElems / 2>>, Stride<Int<kRowElems / 2>, _1>>{}))>;

  // A (kRows, kCols) tile, and the same memory read as its transpose (kCols, kRows).
  template <int kRows, int kCols>
  using SmemLayout =
      decltype(tile_to_shape(SmemLayoutAtom<kCols>{}, Shape<Int<kRows>, Int<kCols>>{}));
  template <int kRows, int kCols>
  using SmemLayoutT = decltype(composition(
      SmemLayout<kRows, kCols>{}, make_layout(Shape<Int<kCols>, Int<kRows>>{}, GenRowMajor{})));

  // Warps tile the MMA's M by kWarpsM and N by kWarpsN.
  template <int kWarpsM, int kWarpsN>
  using TiledMma = TiledMMA<MMA_Atom<MmaOp>, Layout<Shape<Int<kWarpsM>, Int<kWarpsN>, _1>>,
                            Tile<Int<16 * kWarpsM>, Int<kWarpN * kWarpsN>, Int<kMmaK>>>;

  // Global <-> shared copies of 16 bytes, kRowElems / kVec threads across a smem row.
  template <int kThreads>
  using GmemLayout = Layout<Shape<Int<kThreads * kVec / kRowElems>, Int<kRowElems / kVec>>,
                            Stride<Int<kRowElems / kVec>, _1>>;
  template <int kThreads>
  using GmemCopyLoad = decltype(make_tiled_copy(
      Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<cute::uint128_t>, Element>{}, GmemLayout<kThreads>{},
      Layout<Shape<_1, Int<kVec>>>{}));
  template <int kThreads>
  using GmemCopyStore = decltype(make_tiled_copy(
      Copy_Atom<AutoVectorizingCopyWithAssumedAlignment<128>, Element>{}, GmemLayout<kThreads>{},
      Layout<Shape<_1, Int<kVec>>>{}));

  // Accumulators to shared memory: the two adjacent elements a thread holds per MMA row.
  using SmemCopyAcc =
      Copy_Atom<AutoVectorizingCopyWithAssumedAlignment<16 * sizeof(Element)>, Element>;
};

}  // namespace mem_eff
