// The tiles of every mem_eff kernel variant: sizes, warps, MMAs and shared memory layouts, per
// (dtype, head dim). Kernel-free, so that the host code can read the shared memory sizes.
#pragma once

#include <algorithm>
#include <type_traits>

#include <cute/tensor.hpp>

#include "traits.h"

namespace mem_eff {

using namespace cute;

// Whether the fp32 GEMMs unroll their k loops (gemm.h's kUnrollK). Measured per head dim: at
// D = 256 unrolled is faster (backward 0.37-0.43x -> 0.47-0.52x SDPA efficient) and spills
// least in the forward; below it, unrolled loops spill (forward at D = 128: 208 B).
template <int kHeadDim>
constexpr bool kUnrollFp32K = kHeadDim >= 256;

template <typename Element_, int kHeadDim_, int kBlockM_, int kBlockN_>
struct FwdTraits : ElementTraits<Element_> {
  using Element = Element_;
  using Base = ElementTraits<Element_>;
  static constexpr int kHeadDim = kHeadDim_;
  static constexpr int kBlockM = kBlockM_;
  static constexpr int kBlockN = kBlockN_;
  static constexpr int kNWarps = kBlockM / 16;  // warps split the rows (the softmax's quads)
  static constexpr int kNThreads = 32 * kNWarps;
  static constexpr bool kUnrollK = kUnrollFp32K<kHeadDim>;
  using TiledMma = typename Base::template TiledMma<kNWarps, 1>;
  using SmemLayoutQ = typename Base::template SmemLayout<kBlockM, kHeadDim>;
  using SmemLayoutKV = typename Base::template SmemLayout<kBlockN, kHeadDim>;
  using SmemLayoutVt = typename Base::template SmemLayoutT<kBlockN, kHeadDim>;
  using SmemLayoutS = typename Base::template SmemLayout<kBlockM, kBlockN>;  // bias, P
  static constexpr int kSmemSize =
      (kBlockM * kHeadDim + 2 * kBlockN * kHeadDim + 2 * kBlockM * kBlockN) * sizeof(Element);
};

template <typename Element_, int kHeadDim_, int kBlockM_, int kBlockN_, int kWarpsM, int kWarpsN>
struct BwdTraits : ElementTraits<Element_> {
  using Element = Element_;
  using Base = ElementTraits<Element_>;
  static constexpr int kHeadDim = kHeadDim_;
  static constexpr int kBlockM = kBlockM_;  // query rows of a tile
  static constexpr int kBlockN = kBlockN_;  // keys of a tile
  static constexpr int kNThreads = 32 * kWarpsM * kWarpsN;
  static constexpr bool kUnrollK = kUnrollFp32K<kHeadDim>;
  using TiledMma = typename Base::template TiledMma<kWarpsM, kWarpsN>;
  using SmemLayoutQ = typename Base::template SmemLayout<kBlockM, kHeadDim>;    // Q, dO
  using SmemLayoutQt = typename Base::template SmemLayoutT<kBlockM, kHeadDim>;  // (kHeadDim, kBlockM)
  using SmemLayoutK = typename Base::template SmemLayout<kBlockN, kHeadDim>;    // K, V
  using SmemLayoutKt = typename Base::template SmemLayoutT<kBlockN, kHeadDim>;  // (kHeadDim, kBlockN)
  using SmemLayoutS = typename Base::template SmemLayout<kBlockM, kBlockN>;     // bias, dS
  using SmemLayoutSt = typename Base::template SmemLayout<kBlockN, kBlockM>;    // P^T, dS^T
  // Q, dO, K, V, the bias and two score tiles, then lse and D of the query rows (fp32).
  static constexpr int kSmemSize =
      (2 * kBlockM * kHeadDim + 2 * kBlockN * kHeadDim + 3 * kBlockM * kBlockN) * sizeof(Element) +
      2 * kBlockM * sizeof(float);
};

// 64 query rows (4 warps) against 64 keys; fp32 takes 32 keys at head dims 128 (80 KB of
// shared memory instead of 128: two CTAs per SM) and 256 (to fit).
template <typename Element, int kHeadDim>
using FwdConfig =
    FwdTraits<Element, kHeadDim, 64, std::is_same_v<Element, float> && kHeadDim >= 128 ? 32 : 64>;

// Tiles (query rows, keys, warps along M and N) of the two kernels. The dQ kernel's
// accumulator is (rows, head dim), the dK/dV kernel's two are (keys, head dim); fp32 tiles are
// smaller for shared memory (each fits the 164 KB of an A100).
template <typename Element, int kHeadDim, bool kIsFloat = std::is_same_v<Element, float>>
struct BwdConfig {
  using Dq = std::conditional_t<
      kHeadDim == 64 || (!kIsFloat && kHeadDim == 128), BwdTraits<Element, kHeadDim, 64, 64, 4, 1>,
      std::conditional_t<kIsFloat && kHeadDim == 128, BwdTraits<Element, kHeadDim, 64, 32, 4, 1>,
                         BwdTraits<Element, kHeadDim, 32, kIsFloat ? 32 : 64, 2, 2>>>;
  using DkDv = std::conditional_t<
      kHeadDim == 64 || (!kIsFloat && kHeadDim == 128), BwdTraits<Element, kHeadDim, 64, 64, 4, 2>,
      std::conditional_t<!kIsFloat || kHeadDim == 128, BwdTraits<Element, kHeadDim, 32, 64, 4, 2>,
                         BwdTraits<Element, kHeadDim, 32, 32, 2, 4>>>;
};

// Shared memory per block of the variant's largest kernel.
template <typename Element, int kHeadDim>
constexpr int smem_size() {
  using Config = BwdConfig<Element, kHeadDim>;
  return std::max({FwdConfig<Element, kHeadDim>::kSmemSize, Config::Dq::kSmemSize,
                   Config::DkDv::kSmemSize});
}

}  // namespace mem_eff
