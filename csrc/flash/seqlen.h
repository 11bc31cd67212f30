// Where sequence b of a call starts and how long it is: dense calls use the batch stride and
// the call's seqlens, varlen calls the cu_seqlens prefix sums (rows of the packed tensors).
#pragma once

#include <cstdint>

#include "params.h"

namespace flash {

struct SeqLen {
  bool varlen;
  int seqlen_q, seqlen_k;
  int64_t q_row0, k_row0;  // first packed row (varlen)

  __device__ __forceinline__ SeqLen(const FwdParams& p, int b) : varlen(p.cu_seqlens_q != nullptr) {
    if (varlen) {
      q_row0 = p.cu_seqlens_q[b];
      k_row0 = p.cu_seqlens_k[b];
      seqlen_q = p.cu_seqlens_q[b + 1] - static_cast<int>(q_row0);
      seqlen_k = p.cu_seqlens_k[b + 1] - static_cast<int>(k_row0);
    } else {
      q_row0 = k_row0 = 0;
      seqlen_q = p.seqlen_q;
      seqlen_k = p.seqlen_k;
    }
  }

  // Element offset of row 0 of sequence b, head h in a tensor laid out like q (or like k).
  __device__ __forceinline__ int64_t q_offset(int64_t batch_stride, int64_t head_stride,
                                              int64_t row_stride, int b, int h) const {
    return (varlen ? q_row0 * row_stride : b * batch_stride) + h * head_stride;
  }
  __device__ __forceinline__ int64_t k_offset(int64_t batch_stride, int64_t head_stride,
                                              int64_t row_stride, int b, int h) const {
    return (varlen ? k_row0 * row_stride : b * batch_stride) + h * head_stride;
  }

  // Offset of row 0 of (b, h) in lse: dense (B, Hq, Sq), varlen (Hq, Tq).
  __device__ __forceinline__ int64_t lse_offset(const FwdParams& p, int b, int h) const {
    return varlen ? int64_t(h) * p.total_q + q_row0 : (int64_t(b) * p.heads_q + h) * p.seqlen_q;
  }

  // Writes a thread's lse values of rows row_of(r) of (b, h) (held by each quad's lane 0, as
  // the MMA accumulators spread rows over a quad), skipping rows past the sequence.
  template <int kRows, typename RowOf>
  __device__ __forceinline__ void store_lse(const FwdParams& p, int b, int h,
                                            const float (&lse)[kRows], RowOf row_of,
                                            int quad_lane) const {
    float* lse_ptr = p.lse + lse_offset(p, b, h);
    if (quad_lane == 0) {
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        if (row_of(r) < seqlen_q) lse_ptr[row_of(r)] = lse[r];
      }
    }
  }
};

}  // namespace flash
