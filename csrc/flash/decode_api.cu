// Host side of decoding against a KV cache: the split heuristic and the launches (the append,
// the decode kernel, the combine), for the compiled (dtype, head dim) variants.
#include <algorithm>
#include <type_traits>

#include "decode_kernel.h"
#include "flash_decode.h"
#include "flash_fwd.h"
#include "fwd_combine.h"
#include "variants.h"

namespace flash {

namespace {

// Calls f(TypeTag<Element>{}, kHeadDim) for the call's compiled variant; false when there is none.
template <typename F>
bool with_decode_variant(const DecodeParams& p, F f) {
  return with_variant(p.is_bf16, kernel_head_dim(p.head_dim), [&](auto tag, auto dim) {
    using Element = typename decltype(tag)::type;
    constexpr int kHeadDim = decltype(dim)::value;
    if constexpr (kDtypeBuilt<Element> && kHeadDimBuilt<kHeadDim>) {
      f(tag, dim);
      return true;
    } else {
      return false;
    }
  });
}

int64_t packed_rows(const DecodeParams& p) {
  return int64_t(p.seqlen_q) * (p.heads_q / p.heads_kv);
}

// Calls f(std::integral_constant<int, kMTiles>{}): two row tiles a CTA where a kv head has more
// than one tile of query rows.
template <typename F>
void with_m_tiles(const DecodeParams& p, F f) {
  if (packed_rows(p) > kDecodeRows) {
    f(std::integral_constant<int, 2>{});
  } else {
    f(std::integral_constant<int, 1>{});
  }
}

// CTAs of query rows a (sequence, kv head).
int64_t row_blocks(const DecodeParams& p, int rows_a_cta) {
  return (packed_rows(p) + rows_a_cta - 1) / rows_a_cta;
}

int64_t decode_ctas(const DecodeParams& p, int rows_a_cta) {
  return int64_t(p.batch) * p.heads_kv * row_blocks(p, rows_a_cta);
}

}  // namespace

// Memory bound: the splits fill the SMs in one wave (rounded down), each split at least one
// tile, one CTA an SM: a CTA reads at about its SM's share of the bandwidth alone, and a grid
// of two CTAs on some SMs and one on others ends unevenly (H100, D = 128, 64 CTAs' worth of kv
// heads: 2 splits 91% of the bandwidth, 3 80%, 4 88%; paged caches likewise since a key slot
// takes one page lookup a stage: benchmarks/NOTES.md).
int decode_num_splits(const DecodeParams& p, int64_t requested) {
  const int64_t tiles = (int64_t(p.seqlen_k) + kDecodeBlockN - 1) / kDecodeBlockN;
  const int64_t most = std::clamp<int64_t>(tiles, 1, 256);
  if (requested > 0) return static_cast<int>(std::min(requested, most));
  int rows = kDecodeRows;
  with_decode_variant(p, [&](auto, auto dim) {
    with_m_tiles(p, [&](auto m_tiles) {
      rows = DecodeTraits<decltype(dim)::value, decltype(m_tiles)::value>::kRows;
    });
  });
  const int64_t ctas = std::max<int64_t>(1, decode_ctas(p, rows));
  return static_cast<int>(std::clamp<int64_t>(std::max(p.num_sms, 1) / ctas, 1, most));
}

int decode_slices(const DecodeParams& p) { return p.num_splits > 1 ? p.num_splits : 0; }

const char* decode_unsupported(const DecodeParams& p) {
  if (p.block_table != nullptr && p.page_size % 16 != 0) {  // a key slot in one page
    return "a paged cache's page_size must be a multiple of 16 tokens";
  }
  if (decode_ctas(p, kDecodeRows) >= (int64_t(1) << 31)) {  // at most this many
    return "batch x heads_kv x ceil(seqlen_q x heads_q / heads_kv / 16) reaches 2^31 (the "
           "decode kernel's grid)";
  }
  return nullptr;
}

cudaError_t run_decode(const DecodeParams& call, cudaStream_t stream) {
  DecodeParams params = call;
  drop_unbounded_windows(params);
  cudaError_t err = cudaErrorInvalidValue;
  with_decode_variant(params, [&](auto tag, auto dim) {
    using Element = typename decltype(tag)::type;
    constexpr int kHeadDim = decltype(dim)::value;
    if (params.new_tokens > 0) {
      const int64_t pieces = int64_t(params.batch) * params.new_tokens * params.heads_kv *
                             (params.head_dim / 8);
      const unsigned blocks = static_cast<unsigned>(std::min<int64_t>((pieces + 255) / 256, 65536));
      decode_append_kernel<<<blocks, 256, 0, stream>>>(params);
      err = cudaGetLastError();
      if (err != cudaSuccess) return;
    }
    err = cudaSuccess;
    if (params.seqlen_q == 0) return;
    with_m_tiles(params, [&](auto m_tiles) {
      using Traits = DecodeTraits<kHeadDim, decltype(m_tiles)::value>;
      auto kernel = &decode_kernel<Element, kHeadDim, decltype(m_tiles)::value>;
      err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 Traits::kSmemBytes);
      if (err != cudaSuccess) return;
      const dim3 grid(static_cast<unsigned>(decode_ctas(params, Traits::kRows)), params.num_splits);
      kernel<<<grid, Traits::kThreads, Traits::kSmemBytes, stream>>>(
          params, DecodeDivisors(params, static_cast<int>(row_blocks(params, Traits::kRows))));
      err = cudaGetLastError();
    });
    if (err != cudaSuccess || params.num_splits == 1) return;  // one split wrote out itself
    FwdParams combine = params;
    combine.num_splits = decode_slices(params);
    err = launch_fwd_combine<Element, kHeadDim>(combine, stream);
  });
  return err;
}

}  // namespace flash
