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

// Whether the backward's fp32 dP products, and dQ in the dQ kernel (a long sum over the keys),
// run each k-step's MMAs as two chains (Chains::kSplitPerStep). H100 (when every product but the
// scores did): D = 256 0.84-0.94x -> 0.91-0.96x SDPA efficient; D = 64 and 128 (rolled k loops)
// 5-8% slower, as was the forward.
template <int kHeadDim>
constexpr bool kSplitFp32Chains = kHeadDim >= 256;

// Whether the dK/dV kernel's fp32 products over a tile of queries or keys (dV, dK, dQ; k = 32 at
// D = 256) run one MMA chain through the whole k loop (Chains::kPerProduct, kWhole) instead of
// two fresh fragments per k-step: an eighth of the FADDs. H100, D = 256: 0.95-1.00x -> 1.10-1.19x
// SDPA efficient. The chain's truncations cost precision where the sums are short: at D = 64
// (k = 64) dk and dv reached 0.53 of the float64 rule's tolerance on (130, 17) against 0.20-0.24
// with a fresh fragment per k-step, so the other head dims keep those.
template <int kHeadDim>
constexpr bool kFp32ChainPerProduct = kHeadDim >= 256;

// Whether the fp32 forward kernel holds both of guard.h's bodies, plain and guarded, and runs
// the one the call's scan asks for, rather than the guarded one alone (no scan). H200, S = 4096,
// no bias, in one run against the kernels from before the guard: the guarded body alone ran the
// forward at 0.84-0.89x and the backward at 0.87x of their speed; both bodies the forward at
// 0.95-0.97x at D = 64 but 0.72-0.77x at D = 128 and 256, and the backward at 0.99-1.01x
// (D = 64), 0.91x (D = 128) and 0.94x (D = 256). The backward holds both at every head dim.
template <int kHeadDim>
constexpr bool kFp32FwdBothBodies = kHeadDim <= 64;

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
  // fp32: O += P V (P from shared memory) on 2 x (kNWarps / 2) warps: each warp reads half of
  // V's columns for twice the rows, so that each element of V loaded and split feeds two MMAs
  // (H100, D = 256: 0.93-1.09x -> 1.06-1.27x SDPA efficient). Its rows' rescale and normalizing
  // factors come from the softmax's warps through shared memory. fp16/bf16 keep the scores'
  // warps (D = 256 ran 4-7% slower the other way).
  static constexpr bool kOWithScores = !Base::kIsFloat;
  using TiledMmaO = typename Base::template TiledMma<kOWithScores ? kNWarps : 2,
                                                     kOWithScores ? 1 : kNWarps / 2>;
  using SmemLayoutQ = typename Base::template SmemLayout<kBlockM, kHeadDim>;
  using SmemLayoutKV = typename Base::template SmemLayout<kBlockN, kHeadDim>;
  using SmemLayoutVt = typename Base::template SmemLayoutT<kBlockN, kHeadDim>;
  using SmemLayoutS = typename Base::template SmemLayout<kBlockM, kBlockN>;  // bias, P
  // Q, K and V, bias and P, then the rows' rescale and normalizing factors (fp32) where O's
  // warps are not the scores'.
  static constexpr int kSmemSize =
      (kBlockM * kHeadDim + (kShareKV ? 1 : 2) * kBlockN * kHeadDim +
       2 * kBlockM * kBlockN) * sizeof(Element) + (kOWithScores ? 0 : 2 * kBlockM * sizeof(float));
};

// kStages_: buffers of Q, dO and the bias tile (the dK/dV kernel loads the next query block's
// while it computes with this one when 2, and behind its dQ product when 1, once dV and dK
// are done with this one; the dQ kernel takes 1).
template <typename Element_, int kHeadDim_, int kBlockM_, int kBlockN_, int kWarpsM, int kWarpsN,
          int kStages_ = 1>
struct BwdTraits : ElementTraits<Element_, !kUnrollFp32K<kHeadDim_>> {
  using Element = Element_;
  using Base = ElementTraits<Element_, !kUnrollFp32K<kHeadDim_>>;
  static constexpr int kHeadDim = kHeadDim_;
  static constexpr int kBlockM = kBlockM_;  // query rows of a tile
  static constexpr int kBlockN = kBlockN_;  // keys of a tile
  static constexpr int kNThreads = 32 * kWarpsM * kWarpsN;
  static constexpr int kStages = kStages_;
  static constexpr bool kUnrollK = kUnrollFp32K<kHeadDim>;
  static constexpr Chains kChains =  // dP, and dQ in the dQ kernel
      kSplitFp32Chains<kHeadDim> ? Chains::kSplitPerStep : Chains::kPerStep;
  // dV and dK, dQ in the dK/dV kernel (whose accumulator starts at zero each step).
  static constexpr Chains kChainsKV =
      kFp32ChainPerProduct<kHeadDim> ? Chains::kPerProduct : Chains::kPerStep;
  static constexpr Chains kChainsDq =
      kFp32ChainPerProduct<kHeadDim> ? Chains::kWhole : Chains::kPerStep;
  using TiledMma = typename Base::template TiledMma<kWarpsM, kWarpsN>;
  // fp32 at D = 128: the dK/dV kernel computes S^T and dP^T, (kBlockN, kBlockM), on half of
  // the warps each, at once (16 rows a warp where kBlockN allows), so that each element loaded
  // and split feeds more MMAs; dS^T is made from P and dP^T through shared memory. H100: D = 128
  // 0.97-0.98x -> 1.00-1.07x SDPA efficient; D = 64 1.02-1.06x -> 0.88-0.91x (8 k-steps do not
  // pay for the handover), D = 256 0.91-0.96x -> 0.73-0.80x (the unrolled halves spill 376 B).
  // fp16/bf16 compute both on every warp: their P would lose its precision in shared memory.
  static constexpr bool kSplitScoreWarps = Base::kIsFloat && kHeadDim == 128;
  static constexpr int kHalfWarpsM = std::min(kBlockN / 16, kWarpsM * kWarpsN / 2);
  using TiledMmaHalf =
      typename Base::template TiledMma<kHalfWarpsM, kWarpsM * kWarpsN / 2 / kHalfWarpsM>;
  // The dK/dV kernel's dK and dV, (kBlockN, kHeadDim): every warp takes 32 rows of them (P^T
  // and dS^T come from shared memory), so that each element of Q and dO loaded (and, in fp32,
  // split) feeds two MMAs, not one; but for the unrolled k loops (D = 256), where 32 rows a
  // warp spill (fp32: 136 -> 284 B).
  static constexpr int kKvWarpsM = kUnrollK ? kWarpsM : kBlockN / 32;
  using TiledMmaKV = typename Base::template TiledMma<kKvWarpsM, kWarpsM * kWarpsN / kKvWarpsM>;
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
