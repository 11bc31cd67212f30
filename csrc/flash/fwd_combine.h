// Split-KV combine: out = sum_s exp(lse_s - lse) * out_s with lse = log sum_s exp(lse_s), over
// the fp32 partials of the splits, and the head's sink (if any) joined to lse first (its
// probability dropped, so the weights shrink).
#pragma once

#include <cuda_runtime.h>
#include <cutlass/array.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "params.h"
#include "utils.h"

namespace flash {

constexpr int kCombineWarps = 4;  // rows a block: a warp a row
constexpr int kCombineAhead = 8;  // splits whose partials a lane loads before their weights

// log(e^lse + e^sink): the sink alone for a row without keys, +inf for a sink of +inf.
__device__ __forceinline__ float join_sink(float lse, float sink) {
  if (lse == -INFINITY || sink == -INFINITY) return lse == -INFINITY ? sink : lse;
  const float hi = fmaxf(lse, sink);  // a NaN: NaN below
  return sink == INFINITY ? sink : hi + log1pf(__expf(-fabsf(lse - sink)));
}

// A warp a row, each lane 4 consecutive columns of every 128, the splits added in their order.
// The first kCombineAhead splits' partials are loaded together with the row's lse values, so
// that a row of few splits (decoding's: 2 at a 256 MiB cache) costs one round trip to L2 after
// the kernel that wrote them ends: the combine's time is what follows that kernel's last block
// (a block a row with the splits spread over its warps took 5.2 us there at Sq = 4 with 64
// query heads on 8, 3.9 us a warp a row, H200: benchmarks/NOTES.md). Launched after that
// kernel, possibly while it still runs (programmatic dependent launch, launch_fwd_combine): it
// waits for that kernel's memory before reading.
template <typename Element, int kHeadDim>
__global__ void __launch_bounds__(kCombineWarps * 32)
    fwd_combine_kernel(__grid_constant__ const FwdParams params) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
  constexpr int kChunks = (kHeadDim + 127) / 128;
  const int lane = threadIdx.x % 32;
  const int64_t rows = int64_t(params.batch) * params.heads_q * params.seqlen_q;
  const int splits = params.num_splits;
  for (int64_t row = int64_t(blockIdx.x) * kCombineWarps + threadIdx.x / 32; row < rows;
       row += int64_t(gridDim.x) * kCombineWarps) {  // (b, h, i)
    bool used[kChunks];
    CUTE_UNROLL
    for (int c = 0; c < kChunks; ++c) {
      const int col = 128 * c + 4 * lane;
      used[c] = col < kHeadDim && col < params.head_dim;
    }
    auto part = [&](int s, int c) {
      return *reinterpret_cast<const float4*>(params.out_accum + (s * rows + row) * kHeadDim +
                                              128 * c + 4 * lane);
    };
    float4 ahead[kCombineAhead][kChunks];
    CUTE_UNROLL
    for (int s = 0; s < kCombineAhead; ++s) {
      CUTE_UNROLL
      for (int c = 0; c < kChunks; ++c) {
        ahead[s][c] = s < splits && used[c] ? part(s, c) : make_float4(0.f, 0.f, 0.f, 0.f);
      }
    }
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
    float4 acc[kChunks];
    CUTE_UNROLL
    for (int c = 0; c < kChunks; ++c) acc[c] = make_float4(0.f, 0.f, 0.f, 0.f);
    if (lse_keys != -INFINITY) {  // else out is 0 (no key, or only the sink)
      for (int s0 = 0; s0 < splits; s0 += kCombineAhead) {
        CUTE_UNROLL
        for (int j = 0; j < kCombineAhead; ++j) {
          const int s = s0 + j;
          if (s < splits) {
            const float w = __expf(params.lse_accum[s * rows + row] - lse);
            CUTE_UNROLL
            for (int c = 0; c < kChunks; ++c) {
              acc[c].x += w * ahead[j][c].x;
              acc[c].y += w * ahead[j][c].y;
              acc[c].z += w * ahead[j][c].z;
              acc[c].w += w * ahead[j][c].w;
            }
          }
          if (s + kCombineAhead < splits) {
            CUTE_UNROLL
            for (int c = 0; c < kChunks; ++c) {
              if (used[c]) ahead[j][c] = part(s + kCombineAhead, c);
            }
          }
        }
      }
    }
    Element* out = static_cast<Element*>(params.out) + b * params.o_batch_stride +
                   h * params.o_head_stride + i * params.o_row_stride;
    CUTE_UNROLL
    for (int c = 0; c < kChunks; ++c) {
      if (!used[c]) continue;
      cutlass::Array<Element, 4> o;  // head_dim is a multiple of 8: whole pieces of 4
      o[0] = Element(acc[c].x), o[1] = Element(acc[c].y);
      o[2] = Element(acc[c].z), o[3] = Element(acc[c].w);
      *reinterpret_cast<cutlass::Array<Element, 4>*>(out + 128 * c + 4 * lane) = o;
    }
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
  const int64_t blocks = (rows + kCombineWarps - 1) / kCombineWarps;
  config.gridDim = dim3(static_cast<unsigned>(std::min<int64_t>(blocks, 1 << 30)));
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
