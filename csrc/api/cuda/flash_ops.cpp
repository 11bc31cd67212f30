// CUDA implementations of the flash_ext ops on the flash kernels (csrc/flash): validate, describe
// the tensors as flash::FwdParams (forward) or flash::BwdParams (backward), launch on the current
// stream. The only file that joins torch and the flash kernels.
#include <ATen/ATen.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime.h>
#include <torch/library.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <iterator>

#include "../../flash/flash_bwd.h"
#include "../../flash/flash_fwd.h"
#include "../checks.h"
#include "../tensors.h"

namespace flash_ext {
namespace {

using at::Tensor;
using OptTensor = std::optional<Tensor>;

constexpr int kMaxHeadDim = flash::kKernelHeadDims[std::size(flash::kKernelHeadDims) - 1];

const char* dtype_name(bool is_bf16) { return is_bf16 ? "bf16" : "fp16"; }

int device_attribute(cudaDeviceAttr attribute, const Tensor& on) {
  int value = 0;
  C10_CUDA_CHECK(cudaDeviceGetAttribute(&value, attribute, on.get_device()));
  return value;
}

// q on an sm80+ CUDA device in fp16 or bf16 (the other tensors are checked against q).
void check_flash_device_and_dtype(const Tensor& q) {
  TORCH_CHECK(q.is_cuda(), "flash_ext: the flash backend runs on CUDA tensors, got q on ",
              q.device());
  const auto dtype = q.scalar_type();
  TORCH_CHECK(dtype == at::kHalf || dtype == at::kBFloat16,
              "flash_ext: the flash backend takes float16 or bfloat16, got ", dtype,
              "; the mem_eff backend takes float32");
  const int major = device_attribute(cudaDevAttrComputeCapabilityMajor, q);
  TORCH_CHECK(major >= 8, "flash_ext: the flash backend needs compute capability >= 8.0, ",
              q.device(), " has ", major, ".",
              device_attribute(cudaDevAttrComputeCapabilityMinor, q));
}

// The kernels load and store rows in 16-byte pieces: the start and every stride but the last
// (which is 1) must be 16-byte aligned.
bool rows_aligned(const Tensor& t) {
  constexpr int64_t kElems = 16 / 2;  // fp16 / bf16 elements in 16 bytes
  bool aligned = t.stride(-1) == 1 && reinterpret_cast<uintptr_t>(t.data_ptr()) % 16 == 0;
  for (int64_t d = 0; d + 1 < t.dim(); ++d) {
    aligned = aligned && (t.size(d) == 1 || t.stride(d) % kElems == 0);  // size 1: stride unused
  }
  return aligned;
}

// An input view that is not rows_aligned (an odd slice, say) is copied.
Tensor aligned_rows(const Tensor& t) {
  // clone, not contiguous(): a contiguous view at an odd offset would come back as it is.
  return rows_aligned(t) ? t : t.clone(at::MemoryFormat::Contiguous);
}

// head_dim <= 256 with a kernel in this build (FLASH_EXT_HDIMS, FLASH_EXT_DTYPES).
void check_flash_head_dim(const Tensor& q) {
  const int64_t head_dim = q.size(-1);
  TORCH_CHECK(head_dim <= kMaxHeadDim, "flash_ext: the flash backend takes head_dim <= ",
              kMaxHeadDim, ", got ", head_dim);
  TORCH_CHECK(head_dim % 8 == 0, "flash_ext: the flash backend takes head_dim a multiple of 8 "
              "(16-byte row loads), got ", head_dim, "; the mem_eff backend takes any head_dim");
  const int kernel_head_dim = flash::kernel_head_dim(static_cast<int>(head_dim));
  const bool is_bf16 = q.scalar_type() == at::kBFloat16;
  TORCH_CHECK(flash::fwd_built(is_bf16, kernel_head_dim),
              "flash_ext: this build has no flash kernel for head_dim ", head_dim,
              " (kernel head dim ", kernel_head_dim, ") in ", dtype_name(is_bf16),
              "; rebuild with ", kernel_head_dim, " in FLASH_EXT_HDIMS and ",
              dtype_name(is_bf16), " in FLASH_EXT_DTYPES (unset, they build all)");
}

// The kernels index sizes with int.
int to_int(int64_t value, const char* name) {
  TORCH_CHECK(value >= 0 && value <= INT_MAX, "flash_ext: ", name, " = ", value,
              " is outside the flash kernels' range [0, 2^31 - 1]");
  return static_cast<int>(value);
}

// The flash kernels read dropout_seed on the device as (Philox key, counter offset).
void check_flash_dropout_seed(const Tensor& seed) {
  TORCH_CHECK(seed.numel() == 2, "flash_ext: the flash backend's dropout_seed holds (seed, "
              "offset): 2 int64 elements, got shape ", seed.sizes());
}

void check_no_attn_mask(const OptTensor& attn_mask) {
  TORCH_CHECK(!attn_mask.has_value(), "flash_ext: the flash backend takes no attn_mask, got one "
              "of shape ", attn_mask->sizes(), "; it takes causal and sliding-window masks as "
              "window sizes, and the mem_eff backend takes attn_mask");
}

bool stream_capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status;
  C10_CUDA_CHECK(cudaStreamIsCapturing(stream, &status));
  return status != cudaStreamCaptureStatusNone;
}

// Element strides of (batch, head, row) of (B, H, S, D) dense or (T, H, D) packed tensors, whose
// sequences start at their cu_seqlens row instead of a batch stride.
void set_strides(const Tensor& t, int64_t& batch, int64_t& head, int64_t& row) {
  const bool dense = t.dim() == 4;
  batch = dense ? t.stride(0) : 0;
  head = t.stride(1);
  row = t.stride(dense ? 2 : 0);
}

// What every flash op sets: sizes, dtype, dropout (`seed` is undefined without dropout), the
// device's SMs.
void set_sizes(flash::FwdParams& p, const Tensor& q, const Tensor& k, int64_t batch,
               int64_t seqlen_q, int64_t seqlen_k, double dropout_p, const Tensor& seed) {
  p.batch = to_int(batch, "batch");
  p.heads_q = to_int(q.size(1), "heads_q");
  p.heads_kv = to_int(k.size(1), "heads_kv");
  p.seqlen_q = to_int(seqlen_q, "seqlen_q");
  p.seqlen_k = to_int(seqlen_k, "seqlen_k");
  p.head_dim = to_int(q.size(-1), "head_dim");
  p.is_bf16 = q.scalar_type() == at::kBFloat16;
  p.dropout_p = static_cast<float>(dropout_p);
  if (seed.defined()) p.dropout_seed = seed.data_ptr<int64_t>();
  p.num_sms = device_attribute(cudaDevAttrMultiProcessorCount, q);
}

// The packed offsets and max lengths of a varlen call; cu_q == nullptr for dense calls.
struct Varlen {
  const Tensor* cu_q = nullptr;
  const Tensor* cu_k = nullptr;
  int64_t max_seqlen_q = 0;
  int64_t max_seqlen_k = 0;

