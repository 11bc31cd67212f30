// Launch of the flash backward for one (dtype, head dim, causal): the tile configuration per
// head dim, the Hopper kernel where it serves the call, and the three kernels (rowsum(dO * O),
// dq/dk/dv, dq conversion). Included by the
// generated instantiation files.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "bwd_config.h"
#include "bwd_kernel.h"
#include "bwd_sm90_kernel.h"
#include "bwd_prepost.h"
#include "flash_bwd.h"

namespace flash {

// The Hopper kernel's tiles per head dim, where it has one: Sm90BwdTraits<D, kBlockM>.
template <int kHeadDim, typename Element>
using Sm90BwdConfig = std::conditional_t<
    kHeadDim == 64, Sm90BwdTraits<64, 64, Element>,
    std::conditional_t<kHeadDim == 128, Sm90BwdTraits<128, 64, Element>,
                       std::conditional_t<kHeadDim == 256, Sm90BwdTraits<256, 64, Element>,
                                          void>>>;

// Calls whose v head dim differs from q's and k's (DeepSeek's 192 / 128): a Hopper kernel for
// these (kernel head dim, kernel v head dim) pairs and nothing else: no mma.sync kernel, no
// dropout (mem_eff and the CPU backend take any pair). The kSplitD layout of D = 256 (64 keys,
// 64 queries a step) with V, dO and dV at 128: 201 KB of shared memory.
template <int kHeadDim, int kHeadDimV, typename Element>
using Sm90BwdDvConfig = std::conditional_t<kHeadDim == 192 && kHeadDimV == 128,
                                           Sm90BwdTraits<192, 64, Element, 128>, void>;

// `causal`: the key blocks' work falls along the sequence (BwdTile::key_block_major).
template <typename Kernel, typename... Extra>
cudaError_t launch_bwd_main(Kernel kernel, int threads, int smem, int block_n, bool causal,
                            const BwdParams& params, cudaStream_t stream, const Extra&... extra) {
  if (smem > 48 * 1024) {
    const cudaError_t err =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    if (err != cudaSuccess) return err;
  }
  const int n_blocks = (params.seqlen_k + block_n - 1) / block_n;
  BwdParams p = params;
  const int64_t ctas = int64_t{n_blocks} * p.batch * p.heads_kv;
  const bool slices = p.deterministic && p.dq_semaphore == nullptr;
  p.key_block_major = !slices && causal && ctas <= 4 * int64_t{p.num_sms};
  p.rising_walk = p.dq_semaphore != nullptr && !p.key_block_major &&
                  (causal || p.window_left >= 0 || p.window_right >= 0);
  // Paired only where a head has at most 32 key blocks: at 1k-4k a CTA's start and end are a
  // share of its walk (+1-1.3% measured), at 16k the unpaired grid of mixed lengths ran 1-2%
  // faster (results/bwd_paired_key_blocks_ab_2026-11-28_h200.md).
  p.paired_key_blocks = !slices && !p.key_block_major && p.dq_semaphore == nullptr && causal &&
                        p.window_left < 0 && n_blocks <= 32;
  // BwdTile's grids.
  const int head_blocks = p.paired_key_blocks ? (n_blocks + 1) / 2 : n_blocks;
  const dim3 grid = slices                ? dim3(p.dq_splits, p.batch, p.heads_kv)
                    : p.key_block_major ? dim3(static_cast<unsigned>(ctas))
                                        : dim3(head_blocks, p.batch, p.heads_kv);
  kernel<<<grid, threads, smem, stream>>>(p, extra...);
  return cudaGetLastError();
}

// rowsum(dO * O), the main kernel (main()), the dq conversion.
template <typename Element, int kHeadDim, typename Main>
cudaError_t launch_bwd(const BwdParams& params, cudaStream_t stream, Main main) {
  cudaError_t err = launch_bwd_dsum<Element, kHeadDim>(params, stream);
  if (err != cudaSuccess) return err;
  err = main();
  if (err != cudaSuccess) return err;
  return launch_bwd_convert_dq<Element, kHeadDim>(params, stream);
}

template <typename Traits, bool kCausal>
cudaError_t launch_bwd_sm80(const BwdParams& params, cudaStream_t stream) {
  auto launch = [&](auto kernel) {
    return launch_bwd_main(kernel, Traits::kNThreads, Traits::kSmemSize, Traits::kBlockN, kCausal,
                           params, stream);
  };
  return launch_bwd<typename Traits::Element, Traits::kHeadDim>(params, stream, [&] {
    return params.dropout_p > 0.f ? launch(&bwd_kernel<Traits, kCausal, true>)
                                  : launch(&bwd_kernel<Traits, kCausal, false>);
  });
}

// Whether the Hopper kernel of Sm90 runs the call (its binary on this device, no dropout, its
// shared memory, TMA-loadable q and dout).
template <typename Sm90, bool kCausal>
bool sm90_bwd_runs(const BwdParams& params, int max_smem) {
  static const bool sm90 = has_sm90_binary(&bwd_sm90_kernel<Sm90, kCausal>);
  return sm90 && params.hopper_kernels && params.dropout_p == 0.f &&
         Sm90::kSmemSize <= max_smem && sm90_bwd_fits<Sm90>(params);
}

// The three kernels with the Hopper one in the middle. Query blocks from the last down under
// causal masks (D = 256 +2-4% on the H200, the other rows even) and ordered dq additions
// (KeyBlockSteps says why).
template <typename Sm90, bool kCausal>
cudaError_t launch_bwd_sm90(const BwdParams& params, cudaStream_t stream) {
  BwdParams p = params;
  p.walk_down = kCausal || p.dq_semaphore != nullptr;
  return launch_bwd<typename Sm90::Element, Sm90::kHeadDim>(p, stream, [&] {
    return launch_bwd_main(&bwd_sm90_kernel<Sm90, kCausal>, Sm90::kNThreads, Sm90::kSmemSize,
                           Sm90::kBlockN, kCausal, p, stream, make_sm90_bwd_tma<Sm90>(p));
  });
}

template <typename Element, int kHeadDim, bool kCausal>
bool bwd_uses_sm90_(const BwdParams& params, int max_smem) {
  using Sm90 = Sm90BwdConfig<kHeadDim, Element>;
  if constexpr (std::is_void_v<Sm90>) {
    return false;
  } else {
    return sm90_bwd_runs<Sm90, kCausal>(params, max_smem);
  }
}

template <typename Element, int kHeadDim, int kHeadDimV, bool kCausal>
bool bwd_dv_runs_(const BwdParams& params, int max_smem) {
  using Sm90 = Sm90BwdDvConfig<kHeadDim, kHeadDimV, Element>;
  static_assert(!std::is_void_v<Sm90>, "no kernel for this (head dim, v head dim)");
  return sm90_bwd_runs<Sm90, kCausal>(params, max_smem);
}

template <typename Element, int kHeadDim, int kHeadDimV, bool kCausal>
cudaError_t run_bwd_dv_(BwdParams& params, int max_smem, cudaStream_t stream) {
  // Deterministic calls need the counters that order the dq additions (bwd_workspace).
  if (!bwd_dv_runs_<Element, kHeadDim, kHeadDimV, kCausal>(params, max_smem) ||
      (params.deterministic && params.dq_semaphore == nullptr)) {
    return cudaErrorNotSupported;
  }
  return launch_bwd_sm90<Sm90BwdDvConfig<kHeadDim, kHeadDimV, Element>, kCausal>(params, stream);
}

template <typename Element, int kHeadDim, bool kCausal>
cudaError_t run_bwd_(BwdParams& params, int max_smem, cudaStream_t stream) {
  using Sm90 = Sm90BwdConfig<kHeadDim, Element>;
  if constexpr (!std::is_void_v<Sm90>) {
    // Deterministic calls need the counters that order the dq additions (bwd_workspace).
    if (bwd_uses_sm90_<Element, kHeadDim, kCausal>(params, max_smem) &&
        (!params.deterministic || params.dq_semaphore != nullptr)) {
      return launch_bwd_sm90<Sm90, kCausal>(params, stream);
    }
  }
  using Config = BwdConfig<kHeadDim, Element>;
  if (Config::Main::kSmemSize <= max_smem) {
    return launch_bwd_sm80<typename Config::Main, kCausal>(params, stream);
  }
  if constexpr (Config::kHasLean) {
    if (Config::Lean::kSmemSize <= max_smem) {
      return launch_bwd_sm80<typename Config::Lean, kCausal>(params, stream);
    }
  }
  return cudaErrorInvalidConfiguration;  // bwd_unsupported said so first
}

}  // namespace flash
