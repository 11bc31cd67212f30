"""Public entry points: SDPA-style `attention`, `attention_varlen`, and the flash-attn 2.x
compatible functions. Each validates, selects a backend (dispatch.py) and runs it."""

from __future__ import annotations

import torch
from torch import Tensor

from flash_ext import checks
from flash_ext.dispatch import Explanation, describe_call, explain_call, select_backend
from flash_ext.flex import sdpa as flex_sdpa
from flash_ext.ops import ops
from flash_ext.reference import attention_ref, attention_varlen_ref

SDPA_LAYOUT = "(batch, heads, seqlen, head_dim)"
FLASH_LAYOUT = "(batch, seqlen, heads, head_dim)"
VARLEN_LAYOUT = "(total_tokens, heads, head_dim)"


def _dropout_seed(dropout_p: float, device: torch.device) -> Tensor | None:
    """(seed, offset) drawn on the query's device from torch's generator there: reproducible
    under torch.manual_seed, and on CUDA drawn afresh by every CUDA graph replay."""
    if dropout_p == 0:
        return None
    return torch.randint(0, 2**62, (2,), dtype=torch.int64, device=device)


def _additive_bias(attn_mask: Tensor | None, dtype: torch.dtype) -> Tensor | None:
    """attn_mask as the mem_eff kernels take it: an additive bias of the query's dtype, a bool
    mask 0 where True and -inf where False."""
    if attn_mask is None or attn_mask.dtype == dtype:
        return attn_mask
    if attn_mask.dtype == torch.bool:
        return torch.zeros_like(attn_mask, dtype=dtype).masked_fill_(~attn_mask, float("-inf"))
    return attn_mask.to(dtype)


def _positive_scale(q: Tensor, scale: float) -> tuple[Tensor, float]:
    """(q, scale) as the kernels take them, scale > 0: they mask and take row maxima on the
    unscaled scores q.k. scale * q.k = (-scale) * (-q).k, and a zero scale is (0 q).k with scale
    1; both differentiable, so autograd carries the gradient of q back through the fold."""
    if scale > 0:
        return q, scale
    if scale < 0:
        return -q, -scale
    return q * 0, 1.0


def _math_dropout_keep(dropout_p: float, shape: tuple[int, ...], device) -> Tensor | None:
    if dropout_p == 0:
        return None
    return torch.rand(shape, device=device) >= dropout_p


class _Call:
    """A validated dense call on (B, H, S, D) views, shared by the SDPA- and flash-style APIs."""

    def __init__(self, q, k, v, attn_mask, dropout_p, scale, window, alibi_slopes, softcap,
                 bottom_right, deterministic):
        self.q, self.k, self.v, self.attn_mask = q, k, v, attn_mask
        self.dropout_p, self.scale, self.window = float(dropout_p), scale, window
        self.alibi_slopes, self.softcap = alibi_slopes, float(softcap)
        self.bottom_right, self.deterministic = bottom_right, deterministic

    def describe(self, varlen: bool = False):
        mask_grad = self.attn_mask is not None and self.attn_mask.requires_grad
        mask_grad = mask_grad and torch.is_grad_enabled()
        needs_grad = torch.is_grad_enabled() and any(t.requires_grad
                                                     for t in (self.q, self.k, self.v))
        return describe_call(self.q, self.attn_mask, self.dropout_p, self.window,
                             self.alibi_slopes, self.softcap, varlen, mask_grad, needs_grad)

    def run(self, backend: str | None) -> tuple[Tensor, Tensor]:
        name = select_backend(self.describe(), backend)
        scale = self.q.shape[-1] ** -0.5 if self.scale is None else float(self.scale)
        if name == "math":
            keep = _math_dropout_keep(self.dropout_p, self.q.shape[:3] + self.k.shape[2:3],
                                      self.q.device)
            return attention_ref(self.q, self.k, self.v, attn_mask=self.attn_mask,
                                 window_size=self.window, bottom_right=self.bottom_right,
                                 scale=scale, alibi_slopes=self.alibi_slopes,
                                 softcap=self.softcap, dropout_p=self.dropout_p,
                                 dropout_keep=keep, compute_dtype=None)
        if name == "flex":
            return flex_sdpa.attention(self.q, self.k, self.v, self.attn_mask, self.window,
                                       self.bottom_right, scale, self.alibi_slopes, self.softcap)
        seed = _dropout_seed(self.dropout_p, self.q.device)
        q, scale = _positive_scale(self.q, scale)
        if name == "mem_eff":
            return ops.mem_eff_fwd(q, self.k, self.v,
                                   _additive_bias(self.attn_mask, self.q.dtype), None, None, 0, 0,
                                   self.alibi_slopes, seed, self.dropout_p, scale,
                                   self.window[0], self.window[1], self.bottom_right,
                                   self.deterministic)
        return ops.attention_fwd(q, self.k, self.v, self.attn_mask, self.alibi_slopes, seed,
                                 self.dropout_p, scale, self.window[0], self.window[1],
                                 self.bottom_right, self.softcap, self.deterministic)