  bool packed() const { return cu_q != nullptr; }
};

// The checks of (q, k, v), the options and the offsets that the forward and the backward share.
// Returns the batch size.
int64_t check_call(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionOptions& o,
                   const Varlen& varlen) {
  check_qkv(q, k, v, varlen.packed());
  check_flash_device_and_dtype(q);
  check_flash_head_dim(q);
  const int64_t batch = varlen.packed() ? varlen.cu_q->numel() - 1 : q.size(0);
  if (varlen.packed()) check_cu_seqlens_layout(*varlen.cu_q, *varlen.cu_k, q);
  check_options(o, q, batch);
  if (o.dropout_p > 0.0) check_flash_dropout_seed(*o.dropout_seed);
  // Reading the offsets syncs with the GPU, which a CUDA graph capture does not allow.
  if (varlen.packed() && !stream_capturing(c10::cuda::getCurrentCUDAStream(q.get_device()))) {
    check_cu_seqlens_values(varlen.cu_q->cpu(), varlen.cu_k->cpu(), q.size(0), k.size(0),
                            varlen.max_seqlen_q, varlen.max_seqlen_k);
  }
  return batch;
}

// Tensors that params point into (contiguous copies of the caller's), kept until the launch.
struct Held {
  Tensor seed, cu_q, cu_k, slopes;
};

// What the forward and the backward share: sizes, q, k, v, out and lse with their strides, the
// offsets and every option. q, k, v and out are rows_aligned; lse is contiguous.
void describe(flash::FwdParams& p, Held& held, const Tensor& q, const Tensor& k, const Tensor& v,
              const Tensor& out, const Tensor& lse, const AttentionOptions& o, bool bottom_right,
              const Varlen& varlen, int64_t batch) {
  if (o.dropout_p > 0.0) held.seed = o.dropout_seed->contiguous();
  set_sizes(p, q, k, batch, varlen.packed() ? varlen.max_seqlen_q : q.size(2),
            varlen.packed() ? varlen.max_seqlen_k : k.size(2), o.dropout_p, held.seed);
  p.q = q.data_ptr();
  p.k = k.data_ptr();
  p.v = v.data_ptr();
  p.out = out.data_ptr();
  set_strides(q, p.q_batch_stride, p.q_head_stride, p.q_row_stride);
  set_strides(k, p.k_batch_stride, p.k_head_stride, p.k_row_stride);
  set_strides(v, p.v_batch_stride, p.v_head_stride, p.v_row_stride);
  set_strides(out, p.o_batch_stride, p.o_head_stride, p.o_row_stride);
  p.lse = lse.data_ptr<float>();
  if (varlen.packed()) {
    held.cu_q = varlen.cu_q->contiguous();
    held.cu_k = varlen.cu_k->contiguous();
    p.cu_seqlens_q = held.cu_q.data_ptr<int32_t>();
    p.cu_seqlens_k = held.cu_k.data_ptr<int32_t>();
    p.total_q = to_int(q.size(0), "total_q");
  }
  p.scale = static_cast<float>(o.scale);
  p.softcap = static_cast<float>(o.softcap);
  p.window_left = static_cast<int>(std::min<int64_t>(o.window_left, INT_MAX));
  p.window_right = static_cast<int>(std::min<int64_t>(o.window_right, INT_MAX));
  p.bottom_right = bottom_right;
  if (o.alibi_slopes.has_value()) {
    held.slopes = last_dim_contiguous(*o.alibi_slopes);
    p.alibi_slopes = held.slopes.data_ptr<float>();
    p.alibi_batch_stride = held.slopes.dim() == 2 ? held.slopes.stride(0) : 0;
  }
}

std::tuple<Tensor, Tensor> forward(const Tensor& q_in, const Tensor& k_in, const Tensor& v_in,
                                   const AttentionOptions& o, bool bottom_right,
                                   const Varlen& varlen) {
  const int64_t batch = check_call(q_in, k_in, v_in, o, varlen);
  const c10::cuda::CUDAGuard guard(q_in.device());
  const Tensor q = aligned_rows(q_in), k = aligned_rows(k_in), v = aligned_rows(v_in);
  auto [out, lse] = empty_forward_outputs(q, varlen.packed());
  if (forward_without_kernel(out, lse, k)) return {out, lse};

  flash::FwdParams p;
  Held held;
  describe(p, held, q, k, v, out, lse, o, bottom_right, varlen, batch);
  p.num_splits = flash::fwd_num_splits(p);
  const char* unsupported = flash::fwd_unsupported(p);
  TORCH_CHECK(unsupported == nullptr, "flash_ext: the flash backend cannot run this call: ",
              unsupported);
  Tensor out_accum, lse_accum;
  if (p.num_splits > 1) {
    const auto f32 = q.options().dtype(at::kFloat);
    out_accum = at::empty({p.num_splits, p.batch, p.heads_q, p.seqlen_q,
                           flash::kernel_head_dim(p.head_dim)}, f32);
    lse_accum = at::empty({p.num_splits, p.batch, p.heads_q, p.seqlen_q}, f32);
    p.out_accum = out_accum.data_ptr<float>();
    p.lse_accum = lse_accum.data_ptr<float>();
  }
  poison({out, lse});
  const cudaError_t status = flash::run_fwd(p, c10::cuda::getCurrentCUDAStream());
  TORCH_CHECK(status == cudaSuccess, "flash_ext: the flash forward failed to launch: ",
              cudaGetErrorString(status));
  return {out, lse};
}

std::tuple<Tensor, Tensor, Tensor> backward(const Tensor& grad_out_in, const Tensor& q_in,
                                            const Tensor& k_in, const Tensor& v_in,
                                            const Tensor& out_in, const Tensor& lse_in,
                                            const AttentionOptions& o, bool bottom_right,
                                            bool deterministic, const Varlen& varlen) {
  const int64_t batch = check_call(q_in, k_in, v_in, o, varlen);
  check_backward_inputs(grad_out_in, out_in, lse_in, q_in, lse_shape(q_in, varlen.packed()));
  const c10::cuda::CUDAGuard guard(q_in.device());
  // Gradients laid out as the fake implementation says; the kernels write them with any strides.
  auto [dq, dk, dv] = empty_grads(q_in, k_in, v_in);
  if (backward_without_kernel(dq, dk, dv)) return {dq, dk, dv};
  // Fresh empty_like of an input with a contiguous last dim (head_dim a multiple of 8) keeps
  // every stride a multiple of head_dim.
  TORCH_INTERNAL_ASSERT(rows_aligned(dq) && rows_aligned(dk) && rows_aligned(dv),
                        "flash_ext: gradients are not 16-byte row aligned");
  const Tensor q = aligned_rows(q_in), k = aligned_rows(k_in), v = aligned_rows(v_in),
               out = aligned_rows(out_in), dout = aligned_rows(grad_out_in);
  const Tensor lse = lse_in.contiguous();

  flash::BwdParams p;
  Held held;
  describe(p, held, q, k, v, out, lse, o, bottom_right, varlen, batch);
  p.dout = dout.data_ptr();
  p.dq = dq.data_ptr();
  p.dk = dk.data_ptr();
  p.dv = dv.data_ptr();
  set_strides(dout, p.do_batch_stride, p.do_head_stride, p.do_row_stride);
  set_strides(dq, p.dq_batch_stride, p.dq_head_stride, p.dq_row_stride);
  set_strides(dk, p.dk_batch_stride, p.dk_head_stride, p.dk_row_stride);
  set_strides(dv, p.dv_batch_stride, p.dv_head_stride, p.dv_row_stride);
  p.deterministic = deterministic;
  p.dq_splits = flash::bwd_dq_splits(p);
  const int max_smem = device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, q);
  int needed = 0;
  const char* unsupported = flash::bwd_unsupported(p, max_smem, &needed);
  TORCH_CHECK(unsupported == nullptr, "flash_ext: the flash backend cannot run this backward: ",
              unsupported, " (its smallest tile configuration for head_dim ", p.head_dim,
              " needs ", (needed + 1023) / 1024, " KB of shared memory per block; ", q.device(),
              " has ", max_smem / 1024, " KB)");

