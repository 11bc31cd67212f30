"""flash_attn_with_kvcache: attention of new query tokens against a KV cache, appending the new
keys and values to the cache in place, with flash-attn 2.x's meaning.

This first version gathers each sequence's visible keys from the cache (dense or paged) into a
packed copy and runs the varlen entry point on it, on every backend; the decode kernels that
read the cache where it lies (paged, GQA-packed, split-KV) are still to come, so it costs a copy
of the visible cache per call.
"""

from __future__ import annotations

import torch
from torch import Tensor

from flash_ext.interface import flash_attn_varlen_func
from flash_ext.paged import CacheIndex, ranges
from flash_ext.rotary import apply_rotary_emb


def _per_batch(value: int | Tensor | None, name: str, batch: int, default: int,
               device: torch.device) -> Tensor:
    """An int, a (batch,) integer tensor or None as a (batch,) int64 tensor on `device`."""
    if value is None:
        return torch.full((batch,), default, dtype=torch.int64, device=device)
    if isinstance(value, Tensor):
        if value.shape != (batch,) or value.is_floating_point():
            raise ValueError(f"{name} must be an int or a ({batch},) integer tensor, got "
                             f"{value.dtype} of shape {tuple(value.shape)}")
        return value.to(device=device, dtype=torch.int64)
    return torch.full((batch,), int(value), dtype=torch.int64, device=device)


def flash_attn_with_kvcache(q, k_cache, v_cache, k=None, v=None, rotary_cos=None,
                            rotary_sin=None, cache_seqlens=None, cache_batch_idx=None,
                            cache_leftpad=None, block_table=None, softmax_scale=None,
                            causal=False, window_size=(-1, -1), softcap=0.0,
                            rotary_interleaved=True, alibi_slopes=None, num_splits=0,
                            return_softmax_lse=False, learnable_sink=None):
    """flash_attn.flash_attn_with_kvcache.

    q (B, Sq, Hq, D). k_cache, v_cache: dense (B_cache, S_cache, Hkv, D), rows chosen by
    cache_batch_idx (B,) (default 0..B-1), or paged (num_blocks, page_size, Hkv, D) with
    block_table (B, max_blocks_per_seq) int32. cache_seqlens (an int or (B,) int32): the tokens
    each sequence has in the cache (default: all); cache_leftpad (B,): where each one starts.
    k, v (B, Snew, Hkv, D): written into the cache at cache_seqlens, in place. rotary_cos/sin
    (seqlen_ro, rotary_dim / 2): the new k at its positions, and q at its own (causal or
    windowed calls) or all of q at position cache_seqlens (others); positions count from
    cache_leftpad. Attention runs over each sequence's cache (new tokens included), causal
    aligned bottom-right. learnable_sink (Hq,): attention sinks, as flash_ext.attention's sinks.
    Returns out (B, Sq, Hq, D), and softmax_lse (B, Hq, Sq) float32 with return_softmax_lse (the
    sink included). num_splits is accepted and ignored (no split-KV in this version).
    """
    if q.dim() != 4:
        raise ValueError(f"q must be (batch, seqlen_q, heads, head_dim), got shape "
                         f"{tuple(q.shape)}")
    for name, t in (("k_cache", k_cache), ("v_cache", v_cache)):
        if not isinstance(t, Tensor) or t.dim() != 4:
            raise ValueError(f"{name} must be a 4-D tensor (batch or blocks, seqlen or "
                             f"page_size, heads, head_dim), got {getattr(t, 'shape', t)}")
    if k_cache.shape != v_cache.shape:
        raise ValueError(f"k_cache and v_cache must have one shape, got {tuple(k_cache.shape)} "
                         f"and {tuple(v_cache.shape)}")
    if (k is None) != (v is None):
        raise ValueError("k and v go together: both new tensors or both None")
    if (rotary_cos is None) != (rotary_sin is None):
        raise ValueError("rotary_cos and rotary_sin go together")
    batch, seqlen_q = q.shape[:2]
    device = q.device
    cache = CacheIndex(k_cache, batch, cache_batch_idx, block_table)
    lengths = _per_batch(cache_seqlens, "cache_seqlens", batch, cache.capacity, device)
    leftpad = _per_batch(cache_leftpad, "cache_leftpad", batch, 0, device)
    new = 0 if k is None else k.shape[1]
    if k is not None and (k.shape[0] != batch or k.shape[2:] != k_cache.shape[2:]
                          or v.shape != k.shape):
        raise ValueError(f"k and v must be ({batch}, seqlen_new, {k_cache.shape[2]}, "
                         f"{k_cache.shape[3]}), got {tuple(k.shape)} and {tuple(v.shape)}")
    longest = int((lengths + new).max()) if batch else 0
    if longest > cache.capacity or (batch and int(lengths.min()) < 0):
        raise ValueError(f"cache_seqlens must be >= 0 with cache_seqlens + seqlen_new <= the "
                         f"cache's {cache.capacity} tokens, got {lengths.tolist()} + {new}")
    rotary_start = lengths - leftpad  # positions count from the left padding
    if rotary_cos is not None:
        if k is not None:
            k = apply_rotary_emb(k, rotary_cos, rotary_sin, rotary_interleaved,
                                 seqlen_offsets=rotary_start)
        if causal or tuple(window_size) != (-1, -1):
            q = apply_rotary_emb(q, rotary_cos, rotary_sin, rotary_interleaved,
                                 seqlen_offsets=rotary_start)
        else:  # every query token at position cache_seqlens
            rows = q.reshape(batch * seqlen_q, 1, *q.shape[2:])
            q = apply_rotary_emb(rows, rotary_cos, rotary_sin, rotary_interleaved,
                                 seqlen_offsets=rotary_start.repeat_interleave(seqlen_q))
            q = q.view(batch, seqlen_q, *q.shape[2:])
    if k is not None:
        sequence, position = ranges(lengths, lengths + new)
        where = cache.index(sequence, position)
        offset = position - lengths[sequence]
        with torch.no_grad():  # the cache is state, not part of the graph
            k_cache[where] = k[sequence, offset].to(k_cache.dtype)
            v_cache[where] = v[sequence, offset].to(v_cache.dtype)
    ends = lengths + new
    sequence, position = ranges(leftpad, ends)
    where = cache.index(sequence, position)
    keys, values = k_cache[where], v_cache[where]
    cu_k = torch.nn.functional.pad(torch.cumsum((ends - leftpad).clamp_min(0), 0), (1, 0))
    cu_q = torch.arange(batch + 1, device=device) * seqlen_q
    max_k = int((ends - leftpad).max()) if batch else 0
    out, lse, _ = flash_attn_varlen_func(
        q.reshape(batch * seqlen_q, *q.shape[2:]), keys, values, cu_q.to(torch.int32),
        cu_k.to(torch.int32), seqlen_q, max_k, softmax_scale=softmax_scale, causal=causal,
        window_size=window_size, softcap=softcap, alibi_slopes=alibi_slopes,
        return_attn_probs=True, learnable_sink=learnable_sink)
    out = out.view(batch, seqlen_q, *out.shape[1:])
    if not return_softmax_lse:
        return out
    return out, lse.view(lse.shape[0], batch, seqlen_q).transpose(0, 1)
