// Tile configurations of the flash backward per head dim, FlashAttention-2's choices for
// A100/H100-class shared memory (the seed launch template): (kBlockM, kBlockN, warps, warps
// along M of S/dP, along N of dK/dV, along M of dQ). Main double-buffers Q; where that does not
// fit an A100's 163 KB (head dim 256: 176 KB), Lean is the same tile with one Q buffer.
// Parts with ~100 KB (sm86/sm89) fit none of these: bwd_unsupported says so.
#pragma once

#include "kernel_traits.h"

namespace flash {

template <int kHeadDim, typename Element>
struct BwdConfig;

#define FLASH_BWD_CONFIG(D, M, N, W, WS, WK, WQ, LEAN)                       \
  template <typename Element>                                                \
  struct BwdConfig<D, Element> {                                             \
    using Main = BwdTraits<D, M, N, W, WS, WK, WQ, true, Element>;           \
    using Lean = BwdTraits<D, M, N, W, WS, WK, WQ, false, Element>;          \
    static constexpr bool kHasLean = LEAN;                                   \
  };
FLASH_BWD_CONFIG(32, 128, 128, 8, 4, 4, 4, false)   // 104 KB
FLASH_BWD_CONFIG(64, 128, 128, 8, 4, 4, 4, false)   // 144 KB
FLASH_BWD_CONFIG(96, 64, 128, 8, 2, 4, 4, false)    // 116 KB
FLASH_BWD_CONFIG(128, 64, 128, 8, 2, 4, 2, false)   // 144 KB
FLASH_BWD_CONFIG(160, 64, 64, 8, 4, 4, 4, false)    // 116 KB
FLASH_BWD_CONFIG(192, 64, 64, 8, 4, 2, 2, false)    // 136 KB
FLASH_BWD_CONFIG(224, 64, 64, 8, 4, 4, 4, false)    // 156 KB
FLASH_BWD_CONFIG(256, 64, 64, 8, 4, 2, 2, true)     // 176 KB; lean 144 KB
#undef FLASH_BWD_CONFIG

// The shared memory the smallest configuration of a head dim needs.
template <int kHeadDim, typename Element>
constexpr int bwd_min_smem() {
  using Config = BwdConfig<kHeadDim, Element>;
  return Config::kHasLean ? Config::Lean::kSmemSize : Config::Main::kSmemSize;
}

}  // namespace flash
