// Host side of the mem_eff kernels: the variant for a call (dtype, kernel head dim), what the
// kernels cannot run, and the entry points.
#include <cutlass/numeric_types.h>

#include <type_traits>

#include "../flash/variants.h"
#include "config.h"
#include "guard.h"
#include "mem_eff.h"

namespace mem_eff {

int kernel_head_dim(const flash::FwdParams& p) {
  for (int d : kKernelHeadDims) {
    if (p.head_dim <= d && p.head_dim_v <= d) return d;
  }
  return 0;
}

namespace {

template <typename T>
struct TypeTag {
  using type = T;
};

// fn(TypeTag<Element>, integral_constant<int, kHeadDim>) for the call's variant; `fallback`
// when it has none (head_dim > 256).
template <typename Fn, typename R>
R with_variant(const flash::FwdParams& p, bool is_float, R fallback, Fn fn) {
  auto by_dim = [&](auto tag) {
    switch (kernel_head_dim(p)) {
      case 64: return fn(tag, std::integral_constant<int, 64>{});
      case 128: return fn(tag, std::integral_constant<int, 128>{});
      case 256: return fn(tag, std::integral_constant<int, 256>{});
      default: return fallback;
    }
  };
  if (is_float) return by_dim(TypeTag<float>{});
  if (p.is_bf16) return by_dim(TypeTag<cutlass::bfloat16_t>{});
  return by_dim(TypeTag<cutlass::half_t>{});
}

}  // namespace

const char* unsupported(const flash::FwdParams& p, bool is_float, int max_smem) {
  if (kernel_head_dim(p) == 0) return "head_dim over 256";
  if (p.head_dim % row_alignment(is_float) != 0 || p.head_dim_v % row_alignment(is_float) != 0) {
    return "head_dim not a multiple of 16 bytes (the caller pads it)";
  }
  if (p.heads_q > 65535 || p.batch > 65535) return "more than 65535 heads or batches";
  const int smem = with_variant(p, is_float, 0, [](auto tag, auto dim) {
    return smem_size<typename decltype(tag)::type, decltype(dim)::value>();
  });
  if (smem > max_smem) return "its tiles need more shared memory per block than the device has";
  return nullptr;
}

bool reads_guard_scan(const flash::FwdParams& p, bool backward) {
  return with_variant(p, /*is_float=*/true, false, [&](auto, auto dim) {
    return backward || kFp32FwdBothBodies<decltype(dim)::value>;
  });
}

cudaError_t run_fwd(FwdParams& p, cudaStream_t stream) {
  flash::drop_unbounded_windows(p);
  if (p.is_float) {
    const cudaError_t err = scan_for_guard(p, stream);  // nothing without guard_flag
    if (err != cudaSuccess) return err;
  }
  return with_variant(p, p.is_float, cudaErrorInvalidValue, [&](auto tag, auto dim) {
    return run_fwd_<typename decltype(tag)::type, decltype(dim)::value>(p, stream);
  });
}

cudaError_t run_bwd(BwdParams& p, cudaStream_t stream) {
  flash::drop_unbounded_windows(p);
  if (p.is_float) {
    const cudaError_t err = scan_for_guard(p, stream);
    if (err != cudaSuccess) return err;
  }
  return with_variant(p, p.is_float, cudaErrorInvalidValue, [&](auto tag, auto dim) {
    return run_bwd_<typename decltype(tag)::type, decltype(dim)::value>(p, stream);
  });
}

}  // namespace mem_eff
