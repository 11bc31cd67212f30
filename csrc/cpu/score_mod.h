// Score modifiers applied to a tile of scaled scores, in the reference's order: softcap, + ALiBi,
// + additive mask, then keys hidden by the boolean mask get -inf. They are runtime data of one
// (sequence, q head), checked per tile, so they add no template variants to the kernels.
#pragma once

#include "params.h"
#include "seqlen.h"
#include "vec_utils.h"

#include <c10/core/ScalarType.h>

#include <cstdint>

namespace flash_ext::cpu {

struct ScoreMod {
  float softcap = 0.f;
  bool has_alibi = false;
  float alibi_slope = 0.f;
  int64_t diag_offset = 0;
  MaskKind mask_kind = MaskKind::kNone;
  c10::ScalarType mask_dtype = c10::ScalarType::Bool;
  // Element (i, j) of this (batch, head) at mask + (i * row_stride + j * col_stride) * size.
  const char* mask = nullptr;
  int64_t mask_row_stride = 0;
  int64_t mask_col_stride = 0;
  int64_t mask_element_size = 1;

  bool active() const {
    return softcap > 0.f || has_alibi || mask_kind != MaskKind::kNone;
  }

  // Modifies s(r, c), the score of query i0 + r and key j0 + c. With softcap on, dtanh (same
  // layout as s) receives 1 - tanh^2, the factor the backward multiplies dS by.
  void apply(float* s, int64_t lds, int64_t i0, int64_t rows, int64_t j0, int64_t cols,
             float* dtanh) const {
    for (int64_t r = 0; r < rows; ++r) {
      float* row = s + r * lds;
      if (softcap > 0.f) {
        apply_softcap(row, cols, dtanh == nullptr ? nullptr : dtanh + r * lds);
      }
      if (has_alibi) {
        add_alibi(row, i0 + r, j0, cols);
      }
      if (mask_kind != MaskKind::kNone) {
        const char* mask_row =
            mask + ((i0 + r) * mask_row_stride + j0 * mask_col_stride) * mask_element_size;
        if (mask_kind == MaskKind::kBool) {
          hide_masked(row, reinterpret_cast<const bool*>(mask_row), cols);
        } else if (mask_dtype == c10::ScalarType::Float) {
          add_mask(row, reinterpret_cast<const float*>(mask_row), cols);
        } else if (mask_dtype == c10::ScalarType::BFloat16) {
          add_mask(row, reinterpret_cast<const c10::BFloat16*>(mask_row), cols);
        } else {
          add_mask(row, reinterpret_cast<const c10::Half*>(mask_row), cols);
        }
      }
    }
  }

 private:
  // x = softcap * tanh(x / softcap)
  void apply_softcap(float* x, int64_t n, float* dtanh) const {
    const Vec cap(softcap);
    const Vec inv_cap(1.f / softcap);
    int64_t c = 0;
    for (; c + kVecSize <= n; c += kVecSize) {
      const Vec t = (Vec::loadu(x + c) * inv_cap).tanh();
      (cap * t).store(x + c);
      if (dtanh != nullptr) {
        (Vec(1.f) - t * t).store(dtanh + c);
      }
    }
    for (; c < n; ++c) {
      const float t = std::tanh(x[c] / softcap);
      x[c] = softcap * t;
      if (dtanh != nullptr) {
        dtanh[c] = 1.f - t * t;
      }
    }
  }

  // x[c] += -slope * |i + diag_offset - (j0 + c)|
  void add_alibi(float* x, int64_t i, int64_t j0, int64_t n) const {
    const float distance0 = static_cast<float>(i + diag_offset - j0);
    const Vec neg_slope(-alibi_slope);
    alignas(64) float lane_index[kVecSize];
    for (int64_t l = 0; l < kVecSize; ++l) {
      lane_index[l] = static_cast<float>(l);
    }
    const Vec lanes = Vec::loadu(lane_index);
    int64_t c = 0;
    for (; c + kVecSize <= n; c += kVecSize) {
      const Vec distance = (Vec(distance0 - static_cast<float>(c)) - lanes).abs();
      at::vec::fmadd(neg_slope, distance, Vec::loadu(x + c)).store(x + c);
    }
    for (; c < n; ++c) {
      x[c] += -alibi_slope * std::abs(distance0 - static_cast<float>(c));
    }
  }

  template <typename M>
  void add_mask(float* x, const M* m, int64_t n) const {
    int64_t c = 0;
    if (mask_col_stride == 1) {
      for (; c + kVecSize <= n; c += kVecSize) {
        (Vec::loadu(x + c) + load_float(m + c)).store(x + c);
      }
    }
    for (; c < n; ++c) {
      x[c] += static_cast<float>(m[c * mask_col_stride]);
    }
  }

  void hide_masked(float* x, const bool* m, int64_t n) const {
    for (int64_t c = 0; c < n; ++c) {
      if (!m[c * mask_col_stride]) {
        x[c] = kNegInf;
      }
    }
  }
};

// Modifiers for query head h of sequence b. Masks are dense-only (params.h).
inline ScoreMod score_mod(const AttentionParams& p, const SeqLen& seq, int64_t b, int64_t h) {
  ScoreMod mod;
  mod.softcap = p.softcap;
  mod.diag_offset = seq.diag_offset;
  if (p.alibi_slopes != nullptr) {
    mod.has_alibi = true;
    mod.alibi_slope = p.alibi_slopes[b * p.alibi_batch_stride + h];
  }
  if (p.mask_kind != MaskKind::kNone && p.mask != nullptr) {
    mod.mask_kind = p.mask_kind;
    mod.mask_dtype = p.mask_dtype;
    mod.mask_element_size = static_cast<int64_t>(c10::elementSize(p.mask_dtype));
    mod.mask = static_cast<const char*>(p.mask) +
               (b * p.mask_batch_stride + h * p.mask_head_stride) * mod.mask_element_size;
    mod.mask_row_stride = p.mask_row_stride;
    mod.mask_col_stride = p.mask_col_stride;
  }
  return mod;
}

}  // namespace flash_ext::cpu
