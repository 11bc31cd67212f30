#include "tensors.h"

#include <ATen/ATen.h>

#include <cstdlib>
#include <limits>
#include <string>

namespace flash_ext {

at::Tensor last_dim_contiguous(const at::Tensor& t) {
  return t.stride(-1) == 1 ? t : t.contiguous();
}

std::vector<int64_t> lse_shape(const at::Tensor& q, bool varlen) {
  if (varlen) return {q.size(1), q.size(0)};
  return {q.size(0), q.size(1), q.size(2)};
}

at::Tensor empty_like_rows(const at::Tensor& t) {
  return t.stride(-1) == 1 ? at::empty_like(t) : at::empty_like(t, at::MemoryFormat::Contiguous);
}

std::tuple<at::Tensor, at::Tensor> empty_forward_outputs(const at::Tensor& q, const at::Tensor& v,
                                                         bool varlen) {
  at::Tensor lse = at::empty(lse_shape(q, varlen), q.options().dtype(at::kFloat));
  if (v.size(-1) == q.size(-1)) return {empty_like_rows(q), lse};
  std::vector<int64_t> shape = q.sizes().vec();
  shape.back() = v.size(-1);
  return {at::empty(shape, q.options()), lse};
}

bool forward_without_kernel(at::Tensor& out, at::Tensor& lse, const at::Tensor& k) {
  if (out.numel() == 0) return true;
  if (k.numel() != 0) return false;
  out.zero_();
  lse.fill_(-std::numeric_limits<float>::infinity());
  return true;
}

void add_sinks(const at::Tensor& out, at::Tensor& lse, const std::optional<at::Tensor>& sinks) {
  if (!sinks.has_value()) return;
  // (Hq, 1) against lse's (B, Hq, Sq) or (Hq, Tq); out (B, Hq, Sq, D) or (Tq, Hq, D).
  at::Tensor lse_sinks = at::logaddexp(lse, sinks->to(at::kFloat).unsqueeze(-1));
  // A row without keys and a sink of -inf: exp(-inf - -inf) is NaN, the factor 0.
  const at::Tensor factor =
      at::exp(lse - lse_sinks).masked_fill_(lse_sinks == -std::numeric_limits<float>::infinity(), 0);
  out.mul_((out.dim() == 3 ? factor.t() : factor).unsqueeze(-1));
  lse = std::move(lse_sinks);
}

at::Tensor sum_per_head(const at::Tensor& rows) {
  return rows.dim() == 3 ? rows.sum(at::IntArrayRef{0, 2}) : rows.sum(1);
}

at::Tensor sinks_grad(const std::optional<at::Tensor>& sinks, const at::Tensor& lse,
                      const at::Tensor& grad_out, const at::Tensor& out) {
  if (!sinks.has_value()) return at::empty({0}, lse.options());
  const at::Tensor dot = at::mul(grad_out.to(at::kFloat), out).sum(-1);  // rowsum(dO * out')
  const at::Tensor z = sinks->to(at::kFloat).unsqueeze(-1);                // (Hq, 1)
  // The sink's probability in each row; inf - inf where lse' is the sink's own infinity.
  const at::Tensor p = at::exp(z - lse).masked_fill_(at::isinf(lse).logical_and_(lse == z), 0);
  return sum_per_head(p.mul_(out.dim() == 3 ? dot.t() : dot)).neg_();
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> empty_grads(const at::Tensor& q,
                                                           const at::Tensor& k,
                                                           const at::Tensor& v) {
  return {empty_like_rows(q), empty_like_rows(k), empty_like_rows(v)};
}

bool backward_without_kernel(at::Tensor& grad_q, at::Tensor& grad_k, at::Tensor& grad_v) {
  if (grad_q.numel() != 0 && grad_k.numel() != 0) return false;
  grad_q.zero_();
  grad_k.zero_();
  grad_v.zero_();
  return true;
}

void poison(std::initializer_list<at::Tensor> outputs) {
  static const bool enabled = [] {
    const char* v = std::getenv("FLASH_EXT_POISON_OUTPUTS");
    return v != nullptr && std::string(v) == "1";
  }();
  if (!enabled) return;
  for (at::Tensor t : outputs) t.fill_(std::numeric_limits<float>::quiet_NaN());
}

}  // namespace flash_ext
