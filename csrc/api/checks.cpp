#include "checks.h"

#include <c10/util/Exception.h>

#include <charconv>
#include <cmath>

namespace flash_ext {
namespace {

bool is_supported_dtype(at::ScalarType t) {
  return t == at::kFloat || t == at::kBFloat16 || t == at::kHalf;
}

// A double as Python's repr prints it: the shortest round trip, "1.0" rather than "1".
std::string py_float(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[64];
  const auto end = std::to_chars(buf, buf + sizeof(buf), x).ptr;
  std::string s(buf, end);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

}  // namespace

const ArgNames& op_names(bool varlen) {
  static const ArgNames dense{"q", "k", "v", "(batch, heads, seqlen, head_dim)", 4, 1};
  static const ArgNames packed{"q", "k", "v", "(total, heads, head_dim)", 3, 1};
  return varlen ? packed : dense;
}

std::string dtype_name(at::ScalarType dtype) {
  switch (dtype) {
    case at::kHalf: return "torch.float16";
    case at::kBFloat16: return "torch.bfloat16";
    case at::kFloat: return "torch.float32";
    case at::kDouble: return "torch.float64";
    case at::kBool: return "torch.bool";
    case at::kByte: return "torch.uint8";
    case at::kChar: return "torch.int8";
    case at::kShort: return "torch.int16";
    case at::kInt: return "torch.int32";
    case at::kLong: return "torch.int64";
    case at::kComplexFloat: return "torch.complex64";
    case at::kComplexDouble: return "torch.complex128";
    default: return std::string("torch.") + c10::toString(dtype);
  }
}

std::string shape_str(c10::SymIntArrayRef shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += c10::str(shape[i]);
  }
  return s + (shape.size() == 1 ? ",)" : ")");
}

void check_qkv(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
               const ArgNames& n, bool allow_gqa) {
  const int64_t rank = n.rank;
  for (auto [name, t] : {std::pair{n.q, &q}, {n.k, &k}, {n.v, &v}}) {
    TORCH_CHECK_VALUE(t->dim() == rank, name, " must have rank ", rank, " ", n.layout,
                      ", got shape ", shape_str(t->sym_sizes()));
    TORCH_CHECK_TYPE(t->is_floating_point(), name, " has dtype ", dtype_name(t->scalar_type()),
                     "; accepted: float16, bfloat16, float32 (float64 with backend='math')");
  }
  for (auto [name, t] : {std::pair{n.k, &k}, {n.v, &v}}) {
    TORCH_CHECK_TYPE(t->scalar_type() == q.scalar_type(), name, " has dtype ",
                     dtype_name(t->scalar_type()), " but ", n.q, " has ",
                     dtype_name(q.scalar_type()), "; they must match");
    TORCH_CHECK_VALUE(t->device() == q.device(), name, " is on ", t->device(), " but ", n.q,
                      " is on ", q.device(), "; they must be on one device");
  }
  // v's head dim may differ from q's and k's (DeepSeek-style attention; SDPA's rule): out has
  // v's.
  TORCH_CHECK_VALUE(k.sym_sizes().slice(0, rank - 1) == v.sym_sizes().slice(0, rank - 1), n.k,
                    " and ", n.v, " must have the same shape but for the head_dim, got ",
                    shape_str(k.sym_sizes()), " and ", shape_str(v.sym_sizes()));
  const c10::SymInt& head_dim = q.sym_size(-1);
  TORCH_CHECK_VALUE(head_dim > 0, "head_dim must be positive, got ", n.q, " of shape ",
                    shape_str(q.sym_sizes()));
  TORCH_CHECK_VALUE(v.sym_size(-1) > 0, "head_dim of ", n.v, " must be positive, got shape ",
                    shape_str(v.sym_sizes()));
  TORCH_CHECK_VALUE(k.sym_size(-1) == head_dim, "head_dim of ", n.k, " (", k.sym_size(-1),
                    ") differs from ", n.q, "'s (", head_dim, "); they must match");
  if (rank == 4) {
    TORCH_CHECK_VALUE(k.sym_size(0) == q.sym_size(0), "batch of ", n.k, " (", k.sym_size(0),
                      ") differs from ", n.q, "'s (", q.sym_size(0), ")");
  }
  const c10::SymInt& heads_q = q.sym_size(n.heads_dim);
  const c10::SymInt& heads_kv = k.sym_size(n.heads_dim);
  // Zero heads on both sides is an empty call, as for SDPA.
  TORCH_CHECK_VALUE(heads_kv > 0 || heads_q == 0, n.k, " and ", n.v, " have 0 heads but ", n.q,
                    " has ", heads_q, "; each query head needs a key/value head");
  TORCH_CHECK_VALUE(heads_kv == 0 || heads_q % heads_kv == 0, n.q, " has ", heads_q,
                    " heads, not a multiple of the ", heads_kv, " heads of ", n.k, " and ", n.v,
                    " (GQA/MQA needs heads_q % heads_kv == 0)");
  TORCH_CHECK_VALUE(allow_gqa || heads_q == heads_kv, n.k, " has ", heads_kv, " heads but ", n.q,
                    " has ", heads_q, ": pass enable_gqa=True to share each key/value head "
                    "across ", heads_q / heads_kv, " query heads");
}

void check_attn_mask(const at::Tensor& mask, const at::Tensor& q, const c10::SymInt& seqlen_k) {
  const auto t = mask.scalar_type();
  TORCH_CHECK_TYPE(t == at::kBool || t == at::kFloat || t == q.scalar_type(),
                   "attn_mask has dtype ", dtype_name(t), "; accepted: torch.bool (True = "
                   "attend) or an additive float mask of the query's dtype (",
                   dtype_name(q.scalar_type()), ") or float32");
  TORCH_CHECK_VALUE(mask.device() == q.device(), "attn_mask is on ", mask.device(),
                    " but query is on ", q.device());
  const c10::SymInt full[4] = {q.sym_size(0), q.sym_size(1), q.sym_size(2), seqlen_k};
  bool broadcasts = mask.dim() <= 4;
  for (int64_t i = 0; broadcasts && i < mask.dim(); ++i) {
    const c10::SymInt& got = mask.sym_size(i);
    broadcasts = got == 1 || got == full[4 - mask.dim() + i];
  }
  TORCH_CHECK_VALUE(broadcasts, "attn_mask of shape ", shape_str(mask.sym_sizes()),
                    " does not broadcast to (batch, heads, seqlen_q, seqlen_k) = ",
                    shape_str(full));
}

void check_scalars(double dropout_p, std::optional<double> scale, double softcap,
                   int64_t window_left, int64_t window_right, const char* scale_name) {
  TORCH_CHECK_VALUE(dropout_p >= 0.0 && dropout_p < 1.0,
                    "dropout_p must be a number in [0, 1), got ", py_float(dropout_p));
  TORCH_CHECK_VALUE(!scale.has_value() || std::isfinite(*scale), scale_name,
                    " must be None or a finite number, got ", py_float(scale.value_or(0.0)));
  TORCH_CHECK_VALUE(std::isfinite(softcap) && softcap >= 0.0,
                    "softcap must be a finite number >= 0 (0 disables it), got ",
                    py_float(softcap));
  for (auto [side, w] : {std::pair{"left", window_left}, {"right", window_right}}) {
    TORCH_CHECK_VALUE(w >= -1, "window_size ", side, " must be an int >= 0, or -1 for "
                      "unbounded, got ", w, " in window_size=(", window_left, ", ", window_right,
                      ")");
  }
}

void check_alibi(const at::Tensor& s, const at::Tensor& q, const c10::SymInt& batch,
                 const c10::SymInt& heads_q) {
  TORCH_CHECK_TYPE(s.scalar_type() == at::kFloat, "alibi_slopes must be float32, got ",
                   dtype_name(s.scalar_type()));
  TORCH_CHECK_VALUE(s.device() == q.device(), "alibi_slopes is on ", s.device(),
                    " but query is on ", q.device());
  const bool per_head = s.dim() == 1 && s.sym_size(0) == heads_q;
  const bool per_batch_head = s.dim() == 2 && s.sym_size(0) == batch && s.sym_size(1) == heads_q;
  TORCH_CHECK_VALUE(per_head || per_batch_head, "alibi_slopes must have shape (", heads_q,
                    ",) or (", batch, ", ", heads_q, "), got ", shape_str(s.sym_sizes()));
}

void check_sinks(const at::Tensor& sinks, const at::Tensor& q, const c10::SymInt& heads_q,
                 const char* name, const char* q_name) {
  const auto t = sinks.scalar_type();
  TORCH_CHECK_TYPE(t == at::kFloat || t == q.scalar_type(), name, " has dtype ", dtype_name(t),
                   "; accepted: torch.float32 or the inputs' dtype (",
                   dtype_name(q.scalar_type()), ")");
  TORCH_CHECK_VALUE(sinks.device() == q.device(), name, " is on ", sinks.device(), " but ",
                    q_name, " is on ", q.device(), "; they must be on one device");
  TORCH_CHECK_VALUE(sinks.dim() == 1 && sinks.sym_size(0) == heads_q, name,
                    " must have shape (", heads_q, ",), one logit per query head, got ",
                    shape_str(sinks.sym_sizes()));
}

void check_options(const AttentionOptions& o, const at::Tensor& q, int64_t batch) {
  check_scalars(o.dropout_p, o.scale, o.softcap, o.window_left, o.window_right, "scale");
  // The kernels mask and take row maxima on unscaled scores, which is right for scale > 0 only;
  // flash_ext's Python functions fold a negative or zero scale into q first.
  TORCH_CHECK_VALUE(o.scale > 0.0, "the ops' scale must be finite and > 0 (flash_ext.attention "
                    "and the other Python functions accept any finite scale), got ", o.scale);
  if (o.dropout_p > 0.0) {
    TORCH_CHECK_VALUE(o.dropout_seed.has_value(), "dropout_p > 0 needs dropout_seed");
  }
  if (o.dropout_seed.has_value()) {
    const auto& seed = *o.dropout_seed;
    TORCH_CHECK_VALUE(seed.scalar_type() == at::kLong && seed.numel() >= 1 &&
                          seed.device() == q.device(),
                      "dropout_seed must be an int64 tensor with at least one element on q's "
                      "device (", q.device(), "), got ", dtype_name(seed.scalar_type()),
                      " of shape ", shape_str(seed.sym_sizes()), " on ", seed.device());
  }
  if (o.alibi_slopes.has_value()) check_alibi(*o.alibi_slopes, q, batch, q.sym_size(1));
}

void check_cu_seqlens_layout(const at::Tensor& cu_seqlens_q, const at::Tensor& cu_seqlens_k,
                             const at::Tensor& q) {
  for (auto [name, cu] :
       {std::pair{"cu_seqlens_q", &cu_seqlens_q}, {"cu_seqlens_k", &cu_seqlens_k}}) {
    TORCH_CHECK_VALUE(cu->scalar_type() == at::kInt && cu->dim() == 1 && cu->sym_numel() >= 1,
                      name, " must be a 1-D int32 tensor of batch + 1 offsets, got ",
                      dtype_name(cu->scalar_type()), " of shape ", shape_str(cu->sym_sizes()));
    TORCH_CHECK_VALUE(cu->device() == q.device(), name, " is on ", cu->device(),
                      " but q is on ", q.device());
  }
  TORCH_CHECK_VALUE(cu_seqlens_q.sym_numel() == cu_seqlens_k.sym_numel(), "cu_seqlens_q has ",
                    cu_seqlens_q.sym_numel(), " entries and cu_seqlens_k ",
                    cu_seqlens_k.sym_numel(), "; both must be batch + 1");
}

void check_max_seqlens(int64_t max_seqlen_q, int64_t max_seqlen_k) {
  for (auto [name, m] : {std::pair{"max_seqlen_q", max_seqlen_q}, {"max_seqlen_k", max_seqlen_k}}) {
    TORCH_CHECK_VALUE(m >= 0, name, " must be an int >= 0, got ", m);
  }
}

void check_sm_margin(int64_t sm_margin, int64_t num_sms) {
  TORCH_CHECK_VALUE(sm_margin >= 0, "sm_margin must be an int >= 0 (the SMs the forward leaves "
                    "free), got ", sm_margin);
  TORCH_CHECK_VALUE(num_sms <= 0 || sm_margin < num_sms, "sm_margin=", sm_margin, ": the device "
                    "has ", num_sms, " SMs; the forward needs at least one (sm_margin < ",
                    num_sms, ")");
}

void check_cu_seqlens_values(const at::Tensor& cu_seqlens_q, const at::Tensor& cu_seqlens_k,
                             int64_t total_q, int64_t total_k, int64_t max_seqlen_q,
                             int64_t max_seqlen_k) {
  for (auto [name, cu, total, max_seqlen] :
       {std::tuple{"cu_seqlens_q", &cu_seqlens_q, total_q, max_seqlen_q},
        {"cu_seqlens_k", &cu_seqlens_k, total_k, max_seqlen_k}}) {
    TORCH_CHECK(cu->device().is_cpu(), name, " values are read on the CPU; got a tensor on ",
                cu->device());
    const at::Tensor c = cu->contiguous();
    const int32_t* p = c.data_ptr<int32_t>();
    TORCH_CHECK_VALUE(p[0] == 0, name, "[0] must be 0, got ", p[0]);
    for (int64_t b = 0; b + 1 < c.numel(); ++b) {
      const int64_t len = int64_t{p[b + 1]} - p[b];
      TORCH_CHECK_VALUE(len >= 0, name, " must be non-decreasing, got ", p[b], " then ",
                        p[b + 1], " at index ", b);
      TORCH_CHECK_VALUE(len <= max_seqlen, "sequence ", b, " has length ", len, " in ", name,
                        ", more than its max_seqlen ", max_seqlen);
    }
    TORCH_CHECK_VALUE(p[c.numel() - 1] == total, name, "[-1] must equal the packed total ", total,
                      ", got ", p[c.numel() - 1]);
  }
}

void check_backward_inputs(const at::Tensor& grad_out, const at::Tensor& out,
                           const at::Tensor& lse, const at::Tensor& q, const at::Tensor& v,
                           at::IntArrayRef lse_shape) {
  std::vector<int64_t> out_shape = q.sizes().vec();
  out_shape.back() = v.size(-1);
  TORCH_CHECK_VALUE(out.sizes() == out_shape && out.scalar_type() == q.scalar_type(),
                    "out must match q with v's head_dim, got ", shape_str(out.sym_sizes()), " ",
                    dtype_name(out.scalar_type()));
  TORCH_CHECK_VALUE(grad_out.sizes() == out.sizes() && grad_out.scalar_type() == q.scalar_type(),
                    "grad_out must match out, got ", shape_str(grad_out.sym_sizes()), " ",
                    dtype_name(grad_out.scalar_type()));
  TORCH_CHECK_VALUE(lse.sizes() == lse_shape && lse.scalar_type() == at::kFloat,
                    "lse must be float32 of shape ", lse_shape, ", got ",
                    dtype_name(lse.scalar_type()), " ", shape_str(lse.sym_sizes()));
  for (const at::Tensor* t : {&grad_out, &out, &lse}) {
    TORCH_CHECK_VALUE(t->device() == q.device(), "backward inputs must be on q's device ",
                      q.device(), ", got ", t->device());
  }
}

}  // namespace flash_ext
