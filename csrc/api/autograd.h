// What autograd.cpp offers beyond the ops' Autograd kernels.
#pragma once

#include <ATen/core/Tensor.h>

#include <optional>
#include <tuple>

namespace flash_ext {

// attention_fwd with its autograd on flash-attn's (B, S, H, D) q, k, v; out in that layout too.
// One autograd node, where transposing to the op's layout first would add four.
std::tuple<at::Tensor, at::Tensor> attention_fwd_seq_first(
    const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
    const std::optional<at::Tensor>& alibi_slopes, const std::optional<at::Tensor>& dropout_seed,
    double dropout_p, double scale, int64_t window_left, int64_t window_right, bool bottom_right,
    double softcap, bool deterministic);

}  // namespace flash_ext
