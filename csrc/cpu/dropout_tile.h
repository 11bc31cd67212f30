// dropout.h's keep test applied to rows of a score tile: the forward zeroes dropped
// probabilities, the backward rebuilds the dropped, rescaled P and dP from the same draws.
#pragma once

#include "dropout.h"
#include "params.h"

#include <cstdint>

namespace flash_ext::cpu {

struct DropoutTile {
  bool enabled = false;
  uint64_t seed = 0;
  uint32_t threshold = 0;
  int64_t batch = 0;  // sequence index b (also for varlen)
  int64_t head = 0;
  int64_t heads = 0;
  int64_t max_seqlen_q = 0;
  int64_t max_seqlen_k = 0;
  float keep_scale = 1.f;  // 1 / (1 - p)

  bool keep(int64_t i, int64_t j) const {
    return dropout_keep(seed, threshold, batch, head, i, j, heads, max_seqlen_q, max_seqlen_k);
  }

  // p[c] = 0 where key j0 + c of query i is dropped.
  void drop_row(float* p, int64_t i, int64_t j0, int64_t cols) const {
    for (int64_t c = 0; c < cols; ++c) {
      if (!keep(i, j0 + c)) {
        p[c] = 0.f;
      }
    }
  }

  // p_drop[c] = keep ? p[c] / (1 - p) : 0 and the same mask and scale on dp.
  void drop_row_grad(const float* p, float* p_drop, float* dp, int64_t i, int64_t j0,
                     int64_t cols) const {
    for (int64_t c = 0; c < cols; ++c) {
      const float factor = keep(i, j0 + c) ? keep_scale : 0.f;
      p_drop[c] = p[c] * factor;
      dp[c] *= factor;
    }
  }
};

inline DropoutTile dropout_tile(const AttentionParams& p, int64_t b, int64_t h) {
  DropoutTile tile;
  tile.enabled = p.dropout_p > 0.f;
  if (tile.enabled) {
    tile.seed = p.dropout_seed;
    tile.threshold = dropout_threshold(p.dropout_p);
    tile.batch = b;
    tile.head = h;
    tile.heads = p.heads_q;
    tile.max_seqlen_q = p.seqlen_q;
    tile.max_seqlen_k = p.seqlen_k;
    tile.keep_scale = 1.f / (1.f - p.dropout_p);
  }
  return tile;
}

}  // namespace flash_ext::cpu
