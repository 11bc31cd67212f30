// Decoding against a KV cache where it lies (flash_attn_with_kvcache): the new tokens appended
// first (decode_append_kernel), then attention on a dense cache indexed by cache_batch_idx, or
// on the pages of a block table, read once per kv head however many query heads share it. The
// query rows of a kv head's group (Sq tokens x Hq / Hkv heads, packed) form the M side of
// mma.sync tiles; a CTA takes one or two tiles of 16 rows against one split of the sequence's
// keys, streamed through shared memory in kDecodeBlockN-key stages by cp.async. Each of a row
// tile's 4 warps takes 16 keys of a stage (its key slot) and keeps its own online softmax. A
// slot's rows are copied by the warps that read them, which meet at a barrier of their own (no
// CTA-wide barrier a stage). The tiles start at a multiple of 16 keys and pages hold a multiple
// of 16 tokens (the op refuses other page sizes), so a slot lies in one page: one block-table
// lookup a slot and stage, from the entries the CTA uses, staged in shared memory a window at
// a time. The warps join their rows through shared memory at the end, and write out and lse
// where the keys are one split, else the split's fp32 partial for fwd_combine.h, which joins
// the splits (and the sinks). Masks (the sequence's [leftpad, seqlen), causal and sliding
// windows aligned bottom-right) and softcap apply to every score.
#pragma once

#include <cute/arch/copy_sm80.hpp>
#include <cute/arch/mma_sm80.hpp>
#include <cutlass/arch/barrier.h>
#include <cutlass/array.h>
#include <cutlass/fast_math.h>
#include <cutlass/numeric_types.h>

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "fwd_combine.h"
#include "params.h"

namespace flash {

constexpr int kDecodeWarps = 4;                   // a row tile's warps
constexpr int kDecodeBlockN = 16 * kDecodeWarps;  // keys a stage: 16 a warp
constexpr int kDecodeRows = 16;                   // packed query rows a row tile: one mma M
// How far (log2 units) a score may pass its row's softmax base before the base moves.
constexpr float kDecodeRescaleSlack = 8.f;
// Paged caches: block-table entries a CTA keeps in shared memory (a window of the pages its
// split reads, refilled when a tile passes its end): the stages' row addresses then come from
// shared memory instead of a dependent global load in every stage, which all of a CTA's warps
// waited for (ncu, Sq = 4 Hq = 64 Hkv = 8 D = 128: 1.36x dense at page 16, 1.28x at 256).
constexpr int kDecodeTableWindow = 256;

// kMTiles row tiles a CTA (1, or 2 where a kv head has more than 16 query rows: both read each
// stage, so K/V come from memory once for 32 rows), each with its kDecodeWarps warps.
template <int kHeadDim, int kMTiles>
struct DecodeTraits {
  static constexpr int kRows = kDecodeRows * kMTiles;
  static constexpr int kWarps = kDecodeWarps * kMTiles;
  static constexpr int kThreads = kWarps * 32;
  static constexpr int kChunks = kHeadDim / 8;  // 16-byte pieces of a row
  // Shared memory rows of kHeadDim elements, unpadded, so that the pieces a warp's cp.async
  // writes fill whole 128-byte lines; their 16-byte chunks permuted by the row (chunk ^ row % 8
  // in each group of 8, ^ row % 4 in a last group of 4: D = 96, 160, 224), so that the 8 rows
  // an ldmatrix reads at one column still fall in 8 distinct bank groups.
  static constexpr int kStride = kHeadDim;
  // Element offset of chunk 8 group + low of row `row`.
  static __device__ __forceinline__ int at_group(int row, int group, int low) {
    const int mask = group * 8 < kChunks / 8 * 8 ? 7 : 3;
    return row * kStride + group * 64 + (low ^ (row & mask)) * 8;
  }
  static __device__ __forceinline__ int at(int row, int chunk) {
    return at_group(row, chunk / 8, chunk % 8);
  }
  // Chunk 2 kk + b (b = 0 or 1) of row `row`, for an ldmatrix of columns 16 kk..: with kk
  // known after unrolling, the group and mask are constants and the lane's 4 offsets CSE.
  static __device__ __forceinline__ int at_pair(int row, int kk, int b) {
    return at_group(row, kk / 4, 2 * (kk % 4) + b);
  }
  static constexpr int kTileElems = kDecodeBlockN * kStride;
  static constexpr int kStageBytes = 2 * kTileElems * 2;  // K and V
  // As many stages as fit in ~106 KB for one row tile (three at D = 128: deeper rings in one
  // CTA read slower, benchmarks/NOTES.md), ~200 KB for two; at least double buffering.
  static constexpr int kBudget = (kMTiles == 1 ? 108 : 200) * 1024;
  static constexpr int kStages = kBudget / kStageBytes > 2 ? kBudget / kStageBytes : 2;
  static constexpr int kSmemBytes =
      (kRows * kStride + kStages * 2 * kTileElems) * 2 + kDecodeTableWindow * 4;
  // The epilogue's fp32 rows of every warp (padded against conflicts), and each row's output
  // offset and factor, in the stages' memory.
  static constexpr int kOutStride = kHeadDim + 4;
  static_assert((kWarps * 2 * kDecodeRows + kWarps * kDecodeRows * kOutStride) * 4 +
                    kRows * (sizeof(int64_t) + sizeof(float)) <=
                kStages * kStageBytes);
  static_assert(kSmemBytes <= 227 * 1024);
};

// The divisions of the kernel's index math by values fixed for a call, prepared on the host: a
// multiply and a shift each, where a division took ~20 instructions, several of them on the
// chain from a CTA's index to its first copies (ncu: the prologue was ~10% of a 16-tile CTA).
struct DecodeDivisors {
  cutlass::FastDivmod group;       // query heads a kv head
  cutlass::FastDivmod row_blocks;  // CTAs of query rows a (sequence, kv head)
  cutlass::FastDivmod heads_kv;
  cutlass::FastDivmod splits;
  cutlass::FastDivmod page;  // a paged cache's page_size; 1 for a dense cache

