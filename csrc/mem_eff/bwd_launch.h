// Launch of the mem_eff backward for one (dtype, head dim): D = rowsum(dO * O), then the fused
// dK/dV/dQ kernel and flash's dq conversion, or (deterministic) the dQ and bias gradient kernel
// and the dK/dV kernel. Included by the generated instantiation files.
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "../flash/bwd_prepost.h"
#include "bwd_kernel.h"
#include "fwd_launch.h"
#include "mem_eff.h"

namespace mem_eff {

template <typename Element, int kHeadDim>
cudaError_t run_bwd_(BwdParams& params, cudaStream_t stream) {
  using Config = BwdConfig<Element, kHeadDim>;
  using Dq = typename Config::Dq;
  using DkDv = typename Config::DkDv;
  cudaError_t err = flash::launch_bwd_dsum<Element, kHeadDim>(params, stream);
  if (err != cudaSuccess) return err;
  const dim3 dkdv_grid((params.seqlen_k + DkDv::kBlockN - 1) / DkDv::kBlockN, params.heads_kv,
                       params.batch);
  if (!params.deterministic) {
    err = launch(&dkdv_kernel<DkDv, true>, dkdv_grid, DkDv::kNThreads, DkDv::kSmemSize, params,
                 stream);
    if (err != cudaSuccess) return err;
    return flash::launch_bwd_convert_dq<Element, kHeadDim>(params, stream);
  }
  const dim3 dq_grid((params.seqlen_q + Dq::kBlockM - 1) / Dq::kBlockM, params.heads_q, params.batch);
  err = launch(&dq_kernel<Dq>, dq_grid, Dq::kNThreads, Dq::kSmemSize, params, stream);
  if (err != cudaSuccess) return err;
  return launch(&dkdv_kernel<DkDv, false>, dkdv_grid, DkDv::kNThreads, DkDv::kSmemSize, params,
                stream);
}

}  // namespace mem_eff
