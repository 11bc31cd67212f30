// Split-KV combine: out = sum_s exp(lse_s - lse) * out_s with lse = log sum_s exp(lse_s), over
// the fp32 partials of the splits, and the head's sink (if any) joined to lse first (its
// probability dropped, so the weights shrink). One warp per (batch, head, query row).
#pragma once

#include <cmath>
#include <cstdint>

#include "params.h"
#include "utils.h"

namespace flash {

constexpr int kCombineWarps = 4;

// log(e^lse + e^sink): the sink alone for a row without keys, +inf for a sink of +inf.
__device__ __forceinline__ float join_sink(float lse, float sink) {
  if (lse == -INFINITY || sink == -INFINITY) return lse == -INFINITY ? sink : lse;
  const float hi = fmaxf(lse, sink);  // a NaN: NaN below
  return sink == INFINITY ? sink : hi + log1pf(__expf(-fabsf(lse - sink)));
}

template <typename Element, int kHeadDim>
__global__ void __launch_bounds__(kCombineWarps * 32)
    fwd_combine_kernel(__grid_constant__ const FwdParams params) {
  const int lane = threadIdx.x % 32;
  const int64_t rows = int64_t(params.batch) * params.heads_q * params.seqlen_q;
  const int64_t row = int64_t(blockIdx.x) * kCombineWarps + threadIdx.x / 32;  // (b, h, i)
  if (row >= rows) return;
  const int splits = params.num_splits;

  float lse_max = -INFINITY;
  for (int s = lane; s < splits; s += 32) lse_max = fmaxf(lse_max, params.lse_accum[s * rows + row]);
  for (int offset = 16; offset > 0; offset /= 2)
    lse_max = fmaxf(lse_max, __shfl_xor_sync(0xffffffff, lse_max, offset));
  float sum = 0.f;
  if (lse_max != -INFINITY) {
    for (int s = lane; s < splits; s += 32) sum += __expf(params.lse_accum[s * rows + row] - lse_max);
  }
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffff, sum, offset);
  const float lse_keys = sum == 0.f ? -INFINITY : lse_max + __logf(sum);

  const int i = static_cast<int>(row % params.seqlen_q);
  const int h = static_cast<int>((row / params.seqlen_q) % params.heads_q);
  const int b = static_cast<int>(row / (int64_t(params.seqlen_q) * params.heads_q));
  const float lse = params.sinks != nullptr ? join_sink(lse_keys, params.sinks[h]) : lse_keys;
  if (lane == 0) params.lse[row] = lse;
  Element* out = static_cast<Element*>(params.out) + b * params.o_batch_stride +
                 h * params.o_head_stride + i * params.o_row_stride;
  // Each lane owns 4 consecutive columns of every 128.
  CUTE_UNROLL
  for (int col = 4 * lane; col < kHeadDim; col += 128) {
    if (col >= params.head_dim) break;
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
    if (lse_keys != -INFINITY) {
      #pragma unroll 4  // independent loads in flight (decoding: tens of splits a row)
      for (int s = 0; s < splits; ++s) {
        const float w = __expf(params.lse_accum[s * rows + row] - lse);
        const float4 o = *reinterpret_cast<const float4*>(params.out_accum + (s * rows + row) * kHeadDim + col);
        acc.x += w * o.x;
        acc.y += w * o.y;
        acc.z += w * o.z;
        acc.w += w * o.w;
      }
    }
    out[col] = Element(acc.x);
    out[col + 1] = Element(acc.y);
    out[col + 2] = Element(acc.z);
    out[col + 3] = Element(acc.w);
  }
}

}  // namespace flash
