// Online softmax over key blocks (FlashAttention-2): per row the running max and the running sum
// of exp(scale * (s - max)), rescaling the output accumulator when the max grows. The scores are
// raw (q . k, or tanh(...) under softcap); `scale_log2` = softmax scale * log2(e) turns them into
// base-2 exponents, so each probability is one FFMA and one ex2.
#pragma once

#include <cmath>

#include <cute/tensor.hpp>

#include "utils.h"

namespace flash {

template <int kRows>
struct OnlineSoftmax {
  float row_max[kRows];
  float row_sum[kRows];  // this thread's partial sums; reduced over the quad in finalize()

  // Turns the scores of one key block (rows x cols view) into unnormalized probabilities and
  // rescales acc_o (rows x cols view) for the new row maxima.
  template <bool kFirst, typename TensorS, typename TensorO>
  __device__ __forceinline__ void update(TensorS& s, TensorO& acc_o, float scale_log2) {
    update<kFirst>(s, scale_log2, [&](int r, float correction) {
      CUTE_UNROLL
      for (int c = 0; c < cute::size<1>(acc_o); ++c) acc_o(r, c) *= correction;
    });
  }

  // The same, handing each row's rescale factor to rescale(r, factor) (not called when kFirst)
  // for a caller whose output accumulator is still being written by an asynchronous GEMM.
  template <bool kFirst, typename TensorS, typename Rescale>
  __device__ __forceinline__ void update(TensorS& s, float scale_log2, Rescale&& rescale) {
    static_assert(decltype(cute::size<0>(s))::value == kRows);
    CUTE_UNROLL
    for (int r = 0; r < kRows; ++r) {
      float block_max = kFirst ? -INFINITY : row_max[r];
      CUTE_UNROLL
      for (int c = 0; c < cute::size<1>(s); ++c) block_max = fmaxf(block_max, s(r, c));
      block_max = quad_allreduce(block_max, MaxOp{});
      // A row with no visible key so far has max -inf: use 0 so that exp2 gives 0, not NaN.
      const float max_scaled = block_max == -INFINITY ? 0.f : block_max * scale_log2;
      if (!kFirst) {
        const float correction = exp2f(row_max[r] * scale_log2 - max_scaled);
        row_sum[r] *= correction;
        rescale(r, correction);
      }
      row_max[r] = block_max;
      float sum = kFirst ? 0.f : row_sum[r];
      CUTE_UNROLL
      for (int c = 0; c < cute::size<1>(s); ++c) {
        s(r, c) = exp2f(s(r, c) * scale_log2 - max_scaled);
        sum += s(r, c);
      }
      row_sum[r] = sum;
    }
  }

  // Normalizes acc_o (times `out_scale`, the dropout rescale) and returns each row's natural-log
  // sum-exp in lse[r]: -inf for a row with no visible key, whose output stays 0.
  template <typename TensorO>
  __device__ __forceinline__ void finalize(TensorO& acc_o, float scale, float out_scale,
                                           float (&lse)[kRows]) {
    CUTE_UNROLL
    for (int r = 0; r < kRows; ++r) {
      const float sum = quad_allreduce(row_sum[r], SumOp{});
      const bool empty = sum == 0.f;  // a NaN input stays NaN
      // log in double: __logf (what fast math makes of logf) is off by up to 3 ulp, an error
      // that every probability rebuilt from lse in the backward inherits.
      lse[r] = empty ? -INFINITY
                     : row_max[r] * scale + static_cast<float>(log(static_cast<double>(sum)));
      const float inv = empty ? 1.f : out_scale / sum;
      CUTE_UNROLL
      for (int c = 0; c < cute::size<1>(acc_o); ++c) acc_o(r, c) *= inv;
    }
  }
};

}  // namespace flash
