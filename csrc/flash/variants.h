// The compiled kernel variants (setup.py's FLASH_EXT_HDIMS and FLASH_EXT_DTYPES) and the switch
// from a call's (dtype, kernel head dim) to the template arguments, for fwd_api.cu and
// bwd_api.cu.
#pragma once

#include <cutlass/numeric_types.h>

#include <cstdint>
#include <type_traits>

#include "flash_fwd.h"
#include "params.h"

namespace flash {

// What setup.py compiled: FLASH_EXT_HDIM_<d>, FLASH_EXT_BF16, FLASH_EXT_FP16.
template <int kHeadDim>
inline constexpr bool kHeadDimBuilt = false;
#ifdef FLASH_EXT_HDIM_32
template <> inline constexpr bool kHeadDimBuilt<32> = true;
#endif
#ifdef FLASH_EXT_HDIM_64
template <> inline constexpr bool kHeadDimBuilt<64> = true;
#endif
#ifdef FLASH_EXT_HDIM_96
template <> inline constexpr bool kHeadDimBuilt<96> = true;
#endif
#ifdef FLASH_EXT_HDIM_128
template <> inline constexpr bool kHeadDimBuilt<128> = true;
#endif
#ifdef FLASH_EXT_HDIM_160
template <> inline constexpr bool kHeadDimBuilt<160> = true;
#endif
#ifdef FLASH_EXT_HDIM_192
template <> inline constexpr bool kHeadDimBuilt<192> = true;
#endif
#ifdef FLASH_EXT_HDIM_224
template <> inline constexpr bool kHeadDimBuilt<224> = true;
#endif
#ifdef FLASH_EXT_HDIM_256
template <> inline constexpr bool kHeadDimBuilt<256> = true;
#endif

template <typename Element>
inline constexpr bool kDtypeBuilt = false;
#ifdef FLASH_EXT_BF16
template <> inline constexpr bool kDtypeBuilt<cutlass::bfloat16_t> = true;
#endif
#ifdef FLASH_EXT_FP16
template <> inline constexpr bool kDtypeBuilt<cutlass::half_t> = true;
#endif

template <typename T>
struct TypeTag {
  using type = T;
};

// Calls f(TypeTag<Element>{}, std::integral_constant<int, kernel head dim>{}); a head dim
// without a kernel is passed as 0.
template <typename F>
auto with_variant(bool is_bf16, int kernel_head_dim, F f) {
  auto with_dim = [&](auto tag) {
    switch (kernel_head_dim) {
      case 32: return f(tag, std::integral_constant<int, 32>{});
      case 64: return f(tag, std::integral_constant<int, 64>{});
      case 96: return f(tag, std::integral_constant<int, 96>{});
      case 128: return f(tag, std::integral_constant<int, 128>{});
      case 160: return f(tag, std::integral_constant<int, 160>{});
      case 192: return f(tag, std::integral_constant<int, 192>{});
      case 224: return f(tag, std::integral_constant<int, 224>{});
      case 256: return f(tag, std::integral_constant<int, 256>{});
      default: return f(tag, std::integral_constant<int, 0>{});
    }
  };
  return is_bf16 ? with_dim(TypeTag<cutlass::bfloat16_t>{}) : with_dim(TypeTag<cutlass::half_t>{});
}

// f(TypeTag<Element>{}, std::bool_constant<kCausal>{}) for a call whose q/k and v head dims
// are the kernel head dims (192, 128) (the only pair with kernels of its own) in a built dtype,
// else `otherwise`. kCausal from the call's (bounded) right window.
template <typename R, typename F>
R with_dv_variant(const FwdParams& p, R otherwise, F f) {
  if (kernel_head_dim(p.head_dim) != 192 || kernel_head_dim(p.head_dim_v) != 128) return otherwise;
  return with_variant(p.is_bf16, 192, [&](auto tag, auto) -> R {
    using Element = typename decltype(tag)::type;
    if constexpr (kDtypeBuilt<Element> && kHeadDimBuilt<192>) {
      return p.window_right == 0 ? f(tag, std::true_type{}) : f(tag, std::false_type{});
    } else {
      return otherwise;
    }
  });
}

// A window wider than both sequences is no window: keeps the kernels' index math in int.
inline void drop_unbounded_windows(FwdParams& p) {
  const int64_t span = int64_t(p.seqlen_q) + p.seqlen_k;
  if (p.window_left > span) p.window_left = -1;
  if (p.window_right > span) p.window_right = -1;
}

}  // namespace flash
