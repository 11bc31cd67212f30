"""Public entry points: SDPA-style `attention`, `attention_varlen`, and the flash-attn 2.x
compatible functions. Each forwards its arguments to one C++ call (csrc/api/entry.cpp) that
validates them, selects a backend (dispatch.py's table) and runs its kernel; under
torch.compile the same C++ is the composite op flash_ext::attention. Only the Python backends,
math and flex, run here, when asked for by name."""

from __future__ import annotations

import torch
from torch import Tensor

from flash_ext import _C, attn_probs
from flash_ext.dispatch import BACKENDS, Explanation
from flash_ext.flex import sdpa as flex_sdpa
from flash_ext.ops import ops
from flash_ext.paged import gather_pages
from flash_ext.reference import attention_ref, attention_varlen_ref

_attention = _C.attention
_is_compiling = torch.compiler.is_compiling
#: Backends that run in Python (the others are kernels run by _C.attention).
PYTHON_BACKENDS = ("math", "flex")
# The entry kinds of _C's functions: SDPA's or flash-attn's argument meanings, dense or varlen.
_SDPA, _FLASH, _SDPA_VARLEN, _FLASH_VARLEN = range(4)


def _math_dropout_keep(dropout_p: float, shape: tuple[int, ...], device) -> Tensor | None:
    if dropout_p == 0:
        return None
    return torch.rand(shape, device=device) >= dropout_p


def _run(query, key, value, attn_mask, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k,
         dropout_p, is_causal, scale, enable_gqa, window_size, alibi_slopes, sinks, softcap,
         deterministic, backend, kind) -> tuple[Tensor, Tensor]:
    """The path off the hot one: a backend named, or tracing under torch.compile (which sees the
    composite ops instead of _C's raw functions)."""
    varlen, flash_api = kind >= _SDPA_VARLEN, kind in (_FLASH, _FLASH_VARLEN)
    if _is_compiling():
        left, right = window_size
        args = (query, key, value, attn_mask, cu_seqlens_q, cu_seqlens_k, max_seqlen_q or 0,
                max_seqlen_k or 0, dropout_p, is_causal, scale, enable_gqa, left, right,
                alibi_slopes, sinks, softcap, deterministic, backend, flash_api)
        if backend not in PYTHON_BACKENDS:
            return ops.attention(*args)
        ops.check_attention(*args)
        q, k, v = (t.transpose(1, 2) for t in (query, key, value)) if kind == _FLASH else (
            query, key, value)
        right = 0 if is_causal else right
        scale = q.shape[-1] ** -0.5 if scale is None else scale
    else:
        args = (query, key, value, attn_mask, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
                max_seqlen_k, dropout_p, is_causal, scale, enable_gqa, window_size, alibi_slopes,
                sinks, softcap, deterministic, backend, kind)
        if backend not in PYTHON_BACKENDS:
            return _attention(*args)
        q, k, v, left, right, scale = _C.prepare(*args)
    if backend == "flex":
        out, lse = flex_sdpa.attention(q, k, v, attn_mask, (left, right), flash_api, scale,
                                       alibi_slopes, float(softcap), sinks)
    elif varlen:
        batch = cu_seqlens_q.numel() - 1
        keep = _math_dropout_keep(dropout_p, (batch, q.shape[1], max_seqlen_q, max_seqlen_k),
                                  q.device)
        out, lse = attention_varlen_ref(q, k, v, cu_seqlens_q, cu_seqlens_k,
                                        window_size=(left, right), bottom_right=flash_api,
                                        scale=scale, alibi_slopes=alibi_slopes, sinks=sinks,
                                        softcap=float(softcap), dropout_p=float(dropout_p),
                                        dropout_keep=keep, compute_dtype=None)
    else:
        keep = _math_dropout_keep(dropout_p, q.shape[:3] + k.shape[2:3], q.device)
        out, lse = attention_ref(q, k, v, attn_mask=attn_mask, window_size=(left, right),
                                 bottom_right=flash_api, scale=scale, alibi_slopes=alibi_slopes,
                                 sinks=sinks, softcap=float(softcap), dropout_p=float(dropout_p),
                                 dropout_keep=keep, compute_dtype=None)
    return (out.transpose(1, 2), lse) if kind == _FLASH else (out, lse)


def attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
    *,
    window_size: tuple[int, int] = (-1, -1),
    alibi_slopes: Tensor | None = None,
    sinks: Tensor | None = None,
    softcap: float = 0.0,
    deterministic: bool = False,
    return_lse: bool = False,
    backend: str | None = None,
) -> Tensor | tuple[Tensor, Tensor]:
    """Exact attention with the signature and meaning of
    torch.nn.functional.scaled_dot_product_attention, plus flash_ext's extras.

    query (B, Hq, Sq, D), key and value (B, Hkv, Sk, D), any strides. attn_mask: bool (True =
    attend) or additive, broadcastable to (B, Hq, Sq, Sk). is_causal: top-left causal mask (sets
    the right window to 0). window_size=(left, right): keys within left/right positions of the
    diagonal, -1 unbounded. alibi_slopes (Hq,) or (B, Hq) float32: score -= slope * |i - j|.
    softcap > 0: score = softcap * tanh(score / softcap). enable_gqa: Hkv may divide Hq.
    sinks (Hq,), float32 or the inputs' dtype: learnable attention sinks (gpt-oss), one finite
    logit per query head that joins each of the head's softmax rows, after the scores' scale,
    softcap, ALiBi and masks, and whose probability is then dropped (dropout applies to the
    probabilities that remain); differentiable, computed in float32.
    Returns out (B, Hq, Sq, D), or (out, lse) with return_lse, lse (B, Hq, Sq) float32: the
    log-sum-exp of the row's softmax, the sink included (a row that sees no key: out 0, lse
    -inf without sinks, the sink's logit with them).
    backend: force "cpu", "flash", "mem_eff", "flex" or "math"; explain() says what runs.
    """
    if backend is None and not _is_compiling():
        out, lse = _attention(query, key, value, attn_mask, None, None, None, None, dropout_p,
                              is_causal, scale, enable_gqa, window_size, alibi_slopes, sinks,
                              softcap, deterministic, None, _SDPA)
    else:
        out, lse = _run(query, key, value, attn_mask, None, None, None, None, dropout_p,
                        is_causal, scale, enable_gqa, window_size, alibi_slopes, sinks, softcap,
                        deterministic, backend, _SDPA)
    return (out, lse) if return_lse else out


def explain(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
    *,
    window_size: tuple[int, int] = (-1, -1),
    alibi_slopes: Tensor | None = None,
    sinks: Tensor | None = None,
    softcap: float = 0.0,
    deterministic: bool = False,
    return_lse: bool = False,
    backend: str | None = None,
    varlen: bool = False,
) -> Explanation:
    """Which backend `attention(...)` with these arguments would run, and why not the others.

    `varlen=True` explains attention_varlen on the same features. print() it for a summary.
    """
    selected, reasons = _C.explain(query, key, value, attn_mask, None, None, None, None,
                                   dropout_p, is_causal, scale, enable_gqa, window_size,
                                   alibi_slopes, sinks, softcap, deterministic, backend, _SDPA,
                                   varlen)
    return Explanation(selected, {b.name: why for b, why in zip(BACKENDS, reasons)})


def attention_varlen(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    cu_seqlens_q: Tensor,
    cu_seqlens_k: Tensor,
    max_seqlen_q: int,
    max_seqlen_k: int,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
    *,
    window_size: tuple[int, int] = (-1, -1),
    alibi_slopes: Tensor | None = None,
    sinks: Tensor | None = None,
    softcap: float = 0.0,
    deterministic: bool = False,
    return_lse: bool = False,
    backend: str | None = None,
    block_table: Tensor | None = None,
) -> Tensor | tuple[Tensor, Tensor]:
    """attention() over a batch of variable-length sequences packed along the first dim.

    query (Tq, Hq, D), key and value (Tk, Hkv, D); sequence b holds rows
    cu_seqlens_q[b]:cu_seqlens_q[b+1] of query (int32 prefix sums, batch + 1 entries) and likewise
    for keys; max_seqlen_* bound the lengths. is_causal and window_size are top-left aligned per
    sequence, as in attention(). No attn_mask. sinks (Hq,) as in attention(). Returns out
    (Tq, Hq, D), and lse (Hq, Tq) with return_lse (the sink included, as in attention()). With block_table (B, max_blocks_per_seq) int32, key and value are paged caches
    (num_blocks, page_size, Hkv, D) holding each sequence's cu_seqlens_k tokens.
    """
    if block_table is not None:  # key, value: paged caches, whose tokens are gathered
        key, value = gather_pages(key, value, cu_seqlens_k, block_table)
    if backend is None and not _is_compiling():
        out, lse = _attention(query, key, value, None, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
                              max_seqlen_k, dropout_p, is_causal, scale, enable_gqa, window_size,
                              alibi_slopes, sinks, softcap, deterministic, None, _SDPA_VARLEN)
    else:
        out, lse = _run(query, key, value, None, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
                        max_seqlen_k, dropout_p, is_causal, scale, enable_gqa, window_size,
                        alibi_slopes, sinks, softcap, deterministic, backend, _SDPA_VARLEN)
    return (out, lse) if return_lse else out


