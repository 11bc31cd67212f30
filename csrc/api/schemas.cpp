// The flash_ext op schemas, defined once; backends register implementations per dispatch key
// (cpu_ops.cpp, ...), autograd.cpp their autograd, entry.cpp the composite entry ops, and
// flash_ext/ops.py the fake implementations.
#include <torch/library.h>

// The entry ops' arguments: flash_ext.attention's and attention_varlen's, window_size split, and
// flash_api for the flash_attn_* functions' meaning (q (B, S, H, D), bottom-right causal, sinks
// named learnable_sink).
#define FLASH_EXT_ENTRY_ARGS                                                                   \
  "(Tensor query, Tensor key, Tensor value, Tensor? attn_mask, Tensor? cu_seqlens_q, "         \
  "Tensor? cu_seqlens_k, int max_seqlen_q, int max_seqlen_k, float dropout_p, bool is_causal, " \
  "float? scale, bool enable_gqa, int window_left, int window_right, Tensor? alibi_slopes, "   \
  "Tensor? sinks, float softcap, bool deterministic, str? backend, bool flash_api)"

TORCH_LIBRARY(flash_ext, m) {
  // What flash_ext.attention and the other Python entry points do (entry.cpp): validate,
  // choose a kernel backend, run it; (out, lse) with out in the caller's layout. Composite: under
  // torch.compile it traces into the forward op it runs. check_attention validates and selects
  // alone, for the Python backends (math, flex).
  m.def("attention" FLASH_EXT_ENTRY_ARGS " -> (Tensor out, Tensor lse)");
  m.def("check_attention" FLASH_EXT_ENTRY_ARGS " -> ()");
  // Dense attention on q (B, Hq, Sq, D), k and v (B, Hkv, Sk, D), any strides. Returns out
  // (like q) and lse (B, Hq, Sq) fp32. window_right = 0 is causal; bottom_right aligns the
  // diagonal to the last key (offset Sk - Sq) instead of the first. `deterministic` is for the
  // backward that autograd runs: bitwise-reproducible gradients. sinks (Hq,), float32 or q's
  // dtype: a logit per query head that joins every row's softmax, its probability dropped;
  // out and lse include it (the backward takes them as they are). The backward returns the
  // sinks' gradient (Hq,) fp32 when given the sinks, from its own rowsum(dO * out) (no pass of
  // its own over dO and out on CUDA), else an empty (0,). sm_margin: SMs the forward leaves
  // free (the persistent Hopper forward's grid takes the others), for kernels of another stream
  // that must run beside it, as ring attention's K/V exchange; 0 <= sm_margin < the device's
  // SM count; the sm80 kernels and the CPU take and ignore it.
  m.def(
      "attention_fwd(Tensor q, Tensor k, Tensor v, Tensor? attn_mask, Tensor? alibi_slopes, "
      "Tensor? dropout_seed, float dropout_p, float scale, int window_left, int window_right, "
      "bool bottom_right, float softcap, bool deterministic, Tensor? sinks=None, "
      "int sm_margin=0) -> (Tensor out, Tensor lse)");
  m.def(
      "attention_bwd(Tensor grad_out, Tensor q, Tensor k, Tensor v, Tensor out, Tensor lse, "
      "Tensor? attn_mask, Tensor? alibi_slopes, Tensor? dropout_seed, float dropout_p, "
      "float scale, int window_left, int window_right, bool bottom_right, float softcap, "
      "bool deterministic, Tensor? sinks=None) "
      "-> (Tensor grad_q, Tensor grad_k, Tensor grad_v, Tensor grad_sinks)");
  // Packed varlen attention on q (Tq, Hq, D), k and v (Tk, Hkv, D) with int32 prefix sums
  // cu_seqlens (B + 1). Returns out (like q) and lse (Hq, Tq) fp32. sinks and sm_margin as
  // attention_fwd's.
  m.def(
      "attention_varlen_fwd(Tensor q, Tensor k, Tensor v, Tensor cu_seqlens_q, "
      "Tensor cu_seqlens_k, int max_seqlen_q, int max_seqlen_k, Tensor? alibi_slopes, "
      "Tensor? dropout_seed, float dropout_p, float scale, int window_left, int window_right, "
      "bool bottom_right, float softcap, bool deterministic, Tensor? sinks=None, "
      "int sm_margin=0) -> (Tensor out, Tensor lse)");
  m.def(
      "attention_varlen_bwd(Tensor grad_out, Tensor q, Tensor k, Tensor v, Tensor out, "
      "Tensor lse, Tensor cu_seqlens_q, Tensor cu_seqlens_k, int max_seqlen_q, "
      "int max_seqlen_k, Tensor? alibi_slopes, Tensor? dropout_seed, float dropout_p, "
      "float scale, int window_left, int window_right, bool bottom_right, float softcap, "
      "bool deterministic, Tensor? sinks=None) "
      "-> (Tensor grad_q, Tensor grad_k, Tensor grad_v, Tensor grad_sinks)");
  // The mem_eff backend (CUDA): an additive attn_bias of q's dtype broadcastable to
  // (B, Hq, Sq, Sk), float32 inputs, any head_dim <= 256. Dense (B, H, S, D) when
  // cu_seqlens are None, lse (B, Hq, Sq); packed varlen (T, H, D) otherwise, lse (Hq, Tq), and
  // then no attn_bias. The backward returns grad_bias (B, Hq, Sq, Sk) in q's dtype when
  // bias_requires_grad (the caller sums it over the bias's broadcast dims), else an empty (0,).
  // `deterministic`, as for attention_fwd, asks for bitwise-reproducible gradients.
  m.def(
      "mem_eff_fwd(Tensor q, Tensor k, Tensor v, Tensor? attn_bias, Tensor? cu_seqlens_q, "
      "Tensor? cu_seqlens_k, int max_seqlen_q, int max_seqlen_k, Tensor? alibi_slopes, "
      "Tensor? dropout_seed, float dropout_p, float scale, int window_left, int window_right, "
      "bool bottom_right, float softcap, bool deterministic) -> (Tensor out, Tensor lse)");
  m.def(
      "mem_eff_bwd(Tensor grad_out, Tensor q, Tensor k, Tensor v, Tensor out, Tensor lse, "
      "Tensor? attn_bias, bool bias_requires_grad, Tensor? cu_seqlens_q, Tensor? cu_seqlens_k, "
      "int max_seqlen_q, int max_seqlen_k, Tensor? alibi_slopes, Tensor? dropout_seed, "
      "float dropout_p, float scale, int window_left, int window_right, bool bottom_right, "
      "float softcap, bool deterministic) -> (Tensor grad_q, Tensor grad_k, Tensor grad_v, "
      "Tensor grad_bias)");
  // The CPU backend's dropout keep-mask (B, H, Sq, Sk) for a seed, materialized for tests.
  m.def(
      "cpu_dropout_keep_mask(Tensor dropout_seed, int batch, int heads, int seqlen_q, "
      "int seqlen_k, float dropout_p) -> Tensor");
  // The flash backend's dropout keep-mask (B, Hq, Sq, Sk) for dense q (B, Hq, Sq, D) and
  // k (B, Hkv, Sk, D) and a CUDA seed, exactly as its forward draws it, for tests.
  m.def(
      "flash_dropout_keep_mask(Tensor q, Tensor k, Tensor dropout_seed, float dropout_p) "
      "-> Tensor");
  // flash_attn_with_kvcache on CUDA (the flash backend), the cache read where it lies: k and v
  // (B, Snew, Hkv, D), if given, written in place into the cache after each sequence's
  // cache_seqlens tokens ((B,) integers; None: the int cache_seqlen for all); then q
  // (B, Sq, Hq, D) against a dense cache (B_cache, S_cache, Hkv, D) whose rows cache_batch_idx
  // chooses, or the pages (num_pages, page_size, Hkv, D) of block_table (B, max_blocks) int32,
  // from cache_leftpad (B,) on. Query token i sits at position cache_seqlens + Snew - Sq + i;
  // windows (causal: window_right = 0) align there. Returns out (B, Sq, Hq, D) and lse
  // (B, Hq, Sq) fp32; sinks as attention_fwd's. num_splits: the key splits (0: chosen from the
  // SMs and the call's size).
  m.def(
      "kvcache_fwd(Tensor q, Tensor(a!) k_cache, Tensor(b!) v_cache, Tensor? k, Tensor? v, "
      "Tensor? cache_seqlens, int cache_seqlen, Tensor? cache_batch_idx, Tensor? cache_leftpad, "
      "Tensor? block_table, float scale, int window_left, int window_right, float softcap, "
      "Tensor? sinks, int num_splits=0) "
      "-> (Tensor out, Tensor lse)");
}
