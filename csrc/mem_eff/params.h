// Plain description of one call for the mem_eff kernels: flash's FwdParams / BwdParams
// (pointers, sizes, strides, causal/window, ALiBi, dropout, varlen; the backward's dsum and dq
// accumulators) plus an additive bias and float32 inputs. Torch-free, like csrc/flash.
#pragma once

#include <cstdint>

#include "../flash/params.h"

namespace mem_eff {

// What the mem_eff kernels read beyond flash's description of a call.
struct BiasParams {
  // Additive bias on the scaled scores, in q's dtype: element (b, h, i, j) of a (B, Hq, Sq, Sk)
  // view at b * bias_batch_stride + h * bias_head_stride + i * bias_row_stride + j. Stride 0
  // broadcasts; the last dim is contiguous; rows start 16-byte aligned (the caller pads them).
  // nullptr: no bias. Dense calls only.
  const void* bias = nullptr;
  int64_t bias_batch_stride = 0, bias_head_stride = 0, bias_row_stride = 0;
  // The bias is a boolean mask's 0 / -inf: a -inf entry hides its key whatever the score (a NaN
  // score included), where an additive -inf is added to it as SDPA does (NaN + -inf = NaN).
  bool bias_is_mask = false;

  bool is_float = false;  // float32 inputs (3xTF32 tensor-core GEMMs); else is_bf16 decides
  // float32: one int of device memory for guard.h's scan (null: every fp32 kernel guards).
  int* guard_flag = nullptr;
};

struct FwdParams : flash::FwdParams, BiasParams {};

// flash::BwdParams's gradients, dsum and dq accumulators, used the same way: deterministic
// calls (and mem_eff.h's other two_kernel_backward calls) run the two-kernel backward (dq_accum
// unused, dq_splits = 1), the others accumulate dQ in dq_accum (lse rows, kernel head dim) with
// atomics.
struct BwdParams : flash::BwdParams, BiasParams {
  // The bias gradient dS (B, Hq, Sq, Sk) in q's dtype, element strides of (batch, head, row),
  // last dim contiguous, rows of whole 16-byte pieces; nullptr when the bias needs no gradient.
  // The caller sums it over the bias's broadcast dims.
  void* dbias = nullptr;
  int64_t dbias_batch_stride = 0, dbias_head_stride = 0, dbias_row_stride = 0;
};

}  // namespace mem_eff
