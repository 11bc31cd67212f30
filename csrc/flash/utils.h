// Register-level helpers shared by the flash kernels: lane-group reductions, accumulator layout
// views, type conversion, the two smem-fed GEMM loops and predicated tile copies.
#pragma once

#include <cute/tensor.hpp>
#include <cutlass/array.h>
#include <cutlass/numeric_conversion.h>
#include <cutlass/numeric_types.h>

namespace flash {

using namespace cute;

// Max and sum over the 4 threads of a quad: an MMA accumulator row is spread across them.
struct MaxOp {
  __device__ __forceinline__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct SumOp {
  __device__ __forceinline__ float operator()(float a, float b) const { return a + b; }
};

// op over each group of kWidth adjacent lanes (a power of 2 up to 32), every lane of a group
// getting its result.
template <int kWidth, typename Op>
__device__ __forceinline__ float lanes_allreduce(float x, Op op) {
  static_assert(kWidth >= 1 && kWidth <= 32 && (kWidth & (kWidth - 1)) == 0);
  CUTE_UNROLL
  for (int offset = kWidth / 2; offset > 0; offset /= 2) {
    x = op(x, __shfl_xor_sync(0xffffffff, x, offset));
  }
  return x;
}

template <typename Op>
__device__ __forceinline__ float quad_allreduce(float x, Op op) {
  return lanes_allreduce<4>(x, op);
}

// SM80 16x8 accumulator ((2, 2), MMA_M, MMA_N) viewed as rows x cols ((2, MMA_M), (2, MMA_N)):
// value (c, r) of an atom is column 2q + c, row lane/4 + 8r.
template <typename Layout>
__forceinline__ __device__ auto acc_rowcol_layout(Layout acc) {
  static_assert(decltype(size<0>(acc))::value == 4);
  static_assert(decltype(rank(acc))::value == 3);
  auto l = logical_divide(acc, Shape<_2>{});  // ((2, 2), MMA_M, MMA_N)
  return make_layout(make_layout(get<0, 1>(l), get<1>(l)), make_layout(get<0, 0>(l), get<2>(l)));
}

// The same accumulator reused as the A operand of the next 16x8x16 MMA:
// ((2, 2), MMA_M, MMA_N) -> ((2, 2, 2), MMA_M, MMA_N / 2).
template <typename Layout>
__forceinline__ __device__ auto acc_as_a_layout(Layout acc) {
  auto l = logical_divide(acc, Shape<Underscore, Underscore, _2>{});  // ((2,2), MMA_M, (2, MMA_N/2))
  return make_layout(make_layout(get<0>(l), get<2, 0>(l)), get<1>(l), get<2, 1>(l));
}

template <typename To, typename Engine, typename Layout>
__forceinline__ __device__ auto convert_type(Tensor<Engine, Layout> const& tensor) {
  using From = typename Engine::value_type;
  constexpr int kNumel = decltype(size(tensor))::value;
  cutlass::NumericArrayConverter<To, From, kNumel> convert;
  auto frag = convert(*reinterpret_cast<const cutlass::Array<From, kNumel>*>(tensor.data()));
  return make_tensor(make_rmem_ptr<To>(&frag), tensor.layout());
}

// acc += A * B with both operands in shared memory, loading k-slice i + 1 into registers while
// the MMAs of slice i run.
template <typename Acc, typename TA, typename TB, typename SA, typename SB, typename TiledMma,
          typename CopyA, typename CopyB, typename ThrCopyA, typename ThrCopyB>
__forceinline__ __device__ void gemm_ss(Acc& acc, TA& tCrA, TB& tCrB, SA const& tCsA,
                                        SB const& tCsB, TiledMma tiled_mma, CopyA copy_a,
                                        CopyB copy_b, ThrCopyA thr_copy_a, ThrCopyB thr_copy_b) {
  Tensor tCrA_view = thr_copy_a.retile_D(tCrA);  // (CPY, CPY_M, CPY_K)
  Tensor tCrB_view = thr_copy_b.retile_D(tCrB);  // (CPY, CPY_N, CPY_K)
  copy(copy_a, tCsA(_, _, _0{}), tCrA_view(_, _, _0{}));
  copy(copy_b, tCsB(_, _, _0{}), tCrB_view(_, _, _0{}));
  CUTE_UNROLL
  for (int i = 0; i < size<2>(tCrA); ++i) {
    if (i < size<2>(tCrA) - 1) {
      copy(copy_a, tCsA(_, _, i + 1), tCrA_view(_, _, i + 1));
      copy(copy_b, tCsB(_, _, i + 1), tCrB_view(_, _, i + 1));
    }
    cute::gemm(tiled_mma, tCrA(_, _, i), tCrB(_, _, i), acc);
  }
}

// acc += A * B with A already in registers (the probabilities) and B in shared memory.
template <typename Acc, typename TA, typename TB, typename SB, typename TiledMma, typename CopyB,
          typename ThrCopyB>
__forceinline__ __device__ void gemm_rs(Acc& acc, TA const& tCrA, TB& tCrB, SB const& tCsB,
                                        TiledMma tiled_mma, CopyB copy_b, ThrCopyB thr_copy_b) {
  Tensor tCrB_view = thr_copy_b.retile_D(tCrB);  // (CPY, CPY_N, CPY_K)
  copy(copy_b, tCsB(_, _, _0{}), tCrB_view(_, _, _0{}));
  CUTE_UNROLL
  for (int i = 0; i < size<2>(tCrA); ++i) {
    if (i < size<2>(tCrA) - 1) copy(copy_b, tCsB(_, _, i + 1), tCrB_view(_, _, i + 1));
    cute::gemm(tiled_mma, tCrA(_, _, i), tCrB(_, _, i), acc);
  }
}

// The col_ok of copy_tile and store_tile: for each copy along a row of a thread's partition
// `coords` (the identity partition of its tile), whether its column is below head_dim.
template <typename Coords>
__forceinline__ __device__ auto columns_below(Coords const& coords, int head_dim) {
  Tensor ok = make_tensor<bool>(make_shape(size<2>(coords)));
  CUTE_UNROLL
  for (int k = 0; k < size(ok); ++k) ok(k) = get<1>(coords(0, 0, k)) < head_dim;
  return ok;
}

// Copies a (CPY, CPY_ROWS, CPY_COLS) partition of a gmem tile: rows at or past `max_rows` and
// columns whose `col_ok` is false are written as zeros instead (kCheckRows = false skips the
// row test for tiles known to be full). `coords` is the identity partition giving each
// element's (row, col) in the tile.
template <bool kCheckRows, typename TiledCopy, typename Src, typename Dst, typename Coords,
          typename ColOk>
__forceinline__ __device__ void copy_tile(TiledCopy tiled_copy, Src const& src, Dst& dst,
                                          Coords const& coords, ColOk const& col_ok,
                                          int max_rows) {
  CUTE_UNROLL
  for (int m = 0; m < size<1>(src); ++m) {
    if (!kCheckRows || get<0>(coords(0, m, 0)) < max_rows) {
      CUTE_UNROLL
      for (int k = 0; k < size<2>(src); ++k) {
        if (col_ok(k)) {
          copy(tiled_copy, src(_, m, k), dst(_, m, k));
        } else {
          clear(dst(_, m, k));
        }
      }
    } else {
      clear(dst(_, m, _));
    }
  }
}

// Stores a register/smem partition to gmem, skipping rows >= max_rows and masked-off columns.
template <typename TiledCopy, typename Src, typename Dst, typename Coords, typename ColOk>
__forceinline__ __device__ void store_tile(TiledCopy tiled_copy, Src const& src, Dst& dst,
                                           Coords const& coords, ColOk const& col_ok,
                                           int max_rows) {
  CUTE_UNROLL
  for (int m = 0; m < size<1>(src); ++m) {
    if (get<0>(coords(0, m, 0)) < max_rows) {
      CUTE_UNROLL
      for (int k = 0; k < size<2>(src); ++k) {
        if (col_ok(k)) copy(tiled_copy, src(_, m, k), dst(_, m, k));
      }
    }
  }
}

// Writes this thread's part acc_o of tiled_mma's (rows, kHeadDim) accumulator of O (or of the
// forward's S, as P) to the shared memory tile sO, converted to sO's element type.
template <typename SmemCopyAtom, typename TiledMma, typename Acc, typename SmemO>
__forceinline__ __device__ void stage_o(TiledMma const& tiled_mma, Acc const& acc_o, SmemO& sO,
                                        int tidx) {
  using Element = typename SmemO::value_type;
  Tensor rO = convert_type<Element>(acc_o);
  auto smem_tiled_copy = make_tiled_copy_C(SmemCopyAtom{}, tiled_mma);
  auto smem_thr_copy = smem_tiled_copy.get_thread_slice(tidx);
  Tensor taccOrO = smem_thr_copy.retile_S(rO);  // ((Atom, AtomNum), MMA_M, MMA_K)
  Tensor taccOsO = smem_thr_copy.partition_D(sO);
  copy(smem_tiled_copy, taccOrO, taccOsO);
}

// Stores a tile of O, this thread's part acc_o of tiled_mma's (rows, kHeadDim) accumulator, to
// gO through shared memory sO for 16-byte global stores: rows below `rows`, columns below
// `head_dim`. sync() publishes the shared memory writes to the threads that read them back.
template <typename GmemTiledCopy, typename SmemCopyAtom, typename TiledMma, typename Acc,
          typename SmemO, typename GmemO, typename Sync>
__forceinline__ __device__ void store_o(TiledMma const& tiled_mma, Acc const& acc_o, SmemO& sO,
                                        GmemO& gO, int tidx, int rows, int head_dim, Sync&& sync) {
  using Element = typename SmemO::value_type;
  stage_o<SmemCopyAtom>(tiled_mma, acc_o, sO, tidx);
  GmemTiledCopy gmem_tiled_copy;
  auto gmem_thr_copy = gmem_tiled_copy.get_thread_slice(tidx);
  Tensor tOsO = gmem_thr_copy.partition_S(sO);  // (CPY, CPY_M, CPY_K)
  Tensor tOgO = gmem_thr_copy.partition_D(gO);
  Tensor tOcO = gmem_thr_copy.partition_D(make_identity_tensor(make_shape(size<0>(sO), size<1>(sO))));
  Tensor tOpD = columns_below(tOcO, head_dim);  // (CPY_K)
  sync();
  Tensor tOrO = make_tensor<Element>(shape(tOgO));
  copy(gmem_tiled_copy, tOsO, tOrO);
  store_tile(gmem_tiled_copy, tOrO, tOgO, tOcO, tOpD, rows);
}

}  // namespace flash