  // Workspaces: rowsum(dO * O) laid out like lse, and dq in fp32 (zeroed: atomics add into it).
  const auto f32 = q.options().dtype(at::kFloat);
  const Tensor dsum = at::empty_like(lse);
  const Tensor dq_accum = at::zeros(
      {p.dq_splits, flash::bwd_dq_rows(p), flash::kernel_head_dim(p.head_dim)}, f32);
  p.dsum = dsum.data_ptr<float>();
  p.dq_accum = dq_accum.data_ptr<float>();
  poison({dq, dk, dv});
  const cudaError_t status = flash::run_bwd(p, max_smem, c10::cuda::getCurrentCUDAStream());
  TORCH_CHECK(status == cudaSuccess, "flash_ext: the flash backward failed to launch: ",
              cudaGetErrorString(status));
  return {dq, dk, dv};
}

std::tuple<Tensor, Tensor> attention_fwd(const Tensor& q, const Tensor& k, const Tensor& v,
                                         const OptTensor& attn_mask, const OptTensor& alibi_slopes,
                                         const OptTensor& dropout_seed, double dropout_p,
                                         double scale, int64_t window_left, int64_t window_right,
                                         bool bottom_right, double softcap,
                                         bool /*deterministic*/) {
  check_no_attn_mask(attn_mask);
  const AttentionOptions o{alibi_slopes, dropout_seed, dropout_p, scale,
                           window_left,  window_right, softcap};
  return forward(q, k, v, o, bottom_right, Varlen{});
}

