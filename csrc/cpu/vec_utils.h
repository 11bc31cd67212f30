// Fused fp32 row helpers for the CPU attention kernels, on ATen's Vectorized<float>: loads and
// stores that convert from/to the input dtype, and the max / exp / sum passes of the softmax.
// Every helper has a scalar tail, so any row length works, vectorized or not (generic at::vec).
#pragma once

#include <ATen/cpu/vec/functional.h>
#include <ATen/cpu/vec/vec.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace flash_ext::cpu {

using Vec = at::vec::Vectorized<float>;
constexpr int64_t kVecSize = Vec::size();
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// kVecSize consecutive elements of `src` as fp32.
template <typename T>
inline Vec load_float(const T* src) {
  if constexpr (std::is_same_v<T, float>) {
    return Vec::loadu(src);
  } else {
    Vec out;
    at::vec::load_to_float<T>(src, out);
    return out;
  }
}

// Stores kVecSize fp32 lanes into `dst` in its dtype (round to nearest even).
template <typename T>
inline void store_float(T* dst, const Vec& value) {
  if constexpr (std::is_same_v<T, float>) {
    value.store(dst);
  } else {
    at::vec::convert_from_float<T>(value, value).store(dst, kVecSize);
  }
}

// dst[i] = scale * float(src[i]), i < n.
template <typename T>
inline void convert_row(const T* src, float* dst, int64_t n, float scale) {
  const Vec scale_vec(scale);
  int64_t i = 0;
  for (; i + kVecSize <= n; i += kVecSize) {
    (load_float(src + i) * scale_vec).store(dst + i);
  }
  for (; i < n; ++i) {
    dst[i] = scale * static_cast<float>(src[i]);
  }
}

// dst[i] = T(scale * src[i]), i < n.
template <typename T>
inline void store_row(const float* src, T* dst, int64_t n, float scale) {
  const Vec scale_vec(scale);
  int64_t i = 0;
  for (; i + kVecSize <= n; i += kVecSize) {
    store_float(dst + i, Vec::loadu(src + i) * scale_vec);
  }
  for (; i < n; ++i) {
    dst[i] = static_cast<T>(scale * src[i]);
  }
}

inline void scale_row(float* x, int64_t n, float scale) {
  const Vec scale_vec(scale);
  int64_t i = 0;
  for (; i + kVecSize <= n; i += kVecSize) {
    (Vec::loadu(x + i) * scale_vec).store(x + i);
  }
  for (; i < n; ++i) {
    x[i] *= scale;
  }
}

// exp(x) for the softmax's shifted scores (x <= 0, or barely above): x log2(e) = n + f with
// n = round(x log2(e)), 2^f from a degree-5 polynomial fitted on [-1/2, 1/2] (max relative error
// 1.8e-7 near 0, 1.3e-6 at x = -87 from the rounding of log2(e)). Rounding by adding
// 1.5 * 2^23 + 127 leaves n + 127 in the low bits, which shifted into the exponent field give
// 2^n; clamping x at -88.3 makes that n + 127 >= 0, and 0 (so 2^n = 0) below ~-87.7: exp(-inf)
// is exactly 0. 11 vector ops where Vectorized::exp_u20 takes 20 (and has 20 ulp error): the
// softmax is the kernels' main cost besides the GEMMs. A NaN x gives NaN: clamp_min keeps it.
inline Vec exp_nonpositive(const Vec& x) {
  const Vec log2e(1.44269504f);
  const Vec round_magic(12582912.f + 127.f);
  const Vec x_clamped = at::vec::clamp_min(x, Vec(-88.3f));
  const Vec shifted = at::vec::fmadd(x_clamped, log2e, round_magic);
  const Vec n = shifted - round_magic;
  const Vec f = at::vec::fmsub(x_clamped, log2e, n);
  Vec p = at::vec::fmadd(Vec(1.3269969e-3f), f, Vec(9.6715102e-3f));
  p = at::vec::fmadd(p, f, Vec(5.5507157e-2f));
  p = at::vec::fmadd(p, f, Vec(2.4022242e-1f));
  p = at::vec::fmadd(p, f, Vec(6.9314700e-1f));
  p = at::vec::fmadd(p, f, Vec(1.f));
  const at::vec::Vectorized<int32_t> exponent =
      at::vec::cast<int32_t>(shifted) << at::vec::Vectorized<int32_t>(23);
  return p * at::vec::cast<float>(exponent);
}

