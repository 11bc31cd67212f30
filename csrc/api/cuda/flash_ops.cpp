// CUDA implementations of the flash_ext ops on the flash kernels (csrc/flash): validate, describe
// the tensors as flash::FwdParams (forward) or flash::BwdParams (backward), launch on the current
// stream. The only file that joins torch and the flash kernels.
#include <ATen/ATen.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime.h>
#include <torch/library.h>

#include <climits>
#include <cstdint>
#include <iterator>

#include "../../flash/flash_bwd.h"
#include "../../flash/flash_decode.h"
#include "../../flash/flash_fwd.h"
#include "../checks.h"
#include "../tensors.h"
#include "call.h"

namespace flash_ext {
namespace {

using at::Tensor;
using OptTensor = std::optional<Tensor>;
using Quad = std::tuple<Tensor, Tensor, Tensor, Tensor>;
using gpu::Held;
using gpu::Varlen;

constexpr int kMaxHeadDim = flash::kKernelHeadDims[std::size(flash::kKernelHeadDims) - 1];

const char* dtype_name(bool is_bf16) { return is_bf16 ? "bf16" : "fp16"; }

// fp16 / bf16 elements in the kernels' 16-byte row pieces.
constexpr int64_t kRowElems = 16 / 2;

// q on an sm80+ CUDA device in fp16 or bf16 (the other tensors are checked against q).
void check_flash_device_and_dtype(const Tensor& q) {
  gpu::check_sm80(q, "flash");
  const auto dtype = q.scalar_type();
  TORCH_CHECK(dtype == at::kHalf || dtype == at::kBFloat16,
              "flash_ext: the flash backend takes float16 or bfloat16, got ", dtype,
              "; the mem_eff backend takes float32");
}

// head_dim <= 256 with a kernel in this build (FLASH_EXT_HDIMS, FLASH_EXT_DTYPES).
void check_flash_head_dim(const Tensor& q) {
  const int64_t head_dim = q.size(-1);
  TORCH_CHECK(head_dim <= kMaxHeadDim, "flash_ext: the flash backend takes head_dim <= ",
              kMaxHeadDim, ", got ", head_dim);
  TORCH_CHECK(head_dim % kRowElems == 0, "flash_ext: the flash backend takes head_dim a multiple "
              "of 8 (16-byte row loads), got ", head_dim, "; the mem_eff backend takes any "
              "head_dim");
  const int kernel_head_dim = flash::kernel_head_dim(static_cast<int>(head_dim));
  const bool is_bf16 = q.scalar_type() == at::kBFloat16;
  TORCH_CHECK(flash::fwd_built(is_bf16, kernel_head_dim),
              "flash_ext: this build has no flash kernel for head_dim ", head_dim,
              " (kernel head dim ", kernel_head_dim, ") in ", dtype_name(is_bf16),
              "; rebuild with ", kernel_head_dim, " in FLASH_EXT_HDIMS and ",
              dtype_name(is_bf16), " in FLASH_EXT_DTYPES (unset, they build all)");
}

// Whether v's head dim differs from q's in a pair with kernels of its own (kernel head dims
// (192, 128); flash::fwd_dv_runs and bwd_dv_runs say whether a call runs them).
bool value_head_dim_pair(const Tensor& q, const Tensor& v) {
  return v.size(-1) != q.size(-1) && flash::kernel_head_dim(static_cast<int>(q.size(-1))) == 192 &&
         flash::kernel_head_dim(static_cast<int>(v.size(-1))) == 128;
}

// What gpu::check_call checks of q and v for the flash backend.
void check_flash_call(const Tensor& q, const Tensor& v) {
  check_flash_device_and_dtype(q);
  check_flash_head_dim(q);
  TORCH_CHECK_VALUE(v.size(-1) == q.size(-1) || value_head_dim_pair(q, v), "v has head_dim ",
                    v.size(-1), " but q has ", q.size(-1), ": the flash kernels take one head_dim "
                    "for q, k and v, or q/k head dims 161-192 with v head dims 97-128 (Hopper); "
                    "the mem_eff and CPU backends take any pair");
  TORCH_CHECK_VALUE(v.size(-1) % kRowElems == 0, "flash_ext: the flash backend takes v's "
                    "head_dim a multiple of 8, got ", v.size(-1));
}

void check_no_attn_mask(const OptTensor& attn_mask) {
  TORCH_CHECK(!attn_mask.has_value(), "flash_ext: the flash backend takes no attn_mask, got one "
              "of shape ", attn_mask->sizes(), "; it takes causal and sliding-window masks as "
              "window sizes, and the mem_eff backend takes attn_mask");
}

Tensor aligned_rows(const Tensor& t) { return gpu::aligned_rows(t, kRowElems); }

// What a forward's params point into beside its inputs and outputs, kept until the launch:
// the fp32 partials of `slices` key splits (out_accum (slices, B, Hq, Sq, kernel head dim),
// lse_accum (slices, B, Hq, Sq); none for 0), and the sinks as fp32.
struct Workspace {
  Tensor out_accum, lse_accum, sinks;

