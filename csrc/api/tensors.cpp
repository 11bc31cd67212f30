#include "tensors.h"

#include <ATen/ATen.h>

#include <cstdlib>
#include <limits>
#include <string>

namespace flash_ext {

at::Tensor last_dim_contiguous(const at::Tensor& t) {
  return t.stride(-1) == 1 ? t : t.contiguous();
}

std::tuple<at::Tensor, at::Tensor> empty_forward_outputs(const at::Tensor& q, bool varlen) {
  const auto lse_options = q.options().dtype(at::kFloat);
  at::Tensor lse = varlen ? at::empty({q.size(1), q.size(0)}, lse_options)
                          : at::empty({q.size(0), q.size(1), q.size(2)}, lse_options);
  return {at::empty_like(q), lse};
}

bool forward_without_kernel(at::Tensor& out, at::Tensor& lse, const at::Tensor& k) {
  if (out.numel() == 0) return true;
  if (k.numel() != 0) return false;
  out.zero_();
  lse.fill_(-std::numeric_limits<float>::infinity());
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
