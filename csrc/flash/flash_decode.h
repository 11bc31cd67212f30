// Host entry points of decoding against a KV cache where it lies (decode_kernel.h). Torch-free;
// csrc/api/cuda/flash_ops.cpp calls them.
#pragma once

#include <cuda_runtime.h>

#include "params.h"

namespace flash {

// How many key splits a call should use (DecodeParams::num_splits) so that its CTAs fill the
// GPU in about one wave: from batch, heads, seqlen_q, the capacity (seqlen_k), the kernel head
// dim and num_sms in `params`. `requested` > 0 (flash-attn's num_splits) is taken instead,
// capped at the capacity's key tiles and 256.
int decode_num_splits(const DecodeParams& params, int64_t requested = 0);

// The fp32 partial slices of out_accum (slices, B, Hq, Sq, kernel head dim) and lse_accum
// (slices, B, Hq, Sq) the call writes: one a split, none for one split (the kernel then writes
// out and lse itself).
int decode_slices(const DecodeParams& params);

// Why the decode kernel cannot run `params` (its grid), or nullptr when it can.
const char* decode_unsupported(const DecodeParams& params);

// Runs the append of the new tokens (if any), the decode kernel and the combine on `stream`.
// The caller has validated `params` (fwd_built for its dtype and head dim, 16-byte aligned rows,
// decode_unsupported) and allocated out_accum and lse_accum. Returns the launch status.
cudaError_t run_decode(const DecodeParams& params, cudaStream_t stream);

}  // namespace flash