// max(a, b), NaN when either is NaN.
inline float max_nan(float a, float b) {
  return std::isnan(a) || a > b ? a : b;
}

// The maximum of x by the plain max instruction: where x holds a NaN, the result is NaN or the
// maximum of the other elements. Callers carry the NaN into the row through exp(NaN - max)
// instead (a NaN-propagating max made the forward 3% slower); only a row of NaN and -inf alone
// needs the check has_nan().
inline float max_row(const float* x, int64_t n) {
  Vec max_vec(kNegInf);
  int64_t i = 0;
  for (; i + kVecSize <= n; i += kVecSize) {
    max_vec = at::vec::clamp_min(Vec::loadu(x + i), max_vec);
  }
  float result = at::vec::vec_reduce_all<float>(
      [](const Vec& a, const Vec& b) { return at::vec::maximum(a, b); }, max_vec);
  for (; i < n; ++i) {
    result = std::max(result, x[i]);
  }
  return result;
}

inline bool has_nan(const float* x, int64_t n) {
  return std::any_of(x, x + n, [](float value) { return std::isnan(value); });
}

// x[i] = exp(scale x[i] - shift) in place, with scale > 0 and shift >= scale max(x); returns
// the sum. A NaN or +inf shift (a row with a NaN or +inf score) makes the row and the sum NaN
// (inf - inf), as in SDPA.
inline float exp_sum_row(float* x, int64_t n, float shift, float scale = 1.f) {
  const Vec shift_vec(-shift), scale_vec(scale);
  Vec sum_vec(0.f);
  int64_t i = 0;
  for (; i + kVecSize <= n; i += kVecSize) {
    const Vec e = exp_nonpositive(at::vec::fmadd(Vec::loadu(x + i), scale_vec, shift_vec));
    sum_vec += e;
    e.store(x + i);
  }
  float sum = at::vec::vec_reduce_all<float>(
      [](const Vec& a, const Vec& b) { return a + b; }, sum_vec);
  for (; i < n; ++i) {
    x[i] = std::exp(std::fma(x[i], scale, -shift));
    sum += x[i];
  }
  return sum;
}

// x[i] = exp(x[i] - shift) in place, shift >= max(x): the backward's P = exp(S - lse), NaN
// where S or lse is NaN.
inline void exp_row(float* x, int64_t n, float shift) {
  const Vec shift_vec(shift);
  int64_t i = 0;
  for (; i + kVecSize <= n; i += kVecSize) {
    exp_nonpositive(Vec::loadu(x + i) - shift_vec).store(x + i);
  }
  for (; i < n; ++i) {
    x[i] = std::exp(x[i] - shift);
  }
}

// sum_i float(a[i]) * float(b[i]) accumulated in fp32.
template <typename T>
inline float dot_row(const T* a, const T* b, int64_t n) {
  Vec sum_vec(0.f);
  int64_t i = 0;
  for (; i + kVecSize <= n; i += kVecSize) {
    sum_vec = at::vec::fmadd(load_float(a + i), load_float(b + i), sum_vec);
  }
  float sum = at::vec::vec_reduce_all<float>(
      [](const Vec& x, const Vec& y) { return x + y; }, sum_vec);
  for (; i < n; ++i) {
    sum += static_cast<float>(a[i]) * static_cast<float>(b[i]);
  }
  return sum;
}

// ds[i] = p[i] * (dp[i] - delta), the softmax backward of one row, written over dp.
inline void softmax_grad_row(const float* p, float* dp, int64_t n, float delta) {
  const Vec delta_vec(delta);
  int64_t i = 0;
  for (; i + kVecSize <= n; i += kVecSize) {
    (Vec::loadu(p + i) * (Vec::loadu(dp + i) - delta_vec)).store(dp + i);
  }
  for (; i < n; ++i) {
    dp[i] = p[i] * (dp[i] - delta);
  }
}

// y[i] += x[i]
inline void add_row(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + kVecSize <= n; i += kVecSize) {
    (Vec::loadu(y + i) + Vec::loadu(x + i)).store(y + i);
  }
  for (; i < n; ++i) {
    y[i] += x[i];
  }
}

inline void mul_row(float* x, const float* y, int64_t n) {
  int64_t i = 0;
  for (; i + kVecSize <= n; i += kVecSize) {
    (Vec::loadu(x + i) * Vec::loadu(y + i)).store(x + i);
  }
  for (; i < n; ++i) {
    x[i] *= y[i];
  }
}

}  // namespace flash_ext::cpu
