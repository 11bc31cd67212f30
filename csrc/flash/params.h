// Plain description of one attention call for the CUDA flash kernels: pointers, sizes, 64-bit
// element strides and flags. csrc/api/cuda fills it from tensors; the kernels read nothing else.
// Torch-free: this folder compiles with nvcc, CUTLASS/CuTe and the CUDA runtime alone.
#pragma once

#include <cstdint>

namespace flash {

struct FwdParams {
  // q (B, Hq, Sq, D), k and v (B, Hkv, Sk, D), out like q; dense or packed varlen (T, H, D).
  // Element strides of (batch, head, row); the last dim is contiguous. For varlen calls the
  // batch strides are unused: sequence b starts at row cu_seqlens[b].
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  void* out = nullptr;
  int64_t q_batch_stride = 0, q_head_stride = 0, q_row_stride = 0;
  int64_t k_batch_stride = 0, k_head_stride = 0, k_row_stride = 0;
  int64_t v_batch_stride = 0, v_head_stride = 0, v_row_stride = 0;
  int64_t o_batch_stride = 0, o_head_stride = 0, o_row_stride = 0;

  // Natural-log sum-exp of the final scores, fp32, -inf for rows with no visible key.
  // Dense: (B, Hq, Sq) contiguous; varlen: (Hq, Tq) contiguous.
  float* lse = nullptr;

  int batch = 0;
  int heads_q = 0;
  int heads_kv = 0;  // heads_q % heads_kv == 0; q head h reads kv head h / (heads_q / heads_kv)
  int seqlen_q = 0;  // dense: Sq; varlen: max over the batch
  int seqlen_k = 0;  // dense: Sk; varlen: max over the batch
  int head_dim = 0;  // q's and k's D <= the kernel's head dim; the rest is predicated off
  int head_dim_v = 0;  // v's and out's D: head_dim for the flash kernels, its own on mem_eff
  int total_q = 0;   // varlen: rows of packed q (lse's row count)
  int total_k = 0;   // varlen: rows of packed k and v

  // Varlen: int32 device prefix sums of length batch + 1; nullptr for dense calls.
  const int* cu_seqlens_q = nullptr;
  const int* cu_seqlens_k = nullptr;

  float scale = 1.f;    // multiplies q . k
  float softcap = 0.f;  // > 0: score = softcap * tanh(scale * q . k / softcap)

  // Key j is visible from query i when, with diag = bottom_right ? sk - sq : 0 (per sequence),
  // (window_right < 0 || j <= i + diag + window_right) and
  // (window_left < 0 || j >= i + diag - window_left). Causal is window_right = 0.
  int window_left = -1;
  int window_right = -1;
  bool bottom_right = false;

  // ALiBi: score -= slope * |i + diag - j|; fp32 slopes, (b, h) at b * alibi_batch_stride + h.
  const float* alibi_slopes = nullptr;
  int64_t alibi_batch_stride = 0;

  // Dropout on the probabilities: keep with probability 1 - p, scale kept ones by 1 / (1 - p).
  // dropout_seed points to two int64 on the device (Philox key, counter offset), drawn from
  // torch's CUDA generator so that CUDA graph replays draw fresh values. See dropout.h.
  float dropout_p = 0.f;
  const int64_t* dropout_seed = nullptr;

  // Learnable sinks: fp32 (heads_q,), a logit per query head (on the scaled scores' scale) that
  // joins every row's softmax, its probability dropped; out and lse include it. nullptr: none.
  const float* sinks = nullptr;

  // Split-KV (decoding): num_splits > 1 splits the keys of each (batch, head) across CTAs; each
  // writes fp32 partials to out_accum (splits, B, Hq, Sq, D_kernel) and lse_accum
  // (splits, B, Hq, Sq), and a combine kernel reduces them into out and lse.
  int num_splits = 1;
  float* out_accum = nullptr;
  float* lse_accum = nullptr;

  // The persistent Hopper forward's unit counter (int32, zero at launch; fwd_wants_tile_counter
  // says when): CTAs take their units after the first from it. nullptr: a static split.
  int* tile_counter = nullptr;

