"""Rotary position embeddings (RoPE) on q or k, in plain PyTorch (flash_attn.layers.rotary's).

apply_rotary_emb rotates the first rotary_dim features of each head by the angles whose cosines
and sines are given per position: non-interleaved (GPT-NeoX: feature i pairs with feature
i + rotary_dim / 2) or interleaved (GPT-J: features 2i and 2i + 1). Computed in float32,
returned in x's dtype; differentiable.
"""

from __future__ import annotations

import torch
from torch import Tensor


def _positions(x: Tensor, seqlen_offsets: int | Tensor, cu_seqlens: Tensor | None,
               max_seqlen: int | None) -> Tensor:
    """The position of every token: (batch, seqlen), or (total,) for packed x."""
    device = x.device
    if cu_seqlens is None:
        batch, seqlen = x.shape[:2]
        pos = torch.arange(seqlen, device=device).expand(batch, seqlen)
        if isinstance(seqlen_offsets, Tensor):
            return pos + seqlen_offsets.to(device=device, dtype=torch.int64)[:, None]
        return pos + seqlen_offsets
    if max_seqlen is None:
        raise ValueError("apply_rotary_emb with cu_seqlens needs max_seqlen")
    cu = cu_seqlens.to(device=device, dtype=torch.int64)
    lengths = cu[1:] - cu[:-1]
    sequence = torch.repeat_interleave(torch.arange(lengths.numel(), device=device), lengths,
                                       output_size=x.shape[0])
    pos = torch.arange(x.shape[0], device=device) - cu[sequence]
    if isinstance(seqlen_offsets, Tensor):
        return pos + seqlen_offsets.to(device=device, dtype=torch.int64)[sequence]
    return pos + seqlen_offsets


def apply_rotary_emb(x: Tensor, cos: Tensor, sin: Tensor, interleaved: bool = False,
                     inplace: bool = False, seqlen_offsets: int | Tensor = 0,
                     cu_seqlens: Tensor | None = None, max_seqlen: int | None = None) -> Tensor:
    """x (batch, seqlen, heads, head_dim), or (total, heads, head_dim) with cu_seqlens (int32,
    batch + 1) and max_seqlen; cos, sin (seqlen_rotary, rotary_dim / 2) with rotary_dim <=
    head_dim. Token s of sequence b sits at position s + seqlen_offsets (an int, or a (batch,)
    tensor: decoding with a KV cache). Features past rotary_dim pass through. inplace writes the
    result into x and returns it."""
    if cos.shape != sin.shape or cos.dim() != 2:
        raise ValueError(f"cos and sin must both be (seqlen_rotary, rotary_dim / 2), got "
                         f"{tuple(cos.shape)} and {tuple(sin.shape)}")
    half = cos.shape[1]
    rotary_dim = 2 * half
    if rotary_dim > x.shape[-1]:
        raise ValueError(f"rotary_dim {rotary_dim} (2 * cos.shape[1]) exceeds x's head_dim "
                         f"{x.shape[-1]}")
    pos = _positions(x, seqlen_offsets, cu_seqlens, max_seqlen)
    if pos.numel() and int(pos.max()) >= cos.shape[0]:
        raise ValueError(f"positions up to {int(pos.max())} need cos and sin of at least "
                         f"{int(pos.max()) + 1} rows, got {cos.shape[0]}")
    # (..., 1, half): one angle per position and pair, shared by the heads.
    c = cos.float()[pos].unsqueeze(-2)
    s = sin.float()[pos].unsqueeze(-2)
    rot = x[..., :rotary_dim].float()
    if interleaved:
        x1, x2 = rot[..., 0::2], rot[..., 1::2]
        rotated = torch.stack((x1 * c - x2 * s, x1 * s + x2 * c), dim=-1).flatten(-2)
    else:
        x1, x2 = rot[..., :half], rot[..., half:]
        rotated = torch.cat((x1 * c - x2 * s, x1 * s + x2 * c), dim=-1)
    rotated = rotated.to(x.dtype)
    if inplace:
        x[..., :rotary_dim] = rotated
        return x
    return torch.cat((rotated, x[..., rotary_dim:]), dim=-1)
