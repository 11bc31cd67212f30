"""Plain PyTorch attention with every flash_ext feature: the oracle for tests and backend="math".

It materializes the (Sq, Sk) score matrix, so it is for checking and small inputs. Tests run it in
float64 (`compute_dtype=torch.float64`) and in the input dtype, and accept a backend when
|out - ref64| <= 2 * |ref_lowp - ref64| + eps (DESIGN.md).
"""

from __future__ import annotations

import math

import torch
from torch import Tensor


def visible_keys(
    seqlen_q: int,
    seqlen_k: int,
    window_size: tuple[int, int] = (-1, -1),
    bottom_right: bool = False,
    device: torch.device | str | None = None,
) -> Tensor:
    """Boolean (Sq, Sk): key j is visible from query i within the window around the diagonal.

    The diagonal is col = row + offset with offset 0 (top-left, SDPA) or Sk - Sq (bottom-right,
    flash-attn). Causal is window_size = (left, 0).
    """
    left, right = window_size
    offset = seqlen_k - seqlen_q if bottom_right else 0
    row = torch.arange(seqlen_q, device=device).unsqueeze(1)
    col = torch.arange(seqlen_k, device=device).unsqueeze(0)
    visible = torch.ones(seqlen_q, seqlen_k, dtype=torch.bool, device=device)
    if right >= 0:
        visible &= col <= row + offset + right
    if left >= 0:
        visible &= col >= row + offset - left
    return visible


def alibi_bias(
    slopes: Tensor, seqlen_q: int, seqlen_k: int, bottom_right: bool = False
) -> Tensor:
    """-slope * |i + offset - j| as (B or 1, H, Sq, Sk) in float64, for slopes (H,) or (B, H)."""
    offset = seqlen_k - seqlen_q if bottom_right else 0
    row = torch.arange(seqlen_q, device=slopes.device).unsqueeze(1)
    col = torch.arange(seqlen_k, device=slopes.device).unsqueeze(0)
    distance = (row + offset - col).abs().to(torch.float64)
    slopes = slopes.to(torch.float64)
    if slopes.dim() == 1:
        slopes = slopes.unsqueeze(0)
    return -slopes[:, :, None, None] * distance


