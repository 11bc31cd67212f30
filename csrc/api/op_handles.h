// Typed dispatcher handles of the flash_ext ops, for the C++ that calls them (entry.cpp,
// autograd.cpp): a call goes through the dispatcher, so autograd, fake tensors, modes and the
// per-device kernels all see it.
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/core/dispatch/Dispatcher.h>

#include <optional>
#include <tuple>

namespace flash_ext::op {

using at::Tensor;
using OptTensor = std::optional<Tensor>;
using Pair = std::tuple<Tensor, Tensor>;
using Quad = std::tuple<Tensor, Tensor, Tensor, Tensor>;

#define FLASH_EXT_OP_HANDLE(NAME, ...)                                                        \
  inline const c10::TypedOperatorHandle<__VA_ARGS__>& NAME() {                               \
    static const auto h =                                                                     \
        c10::Dispatcher::singleton().findSchemaOrThrow("flash_ext::" #NAME, "").typed<__VA_ARGS__>(); \
    return h;                                                                                 \
  }

FLASH_EXT_OP_HANDLE(attention_fwd,
                    Pair(const Tensor&, const Tensor&, const Tensor&, const OptTensor&,
                         const OptTensor&, const OptTensor&, double, double, int64_t, int64_t,
                         bool, double, bool, const OptTensor&, int64_t))
FLASH_EXT_OP_HANDLE(attention_bwd,
                    Quad(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                         const Tensor&, const OptTensor&, const OptTensor&, const OptTensor&,
                         double, double, int64_t, int64_t, bool, double, bool, const OptTensor&))
FLASH_EXT_OP_HANDLE(attention_varlen_fwd,
                    Pair(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                         const Tensor&, int64_t, int64_t, const OptTensor&, const OptTensor&,
                         double, double, int64_t, int64_t, bool, double, bool, const OptTensor&,
                         int64_t))
FLASH_EXT_OP_HANDLE(attention_varlen_bwd,
                    Quad(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                         const Tensor&, const Tensor&, const Tensor&, int64_t, int64_t,
                         const OptTensor&, const OptTensor&, double, double, int64_t, int64_t,
                         bool, double, bool, const OptTensor&))
FLASH_EXT_OP_HANDLE(mem_eff_fwd,
                    Pair(const Tensor&, const Tensor&, const Tensor&, const OptTensor&,
                         const OptTensor&, const OptTensor&, int64_t, int64_t, const OptTensor&,
                         const OptTensor&, double, double, int64_t, int64_t, bool, double,
                         bool))
FLASH_EXT_OP_HANDLE(mem_eff_bwd,
                    Quad(
                        const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                        const Tensor&, const Tensor&, const OptTensor&, bool, const OptTensor&,
                        const OptTensor&, int64_t, int64_t, const OptTensor&, const OptTensor&,
                        double, double, int64_t, int64_t, bool, double, bool))

#undef FLASH_EXT_OP_HANDLE

}  // namespace flash_ext::op