std::tuple<Tensor, Tensor, Tensor> attention_bwd(
    const Tensor& grad_out, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& out,
    const Tensor& lse, const OptTensor& attn_mask, const OptTensor& alibi_slopes,
    const OptTensor& dropout_seed, double dropout_p, double scale, int64_t window_left,
    int64_t window_right, bool bottom_right, double softcap, bool deterministic) {
  check_no_attn_mask(attn_mask);
  const AttentionOptions o{alibi_slopes, dropout_seed, dropout_p, scale,
                           window_left,  window_right, softcap};
  return backward(grad_out, q, k, v, out, lse, o, bottom_right, deterministic, Varlen{});
}

std::tuple<Tensor, Tensor> attention_varlen_fwd(
    const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& cu_seqlens_q,
    const Tensor& cu_seqlens_k, int64_t max_seqlen_q, int64_t max_seqlen_k,
    const OptTensor& alibi_slopes, const OptTensor& dropout_seed, double dropout_p, double scale,
    int64_t window_left, int64_t window_right, bool bottom_right, double softcap,
    bool /*deterministic*/) {
  const AttentionOptions o{alibi_slopes, dropout_seed, dropout_p, scale,
                           window_left,  window_right, softcap};
  return forward(q, k, v, o, bottom_right,
                 Varlen{&cu_seqlens_q, &cu_seqlens_k, max_seqlen_q, max_seqlen_k});
}

