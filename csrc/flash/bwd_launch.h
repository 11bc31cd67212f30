// Launch of the flash backward for one (dtype, head dim, causal): the tile configuration per
// head dim and the three kernels (rowsum(dO * O), dq/dk/dv, dq conversion). Included by the
// generated instantiation files.
#pragma once

#include <cuda_runtime.h>

#include "bwd_config.h"
#include "bwd_kernel.h"
#include "bwd_prepost.h"
#include "flash_bwd.h"

namespace flash {

template <typename Traits, bool kCausal, bool kDropout>
cudaError_t launch_bwd_main(const BwdParams& params, cudaStream_t stream) {
  auto kernel = &bwd_kernel<Traits, kCausal, kDropout>;
  constexpr int kSmem = Traits::kSmemSize;
  if (kSmem > 48 * 1024) {
    const cudaError_t err =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
    if (err != cudaSuccess) return err;
  }
  const int n_blocks = (params.seqlen_k + Traits::kBlockN - 1) / Traits::kBlockN;
  // Deterministic: dq_splits CTA columns, each with its own dq slice, walk the key blocks.
  const dim3 grid(params.deterministic ? params.dq_splits : n_blocks, params.batch,
                  params.heads_kv);
  kernel<<<grid, Traits::kNThreads, kSmem, stream>>>(params);
  return cudaGetLastError();
}

template <typename Traits, bool kCausal>
cudaError_t launch_bwd(const BwdParams& params, cudaStream_t stream) {
  using Element = typename Traits::Element;
  const int64_t rows = LseRows(params).count();
  const unsigned dsum_blocks = static_cast<unsigned>((rows * 32 + kPrepostThreads - 1) / kPrepostThreads);
  bwd_dsum_kernel<Element><<<dsum_blocks, kPrepostThreads, 0, stream>>>(params);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  err = params.dropout_p > 0.f ? launch_bwd_main<Traits, kCausal, true>(params, stream)
                               : launch_bwd_main<Traits, kCausal, false>(params, stream);
  if (err != cudaSuccess) return err;
  constexpr int kPieces = Traits::kHeadDim / 8;
  const unsigned convert_blocks =
      static_cast<unsigned>((rows * kPieces + kPrepostThreads - 1) / kPrepostThreads);
  bwd_convert_dq_kernel<Element, Traits::kHeadDim>
      <<<convert_blocks, kPrepostThreads, 0, stream>>>(params);
  return cudaGetLastError();
}

template <typename Element, int kHeadDim, bool kCausal>
cudaError_t run_bwd_(BwdParams& params, int max_smem, cudaStream_t stream) {
  using Config = BwdConfig<kHeadDim, Element>;
  if (Config::Main::kSmemSize <= max_smem) {
    return launch_bwd<typename Config::Main, kCausal>(params, stream);
  }
  if constexpr (Config::kHasLean) {
    if (Config::Lean::kSmemSize <= max_smem) {
      return launch_bwd<typename Config::Lean, kCausal>(params, stream);
    }
  }
  return cudaErrorInvalidConfiguration;  // bwd_unsupported said so first
}

}  // namespace flash
