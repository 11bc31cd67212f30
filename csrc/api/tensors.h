// Tensor plumbing that the CPU and CUDA ops share: the layout the kernels take, the forward's
// outputs, the backward's gradients, and the NaN poisoning that the tests turn on.
#pragma once

#include <ATen/core/Tensor.h>

#include <initializer_list>
#include <optional>
#include <tuple>
#include <vector>

namespace flash_ext {

// The kernels need a contiguous last dim; any other stride is taken as is.
at::Tensor last_dim_contiguous(const at::Tensor& t);

// The shape of lse for q: (B, Hq, Sq) dense (rank 4), (Hq, Tq) varlen (rank 3).
std::vector<int64_t> lse_shape(const at::Tensor& q, bool varlen);

// empty_like(t), or of t's contiguous copy when its last dim is strided (without copying t): the
// layout of the outputs and gradients that flash_ext/ops.py's fake implementations give.
at::Tensor empty_like_rows(const at::Tensor& t);

// The forward's out (empty_like_rows(q); contiguous of q's shape with v's head_dim where that
// differs) and lse (fp32, contiguous, lse_shape), uninitialized.
std::tuple<at::Tensor, at::Tensor> empty_forward_outputs(const at::Tensor& q, const at::Tensor& v,
                                                         bool varlen);

// Writes the result of a forward that needs no kernel and returns true: no query rows, or no
// keys at all (out zeros, lse -inf). Returns false otherwise.
bool forward_without_kernel(at::Tensor& out, at::Tensor& lse, const at::Tensor& k);

// The backward's grad_q, grad_k, grad_v, uninitialized, empty_like_rows of q, k, v: laid out as
// flash_ext/ops.py's fake implementation says, so that eager and compiled strides agree.
std::tuple<at::Tensor, at::Tensor, at::Tensor> empty_grads(const at::Tensor& q,
                                                           const at::Tensor& k,
                                                           const at::Tensor& v);

// Zeroes the gradients of a backward that needs no kernel (no query rows or no keys) and returns
// true. Returns false otherwise.
bool backward_without_kernel(at::Tensor& grad_q, at::Tensor& grad_k, at::Tensor& grad_v);

// Joins learnable sinks (Hq,) to a forward's out and lse (its kernel's, without them) in place,
// for the kernels that do not take them: lse' = logaddexp(lse, sink), out' = out exp(lse - lse').
// A row without visible keys gets out 0 and lse = its sink.
void add_sinks(const at::Tensor& out, at::Tensor& lse, const std::optional<at::Tensor>& sinks);

// The sum over each head's rows of a float32 tensor laid out like the forward's lse ((B, Hq, Sq),
// or (Hq, Tq) varlen): (Hq,).
at::Tensor sum_per_head(const at::Tensor& rows);

// The sinks' gradient, (Hq,) float32: -sum over each head's rows of exp(sink - lse') rowsum(dO *
// out'), from the backward's lse' (the sink joined), grad_out and out' (dense (B, Hq, Sq, Dv) or
// packed (Tq, Hq, Dv)), for backends whose kernels keep their row sums; a row whose lse' is its
// sink's infinity (no key and a sink of -inf, or a sink of +inf: out' = 0) adds 0. An empty
// (0,) without sinks (the backward ops' grad_sinks).
at::Tensor sinks_grad(const std::optional<at::Tensor>& sinks, const at::Tensor& lse,
                      const at::Tensor& grad_out, const at::Tensor& out);

// FLASH_EXT_POISON_OUTPUTS=1 (the tests set it) fills outputs with NaN before a kernel runs, so
// an element the kernel fails to write cannot pass for a result.
void poison(std::initializer_list<at::Tensor> outputs);

}  // namespace flash_ext
