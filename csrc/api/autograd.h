// The forward ops with their autograd, for the entry points (entry.cpp), which call them directly
// rather than through the dispatcher: one hop less, and seq_first, which the ops' schemas do not
// take.
//
// seq_first: q, k, v (and out, and the gradients) in flash-attn's (B, S, H, D), viewed as the
// op's (B, H, S, D) inside the node instead of through autograd views (four more nodes, 13 us
// more per backward call on the CPU machine).
//
// sinks: learnable attention sinks (gpt-oss), (Hq,) float32 or q's dtype. Each row's softmax
// also runs over its head's sink logit, whose probability is dropped: lse' = logaddexp(lse,
// sink) and out' = out * exp(lse - lse') of the scores' (out, lse), joined by the CPU and flash
// kernels as they normalize, by tensors.h's add_sinks after mem_eff's; the returned lse is
// lse', the sink included (a row that sees no key: out' = 0, lse' = sink). The backward runs the
// backward op on (out', lse') in place of (out, lse), exact as it stands (the sink column has
// no value row), and d sink = -sum over the head's rows of exp(sink - lse') * rowsum(dO * out'),
// which the backward ops return (tensors.h's sinks_grad; on flash from the row sums its kernels
// compute anyway): no pass over the score matrix. Dropout (applied to the probabilities after
// the sink, as in gpt-oss's eager attention) and deterministic mode carry over.
//
// sm_margin: the SMs the forward leaves free (the ops' schemas say more); the backward takes
// all of them.
#pragma once

#include <ATen/core/Tensor.h>

#include <optional>
#include <tuple>

namespace flash_ext {

// attention_fwd (attn_mask only without seq_first).
std::tuple<at::Tensor, at::Tensor> dense_attention(
    const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
    const std::optional<at::Tensor>& attn_mask, const std::optional<at::Tensor>& alibi_slopes,
    const std::optional<at::Tensor>& dropout_seed, double dropout_p, double scale,
    int64_t window_left, int64_t window_right, bool bottom_right, double softcap,
    bool deterministic, bool seq_first, const std::optional<at::Tensor>& sinks,
    int64_t sm_margin = 0);

// attention_varlen_fwd.
std::tuple<at::Tensor, at::Tensor> varlen_attention(
    const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& cu_seqlens_q,
    const at::Tensor& cu_seqlens_k, int64_t max_seqlen_q, int64_t max_seqlen_k,
    const std::optional<at::Tensor>& alibi_slopes, const std::optional<at::Tensor>& dropout_seed,
    double dropout_p, double scale, int64_t window_left, int64_t window_right, bool bottom_right,
    double softcap, bool deterministic, const std::optional<at::Tensor>& sinks,
    int64_t sm_margin = 0);

// mem_eff_fwd.
std::tuple<at::Tensor, at::Tensor> mem_eff_attention(
    const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
    const std::optional<at::Tensor>& attn_bias, const std::optional<at::Tensor>& cu_seqlens_q,
    const std::optional<at::Tensor>& cu_seqlens_k, int64_t max_seqlen_q, int64_t max_seqlen_k,
    const std::optional<at::Tensor>& alibi_slopes, const std::optional<at::Tensor>& dropout_seed,
    double dropout_p, double scale, int64_t window_left, int64_t window_right, bool bottom_right,
    double softcap, bool deterministic, const std::optional<at::Tensor>& sinks);

}  // namespace flash_ext