# flash-attn 2.x compatible functions: (B, S, H, D) layout, bottom-right causal alignment,
# GQA always allowed. With return_attn_probs they return (out, softmax_lse, S_dmask): S_dmask
# is None without dropout and flash-attn's encoding of the probabilities and the dropout mask
# with it (attn_probs.py, for tests on small shapes). learnable_sink (flash-attn's newer name,
# last so that flash-attn 2.x's positional calls keep their meaning) is attention()'s sinks;
# softmax_lse then includes the sink.


def _rng_state(dropout_p: float, return_attn_probs: bool, q: Tensor) -> Tensor | None:
    """The generator's state before a call whose S_dmask is asked for, else None."""
    if not (return_attn_probs and dropout_p > 0):
        return None
    if _is_compiling():
        raise NotImplementedError("return_attn_probs=True with dropout (S_dmask, for tests) is "
                                  "not supported under torch.compile")
    return attn_probs.generator(q.device).get_state()


def _score_args(causal, softmax_scale, window_size, softcap, alibi_slopes) -> dict:
    return dict(is_causal=causal, scale=softmax_scale, window_size=tuple(map(int, window_size)),
                bottom_right=True, softcap=softcap, alibi_slopes=alibi_slopes)


def flash_attn_func(q, k, v, dropout_p=0.0, softmax_scale=None, causal=False,
                    window_size=(-1, -1), softcap=0.0, alibi_slopes=None, deterministic=False,
                    return_attn_probs=False, learnable_sink=None):
    """flash_attn.flash_attn_func: q (B, Sq, Hq, D), k and v (B, Sk, Hkv, D)."""
    state = _rng_state(dropout_p, return_attn_probs, q)
    if not _is_compiling():
        out, lse = _attention(q, k, v, None, None, None, None, None, dropout_p, causal,
                              softmax_scale, True, window_size, alibi_slopes, learnable_sink,
                              softcap, deterministic, None, _FLASH)
    else:
        out, lse = _run(q, k, v, None, None, None, None, None, dropout_p, causal, softmax_scale,
                        True, window_size, alibi_slopes, learnable_sink, softcap, deterministic,
                        None, _FLASH)
    if not return_attn_probs:
        return out
    if state is None:
        return out, lse, None
    return out, lse, attn_probs.dropout_encoded_probs(
        q, k, state, dropout_p, **_score_args(causal, softmax_scale, window_size, softcap,
                                              alibi_slopes))


def flash_attn_qkvpacked_func(qkv, dropout_p=0.0, softmax_scale=None, causal=False,
                              window_size=(-1, -1), softcap=0.0, alibi_slopes=None,
                              deterministic=False, return_attn_probs=False, learnable_sink=None):
    """flash_attn.flash_attn_qkvpacked_func: qkv (B, S, 3, H, D)."""
    _check_packed(qkv, "qkv", 5, 2, 3, "(batch, seqlen, 3, heads, head_dim)")
    q, k, v = qkv.unbind(2)
    return flash_attn_func(q, k, v, dropout_p, softmax_scale, causal, window_size, softcap,
                           alibi_slopes, deterministic, return_attn_probs, learnable_sink)


