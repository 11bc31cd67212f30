// Plain description of one call for the mem_eff kernels: flash's FwdParams (pointers, sizes,
// strides, causal/window, ALiBi, dropout, varlen) plus an additive bias and float32 inputs.
// Torch-free, like csrc/flash.
#pragma once

#include <cstdint>

#include "../flash/params.h"

namespace mem_eff {

struct FwdParams : flash::FwdParams {
  // Additive bias on the scaled scores, in q's dtype: element (b, h, i, j) of a (B, Hq, Sq, Sk)
  // view at b * bias_batch_stride + h * bias_head_stride + i * bias_row_stride + j. Stride 0
  // broadcasts; the last dim is contiguous; rows start 16-byte aligned (the caller pads them).
  // nullptr: no bias. Dense calls only.
  const void* bias = nullptr;
  int64_t bias_batch_stride = 0, bias_head_stride = 0, bias_row_stride = 0;

  bool is_float = false;  // float32 inputs (3xTF32 tensor-core GEMMs); else is_bf16 decides
};

struct BwdParams : FwdParams {
  // grad_out like out; dq like q; dk and dv like k and v (with GQA the kernel sums the query
  // heads of a group). Element strides of (batch, head, row); last dim contiguous.
  const void* dout = nullptr;
  void* dq = nullptr;
  void* dk = nullptr;
  void* dv = nullptr;
  int64_t do_batch_stride = 0, do_head_stride = 0, do_row_stride = 0;
  int64_t dq_batch_stride = 0, dq_head_stride = 0, dq_row_stride = 0;
  int64_t dk_batch_stride = 0, dk_head_stride = 0, dk_row_stride = 0;
  int64_t dv_batch_stride = 0, dv_head_stride = 0, dv_row_stride = 0;

  // rowsum(dO * O) per query row, fp32, laid out like lse; the backward's first kernel writes it.
  float* dsum = nullptr;

  // The bias gradient dS (B, Hq, Sq, Sk) in q's dtype, element strides of (batch, head, row),
  // last dim contiguous; nullptr when the bias needs no gradient. The caller sums it over the
  // bias's broadcast dims.
  void* dbias = nullptr;
  int64_t dbias_batch_stride = 0, dbias_head_stride = 0, dbias_row_stride = 0;
};

}  // namespace mem_eff
