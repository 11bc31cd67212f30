// Launch of the mem_eff forward for one (dtype, head dim) (config.h has its tile), with or
// without softcap (softcap.h), and the launch helper the backward shares. Included by the
// generated instantiation files.
#pragma once

#include <cuda_runtime.h>

#include "fwd_kernel.h"
#include "mem_eff.h"

namespace mem_eff {

// Launches `kernel` with `smem` bytes of dynamic shared memory, opting in above 48 KB.
template <typename Kernel, typename Params>
cudaError_t launch(Kernel kernel, dim3 grid, int threads, int smem, const Params& params,
                   cudaStream_t stream) {
  if (smem > 48 * 1024) {
    const cudaError_t err =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    if (err != cudaSuccess) return err;
  }
  kernel<<<grid, threads, smem, stream>>>(params);
  return cudaGetLastError();
}

template <typename Element, int kHeadDim>
cudaError_t run_fwd_(FwdParams& params, cudaStream_t stream) {
  using Traits = FwdConfig<Element, kHeadDim>;
  const dim3 grid((params.seqlen_q + Traits::kBlockM - 1) / Traits::kBlockM, params.heads_q,
                  params.batch);
  return launch(params.softcap > 0.f ? &fwd_kernel<Traits, true> : &fwd_kernel<Traits, false>,
                grid, Traits::kNThreads, Traits::kSmemSize, params, stream);
}

}  // namespace mem_eff
