// Split-KV combine: out = sum_s exp(lse_s - lse) * out_s with lse = log sum_s exp(lse_s), over
// the fp32 partials of the splits, and the head's sink (if any) joined to lse first (its
// probability dropped, so the weights shrink).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
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

// A block a row (kCombineWarps warps: each sums every kCombineWarps-th split, the warps' sums
// then added through shared memory), so that a row's chain of dependent loads is a quarter as
// long: decoding's rows are few (B x Hq) and their splits many (tens), and the combine's time
// was that chain's. Launched after the kernel that wrote the partials, possibly while it still
// runs (programmatic dependent launch, launch_fwd_combine): it waits for that kernel's memory
// before reading.
template <typename Element, int kHeadDim>
__global__ void __launch_bounds__(kCombineWarps * 32)
    fwd_combine_kernel(__grid_constant__ const FwdParams params) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
  constexpr int kChunks = (kHeadDim + 127) / 128;  // a lane's 4 consecutive columns of every 128
  __shared__ float4 s_sums[kCombineWarps - 1][kChunks * 32];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t rows = int64_t(params.batch) * params.heads_q * params.seqlen_q;
  const int splits = params.num_splits;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {  // (b, h, i)
    // Every warp computes the row's lse (the same loads, from L1 after the first).
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
    if (threadIdx.x == 0) params.lse[row] = lse;
    float4 acc[kChunks];
    CUTE_UNROLL
    for (int c = 0; c < kChunks; ++c) {
      acc[c] = make_float4(0.f, 0.f, 0.f, 0.f);
      const int col = 128 * c + 4 * lane;
      if (col >= kHeadDim || col >= params.head_dim) continue;
      if (lse_keys != -INFINITY) {
        #pragma unroll 4  // independent loads in flight
        for (int s = warp; s < splits; s += kCombineWarps) {
          const float w = __expf(params.lse_accum[s * rows + row] - lse);
          const float4 o = *reinterpret_cast<const float4*>(params.out_accum +
                                                            (s * rows + row) * kHeadDim + col);
          acc[c].x += w * o.x;
          acc[c].y += w * o.y;
          acc[c].z += w * o.z;
          acc[c].w += w * o.w;
        }
      }
      if (warp > 0) s_sums[warp - 1][c * 32 + lane] = acc[c];
    }
    __syncthreads();
    if (warp == 0) {
      Element* out = static_cast<Element*>(params.out) + b * params.o_batch_stride +
                     h * params.o_head_stride + i * params.o_row_stride;
      CUTE_UNROLL
      for (int c = 0; c < kChunks; ++c) {
        const int col = 128 * c + 4 * lane;
        if (col >= kHeadDim || col >= params.head_dim) continue;
        float4 total = acc[c];
        CUTE_UNROLL
        for (int w = 0; w < kCombineWarps - 1; ++w) {
          const float4 part = s_sums[w][c * 32 + lane];
          total.x += part.x, total.y += part.y, total.z += part.z, total.w += part.w;
        }
        out[col] = Element(total.x);
        out[col + 1] = Element(total.y);
        out[col + 2] = Element(total.z);
        out[col + 3] = Element(total.w);
      }
    }
    __syncthreads();  // s_sums is free for the next row
  }
}

// Whether the current device takes programmatic dependent launches (compute capability 9.0 and
// above), asked once a device.
inline bool programmatic_launch_supported() {
  static int known[64] = {};  // 0: not asked; 1: no; 2: yes
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= 64) return false;
  if (known[device] == 0) {
    int major = 0;
    const cudaError_t err =
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    known[device] = err == cudaSuccess && major >= 9 ? 2 : 1;
  }
  return known[device] == 2;
}

// fwd_combine_kernel over params' rows, launched so that it may start while the kernel before
// it on `stream` (the one writing the partials) runs its last blocks, where the device allows.
template <typename Element, int kHeadDim>
cudaError_t launch_fwd_combine(const FwdParams& params, cudaStream_t stream) {
  const int64_t rows = int64_t(params.batch) * params.heads_q * params.seqlen_q;
  if (rows == 0) return cudaSuccess;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>(std::min<int64_t>(rows, 1 << 30)));
  config.blockDim = dim3(kCombineWarps * 32);
  config.stream = stream;
  cudaLaunchAttribute attribute = {};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &attribute;
  config.numAttrs = programmatic_launch_supported() ? 1 : 0;
  return cudaLaunchKernelEx(&config, fwd_combine_kernel<Element, kHeadDim>, params);
}

}  // namespace flash
