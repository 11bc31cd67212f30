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
      // Columns of B are contiguous (B = X^T): transpose 8 x 8 blocks of X after converting
      // them to fp32; the remainder (and strided columns) element by element.
      int64_t k_done = 0;
      if (k_stride == 1 && width == kPanelWidth) {
        alignas(64) float block[kVecSize * kVecSize];
        for (; k_done + kVecSize <= k_size; k_done += kVecSize) {
          for (int64_t half = 0; half < kPanelWidth; half += kVecSize) {
            for (int64_t n = 0; n < kVecSize; ++n) {
              const T* column = src + (n0 + half + n) * n_stride + k_done;
              (load_float(column) * Vec(scale)).store(block + n * kVecSize);
            }
            at::vec::transpose_mxn<float, kVecSize, kVecSize>(
                block, kVecSize, panel + k_done * kPanelWidth + half, kPanelWidth);
          }
        }
      }
      for (int64_t k = k_done; k < k_size; ++k) {
        for (int64_t n = 0; n < kPanelWidth; ++n) {
          panel[k * kPanelWidth + n] =
              n < width ? scale * static_cast<float>(src[(n0 + n) * n_stride + k * k_stride])
                        : 0.f;
        }
      }
    }
  }
}

// (acc_lo, acc_hi) += a * (b_lo, b_hi): one row of a micro tile for one k.
inline void fma_row(const Vec& a, const Vec& b_lo, const Vec& b_hi, Vec& acc_lo, Vec& acc_hi) {
  acc_lo = at::vec::fmadd(a, b_lo, acc_lo);
  acc_hi = at::vec::fmadd(a, b_hi, acc_hi);
}

// C rows (+)= (acc_lo, acc_hi).
inline void store_row_tile(float* c, const Vec& acc_lo, const Vec& acc_hi, bool accumulate) {
  if (accumulate) {
    (acc_lo + Vec::loadu(c)).store(c);
    (acc_hi + Vec::loadu(c + kVecSize)).store(c + kVecSize);
  } else {
    acc_lo.store(c);
    acc_hi.store(c + kVecSize);
  }
}

// One kRows x kPanelWidth tile of C over the whole K: A is broadcast one element at a time
// (a[r * lda + k], or a[k * lda + r] when kATransposed), B is one packed panel [K][kPanelWidth].
// The accumulators are named values, not an array: GCC keeps arrays of Vectorized in memory
// (one store per FMA pair, 3x slower), named values in registers.
template <int kRows, bool kATransposed>
inline void micro_tile(int64_t k_size, const float* a, int64_t lda, const float* b, float* c,
                       int64_t ldc, bool accumulate) {
  static_assert(kRows >= 1 && kRows <= kMicroRows);
  auto a_at = [&](int64_t k, int r) { return Vec(kATransposed ? a[k * lda + r] : a[r * lda + k]); };
  Vec lo0(0.f), hi0(0.f), lo1(0.f), hi1(0.f), lo2(0.f), hi2(0.f);
  Vec lo3(0.f), hi3(0.f), lo4(0.f), hi4(0.f), lo5(0.f), hi5(0.f);
  // Unrolled by 4 for the loop overhead: +13% on the D = 128 forward.
#pragma GCC unroll 4
  for (int64_t k = 0; k < k_size; ++k) {
    const Vec b_lo = Vec::loadu(b + k * kPanelWidth);
    const Vec b_hi = Vec::loadu(b + k * kPanelWidth + kVecSize);
    fma_row(a_at(k, 0), b_lo, b_hi, lo0, hi0);
    if constexpr (kRows > 1) fma_row(a_at(k, 1), b_lo, b_hi, lo1, hi1);
    if constexpr (kRows > 2) fma_row(a_at(k, 2), b_lo, b_hi, lo2, hi2);
    if constexpr (kRows > 3) fma_row(a_at(k, 3), b_lo, b_hi, lo3, hi3);
    if constexpr (kRows > 4) fma_row(a_at(k, 4), b_lo, b_hi, lo4, hi4);
    if constexpr (kRows > 5) fma_row(a_at(k, 5), b_lo, b_hi, lo5, hi5);
  }
  store_row_tile(c, lo0, hi0, accumulate);
  if constexpr (kRows > 1) store_row_tile(c + ldc, lo1, hi1, accumulate);
  if constexpr (kRows > 2) store_row_tile(c + 2 * ldc, lo2, hi2, accumulate);
  if constexpr (kRows > 3) store_row_tile(c + 3 * ldc, lo3, hi3, accumulate);
  if constexpr (kRows > 4) store_row_tile(c + 4 * ldc, lo4, hi4, accumulate);
  if constexpr (kRows > 5) store_row_tile(c + 5 * ldc, lo5, hi5, accumulate);
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
  // Rows outer: the A tile stays in L1 while the B panels stream from L2 (6% faster than panels
  // outer at D = 128, where A and a B panel together overflow the 32 KiB L1).
  for (int64_t m0 = 0; m0 < m; m0 += kMicroRows) {
    const int rows = static_cast<int>(std::min<int64_t>(kMicroRows, m - m0));
    const float* a_tile = kATransposed ? a + m0 : a + m0 * lda;
    for (int64_t n0 = 0; n0 < n; n0 += kPanelWidth) {
      micro_tile_rows<kATransposed>(rows, k, a_tile, lda, b + (n0 / kPanelWidth) * b_panel_stride,
                                    c + m0 * ldc + n0, ldc, accumulate);
    }
  }
}

}  // namespace flash_ext::cpu
