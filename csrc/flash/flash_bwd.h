// Host entry points of the flash backward. Torch-free; csrc/api/cuda/flash_ops.cpp calls them.
// The kernels of a (dtype, head dim) are built with its forward (flash::fwd_built).
#pragma once

#include <cuda_runtime.h>

#include "params.h"

namespace flash {

// The workspaces a call needs besides dsum: dq_splits fp32 slices of dq_accum (1, or for
// deterministic calls of the mma.sync kernel enough CTA columns to fill the GPU), and
// dq_semaphores zeroed int32 counters (deterministic calls of the Hopper kernel, which order
// their dq additions instead). Reads the call's shapes, pointers, strides and options.
struct BwdWorkspace {
  int dq_splits = 1;
  int64_t dq_semaphores = 0;
};
BwdWorkspace bwd_workspace(const BwdParams& params, int max_smem);

// Rows of one dq slice: the rows of lse (B * Hq * Sq dense, Hq * Tq varlen).
int64_t bwd_dq_rows(const BwdParams& params);

// Why this build or device cannot run the backward of `params` (grid limits, or no tile
// configuration of its head dim fits in `max_smem` bytes of shared memory per block), or
// nullptr when it can. Writes the shared memory the smallest configuration needs to *needed.
const char* bwd_unsupported(const BwdParams& params, int max_smem, int* needed);

// Runs the backward on `stream`: rowsum(dO * O), the dq/dk/dv kernel, the dq conversion. The
// caller has validated `params`, checked fwd_built and bwd_unsupported, and zeroed dq_accum.
// Returns the first failing launch's status.
cudaError_t run_bwd(BwdParams& params, int max_smem, cudaStream_t stream);

// One compiled variant, instantiated per (Element, kHeadDim, kCausal) in the generated files
// csrc/flash/instantiations/bwd_hdim<D>_<fp16|bf16>[_causal].cu; run_bwd picks one.
template <typename Element, int kHeadDim, bool kCausal>
cudaError_t run_bwd_(BwdParams& params, int max_smem, cudaStream_t stream);
// Whether run_bwd_ runs the call on the Hopper kernel (bwd_sm90_kernel.h).
template <typename Element, int kHeadDim, bool kCausal>
bool bwd_uses_sm90_(const BwdParams& params, int max_smem);

// Calls whose v head dim differs from q's (BwdParams::head_dim_v): whether this build and device
// run `params` (kernel head dims (192, 128) only: a Hopper kernel; no dropout; TMA-loadable q
// and dout). run_bwd runs them when it does.
bool bwd_dv_runs(const BwdParams& params, int max_smem);

// The compiled variants of those: defined in bwd_launch.h, instantiated in the generated files
// csrc/flash/instantiations/bwd_hdim<D>v<Dv>_<fp16|bf16>[_causal].cu.
template <typename Element, int kHeadDim, int kHeadDimV, bool kCausal>
bool bwd_dv_runs_(const BwdParams& params, int max_smem);
template <typename Element, int kHeadDim, int kHeadDimV, bool kCausal>
cudaError_t run_bwd_dv_(BwdParams& params, int max_smem, cudaStream_t stream);

}  // namespace flash
