// Online softmax over key blocks (FlashAttention-2): per row the running max and the running sum
// of exp(scale * (s - max)), rescaling the output accumulator when the max grows. The scores are
// raw (q . k, or tanh(...) under softcap); `scale_log2` = softmax scale * log2(e) turns them into
// base-2 exponents, so each probability is one FFMA and one ex2.
// The running max is kept as the one rounded value M = max * scale_log2 that the exponents
// subtract, and the rescale factors and lse are taken from it: a max that does not change
// rescales by exactly 1, the factors of the changes multiply to exactly 2^(M_first - M_last)
// (up to ex2's own error), and lse matches the terms summed. Computed from the unrounded max *
// scale_log2 instead, every block rescaled by 2^(max * scale_log2 - M), up to half an ulp of M,
// and lse drifted with the number of key blocks: fp32 mem_eff, D = 256, 1023 keys, up to 5e-6
// (against 7e-7 for a float32 reference), which the backward's P = exp(s - lse) carried into
// the bias gradient.
#pragma once

#include <cmath>

#include <cute/tensor.hpp>

#include "utils.h"

namespace flash {

// lse = M ln 2 + ln(sum) in float, M the row's max exponent (base 2). The backward rebuilds each
// probability as exp(s - lse), so lse's absolute error is what counts: the MUFU's log2 of sum
// (within 2^-22 for any sum: the exponent is exact), then (M + log2 sum) ln 2 with ln 2 as a
// float plus its remainder, each fma rounding once: about an ulp of lse at most, against half
// an ulp for the same in double, at a tenth of the instructions (the double log had been 5% of
// the Hopper forward's cycles at S = 1k, in every tile's epilogue).
__device__ __forceinline__ float lse_of(float row_max, float sum) {
  constexpr float kLn2 = 0.693147182464599609375f;      // ln 2 rounded to float
  constexpr float kLn2Lo = -1.904654323148236e-09f;     // ln 2 - kLn2
  const float log2_sum = __log2f(sum);
  return fmaf(row_max, kLn2, fmaf(log2_sum, kLn2, (row_max + log2_sum) * kLn2Lo));
}

// kChains: the row max and sum each in that many independent chains, combined at the end (one
// chain is a row's columns as dependent instructions, which the warp waits through one by
// one). The Hopper forward at D = 128 runs 2-4% faster with 4 (H100 A/B, benchmarks/NOTES.md);
// at D = 64 the same was 2-8% slower.
template <int kRows, int kChains = 1>
struct OnlineSoftmax {
  float row_max[kRows];  // M: the running max times scale_log2, rounded once; -inf before a key
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
  // kLazy: a row keeps its max M unless the block's exceeds it by more than kLazyLog2 (base-2
  // exponent units), so that its factor is exactly 1 and most blocks rescale nothing; the
  // probabilities are then up to 2^kLazyLog2, which float sums and bf16 / fp16 P hold. Returns
  // whether some row of this thread took a new max (kLazy; else whether any could have).
  static constexpr float kLazyLog2 = 8.f;
  template <bool kFirst, bool kLazy = false, typename TensorS, typename Rescale>
  __device__ __forceinline__ bool update(TensorS& s, float scale_log2, Rescale&& rescale) {
    static_assert(decltype(cute::size<0>(s))::value == kRows);
    constexpr int kCols = decltype(cute::size<1>(s))::value;
    static_assert(kCols % kChains == 0);
    bool moved = !kLazy;
    CUTE_UNROLL
    for (int r = 0; r < kRows; ++r) {
      float chain_max[kChains];
      CUTE_UNROLL
      for (int j = 0; j < kChains; ++j) chain_max[j] = -INFINITY;
      CUTE_UNROLL
      for (int c = 0; c < kCols; ++c) chain_max[c % kChains] = fmaxf(chain_max[c % kChains], s(r, c));
      float block_max = chain_max[0];
      CUTE_UNROLL
      for (int j = 1; j < kChains; ++j) block_max = fmaxf(block_max, chain_max[j]);
      block_max = quad_allreduce(block_max, MaxOp{}) * scale_log2;
      float new_max = kFirst ? block_max : fmaxf(row_max[r], block_max);
      // (-inf - -inf is NaN: a row without a visible key yet keeps -inf.)
      if (kLazy && !kFirst && new_max - row_max[r] <= kLazyLog2) new_max = row_max[r];
      // A row with no visible key so far has max -inf: use 0 so that exp2 gives 0, not NaN.
      const float max_scaled = new_max == -INFINITY ? 0.f : new_max;
      if (!kFirst) {
        const float correction = exp2f(row_max[r] - max_scaled);
        moved |= new_max != row_max[r];
        row_sum[r] *= correction;
        rescale(r, correction);
      }
      row_max[r] = new_max;
      float chain_sum[kChains];
      CUTE_UNROLL
      for (int j = 0; j < kChains; ++j) chain_sum[j] = kFirst || j > 0 ? 0.f : row_sum[r];
      CUTE_UNROLL
      for (int c = 0; c < kCols; ++c) {
        s(r, c) = exp2f(s(r, c) * scale_log2 - max_scaled);
        chain_sum[c % kChains] += s(r, c);
      }
      float sum = chain_sum[0];
      CUTE_UNROLL
      for (int j = 1; j < kChains; ++j) sum += chain_sum[j];
      row_sum[r] = sum;
    }
    return moved;
  }

  // Normalizes acc_o (times `out_scale`, the dropout rescale) and returns each row's natural-log
  // sum-exp of the scaled scores in lse[r]: -inf for a row with no visible key, whose output
  // stays 0. `sink` (natural-log units, -inf for none) joins each row's sum first, its
  // probability dropped: with M' = max(M, sink), sum' = sum 2^(M - M') + 2^(sink - M'), the
  // output scaled by 2^(M - M') / sum'; a row without keys gets lse = sink exactly, and a sink
  // of +inf out 0 and lse +inf.
  template <typename TensorO>
  __device__ __forceinline__ void finalize(TensorO& acc_o, float out_scale, float (&lse)[kRows],
                                           float sink = -INFINITY) {
    finalize(out_scale, lse, [&](int r, float factor) {
      CUTE_UNROLL
      for (int c = 0; c < cute::size<1>(acc_o); ++c) acc_o(r, c) *= factor;
    }, sink);
  }

  // The same, handing each row's normalizing factor to normalize(r, factor), for a caller whose
  // output accumulator is laid out otherwise than the scores.
  template <typename Normalize>
  __device__ __forceinline__ void finalize(float out_scale, float (&lse)[kRows],
                                           Normalize&& normalize, float sink = -INFINITY) {
    CUTE_UNROLL
    for (int r = 0; r < kRows; ++r) {
      float sum = quad_allreduce(row_sum[r], SumOp{});
      float max = row_max[r];
      float factor = 1.f;
      const bool empty = sum == 0.f;  // no visible key (a NaN input stays NaN)
      if (sink != -INFINITY) {
        if (empty || sink == INFINITY) {
          lse[r] = sink;
          normalize(r, 0.f);
          continue;
        }
        const float sink_log2 = sink * float(M_LOG2E);
        const float joined = fmaxf(max, sink_log2);  // a NaN sink: a NaN sum below
        factor = exp2f(max - joined);
        sum = sum * factor + exp2f(sink_log2 - joined);
        max = joined;
      }
      lse[r] = empty ? -INFINITY : lse_of(max, sum);
      normalize(r, empty ? 1.f : out_scale * factor / sum);
    }
  }
};

}  // namespace flash
