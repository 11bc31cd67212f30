// Which keys a query sees (causal, sliding window, the end of the keys) and the ALiBi bias, for
// one sequence of a call. Query row i sees key j when j < seqlen_k,
// j <= i + diag + window_right (window_right >= 0) and j >= i + diag - window_left
// (window_left >= 0); diag is seqlen_k - seqlen_q for bottom-right alignment, else 0.
#pragma once

#include <climits>
#include <cmath>
#include <type_traits>

#include <cute/tensor.hpp>

#include "params.h"
#include "seqlen.h"

namespace flash {

template <bool kCausal>
struct Mask {
  int seqlen_k;
  int diag;
  int window_left;   // -1: unbounded
  int window_right;  // -1: unbounded; 0 when kCausal
  float alibi_coef;  // -slope / softmax scale, 0 without ALiBi

  __device__ __forceinline__ Mask(int seqlen_q, int seqlen_k, bool bottom_right, int window_left,
                                  int window_right, float alibi_coef)
      : seqlen_k(seqlen_k),
        diag(bottom_right ? seqlen_k - seqlen_q : 0),
        window_left(window_left),
        window_right(kCausal ? 0 : window_right),
        alibi_coef(alibi_coef) {}

  // The first invisible key on the right: end_of<window_right >= 0>, the bound's kind known.
  template <bool kRight>
  __device__ __forceinline__ int end_of(int row) const {
    return kRight ? min(seqlen_k, row + diag + window_right + 1) : seqlen_k;
  }
  __device__ __forceinline__ int col_end(int row) const {
    return window_right >= 0 ? end_of<true>(row) : end_of<false>(row);
  }
  __device__ __forceinline__ int col_begin(int row) const {  // first visible key on the left
    return window_left >= 0 ? row + diag - window_left : INT_MIN;
  }

  // Key blocks [begin, end) that rows [m0, m_end) can see, for blocks of kBlockN keys.
  template <int kBlockN>
  __device__ __forceinline__ int n_block_end(int m_end) const {
    const int cols = col_end(m_end - 1);
    return cols <= 0 ? 0 : (cols + kBlockN - 1) / kBlockN;
  }
  template <int kBlockN>
  __device__ __forceinline__ int n_block_begin(int m0) const {
    return max(0, col_begin(m0)) / kBlockN;
  }

  // Key blocks from right_mask_begin on cross the first row's right edge (diagonal or end of
  // the keys); blocks below left_mask_end cross the last row's left window edge.
  template <int kBlockN>
  __device__ __forceinline__ int right_mask_begin(int m0) const {
    const int cols = col_end(m0);
    return cols <= 0 ? 0 : cols / kBlockN;
  }
  template <int kBlockN>
  __device__ __forceinline__ int left_mask_end(int m_end) const {
    const int cols = col_begin(m_end - 1);
    return cols <= 0 ? 0 : (cols + kBlockN - 1) / kBlockN;
  }

  // Whether some key of block [n0, n0 + kBlockN) is invisible to some row of [m0, m_end).
  template <int kBlockN>
  __device__ __forceinline__ bool block_needs_mask(int n0, int m0, int m_end) const {
    return n0 + kBlockN > col_end(m0) || n0 < col_begin(m_end - 1);
  }

  // Query rows [row_begin, row_end) that see some key of [n0, n_last], of seqlen_q rows.
  __device__ __forceinline__ int row_begin(int n0) const {
    return window_right >= 0 ? max(0, n0 - diag - window_right) : 0;
  }
  __device__ __forceinline__ int row_end(int n_last, int seqlen_q) const {
    return window_left >= 0 ? max(0, min(seqlen_q, n_last - diag + window_left + 1)) : seqlen_q;
  }

  // The ALiBi bias of score (row, col): 0 without ALiBi, by a branch (as the callers' own
  // tests of alibi_coef, which it repeats, need nothing more).
  __device__ __forceinline__ float alibi(int row, int col) const {
    return alibi_coef != 0.f ? alibi_coef * static_cast<float>(abs(row + diag - col)) : 0.f;
  }

  // Adds ALiBi to score x of (row, col) and, when `visibility`, sets it to -inf if invisible.
  __device__ __forceinline__ void apply_one(float& x, int row, int col, bool visibility) const {
    if (alibi_coef != 0.f) x += alibi(row, col);
    if (visibility && (col >= col_end(row) || col < col_begin(row))) x = -INFINITY;
  }

  // ALiBi and, when `visibility`, the mask on a thread's transposed scores (rows keys, columns
  // queries: the Hopper backward's S^T) viewed as rows x cols: row r is key key_of(r), column c
  // query q0 + col_of(c), with q0 the thread's first query and col_of(c) a constant. As apply:
  // each feature a branch around a loop, and each bound taken relative to q0 once a row, so
  // that a causal score costs a compare with a constant and a select (the bounds computed a
  // score, with the window's kind tested at run time, were ~8 instructions a score).
  template <typename Frag, typename KeyOf, typename ColOf>
  __device__ __forceinline__ void apply_transposed(Frag& s, KeyOf key_of, int q0, ColOf col_of,
                                                   bool visibility) const {
    auto for_each = [&](auto&& f) {
      CUTE_UNROLL
      for (int r = 0; r < cute::size<0>(s); ++r) {
        CUTE_UNROLL
        for (int c = 0; c < cute::size<1>(s); ++c) f(s(r, c), r, col_of(c));
      }
    };
    if (alibi_coef != 0.f) {
      for_each([&](float& x, int r, int k) { x += alibi(q0 + k, key_of(r)); });
    }
    if (!visibility) return;
    with_bounds([&](auto left, auto right) {
      for_each([&](float& x, int r, int k) {
        // Query q0 + k sees key `key` < seqlen_k when q0 + k >= key - diag - window_right (a
        // right bound) and q0 + k <= key - diag + window_left (a left one).
        const int key = key_of(r);
        const int lo = key >= seqlen_k ? INT_MAX
                       : decltype(right)::value ? key - diag - window_right - q0
                                                : INT_MIN;
        if (k < lo || (decltype(left)::value && k > key - diag + window_left - q0)) {
          x = -INFINITY;
        }
      });
    });
  }