def _sdpa_call(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa,
               window_size, alibi_slopes, softcap, deterministic) -> _Call:
    checks.check_qkv(query, key, value, ("query", "key", "value"), SDPA_LAYOUT, heads_dim=1,
                     allow_gqa=enable_gqa)
    checks.check_attn_mask(attn_mask, query, key.shape[2])
    left, right = checks.check_options(query, query.shape[0], query.shape[1], dropout_p, scale,
                                       window_size, alibi_slopes, softcap)
    window = (left, 0 if is_causal else right)
    return _Call(query, key, value, attn_mask, dropout_p, scale, window, alibi_slopes, softcap,
                 False, deterministic)


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
    Returns out (B, Hq, Sq, D), or (out, lse) with return_lse, lse (B, Hq, Sq) float32.
    backend: force "cpu", "flash", "mem_eff", "flex" or "math"; explain() says what runs.
    """
    call = _sdpa_call(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa,
                      window_size, alibi_slopes, softcap, deterministic)
    out, lse = call.run(backend)
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
    softcap: float = 0.0,
    deterministic: bool = False,
    return_lse: bool = False,
    backend: str | None = None,
    varlen: bool = False,
) -> Explanation:
    """Which backend `attention(...)` with these arguments would run, and why not the others.

    `varlen=True` explains attention_varlen on the same features. print() it for a summary.
    """
    call = _sdpa_call(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa,
                      window_size, alibi_slopes, softcap, deterministic)
    return explain_call(call.describe(varlen), backend)


def _varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, dropout_p, scale,
            window, alibi_slopes, softcap, bottom_right, deterministic, backend):
    """Validated run of packed (total, H, D) tensors; window already includes causal."""
    left, right = window
    call = _Call(q, k, v, None, dropout_p, scale, (left, right), alibi_slopes, softcap,
                 bottom_right, deterministic)
    name = select_backend(call.describe(varlen=True), backend)
    scale = q.shape[-1] ** -0.5 if scale is None else float(scale)
    if name == "math":
        checks.check_cu_seqlens_values(cu_seqlens_q, "cu_seqlens_q", q.shape[0], max_seqlen_q)
        checks.check_cu_seqlens_values(cu_seqlens_k, "cu_seqlens_k", k.shape[0], max_seqlen_k)
        batch = cu_seqlens_q.numel() - 1
        keep = _math_dropout_keep(call.dropout_p, (batch, q.shape[1], max_seqlen_q, max_seqlen_k),
                                  q.device)
        return attention_varlen_ref(q, k, v, cu_seqlens_q, cu_seqlens_k, window_size=(left, right),
                                    bottom_right=bottom_right, scale=scale,
                                    alibi_slopes=alibi_slopes, softcap=call.softcap,
                                    dropout_p=call.dropout_p, dropout_keep=keep,
                                    compute_dtype=None)
    seed = _dropout_seed(call.dropout_p, q.device)
    q, scale = _positive_scale(q, scale)
    if name == "mem_eff":
        return ops.mem_eff_fwd(q, k, v, None, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
                               max_seqlen_k, alibi_slopes, seed, call.dropout_p, scale, left,
                               right, bottom_right, deterministic)
    return ops.attention_varlen_fwd(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
                                    max_seqlen_k, alibi_slopes, seed, call.dropout_p, scale, left,
                                    right, bottom_right, call.softcap, deterministic)


def _check_varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, dropout_p,
                  scale, window_size, alibi_slopes, softcap, names, allow_gqa=True):
    checks.check_qkv(q, k, v, names, VARLEN_LAYOUT, heads_dim=1, allow_gqa=allow_gqa)
    checks.check_cu_seqlens(cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, q)
    return checks.check_options(q, cu_seqlens_q.numel() - 1, q.shape[1], dropout_p, scale,
                                window_size, alibi_slopes, softcap)


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
    softcap: float = 0.0,
    deterministic: bool = False,
    return_lse: bool = False,
    backend: str | None = None,
) -> Tensor | tuple[Tensor, Tensor]:
    """attention() over a batch of variable-length sequences packed along the first dim.

    query (Tq, Hq, D), key and value (Tk, Hkv, D); sequence b holds rows
    cu_seqlens_q[b]:cu_seqlens_q[b+1] of query (int32 prefix sums, batch + 1 entries) and likewise
    for keys; max_seqlen_* bound the lengths. is_causal and window_size are top-left aligned per
    sequence, as in attention(). No attn_mask. Returns out (Tq, Hq, D), and lse (Hq, Tq) with
    return_lse.
    """
    names = ("query", "key", "value")
    left, right = _check_varlen(query, key, value, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
                                max_seqlen_k, dropout_p, scale, window_size, alibi_slopes,
                                softcap, names, allow_gqa=enable_gqa)
    out, lse = _varlen(query, key, value, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k,
                       dropout_p, scale, (left, 0 if is_causal else right), alibi_slopes, softcap,
                       False, deterministic, backend)
    return (out, lse) if return_lse else out


# flash-attn 2.x compatible functions: (B, S, H, D) layout, bottom-right causal alignment,
# GQA always allowed. With return_attn_probs they return (out, softmax_lse, None): flash_ext
# does not materialize the attention probabilities.


def _flash_result(out: Tensor, lse: Tensor, return_attn_probs: bool):
    return (out, lse, None) if return_attn_probs else out


def flash_attn_func(q, k, v, dropout_p=0.0, softmax_scale=None, causal=False,
                    window_size=(-1, -1), softcap=0.0, alibi_slopes=None, deterministic=False,
                    return_attn_probs=False):
    """flash_attn.flash_attn_func: q (B, Sq, Hq, D), k and v (B, Sk, Hkv, D)."""
    checks.check_qkv(q, k, v, ("q", "k", "v"), FLASH_LAYOUT, heads_dim=2)
    qt, kt, vt = (t.transpose(1, 2) for t in (q, k, v))
    left, right = checks.check_options(q, q.shape[0], q.shape[2], dropout_p, softmax_scale,
                                       window_size, alibi_slopes, softcap)
    call = _Call(qt, kt, vt, None, dropout_p, softmax_scale, (left, 0 if causal else right),
                 alibi_slopes, softcap, True, deterministic)
    out, lse = call.run(None)
    return _flash_result(out.transpose(1, 2), lse, return_attn_probs)


def flash_attn_qkvpacked_func(qkv, dropout_p=0.0, softmax_scale=None, causal=False,
                              window_size=(-1, -1), softcap=0.0, alibi_slopes=None,
                              deterministic=False, return_attn_probs=False):
    """flash_attn.flash_attn_qkvpacked_func: qkv (B, S, 3, H, D)."""
    _check_packed(qkv, "qkv", 5, 2, 3, "(batch, seqlen, 3, heads, head_dim)")
    q, k, v = qkv.unbind(2)
    return flash_attn_func(q, k, v, dropout_p, softmax_scale, causal, window_size, softcap,
                           alibi_slopes, deterministic, return_attn_probs)


def flash_attn_kvpacked_func(q, kv, dropout_p=0.0, softmax_scale=None, causal=False,
                             window_size=(-1, -1), softcap=0.0, alibi_slopes=None,
                             deterministic=False, return_attn_probs=False):
    """flash_attn.flash_attn_kvpacked_func: q (B, Sq, Hq, D), kv (B, Sk, 2, Hkv, D)."""
    _check_packed(kv, "kv", 5, 2, 2, "(batch, seqlen, 2, heads, head_dim)")
    k, v = kv.unbind(2)
    return flash_attn_func(q, k, v, dropout_p, softmax_scale, causal, window_size, softcap,
                           alibi_slopes, deterministic, return_attn_probs)


def flash_attn_varlen_func(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k,
                           dropout_p=0.0, softmax_scale=None, causal=False, window_size=(-1, -1),
                           softcap=0.0, alibi_slopes=None, deterministic=False,
                           return_attn_probs=False, block_table=None):
    """flash_attn.flash_attn_varlen_func: q (Tq, Hq, D), k and v (Tk, Hkv, D)."""
    if block_table is not None:
        raise NotImplementedError("block_table (paged KV cache) is not supported yet; "
                                  "pass block_table=None")
    names = ("q", "k", "v")
    left, right = _check_varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k,
                                dropout_p, softmax_scale, window_size, alibi_slopes, softcap,
                                names)
    out, lse = _varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k,
                       dropout_p, softmax_scale, (left, 0 if causal else right), alibi_slopes,
                       softcap, True, deterministic, None)
    return _flash_result(out, lse, return_attn_probs)


def flash_attn_varlen_qkvpacked_func(qkv, cu_seqlens, max_seqlen, dropout_p=0.0,
                                     softmax_scale=None, causal=False, window_size=(-1, -1),
                                     softcap=0.0, alibi_slopes=None, deterministic=False,
                                     return_attn_probs=False):
    """flash_attn.flash_attn_varlen_qkvpacked_func: qkv (T, 3, H, D)."""
    _check_packed(qkv, "qkv", 4, 1, 3, "(total_tokens, 3, heads, head_dim)")
    q, k, v = qkv.unbind(1)
    return flash_attn_varlen_func(q, k, v, cu_seqlens, cu_seqlens, max_seqlen, max_seqlen,
                                  dropout_p, softmax_scale, causal, window_size, softcap,
                                  alibi_slopes, deterministic, return_attn_probs)


def flash_attn_varlen_kvpacked_func(q, kv, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
                                    max_seqlen_k, dropout_p=0.0, softmax_scale=None, causal=False,
                                    window_size=(-1, -1), softcap=0.0, alibi_slopes=None,
                                    deterministic=False, return_attn_probs=False):
    """flash_attn.flash_attn_varlen_kvpacked_func: q (Tq, Hq, D), kv (Tk, 2, Hkv, D)."""
    _check_packed(kv, "kv", 4, 1, 2, "(total_tokens, 2, heads, head_dim)")
    k, v = kv.unbind(1)
    return flash_attn_varlen_func(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
                                  max_seqlen_k, dropout_p, softmax_scale, causal, window_size,
                                  softcap, alibi_slopes, deterministic, return_attn_probs)


def _check_packed(t, name: str, rank: int, dim: int, count: int, layout: str) -> None:
    if not isinstance(t, Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    if t.dim() != rank or t.shape[dim] != count:
        raise ValueError(f"{name} must have shape {layout}, got {tuple(t.shape)}")
