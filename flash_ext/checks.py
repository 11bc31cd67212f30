"""Validation of user input for every entry point, with errors that name the argument, the value
given and what is accepted. The ops in csrc/api check again, for direct op calls."""

from __future__ import annotations

import math
from numbers import Real

import torch
from torch import Tensor

_DTYPES = "float16, bfloat16, float32 (float64 with backend='math')"


def _tensor(name: str, value, rank: int, layout: str) -> Tensor:
    if not isinstance(value, Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(value).__name__}")
    if value.dim() != rank:
        raise ValueError(f"{name} must have rank {rank} {layout}, got shape {tuple(value.shape)}")
    if not value.is_floating_point():
        raise TypeError(f"{name} has dtype {value.dtype}; accepted: {_DTYPES}")
    return value


def check_qkv(q: Tensor, k: Tensor, v: Tensor, names: tuple[str, str, str], layout: str,
              heads_dim: int, allow_gqa: bool = True) -> None:
    """Ranks, dtypes, devices and matching sizes of q, k, v given in `layout`."""
    rank = layout.count(",") + 1
    for name, t in zip(names, (q, k, v)):
        _tensor(name, t, rank, layout)
    qn, kn, vn = names
    for name, t in ((kn, k), (vn, v)):
        if t.dtype != q.dtype:
            raise TypeError(f"{name} has dtype {t.dtype} but {qn} has {q.dtype}; they must match")
        if t.device != q.device:
            raise ValueError(f"{name} is on {t.device} but {qn} is on {q.device}; "
                             "they must be on one device")
    if k.shape != v.shape:
        raise ValueError(f"{kn} and {vn} must have the same shape, got {tuple(k.shape)} and "
                         f"{tuple(v.shape)}")
    if q.shape[-1] == 0 and q.numel() > 0:
        raise ValueError(f"head_dim must be positive, got {qn} of shape {tuple(q.shape)}")
    if k.shape[-1] != q.shape[-1]:
        raise ValueError(f"head_dim of {kn} ({k.shape[-1]}) differs from {qn}'s "
                         f"({q.shape[-1]}); they must match")
    if rank == 4 and k.shape[0] != q.shape[0]:
        raise ValueError(f"batch of {kn} ({k.shape[0]}) differs from {qn}'s ({q.shape[0]})")
    heads_q, heads_kv = q.shape[heads_dim], k.shape[heads_dim]
    if heads_kv == 0 or heads_q % heads_kv:
        raise ValueError(f"{qn} has {heads_q} heads, not a multiple of the {heads_kv} heads of "
                         f"{kn} and {vn} (GQA/MQA needs heads_q % heads_kv == 0)")
    if heads_q != heads_kv and not allow_gqa:
        raise ValueError(f"{kn} has {heads_kv} heads but {qn} has {heads_q}: pass "
                         f"enable_gqa=True to share each key/value head across "
                         f"{heads_q // heads_kv} query heads")


def check_attn_mask(attn_mask, q: Tensor, seqlen_k: int) -> None:
    """attn_mask broadcastable to (batch, heads, seqlen_q, seqlen_k): bool or float."""
    if attn_mask is None:
        return
    if not isinstance(attn_mask, Tensor):
        raise TypeError(f"attn_mask must be a torch.Tensor or None, got {type(attn_mask).__name__}")
    if attn_mask.dtype != torch.bool and attn_mask.dtype not in (q.dtype, torch.float32):
        raise TypeError(f"attn_mask has dtype {attn_mask.dtype}; accepted: torch.bool (True = "
                        f"attend) or an additive float mask of the query's dtype ({q.dtype}) "
                        "or float32")
    if attn_mask.device != q.device:
        raise ValueError(f"attn_mask is on {attn_mask.device} but query is on {q.device}")
    full = (q.shape[0], q.shape[1], q.shape[2], seqlen_k)
    shape = tuple(attn_mask.shape)
    if len(shape) > 4 or any(s not in (1, f) for s, f in zip(shape[::-1], full[::-1])):
        raise ValueError(f"attn_mask of shape {shape} does not broadcast to (batch, heads, "
                         f"seqlen_q, seqlen_k) = {full}")


