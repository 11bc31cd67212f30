// The Python entry points' work in C++: flash_ext.attention, attention_varlen and the
// flash_attn_* functions validate, choose a backend and run it here, through one raw Python call
// (python.cpp) in eager mode and through the composite op flash_ext::attention under
// torch.compile. Only the Python backends (math, flex) run in Python, after prepare().
#pragma once

#include <ATen/core/Tensor.h>

#include <optional>
#include <string>
#include <string_view>
#include <tuple>

#include "dispatch.h"

namespace flash_ext {

// One call as the user made it: SDPA's argument meanings (flash_api = false: query (B, H, S, D),
// top-left causal, GQA only with enable_gqa) or flash-attn's (flash_api = true: q (B, S, H, D),
// bottom-right causal, GQA always); varlen when cu_seqlens are given.
struct EntryArgs {
  at::Tensor query, key, value;
  std::optional<at::Tensor> attn_mask;
  std::optional<at::Tensor> cu_seqlens_q, cu_seqlens_k;
  int64_t max_seqlen_q = 0, max_seqlen_k = 0;
  double dropout_p = 0.0;
  bool is_causal = false;
  std::optional<double> scale;
  bool enable_gqa = false;
  int64_t window_left = -1, window_right = -1;
  std::optional<at::Tensor> alibi_slopes;
  std::optional<at::Tensor> sinks;  // learnable attention sinks (Hq,): see autograd.h
  double softcap = 0.0;
  bool deterministic = false;
  bool flash_api = false;

  bool varlen() const { return cu_seqlens_q.has_value(); }
};

// A validated call: q, k, v as given (heads in dim heads_dim: 2 for flash-attn's (B, S, H, D),
// else 1), the window with causal folded in (right = 0), and what selection needs to know.
struct Prepared {
  at::Tensor q, k, v;
  int heads_dim;
  int64_t window_left, window_right;
  CallInfo info;
};

// Validates every argument (ValueError / TypeError naming it) and describes the call.
Prepared prepare(const EntryArgs& args);

// The call's scale: the one given, else 1 / sqrt(head_dim).
double scale_value(const EntryArgs& args, const Prepared& call);

// The call with q, k, v in the ops' layout ((B, H, S, D) or (T, H, D)).
Prepared heads_second(const Prepared& call);

// Runs a kernel backend ("flash", "mem_eff", "cpu") on a prepared call: (out, lse) with out in
// the caller's layout.
std::tuple<at::Tensor, at::Tensor> run_kernel(const EntryArgs& args, const Prepared& call,
                                              const std::string& backend);

// prepare, select (the named backend, or the first automatic one), run_kernel. A Python backend
// requested by name is refused: those run in flash_ext/interface.py.
std::tuple<at::Tensor, at::Tensor> attention(const EntryArgs& args,
                                             std::optional<std::string_view> backend);

}  // namespace flash_ext
