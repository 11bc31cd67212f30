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
// With more units than SMs, the grid's last heads (about kTailWaves waves of units) go as single
// blocks, every such head's last block first, then the one before, down to its first: under a
// causal mask the heaviest first, so that blocks of falling size fill the last wave's gaps
// where the pairs, all of one size, left CTAs idle for up to a whole pair while others ran
// theirs (16k tokens of one head: 10.4 waves of pairs, the last 42% full; H200: causal D = 64
// +1-2.3%); without one, each head's first block, the light one of a sequence that starts
// before a multiple of 192 rows (Sm90FwdTile::lead_rows), comes last (D = 64 S = 1k +2.3%).
// The tail's heads run at once, their K and V read from L2 by blocks that started at different
// times: at most kTailKvBytes of them (half an H100's L2), so that D = 256 at 16k (16 MB a
// head, 5 heads for two waves) does not stream them from memory.
template <int kBlockM, bool kCausal>
struct Sm90FwdTiles {
  static constexpr int kTailWaves = 2;
  static constexpr int64_t kTailKvBytes = int64_t(24) << 20;
  // body_units: the units before the tail (pairs, or single blocks without a causal mask)
  int heads, num_m, per_head, tail_heads, body_units, units;

  __host__ __device__ explicit Sm90FwdTiles(const FwdParams& p)
      : heads(p.heads_q),
        num_m((p.seqlen_q + kBlockM - 1) / kBlockM),
        per_head(kCausal ? (num_m + 1) / 2 : num_m),
        tail_heads(tail_heads_of(p, per_head)),
        body_units((p.batch * p.heads_q - tail_heads) * per_head),
        units(body_units + tail_heads * num_m) {}

  static __host__ __device__ int tail_heads_of(const FwdParams& p, int per_head) {
    const int bh = p.batch * p.heads_q;
    if (bh * per_head <= p.num_sms) return 0;
    const int wanted = (kTailWaves * p.num_sms + per_head - 1) / per_head;
    // K and V a query head (16-bit elements; a kv head's shared by its group)
    const int group = p.heads_kv > 0 && p.heads_q > p.heads_kv ? p.heads_q / p.heads_kv : 1;
    const int64_t head_bytes = int64_t(p.seqlen_k) * (p.head_dim + p.head_dim_v) * 2 / group;
    const int64_t fit = head_bytes > 0 ? kTailKvBytes / head_bytes : wanted;
    const int cap = fit < 1 ? 1 : (fit < wanted ? int(fit) : wanted);
    return cap < bh ? cap : bh;
  }

  // fn(m_block, head, batch) for each tile of this CTA, in order. One call site, so that fn
  // (the whole tile's code) is inlined once.
  template <typename NextUnit, typename Fn>
  __device__ __forceinline__ void for_each(NextUnit&& next_unit, Fn&& fn) const {
    bool second = false;  // causal: the light block of the unit's pair
#pragma unroll 1
    for (int u = blockIdx.x; u < units;) {
      int m_block, bh;
      bool next_second = false;
      if (u < body_units) {
        bh = u / per_head;
        const int j = u % per_head;
        m_block = kCausal && !second ? num_m - 1 - j : j;
        next_second = kCausal && !second && j != num_m - 1 - j;
      } else {  // the tail's single blocks
        const int v = u - body_units;
        bh = body_units / per_head + v % tail_heads;
        m_block = num_m - 1 - v / tail_heads;
      }
      fn(m_block, bh % heads, bh / heads);
      second = next_second;
      if (!second) u = next_unit();
    }
  }
};

}  // namespace flash
