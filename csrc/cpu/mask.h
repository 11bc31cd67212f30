// Causal / sliding-window visibility of one sequence: the contiguous key range each query row
// sees, the block-level tests that let the kernels skip invisible blocks and leave fully visible
// ones unmasked, and the -inf fill for blocks that straddle the window's edges.
#pragma once

#include "params.h"
#include "seqlen.h"
#include "vec_utils.h"

#include <algorithm>
#include <cstdint>

namespace flash_ext::cpu {

struct VisibleKeys {
  int64_t seqlen_q = 0;
  int64_t seqlen_k = 0;
  int64_t diag_offset = 0;
  int64_t window_left = -1;   // < 0: unbounded
  int64_t window_right = -1;  // < 0: unbounded; causal is 0

  // Query row i sees keys [begin(i), end(i)); empty when begin(i) >= end(i). Both are
  // nondecreasing in i, which the block tests below rely on.
  int64_t begin(int64_t i) const {
    return window_left < 0 ? 0 : std::clamp(i + diag_offset - window_left, int64_t{0}, seqlen_k);
  }
  int64_t end(int64_t i) const {
    return window_right < 0 ? seqlen_k
                            : std::clamp(i + diag_offset + window_right + 1, int64_t{0}, seqlen_k);
  }

  // Every row of [i0, i1) sees every key of [j0, j1) (non-empty ranges).
  bool all_visible(int64_t i0, int64_t i1, int64_t j0, int64_t j1) const {
    return begin(i1 - 1) <= j0 && end(i0) >= j1;
  }

  // Rows [row_begin(j0), row_end(j1)) are those that see some key of [j0, j1).
  int64_t row_begin(int64_t j0) const {
    return window_right < 0 ? 0
                            : std::clamp(j0 - diag_offset - window_right, int64_t{0}, seqlen_q);
  }
  int64_t row_end(int64_t j1) const {
    return window_left < 0 ? seqlen_q
                           : std::clamp(j1 - diag_offset + window_left, int64_t{0}, seqlen_q);
  }

  // Sets s(r, c) = -inf where key j0 + c is not visible from row i0 + r.
  void hide(float* s, int64_t lds, int64_t i0, int64_t rows, int64_t j0, int64_t cols) const {
    for (int64_t r = 0; r < rows; ++r) {
      float* row = s + r * lds;
      const int64_t first = std::clamp(begin(i0 + r) - j0, int64_t{0}, cols);
      const int64_t last = std::clamp(end(i0 + r) - j0, first, cols);
      std::fill(row, row + first, kNegInf);
      std::fill(row + last, row + cols, kNegInf);
    }
  }
};

inline VisibleKeys visible_keys(const AttentionParams& p, const SeqLen& seq) {
  return VisibleKeys{seq.seqlen_q, seq.seqlen_k, seq.diag_offset, p.window_left, p.window_right};
}

}  // namespace flash_ext::cpu
