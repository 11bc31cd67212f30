#include "call.h"

#include <ATen/ATen.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAStream.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>

#include "../dispatch.h"
#include "../tensors.h"

namespace flash_ext::gpu {

using at::Tensor;

int device_attribute(cudaDeviceAttr attribute, const Tensor& on) {
  int value = 0;
  C10_CUDA_CHECK(cudaDeviceGetAttribute(&value, attribute, on.get_device()));
  return value;
}

void check_sm80(const Tensor& q, const char* backend) {
  TORCH_CHECK(q.is_cuda(), "flash_ext: the ", backend, " backend runs on CUDA tensors, got q on ",
              q.device());
  const int major = device_attribute(cudaDevAttrComputeCapabilityMajor, q);
  TORCH_CHECK(major >= 8, "flash_ext: the ", backend, " backend needs compute capability >= 8.0, ",
              q.device(), " has ", major, ".",
              device_attribute(cudaDevAttrComputeCapabilityMinor, q));
}

bool rows_aligned(const Tensor& t, int64_t elems) {
  bool aligned = t.stride(-1) == 1 && reinterpret_cast<uintptr_t>(t.data_ptr()) % 16 == 0;
  for (int64_t d = 0; d + 1 < t.dim(); ++d) {
    aligned = aligned && (t.size(d) == 1 || t.stride(d) % elems == 0);  // size 1: stride unused
  }
  return aligned;
}

Tensor aligned_rows(const Tensor& t, int64_t elems) {
  // clone, not contiguous(): a contiguous view at an odd offset would come back as it is.
  return rows_aligned(t, elems) ? t : t.clone(at::MemoryFormat::Contiguous);
}

int to_int(int64_t value, const char* name) {
  TORCH_CHECK(value >= 0 && value <= INT_MAX, "flash_ext: ", name, " = ", value,
              " is outside the CUDA kernels' range [0, 2^31 - 1]");
  return static_cast<int>(value);
}

bool stream_capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status;
  C10_CUDA_CHECK(cudaStreamIsCapturing(stream, &status));
  return status != cudaStreamCaptureStatusNone;
}

Tensor zeros(at::IntArrayRef sizes, const at::TensorOptions& options) {
  Tensor t = at::empty(sizes, options);
  if (t.numel() > 0) {
    C10_CUDA_CHECK(cudaMemsetAsync(t.data_ptr(), 0, t.nbytes(), c10::cuda::getCurrentCUDAStream()));
  }
  return t;
}

void set_strides(const Tensor& t, int64_t& batch, int64_t& head, int64_t& row) {
  const bool dense = t.dim() == 4;
  batch = dense ? t.stride(0) : 0;
  head = t.stride(1);
  row = t.stride(dense ? 2 : 0);
}

void set_sizes(flash::FwdParams& p, const Tensor& q, const Tensor& k, int64_t batch,
               int64_t seqlen_q, int64_t seqlen_k, double dropout_p, const Tensor& seed) {
  p.batch = to_int(batch, "batch");
  p.heads_q = to_int(q.size(1), "heads_q");
  p.heads_kv = to_int(k.size(1), "heads_kv");
  p.seqlen_q = to_int(seqlen_q, "seqlen_q");
  p.seqlen_k = to_int(seqlen_k, "seqlen_k");
  p.head_dim = p.head_dim_v = to_int(q.size(-1), "head_dim");
  p.is_bf16 = q.scalar_type() == at::kBFloat16;
  p.dropout_p = static_cast<float>(dropout_p);
  if (seed.defined()) p.dropout_seed = seed.data_ptr<int64_t>();
  p.num_sms = device_attribute(cudaDevAttrMultiProcessorCount, q);
  const char* sm80_only = std::getenv("FLASH_EXT_SM80_KERNELS");  // per call: tests toggle it
  p.hopper_kernels = sm80_only == nullptr || std::string(sm80_only) != "1";
}

void check_dropout_seed(const Tensor& seed) {
  TORCH_CHECK(seed.numel() == 2, "flash_ext: the CUDA kernels' dropout_seed holds (seed, "
              "offset): 2 int64 elements, got shape ", seed.sizes());
}

namespace {

// The offsets that passed check_cu_seqlens_values lately. Reading them syncs with the GPU (two
// copies: 40 us a varlen call on the H100 machine, against SDPA's 16), and a training step
// passes the same cu_seqlens tensors to every layer's forward and backward. A tensor is the
// same while it lives (a weak reference) and keeps its version (in-place writes bump it).
struct CheckedOffsets {
  using Weak = c10::weak_intrusive_ptr<c10::TensorImpl, c10::UndefinedTensorImpl>;
  Weak cu_q, cu_k;
  int64_t version_q = 0, version_k = 0;
  int64_t total_q = 0, total_k = 0, max_seqlen_q = 0, max_seqlen_k = 0;

