// What the CUDA backends' ops share (flash_ops.cpp, mem_eff_ops.cpp): device queries, the checks
// of one call, and its description as flash::FwdParams (which mem_eff::FwdParams extends).
#pragma once

#include <ATen/core/Tensor.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "../../flash/params.h"
#include "../checks.h"

namespace flash_ext::gpu {

int device_attribute(cudaDeviceAttr attribute, const at::Tensor& on);

// q on a CUDA device of compute capability >= 8.0; `backend` names the backend in errors.
void check_sm80(const at::Tensor& q, const char* backend);

// The kernels load and store rows in 16-byte pieces of `elems` elements: the start and every
// stride but the last (which is 1) must be 16-byte aligned.
bool rows_aligned(const at::Tensor& t, int64_t elems);

// t, or a contiguous copy when it is not rows_aligned (an odd slice, say).
at::Tensor aligned_rows(const at::Tensor& t, int64_t elems);

// The kernels index sizes with int.
int to_int(int64_t value, const char* name);

bool stream_capturing(cudaStream_t stream);

// A zeroed workspace, cleared by cudaMemsetAsync on the current stream (the caller's device
// guard set): at::zeros launches a fill kernel, ~30 us of host time a call on the H100's host
// under torch.profiler, the largest item of a backward call's.
at::Tensor zeros(at::IntArrayRef sizes, const at::TensorOptions& options);

// Element strides of (batch, head, row) of (B, H, S, D) dense or (T, H, D) packed tensors, whose
// sequences start at their cu_seqlens row instead of a batch stride.
void set_strides(const at::Tensor& t, int64_t& batch, int64_t& head, int64_t& row);

// Sizes (head_dim_v = head_dim: describe sets v's), dtype (is_bf16), dropout (`seed` is
// undefined without dropout) and the device's SMs.
void set_sizes(flash::FwdParams& p, const at::Tensor& q, const at::Tensor& k, int64_t batch,
               int64_t seqlen_q, int64_t seqlen_k, double dropout_p, const at::Tensor& seed);

// The packed offsets and max lengths of a varlen call; cu_q == nullptr for dense calls.
struct Varlen {
  const at::Tensor* cu_q = nullptr;
  const at::Tensor* cu_k = nullptr;
  int64_t max_seqlen_q = 0;
  int64_t max_seqlen_k = 0;

  bool packed() const { return cu_q != nullptr; }
};

// The kernels read dropout_seed on the device as (Philox key, counter offset).
void check_dropout_seed(const at::Tensor& seed);

// The checks of (q, k, v), the options and the offsets that every op shares, with the backend's
// own checks of q and v (device, dtype, head dims) right after check_qkv. Returns the batch size.
int64_t check_call(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                   const AttentionOptions& o, const Varlen& varlen,
                   void (*check_backend)(const at::Tensor& q, const at::Tensor& v));

// Tensors that params point into (contiguous copies of the caller's), kept until the launch.
struct Held {
  at::Tensor seed, cu_q, cu_k, slopes;
  at::Tensor guard_flag;  // mem_eff float32: its guard scan's flag (csrc/mem_eff/guard.h)
};

// What the forward and the backward share: sizes, q, k, v, out and lse with their strides, the
// offsets and every option. q, k, v and out have rows the kernels can load; lse is contiguous.
void describe(flash::FwdParams& p, Held& held, const at::Tensor& q, const at::Tensor& k,
              const at::Tensor& v, const at::Tensor& out, const at::Tensor& lse,
              const AttentionOptions& o, bool bottom_right, const Varlen& varlen, int64_t batch);

// Raises "flash_ext: the <what> failed to launch: <CUDA error>" unless `status` is cudaSuccess.
void check_launch(cudaError_t status, const char* what);

}  // namespace flash_ext::gpu
