// Host entry points of the mem_eff kernels (forward and backward). Torch-free;
// csrc/api/cuda/mem_eff_ops.cpp calls them.
#pragma once

#include <cuda_runtime.h>

#include "params.h"

namespace mem_eff {

// The head dims that have kernels; a call runs in the smallest one >= q's and v's head dims
// (the kernels predicate each tensor's columns by its own).
inline constexpr int kKernelHeadDims[] = {64, 128, 256};

// The kernel head dim of a call, or 0 when q's or v's head dim is larger than every kernel's.
int kernel_head_dim(const flash::FwdParams& params);

// Elements per 16 bytes (8 for fp16/bf16, 4 for fp32): the kernels load rows in 16-byte pieces,
// so head_dim, head_dim_v, every stride but the last and every start must be multiples of it (the caller
// pads or copies what is not).
inline int row_alignment(bool is_float) { return is_float ? 4 : 8; }

// Why the kernels cannot run `params` (float32 inputs when is_float) on a device with `max_smem`
// bytes of opt-in shared memory per block (grid limits, shared memory), or nullptr when they can.
const char* unsupported(const flash::FwdParams& params, bool is_float, int max_smem);

// Whether the backward runs as two kernels that each own what they write, without dq_accum:
// deterministic calls, and softcapped ones whose bias needs a gradient (the fused kernel stages
// dS once, after the cap's derivative, and the bias gradient is dS before it: bwd_kernel.h).
inline bool two_kernel_backward(const BwdParams& params) {
  return params.deterministic || (params.softcap > 0.f && params.dbias != nullptr);
}

// Whether a float32 call's kernels read guard.h's scan, so that the caller gives
// params.guard_flag one int of device memory (the backward's always; the forward's where it
// holds both bodies, config.h's kFp32FwdBothBodies). Kernels that hold both and get no flag
// take the guarded split.
bool reads_guard_scan(const flash::FwdParams& params, bool backward);

// Run on `stream`; the caller has validated `params` (and, for the backward, allocated dsum,
// and dq_accum unless two_kernel_backward). Return the launch status.
cudaError_t run_fwd(FwdParams& params, cudaStream_t stream);
cudaError_t run_bwd(BwdParams& params, cudaStream_t stream);

// One compiled variant: Element is cutlass::half_t, cutlass::bfloat16_t or float. Defined in
// fwd_launch.h / bwd_launch.h and instantiated once per (Element, kHeadDim) in the generated
// files csrc/mem_eff/instantiations/{fwd,bwd}_hdim<D>_<fp16|bf16|fp32>.cu.
template <typename Element, int kHeadDim>
cudaError_t run_fwd_(FwdParams& params, cudaStream_t stream);
template <typename Element, int kHeadDim>
cudaError_t run_bwd_(BwdParams& params, cudaStream_t stream);

}  // namespace mem_eff