def check_options(q: Tensor, batch: int, heads_q: int, dropout_p, scale, window_size,
                  alibi_slopes, softcap) -> tuple[int, int]:
    """Checks the scalar options; returns window_size as a tuple of two ints."""
    if not isinstance(dropout_p, Real) or not 0.0 <= float(dropout_p) < 1.0:
        raise ValueError(f"dropout_p must be a number in [0, 1), got {dropout_p!r}")
    if scale is not None and (not isinstance(scale, Real) or not math.isfinite(scale)):
        raise ValueError(f"scale must be None or a finite number, got {scale!r}")
    if not isinstance(softcap, Real) or not math.isfinite(softcap) or softcap < 0:
        raise ValueError(f"softcap must be a finite number >= 0 (0 disables it), got {softcap!r}")
    try:
        left, right = window_size
    except (TypeError, ValueError):
        raise ValueError(f"window_size must be a pair (left, right), got {window_size!r}") from None
    for side, w in (("left", left), ("right", right)):
        if not isinstance(w, int) or isinstance(w, bool) or w < -1:
            raise ValueError(f"window_size {side} must be an int >= 0, or -1 for unbounded, "
                             f"got {w!r} in window_size={tuple(window_size)!r}")
    if alibi_slopes is not None:
        if not isinstance(alibi_slopes, Tensor):
            raise TypeError("alibi_slopes must be a torch.Tensor or None, got "
                            f"{type(alibi_slopes).__name__}")
        if alibi_slopes.dtype != torch.float32:
            raise TypeError(f"alibi_slopes must be float32, got {alibi_slopes.dtype}")
        if alibi_slopes.device != q.device:
            raise ValueError(f"alibi_slopes is on {alibi_slopes.device} but query is on "
                             f"{q.device}")
        if tuple(alibi_slopes.shape) not in ((heads_q,), (batch, heads_q)):
            raise ValueError(f"alibi_slopes must have shape ({heads_q},) or ({batch}, {heads_q}),"
                             f" got {tuple(alibi_slopes.shape)}")
    return left, right


def check_cu_seqlens(cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, q: Tensor) -> None:
    """Types, shapes and devices of the varlen arguments (their values are checked by the ops)."""
    for name, cu in (("cu_seqlens_q", cu_seqlens_q), ("cu_seqlens_k", cu_seqlens_k)):
        if not isinstance(cu, Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(cu).__name__}")
        if cu.dtype != torch.int32 or cu.dim() != 1 or cu.numel() < 1:
            raise ValueError(f"{name} must be a 1-D int32 tensor of batch + 1 offsets, got "
                             f"{cu.dtype} of shape {tuple(cu.shape)}")
        if cu.device != q.device:
            raise ValueError(f"{name} is on {cu.device} but q is on {q.device}")
    if cu_seqlens_q.numel() != cu_seqlens_k.numel():
        raise ValueError(f"cu_seqlens_q has {cu_seqlens_q.numel()} entries and cu_seqlens_k "
                         f"{cu_seqlens_k.numel()}; both must be batch + 1")
    for name, m in (("max_seqlen_q", max_seqlen_q), ("max_seqlen_k", max_seqlen_k)):
        if not isinstance(m, int) or isinstance(m, bool) or m < 0:
            raise ValueError(f"{name} must be an int >= 0, got {m!r}")


def check_cu_seqlens_values(cu: Tensor, name: str, total: int, max_seqlen: int) -> None:
    """The values the ops check in C++, for the math backend (reads them: syncs on a GPU)."""
    values = cu.tolist()
    lengths = [b - a for a, b in zip(values, values[1:])]
    if values[0] != 0 or values[-1] != total or min(lengths, default=0) < 0:
        raise ValueError(f"{name} must start at 0, be non-decreasing and end at the packed total "
                         f"{total}, got {values}")
    if max(lengths, default=0) > max_seqlen:
        raise ValueError(f"{name} has a sequence of length {max(lengths)}, more than its "
                         f"max_seqlen {max_seqlen}")
