// Plain description of one attention call for the CPU kernels: pointers, sizes, element strides
// and flags. csrc/api fills it from tensors; the kernels read nothing else.
#pragma once

#include <c10/core/ScalarType.h>

#include <cstdint>

namespace flash_ext::cpu {

// Element strides of a tensor indexed (batch, head, row, :) whose last dim is contiguous.
// For varlen calls `batch` is unused: sequence b starts at row cu_seqlens[b].
struct RowStrides {
  int64_t batch = 0;
  int64_t head = 0;
  int64_t row = 0;
};

enum class MaskKind { kNone, kBool, kAdditive };

struct AttentionParams {
  c10::ScalarType dtype;  // of q, k, v, out (and grad_out, dq, dk, dv): Float, BFloat16 or Half

  int64_t batch = 0;
  int64_t heads_q = 0;
  int64_t heads_kv = 0;    // heads_q % heads_kv == 0; q head h reads kv head h / (heads_q / heads_kv)
  int64_t seqlen_q = 0;    // dense: Sq; varlen: max over the batch
  int64_t seqlen_k = 0;    // dense: Sk; varlen: max over the batch
  int64_t head_dim = 0;    // of q and k
  int64_t head_dim_v = 0;  // of v and out (DeepSeek-style attention: differs from head_dim)

  // Varlen: int32 prefix sums of length batch + 1; nullptr for dense calls.
  const int32_t* cu_seqlens_q = nullptr;
  const int32_t* cu_seqlens_k = nullptr;

  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  RowStrides q_strides, k_strides, v_strides;

  void* out = nullptr;  // forward writes it; backward reads it
  RowStrides out_strides;
  float* lse = nullptr;  // natural-log sum-exp of the final scores, -inf for rows with no visible key
  RowStrides lse_strides;  // lse element (b, h, i); `row` is the stride of i

  // attn_mask broadcast to (batch, heads_q, seqlen_q, seqlen_k) by zero strides (dense calls only).
  // kBool: true = attend. kAdditive: added to the score after softcap and ALiBi.
  MaskKind mask_kind = MaskKind::kNone;
  c10::ScalarType mask_dtype = c10::ScalarType::Bool;
  const void* mask = nullptr;
  int64_t mask_batch_stride = 0, mask_head_stride = 0, mask_row_stride = 0, mask_col_stride = 0;

  // ALiBi: score += -slope * |i + diag_offset - j|; slopes fp32, element (b, h) at
  // b * alibi_batch_stride + h (alibi_batch_stride = 0 for shape (heads_q,)).
  const float* alibi_slopes = nullptr;
  int64_t alibi_batch_stride = 0;

  float scale = 1.f;    // multiplies q . k
  float softcap = 0.f;  // > 0: score = softcap * tanh(scale * q . k / softcap)

  // Key j is visible from query i when, with diag_offset = bottom_right ? sk - sq : 0
  // (per sequence), (window_right < 0 || j <= i + diag_offset + window_right) and
  // (window_left < 0 || j >= i + diag_offset - window_left). Causal is window_right = 0.
  int64_t window_left = -1;
  int64_t window_right = -1;
  bool bottom_right = false;

  // Dropout on the probabilities, replayed exactly by the backward; see dropout.h.
  float dropout_p = 0.f;
  uint64_t dropout_seed = 0;

  // Learnable sinks (forward): fp32 (heads_q,), one logit per query head that joins every row's
  // softmax (on the scaled scores' scale), its probability dropped: out and lse include it.
  const float* sinks = nullptr;
};

// Backward extras: grad_out in, gradients out (dq like q; dk, dv like k, v with heads_kv heads).
struct AttentionGradParams {
  const void* grad_out = nullptr;
  RowStrides grad_out_strides;
  void* grad_q = nullptr;
  void* grad_k = nullptr;
  void* grad_v = nullptr;
  RowStrides grad_q_strides, grad_k_strides, grad_v_strides;
};

// Entry points (attention_fwd.cpp, attention_bwd.cpp). The caller has validated the params.
void attention_forward(const AttentionParams& params);
void attention_backward(const AttentionParams& params, const AttentionGradParams& grads);

}  // namespace flash_ext::cpu
