// Input validation, the one path for every entry point and op: the Python functions reach it
// through entry.cpp with their own argument names and layouts, the ops call it for direct
// callers. Errors name the argument, the value given and what is accepted, as ValueError or
// TypeError. Sizes are read as SymInts: the entry points also run under torch.compile tracing.
#pragma once

#include <ATen/core/Tensor.h>

#include <optional>
#include <string>

namespace flash_ext {

// How an entry point names q, k, v and lays them out, in its errors.
struct ArgNames {
  const char* q;
  const char* k;
  const char* v;
  const char* layout;  // "(batch, heads, seqlen, head_dim)", ...
  int rank;            // 4 dense, 3 packed varlen
  int heads_dim;       // the heads' dim in that layout
};

// The ops' own names: q, k, v in (B, H, S, D) dense or (T, H, D) varlen.
const ArgNames& op_names(bool varlen);

// "torch.float16" as Python prints a dtype; shapes as Python tuples "(2, 4)", "(3,)".
std::string dtype_name(at::ScalarType dtype);
std::string shape_str(c10::SymIntArrayRef shape);

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

// Ranks, floating dtypes, one device, matching sizes (v's head_dim may differ from q's and k's);
// Hkv divides Hq (GQA only if allowed).
void check_qkv(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
               const ArgNames& names, bool allow_gqa);
inline void check_qkv(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                      bool varlen) {
  check_qkv(q, k, v, op_names(varlen), /*allow_gqa=*/true);
}

// attn_mask broadcastable to (B, Hq, Sq, Sk) of q (B, Hq, Sq, D): bool, float32 or q's dtype.
void check_attn_mask(const at::Tensor& mask, const at::Tensor& q, const c10::SymInt& seqlen_k);

// dropout_p in [0, 1), a finite scale (None: 1/sqrt(head_dim)), softcap >= 0, windows >= -1.
void check_scalars(double dropout_p, std::optional<double> scale, double softcap,
                   int64_t window_left, int64_t window_right, const char* scale_name);

// alibi_slopes float32 (Hq,) or (B, Hq) on q's device.
void check_alibi(const at::Tensor& slopes, const at::Tensor& q, const c10::SymInt& batch,
                 const c10::SymInt& heads_q);

// sinks (learnable attention sinks, `name` in the caller's words): (Hq,), float32 or q's dtype,
// on q's device.
void check_sinks(const at::Tensor& sinks, const at::Tensor& q, const c10::SymInt& heads_q,
                 const char* name, const char* q_name);

// The ops' options: check_scalars and check_alibi, a dropout seed with dropout, scale > 0.
void check_options(const AttentionOptions& options, const at::Tensor& q, int64_t batch);

// cu_seqlens_q/k: 1-D int32 with one count of batch + 1 entries, on q's device.
void check_cu_seqlens_layout(const at::Tensor& cu_seqlens_q, const at::Tensor& cu_seqlens_k,
                             const at::Tensor& q);

void check_max_seqlens(int64_t max_seqlen_q, int64_t max_seqlen_k);

// sm_margin, the SMs a forward leaves free: >= 0 and, where the device's SM count is known
// (num_sms > 0), below it.
void check_sm_margin(int64_t sm_margin, int64_t num_sms = 0);

// cu_seqlens_q/k values: starting at 0, non-decreasing, ending at the packed totals, no
// sequence longer than max_seqlen. Reads the values: they must be on the CPU.
void check_cu_seqlens_values(const at::Tensor& cu_seqlens_q, const at::Tensor& cu_seqlens_k,
                             int64_t total_q, int64_t total_k, int64_t max_seqlen_q,
                             int64_t max_seqlen_k);

// grad_out like out; out like q with v's head_dim; lse fp32 of the forward's lse shape.
void check_backward_inputs(const at::Tensor& grad_out, const at::Tensor& out,
                           const at::Tensor& lse, const at::Tensor& q, const at::Tensor& v,
                           at::IntArrayRef lse_shape);

}  // namespace flash_ext
