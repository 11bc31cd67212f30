"""flash_ext.attention's features as flex mods: what backend="flex" runs.

Scores as in reference.py: scale * q.k, softcap, + ALiBi, + additive mask (a score_mod); then
the boolean mask and the window (causal included) hide keys (a mask_mod, whose block mask is
cached when it depends on no tensor). Learnable sinks rescale flex's (out, lse) as the kernel
backends do (csrc/api/autograd.h), through autograd: flex's lse is differentiable, so the
gradients are exact without a node of their own.
"""

from __future__ import annotations

import torch
from torch import Tensor

from flash_ext.flex.attention import flex_attention
from flash_ext.flex.block_mask import BlockMask, create_block_mask

_window_masks: dict[tuple, BlockMask] = {}


def _score_mod(softcap: float, alibi_slopes: Tensor | None, bias: Tensor | None, offset: int):
    if not softcap and alibi_slopes is None and bias is None:
        return None
    per_batch = alibi_slopes is not None and alibi_slopes.dim() == 2

    def sdpa_score(score, b, h, q_idx, kv_idx):
        if softcap:
            score = softcap * torch.tanh(score / softcap)
        if alibi_slopes is not None:
            slope = alibi_slopes[b, h] if per_batch else alibi_slopes[h]
            score = score - slope * (q_idx + offset - kv_idx).abs()
        if bias is not None:
            score = score + bias[b, h, q_idx, kv_idx]
        return score

    return sdpa_score


def _mask_mod(window: tuple[int, int], keep: Tensor | None, offset: int):
    left, right = window
    if left < 0 and right < 0 and keep is None:
        return None

    def sdpa_mask(b, h, q_idx, kv_idx):
        visible = kv_idx >= 0
        if right >= 0:
            visible = visible & (kv_idx <= q_idx + offset + right)
        if left >= 0:
            visible = visible & (kv_idx >= q_idx + offset - left)
        if keep is not None:
            visible = visible & keep[b, h, q_idx, kv_idx]
        return visible

    return sdpa_mask


def attention(q: Tensor, k: Tensor, v: Tensor, attn_mask: Tensor | None = None,
              window: tuple[int, int] = (-1, -1), bottom_right: bool = False,
              scale: float | None = None, alibi_slopes: Tensor | None = None,
              softcap: float = 0.0, sinks: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """(out, lse) of flash_ext.attention's semantics on (B, Hq, S, D) inputs, validated before.

    window already includes causal (right = 0); attn_mask is bool (True = attend) or additive,
    broadcastable to (B, Hq, Sq, Sk); sinks (Hq,), lse then including them.
    """
    batch, heads, q_len = q.shape[:3]
    kv_len = k.shape[2]
    offset = kv_len - q_len if bottom_right else 0
    # A (B, H, Sq, Sk) view: broadcast dims get stride 0, which the generated loads keep.
    full = None if attn_mask is None else attn_mask.expand(batch, heads, q_len, kv_len)
    bias = full if full is not None and full.dtype != torch.bool else None
    keep = full if full is not None and full.dtype == torch.bool else None
    score_mod = _score_mod(float(softcap), alibi_slopes, bias, offset)
    mask_mod = _mask_mod(tuple(window), keep, offset)
    block_mask = None
    if mask_mod is not None:
        key = (tuple(window), offset, q_len, kv_len, q.device)
        if keep is None and key in _window_masks:
            block_mask = _window_masks[key]
        else:
            # Per batch element or head only where the mask varies along it.
            mask_batch = batch if keep is not None and keep.stride(0) else None
            mask_heads = heads if keep is not None and keep.stride(1) else None
            block_mask = create_block_mask(mask_mod, mask_batch, mask_heads, q_len, kv_len,
                                           q.device)
            if keep is None:
                _window_masks[key] = block_mask
    out, lse = flex_attention(q, k, v, score_mod=score_mod, block_mask=block_mask, scale=scale,
                              enable_gqa=q.shape[1] != k.shape[1], return_lse=True)
    if sinks is None:
        return out, lse
    lse_sinks = torch.logaddexp(lse, sinks.float()[:, None])
    return (out * torch.exp(lse - lse_sinks)[..., None]).to(out.dtype), lse_sinks
