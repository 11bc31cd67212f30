// CUDA implementations of the mem_eff ops on the CUTLASS memory-efficient kernels (csrc/mem_eff):
// validate, bring what the kernels' 16-byte row loads cannot read into padded copies, describe
// the call as mem_eff::FwdParams or mem_eff::BwdParams, launch on the current stream. The only
// file that joins torch and the mem_eff kernels.
#include <ATen/ATen.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime.h>
#include <torch/library.h>

#include <cstdint>
#include <iterator>
#include <limits>
#include <type_traits>
#include <vector>

#include "../../mem_eff/mem_eff.h"
#include "../checks.h"
#include "../tensors.h"
#include "call.h"

namespace flash_ext {
namespace {

using at::Tensor;
using OptTensor = std::optional<Tensor>;
using gpu::Held;
using gpu::Varlen;

constexpr int kMaxHeadDim = mem_eff::kKernelHeadDims[std::size(mem_eff::kKernelHeadDims) - 1];

// q on an sm80+ CUDA device, q's and v's head dims <= 256 (check_qkv has checked the dtype:
// fp32, fp16 or bf16, all of which the kernels take).
void check_mem_eff_call(const Tensor& q, const Tensor& v) {
  gpu::check_sm80(q, "mem_eff");
  TORCH_CHECK(q.size(-1) <= kMaxHeadDim, "flash_ext: the mem_eff backend takes head_dim <= ",
              kMaxHeadDim, ", got ", q.size(-1));
  TORCH_CHECK(v.size(-1) <= kMaxHeadDim, "flash_ext: the mem_eff backend takes v's head_dim <= ",
              kMaxHeadDim, ", got ", v.size(-1));
}

Varlen varlen_of(const OptTensor& cu_seqlens_q, const OptTensor& cu_seqlens_k,
                 int64_t max_seqlen_q, int64_t max_seqlen_k) {
  TORCH_CHECK(cu_seqlens_q.has_value() == cu_seqlens_k.has_value(), "flash_ext: cu_seqlens_q and "
              "cu_seqlens_k go together: both tensors (varlen) or both None (dense)");
  if (!cu_seqlens_q.has_value()) return {};
  return {&*cu_seqlens_q, &*cu_seqlens_k, max_seqlen_q, max_seqlen_k};
}

// attn_bias: dense calls only, an additive bias of q's dtype or a boolean mask (True: the key
// is seen), broadcastable to (B, Hq, Sq, Sk).
void check_bias(const OptTensor& attn_bias, bool bias_requires_grad, const Tensor& q,
                const Tensor& k, const Varlen& varlen) {
  TORCH_CHECK(!bias_requires_grad || attn_bias.has_value(),
              "flash_ext: bias_requires_grad is true but there is no attn_bias");
  if (!attn_bias.has_value()) return;
  TORCH_CHECK(!varlen.packed(), "flash_ext: the mem_eff backend takes no attn_bias with varlen "
              "(cu_seqlens) inputs, got one of shape ", attn_bias->sizes());
  const bool is_mask = attn_bias->scalar_type() == at::kBool;
  TORCH_CHECK(is_mask || attn_bias->scalar_type() == q.scalar_type(), "flash_ext: the mem_eff "
              "backend's attn_bias is a boolean mask or an additive bias of q's dtype (",
              q.scalar_type(), "), got ", attn_bias->scalar_type());
  TORCH_CHECK(!(is_mask && bias_requires_grad), "flash_ext: bias_requires_grad is true but "
              "attn_bias is a boolean mask, which has no gradient");
  check_attn_mask(*attn_bias, q, k.size(2));
}

int64_t round_up(int64_t n, int64_t multiple) { return (n + multiple - 1) / multiple * multiple; }

// The kernels load and store rows in 16-byte pieces: the pieces' elements, and the head dim the
// kernels read of a tensor like t (q's for q, k, dq, dk; v's for v, out, dO, dv), rounded up to
// whole pieces.
struct RowLayout {
  int64_t align;     // elements per 16 bytes: mem_eff::row_alignment
  int64_t head_dim;  // params.head_dim (of q) or params.head_dim_v (of v)
};

RowLayout row_layout(const Tensor& t) {
  const int64_t align = mem_eff::row_alignment(t.scalar_type() == at::kFloat);
  return {align, round_up(t.size(-1), align)};
}

std::vector<int64_t> with_last(const Tensor& t, int64_t last) {
  std::vector<int64_t> sizes = t.sizes().vec();
  sizes.back() = last;
  return sizes;
}

// An input (q, k, v, out, grad_out) as the kernels read it: itself when its rows load as they
// are, a contiguous copy when only its layout is off, a copy zero-padded to the kernels' head dim
// when that is longer (the zeros add nothing to q . k nor to dO . O, and give zero columns of out
// and of the gradients, which are sliced off).
Tensor kernel_input(const Tensor& t, const RowLayout& rows) {
  const int64_t head_dim = t.size(-1);
  if (head_dim == rows.head_dim) return gpu::aligned_rows(t, rows.align);
  Tensor padded = at::empty(with_last(t, rows.head_dim), t.options());
  padded.narrow(-1, 0, head_dim).copy_(t);
  padded.narrow(-1, head_dim, rows.head_dim - head_dim).zero_();
  return padded;
}

// Where the kernels write an output (out, grad_q/k/v, a fresh tensor laid out as the fake
// implementation says): the output itself when they can write its rows, else a padded buffer
// that copy_back copies from.
Tensor kernel_output(const Tensor& t, const RowLayout& rows) {
  if (t.size(-1) == rows.head_dim && gpu::rows_aligned(t, rows.align)) return t;
  return at::empty(with_last(t, rows.head_dim), t.options());
}

void copy_back(Tensor& t, const Tensor& written) {
  if (!written.is_same(t)) t.copy_(written.narrow(-1, 0, t.size(-1)));
}

// attn_bias as a (B, Hq, Sq, Sk) view the kernels read, whose dims of size 1 broadcast (stride
// 0): the bias itself when its last dim is contiguous, its start and strides 16-byte aligned and
// Sk whole 16-byte pieces (the kernels load a row's last piece whole, so a shorter row would be
// read past its end); else a copy (Bb, Hb, Sqb, roundup(Sk, align)), zero in the padding, that
// keeps the broadcast dims at size 1. A boolean mask becomes 0 where True and -inf where False
// in q's dtype (`dtype`), which the kernels read as hidden keys (BiasParams::bias_is_mask).
Tensor kernel_bias(const Tensor& attn_bias, int64_t seqlen_k, int64_t align,
                   at::ScalarType dtype) {
  Tensor bias = attn_bias;
  if (bias.scalar_type() == at::kBool) {
    bias = at::zeros_like(bias, bias.options().dtype(dtype))
               .masked_fill_(bias.logical_not(), -std::numeric_limits<double>::infinity());
  }
  while (bias.dim() < 4) bias = bias.unsqueeze(0);
  if (bias.size(3) == seqlen_k && seqlen_k % align == 0 && gpu::rows_aligned(bias, align)) {
    return bias;
  }
  const int64_t row = round_up(seqlen_k, align);
  Tensor padded = at::empty({bias.size(0), bias.size(1), bias.size(2), row}, bias.options());
  padded.narrow(3, 0, seqlen_k).copy_(bias.expand({-1, -1, -1, seqlen_k}));
  padded.narrow(3, seqlen_k, row - seqlen_k).zero_();
  return padded;
}

// Stride 0 on the dims of size 1: they broadcast.
int64_t broadcast_stride(const Tensor& t, int64_t dim) {
  return t.size(dim) == 1 ? 0 : t.stride(dim);
}

// grad_bias (B, Hq, Sq, Sk) in q's dtype, zeros (the kernels write the blocks that some row
// sees: the others' gradient is 0), in rows of whole 16-byte pieces: a view of
// (B, Hq, Sq, roundup(Sk, align)), as the fake says.
Tensor zero_bias_grad(const Tensor& q, int64_t seqlen_k, const RowLayout& rows) {
  return gpu::zeros({q.size(0), q.size(1), q.size(2), round_up(seqlen_k, rows.align)}, q.options())
      .narrow(3, 0, seqlen_k);
}

// What the forward and the backward (Params: mem_eff::FwdParams or BwdParams) share: everything
// flash::FwdParams holds (on the kernels' q, k, v, out, lse), the bias (kernel_bias of
// attn_bias) and the dtype.
template <typename Params>
void describe(Params& p, Held& held, const Tensor& q, const Tensor& k,
              const Tensor& v, const Tensor& out, const Tensor& lse, const Tensor& bias,
              const OptTensor& attn_bias, const AttentionOptions& o, bool bottom_right,
              const Varlen& varlen, int64_t batch) {
  gpu::describe(p, held, q, k, v, out, lse, o, bottom_right, varlen, batch);
  p.is_float = q.scalar_type() == at::kFloat;
  if (p.is_float && mem_eff::reads_guard_scan(p, std::is_same_v<Params, mem_eff::BwdParams>)) {
    held.guard_flag = at::empty({1}, q.options().dtype(at::kInt));
    p.guard_flag = held.guard_flag.data_ptr<int>();
  }
  if (bias.defined()) {
    p.bias_is_mask = attn_bias->scalar_type() == at::kBool;
    p.bias = bias.data_ptr();
    p.bias_batch_stride = broadcast_stride(bias, 0);
    p.bias_head_stride = broadcast_stride(bias, 1);
    p.bias_row_stride = broadcast_stride(bias, 2);
  }
}

// Raises unless the kernels can run `p` (for the caller's q) on its device (grid limits, shared
// memory).
void check_supported(const flash::FwdParams& p, const Tensor& q) {
  const int max_smem = gpu::device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, q);
  const char* unsupported =
      mem_eff::unsupported(p, q.scalar_type() == at::kFloat, max_smem);
  TORCH_CHECK(unsupported == nullptr, "flash_ext: the mem_eff backend cannot run this call: ",
              unsupported, " (head dims ", q.size(-1), " and ", p.head_dim_v,
              " in the kernel of head dim ", mem_eff::kernel_head_dim(p), ", ", q.scalar_type(),
              ", on ", q.device(),
              " with ", max_smem / 1024, " KB of shared memory per block)");
}

std::tuple<Tensor, Tensor> mem_eff_fwd(
    const Tensor& q_in, const Tensor& k_in, const Tensor& v_in, const OptTensor& attn_bias,
    const OptTensor& cu_seqlens_q, const OptTensor& cu_seqlens_k, int64_t max_seqlen_q,
    int64_t max_seqlen_k, const OptTensor& alibi_slopes, const OptTensor& dropout_seed,
    double dropout_p, double scale, int64_t window_left, int64_t window_right,
    bool bottom_right, double softcap, bool /*deterministic*/) {
  const Varlen varlen = varlen_of(cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k);
  const AttentionOptions o{alibi_slopes, dropout_seed, dropout_p,    scale,
                           window_left,  window_right, softcap};
  const int64_t batch = gpu::check_call(q_in, k_in, v_in, o, varlen, check_mem_eff_call);
  check_bias(attn_bias, /*bias_requires_grad=*/false, q_in, k_in, varlen);
  const c10::cuda::CUDAGuard guard(q_in.device());
  auto [out, lse] = empty_forward_outputs(q_in, v_in, varlen.packed());
  if (forward_without_kernel(out, lse, k_in)) return {out, lse};

  const RowLayout rows = row_layout(q_in), rows_v = row_layout(v_in);
  const Tensor q = kernel_input(q_in, rows), k = kernel_input(k_in, rows),
               v = kernel_input(v_in, rows_v);
  const Tensor bias = attn_bias.has_value()
      ? kernel_bias(*attn_bias, k_in.size(2), rows.align, q_in.scalar_type()) : Tensor();
  const Tensor out_written = kernel_output(out, rows_v);
  mem_eff::FwdParams p;
  Held held;
  describe(p, held, q, k, v, out_written, lse, bias, attn_bias, o, bottom_right, varlen, batch);
  check_supported(p, q_in);
  poison({out_written, lse});
  gpu::check_launch(mem_eff::run_fwd(p, c10::cuda::getCurrentCUDAStream()), "mem_eff forward");
  copy_back(out, out_written);
  return {out, lse};
}

std::tuple<Tensor, Tensor, Tensor, Tensor> mem_eff_bwd(
    const Tensor& grad_out_in, const Tensor& q_in, const Tensor& k_in, const Tensor& v_in,
    const Tensor& out_in, const Tensor& lse_in, const OptTensor& attn_bias,
    bool bias_requires_grad, const OptTensor& cu_seqlens_q, const OptTensor& cu_seqlens_k,
    int64_t max_seqlen_q, int64_t max_seqlen_k, const OptTensor& alibi_slopes,
    const OptTensor& dropout_seed, double dropout_p, double scale, int64_t window_left,
    int64_t window_right, bool bottom_right, double softcap, bool deterministic) {
  const Varlen varlen = varlen_of(cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k);
  const AttentionOptions o{alibi_slopes, dropout_seed, dropout_p,    scale,
                           window_left,  window_right, softcap};
  const int64_t batch = gpu::check_call(q_in, k_in, v_in, o, varlen, check_mem_eff_call);
  check_bias(attn_bias, bias_requires_grad, q_in, k_in, varlen);
  check_backward_inputs(grad_out_in, out_in, lse_in, q_in, v_in,
                        lse_shape(q_in, varlen.packed()));
  const c10::cuda::CUDAGuard guard(q_in.device());
  const RowLayout rows = row_layout(q_in), rows_v = row_layout(v_in);
  auto [dq, dk, dv] = empty_grads(q_in, k_in, v_in);
  const Tensor dbias = bias_requires_grad ? zero_bias_grad(q_in, k_in.size(2), rows)
                                          : at::empty({0}, q_in.options());
  if (backward_without_kernel(dq, dk, dv)) return {dq, dk, dv, dbias};

  const Tensor q = kernel_input(q_in, rows), k = kernel_input(k_in, rows),
               v = kernel_input(v_in, rows_v), out = kernel_input(out_in, rows_v),
               dout = kernel_input(grad_out_in, rows_v);
  const Tensor lse = lse_in.contiguous();
  const Tensor bias = attn_bias.has_value()
      ? kernel_bias(*attn_bias, k_in.size(2), rows.align, q_in.scalar_type()) : Tensor();
  const Tensor dq_written = kernel_output(dq, rows), dk_written = kernel_output(dk, rows),
               dv_written = kernel_output(dv, rows_v);
  mem_eff::BwdParams p;
  Held held;
  describe(p, held, q, k, v, out, lse, bias, attn_bias, o, bottom_right, varlen, batch);
  p.dout = dout.data_ptr();
  p.dq = dq_written.data_ptr();
  p.dk = dk_written.data_ptr();
  p.dv = dv_written.data_ptr();
  gpu::set_strides(dout, p.do_batch_stride, p.do_head_stride, p.do_row_stride);
  gpu::set_strides(dq_written, p.dq_batch_stride, p.dq_head_stride, p.dq_row_stride);
  gpu::set_strides(dk_written, p.dk_batch_stride, p.dk_head_stride, p.dk_row_stride);
  gpu::set_strides(dv_written, p.dv_batch_stride, p.dv_head_stride, p.dv_row_stride);
  if (bias_requires_grad) {
    p.dbias = dbias.data_ptr();
    p.dbias_batch_stride = dbias.stride(0);
    p.dbias_head_stride = dbias.stride(1);
    p.dbias_row_stride = dbias.stride(2);
  }
  // Workspaces: rowsum(dO * O) laid out like lse (the backward's first kernel writes it) and,
  // unless the backward runs as two kernels, dq in fp32 per lse row (zeroed: atomics add into
  // it).
  const Tensor dsum = at::empty_like(lse);
  p.dsum = dsum.data_ptr<float>();
  p.deterministic = deterministic;
  const bool two_kernels = mem_eff::two_kernel_backward(p);
  const Tensor dq_accum =
      two_kernels ? Tensor()
                  : gpu::zeros({lse.numel(), mem_eff::kernel_head_dim(p)}, lse.options());
  if (!two_kernels) p.dq_accum = dq_accum.data_ptr<float>();
  check_supported(p, q_in);
  poison({dq_written, dk_written, dv_written});
  gpu::check_launch(mem_eff::run_bwd(p, c10::cuda::getCurrentCUDAStream()), "mem_eff backward");
  copy_back(dq, dq_written);
  copy_back(dk, dk_written);
  copy_back(dv, dv_written);
  return {dq, dk, dv, dbias};
}

}  // namespace

TORCH_LIBRARY_IMPL(flash_ext, CUDA, m) {
  m.impl("mem_eff_fwd", &mem_eff_fwd);
  m.impl("mem_eff_bwd", &mem_eff_bwd);
}

}  // namespace flash_ext