std::tuple<Tensor, Tensor, Tensor> attention_varlen_bwd(
    const Tensor& grad_out, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& out,
    const Tensor& lse, const Tensor& cu_seqlens_q, const Tensor& cu_seqlens_k,
    int64_t max_seqlen_q, int64_t max_seqlen_k, const OptTensor& alibi_slopes,
    const OptTensor& dropout_seed, double dropout_p, double scale, int64_t window_left,
    int64_t window_right, bool bottom_right, double softcap, bool deterministic) {
  const AttentionOptions o{alibi_slopes, dropout_seed, dropout_p, scale,
                           window_left,  window_right, softcap};
  return backward(grad_out, q, k, v, out, lse, o, bottom_right, deterministic,
                  Varlen{&cu_seqlens_q, &cu_seqlens_k, max_seqlen_q, max_seqlen_k});
}

Tensor flash_dropout_keep_mask(const Tensor& q, const Tensor& k, const Tensor& dropout_seed,
                               double dropout_p) {
  check_qkv(q, k, k, /*varlen=*/false);
  check_flash_device_and_dtype(q);
  const OptTensor no_slopes, seed_in = dropout_seed;
  check_options({no_slopes, seed_in, dropout_p, 1.0, -1, -1, 0.0}, q, q.size(0));
  check_flash_dropout_seed(dropout_seed);
  const Tensor seed = dropout_seed.contiguous();
  const c10::cuda::CUDAGuard guard(q.device());
  Tensor keep = at::empty({q.size(0), q.size(1), q.size(2), k.size(2)},
                          q.options().dtype(at::kBool));
  if (keep.numel() == 0) return keep;
  flash::FwdParams p;
  set_sizes(p, q, k, q.size(0), q.size(2), k.size(2), dropout_p, seed);
  // bool is one byte holding 0 or 1: the kernel's uint8 mask, as is.
  const cudaError_t status = flash::dropout_keep_mask(
      p, reinterpret_cast<uint8_t*>(keep.data_ptr<bool>()), c10::cuda::getCurrentCUDAStream());
  TORCH_CHECK(status == cudaSuccess, "flash_ext: the flash dropout keep-mask failed to launch: ",
              cudaGetErrorString(status));
  return keep;
}

}  // namespace

TORCH_LIBRARY_IMPL(flash_ext, CUDA, m) {
  m.impl("attention_fwd", &attention_fwd);
  m.impl("attention_bwd", &attention_bwd);
  m.impl("attention_varlen_fwd", &attention_varlen_fwd);
  m.impl("attention_varlen_bwd", &attention_varlen_bwd);
  m.impl("flash_dropout_keep_mask", &flash_dropout_keep_mask);
}

}  // namespace flash_ext
