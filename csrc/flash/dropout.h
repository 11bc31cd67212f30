// Dropout keep-mask of the flash kernels, a pure function of (seed, batch * heads + head, row,
// col), so that the forward, the backward and the test-only mask kernel draw the same bits
// whatever their thread layouts.
//
// One Philox call gives 8 16-bit numbers, for the 8 columns that one thread of an SM80 MMA
// accumulator holds in a 32-column group of a row: columns 32 g + 8 t + 2 q + e (t < 4, e < 2)
// for the quad lane q. Counter = (4 g + q, row, bh ^ offset_hi, offset_lo), key = seed.
// Element (t, e) keeps when number 2 t + e >= round(p * 65536).
#pragma once

#include <cstdint>

#include <cute/tensor.hpp>

#include "philox.h"

namespace flash {

struct Dropout {
  uint2 key;
  uint32_t bh_salt;
  uint32_t offset_lo;
  uint32_t threshold;  // 16-bit numbers below it are dropped

  Dropout() = default;

  // seed: device pointer to the (seed, offset) int64 pair drawn from torch's CUDA generator.
  __device__ __forceinline__ Dropout(const int64_t* seed, float p, int bh) {
    const uint64_t s = static_cast<uint64_t>(seed[0]), o = static_cast<uint64_t>(seed[1]);
    key = make_uint2(static_cast<uint32_t>(s), static_cast<uint32_t>(s >> 32));
    bh_salt = static_cast<uint32_t>(bh) ^ static_cast<uint32_t>(o >> 32);
    offset_lo = static_cast<uint32_t>(o);
    threshold = min(65535u, static_cast<uint32_t>(__float2uint_rn(p * 65536.f)));
  }

  // The 8 numbers of a row for the group counter 4 g + q.
  __device__ __forceinline__ uint4 draw(int row, uint32_t group_counter) const {
    return philox(key, make_uint4(group_counter, static_cast<uint32_t>(row), bh_salt, offset_lo));
  }

  __device__ __forceinline__ bool keep(uint4 r, int index) const {
    const uint32_t word = index < 2 ? r.x : index < 4 ? r.y : index < 6 ? r.z : r.w;
    return ((index & 1) ? word >> 16 : word & 0xffffu) >= threshold;
  }

  // The keep bits of columns col and col + 1 (col even) of a row, from one Philox call: for
  // tiles whose thread layout is not the forward's (the backward's).
  __device__ __forceinline__ void keep_pair(int row, int col, bool& keep0, bool& keep1) const {
    const uint4 rnd = draw(row, group_counter(col));
    const int index = index_in_group(col);
    keep0 = keep(rnd, index);
    keep1 = keep(rnd, index + 1);
  }

  static __host__ __device__ __forceinline__ uint32_t group_counter(int col) {
    return static_cast<uint32_t>(col / 32) * 4 + (col / 2) % 4;
  }
  static __host__ __device__ __forceinline__ int index_in_group(int col) {
    return ((col % 32) / 8) * 2 + col % 2;
  }

  // Zeroes the dropped probabilities of a thread's tile, viewed as rows x cols
  // ((2, MMA_M), (2, MMA_N)). row_of(r) is the sequence row of tile row r; n0 (a multiple of
  // 32) is the tile's first column and `quad_lane` the thread's lane % 4.
  template <typename Frag, typename RowOf>
  __device__ __forceinline__ void apply(Frag& p, RowOf row_of, int n0, int quad_lane) const {
    constexpr int kTilesN = decltype(cute::size<1, 1>(p))::value;  // 8-column MMA tiles
    static_assert(kTilesN % 4 == 0, "tile width must be a multiple of 32 columns");
    CUTE_UNROLL
    for (int r = 0; r < cute::size<0>(p); ++r) {
      const int row = row_of(r);
      CUTE_UNROLL
      for (int g = 0; g < kTilesN / 4; ++g) {
        const uint4 rnd = draw(row, static_cast<uint32_t>(n0 / 32 + g) * 4 + quad_lane);
        CUTE_UNROLL
        for (int t = 0; t < 4; ++t) {
          CUTE_UNROLL
          for (int e = 0; e < 2; ++e) {
            if (!keep(rnd, 2 * t + e)) p(r, cute::make_coord(e, 4 * g + t)) = typename Frag::value_type(0.f);
          }
        }
      }
    }
  }
};

}  // namespace flash
