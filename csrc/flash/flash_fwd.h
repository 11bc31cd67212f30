// Host entry points of the flash forward. Torch-free; csrc/api/cuda/flash_ops.cpp calls them.
#pragma once

#include <cuda_runtime.h>

#include "params.h"

namespace cutlass {
struct half_t;
struct bfloat16_t;
}  // namespace cutlass

namespace flash {

// The head dims that have kernels; a call with head_dim D runs in the smallest one >= D.
inline constexpr int kKernelHeadDims[] = {32, 64, 96, 128, 160, 192, 224, 256};

// The kernel head dim for D (1 <= D <= 256), or 0 when D is larger than every kernel's.
int kernel_head_dim(int head_dim);

// Whether this build compiled the kernels for (dtype, kernel head dim): FLASH_EXT_HDIMS and
// FLASH_EXT_DTYPES may have left some out (setup.py defines FLASH_EXT_HDIM_<d>, FLASH_EXT_BF16,
// FLASH_EXT_FP16 for what it compiled).
bool fwd_built(bool is_bf16, int kernel_head_dim);

// How many key splits a call should use so that decoding fills the GPU (1 = no split).
// Depends on batch, heads_q, seqlen_q, seqlen_k, head_dim, dropout_p and num_sms in `params`.
int fwd_num_splits(const FwdParams& params);

// Whether the call, if the persistent Hopper forward runs it, has more tile units than CTAs
// (more than one wave), where its dynamic split helps: the caller then sets
// params.tile_counter to a zeroed int32 (kernels that do not use it ignore it).
bool fwd_wants_tile_counter(const FwdParams& params);

// Why this build cannot run `params` (grid limits), or nullptr when it can.
const char* fwd_unsupported(const FwdParams& params);

// Runs the forward on `stream`. The caller has validated `params`, checked fwd_built, and,
// when params.num_splits > 1, allocated out_accum and lse_accum. Returns the launch status.
cudaError_t run_fwd(FwdParams& params, cudaStream_t stream);

// One compiled variant: Element is cutlass::half_t or cutlass::bfloat16_t. Defined in
// fwd_launch.h and instantiated once per (Element, kHeadDim, kCausal) in the generated files
// csrc/flash/instantiations/fwd_hdim<D>_<fp16|bf16>[_causal].cu. run_fwd picks one.
template <typename Element, int kHeadDim, bool kCausal>
cudaError_t run_fwd_(FwdParams& params, cudaStream_t stream);

// Calls whose v head dim differs from q's (FwdParams::head_dim_v): whether this build and device
// run `params` (kernel head dims (192, 128) only: a Hopper kernel; no dropout, no split-KV,
// TMA-loadable q, k and v). run_fwd runs them when it does.
bool fwd_dv_runs(const FwdParams& params);

// The compiled variants of those: defined in fwd_launch.h, instantiated in the generated files
// csrc/flash/instantiations/fwd_hdim<D>v<Dv>_<fp16|bf16>[_causal].cu.
template <typename Element, int kHeadDim, int kHeadDimV, bool kCausal>
bool fwd_dv_runs_(const FwdParams& params);
template <typename Element, int kHeadDim, int kHeadDimV, bool kCausal>
cudaError_t run_fwd_dv_(FwdParams& params, cudaStream_t stream);

// Writes the dropout keep-mask (B, Hq, Sq, Sk) as uint8 (1 = kept), exactly as the kernels
// draw it for `params` (dense only), for tests. Returns the launch status.
cudaError_t dropout_keep_mask(const FwdParams& params, uint8_t* mask, cudaStream_t stream);

}  // namespace flash
