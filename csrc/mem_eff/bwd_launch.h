// Launch of the mem_eff backward for one (dtype, head dim): D = rowsum(dO * O), then, with or
// without softcap (softcap.h), the fused dK/dV/dQ kernel and flash's dq conversion, or
// (two_kernel_backward) the dQ and bias gradient kernel and the dK/dV kernel. Included by the
// generated instantiation files.
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "../flash/bwd_prepost.h"
#include "bwd_kernel.h"
#include "fwd_launch.h"
#include "mem_eff.h"

namespace mem_eff {

template <typename Element, int kHeadDim, bool kSoftcap>
cudaError_t run_bwd_kernels(BwdParams& params, cudaStream_t stream) {
  using Config = BwdConfig<Element, kHeadDim>;
  using Dq = typename Config::Dq;
  using DkDv = typename Config::DkDv;
  const dim3 dkdv_grid((params.seqlen_k + DkDv::kBlockN - 1) / DkDv::kBlockN, params.heads_kv,
                       params.batch);
  if (!two_kernel_backward(params)) {
    const cudaError_t err = launch(&dkdv_kernel<DkDv, true, kSoftcap>, dkdv_grid,
                                   DkDv::kNThreads, DkDv::kSmemSize, params, stream);
    if (err != cudaSuccess) return err;
    return flash::launch_bwd_convert_dq<Element, kHeadDim>(params, stream);
  }
  const dim3 dq_grid((params.seqlen_q + Dq::kBlockM - 1) / Dq::kBlockM, params.heads_q, params.batch);
  const cudaError_t err = launch(&dq_kernel<Dq, kSoftcap>, dq_grid, Dq::kNThreads,
                                 Dq::kSmemSize, params, stream);
  if (err != cudaSuccess) return err;
  return launch(&dkdv_kernel<DkDv, false, kSoftcap>, dkdv_grid, DkDv::kNThreads,
                DkDv::kSmemSize, params, stream);
}

template <typename Element, int kHeadDim>
cudaError_t run_bwd_(BwdParams& params, cudaStream_t stream) {
  const cudaError_t err = flash::launch_bwd_dsum<Element, kHeadDim>(params, stream);
  if (err != cudaSuccess) return err;
  return params.softcap > 0.f ? run_bwd_kernels<Element, kHeadDim, true>(params, stream)
                              : run_bwd_kernels<Element, kHeadDim, false>(params, stream);
}

}  // namespace mem_eff
