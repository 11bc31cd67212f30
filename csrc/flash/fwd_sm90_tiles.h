// The persistent Hopper forward's tiles and their split over its CTAs (fwd_sm90_kernel.h; the
// host counts them too: fwd_wants_tile_counter).
#pragma once

#include <cstdint>

#include "params.h"

namespace flash {

// Query rows of the smallest tile (two consumer warpgroups; three take 192): the host counts
// units with it where the config is not at hand (fwd_wants_tile_counter), which no config
// exceeds.
inline constexpr int kSm90FwdBlockM = 128;

// The tiles (query block, head, batch) of a call and their split over the persistent CTAs, the
// same sequence for every warp of a CTA. A unit is one query block, or, with a causal mask, the
// pair (num_m - 1 - j, j) of one head, whose key-block counts add up to about the same for
// every j, so that the CTAs' shares balance (single causal blocks gave some CTAs 1.4x the work
// of others at 8 blocks a head). Consecutive units are blocks of one head: the CTAs running at
// once share its K and V in L2. A CTA's first unit is blockIdx.x; the next ones come from
// next_unit(): blockIdx.x + k gridDim.x (static), or taken from params.tile_counter (dynamic),
// so that CTAs that start late, their SMs held by another stream's kernel (NCCL's beside ring
// attention, FSDP's), take fewer units instead of ending the grid late.
template <int kBlockM, bool kCausal>
struct Sm90FwdTiles {
  int heads, num_m, per_head, units;

  __host__ __device__ explicit Sm90FwdTiles(const FwdParams& p)
      : heads(p.heads_q),
        num_m((p.seqlen_q + kBlockM - 1) / kBlockM),
        per_head(kCausal ? (num_m + 1) / 2 : num_m),
        units(p.batch * p.heads_q * per_head) {}

  // fn(m_block, head, batch) for each tile of this CTA, in order. One call site, so that fn
  // (the whole tile's code) is inlined once.
  template <typename NextUnit, typename Fn>
  __device__ __forceinline__ void for_each(NextUnit&& next_unit, Fn&& fn) const {
    bool second = false;  // causal: the light block of the unit's pair
#pragma unroll 1
    for (int u = blockIdx.x; u < units;) {
      const int bh = u / per_head, j = u % per_head;
      fn(kCausal && !second ? num_m - 1 - j : j, bh % heads, bh / heads);
      second = kCausal && !second && j != num_m - 1 - j;
      if (!second) u = next_unit();
    }
  }
};

}  // namespace flash
