"""flash_attn_with_kvcache: attention of new query tokens against a KV cache, appending the new
keys and values to the cache in place, with flash-attn 2.x's meaning.

On CUDA (fp16/bf16, the flash backend built for the head dim, no ALiBi, at most 64 query rows
per kv head: decoding and speculative steps; pages of a multiple of 16 tokens) one op appends
the new tokens and reads the cache where it lies, dense or paged, once per kv head for all the
query heads that share it, split across the GPU (torch.ops.flash_ext.kvcache_fwd), without a
host sync: indices given as tensors are checked by the kernels (a device-side assertion names a
bad one). Other calls (CPU, fp32, ALiBi, long query chunks, other page sizes) gather each
sequence's visible keys into a packed copy and run the varlen entry point on it.
"""

from __future__ import annotations

import functools

import torch
from torch import Tensor

from flash_ext.dispatch import FLASH_KERNEL_HEAD_DIMS
from flash_ext.interface import flash_attn_varlen_func
from flash_ext.ops import CUDA_BACKENDS, FLASH_DTYPES, FLASH_HDIMS, ops
from flash_ext.paged import CacheIndex, ranges
from flash_ext.rotary import apply_rotary_emb

#: The decode kernel's most query rows (seqlen_q x heads_q / heads_kv) per kv head.
MAX_KERNEL_ROWS = 64
#: The decode kernel reads pages of a multiple of this many tokens (a warp's 16 keys in one
#: page; kvcache_fwd refuses others).
KERNEL_PAGE_MULTIPLE = 16
_DTYPE_NAMES = {torch.float16: "fp16", torch.bfloat16: "bf16"}


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


def _rows_aligned(t: Tensor) -> bool:
    """Rows the CUDA kernels read in place in 16-byte pieces: a contiguous last dim and 16-byte
    aligned strides and start."""
    return (t.stride(-1) == 1 and all(s % 8 == 0 for s in t.stride()[:-1])
            and t.data_ptr() % 16 == 0)


@functools.cache
def _sm80(index: int) -> bool:
    return torch.cuda.get_device_capability(index) >= (8, 0)


