// Autograd of the forward ops, registered at the Autograd key and called directly by the entry
// points (autograd.h): the backward ops recompute the probabilities from (q, k, lse) and replay
// dropout. lse is an output for inspection only: it is marked non-differentiable, so a loss
// through it raises instead of silently getting no gradient. The backward ops have no
// derivative: a second-order gradient through them raises.
#include <ATen/ATen.h>
#include <torch/autograd.h>
#include <torch/csrc/autograd/functions/basic_ops.h>
#include <torch/csrc/autograd/functions/utils.h>
#include <torch/library.h>

#include <algorithm>
#include <memory>
#include <type_traits>

#include "autograd.h"
#include "op_handles.h"
#include "tensors.h"

namespace flash_ext {
namespace {

using at::Tensor;
using OptTensor = std::optional<Tensor>;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

OptTensor optional(const Tensor& t) { return t.defined() ? OptTensor(t) : std::nullopt; }

// Autograd nodes are held by shared_ptr up to torch 2.12 and by intrusive_ptr from 2.13.
using NodePtr =
    std::invoke_result_t<torch::autograd::function_constructor, torch::autograd::edge_list&&>;

template <typename Node, typename... Args>
NodePtr make_node(Args&&... args) {
  if constexpr (std::is_same_v<NodePtr, std::shared_ptr<torch::autograd::Node>>) {
    return std::make_shared<Node>(std::forward<Args>(args)...);
  } else {
    return c10::make_intrusive<Node>(std::forward<Args>(args)...);
  }
}

// Gradients computed without a graph; when the caller asked for one (create_graph), they are
// tied to `inputs` through a node that raises if anything differentiates them again.
variable_list once_differentiable(variable_list grads, const variable_list& inputs) {
  if (!at::GradMode::is_enabled()) return grads;
  std::vector<Tensor> defined;
  for (const Tensor& t : inputs) {
    if (t.defined()) defined.push_back(t);
  }
  return torch::autograd::wrap_outputs(defined, std::move(grads),
                                      [](torch::autograd::edge_list&& next_edges) {
    return make_node<torch::autograd::Error>(
        "flash_ext: attention has no second derivative (double backward): its backward kernels "
        "are not differentiable. Compute higher-order gradients with backend='math'",
        std::move(next_edges));
  });
}

// A backward's result for a forward of `num_inputs` arguments, the sinks last: `grads` for the
// first ones and grad_sinks (undefined: none) for the sinks, once_differentiable through
// `inputs`; none for the others.
variable_list input_grads(size_t num_inputs, variable_list grads, const Tensor& grad_sinks,
                          const variable_list& inputs) {
  grads.push_back(grad_sinks);
  variable_list result = once_differentiable(std::move(grads), inputs);
  Tensor sinks = std::move(result.back());
  result.pop_back();
  result.resize(num_inputs);
  result.back() = std::move(sinks);
  return result;
}

// The options shared by every backward call, kept in the context between the two as one list
// of doubles under one key (ints and bools are exact in a double: nine saved_data entries under
// keys of their own cost 0.3-0.6 us more a forward with grad, bench_overhead.py A/B on the Xeon);
// lse, an output for inspection only, is marked non-differentiable.
void save_options(AutogradContext* ctx, const Tensor& lse, double dropout_p, double scale,
                  int64_t window_left, int64_t window_right, bool bottom_right, double softcap,
                  bool deterministic, bool seq_first = false, int64_t max_seqlen_q = 0,
                  int64_t max_seqlen_k = 0) {
  ctx->mark_non_differentiable({lse});
  ctx->saved_data["options"] = std::vector<double>{
      double(max_seqlen_q), double(max_seqlen_k), dropout_p, scale, double(window_left),
      double(window_right), double(bottom_right), softcap, double(deterministic),
      double(seq_first)};
}

struct Options {
  int64_t max_seqlen_q, max_seqlen_k;
  double dropout_p, scale;
  int64_t window_left, window_right;
  bool bottom_right;
  double softcap;
  bool deterministic, seq_first;