  Workspace(flash::FwdParams& p, const Tensor& q, int slices, const OptTensor& sinks_in) {
    const auto f32 = q.options().dtype(at::kFloat);
    if (slices > 0) {
      out_accum = at::empty({slices, p.batch, p.heads_q, p.seqlen_q,
                             flash::kernel_head_dim(p.head_dim)}, f32);
      lse_accum = at::empty({slices, p.batch, p.heads_q, p.seqlen_q}, f32);
      p.out_accum = out_accum.data_ptr<float>();
      p.lse_accum = lse_accum.data_ptr<float>();
    }
    if (sinks_in.has_value()) {
      sinks = sinks_in->to(at::kFloat).contiguous();
      p.sinks = sinks.data_ptr<float>();
    }
  }
};

// The kernels join the sinks as they normalize (the combine kernel, under split-KV).
std::tuple<Tensor, Tensor> forward(const Tensor& q_in, const Tensor& k_in, const Tensor& v_in,
                                   const AttentionOptions& o, bool bottom_right,
                                   const Varlen& varlen, const OptTensor& sinks,
                                   int64_t sm_margin) {
  const int64_t batch = gpu::check_call(q_in, k_in, v_in, o, varlen, check_flash_call);
  if (sinks.has_value()) check_sinks(*sinks, q_in, q_in.sym_size(1), "sinks", "q");
  if (sm_margin != 0) {
    check_sm_margin(sm_margin, gpu::device_attribute(cudaDevAttrMultiProcessorCount, q_in));
  }
  const c10::cuda::CUDAGuard guard(q_in.device());
  const Tensor q = aligned_rows(q_in), k = aligned_rows(k_in), v = aligned_rows(v_in);
  auto [out, lse] = empty_forward_outputs(q, v, varlen.packed());
  if (forward_without_kernel(out, lse, k)) {
    add_sinks(out, lse, sinks);
    return {out, lse};
  }

  flash::FwdParams p;
  Held held;
  gpu::describe(p, held, q, k, v, out, lse, o, bottom_right, varlen, batch);
  p.num_sms -= static_cast<int>(sm_margin);  // the persistent grid's size; the split heuristic's
  p.num_splits = p.head_dim_v == p.head_dim ? flash::fwd_num_splits(p) : 1;
  TORCH_CHECK(p.head_dim_v == p.head_dim || flash::fwd_dv_runs(p), "flash_ext: the flash "
              "backend runs v head dim ", p.head_dim_v, " with q/k head dim ", p.head_dim,
              " only on Hopper (sm90) GPUs, without dropout, with q, k and v 16-byte aligned; "
              "the mem_eff backend takes any pair");
  const char* unsupported = flash::fwd_unsupported(p);
  TORCH_CHECK(unsupported == nullptr, "flash_ext: the flash backend cannot run this call: ",
              unsupported);
  const Workspace workspace(p, q, p.num_splits > 1 ? p.num_splits : 0, sinks);
  Tensor tile_counter;
  if (flash::fwd_wants_tile_counter(p)) {
    tile_counter = gpu::zeros({1}, q.options().dtype(at::kInt));
    p.tile_counter = tile_counter.data_ptr<int>();
  }
  poison({out, lse});
  gpu::check_launch(flash::run_fwd(p, c10::cuda::getCurrentCUDAStream()), "flash forward");
  return {out, lse};
}

// The sinks' gradient from the kernels' dsum pass (rowsum(dO * out), each row's share).
Quad backward(const Tensor& grad_out_in, const Tensor& q_in, const Tensor& k_in,
              const Tensor& v_in, const Tensor& out_in, const Tensor& lse_in,
              const AttentionOptions& o, bool bottom_right, bool deterministic,
              const Varlen& varlen, const OptTensor& sinks) {
  const int64_t batch = gpu::check_call(q_in, k_in, v_in, o, varlen, check_flash_call);
  check_backward_inputs(grad_out_in, out_in, lse_in, q_in, v_in,
                        lse_shape(q_in, varlen.packed()));
  if (sinks.has_value()) check_sinks(*sinks, q_in, q_in.sym_size(1), "sinks", "q");
  const c10::cuda::CUDAGuard guard(q_in.device());
  // Gradients laid out as the fake implementation says; the kernels write them with any strides.
  auto [dq, dk, dv] = empty_grads(q_in, k_in, v_in);
  if (backward_without_kernel(dq, dk, dv)) {
    return {dq, dk, dv, sinks_grad(sinks, lse_in, grad_out_in, out_in)};
  }
  // Fresh empty_like of an input with a contiguous last dim (head_dim a multiple of 8) keeps
  // every stride a multiple of head_dim.
  TORCH_INTERNAL_ASSERT(gpu::rows_aligned(dq, kRowElems) && gpu::rows_aligned(dk, kRowElems) &&
                            gpu::rows_aligned(dv, kRowElems),
                        "flash_ext: gradients are not 16-byte row aligned");
  const Tensor q = aligned_rows(q_in), k = aligned_rows(k_in), v = aligned_rows(v_in),
               out = aligned_rows(out_in), dout = aligned_rows(grad_out_in);
  const Tensor lse = lse_in.contiguous();

  flash::BwdParams p;
  Held held;
  gpu::describe(p, held, q, k, v, out, lse, o, bottom_right, varlen, batch);
  p.dout = dout.data_ptr();
  p.dq = dq.data_ptr();
  p.dk = dk.data_ptr();
  p.dv = dv.data_ptr();
  gpu::set_strides(dout, p.do_batch_stride, p.do_head_stride, p.do_row_stride);
  gpu::set_strides(dq, p.dq_batch_stride, p.dq_head_stride, p.dq_row_stride);
  gpu::set_strides(dk, p.dk_batch_stride, p.dk_head_stride, p.dk_row_stride);
  gpu::set_strides(dv, p.dv_batch_stride, p.dv_head_stride, p.dv_row_stride);
  p.deterministic = deterministic;
  const int max_smem = gpu::device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, q);
  TORCH_CHECK(p.head_dim_v == p.head_dim || flash::bwd_dv_runs(p, max_smem), "flash_ext: the "
              "flash backend runs the backward of v head dim ", p.head_dim_v, " with q/k head "
              "dim ", p.head_dim, " only on Hopper (sm90) GPUs, without dropout, with q and "
              "grad_out 16-byte aligned; the mem_eff backend takes any pair");
  int needed = 0;
  const char* unsupported = flash::bwd_unsupported(p, max_smem, &needed);
  TORCH_CHECK(unsupported == nullptr, "flash_ext: the flash backend cannot run this backward: ",
              unsupported, " (its smallest tile configuration for head_dim ", p.head_dim,
              " needs ", (needed + 1023) / 1024, " KB of shared memory per block; ", q.device(),
              " has ", max_smem / 1024, " KB)");