  DecodeDivisors(const DecodeParams& p, int row_blocks_)
      : group(p.heads_q / p.heads_kv),
        row_blocks(row_blocks_),
        heads_kv(p.heads_kv),
        splits(p.num_splits),
        page(p.block_table != nullptr ? p.page_size : 1) {}
};

template <typename Element>
__device__ __forceinline__ uint32_t pack_pair(float lo, float hi) {
  cutlass::Array<Element, 2> pair;
  pair[0] = Element(lo);
  pair[1] = Element(hi);
  return reinterpret_cast<const uint32_t&>(pair);
}

// acc (16 x 8, fp32) += a (16 x 16) b (16 x 8), the m16n8k16 fragments.
template <typename Element>
__device__ __forceinline__ void mma_16816(float (&acc)[4], const uint32_t (&a)[4], uint32_t b0,
                                          uint32_t b1) {
  using Op = std::conditional_t<std::is_same_v<Element, cutlass::bfloat16_t>,
                                cute::SM80_16x8x16_F32BF16BF16F32_TN,
                                cute::SM80_16x8x16_F32F16F16F32_TN>;
  Op::fma(acc[0], acc[1], acc[2], acc[3], a[0], a[1], a[2], a[3], b0, b1, acc[0], acc[1],
          acc[2], acc[3]);
}

// ldmatrix .x4 (transposed: .trans) of 16-bit elements at shared-memory byte address `addr`: a
// stage's base plus the lane's offset, one addition (as an Element pointer the address was
// rebuilt from the element offset for every ldmatrix, ~3 instructions each).
template <bool kTransposed>
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr) {
  if constexpr (kTransposed) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
  } else {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
  }
}

// 16 bytes from global memory to shared-memory byte address `dst`, zeros where !valid (src is
// then not read).
__device__ __forceinline__ void copy_16(uint32_t dst, const void* src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
               "r"(valid ? 16 : 0));
}

// `ptr`, which the compiler cannot see into (so that it keeps the address as computed).
template <typename T>
__device__ __forceinline__ T* opaque(T* ptr) {
  asm("mov.b64 %0, %0;" : "+l"(ptr));
  return ptr;
}

// x * stride for 0 <= x < 2^31: a 32 x 64-bit product (two instructions; int64 x int64 took four).
__device__ __forceinline__ int64_t stride_offset(int x, int64_t stride) {
  return static_cast<int64_t>(uint64_t(uint32_t(x)) * uint64_t(stride));
}

// Stops the kernel with a device-side assertion naming the bad input (the CUDA context then
// reports "device-side assert triggered"): an index the caller gave that lies outside the cache.
__device__ __forceinline__ void require(bool ok, const char* what) {
  if (!ok) __assert_fail(what, __FILE__, __LINE__, "flash_ext decode");
}

// Sequence b's tokens before the append, checked against the cache's capacity.
__device__ __forceinline__ int tokens_before(const DecodeParams& p, int b) {
  const int tokens = p.cache_seqlens != nullptr ? p.cache_seqlens[b] : p.cache_seqlen;
  require(tokens >= 0 && tokens <= p.seqlen_k - p.new_tokens,
          "flash_attn_with_kvcache: cache_seqlens must be >= 0 with cache_seqlens + seqlen_new "
          "<= the cache's tokens");
  return tokens;
}

