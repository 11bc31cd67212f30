// Launch of the flash forward for one (dtype, head dim, causal): the tile configuration per
// head dim, the grid, and the split-KV path. Included by the generated instantiation files.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <type_traits>

#include "flash_fwd.h"
#include "fwd_combine.h"
#include "fwd_kernel.h"
#include "fwd_sm90_kernel.h"
#include "kernel_traits.h"
#include "sm90.h"

namespace flash {

// Tiles per head dim: (kBlockM, kBlockN, warps) for the plain, dropout and split-KV kernels.
// The plain and dropout choices are FlashAttention-2's for sm80/sm90 parts (dropout needs fewer
// registers per row); split-KV serves few query rows, so it trades rows for longer key blocks.
template <int kHeadDim, typename Element>
struct FwdConfig;

#define FLASH_FWD_CONFIG(D, PM, PN, PW, DM, DN, DW, SM, SN, SW)       \
  template <typename Element>                                         \
  struct FwdConfig<D, Element> {                                      \
    using Plain = FwdTraits<D, PM, PN, PW, Element>;                  \
    using Dropout = FwdTraits<D, DM, DN, DW, Element>;                \
    using Split = FwdTraits<D, SM, SN, SW, Element>;                  \
  };
FLASH_FWD_CONFIG(32, 128, 128, 4, 128, 128, 4, 64, 256, 4)
FLASH_FWD_CONFIG(64, 128, 128, 4, 128, 64, 4, 64, 256, 4)
FLASH_FWD_CONFIG(96, 128, 64, 4, 128, 64, 4, 64, 128, 4)
FLASH_FWD_CONFIG(128, 128, 64, 4, 128, 32, 4, 64, 128, 4)
FLASH_FWD_CONFIG(160, 128, 32, 4, 128, 32, 4, 64, 64, 4)
FLASH_FWD_CONFIG(192, 128, 64, 8, 64, 64, 4, 64, 64, 4)
FLASH_FWD_CONFIG(224, 128, 64, 8, 64, 64, 4, 64, 64, 4)
FLASH_FWD_CONFIG(256, 128, 64, 8, 64, 64, 4, 64, 64, 4)
#undef FLASH_FWD_CONFIG

// The Hopper kernel's tiles per head dim, where it has one: Sm90FwdTraits<D, kBlockN, stages>.
// D = 64: three consumer warpgroups (192-row tiles), so that two run their softmax while the
// third's products run.
template <int kHeadDim, typename Element, bool kCausal>
using Sm90FwdConfig = std::conditional_t<
    kHeadDim == 64, Sm90FwdTraits<64, 96, 2, Element, 64, 3>,
    std::conditional_t<kHeadDim == 128, Sm90FwdTraits<128, 128, 2, Element>,
                       std::conditional_t<kHeadDim == 256, Sm90FwdTraits<256, 64, 2, Element>,
                                          void>>>;

// D = 64 without a causal mask, dense calls whose keys pad to fewer 128-key blocks than 96-key
// ones (sm90_fwd_short_keys): 128-key blocks, P through shared memory so that they fit the three
// consumers' registers (with P in registers ptxas spilled 112 B in the step). A 128-key step
// costs ~2% more a key than a 96-key one (H200, 4k and 16k), but S = 1k pads to 1056 keys in
// 96-key blocks, its last block a third empty, and 512 to 576 (H200: +1.8-2.4% at 1k, +8% at
// 512, +1.5% at 2k; benchmarks/NOTES.md).
template <int kHeadDim, typename Element, bool kCausal>
using Sm90FwdShortKeysConfig =
    std::conditional_t<kHeadDim == 64 && !kCausal, Sm90FwdTraits<64, 128, 2, Element, 64, 3, true>,
                       void>;

// Whether the keys of a dense call pad to at least 2% fewer in kShortN-key blocks than in
// kN-key ones (the 2% that a wider block's step costs more a key).
template <int kN, int kShortN>
bool sm90_fwd_short_keys(const FwdParams& p) {
  if (p.cu_seqlens_k != nullptr) return false;
  const int64_t padded = (int64_t(p.seqlen_k) + kN - 1) / kN * kN;
  const int64_t padded_short = (int64_t(p.seqlen_k) + kShortN - 1) / kShortN * kShortN;
  return padded_short * 50 < padded * 49;
}

// Calls whose v head dim differs from q's and k's (DeepSeek's 192 / 128): a Hopper kernel for
// these (kernel head dim, kernel v head dim) pairs and nothing else: no mma.sync kernel, no
// dropout, no split-KV (mem_eff and the CPU backend take any pair). kBlockN = 96: Q, two
// stages of K and V and O's staging take 203 of the 227 KB of shared memory (128 would not
// fit; 112 is a wgmma N that CuTe's selector takes only with its extended shapes enabled).
template <int kHeadDim, int kHeadDimV, typename Element>
using Sm90FwdDvConfig = std::conditional_t<kHeadDim == 192 && kHeadDimV == 128,
                                           Sm90FwdTraits<192, 96, 2, Element, 128>, void>;

template <typename Traits, bool kCausal, bool kDropout, bool kSplit>
cudaError_t launch_fwd(const FwdParams& params, cudaStream_t stream) {
  auto kernel = &fwd_kernel<Traits, kCausal, kDropout, kSplit>;
  constexpr int kSmem = Traits::kSmemSize;
  if (kSmem > 48 * 1024) {
    const cudaError_t err =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
    if (err != cudaSuccess) return err;
  }
  const dim3 grid((params.seqlen_q + Traits::kBlockM - 1) / Traits::kBlockM, params.heads_q,
                  params.batch * (kSplit ? params.num_splits : 1));
  kernel<<<grid, Traits::kNThreads, kSmem, stream>>>(params);
  return cudaGetLastError();
}

template <typename Traits, bool kCausal>
cudaError_t launch_fwd_sm90(const FwdParams& params, cudaStream_t stream) {
  auto kernel = &fwd_sm90_kernel<Traits, kCausal>;
  constexpr int kSmem = Traits::kSmemSize;
  const cudaError_t err =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  if (err != cudaSuccess) return err;
  // Persistent: one CTA per SM (or per unit of work, when there are fewer).
  const int units = Sm90FwdTiles<Traits::kBlockM, kCausal>(params).units;
  const dim3 grid(std::min(units, params.num_sms));
  kernel<<<grid, Traits::kNThreads, kSmem, stream>>>(params, make_sm90_fwd_tma<Traits>(params));
  return cudaGetLastError();
}

template <typename Element, int kHeadDim, bool kCausal>
cudaError_t run_fwd_(FwdParams& params, cudaStream_t stream) {
  using Config = FwdConfig<kHeadDim, Element>;
  if (params.num_splits > 1) {
    const cudaError_t err = launch_fwd<typename Config::Split, kCausal, false, true>(params, stream);
    if (err != cudaSuccess) return err;
    return launch_fwd_combine<Element, kHeadDim>(params, stream);
  }
  if (params.dropout_p > 0.f) {
    return launch_fwd<typename Config::Dropout, kCausal, true, false>(params, stream);
  }
  using Sm90 = Sm90FwdConfig<kHeadDim, Element, kCausal>;
  if constexpr (!std::is_void_v<Sm90>) {
    static const bool sm90 = has_sm90_binary(&fwd_sm90_kernel<Sm90, kCausal>);
    if (sm90 && params.hopper_kernels && sm90_fwd_fits<Sm90>(params)) {
      using Short = Sm90FwdShortKeysConfig<kHeadDim, Element, kCausal>;
      if constexpr (!std::is_void_v<Short>) {
        if (sm90_fwd_short_keys<Sm90::kBlockN, Short::kBlockN>(params)) {
          return launch_fwd_sm90<Short, kCausal>(params, stream);
        }
      }
      return launch_fwd_sm90<Sm90, kCausal>(params, stream);
    }
  }
  return launch_fwd<typename Config::Plain, kCausal, false, false>(params, stream);
}

template <typename Element, int kHeadDim, int kHeadDimV, bool kCausal>
bool fwd_dv_runs_(const FwdParams& params) {
  using Sm90 = Sm90FwdDvConfig<kHeadDim, kHeadDimV, Element>;
  static_assert(!std::is_void_v<Sm90>, "no kernel for this (head dim, v head dim)");
  static const bool sm90 = has_sm90_binary(&fwd_sm90_kernel<Sm90, kCausal>);
  return sm90 && params.hopper_kernels && params.dropout_p == 0.f && params.num_splits == 1 &&
         sm90_fwd_fits<Sm90>(params);
}

template <typename Element, int kHeadDim, int kHeadDimV, bool kCausal>
cudaError_t run_fwd_dv_(FwdParams& params, cudaStream_t stream) {
  if (!fwd_dv_runs_<Element, kHeadDim, kHeadDimV, kCausal>(params)) return cudaErrorNotSupported;
  return launch_fwd_sm90<Sm90FwdDvConfig<kHeadDim, kHeadDimV, Element>, kCausal>(params, stream);
}

}  // namespace flash
