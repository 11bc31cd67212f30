// Host side of the flash forward: kernel selection over the compiled variants, the split-KV
// heuristic, and the dropout keep-mask kernel for tests.
#include <cutlass/numeric_types.h>

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "dropout.h"
#include "flash_fwd.h"
#include "fwd_sm90_tiles.h"
#include "variants.h"

namespace flash {

int kernel_head_dim(int head_dim) {
  for (int d : kKernelHeadDims) {
    if (head_dim <= d) return d;
  }
  return 0;
}

bool fwd_built(bool is_bf16, int kernel_head_dim) {
  return with_variant(is_bf16, kernel_head_dim, [](auto tag, auto dim) {
    return kDtypeBuilt<typename decltype(tag)::type> && kHeadDimBuilt<decltype(dim)::value>;
  });
}

// Split-KV serves decoding: at most 64 query rows (one split block) against many keys. The
// split count fills the GPU's CTA slots (two split CTAs fit per SM) in nearly whole waves.
int fwd_num_splits(const FwdParams& p) {
  if (p.cu_seqlens_q != nullptr || p.dropout_p > 0.f || p.num_sms <= 0 || p.seqlen_q > 64) return 1;
  const int d = kernel_head_dim(p.head_dim);
  const int block_n = d <= 64 ? 256 : d <= 128 ? 128 : 64;  // FwdConfig<d>::Split::kBlockN
  const int n_blocks = (p.seqlen_k + block_n - 1) / block_n;
  const int64_t ctas = int64_t(p.batch) * p.heads_q;
  const int max_splits = std::min({128, n_blocks, static_cast<int>(65535 / std::max(p.batch, 1))});
  const double slots = 2.0 * p.num_sms;
  for (int s = 2; s <= max_splits; ++s) {
    const double waves = ctas * s / slots;
    if (waves >= 1.0 && waves / std::ceil(waves) >= 0.9) return s;
  }
  return std::max(1, max_splits);
}

bool fwd_wants_tile_counter(const FwdParams& p) {
  if (p.num_splits > 1 || p.dropout_p > 0.f || !p.hopper_kernels || p.num_sms <= 0) return false;
  const int units = p.window_right == 0 ? Sm90FwdTiles<kSm90FwdBlockM, true>(p).units
                                        : Sm90FwdTiles<kSm90FwdBlockM, false>(p).units;
  return units > p.num_sms;
}

const char* fwd_unsupported(const FwdParams& p) {
  if (p.heads_q > 65535) return "more than 65535 query heads";
  if (int64_t(p.batch) * p.num_splits > 65535) return "batch * num_splits over 65535";
  return nullptr;
}

namespace {

template <typename Element, int kHeadDim>
cudaError_t run_hdim(FwdParams& p, cudaStream_t stream) {
  return p.window_right == 0 ? run_fwd_<Element, kHeadDim, true>(p, stream)
                             : run_fwd_<Element, kHeadDim, false>(p, stream);
}

}  // namespace

bool fwd_dv_runs(const FwdParams& params) {
  FwdParams p = params;
  drop_unbounded_windows(p);
  return with_dv_variant(p, false, [&](auto tag, auto causal) {
    return fwd_dv_runs_<typename decltype(tag)::type, 192, 128, decltype(causal)::value>(p);
  });
}

cudaError_t run_fwd(FwdParams& p, cudaStream_t stream) {
  drop_unbounded_windows(p);
  if (p.head_dim_v != p.head_dim) {
    return with_dv_variant(p, cudaErrorNotSupported, [&](auto tag, auto causal) {
      using Element = typename decltype(tag)::type;
      return run_fwd_dv_<Element, 192, 128, decltype(causal)::value>(p, stream);
    });
  }
  return with_variant(p.is_bf16, kernel_head_dim(p.head_dim), [&](auto tag, auto dim) {
    using Element = typename decltype(tag)::type;
    constexpr int kHeadDim = decltype(dim)::value;
    if constexpr (kDtypeBuilt<Element> && kHeadDimBuilt<kHeadDim>) {
      return run_hdim<Element, kHeadDim>(p, stream);
    } else {
      return cudaErrorInvalidValue;
    }
  });
}

namespace {

// One thread per (bh, row, group counter): the 8 columns that one Philox call covers.
__global__ void dropout_keep_mask_kernel(const FwdParams p, uint8_t* mask, int64_t groups) {
  const int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t per_row = int64_t((p.seqlen_k + 31) / 32) * 4;
  if (idx >= groups) return;
  const uint32_t counter = static_cast<uint32_t>(idx % per_row);
  const int row = static_cast<int>((idx / per_row) % p.seqlen_q);
  const int bh = static_cast<int>(idx / (per_row * p.seqlen_q));
  const Dropout dropout(p.dropout_seed, p.dropout_p, bh);
  const uint4 rnd = dropout.draw(row, counter);
  uint8_t* out = mask + (int64_t(bh) * p.seqlen_q + row) * p.seqlen_k;
  for (int t = 0; t < 4; ++t) {
    for (int e = 0; e < 2; ++e) {
      const int col = (counter / 4) * 32 + 8 * t + 2 * (counter % 4) + e;
      if (col < p.seqlen_k) out[col] = dropout.keep(rnd, 2 * t + e) ? 1 : 0;
    }
  }
}

}  // namespace

cudaError_t dropout_keep_mask(const FwdParams& p, uint8_t* mask, cudaStream_t stream) {
  const int64_t groups = int64_t(p.batch) * p.heads_q * p.seqlen_q * ((p.seqlen_k + 31) / 32) * 4;
  if (groups == 0) return cudaSuccess;
  constexpr int kThreads = 256;
  dropout_keep_mask_kernel<<<static_cast<unsigned>((groups + kThreads - 1) / kThreads), kThreads, 0,
                             stream>>>(p, mask, groups);
  return cudaGetLastError();
}

}  // namespace flash
