"""flex_attention in plain PyTorch, for tests: the (Sq, Sk) scores are materialized.

score_mod and mask_mod run under torch.vmap over (b, h, q_idx, kv_idx), one element at a time as
FlexAttention defines them, so this shares no code with the tracing and codegen of the kernels.
Computed in `compute_dtype` (float64 for the oracle, None for the inputs' dtype).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import Tensor


def _vmap_bhqk(fn: Callable, with_score: bool) -> Callable:
    """fn over (B, 1, 1, 1), (1, H, 1, 1), (1, 1, Sq, 1) and (1, 1, 1, Sk) index grids."""
    # Innermost kv_idx, outermost b; the score's leading remaining dim is mapped at each level.
    dims = [(None, None, None, 0), (None, None, 0, None), (None, 0, None, None),
            (0, None, None, None)]
    for index_dims in dims:
        fn = torch.vmap(fn, in_dims=((0,) if with_score else ()) + index_dims)
    return fn


def dense_mask(mask_mod: Callable, batch: int, heads: int, q_len: int, kv_len: int,
               device) -> Tensor:
    """(batch, heads, q_len, kv_len) bool of mask_mod."""
    b, h, q, kv = (torch.arange(n, device=device) for n in (batch, heads, q_len, kv_len))
    return _vmap_bhqk(mask_mod, False)(b, h, q, kv).to(torch.bool)


def flex_attention_ref(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    score_mod: Callable | None = None,
    mask_mod: Callable | None = None,
    scale: float | None = None,
    compute_dtype: torch.dtype | None = torch.float64,
) -> tuple[Tensor, Tensor]:
    """(out, lse) of flex attention on (B, Hq, Sq, D) q and (B, Hkv, Sk, D/Dv) k, v.

    Rows that see no key give zeros and lse = -inf.
    """
    dtype = compute_dtype or q.dtype
    batch, heads, q_len, head_dim = q.shape
    kv_len = k.shape[2]
    if k.shape[1] != heads:
        k = k.repeat_interleave(heads // k.shape[1], dim=1)
        v = v.repeat_interleave(heads // v.shape[1], dim=1)
    q, k, v = q.to(dtype), k.to(dtype), v.to(dtype)
    scale = 1.0 / math.sqrt(head_dim) if scale is None else scale
    scores = torch.matmul(q, k.transpose(-2, -1)) * scale
    b, h, m, n = (torch.arange(size, device=q.device) for size in (batch, heads, q_len, kv_len))
    if score_mod is not None:
        scores = _vmap_bhqk(score_mod, True)(scores, b, h, m, n).to(dtype)
    if mask_mod is not None:
        visible = _vmap_bhqk(mask_mod, False)(b, h, m, n).to(torch.bool)
        scores = scores.masked_fill(~visible, float("-inf"))
    lse = torch.logsumexp(scores.to(torch.float64 if dtype == torch.float64 else torch.float32),
                          -1)
    row_max = scores.amax(-1, keepdim=True)
    row_max = torch.where(torch.isfinite(row_max), row_max, torch.zeros_like(row_max))
    probs = torch.exp(scores - row_max)
    row_sum = probs.sum(-1, keepdim=True)
    probs = probs / torch.where(row_sum > 0, row_sum, torch.ones_like(row_sum))
    out = torch.matmul(probs, v)
    return out, lse.to(torch.float64 if dtype == torch.float64 else torch.float32)
