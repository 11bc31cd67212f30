// Tensor plumbing that the CPU and CUDA ops share: the layout the kernels take, the forward's
// outputs, and the NaN poisoning that the tests turn on.
#pragma once

#include <ATen/core/Tensor.h>

#include <initializer_list>
#include <tuple>

namespace flash_ext {

// The kernels need a contiguous last dim; any other stride is taken as is.
at::Tensor last_dim_contiguous(const at::Tensor& t);

// The forward's out (like q, which has a contiguous last dim) and lse (fp32, contiguous,
// (B, Hq, Sq) dense or (Hq, Tq) varlen), uninitialized.
std::tuple<at::Tensor, at::Tensor> empty_forward_outputs(const at::Tensor& q, bool varlen);

// Writes the result of a forward that needs no kernel and returns true: no query rows, or no
// keys at all (out zeros, lse -inf). Returns false otherwise.
bool forward_without_kernel(at::Tensor& out, at::Tensor& lse, const at::Tensor& k);

// FLASH_EXT_POISON_OUTPUTS=1 (the tests set it) fills outputs with NaN before a kernel runs, so
// an element the kernel fails to write cannot pass for a result.
void poison(std::initializer_list<at::Tensor> outputs);

}  // namespace flash_ext
