// The tiles of every mem_eff kernel variant: sizes, warps, MMAs and shared memory layouts, per
// (dtype, head dim). Kernel-free, so that the host code can read the shared memory sizes.
#pragma once

#include <algorithm>
#include <type_traits>

#include <cute/tensor.hpp>

#include "traits.h"

namespace mem_eff {

using namespace cute;

// Whether the backward's fp32 GEMMs unroll their k loops (gemm.h's kUnrollK). Measured per head
// dim: at D = 256 unrolled is faster (backward 0.37-0.43x -> 0.47-0.52x SDPA efficient); below
// it, unrolled loops spill. The forward's stay rolled: at D = 256, with two CTAs per SM,
// unrolled was 0.64-0.97x SDPA efficient against 0.88-1.07x rolled (H100).
template <int kHeadDim>
constexpr bool kUnrollFp32K = kHeadDim >= 256;

// Whether the backward's fp32 products other than the recomputed scores (dP, dV, dK, dQ) run
// each k-step's MMAs as two chains (gemm.h's kSplitChains). H100: D = 256 0.84-0.94x ->
// 0.91-0.96x SDPA efficient; D = 64 and 128 (rolled k loops) 5-8% slower, as was the forward.
template <int kHeadDim>
constexpr bool kSplitFp32Chains = kHeadDim >= 256;

// kShareKV_: K and V of a key block take turns in one shared memory buffer (V loads once S is
// computed, the next K once P V is), so that two CTAs fit an SM where K and V apart would not.
template <typename Element_, int kHeadDim_, int kBlockM_, int kBlockN_, bool kShareKV_ = false>
struct FwdTraits : ElementTraits<Element_> {
  using Element = Element_;
  using Base = ElementTraits<Element_>;
  static constexpr int kHeadDim = kHeadDim_;
  static constexpr int kBlockM = kBlockM_;
  static constexpr int kBlockN = kBlockN_;
  static constexpr bool kShareKV = kShareKV_;
  static constexpr int kNWarps = kBlockM / 16;  // warps split the rows (the softmax's quads)
  static constexpr int kNThreads = 32 * kNWarps;
  using TiledMma = typename Base::template TiledMma<kNWarps, 1>;
  using SmemLayoutQ = typename Base::template SmemLayout<kBlockM, kHeadDim>;
  using SmemLayoutKV = typename Base::template SmemLayout<kBlockN, kHeadDim>;
  using SmemLayoutVt = typename Base::template SmemLayoutT<kBlockN, kHeadDim>;
  using SmemLayoutS = typename Base::template SmemLayout<kBlockM, kBlockN>;  // bias, P
  static constexpr int kSmemSize =
      (kBlockM * kHeadDim + (kShareKV ? 1 : 2) * kBlockN * kHeadDim +
       2 * kBlockM * kBlockN) * sizeof(Element);
};

// kStages_: buffers of Q, dO and the bias tile (the dK/dV kernel loads the next query block's
// while it computes with this one when 2; the dQ kernel takes 1).
template <typename Element_, int kHeadDim_, int kBlockM_, int kBlockN_, int kWarpsM, int kWarpsN,
          int kStages_ = 1>
struct BwdTraits : ElementTraits<Element_> {
  using Element = Element_;
  using Base = ElementTraits<Element_>;
  static constexpr int kHeadDim = kHeadDim_;
  static constexpr int kBlockM = kBlockM_;  // query rows of a tile
  static constexpr int kBlockN = kBlockN_;  // keys of a tile
  static constexpr int kNThreads = 32 * kWarpsM * kWarpsN;
  static constexpr int kStages = kStages_;
  static constexpr bool kUnrollK = kUnrollFp32K<kHeadDim>;
  static constexpr bool kSplitChains = kSplitFp32Chains<kHeadDim>;
  using TiledMma = typename Base::template TiledMma<kWarpsM, kWarpsN>;
  // The dK/dV kernel's dQ = dS K, (kBlockM, kHeadDim): every warp takes 16 rows of it or more.
  static constexpr int kDqWarpsM = std::min(kBlockM / 16, kWarpsM * kWarpsN);
  using TiledMmaDq = typename Base::template TiledMma<kDqWarpsM, kWarpsM * kWarpsN / kDqWarpsM>;
  using SmemLayoutQ = typename Base::template SmemLayout<kBlockM, kHeadDim>;    // Q, dO
  using SmemLayoutQt = typename Base::template SmemLayoutT<kBlockM, kHeadDim>;  // (kHeadDim, kBlockM)
  using SmemLayoutK = typename Base::template SmemLayout<kBlockN, kHeadDim>;    // K, V
  using SmemLayoutKt = typename Base::template SmemLayoutT<kBlockN, kHeadDim>;  // (kHeadDim, kBlockN)
  using SmemLayoutS = typename Base::template SmemLayout<kBlockM, kBlockN>;     // bias, dS
  using SmemLayoutSt = typename Base::template SmemLayout<kBlockN, kBlockM>;    // P^T, dS^T
  using SmemLayoutStT = typename Base::template SmemLayoutT<kBlockN, kBlockM>;  // dS^T read as dS
  // kStages of Q, dO and the bias, K, V and two score tiles, then lse and D of the query rows
  // (fp32).
  static constexpr int kSmemSize =
      (2 * kStages * kBlockM * kHeadDim + 2 * kBlockN * kHeadDim +
       (kStages + 2) * kBlockM * kBlockN) * sizeof(Element) +
      2 * kBlockM * sizeof(float);
};

// 64 query rows (4 warps) against 64 keys. fp32 K and V share a buffer at head dims 128 and 256
// (two CTAs per SM on an H100, 8 warps, where K and V apart would leave room for one), with 64
// keys at head dim 128 (96 KB) and 32 at 256 (112 KB).
template <typename Element, int kHeadDim, bool kIsFloat = std::is_same_v<Element, float>>
using FwdConfig = FwdTraits<Element, kHeadDim, 64, kIsFloat && kHeadDim == 256 ? 32 : 64,
                            kIsFloat && kHeadDim >= 128>;

// Tiles (query rows, keys, warps along M and N) of the two kernels. The dQ kernel's
// accumulator is (rows, head dim), the dK/dV kernel's two are (keys, head dim); fp32 tiles are
// smaller for shared memory (each fits the 164 KB of an A100).
template <typename Element, int kHeadDim, bool kIsFloat = std::is_same_v<Element, float>>
struct BwdConfig {
  using Dq = std::conditional_t<
      kHeadDim == 64 || (!kIsFloat && kHeadDim == 128), BwdTraits<Element, kHeadDim, 64, 64, 4, 1>,
      std::conditional_t<kIsFloat && kHeadDim == 128, BwdTraits<Element, kHeadDim, 64, 32, 4, 1>,
                         BwdTraits<Element, kHeadDim, 32, kIsFloat ? 32 : 64, 2, 2>>>;
  template <int kStages>
  using DkDvStaged = std::conditional_t<
      !kIsFloat && kHeadDim == 64, BwdTraits<Element, kHeadDim, 64, 128, 4, 2, kStages>,
      std::conditional_t<
      kHeadDim == 64 || (!kIsFloat && kHeadDim == 128), BwdTraits<Element, kHeadDim, 64, 64, 4, 2, kStages>,
      std::conditional_t<!kIsFloat || kHeadDim == 128, BwdTraits<Element, kHeadDim, 32, 64, 4, 2, kStages>,
                         BwdTraits<Element, kHeadDim, 32, 32, 2, 4, kStages>>>>;
  // Two stages where they fit the 163 KB of shared memory per block of an A100 (all but fp32
  // at head dim 256).
  using DkDv = std::conditional_t<DkDvStaged<2>::kSmemSize <= 163 * 1024, DkDvStaged<2>,
                                  DkDvStaged<1>>;
};

// Shared memory per block of the variant's largest kernel.
template <typename Element, int kHeadDim>
constexpr int smem_size() {
  using Config = BwdConfig<Element, kHeadDim>;
  return std::max({FwdConfig<Element, kHeadDim>::kSmemSize, Config::Dq::kSmemSize,
                   Config::DkDv::kSmemSize});
}

}  // namespace mem_eff