  // Calls hide(left, right), two std::bool_constant, for whether the visible keys are bounded on
  // the left (a window) and on the right by more than the end of the keys (causal or a window):
  // a branch for the call, so that a plain causal call's scores test only the diagonal.
  template <typename Hide>
  __device__ __forceinline__ void with_bounds(Hide&& hide) const {
    using Yes = std::true_type;
    using No = std::false_type;
    const bool right = kCausal || window_right >= 0;
    if (window_left >= 0) {
      if (right) hide(Yes{}, Yes{}); else hide(Yes{}, No{});
    } else {
      if (right) hide(No{}, Yes{}); else hide(No{}, No{});
    }
  }

  // ALiBi and, when `visibility`, the mask on a thread's scores viewed as rows x cols ((2,
  // MMA_M), (2, MMA_N)) of an MMA whose warps split the rows only: row_of(r) is the sequence
  // row of tile row r; the tile starts at key n0 and the thread is quad lane `quad_lane`. Each
  // feature is a branch around a loop over the scores, not a predicated instruction a score
  // (those issue whether they run or not: apply_one on every score had cost the Hopper
  // forward's masked key block ~9 instructions a score in calls with neither ALiBi nor a
  // window), and the bounds are taken relative to the thread's first column, so that a plain
  // causal or end-of-keys mask is one compare with a constant and a select a score.
  template <typename Frag, typename RowOf>
  __device__ __forceinline__ void apply(Frag& s, RowOf row_of, int n0, int quad_lane,
                                        bool visibility) const {
    const int col0 = n0 + 2 * quad_lane;  // score (r, (e, t)) is at column col0 + 8 t + e
    auto for_each = [&](auto&& f) {
      CUTE_UNROLL
      for (int r = 0; r < cute::size<0>(s); ++r) {
        CUTE_UNROLL
        for (int t = 0; t < cute::size<1, 1>(s); ++t) {
          CUTE_UNROLL
          for (int e = 0; e < 2; ++e) f(s(r, cute::make_coord(e, t)), r, 8 * t + e);
        }
      }
    };
    if (alibi_coef != 0.f) {
      for_each([&](float& x, int r, int k) { x += alibi(row_of(r), col0 + k); });
    }
    if (!visibility) return;
    with_bounds([&](auto left, auto right) {
      for_each([&](float& x, int r, int k) {
        const int row = row_of(r);
        if (k >= end_of<decltype(right)::value>(row) - col0 ||
            (decltype(left)::value && k < col_begin(row) - col0)) {
          x = -INFINITY;
        }
      });
    });
  }
};

// The forward's mask of sequence `seq`, query head h of batch b: ALiBi's slope becomes a
// coefficient of the raw score (divided by the softmax scale, applied in exp2).
template <bool kCausal>
__device__ __forceinline__ Mask<kCausal> fwd_mask(const FwdParams& p, const SeqLen& seq, int b,
                                                  int h, float softmax_scale) {
  const float alibi_coef =
      p.alibi_slopes == nullptr ? 0.f : -p.alibi_slopes[b * p.alibi_batch_stride + h] / softmax_scale;
  return Mask<kCausal>(seq.seqlen_q, seq.seqlen_k, p.bottom_right, p.window_left, p.window_right,
                       alibi_coef);
}

// The order in which the forward visits a query tile's key blocks [n_begin, n_end): first the
// masked ones, those crossing the causal/window diagonal or the end of the keys (descending
// from the last) and those crossing the left window edge (ascending), then the interior ones,
// so that no mask state stays live in the hot loop. With softcap or ALiBi (all_masked) every
// block takes the masked step.
template <int kBlockN>
struct KeyBlockOrder {
  int n_begin, n_end, n_right, num_right;
  int num_masked;  // steps 0 .. num_masked - 1 need the mask code
  int num_blocks;

  template <bool kCausal>
  __device__ __forceinline__ KeyBlockOrder(const Mask<kCausal>& mask, int m0, int m_end,
                                           int n_begin, int n_end, bool all_masked)
      : n_begin(n_begin), n_end(n_end) {
    n_right = all_masked
        ? n_begin : max(n_begin, min(n_end, mask.template right_mask_begin<kBlockN>(m0)));
    const int n_left = min(n_right, max(n_begin, mask.template left_mask_end<kBlockN>(m_end)));
    num_right = n_end - n_right;
    num_masked = num_right + n_left - n_begin;
    num_blocks = max(0, n_end - n_begin);
  }

  // The key block of step i.
  __device__ __forceinline__ int at(int i) const {
    return i < num_right ? n_end - 1 - i
                         : i < num_masked ? n_begin + (i - num_right) : n_right - 1 - (i - num_masked);
  }
};

}  // namespace flash