  bool same_tensor(const Weak& weak, const Tensor& t, int64_t version) const {
    return !weak.expired() && weak._unsafe_get_target() == t.unsafeGetTensorImpl() &&
           version == t._version();
  }

  bool matches(const Varlen& v, int64_t tq, int64_t tk) const {
    return same_tensor(cu_q, *v.cu_q, version_q) && same_tensor(cu_k, *v.cu_k, version_k) &&
           total_q == tq && total_k == tk && max_seqlen_q == v.max_seqlen_q &&
           max_seqlen_k == v.max_seqlen_k;
  }
};

constexpr size_t kCheckedOffsets = 8;
std::mutex checked_mutex;
std::array<std::optional<CheckedOffsets>, kCheckedOffsets> checked;
size_t checked_next = 0;

bool offsets_checked(const Varlen& v, int64_t total_q, int64_t total_k) {
  const std::lock_guard<std::mutex> lock(checked_mutex);
  for (const auto& entry : checked) {
    if (entry && entry->matches(v, total_q, total_k)) return true;
  }
  return false;
}

void remember_offsets(const Varlen& v, int64_t total_q, int64_t total_k) {
  const std::lock_guard<std::mutex> lock(checked_mutex);
  checked[checked_next] = CheckedOffsets{
      CheckedOffsets::Weak(v.cu_q->getIntrusivePtr()), CheckedOffsets::Weak(v.cu_k->getIntrusivePtr()),
      v.cu_q->_version(), v.cu_k->_version(),
      total_q, total_k, v.max_seqlen_q, v.max_seqlen_k};
  checked_next = (checked_next + 1) % kCheckedOffsets;
}

}  // namespace

int64_t check_call(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionOptions& o,
                   const Varlen& varlen,
                   void (*check_backend)(const Tensor& q, const Tensor& v)) {
  check_qkv(q, k, v, varlen.packed());
  check_backend(q, v);
  const int64_t batch = varlen.packed() ? varlen.cu_q->numel() - 1 : q.size(0);
  if (varlen.packed()) check_cu_seqlens_layout(*varlen.cu_q, *varlen.cu_k, q);
  check_options(o, q, batch);
  if (o.dropout_p > 0.0) check_dropout_seed(*o.dropout_seed);
  // Reading the offsets syncs with the GPU, which a CUDA graph capture does not allow.
  if (varlen.packed() && !stream_capturing(c10::cuda::getCurrentCUDAStream(q.get_device())) &&
      !offsets_checked(varlen, q.size(0), k.size(0))) {
    check_cu_seqlens_values(varlen.cu_q->cpu(), varlen.cu_k->cpu(), q.size(0), k.size(0),
                            varlen.max_seqlen_q, varlen.max_seqlen_k);
    remember_offsets(varlen, q.size(0), k.size(0));
  }
  return batch;
}

void describe(flash::FwdParams& p, Held& held, const Tensor& q, const Tensor& k, const Tensor& v,
              const Tensor& out, const Tensor& lse, const AttentionOptions& o, bool bottom_right,
              const Varlen& varlen, int64_t batch) {
  if (o.dropout_p > 0.0) held.seed = o.dropout_seed->contiguous();
  set_sizes(p, q, k, batch, varlen.packed() ? varlen.max_seqlen_q : q.size(2),
            varlen.packed() ? varlen.max_seqlen_k : k.size(2), o.dropout_p, held.seed);
  p.head_dim_v = to_int(v.size(-1), "head_dim_v");
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
    p.total_k = to_int(k.size(0), "total_k");
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

void check_launch(cudaError_t status, const char* what) {
  TORCH_CHECK(status == cudaSuccess, "flash_ext: the ", what, " failed to launch: ",
              cudaGetErrorString(status));
}

}  // namespace flash_ext::gpu

namespace flash_ext {
namespace {

std::pair<int, int> cuda_compute_capability(int device_index) {
  int major = 0, minor = 0;
  C10_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device_index));
  C10_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device_index));
  return {major, minor};
}

// Backend selection (dispatch.cpp) asks this build's CUDA runtime for a device's capability.
const bool capability_query_set = (set_capability_query(&cuda_compute_capability), true);

}  // namespace
}  // namespace flash_ext
