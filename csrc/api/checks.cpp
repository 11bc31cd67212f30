#include "checks.h"

#include <c10/util/Exception.h>

#include <cmath>

namespace flash_ext {
namespace {

bool is_supported_dtype(at::ScalarType t) {
  return t == at::kFloat || t == at::kBFloat16 || t == at::kHalf;
}

}  // namespace

void check_qkv(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, bool varlen) {
  const int64_t rank = varlen ? 3 : 4;
  const char* layout = varlen ? "(total, heads, head_dim)" : "(batch, heads, seqlen, head_dim)";
  for (auto [name, t] : {std::pair{"q", &q}, {"k", &k}, {"v", &v}}) {
    TORCH_CHECK(t->dim() == rank, "flash_ext: ", name, " must have rank ", rank, " ", layout,
                ", got shape ", t->sizes());
    TORCH_CHECK(is_supported_dtype(t->scalar_type()), "flash_ext: ", name, " has dtype ",
                t->scalar_type(), "; supported: float32, bfloat16, float16");
    TORCH_CHECK(t->scalar_type() == q.scalar_type(), "flash_ext: ", name, " has dtype ",
                t->scalar_type(), " but q has ", q.scalar_type(), "; they must match");
    TORCH_CHECK(t->device() == q.device(), "flash_ext: ", name, " is on ", t->device(),
                " but q is on ", q.device(), "; they must be on one device");
  }
  const int64_t head_dim = q.size(-1);
  TORCH_CHECK(head_dim > 0, "flash_ext: head_dim must be positive, got q shape ", q.sizes());
  TORCH_CHECK(k.size(-1) == head_dim && v.size(-1) == head_dim,
              "flash_ext: q, k, v must share head_dim, got ", q.size(-1), ", ", k.size(-1), ", ",
              v.size(-1));
  TORCH_CHECK(k.sizes() == v.sizes(), "flash_ext: k and v must have one shape, got ", k.sizes(),
              " and ", v.sizes());
  if (!varlen) {
    TORCH_CHECK(k.size(0) == q.size(0), "flash_ext: k has batch ", k.size(0), " but q has ",
                q.size(0));
  }
  const int64_t heads_q = q.size(1);  // heads are dim 1 in both layouts
  const int64_t heads_kv = k.size(1);
  TORCH_CHECK(heads_kv > 0 && heads_q % heads_kv == 0, "flash_ext: q heads (", heads_q,
              ") must be a multiple of k/v heads (", heads_kv, ")");
}

void check_attn_mask(const at::Tensor& mask, const at::Tensor& q, int64_t seqlen_k) {
  const auto t = mask.scalar_type();
  TORCH_CHECK(t == at::kBool || t == at::kFloat || t == q.scalar_type(),
              "flash_ext: attn_mask has dtype ", t, "; accepted: bool, float32 or q's dtype (",
              q.scalar_type(), ")");
  TORCH_CHECK(mask.device() == q.device(), "flash_ext: attn_mask is on ", mask.device(),
              " but q is on ", q.device());
  TORCH_CHECK(mask.dim() <= 4, "flash_ext: attn_mask must have rank <= 4, got shape ",
              mask.sizes());
  const int64_t full[4] = {q.size(0), q.size(1), q.size(2), seqlen_k};
  for (int64_t i = 0; i < mask.dim(); ++i) {
    const int64_t want = full[4 - mask.dim() + i];
    const int64_t got = mask.size(i);
    TORCH_CHECK(got == want || got == 1, "flash_ext: attn_mask of shape ", mask.sizes(),
                " does not broadcast to (batch, heads, seqlen_q, seqlen_k) = (", full[0], ", ",
                full[1], ", ", full[2], ", ", full[3], ")");
  }
}

void check_options(const AttentionOptions& o, const at::Tensor& q, int64_t batch) {
  const int64_t heads_q = q.size(1);
  TORCH_CHECK(o.dropout_p >= 0.0 && o.dropout_p < 1.0, "flash_ext: dropout_p must be in [0, 1), got ",
              o.dropout_p);
  if (o.dropout_p > 0.0) {
    TORCH_CHECK(o.dropout_seed.has_value(), "flash_ext: dropout_p > 0 needs dropout_seed");
  }
  if (o.dropout_seed.has_value()) {
    const auto& seed = *o.dropout_seed;
    TORCH_CHECK(seed.scalar_type() == at::kLong && seed.numel() >= 1 &&
                    seed.device() == q.device(),
                "flash_ext: dropout_seed must be an int64 tensor with at least one element on q's "
                "device (", q.device(), "), got ", seed.scalar_type(), " of shape ", seed.sizes(),
                " on ", seed.device());
  }
  // The kernels mask and take row maxima on unscaled scores, which is right for scale > 0 only;
  // flash_ext's Python functions fold a negative or zero scale into q first.
  TORCH_CHECK(o.scale > 0.0 && std::isfinite(o.scale),
              "flash_ext: the ops' scale must be finite and > 0 (flash_ext.attention and the "
              "other Python functions accept any finite scale), got ", o.scale);
  TORCH_CHECK(o.softcap >= 0.0 && std::isfinite(o.softcap),
              "flash_ext: softcap must be >= 0 (0 disables it), got ", o.softcap);
  TORCH_CHECK(o.window_left >= -1 && o.window_right >= -1,
              "flash_ext: window sizes must be >= 0 or -1 (unbounded), got (", o.window_left, ", ",
              o.window_right, ")");
  if (o.alibi_slopes.has_value()) {
    const auto& s = *o.alibi_slopes;
    TORCH_CHECK(s.scalar_type() == at::kFloat, "flash_ext: alibi_slopes must be float32, got ",
                s.scalar_type());
    TORCH_CHECK(s.device() == q.device(), "flash_ext: alibi_slopes is on ", s.device(),
                " but q is on ", q.device());
    const bool per_head = s.dim() == 1 && s.size(0) == heads_q;
    const bool per_batch_head = s.dim() == 2 && s.size(0) == batch && s.size(1) == heads_q;
    TORCH_CHECK(per_head || per_batch_head, "flash_ext: alibi_slopes must have shape (", heads_q,
                ",) or (", batch, ", ", heads_q, "), got ", s.sizes());
  }
}

void check_cu_seqlens_layout(const at::Tensor& cu_seqlens_q, const at::Tensor& cu_seqlens_k,
                             const at::Tensor& q) {
  TORCH_CHECK(cu_seqlens_q.numel() == cu_seqlens_k.numel(), "flash_ext: cu_seqlens_q has ",
              cu_seqlens_q.numel(), " entries but cu_seqlens_k has ", cu_seqlens_k.numel(),
              "; both must be batch + 1");
  for (auto [name, cu] :
       {std::pair{"cu_seqlens_q", &cu_seqlens_q}, {"cu_seqlens_k", &cu_seqlens_k}}) {
    TORCH_CHECK(cu->dim() == 1 && cu->numel() >= 1, "flash_ext: ", name,
                " must be 1-D with batch + 1 >= 1 entries, got shape ", cu->sizes());
    TORCH_CHECK(cu->scalar_type() == at::kInt, "flash_ext: ", name, " must be int32, got ",
                cu->scalar_type());
    TORCH_CHECK(cu->device() == q.device(), "flash_ext: ", name, " is on ", cu->device(),
                " but q is on ", q.device(), "; they must be on one device");
  }
}

void check_cu_seqlens_values(const at::Tensor& cu_seqlens_q, const at::Tensor& cu_seqlens_k,
                             int64_t total_q, int64_t total_k, int64_t max_seqlen_q,
                             int64_t max_seqlen_k) {
  for (auto [name, cu, total, max_seqlen] :
       {std::tuple{"cu_seqlens_q", &cu_seqlens_q, total_q, max_seqlen_q},
        {"cu_seqlens_k", &cu_seqlens_k, total_k, max_seqlen_k}}) {
    TORCH_CHECK(cu->device().is_cpu(), "flash_ext: ", name,
                " values are read on the CPU; got a tensor on ", cu->device());
    const at::Tensor c = cu->contiguous();
    const int32_t* p = c.data_ptr<int32_t>();
    TORCH_CHECK(p[0] == 0, "flash_ext: ", name, "[0] must be 0, got ", p[0]);
    for (int64_t b = 0; b + 1 < c.numel(); ++b) {
      const int64_t len = int64_t{p[b + 1]} - p[b];
      TORCH_CHECK(len >= 0, "flash_ext: ", name, " must be non-decreasing, got ", p[b],
                  " then ", p[b + 1], " at index ", b);
      TORCH_CHECK(len <= max_seqlen, "flash_ext: sequence ", b, " has length ", len, " in ", name,
                  ", more than its max_seqlen ", max_seqlen);
    }
    TORCH_CHECK(p[c.numel() - 1] == total, "flash_ext: ", name, "[-1] must equal the packed total ",
                total, ", got ", p[c.numel() - 1]);
  }
}

void check_backward_inputs(const at::Tensor& grad_out, const at::Tensor& out,
                           const at::Tensor& lse, const at::Tensor& q, at::IntArrayRef lse_shape) {
  TORCH_CHECK(out.sizes() == q.sizes() && out.scalar_type() == q.scalar_type(),
              "flash_ext: out must match q, got ", out.sizes(), " ", out.scalar_type());
  TORCH_CHECK(grad_out.sizes() == q.sizes() && grad_out.scalar_type() == q.scalar_type(),
              "flash_ext: grad_out must match q, got ", grad_out.sizes(), " ",
              grad_out.scalar_type());
  TORCH_CHECK(lse.sizes() == lse_shape && lse.scalar_type() == at::kFloat,
              "flash_ext: lse must be float32 of shape ", lse_shape, ", got ", lse.scalar_type(),
              " ", lse.sizes());
  for (const at::Tensor* t : {&grad_out, &out, &lse}) {
    TORCH_CHECK(t->device() == q.device(), "flash_ext: backward inputs must be on q's device ",
                q.device(), ", got ", t->device());
  }
}

}  // namespace flash_ext
