// Input validation shared by every op and backend. The Python layer reports bad user input in
// the user's own terms first; these checks guard the kernels against any direct op call.
#pragma once

#include <ATen/core/Tensor.h>

#include <optional>

namespace flash_ext {

// Options of one attention call, as in the op schemas.
struct AttentionOptions {
  const std::optional<at::Tensor>& alibi_slopes;
  const std::optional<at::Tensor>& dropout_seed;
  double dropout_p;
  double scale;
  int64_t window_left;
  int64_t window_right;
  double softcap;
};

// q, k, v: rank 4 (B, H, S, D) dense, rank 3 (T, H, D) varlen; same dtype and device.
void check_qkv(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, bool varlen);

// attn_mask broadcastable to (B, Hq, Sq, Sk), bool or float of q's dtype or float32.
void check_attn_mask(const at::Tensor& mask, const at::Tensor& q, int64_t seqlen_k);

void check_options(const AttentionOptions& options, const at::Tensor& q, int64_t batch);

// cu_seqlens_q/k: 1-D int32 with one count of batch + 1 entries, on q's device.
void check_cu_seqlens_layout(const at::Tensor& cu_seqlens_q, const at::Tensor& cu_seqlens_k,
                             const at::Tensor& q);

// cu_seqlens_q/k values: starting at 0, non-decreasing, ending at the packed totals, no
// sequence longer than max_seqlen. Reads the values: they must be on the CPU.
void check_cu_seqlens_values(const at::Tensor& cu_seqlens_q, const at::Tensor& cu_seqlens_k,
                             int64_t total_q, int64_t total_k, int64_t max_seqlen_q,
                             int64_t max_seqlen_k);

// grad_out like out; out like q; lse fp32 of the forward's lse shape.
void check_backward_inputs(const at::Tensor& grad_out, const at::Tensor& out,
                           const at::Tensor& lse, const at::Tensor& q, at::IntArrayRef lse_shape);

}  // namespace flash_ext
