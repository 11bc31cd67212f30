#include "entry.h"

#include <ATen/ATen.h>
#include <torch/library.h>

#include <algorithm>
#include <cmath>

#include "autograd.h"
#include "checks.h"

namespace flash_ext {
namespace {

using at::Tensor;
using OptTensor = std::optional<Tensor>;

const ArgNames& entry_names(bool flash_api, bool varlen) {
  static const ArgNames sdpa{"query", "key", "value", "(batch, heads, seqlen, head_dim)", 4, 1};
  static const ArgNames flash{"q", "k", "v", "(batch, seqlen, heads, head_dim)", 4, 2};
  static const ArgNames sdpa_varlen{"query", "key", "value", "(total_tokens, heads, head_dim)",
                                    3, 1};
  static const ArgNames flash_varlen{"q", "k", "v", "(total_tokens, heads, head_dim)", 3, 1};
  if (varlen) return flash_api ? flash_varlen : sdpa_varlen;
  return flash_api ? flash : sdpa;
}

// (seed, offset) drawn on q's device from torch's generator there: reproducible under
// torch.manual_seed, and on CUDA drawn afresh by every CUDA graph replay.
OptTensor dropout_seed(double dropout_p, const Tensor& q) {
  if (dropout_p == 0.0) return std::nullopt;
  return at::randint(0, int64_t{1} << 62, {2}, q.options().dtype(at::kLong));
}

// attn_mask as the mem_eff op takes it: a bool mask as it is (the op gives the kernels its False
// as hidden keys, which a NaN score does not reach), an additive one in q's dtype (the
// conversion is differentiable).
OptTensor mem_eff_bias(const OptTensor& mask, at::ScalarType dtype) {
  if (!mask.has_value() || mask->scalar_type() == dtype || mask->scalar_type() == at::kBool) {
    return mask;
  }
  return mask->to(dtype);
}

}  // namespace

Prepared heads_second(const Prepared& p) {
  if (p.heads_dim == 1) return p;
  return {p.q.transpose(1, 2), p.k.transpose(1, 2), p.v.transpose(1, 2), 1, p.window_left,
          p.window_right, p.info};
}

double scale_value(const EntryArgs& args, const Prepared& call) {
  const int64_t head_dim = call.q.sym_size(-1).guard_int(__FILE__, __LINE__);  // q's, not v's
  return args.scale.value_or(std::pow(static_cast<double>(head_dim), -0.5));
}

Prepared prepare(const EntryArgs& a) {
  const bool varlen = a.varlen();
  const ArgNames& names = entry_names(a.flash_api, varlen);
  check_qkv(a.query, a.key, a.value, names, a.flash_api || a.enable_gqa);
  Prepared p{a.query, a.key, a.value, names.heads_dim, a.window_left, a.window_right, {}};
  TORCH_CHECK_VALUE(varlen == a.cu_seqlens_k.has_value(), "cu_seqlens_q and cu_seqlens_k go "
                    "together: both tensors (varlen) or both None (dense)");
  if (varlen) {
    check_cu_seqlens_layout(*a.cu_seqlens_q, *a.cu_seqlens_k, p.q);
    check_max_seqlens(a.max_seqlen_q, a.max_seqlen_k);
  }
  if (a.attn_mask.has_value()) {
    TORCH_CHECK_VALUE(!varlen && !a.flash_api, "attn_mask is only taken by flash_ext.attention");
    check_attn_mask(*a.attn_mask, p.q, p.k.sym_size(2));
  }
  check_scalars(a.dropout_p, a.scale, a.softcap, a.window_left, a.window_right,
                a.flash_api ? "softmax_scale" : "scale");
  const c10::SymInt batch = varlen ? a.cu_seqlens_q->sym_numel() - 1 : p.q.sym_size(0);
  if (a.alibi_slopes.has_value()) {
    check_alibi(*a.alibi_slopes, p.q, batch, p.q.sym_size(p.heads_dim));
  }
  if (a.sinks.has_value()) {
    check_sinks(*a.sinks, p.q, p.q.sym_size(p.heads_dim),
                a.flash_api ? "learnable_sink" : "sinks", names.q);
  }
  if (a.is_causal) p.window_right = 0;

  CallInfo& c = p.info;
  c.device = p.q.device().type();
  c.dtype = p.q.scalar_type();
  // The larger of q's and v's: the head dim a backend's kernels must hold.
  c.head_dim = std::max(p.q.sym_size(-1).guard_int(__FILE__, __LINE__),
                        p.v.sym_size(-1).guard_int(__FILE__, __LINE__));
  if (c.device == c10::DeviceType::CUDA) {
    if (const auto cc = compute_capability(p.q.get_device())) {
      c.cc_major = cc->first;
      c.cc_minor = cc->second;
    }
  }
  const bool grad_mode = at::GradMode::is_enabled();
  if (a.attn_mask.has_value()) {
    c.mask = a.attn_mask->scalar_type() == at::kBool ? MaskKind::kBool : MaskKind::kAdditive;
    c.mask_requires_grad = grad_mode && a.attn_mask->requires_grad();
  }
  c.features.dropout = a.dropout_p > 0.0;
  c.features.window = p.window_left != -1 || p.window_right != -1;
  c.features.alibi = a.alibi_slopes.has_value();
  c.features.softcap = a.softcap > 0.0;
  c.features.varlen = varlen;
  c.features.value_head_dim = p.v.sym_size(-1) != p.q.sym_size(-1);
  if (c.features.value_head_dim) {
    c.head_dim_qk = p.q.sym_size(-1).guard_int(__FILE__, __LINE__);
    c.head_dim_v = p.v.sym_size(-1).guard_int(__FILE__, __LINE__);
  }
  c.needs_grad = grad_mode && (a.query.requires_grad() || a.key.requires_grad() ||
                               a.value.requires_grad() ||
                               (a.sinks.has_value() && a.sinks->requires_grad()));
  return p;
}

std::tuple<Tensor, Tensor> run_kernel(const EntryArgs& a, const Prepared& p,
                                      const std::string& backend) {
  // The kernels take scale > 0: they mask and take row maxima on the unscaled scores q.k.
  // scale * q.k = (-scale) * (-q).k, and a zero scale is (0 q).k with scale 1; both
  // differentiable, so autograd carries the gradient of q back through the fold.
  double scale = scale_value(a, p);
  Tensor q = p.q;
  if (scale < 0.0) {
    q = q.neg();
    scale = -scale;
  } else if (scale == 0.0) {
    q = q.mul(0);
    scale = 1.0;
  }
  Tensor k = p.k, v = p.v;
  // The flash kernels load rows in 16-byte pieces: a head dim that is not a multiple of 8 runs
  // zero-padded to the next one (a copy, as flash-attn does) and the output is cut back. Both
  // are differentiable: the gradients are cut back the same way.
  const int64_t head_dim = p.q.sym_size(-1).guard_int(__FILE__, __LINE__);  // v's too (flash)
  const int64_t pad = backend == "flash" ? (8 - head_dim % 8) % 8 : 0;
  if (pad != 0) {
    q = at::constant_pad_nd(q, {0, pad});
    k = at::constant_pad_nd(k, {0, pad});
    v = at::constant_pad_nd(v, {0, pad});
  }
  const OptTensor seed = dropout_seed(a.dropout_p, q);
  const bool bottom_right = a.flash_api;
  if (p.heads_dim == 2 && backend != "mem_eff") {
    auto [out, lse] = dense_attention(q, k, v, std::nullopt, a.alibi_slopes, seed, a.dropout_p,
                                      scale, p.window_left, p.window_right, bottom_right,
                                      a.softcap, a.deterministic, /*seq_first=*/true, a.sinks);
    return {pad != 0 ? out.narrow(-1, 0, head_dim) : out, lse};
  }
  // The ops' (B, H, S, D) layout; flash-attn's (B, S, H, D) reaches here for mem_eff only.
  const bool seq_first = p.heads_dim == 2;
  if (seq_first) {
    q = q.transpose(1, 2);
    k = k.transpose(1, 2);
    v = v.transpose(1, 2);
  }
  Tensor out, lse;
  if (backend == "mem_eff") {
    std::tie(out, lse) = mem_eff_attention(
        q, k, v, mem_eff_bias(a.attn_mask, q.scalar_type()), a.cu_seqlens_q,
        a.cu_seqlens_k, a.max_seqlen_q, a.max_seqlen_k, a.alibi_slopes, seed, a.dropout_p, scale,
        p.window_left, p.window_right, bottom_right, a.softcap, a.deterministic, a.sinks);
  } else if (a.varlen()) {
    std::tie(out, lse) = varlen_attention(
        q, k, v, *a.cu_seqlens_q, *a.cu_seqlens_k, a.max_seqlen_q, a.max_seqlen_k,
        a.alibi_slopes, seed, a.dropout_p, scale, p.window_left, p.window_right, bottom_right,
        a.softcap, a.deterministic, a.sinks);
  } else {
    std::tie(out, lse) = dense_attention(q, k, v, a.attn_mask, a.alibi_slopes, seed, a.dropout_p,
                                         scale, p.window_left, p.window_right, bottom_right,
                                         a.softcap, a.deterministic, /*seq_first=*/false,
                                         a.sinks);
  }
  if (seq_first) out = out.transpose(1, 2);
  if (pad != 0) out = out.narrow(-1, 0, head_dim);
  return {out, lse};
}

std::tuple<Tensor, Tensor> attention(const EntryArgs& args,
                                     std::optional<std::string_view> backend) {
  const Prepared call = prepare(args);
  const std::string name = select_backend(call.info, backend);
  TORCH_CHECK_VALUE(name == "flash" || name == "mem_eff" || name == "cpu", "backend='", name,
                    "' runs in Python: call flash_ext.attention, not the op");
  return run_kernel(args, call, name);
}

namespace {

EntryArgs entry_args(const Tensor& query, const Tensor& key, const Tensor& value,
                     const OptTensor& attn_mask, const OptTensor& cu_seqlens_q,
                     const OptTensor& cu_seqlens_k, int64_t max_seqlen_q, int64_t max_seqlen_k,
                     double dropout_p, bool is_causal, std::optional<double> scale,
                     bool enable_gqa, int64_t window_left, int64_t window_right,
                     const OptTensor& alibi_slopes, const OptTensor& sinks, double softcap,
                     bool deterministic, bool flash_api) {
  return {query,        key,          value,        attn_mask,    cu_seqlens_q,
          cu_seqlens_k, max_seqlen_q, max_seqlen_k, dropout_p,    is_causal,
          scale,        enable_gqa,   window_left,  window_right, alibi_slopes,
          sinks,        softcap,      deterministic, flash_api};
}

// The composite ops that torch.compile traces (interface.py calls them while compiling).
std::tuple<Tensor, Tensor> attention_op(
    const Tensor& query, const Tensor& key, const Tensor& value, const OptTensor& attn_mask,
    const OptTensor& cu_seqlens_q, const OptTensor& cu_seqlens_k, int64_t max_seqlen_q,
    int64_t max_seqlen_k, double dropout_p, bool is_causal, std::optional<double> scale,
    bool enable_gqa, int64_t window_left, int64_t window_right, const OptTensor& alibi_slopes,
    const OptTensor& sinks, double softcap, bool deterministic,
    std::optional<c10::string_view> backend, bool flash_api) {
  return attention(entry_args(query, key, value, attn_mask, cu_seqlens_q, cu_seqlens_k,
                              max_seqlen_q, max_seqlen_k, dropout_p, is_causal, scale,
                              enable_gqa, window_left, window_right, alibi_slopes, sinks,
                              softcap, deterministic, flash_api),
                   backend);
}

// Validation and selection alone, for the Python backends under torch.compile.
void check_attention_op(
    const Tensor& query, const Tensor& key, const Tensor& value, const OptTensor& attn_mask,
    const OptTensor& cu_seqlens_q, const OptTensor& cu_seqlens_k, int64_t max_seqlen_q,
    int64_t max_seqlen_k, double dropout_p, bool is_causal, std::optional<double> scale,
    bool enable_gqa, int64_t window_left, int64_t window_right, const OptTensor& alibi_slopes,
    const OptTensor& sinks, double softcap, bool deterministic,
    std::optional<c10::string_view> backend, bool flash_api) {
  const Prepared call = prepare(entry_args(query, key, value, attn_mask, cu_seqlens_q,
                                           cu_seqlens_k, max_seqlen_q, max_seqlen_k, dropout_p,
                                           is_causal, scale, enable_gqa, window_left,
                                           window_right, alibi_slopes, sinks, softcap,
                                           deterministic, flash_api));
  select_backend(call.info, backend);
}

}  // namespace

TORCH_LIBRARY_IMPL(flash_ext, CompositeImplicitAutograd, m) {
  m.impl("attention", &attention_op);
  m.impl("check_attention", &check_attention_op);
}

}  // namespace flash_ext
