// Moving the mem_eff kernels' tiles: rows of q/k/v-like tensors and bias tiles from global into
// shared memory (cp.async, zero-filled past the ends), accumulators into shared memory (fp32 ones
// back too), and shared-memory tiles out to global rows; and the (row, col) coordinates of
// accumulators.
#pragma once

#include <cute/tensor.hpp>

#include "../flash/utils.h"
#include "params.h"
#include "traits.h"

namespace mem_eff {

using namespace cute;

// (row, col) within an (M, N) tile of each element of a thread's accumulator of that tile.
template <int kM, int kN, typename TiledMma>
__forceinline__ __device__ auto acc_coords(TiledMma const& tiled_mma, int tidx) {
  return tiled_mma.get_thread_slice(tidx).partition_C(
      make_identity_tensor(Shape<Int<kM>, Int<kN>>{}));
}

// Block `block` (an index, or _ for all of them) of kRows rows of a (seqlen, kHeadDim) view at
// `base` with the given row stride.
template <int kRows, int kHeadDim, typename Element, typename Block>
__forceinline__ __device__ auto rows_tile(Element* base, int64_t row_stride, int seqlen,
                                          Block block) {
  return local_tile(make_tensor(make_gmem_ptr(base), make_shape(seqlen, Int<kHeadDim>{}),
                                make_stride(row_stride, _1{})),
                    Shape<Int<kRows>, Int<kHeadDim>>{}, make_coord(block, 0));
}

// Loads rows [0, rows) x columns [0, cols) of the global (R, C) tile `g` into the shared tile
// `s` with kThreads threads; the rest of `s` is zero-filled. cols is a multiple of the 16-byte
// vector. Issues cp.async copies: the caller fences and waits.
template <int kThreads, typename GTile, typename STile>
__forceinline__ __device__ void load_tile(GTile const& g, STile& s, int rows, int cols,
                                          int tidx) {
  using Element = typename STile::value_type;
  typename ElementTraits<Element>::template GmemCopyLoad<kThreads> tiled_copy;
  auto thr_copy = tiled_copy.get_thread_slice(tidx);
  Tensor tg = thr_copy.partition_S(g);  // (CPY, CPY_R, CPY_C)
  Tensor ts = thr_copy.partition_D(s);
  Tensor tc = thr_copy.partition_S(make_identity_tensor(make_shape(size<0>(s), size<1>(s))));
  auto col_ok = [&](int k) { return get<1>(tc(0, 0, k)) < cols; };
  flash::copy_tile<true>(tiled_copy, tg, ts, tc, col_ok, rows);
}

// Stores a thread's accumulator of an (M, N) tile, converted to the tile's element type, into
// the shared tile `s` at the accumulator's own positions.
template <typename TiledMma, typename Acc, typename STile>
__forceinline__ __device__ void acc_to_smem(TiledMma const& tiled_mma, Acc const& acc, STile& s,
                                            int tidx) {
  using Element = typename STile::value_type;
  Tensor r = flash::convert_type<Element>(acc);
  auto tiled_copy = make_tiled_copy_C(typename ElementTraits<Element>::SmemCopyAcc{}, tiled_mma);
  auto thr_copy = tiled_copy.get_thread_slice(tidx);
  Tensor tr = thr_copy.retile_S(r);
  Tensor ts = thr_copy.partition_D(s);
  copy(tiled_copy, tr, ts);
}

// The reverse of acc_to_smem for fp32 tiles: loads a thread's accumulator positions of the
// shared tile `s` into `acc`.
template <typename TiledMma, typename Acc, typename STile>
__forceinline__ __device__ void smem_to_acc(TiledMma const& tiled_mma, Acc& acc, STile const& s,
                                            int tidx) {
  static_assert(std::is_same_v<typename STile::value_type, float>);
  auto tiled_copy = make_tiled_copy_C(typename ElementTraits<float>::SmemCopyAcc{}, tiled_mma);
  auto thr_copy = tiled_copy.get_thread_slice(tidx);
  Tensor tr = thr_copy.retile_D(acc);
  Tensor ts = thr_copy.partition_S(s);
  copy(tiled_copy, ts, tr);
}

// Stores rows [0, rows) x columns [0, cols) of the shared tile `s` into the global tile `g`
// with kThreads threads, 16 bytes at a time. The caller syncs before (s complete).
template <int kThreads, typename STile, typename GTile>
__forceinline__ __device__ void store_tile(STile const& s, GTile& g, int rows, int cols,
                                           int tidx) {
  using Element = typename STile::value_type;
  typename ElementTraits<Element>::template GmemCopyStore<kThreads> tiled_copy;
  auto thr_copy = tiled_copy.get_thread_slice(tidx);
  Tensor ts = thr_copy.partition_S(s);  // (CPY, CPY_R, CPY_C)
  Tensor tg = thr_copy.partition_D(g);
  Tensor tc = thr_copy.partition_D(make_identity_tensor(make_shape(size<0>(s), size<1>(s))));
  Tensor tr = make_tensor<Element>(shape(tg));
  copy(tiled_copy, ts, tr);
  auto col_ok = [&](int k) { return get<1>(tc(0, 0, k)) < cols; };
  flash::store_tile(tiled_copy, tr, tg, tc, col_ok, rows);
}

// Element offset of tile (row0, col0) of the bias of (b, h).
__forceinline__ __device__ int64_t bias_offset(const BiasParams& p, int b, int h, int row0,
                                               int col0) {
  return b * p.bias_batch_stride + h * p.bias_head_stride + row0 * p.bias_row_stride + col0;
}

// A scaled score x with its bias element b: x + b, or -inf where b is a boolean mask's -inf
// (BiasParams::bias_is_mask).
__forceinline__ __device__ float with_bias(const BiasParams& p, float x, float b) {
  return p.bias_is_mask && b == -INFINITY ? -INFINITY : x + b;
}

}  // namespace mem_eff
