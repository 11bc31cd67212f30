// fp32's guard against infinities and NaN in the 3xTF32 products. The plain split of an fp32
// value into a TF32 high part and a remainder (gemm.h's split_tf32) turns an infinite x into
// inf and inf - inf = NaN, so that x * y came out NaN where IEEE (and SDPA's math path) gives
// +-inf; the guarded split sends such values whole into the remainder, at an FSETP and a SEL an
// element, which cost the fp32 kernels 10-20% (H100) when every split paid them. So an fp32
// call first scans its inputs (q, k, v, and dO in the backward) with scan_for_guard, which sets
// a flag in device memory where any of them holds an infinity, a NaN or a magnitude of 2^40 or
// more (whose products, through P, dS and the dropout's scale, could reach the end of the float
// range); an fp32 kernel holds both bodies and runs the one the flag asks for (with_guard),
// except the forward's where holding both cost more than the guard (config.h's
// kFp32FwdBothBodies): those hold the guarded body alone, and their calls skip the scan. 16-bit
// inputs take no split and no scan.
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "params.h"

namespace mem_eff {

// The bodies a kernel holds: 16-bit kernels the plain one, fp32 kernels both (with_guard) or,
// without kBothBodies, the guarded one. A kernel with one body calls it itself, on its own
// parameter: through with_guard's lambda, which holds a reference to it, the guarded D = 256 fp32
// forward spilled 152 B instead of 96.
enum class Bodies { kPlain, kGuarded, kBoth };
template <typename Element, bool kBothBodies>
inline constexpr Bodies kBodies = !std::is_same_v<Element, float> ? Bodies::kPlain
                                  : kBothBodies                   ? Bodies::kBoth
                                                                  : Bodies::kGuarded;

// For a kernel with both bodies: body(std::true_type{}) where the scan found a value that needs
// the guarded split, or where no scan ran (guard_flag null), else body(std::false_type{}).
template <typename Body>
__forceinline__ __device__ void with_guard(const BiasParams& p, Body&& body) {
  if (p.guard_flag == nullptr || *p.guard_flag != 0) {
    body(std::true_type{});
  } else {
    body(std::false_type{});
  }
}

// Sets *params.guard_flag (when not null) to whether the fp32 call's q, k and v (and the
// backward's dO) need the guarded split, on `stream`.
cudaError_t scan_for_guard(const FwdParams& params, cudaStream_t stream);
cudaError_t scan_for_guard(const BwdParams& params, cudaStream_t stream);

}  // namespace mem_eff