// Where token `pos` of sequence b lies: the cache row or page (`where`) and the token in it.
__device__ __forceinline__ void cache_slot(const DecodeParams& p, int b, int pos, int& where,
                                           int& token) {
  if (p.block_table != nullptr) {
    where = p.block_table[b * p.block_table_stride + pos / p.page_size];
    token = pos % p.page_size;
    require(where >= 0 && where < p.cache_rows,
            "flash_attn_with_kvcache: a block_table entry in use lies outside [0, num_pages)");
  } else {
    where = p.cache_batch_idx != nullptr ? p.cache_batch_idx[b] : b;
    token = pos;
    require(where >= 0 && where < p.cache_rows,
            "flash_attn_with_kvcache: cache_batch_idx lies outside [0, the cache's batch)");
  }
}

// The new tokens into the cache: a thread per 16 bytes of a (sequence, token, kv head) row.
__global__ void __launch_bounds__(256) decode_append_kernel(__grid_constant__ const DecodeParams p) {
  const int chunks = p.head_dim / 8;
  const int64_t total = int64_t(p.batch) * p.new_tokens * p.heads_kv * chunks;
  for (int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; idx < total;
       idx += int64_t(gridDim.x) * blockDim.x) {
    const int c = static_cast<int>(idx % chunks);
    const int h = static_cast<int>(idx / chunks % p.heads_kv);
    const int j = static_cast<int>(idx / chunks / p.heads_kv % p.new_tokens);
    const int b = static_cast<int>(idx / chunks / p.heads_kv / p.new_tokens);
    int where, token;
    cache_slot(p, b, tokens_before(p, b) + j, where, token);
    // 2-byte elements, moved as 16-byte pieces.
    auto piece = [&](const void* base, int64_t offset) {
      return reinterpret_cast<const uint4*>(static_cast<const uint16_t*>(base) + offset);
    };
    *const_cast<uint4*>(piece(p.k, int64_t(where) * p.k_batch_stride + token * p.k_row_stride +
                                       h * p.k_head_stride + c * 8)) =
        *piece(p.k_new, b * p.k_new_batch_stride + j * p.k_new_row_stride +
                            h * p.k_new_head_stride + c * 8);
    *const_cast<uint4*>(piece(p.v, int64_t(where) * p.v_batch_stride + token * p.v_row_stride +
                                       h * p.v_head_stride + c * 8)) =
        *piece(p.v_new, b * p.v_new_batch_stride + j * p.v_new_row_stride +
                            h * p.v_new_head_stride + c * 8);
  }
}

__device__ __forceinline__ float quad_max(float x) {
  x = fmaxf(x, __shfl_xor_sync(0xffffffff, x, 1));
  return fmaxf(x, __shfl_xor_sync(0xffffffff, x, 2));
}

__device__ __forceinline__ float quad_sum(float x) {
  x += __shfl_xor_sync(0xffffffff, x, 1);
  return x + __shfl_xor_sync(0xffffffff, x, 2);
}