  bool is_bf16 = false;  // else fp16
  int num_sms = 0;       // of the device, for the split heuristic
  // Run the Hopper (wgmma) kernels where the device and the call allow; false keeps every call
  // on the sm80 kernels (FLASH_EXT_SM80_KERNELS=1: tests of those on Hopper, comparisons).
  bool hopper_kernels = true;
};

// Decoding against a KV cache where it lies (decode_kernel.h): q (B, Sq, Hq, D) with q's
// strides in FwdParams (row = token), k and v a dense (B_cache, S_cache, Hkv, D) cache or pages
// (num_pages, page_size, Hkv, D) with their strides in k/v_*_stride (batch = cache row or page,
// row = token), out like q, lse (B, Hq, Sq). seqlen_k is the cache's capacity in tokens; the
// fp32 partials (out_accum, lse_accum) hold a slice per split (decode_slices). Indices outside
// the cache stop the kernels with a device-side assertion naming them.
struct DecodeParams : FwdParams {
  // The tokens each sequence has before the append: cache_seqlens (B,) int32, or cache_seqlen
  // for all where that is nullptr.
  const int* cache_seqlens = nullptr;
  int cache_seqlen = 0;
  const int* cache_leftpad = nullptr;    // (B,) int32: where each sequence starts; nullptr: 0
  const int* cache_batch_idx = nullptr;  // (B,) int32: dense cache row of each sequence
  int cache_rows = 0;                    // dense: B_cache; paged: num_pages
  // Paged: block_table (B, max_blocks) int32, page p of sequence b at
  // block_table[b * block_table_stride + p]; nullptr for a dense cache.
  const int* block_table = nullptr;
  int64_t block_table_stride = 0;
  int page_size = 0;
  // New tokens (B, new_tokens, Hkv, D), written into the cache after each sequence's tokens
  // before attention reads it; new_tokens = 0: none.
  const void* k_new = nullptr;
  const void* v_new = nullptr;
  int64_t k_new_batch_stride = 0, k_new_head_stride = 0, k_new_row_stride = 0;
  int64_t v_new_batch_stride = 0, v_new_head_stride = 0, v_new_row_stride = 0;
  int new_tokens = 0;
};

// The backward reads the forward's call (q, k, v, out, lse and every option) and adds the
// output gradient, the input gradients and its fp32 workspaces.
struct BwdParams : FwdParams {
  // grad_out like out; dq like q; dk and dv like k and v (B, Hkv, Sk, D): with GQA the kernel
  // sums the query heads of a group itself.
  const void* dout = nullptr;
  void* dq = nullptr;
  void* dk = nullptr;
  void* dv = nullptr;
  int64_t do_batch_stride = 0, do_head_stride = 0, do_row_stride = 0;
  int64_t dq_batch_stride = 0, dq_head_stride = 0, dq_row_stride = 0;
  int64_t dk_batch_stride = 0, dk_head_stride = 0, dk_row_stride = 0;
  int64_t dv_batch_stride = 0, dv_head_stride = 0, dv_row_stride = 0;

  // rowsum(dO * O) per query row, laid out like lse; written by the preprocess kernel.
  float* dsum = nullptr;
  // With sinks (FwdParams::sinks, set for this), one of the two: each row's share of its sink's
  // gradient, -exp(sink - lse') rowsum(dO * O), laid out like lse (deterministic calls: the
  // caller sums them per head in a fixed order), or the (heads_q,) gradient itself, zeroed by
  // the caller, which the preprocess kernel adds the shares into.
  float* sink_rows = nullptr;
  float* grad_sinks = nullptr;
  // dq accumulated in fp32 by atomics: (dq_splits, lse rows, kernel head dim), zeroed by the
  // caller. Deterministic calls of the mma.sync kernel give each CTA column of the grid its own
  // slice (dq_splits of them), summed in a fixed order by the convert kernel; otherwise
  // dq_splits = 1.
  float* dq_accum = nullptr;
  int dq_splits = 1;
  bool deterministic = false;
  // Deterministic calls of the Hopper kernel (bwd_workspace says which): one dq, its additions
  // ordered by key block through a counter per (batch, query head, 64 query rows) of the key
  // blocks that have added there, zeroed by the caller; nullptr otherwise.
  int* dq_semaphore = nullptr;
  // Grid order (BwdTile), chosen at launch: key block slowest on a 1-D grid, or by head.
  bool key_block_major = false;
  // Walk order (KeyBlockSteps), chosen at launch: a key block's query blocks from the last down
  // (the Hopper kernel's causal and deterministic calls).
  bool walk_down = false;
  // Ordered additions under a causal mask or a window on the head-major grid (KeyBlockSteps'
  // rising walk), chosen at launch: the key blocks walk their query blocks up, and the grid
  // starts a head's blocks from the last (BwdTile).
  bool rising_walk = false;
  // Causal calls without ordered additions on the head-major grid, chosen at launch: each CTA
  // runs a key block and its mirror from the head's end (BwdTile).
  bool paired_key_blocks = false;
};

}  // namespace flash
