// CPU implementations of the flash_ext ops: validate, describe the tensors as cpu::AttentionParams,
// run the kernels in csrc/cpu.
#include <ATen/ATen.h>
#include <torch/library.h>

#include "../cpu/dropout.h"
#include "../cpu/params.h"
#include "checks.h"
#include "tensors.h"

namespace flash_ext {
namespace {

using at::Tensor;
using OptTensor = std::optional<Tensor>;
using Quad = std::tuple<Tensor, Tensor, Tensor, Tensor>;

// Strides of (batch, head, row) for (B, H, S, D) dense or (T, H, D) packed varlen tensors.
cpu::RowStrides row_strides(const Tensor& t) {
  if (t.dim() == 4) return {t.stride(0), t.stride(1), t.stride(2)};
  return {0, t.stride(1), t.stride(0)};
}

// lse is (B, H, S) dense or (H, T) varlen.
cpu::RowStrides lse_strides(const Tensor& lse) {
  if (lse.dim() == 3) return {lse.stride(0), lse.stride(1), lse.stride(2)};
  return {0, lse.stride(0), lse.stride(1)};
}

uint64_t seed_value(const OptTensor& seed) {
  if (!seed.has_value()) return 0;
  const Tensor s = seed->contiguous();
  const int64_t* p = s.data_ptr<int64_t>();
  // (seed, offset): the offset separates calls drawn from one seed.
  return cpu::mix64(static_cast<uint64_t>(p[0])) ^ (s.numel() > 1 ? static_cast<uint64_t>(p[1]) : 0);
}

// What both directions share. `mask_4d`, `slopes` and `sinks` keep the tensors that params
// points into alive during the call.
struct Call {
  cpu::AttentionParams params;
  Tensor mask_4d;
  Tensor slopes;
  Tensor sinks;
};

Call describe(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& out,
              const Tensor& lse, const OptTensor& attn_mask, const AttentionOptions& o,
              bool bottom_right, const Tensor* cu_seqlens_q, const Tensor* cu_seqlens_k,
              int64_t max_seqlen_q, int64_t max_seqlen_k) {
  const bool varlen = cu_seqlens_q != nullptr;
  Call call;
  cpu::AttentionParams& p = call.params;
  p.dtype = q.scalar_type();
  p.batch = varlen ? cu_seqlens_q->numel() - 1 : q.size(0);
  p.heads_q = q.size(1);
  p.heads_kv = k.size(1);
  p.seqlen_q = varlen ? max_seqlen_q : q.size(2);
  p.seqlen_k = varlen ? max_seqlen_k : k.size(2);
  p.head_dim = q.size(-1);
  p.head_dim_v = v.size(-1);
  if (varlen) {
    p.cu_seqlens_q = cu_seqlens_q->data_ptr<int32_t>();
    p.cu_seqlens_k = cu_seqlens_k->data_ptr<int32_t>();
  }
  p.q = q.data_ptr();
  p.k = k.data_ptr();
  p.v = v.data_ptr();
  p.q_strides = row_strides(q);
  p.k_strides = row_strides(k);
  p.v_strides = row_strides(v);
  p.out = out.data_ptr();
  p.out_strides = row_strides(out);
  p.lse = lse.data_ptr<float>();
  p.lse_strides = lse_strides(lse);
  if (attn_mask.has_value()) {
    Tensor m = *attn_mask;
    while (m.dim() < 4) m = m.unsqueeze(0);
    call.mask_4d = m.expand({p.batch, p.heads_q, p.seqlen_q, p.seqlen_k});
    p.mask_kind = m.scalar_type() == at::kBool ? cpu::MaskKind::kBool : cpu::MaskKind::kAdditive;
    p.mask_dtype = m.scalar_type();
    p.mask = call.mask_4d.data_ptr();
    p.mask_batch_stride = call.mask_4d.stride(0);
    p.mask_head_stride = call.mask_4d.stride(1);
    p.mask_row_stride = call.mask_4d.stride(2);
    p.mask_col_stride = call.mask_4d.stride(3);
  }
  if (o.alibi_slopes.has_value()) {
    call.slopes = last_dim_contiguous(*o.alibi_slopes);
    p.alibi_slopes = call.slopes.data_ptr<float>();
    p.alibi_batch_stride = call.slopes.dim() == 2 ? call.slopes.stride(0) : 0;
  }
  p.scale = static_cast<float>(o.scale);
  p.softcap = static_cast<float>(o.softcap);
  p.window_left = o.window_left;
  p.window_right = o.window_right;
  p.bottom_right = bottom_right;
  p.dropout_p = static_cast<float>(o.dropout_p);
  p.dropout_seed = seed_value(o.dropout_seed);
  return call;
}

std::tuple<Tensor, Tensor> forward(const Tensor& q_in, const Tensor& k_in, const Tensor& v_in,
                                   const OptTensor& attn_mask, const AttentionOptions& o,
                                   bool bottom_right, const Tensor* cu_q, const Tensor* cu_k,
                                   int64_t max_seqlen_q, int64_t max_seqlen_k,
                                   const OptTensor& sinks) {
  const bool varlen = cu_q != nullptr;
  check_qkv(q_in, k_in, v_in, varlen);
  const int64_t batch = varlen ? cu_q->numel() - 1 : q_in.size(0);
  if (varlen) {
    check_cu_seqlens_layout(*cu_q, *cu_k, q_in);
    check_cu_seqlens_values(*cu_q, *cu_k, q_in.size(0), k_in.size(0), max_seqlen_q, max_seqlen_k);
  } else if (attn_mask.has_value()) {
    check_attn_mask(*attn_mask, q_in, k_in.size(2));
  }
  check_options(o, q_in, batch);
  if (sinks.has_value()) check_sinks(*sinks, q_in, q_in.sym_size(1), "sinks", "q");
  const Tensor q = last_dim_contiguous(q_in), k = last_dim_contiguous(k_in),
               v = last_dim_contiguous(v_in);
  auto [out, lse] = empty_forward_outputs(q, v, varlen);
  if (forward_without_kernel(out, lse, k)) {
    add_sinks(out, lse, sinks);
    return {out, lse};
  }
  const Tensor cu_q_c = varlen ? cu_q->contiguous() : Tensor();
  const Tensor cu_k_c = varlen ? cu_k->contiguous() : Tensor();
  Call call = describe(q, k, v, out, lse, attn_mask, o, bottom_right, varlen ? &cu_q_c : nullptr,
                       varlen ? &cu_k_c : nullptr, max_seqlen_q, max_seqlen_k);
  if (sinks.has_value()) {
    call.sinks = sinks->to(at::kFloat).contiguous();
    call.params.sinks = call.sinks.data_ptr<float>();
  }
  poison({out, lse});
  cpu::attention_forward(call.params);
  return {out, lse};
}

// The sinks' gradient from rowsum(dO * out) recomputed here (the kernel keeps its own).
Quad backward(const Tensor& grad_out_in, const Tensor& q_in, const Tensor& k_in,
              const Tensor& v_in, const Tensor& out_in, const Tensor& lse,
              const OptTensor& attn_mask, const AttentionOptions& o, bool bottom_right,
              const Tensor* cu_q, const Tensor* cu_k, int64_t max_seqlen_q, int64_t max_seqlen_k,
              const OptTensor& sinks) {
  const bool varlen = cu_q != nullptr;
  check_qkv(q_in, k_in, v_in, varlen);
  const int64_t batch = varlen ? cu_q->numel() - 1 : q_in.size(0);
  if (varlen) {
    check_cu_seqlens_layout(*cu_q, *cu_k, q_in);
    check_cu_seqlens_values(*cu_q, *cu_k, q_in.size(0), k_in.size(0), max_seqlen_q, max_seqlen_k);
  } else if (attn_mask.has_value()) {
    check_attn_mask(*attn_mask, q_in, k_in.size(2));
  }
  check_backward_inputs(grad_out_in, out_in, lse, q_in, v_in, lse_shape(q_in, varlen));
  check_options(o, q_in, batch);
  if (sinks.has_value()) check_sinks(*sinks, q_in, q_in.sym_size(1), "sinks", "q");
  const Tensor grad_sinks = sinks_grad(sinks, lse, grad_out_in, out_in);
  const Tensor q = last_dim_contiguous(q_in), k = last_dim_contiguous(k_in),
               v = last_dim_contiguous(v_in), out = last_dim_contiguous(out_in),
               grad_out = last_dim_contiguous(grad_out_in);
  auto [grad_q, grad_k, grad_v] = empty_grads(q_in, k_in, v_in);
  if (backward_without_kernel(grad_q, grad_k, grad_v)) return {grad_q, grad_k, grad_v, grad_sinks};
  const Tensor cu_q_c = varlen ? cu_q->contiguous() : Tensor();
  const Tensor cu_k_c = varlen ? cu_k->contiguous() : Tensor();
  Call call = describe(q, k, v, out, lse, attn_mask, o, bottom_right, varlen ? &cu_q_c : nullptr,
                       varlen ? &cu_k_c : nullptr, max_seqlen_q, max_seqlen_k);
  cpu::AttentionGradParams g;
  g.grad_out = grad_out.data_ptr();
  g.grad_out_strides = row_strides(grad_out);
  g.grad_q = grad_q.data_ptr();
  g.grad_k = grad_k.data_ptr();
  g.grad_v = grad_v.data_ptr();
  g.grad_q_strides = row_strides(grad_q);
  g.grad_k_strides = row_strides(grad_k);
  g.grad_v_strides = row_strides(grad_v);
  poison({grad_q, grad_k, grad_v});
  cpu::attention_backward(call.params, g);
  return {grad_q, grad_k, grad_v, grad_sinks};
}

std::tuple<Tensor, Tensor> attention_fwd(const Tensor& q, const Tensor& k, const Tensor& v,
                                         const OptTensor& attn_mask, const OptTensor& alibi_slopes,
                                         const OptTensor& dropout_seed, double dropout_p,
                                         double scale, int64_t window_left, int64_t window_right,
                                         bool bottom_right, double softcap,
                                         bool /*deterministic*/, const OptTensor& sinks,
                                         int64_t sm_margin) {
  check_sm_margin(sm_margin);  // the CPU kernels have no SMs to leave: only checked
  const AttentionOptions o{alibi_slopes, dropout_seed, dropout_p, scale,
                           window_left,  window_right, softcap};
  return forward(q, k, v, attn_mask, o, bottom_right, nullptr, nullptr, 0, 0, sinks);
}

Quad attention_bwd(const Tensor& grad_out, const Tensor& q, const Tensor& k, const Tensor& v,
                   const Tensor& out, const Tensor& lse, const OptTensor& attn_mask,
                   const OptTensor& alibi_slopes, const OptTensor& dropout_seed, double dropout_p,
                   double scale, int64_t window_left, int64_t window_right, bool bottom_right,
                   double softcap, bool /*deterministic*/, const OptTensor& sinks) {
  const AttentionOptions o{alibi_slopes, dropout_seed, dropout_p, scale,
                           window_left,  window_right, softcap};
  return backward(grad_out, q, k, v, out, lse, attn_mask, o, bottom_right, nullptr, nullptr, 0, 0,
                  sinks);
}

std::tuple<Tensor, Tensor> attention_varlen_fwd(
    const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& cu_seqlens_q,
    const Tensor& cu_seqlens_k, int64_t max_seqlen_q, int64_t max_seqlen_k,
    const OptTensor& alibi_slopes, const OptTensor& dropout_seed, double dropout_p, double scale,
    int64_t window_left, int64_t window_right, bool bottom_right, double softcap,
    bool /*deterministic*/, const OptTensor& sinks, int64_t sm_margin) {
  check_sm_margin(sm_margin);
  const AttentionOptions o{alibi_slopes, dropout_seed, dropout_p, scale,
                           window_left,  window_right, softcap};
  return forward(q, k, v, std::nullopt, o, bottom_right, &cu_seqlens_q, &cu_seqlens_k,
                 max_seqlen_q, max_seqlen_k, sinks);
}

Quad attention_varlen_bwd(const Tensor& grad_out, const Tensor& q, const Tensor& k,
                          const Tensor& v, const Tensor& out, const Tensor& lse,
                          const Tensor& cu_seqlens_q, const Tensor& cu_seqlens_k,
                          int64_t max_seqlen_q, int64_t max_seqlen_k,
                          const OptTensor& alibi_slopes, const OptTensor& dropout_seed,
                          double dropout_p, double scale, int64_t window_left,
                          int64_t window_right, bool bottom_right, double softcap,
                          bool /*deterministic*/, const OptTensor& sinks) {
  const AttentionOptions o{alibi_slopes, dropout_seed, dropout_p, scale,
                           window_left,  window_right, softcap};
  return backward(grad_out, q, k, v, out, lse, std::nullopt, o, bottom_right, &cu_seqlens_q,
                  &cu_seqlens_k, max_seqlen_q, max_seqlen_k, sinks);
}

Tensor cpu_dropout_keep_mask(const Tensor& dropout_seed, int64_t batch, int64_t heads,
                             int64_t seqlen_q, int64_t seqlen_k, double dropout_p) {
  TORCH_CHECK(batch >= 0 && heads >= 0 && seqlen_q >= 0 && seqlen_k >= 0,
              "flash_ext: cpu_dropout_keep_mask sizes must be >= 0");
  TORCH_CHECK(dropout_p >= 0.0 && dropout_p < 1.0, "flash_ext: dropout_p must be in [0, 1), got ",
              dropout_p);
  Tensor keep = at::empty({batch, heads, seqlen_q, seqlen_k}, at::kBool);
  bool* p = keep.data_ptr<bool>();
  const uint64_t seed = seed_value(dropout_seed);
  const uint32_t threshold = cpu::dropout_threshold(static_cast<float>(dropout_p));
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t i = 0; i < seqlen_q; ++i)
        for (int64_t j = 0; j < seqlen_k; ++j)
          *p++ = cpu::dropout_keep(seed, threshold, b, h, i, j, heads, seqlen_q, seqlen_k);
  return keep;
}

}  // namespace

// The CPU backward is deterministic whatever `deterministic` says: no atomics, a fixed order.
TORCH_LIBRARY_IMPL(flash_ext, CPU, m) {
  m.impl("attention_fwd", &attention_fwd);
  m.impl("attention_bwd", &attention_bwd);
  m.impl("attention_varlen_fwd", &attention_varlen_fwd);
  m.impl("attention_varlen_bwd", &attention_varlen_bwd);
  m.impl("cpu_dropout_keep_mask", &cpu_dropout_keep_mask);
}

}  // namespace flash_ext