def _kernel_runs(q: Tensor, k_cache: Tensor, v_cache: Tensor, alibi_slopes,
                 block_table: Tensor | None = None) -> bool:
    """Whether the CUDA decode kernel takes the call (the module docstring says which)."""
    if not q.is_cuda or "flash" not in CUDA_BACKENDS or alibi_slopes is not None:
        return False
    if block_table is not None and k_cache.shape[1] % KERNEL_PAGE_MULTIPLE:
        return False
    head_dim = q.shape[-1]
    kernel_dim = next((d for d in FLASH_KERNEL_HEAD_DIMS if d >= head_dim), None)
    return (_DTYPE_NAMES.get(q.dtype) in FLASH_DTYPES and kernel_dim in FLASH_HDIMS
            and head_dim % 8 == 0 and k_cache.dtype == v_cache.dtype == q.dtype
            and k_cache.device == q.device and k_cache.shape[2] > 0
            and q.shape[2] % k_cache.shape[2] == 0
            and q.shape[1] * (q.shape[2] // k_cache.shape[2]) <= MAX_KERNEL_ROWS
            and _sm80(q.get_device())
            and _rows_aligned(k_cache) and _rows_aligned(v_cache))


def _rotate(q: Tensor, k: Tensor | None, cos: Tensor, sin: Tensor, interleaved: bool,
            causal: bool, window_size, start: Tensor) -> tuple[Tensor, Tensor | None]:
    """q and the new k with rotary embedding, positions counted from the left padding: the new
    k from `start` (B,) on, q likewise in causal or windowed calls, else every query token at
    `start`."""
    if k is not None:
        k = apply_rotary_emb(k, cos, sin, interleaved, seqlen_offsets=start)
    if causal or tuple(window_size) != (-1, -1):
        return apply_rotary_emb(q, cos, sin, interleaved, seqlen_offsets=start), k
    batch, seqlen_q = q.shape[:2]
    rows = q.reshape(batch * seqlen_q, 1, *q.shape[2:])
    rows = apply_rotary_emb(rows, cos, sin, interleaved,
                            seqlen_offsets=start.repeat_interleave(seqlen_q))
    return rows.view(q.shape), k


def _on_kernel(q, k_cache, v_cache, k, v, rotary_cos, rotary_sin, cache_seqlens,
               cache_batch_idx, cache_leftpad, block_table, softmax_scale, causal, window_size,
               softcap, rotary_interleaved, return_softmax_lse, learnable_sink, num_splits):
    """The call on the CUDA decode kernel: the append, the checks of the indices and the
    attention in the op (no host sync); rotary here, before it."""
    batch, device = q.shape[0], q.device
    capacity = k_cache.shape[1] * (1 if block_table is None else block_table.shape[-1])
    if cache_leftpad is not None and not isinstance(cache_leftpad, Tensor):
        cache_leftpad = torch.full((batch,), int(cache_leftpad), dtype=torch.int32, device=device)
    if rotary_cos is not None:
        lengths = _per_batch(cache_seqlens, "cache_seqlens", batch, capacity, device)
        leftpad = _per_batch(cache_leftpad, "cache_leftpad", batch, 0, device)
        q, k = _rotate(q, k, rotary_cos, rotary_sin, rotary_interleaved, causal, window_size,
                       lengths - leftpad)
    on_device = [t if t is None or t.device == device else t.to(device)
                 for t in (cache_seqlens if isinstance(cache_seqlens, Tensor) else None,
                           cache_batch_idx, cache_leftpad, block_table)]
    seqlen = capacity if cache_seqlens is None else 0 if on_device[0] is not None else \
        int(cache_seqlens)
    window_left, window_right = window_size
    out, lse = ops.kvcache_fwd(
        q, k_cache, v_cache, k, v, on_device[0], seqlen, *on_device[1:],
        q.shape[-1] ** -0.5 if softmax_scale is None else softmax_scale, window_left,
        0 if causal else window_right, softcap, learnable_sink, num_splits)
    return (out, lse) if return_softmax_lse else out


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
    num_splits: how many parts the CUDA decode kernel splits each sequence's keys into (joined
    by a combine kernel): 0 (default) chooses from the SM count and the call's size; n >= 1
    takes n, at most one a 64-key tile and 256; the other paths (CPU, the varlen kernels) do not
    split. Returns out (B, Sq, Hq, D), and softmax_lse (B, Hq, Sq) float32 with
    return_softmax_lse (the sink included).
    """
    if isinstance(num_splits, bool) or not isinstance(num_splits, int) or num_splits < 0:
        raise ValueError(f"num_splits must be an int >= 0 (0: the kernel chooses), got "
                         f"{num_splits!r}")
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
    new = 0 if k is None else k.shape[1]
    if k is not None and (k.shape[0] != batch or k.shape[2:] != k_cache.shape[2:]
                          or v.shape != k.shape):
        raise ValueError(f"k and v must be ({batch}, seqlen_new, {k_cache.shape[2]}, "
                         f"{k_cache.shape[3]}), got {tuple(k.shape)} and {tuple(v.shape)}")
    if _kernel_runs(q, k_cache, v_cache, alibi_slopes, block_table):
        return _on_kernel(q, k_cache, v_cache, k, v, rotary_cos, rotary_sin, cache_seqlens,
                          cache_batch_idx, cache_leftpad, block_table, softmax_scale, causal,
                          window_size, softcap, rotary_interleaved, return_softmax_lse,
                          learnable_sink, num_splits)
    cache = CacheIndex(k_cache, batch, cache_batch_idx, block_table)
    lengths = _per_batch(cache_seqlens, "cache_seqlens", batch, cache.capacity, device)
    leftpad = _per_batch(cache_leftpad, "cache_leftpad", batch, 0, device)
    if batch and not bool(((lengths >= 0) & (lengths + new <= cache.capacity)).all()):
        raise ValueError(f"cache_seqlens must be >= 0 with cache_seqlens + seqlen_new <= the "
                         f"cache's {cache.capacity} tokens, got {lengths.tolist()} + {new}")
    if rotary_cos is not None:
        q, k = _rotate(q, k, rotary_cos, rotary_sin, rotary_interleaved, causal, window_size,
                       lengths - leftpad)
    if k is not None:
        position = lengths[:, None] + torch.arange(new, device=device)  # (B, new)
        where = cache.index(torch.arange(batch, device=device)[:, None].expand(-1, new), position)
        with torch.no_grad():  # the cache is state, not part of the graph
            k_cache[where] = k.to(k_cache.dtype)
            v_cache[where] = v.to(v_cache.dtype)
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