def flash_attn_kvpacked_func(q, kv, dropout_p=0.0, softmax_scale=None, causal=False,
                             window_size=(-1, -1), softcap=0.0, alibi_slopes=None,
                             deterministic=False, return_attn_probs=False, learnable_sink=None):
    """flash_attn.flash_attn_kvpacked_func: q (B, Sq, Hq, D), kv (B, Sk, 2, Hkv, D)."""
    _check_packed(kv, "kv", 5, 2, 2, "(batch, seqlen, 2, heads, head_dim)")
    k, v = kv.unbind(2)
    return flash_attn_func(q, k, v, dropout_p, softmax_scale, causal, window_size, softcap,
                           alibi_slopes, deterministic, return_attn_probs, learnable_sink)


def flash_attn_varlen_func(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k,
                           dropout_p=0.0, softmax_scale=None, causal=False, window_size=(-1, -1),
                           softcap=0.0, alibi_slopes=None, deterministic=False,
                           return_attn_probs=False, block_table=None, learnable_sink=None):
    """flash_attn.flash_attn_varlen_func: q (Tq, Hq, D), k and v (Tk, Hkv, D); with block_table
    (B, max_blocks_per_seq) int32, k and v are paged caches (num_blocks, page_size, Hkv, D)
    holding each sequence's cu_seqlens_k tokens (prefill against a paged cache)."""
    if block_table is not None:  # k, v: paged caches, whose tokens are gathered (paged.py)
        k, v = gather_pages(k, v, cu_seqlens_k, block_table)
    state = _rng_state(dropout_p, return_attn_probs, q)
    if not _is_compiling():
        out, lse = _attention(q, k, v, None, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
                              max_seqlen_k, dropout_p, causal, softmax_scale, True, window_size,
                              alibi_slopes, learnable_sink, softcap, deterministic, None,
                              _FLASH_VARLEN)
    else:
        out, lse = _run(q, k, v, None, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k,
                        dropout_p, causal, softmax_scale, True, window_size, alibi_slopes,
                        learnable_sink, softcap, deterministic, None, _FLASH_VARLEN)
    if not return_attn_probs:
        return out
    if state is None:
        return out, lse, None
    return out, lse, attn_probs.dropout_encoded_probs(
        q, k, state, dropout_p, cu_seqlens_q=cu_seqlens_q, cu_seqlens_k=cu_seqlens_k,
        max_seqlen_q=max_seqlen_q, max_seqlen_k=max_seqlen_k,
        **_score_args(causal, softmax_scale, window_size, softcap, alibi_slopes))


def flash_attn_varlen_qkvpacked_func(qkv, cu_seqlens, max_seqlen, dropout_p=0.0,
                                     softmax_scale=None, causal=False, window_size=(-1, -1),
                                     softcap=0.0, alibi_slopes=None, deterministic=False,
                                     return_attn_probs=False, learnable_sink=None):
    """flash_attn.flash_attn_varlen_qkvpacked_func: qkv (T, 3, H, D)."""
    _check_packed(qkv, "qkv", 4, 1, 3, "(total_tokens, 3, heads, head_dim)")
    q, k, v = qkv.unbind(1)
    return flash_attn_varlen_func(q, k, v, cu_seqlens, cu_seqlens, max_seqlen, max_seqlen,
                                  dropout_p, softmax_scale, causal, window_size, softcap,
                                  alibi_slopes, deterministic, return_attn_probs,
                                  learnable_sink=learnable_sink)


def flash_attn_varlen_kvpacked_func(q, kv, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
                                    max_seqlen_k, dropout_p=0.0, softmax_scale=None, causal=False,
                                    window_size=(-1, -1), softcap=0.0, alibi_slopes=None,
                                    deterministic=False, return_attn_probs=False,
                                    learnable_sink=None):
    """flash_attn.flash_attn_varlen_kvpacked_func: q (Tq, Hq, D), kv (Tk, 2, Hkv, D)."""
    _check_packed(kv, "kv", 4, 1, 2, "(total_tokens, 2, heads, head_dim)")
    k, v = kv.unbind(1)
    return flash_attn_varlen_func(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
                                  max_seqlen_k, dropout_p, softmax_scale, causal, window_size,
                                  softcap, alibi_slopes, deterministic, return_attn_probs,
                                  learnable_sink=learnable_sink)


def _check_packed(t, name: str, rank: int, dim: int, count: int, layout: str) -> None:
    if not isinstance(t, Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    if t.dim() != rank or t.shape[dim] != count:
        raise ValueError(f"{name} must have shape {layout}, got {tuple(t.shape)}")