  // Workspaces: rowsum(dO * O) laid out like lse, dq in fp32 (zeroed: atomics add into it), and
  // the counters that order a deterministic call's dq additions on the Hopper kernel.
  const auto f32 = q.options().dtype(at::kFloat);
  const Tensor dsum = at::empty_like(lse);
  const flash::BwdWorkspace workspace = flash::bwd_workspace(p, max_smem);
  p.dq_splits = workspace.dq_splits;
  const Tensor dq_accum = gpu::zeros(
      {p.dq_splits, flash::bwd_dq_rows(p), flash::kernel_head_dim(p.head_dim)}, f32);
  p.dsum = dsum.data_ptr<float>();
  p.dq_accum = dq_accum.data_ptr<float>();
  // The sinks' gradient from the dsum pass: added up there, or (deterministic calls) each row's
  // share, summed per head below.
  Tensor sinks_f32, sink_rows, grad_sinks;
  if (sinks.has_value()) {
    sinks_f32 = sinks->to(at::kFloat).contiguous();
    p.sinks = sinks_f32.data_ptr<float>();
    if (deterministic) {
      sink_rows = at::empty_like(lse);
      p.sink_rows = sink_rows.data_ptr<float>();
    } else {
      grad_sinks = gpu::zeros({p.heads_q}, f32);
      p.grad_sinks = grad_sinks.data_ptr<float>();
    }
  }
  Tensor dq_semaphore;
  if (workspace.dq_semaphores > 0) {
    dq_semaphore = gpu::zeros({workspace.dq_semaphores}, q.options().dtype(at::kInt));
    p.dq_semaphore = dq_semaphore.data_ptr<int>();
  }
  poison({dq, dk, dv});
  gpu::check_launch(flash::run_bwd(p, max_smem, c10::cuda::getCurrentCUDAStream()),
                    "flash backward");
  if (!sinks.has_value()) return {dq, dk, dv, at::empty({0}, f32)};
  return {dq, dk, dv, deterministic ? sum_per_head(sink_rows) : grad_sinks};
}

std::tuple<Tensor, Tensor> attention_fwd(const Tensor& q, const Tensor& k, const Tensor& v,
                                         const OptTensor& attn_mask, const OptTensor& alibi_slopes,
                                         const OptTensor& dropout_seed, double dropout_p,
                                         double scale, int64_t window_left, int64_t window_right,
                                         bool bottom_right, double softcap,
                                         bool /*deterministic*/, const OptTensor& sinks,
                                         int64_t sm_margin) {
  check_no_attn_mask(attn_mask);
  const AttentionOptions o{alibi_slopes, dropout_seed, dropout_p, scale,
                           window_left,  window_right, softcap};
  return forward(q, k, v, o, bottom_right, Varlen{}, sinks, sm_margin);
}

Quad attention_bwd(const Tensor& grad_out, const Tensor& q, const Tensor& k, const Tensor& v,
                   const Tensor& out, const Tensor& lse, const OptTensor& attn_mask,
                   const OptTensor& alibi_slopes, const OptTensor& dropout_seed, double dropout_p,
                   double scale, int64_t window_left, int64_t window_right, bool bottom_right,
                   double softcap, bool deterministic, const OptTensor& sinks) {
  check_no_attn_mask(attn_mask);
  const AttentionOptions o{alibi_slopes, dropout_seed, dropout_p, scale,
                           window_left,  window_right, softcap};
  return backward(grad_out, q, k, v, out, lse, o, bottom_right, deterministic, Varlen{}, sinks);
}

std::tuple<Tensor, Tensor> attention_varlen_fwd(
    const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& cu_seqlens_q,
    const Tensor& cu_seqlens_k, int64_t max_seqlen_q, int64_t max_seqlen_k,
    const OptTensor& alibi_slopes, const OptTensor& dropout_seed, double dropout_p, double scale,
    int64_t window_left, int64_t window_right, bool bottom_right, double softcap,
    bool /*deterministic*/, const OptTensor& sinks, int64_t sm_margin) {
  const AttentionOptions o{alibi_slopes, dropout_seed, dropout_p, scale,
                           window_left,  window_right, softcap};
  return forward(q, k, v, o, bottom_right,
                 Varlen{&cu_seqlens_q, &cu_seqlens_k, max_seqlen_q, max_seqlen_k}, sinks,
                 sm_margin);
}

Quad attention_varlen_bwd(const Tensor& grad_out, const Tensor& q, const Tensor& k,
                          const Tensor& v, const Tensor& out, const Tensor& lse,
                          const Tensor& cu_seqlens_q, const Tensor& cu_seqlens_k,
                          int64_t max_seqlen_q, int64_t max_seqlen_k,
                          const OptTensor& alibi_slopes, const OptTensor& dropout_seed,
                          double dropout_p, double scale, int64_t window_left,
                          int64_t window_right, bool bottom_right, double softcap,
                          bool deterministic, const OptTensor& sinks) {
  const AttentionOptions o{alibi_slopes, dropout_seed, dropout_p, scale,
                           window_left,  window_right, softcap};
  return backward(grad_out, q, k, v, out, lse, o, bottom_right, deterministic,
                  Varlen{&cu_seqlens_q, &cu_seqlens_k, max_seqlen_q, max_seqlen_k}, sinks);
}

Tensor flash_dropout_keep_mask(const Tensor& q, const Tensor& k, const Tensor& dropout_seed,
                               double dropout_p) {
  check_qkv(q, k, k, /*varlen=*/false);
  check_flash_device_and_dtype(q);
  const OptTensor no_slopes, seed_in = dropout_seed;
  check_options({no_slopes, seed_in, dropout_p, 1.0, -1, -1, 0.0}, q, q.size(0));
  gpu::check_dropout_seed(dropout_seed);
  const Tensor seed = dropout_seed.contiguous();
  const c10::cuda::CUDAGuard guard(q.device());
  Tensor keep = at::empty({q.size(0), q.size(1), q.size(2), k.size(2)},
                          q.options().dtype(at::kBool));
  if (keep.numel() == 0) return keep;
  flash::FwdParams p;
  gpu::set_sizes(p, q, k, q.size(0), q.size(2), k.size(2), dropout_p, seed);
  // bool is one byte holding 0 or 1: the kernel's uint8 mask, as is.
  gpu::check_launch(
      flash::dropout_keep_mask(p, reinterpret_cast<uint8_t*>(keep.data_ptr<bool>()),
                               c10::cuda::getCurrentCUDAStream()),
      "flash dropout keep-mask");
  return keep;
}

// An optional (batch,) integer tensor on q's device, as the int32 the decode kernels read.
Tensor per_sequence(const OptTensor& t, const char* name, int64_t batch, const Tensor& q) {
  if (!t.has_value()) return Tensor();
  TORCH_CHECK_VALUE(at::isIntegralType(t->scalar_type(), /*includeBool=*/false) &&
                        t->device() == q.device() && t->dim() == 1 && t->size(0) == batch,
                    "flash_ext: ", name, " must be an integer tensor of shape (", batch, ") on ",
                    q.device(), ", got ", t->scalar_type(), " of shape ", t->sizes(), " on ",
                    t->device());
  return t->to(at::kInt).contiguous();
}

// (batch or page, token, head) strides: the decode kernels' batch, row and head.
void set_token_strides(const Tensor& t, int64_t& batch, int64_t& head, int64_t& row) {
  batch = t.stride(0), row = t.stride(1), head = t.stride(2);
}

// flash_attn_with_kvcache on the cache where it lies (flash/decode_kernel.h): k_new and v_new
// (B, Snew, Hkv, D) appended in place at each sequence's cache_seqlens (a (B,) tensor, else
// the int cache_seqlen for all), then q (B, Sq, Hq, D) against the cache: dense
// (B_cache, S_cache, Hkv, D), rows chosen by cache_batch_idx, or pages
// (num_pages, page_size, Hkv, D) of block_table (B, max_blocks) int32; cache_leftpad (B,) where
// each sequence starts. Query token i sits at position cache_seqlens + Snew - Sq + i: windows
// (causal is window_right 0) align bottom-right. Returns out (B, Sq, Hq, D) and lse (B, Hq, Sq)
// fp32. Indices given as tensors are checked by the kernels (a device-side assertion).
std::tuple<Tensor, Tensor> kvcache_fwd(
    const Tensor& q_in, const Tensor& k_cache, const Tensor& v_cache, const OptTensor& k_new_in,
    const OptTensor& v_new_in, const OptTensor& cache_seqlens_in, int64_t cache_seqlen,
    const OptTensor& cache_batch_idx_in, const OptTensor& cache_leftpad_in,
    const OptTensor& block_table, double scale, int64_t window_left, int64_t window_right,
    double softcap, const OptTensor& sinks, int64_t num_splits) {
  TORCH_CHECK_VALUE(q_in.dim() == 4, "flash_ext: q must be (batch, seqlen_q, heads, head_dim), "
                    "got shape ", q_in.sizes());
  check_flash_device_and_dtype(q_in);
  check_flash_head_dim(q_in);
  const int64_t batch = q_in.size(0), seqlen_q = q_in.size(1), heads_q = q_in.size(2);
  const int64_t head_dim = q_in.size(3);
  for (const Tensor* cache : {&k_cache, &v_cache}) {
    const char* name = cache == &k_cache ? "k_cache" : "v_cache";
    TORCH_CHECK_VALUE(cache->dim() == 4 && cache->sizes() == k_cache.sizes() &&
                          cache->size(3) == head_dim,
                      "flash_ext: ", name, " must be (batch or pages, seqlen or page_size, "
                      "heads_kv, ", head_dim, ") like k_cache, got ", cache->sizes());
    TORCH_CHECK_VALUE(cache->scalar_type() == q_in.scalar_type() &&
                          cache->device() == q_in.device(),
                      "flash_ext: ", name, " must be ", q_in.scalar_type(), " on ", q_in.device(),
                      " like q, got ", cache->scalar_type(), " on ", cache->device());
    TORCH_CHECK_VALUE(gpu::rows_aligned(*cache, kRowElems), "flash_ext: ", name, " must have a "
                      "contiguous last dim, 16-byte aligned strides and start (it is read and "
                      "written in place), got strides ", cache->strides());
  }
  const int64_t heads_kv = k_cache.size(2);
  TORCH_CHECK_VALUE(heads_kv > 0 && heads_q % heads_kv == 0, "flash_ext: q's ", heads_q,
                    " heads must be a multiple of the cache's ", heads_kv);
  TORCH_CHECK_VALUE(k_new_in.has_value() == v_new_in.has_value(),
                    "flash_ext: k and v go together: both new tokens or both None");
  Tensor k_new, v_new;
  for (const OptTensor* t : {&k_new_in, &v_new_in}) {
    if (!t->has_value()) continue;
    TORCH_CHECK_VALUE((*t)->dim() == 4 && (*t)->size(0) == batch && (*t)->size(2) == heads_kv &&
                          (*t)->size(3) == head_dim && (*t)->sizes() == (*k_new_in).sizes() &&
                          (*t)->device() == q_in.device(),
                      "flash_ext: k and v must be (", batch, ", seqlen_new, ", heads_kv, ", ",
                      head_dim, ") on ", q_in.device(), ", got ", (*k_new_in).sizes(), " and ",
                      (*v_new_in).sizes());
    (t == &k_new_in ? k_new : v_new) = aligned_rows((*t)->to(k_cache.scalar_type()));
  }
  const int64_t new_tokens = k_new.defined() ? k_new.size(1) : 0;
  int64_t tokens = k_cache.size(1);
  if (block_table.has_value()) {
    TORCH_CHECK_VALUE(!cache_batch_idx_in.has_value(), "flash_ext: cache_batch_idx is not "
                      "supported with block_table (paged cache)");
    TORCH_CHECK_VALUE(block_table->scalar_type() == at::kInt && block_table->dim() == 2 &&
                          block_table->size(0) == batch && block_table->stride(-1) == 1 &&
                          block_table->device() == q_in.device(),
                      "flash_ext: block_table must be (", batch, ", max_blocks_per_seq) int32 on ",
                      q_in.device(), " with a contiguous last dim, got ",
                      block_table->scalar_type(), " of shape ", block_table->sizes());
    tokens = block_table->size(1) * k_cache.size(1);
  }
  if (!cache_seqlens_in.has_value()) {
    TORCH_CHECK_VALUE(cache_seqlen >= 0 && cache_seqlen + new_tokens <= tokens,
                      "flash_ext: cache_seqlens must be >= 0 with cache_seqlens + seqlen_new <= "
                      "the cache's ", tokens, " tokens, got ", cache_seqlen, " + ", new_tokens);
  }
  if (sinks.has_value()) check_sinks(*sinks, q_in, heads_q, "learnable_sink", "q");
  TORCH_CHECK_VALUE(num_splits >= 0, "flash_ext: num_splits must be >= 0 (0: the kernel "
                    "chooses), got ", num_splits);
  TORCH_CHECK_VALUE(scale > 0.0 && softcap >= 0.0, "flash_ext: scale must be > 0 and softcap "
                    ">= 0, got ", scale, " and ", softcap);
  const c10::cuda::CUDAGuard guard(q_in.device());
  const Tensor q = aligned_rows(q_in);
  Tensor out = at::empty_like(q, at::MemoryFormat::Contiguous);
  Tensor lse = at::empty({batch, heads_q, seqlen_q}, q.options().dtype(at::kFloat));
  if (batch == 0 || (seqlen_q == 0 && new_tokens == 0)) return {out, lse};

  flash::DecodeParams p;
  const Tensor cache_seqlens = per_sequence(cache_seqlens_in, "cache_seqlens", batch, q);
  const Tensor cache_batch_idx = per_sequence(cache_batch_idx_in, "cache_batch_idx", batch, q);
  const Tensor cache_leftpad = per_sequence(cache_leftpad_in, "cache_leftpad", batch, q);
  if (cache_seqlens.defined()) p.cache_seqlens = cache_seqlens.data_ptr<int>();
  if (cache_batch_idx.defined()) p.cache_batch_idx = cache_batch_idx.data_ptr<int>();
  if (cache_leftpad.defined()) p.cache_leftpad = cache_leftpad.data_ptr<int>();
  p.cache_seqlen = gpu::to_int(cache_seqlen, "cache_seqlens");
  if (block_table.has_value()) {
    p.block_table = block_table->data_ptr<int>();
    p.block_table_stride = block_table->stride(0);
    p.page_size = gpu::to_int(k_cache.size(1), "page_size");
    TORCH_CHECK_VALUE(p.page_size > 0, "flash_ext: a paged cache needs page_size > 0");
  }
  p.q = q.data_ptr();
  p.k = k_cache.data_ptr();
  p.v = v_cache.data_ptr();
  p.out = out.data_ptr();
  p.lse = lse.data_ptr<float>();
  set_token_strides(q, p.q_batch_stride, p.q_head_stride, p.q_row_stride);
  set_token_strides(k_cache, p.k_batch_stride, p.k_head_stride, p.k_row_stride);
  set_token_strides(v_cache, p.v_batch_stride, p.v_head_stride, p.v_row_stride);
  set_token_strides(out, p.o_batch_stride, p.o_head_stride, p.o_row_stride);
  if (new_tokens > 0) {
    p.k_new = k_new.data_ptr();
    p.v_new = v_new.data_ptr();
    set_token_strides(k_new, p.k_new_batch_stride, p.k_new_head_stride, p.k_new_row_stride);
    set_token_strides(v_new, p.v_new_batch_stride, p.v_new_head_stride, p.v_new_row_stride);
    p.new_tokens = gpu::to_int(new_tokens, "seqlen_new");
  }
  p.batch = gpu::to_int(batch, "batch");
  p.heads_q = gpu::to_int(heads_q, "heads_q");
  p.heads_kv = gpu::to_int(heads_kv, "heads_kv");
  p.seqlen_q = gpu::to_int(seqlen_q, "seqlen_q");
  p.seqlen_k = gpu::to_int(tokens, "the cache's tokens");
  p.cache_rows = gpu::to_int(k_cache.size(0), "the cache's rows or pages");
  p.head_dim = p.head_dim_v = gpu::to_int(head_dim, "head_dim");
  p.is_bf16 = q.scalar_type() == at::kBFloat16;
  p.num_sms = gpu::device_attribute(cudaDevAttrMultiProcessorCount, q);
  p.scale = static_cast<float>(scale);
  p.softcap = static_cast<float>(softcap);
  // As gpu::describe: run_decode drops windows wider than both sequences.
  p.window_left = static_cast<int>(std::min<int64_t>(window_left, INT_MAX));
  p.window_right = static_cast<int>(std::min<int64_t>(window_right, INT_MAX));
  const char* unsupported = flash::decode_unsupported(p);
  TORCH_CHECK(unsupported == nullptr, "flash_ext: the decode kernel cannot run this call: ",
              unsupported);
  p.num_splits = flash::decode_num_splits(p, num_splits);
  const Workspace workspace(p, q, flash::decode_slices(p), sinks);
  poison({out, lse});
  gpu::check_launch(flash::run_decode(p, c10::cuda::getCurrentCUDAStream()), "flash decode");
  return {out, lse};
}

}  // namespace

TORCH_LIBRARY_IMPL(flash_ext, CUDA, m) {
  m.impl("attention_fwd", &attention_fwd);
  m.impl("attention_bwd", &attention_bwd);
  m.impl("attention_varlen_fwd", &attention_varlen_fwd);
  m.impl("attention_varlen_bwd", &attention_varlen_bwd);
  m.impl("flash_dropout_keep_mask", &flash_dropout_keep_mask);
  m.impl("kvcache_fwd", &kvcache_fwd);
}

}  // namespace flash_ext
