// Host side of the flash backward: the deterministic workspaces, what a device can run, and
// kernel selection over the compiled variants.
#include <algorithm>
#include <cstdint>

#include "bwd_config.h"
#include "bwd_prepost.h"
#include "flash_bwd.h"
#include "flash_fwd.h"
#include "variants.h"

namespace flash {

// Deterministic, mma.sync kernel: one slice per CTA column, enough columns to give every SM a
// CTA, no more than there are key blocks of the smallest kBlockN (64). Hopper kernel: a counter
// per 64 query rows (its kBlockM) of each (batch, query head).
BwdWorkspace bwd_workspace(const BwdParams& p, int max_smem) {
  BwdWorkspace w;
  if (!p.deterministic) return w;
  BwdParams call = p;
  drop_unbounded_windows(call);
  // The (192, 128) kernel is a Hopper one: it runs the call or nothing does.
  const bool sm90 = p.head_dim_v != p.head_dim ||
      with_variant(p.is_bf16, kernel_head_dim(p.head_dim), [&](auto tag, auto dim) {
        using Element = typename decltype(tag)::type;
        constexpr int kHeadDim = decltype(dim)::value;
        if constexpr (kDtypeBuilt<Element> && kHeadDimBuilt<kHeadDim>) {
          return call.window_right == 0
                     ? bwd_uses_sm90_<Element, kHeadDim, true>(call, max_smem)
                     : bwd_uses_sm90_<Element, kHeadDim, false>(call, max_smem);
        } else {
          return false;
        }
      });
  if (sm90) {
    w.dq_semaphores = int64_t(p.batch) * p.heads_q * ((int64_t(p.seqlen_q) + 63) / 64);
    return w;
  }
  const int64_t ctas = std::max<int64_t>(1, int64_t(p.batch) * p.heads_kv);
  const int64_t columns = (std::max(p.num_sms, 1) + ctas - 1) / ctas;
  const int64_t key_blocks = (int64_t(p.seqlen_k) + 63) / 64;
  w.dq_splits = static_cast<int>(std::max<int64_t>(1, std::min(columns, key_blocks)));
  return w;
}

int64_t bwd_dq_rows(const BwdParams& p) { return LseRows(p).count(); }

const char* bwd_unsupported(const BwdParams& p, int max_smem, int* needed) {
  *needed = 0;
  if (p.batch > 65535) return "batch over 65535";
  if (p.heads_kv > 65535) return "more than 65535 key/value heads";
  const int smem = with_variant(p.is_bf16, kernel_head_dim(p.head_dim), [](auto tag, auto dim) {
    constexpr int kHeadDim = decltype(dim)::value;
    if constexpr (kHeadDim == 0) {
      return 0;
    } else {
      return bwd_min_smem<kHeadDim, typename decltype(tag)::type>();
    }
  });
  if (smem > max_smem) {
    *needed = smem;
    return "not enough shared memory per block for the backward's tiles";
  }
  return nullptr;
}

bool bwd_dv_runs(const BwdParams& params, int max_smem) {
  BwdParams p = params;
  drop_unbounded_windows(p);
  return with_dv_variant(p, false, [&](auto tag, auto causal) {
    return bwd_dv_runs_<typename decltype(tag)::type, 192, 128, decltype(causal)::value>(
        p, max_smem);
  });
}

cudaError_t run_bwd(BwdParams& p, int max_smem, cudaStream_t stream) {
  drop_unbounded_windows(p);
  if (p.head_dim_v != p.head_dim) {
    return with_dv_variant(p, cudaErrorNotSupported, [&](auto tag, auto causal) {
      using Element = typename decltype(tag)::type;
      return run_bwd_dv_<Element, 192, 128, decltype(causal)::value>(p, max_smem, stream);
    });
  }
  return with_variant(p.is_bf16, kernel_head_dim(p.head_dim), [&](auto tag, auto dim) {
    using Element = typename decltype(tag)::type;
    constexpr int kHeadDim = decltype(dim)::value;
    if constexpr (kDtypeBuilt<Element> && kHeadDimBuilt<kHeadDim>) {
      return p.window_right == 0 ? run_bwd_<Element, kHeadDim, true>(p, max_smem, stream)
                                 : run_bwd_<Element, kHeadDim, false>(p, max_smem, stream);
    } else {
      return cudaErrorInvalidValue;
    }
  });
}

}  // namespace flash
