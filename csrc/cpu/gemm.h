// The one fp32 GEMM of the CPU attention kernels: C (+)= A * B with B packed in column panels
// (converted from the input dtype while packing) and A read in place, row-major or transposed.
// Every product of the forward (S = Q K^T, O += P V) and backward (dP = dO V^T, dV += P^T dO,
// dK += dS^T Q, dQ += dS K) runs through gemm() below.
#pragma once

#include "vec_utils.h"

#include <algorithm>
#include <cstdint>

namespace flash_ext::cpu {

// Columns of one packed B panel: two vectors, so a micro tile of kMicroRows rows keeps
// 2 * kMicroRows accumulators (AVX2: 12 of 16 ymm, plus two B vectors and one A broadcast).
constexpr int64_t kPanelWidth = 2 * kVecSize;
constexpr int kMicroRows = 6;

inline int64_t round_up(int64_t x, int64_t multiple) {
  return (x + multiple - 1) / multiple * multiple;
}

// Packs B (k_size x n_size), element (k, n) at src[k * k_stride + n * n_stride], as fp32 times
// `scale` into ceil(n_size / kPanelWidth) panels laid out [k_size][kPanelWidth]; panel p starts
// at dst + p * panel_stride and its columns past n_size are zero.
template <typename T>
void pack_b_panels(const T* src, int64_t k_stride, int64_t n_stride, int64_t k_size,
                   int64_t n_size, float scale, float* dst, int64_t panel_stride) {
  for (int64_t n0 = 0; n0 < n_size; n0 += kPanelWidth) {
    float* panel = dst + (n0 / kPanelWidth) * panel_stride;
    const int64_t width = std::min(kPanelWidth, n_size - n0);
    if (n_stride == 1) {
      // Rows of B are contiguous: copy kPanelWidth-wide segments.
      for (int64_t k = 0; k < k_size; ++k) {
        const T* row = src + k * k_stride + n0;
        float* out = panel + k * kPanelWidth;
        if (width == kPanelWidth) {
          convert_row(row, out, kPanelWidth, scale);
        } else {
          convert_row(row, out, width, scale);
          std::fill(out + width, out + kPanelWidth, 0.f);
        }
      }
    } else {
      // Columns of B are contiguous (B = X^T): convert each column a vector at a time and
      // scatter it down the panel.
      for (int64_t n = 0; n < kPanelWidth; ++n) {
        if (n >= width) {
          for (int64_t k = 0; k < k_size; ++k) {
            panel[k * kPanelWidth + n] = 0.f;
          }
          continue;
        }
        const T* column = src + (n0 + n) * n_stride;
        int64_t k = 0;
        if (k_stride == 1) {
          alignas(64) float lanes[kVecSize];
          for (; k + kVecSize <= k_size; k += kVecSize) {
            (load_float(column + k) * Vec(scale)).store(lanes);
            for (int64_t l = 0; l < kVecSize; ++l) {
              panel[(k + l) * kPanelWidth + n] = lanes[l];
            }
          }
        }
        for (; k < k_size; ++k) {
          panel[k * kPanelWidth + n] = scale * static_cast<float>(column[k * k_stride]);
        }
      }
    }
  }
}

// One kRows x kPanelWidth tile of C over the whole K: the accumulators stay in registers, A is
// broadcast one element at a time (a[r * lda + k], or a[k * lda + r] when kATransposed) and B
// is one packed panel [K][kPanelWidth].
template <int kRows, bool kATransposed>
inline void micro_tile(int64_t k_size, const float* a, int64_t lda, const float* b, float* c,
                       int64_t ldc, bool accumulate) {
  Vec acc_lo[kRows];
  Vec acc_hi[kRows];
  for (int r = 0; r < kRows; ++r) {
    acc_lo[r] = accumulate ? Vec::loadu(c + r * ldc) : Vec(0.f);
    acc_hi[r] = accumulate ? Vec::loadu(c + r * ldc + kVecSize) : Vec(0.f);
  }
  for (int64_t k = 0; k < k_size; ++k) {
    const Vec b_lo = Vec::loadu(b + k * kPanelWidth);
    const Vec b_hi = Vec::loadu(b + k * kPanelWidth + kVecSize);
    for (int r = 0; r < kRows; ++r) {
      const Vec a_r(kATransposed ? a[k * lda + r] : a[r * lda + k]);
      acc_lo[r] = at::vec::fmadd(a_r, b_lo, acc_lo[r]);
      acc_hi[r] = at::vec::fmadd(a_r, b_hi, acc_hi[r]);
    }
  }
  for (int r = 0; r < kRows; ++r) {
    acc_lo[r].store(c + r * ldc);
    acc_hi[r].store(c + r * ldc + kVecSize);
  }
}

template <bool kATransposed>
inline void micro_tile_rows(int rows, int64_t k_size, const float* a, int64_t lda,
                            const float* b, float* c, int64_t ldc, bool accumulate) {
  switch (rows) {
    case 6: return micro_tile<6, kATransposed>(k_size, a, lda, b, c, ldc, accumulate);
    case 5: return micro_tile<5, kATransposed>(k_size, a, lda, b, c, ldc, accumulate);
    case 4: return micro_tile<4, kATransposed>(k_size, a, lda, b, c, ldc, accumulate);
    case 3: return micro_tile<3, kATransposed>(k_size, a, lda, b, c, ldc, accumulate);
    case 2: return micro_tile<2, kATransposed>(k_size, a, lda, b, c, ldc, accumulate);
    default: return micro_tile<1, kATransposed>(k_size, a, lda, b, c, ldc, accumulate);
  }
}

// C (m x n) = or += A (m x k) * B (k x n). A(i, l) is a[i * lda + l], or a[l * lda + i] when
// a_transposed; B is packed by pack_b_panels (panel p at b + p * b_panel_stride). C is row-major
// and whole panels are stored: ldc >= round_up(n, kPanelWidth).
template <bool kATransposed>
inline void gemm(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
                 int64_t b_panel_stride, float* c, int64_t ldc, bool accumulate) {
  // Panel outer: the B panel (k x kPanelWidth) stays in L1 while A's rows stream past it.
  for (int64_t n0 = 0; n0 < n; n0 += kPanelWidth) {
    const float* panel = b + (n0 / kPanelWidth) * b_panel_stride;
    for (int64_t m0 = 0; m0 < m; m0 += kMicroRows) {
      const int rows = static_cast<int>(std::min<int64_t>(kMicroRows, m - m0));
      const float* a_tile = kATransposed ? a + m0 : a + m0 * lda;
      micro_tile_rows<kATransposed>(rows, k, a_tile, lda, panel, c + m0 * ldc + n0, ldc,
                                    accumulate);
    }
  }
}

}  // namespace flash_ext::cpu