def attention_scores(
    q: Tensor,
    k: Tensor,
    *,
    attn_mask: Tensor | None = None,
    is_causal: bool = False,
    window_size: tuple[int, int] = (-1, -1),
    bottom_right: bool = False,
    scale: float | None = None,
    alibi_slopes: Tensor | None = None,
    softcap: float = 0.0,
    compute_dtype: torch.dtype | None = torch.float64,
) -> Tensor:
    """The scores (B, Hq, Sq, Sk) of (B, Hq, Sq, D) q and (B, Hkv, Sk, D) k in `compute_dtype`
    (None: q's dtype), in order: scale * q.k, softcap, + ALiBi, + additive mask; then boolean
    mask, causal and window hide keys (-inf)."""
    dtype = compute_dtype or q.dtype
    seqlen_q, head_dim = q.shape[2:]
    heads_q, heads_kv, seqlen_k = q.shape[1], k.shape[1], k.shape[2]
    if heads_q != heads_kv:
        k = k.repeat_interleave(heads_q // heads_kv, dim=1)
    q, k = q.to(dtype), k.to(dtype)
    scale = 1.0 / math.sqrt(head_dim) if scale is None else scale

    scores = torch.matmul(q, k.transpose(-2, -1)) * scale
    if softcap > 0:
        scores = softcap * torch.tanh(scores / softcap)
    if alibi_slopes is not None:
        scores = scores + alibi_bias(alibi_slopes, seqlen_q, seqlen_k, bottom_right).to(dtype)
    if is_causal:
        window_size = (window_size[0], 0)
    visible = visible_keys(seqlen_q, seqlen_k, window_size, bottom_right, q.device)
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            visible = visible & attn_mask
        else:
            scores = scores + attn_mask.to(dtype)
    return scores.masked_fill(~visible, float("-inf"))


def _no_key_output(q: Tensor, v: Tensor, dtype: torch.dtype) -> Tensor:
    """The output of rows that see no key: q * 0 (zeros, NaN where q holds NaN or Inf, and a
    zero gradient for q), with v's head dim."""
    if v.shape[-1] == q.shape[-1]:
        return q.to(dtype) * 0
    return (q.to(dtype).sum(-1, keepdim=True) * 0).expand(*q.shape[:-1], v.shape[-1])


def attention_ref(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    *,
    attn_mask: Tensor | None = None,
    is_causal: bool = False,
    window_size: tuple[int, int] = (-1, -1),
    bottom_right: bool = False,
    scale: float | None = None,
    alibi_slopes: Tensor | None = None,
    sinks: Tensor | None = None,
    softcap: float = 0.0,
    dropout_p: float = 0.0,
    dropout_keep: Tensor | None = None,
    compute_dtype: torch.dtype | None = torch.float64,
) -> tuple[Tensor, Tensor]:
    """Attention on (B, Hq, Sq, D) q and (B, Hkv, Sk, D) k, v; returns (out, lse).

    out has q's shape in `compute_dtype` (None: q's dtype); lse is (B, Hq, Sq) float32/64, -inf
    for rows that see no key, whose output is zero. The scores are attention_scores's.
    `sinks` (Hq,): gpt-oss's eager formula, the head's sink logit appended to each row of scores
    as one more column, the softmax taken, that column dropped; lse includes it.
    `dropout_keep` is the boolean keep-mask (B, Hq, Sq, Sk) to apply, kept values scaled by
    1 / (1 - dropout_p).
    """
    dtype = compute_dtype or q.dtype
    heads_q, heads_kv = q.shape[1], k.shape[1]
    if k.shape[2] == 0:  # no keys: every row sees none (lse: -inf, or the sink)
        lse_dtype = torch.float64 if dtype == torch.float64 else torch.float32
        lse = torch.full(q.shape[:3], float("-inf"), dtype=lse_dtype, device=q.device)
        if sinks is not None:
            lse = sinks.to(lse_dtype).view(1, -1, 1).expand_as(lse)
        return _no_key_output(q, v, dtype), lse
    scores = attention_scores(q, k, attn_mask=attn_mask, is_causal=is_causal,
                              window_size=window_size, bottom_right=bottom_right, scale=scale,
                              alibi_slopes=alibi_slopes, softcap=softcap, compute_dtype=dtype)
    if heads_q != heads_kv:
        v = v.repeat_interleave(heads_q // heads_kv, dim=1)
    v = v.to(dtype)
    seqlen_k = scores.shape[-1]
    if sinks is not None:
        sink_column = sinks.to(dtype).view(1, -1, 1, 1).expand(*scores.shape[:3], 1)
        scores = torch.cat([scores, sink_column], -1)

    # Rows that see no key: lse = -inf, with a zero gradient (logsumexp's is NaN there).
    no_key = (scores == float("-inf")).all(-1, keepdim=True)
    lse_scores = scores.to(torch.float64) if dtype == torch.float64 else scores.float()
    lse = torch.logsumexp(lse_scores.masked_fill(no_key, 0), -1).masked_fill(no_key[..., 0],
                                                                             float("-inf"))
    row_max = scores.amax(-1, keepdim=True)
    row_max = torch.where(torch.isfinite(row_max), row_max, torch.zeros_like(row_max))
    probs = torch.exp(scores - row_max)
    row_sum = probs.sum(-1, keepdim=True)
    # Rows that see no key have probs == 0; dividing by 1 keeps them (and their gradient) zero.
    probs = probs / torch.where(row_sum > 0, row_sum, torch.ones_like(row_sum))
    probs = probs[..., :seqlen_k]  # the sink's probability dropped
    if dropout_p > 0:
        if dropout_keep is None:
            raise ValueError("attention_ref: dropout_p > 0 needs the dropout_keep mask to replay")
        probs = probs * dropout_keep.to(dtype) / (1.0 - dropout_p)
    out = torch.matmul(probs, v)
    return out, lse.to(torch.float64 if dtype == torch.float64 else torch.float32)


def attention_varlen_ref(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    cu_seqlens_q: Tensor,
    cu_seqlens_k: Tensor,
    *,
    alibi_slopes: Tensor | None = None,
    sinks: Tensor | None = None,
    dropout_keep: Tensor | None = None,
    **kwargs,
) -> tuple[Tensor, Tensor]:
    """attention_ref per sequence of packed (total, H, D) tensors; returns (out, lse (H, total_q)).

    `alibi_slopes` may be (H,) or (B, H); `dropout_keep` is (B, Hq, max_sq, max_sk), sequence b
    using its top-left (sq_b, sk_b) corner.
    """
    # Starts with an empty (0-token) piece, for a batch of no sequences.
    out, lse = attention_ref(*(t[:0].transpose(0, 1).unsqueeze(0) for t in (q, k, v)), **kwargs)
    outs, lses = [out[0].transpose(0, 1)], [lse[0]]
    for b in range(cu_seqlens_q.numel() - 1):
        q0, q1 = int(cu_seqlens_q[b]), int(cu_seqlens_q[b + 1])
        k0, k1 = int(cu_seqlens_k[b]), int(cu_seqlens_k[b + 1])
        qb, kb, vb = (t.transpose(0, 1).unsqueeze(0) for t in (q[q0:q1], k[k0:k1], v[k0:k1]))
        if q1 == q0 or k1 == k0:  # no queries, or no keys: zeros, lse = -inf or the sink
            outs.append(_no_key_output(q[q0:q1], v, kwargs.get("compute_dtype") or q.dtype))
            lse = torch.full((q.shape[1], q1 - q0), float("-inf"), device=q.device)
            lses.append(lse if sinks is None else sinks[:, None].to(lse.dtype).expand_as(lse))
            continue
        slopes = alibi_slopes
        if slopes is not None and slopes.dim() == 2:
            slopes = slopes[b : b + 1]
        keep = None if dropout_keep is None else dropout_keep[b : b + 1, :, : q1 - q0, : k1 - k0]
        out, lse = attention_ref(qb, kb, vb, alibi_slopes=slopes, sinks=sinks, dropout_keep=keep,
                                 **kwargs)
        outs.append(out[0].transpose(0, 1))
        lses.append(lse[0])
    return torch.cat(outs, 0), torch.cat(lses, -1)
