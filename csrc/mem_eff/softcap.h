// Softcap in the mem_eff kernels, in reference.py's order: scale * q.k, then the cap
// x = cap * tanh(scale * q.k / cap), then ALiBi, the bias and the masks. The backward multiplies
// dS by the cap's derivative 1 - tanh^2 for dQ and dK; the bias gradient is dS itself.
// A template parameter of each kernel (kSoftcap), chosen at launch: behind a runtime flag the
// code cost every call registers, and spills where the kernels were at 255 already (sm_90a,
// spill stores: fp32 D = 256 backward 0 -> 16-20 B per kernel, fp16/bf16 D = 64 dK/dV kernel
// 100 -> 120 B, D = 256 forward 140 -> 164 B). So the kernels without softcap compile as before
// it (same registers and spills), and the 18 files' compile time stayed within noise.
#pragma once

#include <cmath>
#include <type_traits>

#include <cutlass/fast_math.h>

namespace mem_eff {

// tanh in fp32 as torch computes it (correctly rounded): through double precision, which
// --use_fast_math leaves alone (it turns tanhf into tanh.approx.f32, relative error ~2^-11, and
// a float formula on ex2.approx was still a few ulp off: enough for dK in fp32 to miss the
// float64 rule by 25% on the H100). fp32 calls are the precise, not the fast, path.
__forceinline__ __device__ float tanh_fp32(float x) {
  return static_cast<float>(tanh(static_cast<double>(x)));
}

// The cap of a kernel compiled with kOn (params.softcap > 0); without it, on() is false and the
// kernels compile none of its code.
template <typename Element, bool kOn>
struct Softcap {
  float cap;       // params.softcap
  float prescale;  // scale / cap: tanh's argument from a raw score q.k

  __device__ __forceinline__ Softcap(float cap, float scale)
      : cap(cap), prescale(kOn ? scale / cap : 0.f) {}

  static constexpr bool on() { return kOn; }

  // tanh(scale * s / cap) of a raw score s. fp16/bf16 take tanh.approx.f32, as the flash
  // kernels do: its error stays below their inputs' rounding (benchmarks/NOTES.md).
  __device__ __forceinline__ float tanh_of(float s) const {
    if constexpr (std::is_same_v<Element, float>) {
      return tanh_fp32(s * prescale);
    } else {
      return cutlass::fast_tanh(s * prescale);
    }
  }

  // The derivative dcap = 1 - tanh^2 at a pair of probability p, or 0 where p is 0, so that dS
  // = P (dP - D) dcap is 0 there: a hidden pair's score may be NaN (an infinite query against
  // the zero-filled keys past the sequence's end gives inf * 0), which tanh keeps and the mask's
  // -inf overrides in P but not in dcap.
  static __device__ __forceinline__ float derivative_where_seen(float dcap, float p) {
    return p == 0.f ? 0.f : dcap;
  }
};

}  // namespace mem_eff