// Grid: (batch x kv heads x row blocks (fastest), splits); Traits::kThreads threads.
template <typename Element, int kHeadDim, int kMTiles>
__global__ void __launch_bounds__(DecodeTraits<kHeadDim, kMTiles>::kThreads)
    decode_kernel(__grid_constant__ const DecodeParams p,
                  __grid_constant__ const DecodeDivisors d) {
  using Traits = DecodeTraits<kHeadDim, kMTiles>;
  constexpr int kStride = Traits::kStride, kChunks = Traits::kChunks, kRows = Traits::kRows;
  constexpr int kStages = Traits::kStages, kThreads = Traits::kThreads;
  extern __shared__ __align__(128) char smem_raw[];
  Element* const sQ = reinterpret_cast<Element*>(smem_raw);  // (kRows, kStride)
  Element* const sKV = sQ + kRows * kStride;                  // stages x (K tile, V tile)
  int* const s_table = reinterpret_cast<int*>(sKV + kStages * 2 * Traits::kTileElems);

  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int m_tile = warp / kDecodeWarps, key_warp = warp % kDecodeWarps;
  const int g = lane / 4, t = lane % 4;  // the m16n8 fragments' row and column pair
  const int group = d.group.divisor;
  const int packed = p.seqlen_q * group;  // query rows of a (sequence, kv head): token-major
  int bh, row_block, b, hkv;
  d.row_blocks(bh, row_block, static_cast<int>(blockIdx.x));
  d.heads_kv(b, hkv, bh);
  const int r0 = row_block * kRows, r_end = min(r0 + kRows, packed);

  // The sequence's tokens [lo, len), the new ones included; query token i sits at len - Sq + i.
  const int len = tokens_before(p, b) + p.new_tokens;
  const int lo = p.cache_leftpad != nullptr ? max(p.cache_leftpad[b], 0) : 0;
  auto key_begin = [&](int i) {
    return p.window_left < 0 ? lo : max(lo, len - p.seqlen_q + i - p.window_left);
  };
  auto key_end = [&](int i) {
    return p.window_right < 0 ? len : min(len, len - p.seqlen_q + i + p.window_right + 1);
  };
  // This CTA's keys: what its first row sees from, to what its last row sees; its tiles start
  // at begin16, begin rounded down to a multiple of 16 (the keys before begin read as zeros).
  const int begin = key_begin(d.group.div(r0)), end = key_end(d.group.div(r_end - 1));
  const int begin16 = begin / 16 * 16;
  const int tiles =
      end > begin ? static_cast<int>(unsigned(end - begin16 + kDecodeBlockN - 1) / kDecodeBlockN)
                  : 0;
  const int per_split = d.splits.div(tiles + p.num_splits - 1);
  const int tile0 = min(tiles, static_cast<int>(blockIdx.y) * per_split);
  const int n_tiles = min(tiles, tile0 + per_split) - tile0;

  // Each lane's two rows (g, g + 8 of its warp's row tile): the keys they see; rows past the
  // group see none.
  int row_begin[2], row_end[2];
  for (int h = 0; h < 2; ++h) {
    const int r = r0 + m_tile * kDecodeRows + g + 8 * h;
    row_begin[h] = r < r_end ? key_begin(d.group.div(r)) : 0;
    row_end[h] = r < r_end ? key_end(d.group.div(r)) : 0;
  }

  // Q rows: packed row r is token r / group of query head hkv * group + r % group.
  const uint32_t sQ_addr = static_cast<uint32_t>(__cvta_generic_to_shared(sQ));
  const uint32_t sKV_addr = sQ_addr + kRows * kStride * 2;
  constexpr int kQPieces = kRows * kChunks;
  CUTE_UNROLL
  for (int i = 0; i < (kQPieces + kThreads - 1) / kThreads; ++i) {
    const int idx = tid + i * kThreads;
    if (kQPieces % kThreads != 0 && idx >= kQPieces) break;
    const int row = idx / kChunks, c = idx % kChunks;
    int token, head;
    d.group(token, head, r0 + row);
    const bool valid = r0 + row < r_end && c * 8 < p.head_dim;
    const int64_t offset = valid ? b * p.q_batch_stride + token * p.q_row_stride +
                                       (hkv * group + head) * p.q_head_stride + c * 8
                                 : 0;
    copy_16(sQ_addr + 2 * Traits::at(row, c), static_cast<const Element*>(p.q) + offset, valid);
  }

  // Where the tiles' rows lie. Dense: row `dense_row` of the cache, token pos. Paged: page
  // s_table[pos / page_size - window0], token pos % page_size; the window holds the entries
  // [window0, window0 + kDecodeTableWindow) of the sequence's block-table row, and only those
  // of this split's keys (the checked ones) are read.
  const bool paged = p.block_table != nullptr;
  int dense_row = 0, unused;
  if (!paged && n_tiles > 0) cache_slot(p, b, 0, dense_row, unused);
  // A token's entry of the table: page_size >= 16, so the quotient by the divisor's multiplier
  // and shift, without FastDivmod's case of a divisor of 1.
  auto page_of = [&](int pos) {
    return static_cast<int>(__umulhi(unsigned(pos), d.page.multiplier) >> d.page.shift_right);
  };
  const int split_end = min(end, begin16 + (tile0 + n_tiles) * kDecodeBlockN);
  const int last_entry = paged && n_tiles > 0 ? page_of(split_end - 1) : 0;
  int window0 = 0, window_end = 0;  // empty until the first tile
  auto refill = [&](int first) {
    __syncthreads();  // every thread is done with the current window's entries
    const int* row = p.block_table + b * p.block_table_stride;
    CUTE_UNROLL
    for (int i = tid; i < kDecodeTableWindow; i += kThreads) {
      if (first + i <= last_entry) {
        const int page = row[first + i];
        require(page >= 0 && page < p.cache_rows,
                "flash_attn_with_kvcache: a block_table entry in use lies outside [0, num_pages)");
        s_table[i] = page;
      }
    }
    window0 = first;
    window_end = first + kDecodeTableWindow;
    __syncthreads();
  };

  // Stage `stage` <- key tile `tile` (tokens begin16 + tile * kDecodeBlockN on), K then V: each
  // warp copies kLoadRows rows of its key slot (the slot's 16 rows split between its row
  // tiles' warps), 8 lanes a row: a lane copies rows in_slot(j), and of each the 16-byte chunks
  // 8 i + lane % 8 (one of each group of 8), which lie 128 bytes apart in global memory and, but
  // in a last group of 4 (its own swizzle), in shared memory: offsets from one address a row,
  // not 64-bit address arithmetic a piece. Rows outside [begin, end) and columns past head_dim
  // read as zeros. Called by every thread alike (a window refill has barriers).
  constexpr int kLoadRows = kDecodeRows / kMTiles;
  constexpr int kRowsLane = kLoadRows / 4;
  constexpr int kPieces = (kChunks + 7) / 8;  // of a row, K and V each
  static_assert(kDecodeBlockN / 16 + 1 <= kDecodeTableWindow);  // a tile's pages (>= 16 tokens)
  auto in_slot = [&](int j) { return m_tile * kLoadRows + lane / 8 + 4 * j; };
  const int low = lane % 8;
  // The lane's pieces of a row inside head_dim (the first lane_pieces).
  int lane_pieces = 0;
  CUTE_UNROLL
  for (int i = 0; i < kPieces; ++i) lane_pieces += (8 * i + low) * 8 < p.head_dim;
  // Row in_slot(j) of a slot is read where slot0 + in_slot(j) - begin lies in [0, end - begin).
  const int lane_from_begin = in_slot(0) - begin;
  const unsigned keys_seen = unsigned(end - begin);
  // The lane's first piece of a slot that starts at token 0 of cache row dense_row (dense) or
  // of page 0 (paged), held as an opaque register pair: left visible, the compiler folds the
  // lane's offset into every stage's address (two more instructions a stage and tensor).
  const int64_t k_rs = p.k_row_stride, v_rs = p.v_row_stride;
  const Element* const k_lane = opaque(
      static_cast<const Element*>(p.k) + (int64_t(dense_row) * p.k_batch_stride +
                                          int64_t(hkv) * p.k_head_stride + in_slot(0) * k_rs +
                                          low * 8));
  const Element* const v_lane = opaque(
      static_cast<const Element*>(p.v) + (int64_t(dense_row) * p.v_batch_stride +
                                          int64_t(hkv) * p.v_head_stride + in_slot(0) * v_rs +
                                          low * 8));
  auto load_tile = [&](int tile, int stage) {
    const int k0 = begin16 + tile * kDecodeBlockN;
    if (paged) {
      if (page_of(min(k0 + kDecodeBlockN, end) - 1) >= window_end) refill(page_of(k0));
    }
    // The slot's first key (a multiple of 16: with pages of a multiple of 16 tokens, the slot
    // lies in one page): its offset in the cache row, or its page and token there.
    const int slot0 = k0 + key_warp * 16;
    int64_t k_off, v_off;
    if (paged && slot0 < end && slot0 + 16 > begin) {
      const int page = page_of(slot0);
      const int token = slot0 - page * d.page.divisor;
      const int where = s_table[page - window0];
      k_off = stride_offset(where, p.k_batch_stride) + stride_offset(token, k_rs);
      v_off = stride_offset(where, p.v_batch_stride) + stride_offset(token, v_rs);
    } else {
      k_off = stride_offset(slot0, k_rs);
      v_off = stride_offset(slot0, v_rs);
    }
    const uint32_t dst = sKV_addr + stage * Traits::kStageBytes;
    CUTE_UNROLL
    for (int j = 0; j < kRowsLane; ++j) {
      // Pieces that do not copy (zeros) may point past the cache: cp.async does not read them.
      const Element* const k_src = k_lane + (k_off + 4 * j * k_rs);
      const Element* const v_src = v_lane + (v_off + 4 * j * v_rs);
      const bool row_valid = unsigned(slot0 + lane_from_begin + 4 * j) < keys_seen;
      CUTE_UNROLL
      for (int i = 0; i < kPieces; ++i) {
        if (kChunks % 8 != 0 && 8 * i + low >= kChunks) break;  // past the row
        const bool valid = row_valid && i < lane_pieces;
        const uint32_t at = dst + 2 * Traits::at_group(key_warp * 16 + in_slot(j), i, low);
        copy_16(at, k_src + 64 * i, valid);
        copy_16(at + 2 * Traits::kTileElems, v_src + 64 * i, valid);
      }
    }
  };
  // The warps of a key slot after their copies of a stage have landed (each waited for its
  // own): the slot's one warp, or its warp in each row tile.
  auto slot_barrier = [&] {
    if constexpr (kMTiles == 1) {
      __syncwarp();
    } else {
      cutlass::arch::NamedBarrier::sync(32 * kMTiles, key_warp);
    }
  };

  const bool has_softcap = p.softcap > 0.f;
  const float softmax_scale = has_softcap ? p.softcap : p.scale;
  const float softcap_prescale = has_softcap ? p.scale / p.softcap : 1.f;
  const float scale_log2 = softmax_scale * float(M_LOG2E);
  float acc_o[kHeadDim / 8][4] = {};
  float row_max[2] = {-INFINITY, -INFINITY}, row_sum[2] = {0.f, 0.f};

  for (int s = 0; s < kStages - 1; ++s) {
    if (s < n_tiles) load_tile(tile0 + s, s);
    cute::cp_async_fence();
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // The combine (launch_fwd_combine) may be scheduled from here on: its blocks wait for this
  // grid's memory, and take the slots that this one-wave grid's blocks leave as they finish.
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
  // The warp's Q rows as mma A fragments (16 columns each): read from shared memory every
  // stage, or once into registers where they fit beside O (D <= 128: 4 D / 16 registers).
  auto load_q = [&](uint32_t(&a)[4], int kk) {
    ldmatrix_x4<false>(
        a, sQ_addr + 2 * Traits::at_pair(m_tile * kDecodeRows + lane % 16, kk, lane / 16));
  };
  constexpr bool kQInRegisters = kHeadDim <= 128;
  uint32_t q_frag[kQInRegisters ? kHeadDim / 16 : 1][4];
  // The key tiles; the loop is compiled twice, with and without softcap, so that a call
  // without it does not issue the softcap's multiplies and tanh (predicated off: 16
  // instructions a stage a warp).
  auto key_tiles = [&](auto softcap) {
    for (int it = 0; it < n_tiles; ++it) {
      cute::cp_async_wait<kStages - 2>();
      // Tile `it` has landed (and, the first time, Q, which every warp reads); the slot's warps
      // are done with the stage refilled next.
      if (it == 0) {
        __syncthreads();
      } else {
        slot_barrier();
      }
      if (it + kStages - 1 < n_tiles) {
        load_tile(tile0 + it + kStages - 1, (it + kStages - 1) % kStages);
      }
      cute::cp_async_fence();

      // The warp's 16 keys of the stage's K and V tiles (byte addresses).
      const uint32_t sK =
          sKV_addr + (it % kStages) * Traits::kStageBytes + key_warp * 16 * kStride * 2;
      const uint32_t sV = sK + Traits::kTileElems * 2;
      if constexpr (kQInRegisters) {
        if (it == 0) {
          CUTE_UNROLL
          for (int kk = 0; kk < kHeadDim / 16; ++kk) load_q(q_frag[kk], kk);
        }
      }
      // S (16 rows x this warp's 16 keys) = Q K^T: two n8 tiles of keys.
      float acc_s[2][4] = {};
      CUTE_UNROLL
      for (int kk = 0; kk < kHeadDim / 16; ++kk) {
        uint32_t a[4], bk[4];
        if constexpr (kQInRegisters) {
          for (int r = 0; r < 4; ++r) a[r] = q_frag[kk][r];
        } else {
          load_q(a, kk);
        }
        // The warp's 16 keys start at a row that is a multiple of 8: the swizzle is the same.
        ldmatrix_x4<false>(
          bk, sK + 2 * Traits::at_pair((lane / 16) * 8 + lane % 8, kk, (lane / 8) % 2));
        mma_16816<Element>(acc_s[0], a, bk[0], bk[1]);
        mma_16816<Element>(acc_s[1], a, bk[2], bk[3]);
      }
      // Softcap and masks; acc_s[n][e] is row g + 8 (e / 2), key n * 8 + 2 t + e % 2.
      const int key0 = begin16 + (tile0 + it) * kDecodeBlockN + key_warp * 16;
      CUTE_UNROLL
      for (int n = 0; n < 2; ++n) {
        CUTE_UNROLL
        for (int e = 0; e < 4; ++e) {
          const int key = key0 + n * 8 + 2 * t + e % 2, h = e / 2;
          float x = acc_s[n][e];
          if constexpr (decltype(softcap)::value) {
            x = cutlass::fast_tanh(x * softcap_prescale);
          }
          acc_s[n][e] = key >= row_begin[h] && key < row_end[h] ? x : -INFINITY;
        }
      }
      // Online softmax per row; a row with no key yet keeps max -inf and weights 0. A row's
      // base (row_max) moves only when a score passes it by more than kDecodeRescaleSlack in log2
      // units, so that its weights stay below 2^kDecodeRescaleSlack (exact in fp32, in bf16's and
      // fp16's range) and after a row's first keys its O and sum are seldom rescaled: a stage
      // rescales only where some row of the warp moved (the kHeadDim / 2 multiplies a lane).
      float new_max[2], base[2];
      bool grew = false;
      CUTE_UNROLL
      for (int h = 0; h < 2; ++h) {
        const float seen = quad_max(fmaxf(fmaxf(acc_s[0][2 * h], acc_s[0][2 * h + 1]),
                                          fmaxf(acc_s[1][2 * h], acc_s[1][2 * h + 1])));
        // False for a row without keys so far and in this stage (-inf - -inf is NaN).
        const bool move = (seen - row_max[h]) * scale_log2 > kDecodeRescaleSlack;
        new_max[h] = move ? seen : row_max[h];
        base[h] = (new_max[h] == -INFINITY ? 0.f : new_max[h]) * scale_log2;
        grew |= move;
      }
      if (__any_sync(0xffffffff, grew)) {
        CUTE_UNROLL
        for (int h = 0; h < 2; ++h) {
          const float rescale = exp2f(row_max[h] * scale_log2 - base[h]);
          row_sum[h] *= rescale;
          CUTE_UNROLL
          for (int j = 0; j < kHeadDim / 8; ++j) {
            acc_o[j][2 * h] *= rescale;
            acc_o[j][2 * h + 1] *= rescale;
          }
        }
      }
      CUTE_UNROLL
      for (int h = 0; h < 2; ++h) {
        row_max[h] = new_max[h];
        CUTE_UNROLL
        for (int n = 0; n < 2; ++n) {
          CUTE_UNROLL
          for (int e = 2 * h; e < 2 * h + 2; ++e) {
            acc_s[n][e] = exp2f(acc_s[n][e] * scale_log2 - base[h]);
            row_sum[h] += acc_s[n][e];
          }
        }
      }
      // O += P V: P's accumulators are the A fragment of the 16 keys.
      const uint32_t a_p[4] = {pack_pair<Element>(acc_s[0][0], acc_s[0][1]),
                               pack_pair<Element>(acc_s[0][2], acc_s[0][3]),
                               pack_pair<Element>(acc_s[1][0], acc_s[1][1]),
                               pack_pair<Element>(acc_s[1][2], acc_s[1][3])};
      CUTE_UNROLL
      for (int jj = 0; jj < kHeadDim / 16; ++jj) {
        uint32_t bv[4];
        ldmatrix_x4<true>(bv,
                          sV + 2 * Traits::at_pair(((lane / 8) % 2) * 8 + lane % 8, jj, lane / 16));
        mma_16816<Element>(acc_o[2 * jj], a_p, bv[0], bv[1]);
        mma_16816<Element>(acc_o[2 * jj + 1], a_p, bv[2], bv[3]);
      }
    }
  };
  if (has_softcap) {
    key_tiles(std::true_type{});
  } else {
    key_tiles(std::false_type{});
  }
  cute::cp_async_wait<0>();
  __syncthreads();  // the stages are free: the warps' partials meet there

  // A row tile's warps joined: per row the largest max M and the sum L of the warps' sums
  // rescaled to it; each warp's O scaled by its share, summed, and stored as the split's fp32
  // partial (rows (b, query head, token) as fwd_combine_kernel reads them).
  float* const s_stats = reinterpret_cast<float*>(sKV);  // (warps, {max, sum}, kDecodeRows)
  float* const s_out = s_stats + Traits::kWarps * 2 * kDecodeRows;  // (warps, rows, kOutStride)
  constexpr int kOutStride = Traits::kOutStride;
  CUTE_UNROLL
  for (int h = 0; h < 2; ++h) {
    const float sum = quad_sum(row_sum[h]);
    if (t == 0) {
      s_stats[(warp * 2) * kDecodeRows + g + 8 * h] = row_max[h];
      s_stats[(warp * 2 + 1) * kDecodeRows + g + 8 * h] = sum;
    }
  }
  __syncthreads();
  // (M scaled to log2 units, L) of the warp's row r: over its row tile's warps.
  auto joined = [&](int r, float& base, float& total) {
    const float* stats = s_stats + m_tile * kDecodeWarps * 2 * kDecodeRows + r;
    float top = -INFINITY;
    for (int w = 0; w < kDecodeWarps; ++w) top = fmaxf(top, stats[w * 2 * kDecodeRows]);
    base = (top == -INFINITY ? 0.f : top) * scale_log2;
    total = 0.f;
    for (int w = 0; w < kDecodeWarps; ++w) {
      total += stats[(w * 2 + 1) * kDecodeRows] *
               exp2f(stats[w * 2 * kDecodeRows] * scale_log2 - base);
    }
  };
  // One split: out and lse (the sink joined) written here; several: the split's fp32 partial
  // (rows (b, query head, token)), for fwd_combine_kernel to join.
  const bool direct = p.num_splits == 1;
  const int64_t slice0 = int64_t(blockIdx.y) * p.batch * p.heads_q * p.seqlen_q;
  auto head_of = [&](int r) { return hkv * group + d.group.rem(r0 + r); };  // packed row r0 + r
  auto global_row = [&](int r) {
    return (int64_t(b) * p.heads_q + head_of(r)) * p.seqlen_q + d.group.div(r0 + r);
  };
  // Where each row's output goes and the factor it takes there (the sink's share out).
  int64_t* const s_dst =
      reinterpret_cast<int64_t*>(s_out + Traits::kWarps * kDecodeRows * kOutStride);
  float* const s_kept = reinterpret_cast<float*>(s_dst + kRows);
  CUTE_UNROLL
  for (int h = 0; h < 2; ++h) {
    const int r = g + 8 * h, row = m_tile * kDecodeRows + r;  // in the tile, in the CTA
    float base, total;
    joined(r, base, total);
    const float share = total > 0.f ? exp2f(row_max[h] * scale_log2 - base) / total : 0.f;
    // The tile's first warp writes its rows' lse (natural log, over the row's keys and with
    // the head's sink, if any) and where they go, once a row.
    if (key_warp == 0 && t == 0 && r0 + row < r_end) {
      const float keys = total > 0.f ? base / float(M_LOG2E) + logf(total) : -INFINITY;
      if (direct) {
        const float with_sink = p.sinks != nullptr ? join_sink(keys, p.sinks[head_of(row)]) : keys;
        p.lse[global_row(row)] = with_sink;
        s_dst[row] = b * p.o_batch_stride + d.group.div(r0 + row) * p.o_row_stride +
                     head_of(row) * p.o_head_stride;
        s_kept[row] = keys == -INFINITY ? 0.f : __expf(keys - with_sink);
      } else {
        p.lse_accum[slice0 + global_row(row)] = keys;
        s_dst[row] = (slice0 + global_row(row)) * kHeadDim;
      }
    }
    float* out = s_out + (warp * kDecodeRows + r) * kOutStride;
    CUTE_UNROLL
    for (int j = 0; j < kHeadDim / 8; ++j) {
      *reinterpret_cast<float2*>(out + 8 * j + 2 * t) =
          make_float2(acc_o[j][2 * h] * share, acc_o[j][2 * h + 1] * share);
    }
  }
  __syncthreads();
  for (int idx = tid; idx < (r_end - r0) * (kHeadDim / 4); idx += kThreads) {
    const int r = idx / (kHeadDim / 4), col = idx % (kHeadDim / 4) * 4;
    const float* parts = s_out + ((r / kDecodeRows) * kDecodeWarps * kDecodeRows +
                                  r % kDecodeRows) * kOutStride + col;
    float4 sum = make_float4(0.f, 0.f, 0.f, 0.f);
    CUTE_UNROLL
    for (int w = 0; w < kDecodeWarps; ++w) {
      const float4 part = *reinterpret_cast<const float4*>(parts + w * kDecodeRows * kOutStride);
      sum.x += part.x, sum.y += part.y, sum.z += part.z, sum.w += part.w;
    }
    if (!direct) {
      *reinterpret_cast<float4*>(p.out_accum + s_dst[r] + col) = sum;
    } else if (col < p.head_dim) {  // head_dim is a multiple of 8: whole pieces of 4
      const float kept = s_kept[r];
      cutlass::Array<Element, 4> o;
      o[0] = Element(sum.x * kept), o[1] = Element(sum.y * kept);
      o[2] = Element(sum.z * kept), o[3] = Element(sum.w * kept);
      Element* const out = static_cast<Element*>(p.out) + s_dst[r] + col;
      *reinterpret_cast<cutlass::Array<Element, 4>*>(out) = o;
    }
  }
}

}  // namespace flash