  explicit Options(AutogradContext* ctx) {
    const std::vector<double> v = ctx->saved_data["options"].toDoubleVector();
    max_seqlen_q = int64_t(v[0]), max_seqlen_k = int64_t(v[1]);
    dropout_p = v[2], scale = v[3];
    window_left = int64_t(v[4]), window_right = int64_t(v[5]);
    bottom_right = v[6] != 0.0, softcap = v[7], deterministic = v[8] != 0.0, seq_first = v[9] != 0.0;
  }
};

// (B, S, H, D) <-> (B, H, S, D) when seq_first, as a plain view: below autograd.
Tensor heads_second(const Tensor& t, bool seq_first) { return seq_first ? t.transpose(1, 2) : t; }

// The mem_eff kernels' (out, lse) with the sinks (if any) joined (tensors.h's add_sinks); the
// attention ops take the sinks themselves.
std::tuple<Tensor, Tensor> with_sinks(std::tuple<Tensor, Tensor> result, const OptTensor& sinks) {
  add_sinks(std::get<0>(result), std::get<1>(result), sinks);
  return result;
}

// The sinks, where the node's inputs include them and their gradient is needed (the backward
// ops compute it only then). `saved`: a node's saved tensors, its tensor inputs in argument
// order and out, lse among them, the sinks last.
OptTensor sinks_needing_grad(AutogradContext* ctx, const variable_list& saved) {
  const Tensor& sinks = saved.back();
  if (!sinks.defined()) return std::nullopt;
  // The node has one edge per tensor input given, in order; out and lse are outputs.
  const auto given = std::count_if(saved.begin(), saved.end() - 1,
                                   [](const Tensor& t) { return t.defined(); });
  if (!ctx->needs_input_grad(given - 2)) return std::nullopt;
  return sinks;
}

// A backward's float32 grad_sinks in the sinks' dtype; undefined where none was asked for.
Tensor sinks_grad_as_input(const Tensor& grad_sinks, const OptTensor& sinks) {
  return sinks.has_value() ? grad_sinks.to(sinks->scalar_type()) : Tensor();
}

struct DenseAttention : torch::autograd::Function<DenseAttention> {
  static variable_list forward(AutogradContext* ctx, const Tensor& q, const Tensor& k,
                               const Tensor& v, const OptTensor& attn_mask,
                               const OptTensor& alibi_slopes, const OptTensor& dropout_seed,
                               double dropout_p, double scale, int64_t window_left,
                               int64_t window_right, bool bottom_right, double softcap,
                               bool deterministic, bool seq_first, int64_t sm_margin,
                               const OptTensor& sinks) {
    at::AutoDispatchBelowADInplaceOrView below;
    auto [out, lse] = op::attention_fwd().call(
        heads_second(q, seq_first), heads_second(k, seq_first), heads_second(v, seq_first),
        attn_mask, alibi_slopes, dropout_seed, dropout_p, scale, window_left, window_right,
        bottom_right, softcap, deterministic, sinks, sm_margin);
    out = heads_second(out, seq_first);
    ctx->save_for_backward({q, k, v, out, lse, attn_mask.value_or(Tensor()),
                            alibi_slopes.value_or(Tensor()), dropout_seed.value_or(Tensor()),
                            sinks.value_or(Tensor())});
    save_options(ctx, lse, dropout_p, scale, window_left, window_right, bottom_right, softcap,
                 deterministic, seq_first);
    return {out, lse};
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const variable_list s = ctx->get_saved_variables();
    const Options o(ctx);
    const bool seq_first = o.seq_first;
    if (!grads[0].defined()) return variable_list(16);
    at::AutoDispatchBelowADInplaceOrView below;
    const Tensor grad_out = heads_second(grads[0], seq_first), out = heads_second(s[3], seq_first);
    const OptTensor sinks = sinks_needing_grad(ctx, s);
    auto [dq, dk, dv, dsinks] = op::attention_bwd().call(
        grad_out, heads_second(s[0], seq_first), heads_second(s[1], seq_first),
        heads_second(s[2], seq_first), out, s[4], optional(s[5]), optional(s[6]),
        optional(s[7]), o.dropout_p, o.scale, o.window_left, o.window_right, o.bottom_right,
        o.softcap, o.deterministic, sinks);
    return input_grads(
        16, {heads_second(dq, seq_first), heads_second(dk, seq_first), heads_second(dv, seq_first)},
        sinks_grad_as_input(dsinks, sinks), {grads[0], s[0], s[1], s[2], s[3], s[8]});
  }
};

struct VarlenAttention : torch::autograd::Function<VarlenAttention> {
  static variable_list forward(AutogradContext* ctx, const Tensor& q, const Tensor& k,
                               const Tensor& v, const Tensor& cu_seqlens_q,
                               const Tensor& cu_seqlens_k, int64_t max_seqlen_q,
                               int64_t max_seqlen_k, const OptTensor& alibi_slopes,
                               const OptTensor& dropout_seed, double dropout_p, double scale,
                               int64_t window_left, int64_t window_right, bool bottom_right,
                               double softcap, bool deterministic, int64_t sm_margin,
                               const OptTensor& sinks) {
    at::AutoDispatchBelowADInplaceOrView below;
    auto [out, lse] = op::attention_varlen_fwd().call(
        q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, alibi_slopes,
        dropout_seed, dropout_p, scale, window_left, window_right, bottom_right, softcap,
        deterministic, sinks, sm_margin);
    ctx->save_for_backward({q, k, v, out, lse, cu_seqlens_q, cu_seqlens_k,
                            alibi_slopes.value_or(Tensor()), dropout_seed.value_or(Tensor()),
                            sinks.value_or(Tensor())});
    save_options(ctx, lse, dropout_p, scale, window_left, window_right, bottom_right, softcap,
                 deterministic, /*seq_first=*/false, max_seqlen_q, max_seqlen_k);
    return {out, lse};
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const variable_list s = ctx->get_saved_variables();
    if (!grads[0].defined()) return variable_list(18);
    const Options o(ctx);
    at::AutoDispatchBelowADInplaceOrView below;
    const OptTensor sinks = sinks_needing_grad(ctx, s);
    auto [dq, dk, dv, dsinks] = op::attention_varlen_bwd().call(
        grads[0], s[0], s[1], s[2], s[3], s[4], s[5], s[6], o.max_seqlen_q, o.max_seqlen_k,
        optional(s[7]), optional(s[8]), o.dropout_p, o.scale, o.window_left, o.window_right,
        o.bottom_right, o.softcap, o.deterministic, sinks);
    return input_grads(18, {dq, dk, dv}, sinks_grad_as_input(dsinks, sinks),
                       {grads[0], s[0], s[1], s[2], s[3], s[9]});
  }
};

struct MemEffAttention : torch::autograd::Function<MemEffAttention> {
  static variable_list forward(AutogradContext* ctx, const Tensor& q, const Tensor& k,
                               const Tensor& v, const OptTensor& attn_bias,
                               const OptTensor& cu_seqlens_q, const OptTensor& cu_seqlens_k,
                               int64_t max_seqlen_q, int64_t max_seqlen_k,
                               const OptTensor& alibi_slopes, const OptTensor& dropout_seed,
                               double dropout_p, double scale, int64_t window_left,
                               int64_t window_right, bool bottom_right, double softcap,
                               bool deterministic, const OptTensor& sinks) {
    at::AutoDispatchBelowADInplaceOrView below;
    auto [out, lse] = with_sinks(
        op::mem_eff_fwd().call(q, k, v, attn_bias, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
                               max_seqlen_k, alibi_slopes, dropout_seed, dropout_p, scale,
                               window_left, window_right, bottom_right, softcap, deterministic),
        sinks);
    ctx->save_for_backward({q, k, v, out, lse, attn_bias.value_or(Tensor()),
                            cu_seqlens_q.value_or(Tensor()), cu_seqlens_k.value_or(Tensor()),
                            alibi_slopes.value_or(Tensor()), dropout_seed.value_or(Tensor()),
                            sinks.value_or(Tensor())});
    save_options(ctx, lse, dropout_p, scale, window_left, window_right, bottom_right, softcap,
                 deterministic, /*seq_first=*/false, max_seqlen_q, max_seqlen_k);
    return {out, lse};
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const variable_list s = ctx->get_saved_variables();
    if (!grads[0].defined()) return variable_list(18);
    const Options o(ctx);
    // Edges exist for the tensors given: with a bias, q, k, v, attn_bias are edges 0-3.
    const bool bias_requires_grad = s[5].defined() && ctx->needs_input_grad(3);
    at::AutoDispatchBelowADInplaceOrView below;
    auto [dq, dk, dv, dbias] = op::mem_eff_bwd().call(
        grads[0], s[0], s[1], s[2], s[3], s[4], optional(s[5]), bias_requires_grad,
        optional(s[6]), optional(s[7]), o.max_seqlen_q, o.max_seqlen_k, optional(s[8]),
        optional(s[9]), o.dropout_p, o.scale, o.window_left, o.window_right, o.bottom_right,
        o.softcap, o.deterministic);
    variable_list grads_out = {dq, dk, dv};
    // The kernels give the bias gradient of every (b, h, i, j); a broadcast bias sums it.
    if (bias_requires_grad) grads_out.push_back(dbias.sum_to_size_symint(s[5].sym_sizes()));
    // mem_eff_bwd keeps its rowsum(dO * out): the sinks' gradient recomputes it.
    const OptTensor sinks = sinks_needing_grad(ctx, s);
    const Tensor dsinks = sinks.has_value() ? sinks_grad(sinks, s[4], grads[0], s[3]) : Tensor();
    return input_grads(18, std::move(grads_out), sinks_grad_as_input(dsinks, sinks),
                       {grads[0], s[0], s[1], s[2], s[3], s[5], s[10]});
  }
};

std::tuple<Tensor, Tensor> pair(const variable_list& outputs) { return {outputs[0], outputs[1]}; }

// Whether a call records a node: grad mode on and an input that requires grad. Without one, the
// kernels ran straight below autograd, skipping the node and its saved state (a third of a
// tiny call's host time).
bool records(std::initializer_list<const Tensor*> inputs) {
  if (!at::GradMode::is_enabled()) return false;
  for (const Tensor* t : inputs) {
    if (t->defined() && t->requires_grad()) return true;
  }
  return false;
}

const Tensor& or_undefined(const OptTensor& t) {
  static const Tensor undefined;
  return t.has_value() ? *t : undefined;
}

// The ops' Autograd kernels: the entry points' functions without sinks, in the op's layout.

std::tuple<Tensor, Tensor> attention_fwd(const Tensor& q, const Tensor& k, const Tensor& v,
                                         const OptTensor& attn_mask,
                                         const OptTensor& alibi_slopes,
                                         const OptTensor& dropout_seed, double dropout_p,
                                         double scale, int64_t window_left, int64_t window_right,
                                         bool bottom_right, double softcap, bool deterministic,
                                         const OptTensor& sinks, int64_t sm_margin) {
  return dense_attention(q, k, v, attn_mask, alibi_slopes, dropout_seed, dropout_p, scale,
                         window_left, window_right, bottom_right, softcap, deterministic,
                         /*seq_first=*/false, sinks, sm_margin);
}

std::tuple<Tensor, Tensor> attention_varlen_fwd(
    const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& cu_seqlens_q,
    const Tensor& cu_seqlens_k, int64_t max_seqlen_q, int64_t max_seqlen_k,
    const OptTensor& alibi_slopes, const OptTensor& dropout_seed, double dropout_p, double scale,
    int64_t window_left, int64_t window_right, bool bottom_right, double softcap,
    bool deterministic, const OptTensor& sinks, int64_t sm_margin) {
  return varlen_attention(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k,
                          alibi_slopes, dropout_seed, dropout_p, scale, window_left,
                          window_right, bottom_right, softcap, deterministic, sinks, sm_margin);
}

std::tuple<Tensor, Tensor> mem_eff_fwd(
    const Tensor& q, const Tensor& k, const Tensor& v, const OptTensor& attn_bias,
    const OptTensor& cu_seqlens_q, const OptTensor& cu_seqlens_k, int64_t max_seqlen_q,
    int64_t max_seqlen_k, const OptTensor& alibi_slopes, const OptTensor& dropout_seed,
    double dropout_p, double scale, int64_t window_left, int64_t window_right, bool bottom_right,
    double softcap, bool deterministic) {
  return mem_eff_attention(q, k, v, attn_bias, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
                           max_seqlen_k, alibi_slopes, dropout_seed, dropout_p, scale,
                           window_left, window_right, bottom_right, softcap, deterministic,
                           std::nullopt);
}

}  // namespace

std::tuple<Tensor, Tensor> dense_attention(
    const Tensor& q, const Tensor& k, const Tensor& v, const OptTensor& attn_mask,
    const OptTensor& alibi_slopes, const OptTensor& dropout_seed, double dropout_p, double scale,
    int64_t window_left, int64_t window_right, bool bottom_right, double softcap,
    bool deterministic, bool seq_first, const OptTensor& sinks, int64_t sm_margin) {
  if (!records({&q, &k, &v, &or_undefined(attn_mask), &or_undefined(sinks)})) {
    at::AutoDispatchBelowADInplaceOrView below;
    auto [out, lse] = op::attention_fwd().call(
        heads_second(q, seq_first), heads_second(k, seq_first), heads_second(v, seq_first),
        attn_mask, alibi_slopes, dropout_seed, dropout_p, scale, window_left, window_right,
        bottom_right, softcap, deterministic, sinks, sm_margin);
    return {heads_second(out, seq_first), lse};
  }
  return pair(DenseAttention::apply(q, k, v, attn_mask, alibi_slopes, dropout_seed, dropout_p,
                                    scale, window_left, window_right, bottom_right, softcap,
                                    deterministic, seq_first, sm_margin, sinks));
}

std::tuple<Tensor, Tensor> varlen_attention(
    const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& cu_seqlens_q,
    const Tensor& cu_seqlens_k, int64_t max_seqlen_q, int64_t max_seqlen_k,
    const OptTensor& alibi_slopes, const OptTensor& dropout_seed, double dropout_p, double scale,
    int64_t window_left, int64_t window_right, bool bottom_right, double softcap,
    bool deterministic, const OptTensor& sinks, int64_t sm_margin) {
  if (!records({&q, &k, &v, &or_undefined(sinks)})) {
    at::AutoDispatchBelowADInplaceOrView below;
    return op::attention_varlen_fwd().call(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
                                           max_seqlen_k, alibi_slopes, dropout_seed, dropout_p,
                                           scale, window_left, window_right, bottom_right,
                                           softcap, deterministic, sinks, sm_margin);
  }
  return pair(VarlenAttention::apply(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
                                     max_seqlen_k, alibi_slopes, dropout_seed, dropout_p, scale,
                                     window_left, window_right, bottom_right, softcap,
                                     deterministic, sm_margin, sinks));
}

std::tuple<Tensor, Tensor> mem_eff_attention(
    const Tensor& q, const Tensor& k, const Tensor& v, const OptTensor& attn_bias,
    const OptTensor& cu_seqlens_q, const OptTensor& cu_seqlens_k, int64_t max_seqlen_q,
    int64_t max_seqlen_k, const OptTensor& alibi_slopes, const OptTensor& dropout_seed,
    double dropout_p, double scale, int64_t window_left, int64_t window_right, bool bottom_right,
    double softcap, bool deterministic, const OptTensor& sinks) {
  if (!records({&q, &k, &v, &or_undefined(attn_bias), &or_undefined(sinks)})) {
    at::AutoDispatchBelowADInplaceOrView below;
    return with_sinks(
        op::mem_eff_fwd().call(q, k, v, attn_bias, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
                               max_seqlen_k, alibi_slopes, dropout_seed, dropout_p, scale,
                               window_left, window_right, bottom_right, softcap, deterministic),
        sinks);
  }
  return pair(MemEffAttention::apply(q, k, v, attn_bias, cu_seqlens_q, cu_seqlens_k,
                                     max_seqlen_q, max_seqlen_k, alibi_slopes, dropout_seed,
                                     dropout_p, scale, window_left, window_right, bottom_right,
                                     softcap, deterministic, sinks));
}

TORCH_LIBRARY_IMPL(flash_ext, Autograd, m) {
  m.impl("attention_fwd", &attention_fwd);
  m.impl("attention_varlen_fwd", &attention_varlen_fwd);
  m.impl("mem_eff_fwd", &mem_eff_fwd);
}

}  // namespace flash_ext
