"""flash_ext.flex_attention: torch.nn.attention.flex_attention's function on flash_ext's kernels."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import Tensor

from flash_ext.flex import build
from flash_ext.flex.block_mask import BlockMask, as_block_mask, create_block_mask
from flash_ext.flex.configs import as_list, choose, padded_head_dim
from flash_ext.flex.ops import FlexFunction, flex_fwd, needs_custom_op
from flash_ext.flex.prepare import prepare

_DTYPES = (torch.float16, torch.bfloat16, torch.float32)
_full_masks: dict[tuple, BlockMask] = {}


def _check(query: Tensor, key: Tensor, value: Tensor, enable_gqa: bool) -> None:
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dim() != 4:
            raise ValueError(f"{name} must have rank 4 (batch, heads, seqlen, head_dim), got "
                             f"shape {tuple(t.shape)}")
        if t.dtype not in _DTYPES:
            raise TypeError(f"{name} has dtype {t.dtype}; accepted: float16, bfloat16, float32")
        if t.dtype != query.dtype or t.device != query.device:
            raise ValueError(f"{name} is {t.dtype} on {t.device} but query is {query.dtype} on "
                             f"{query.device}; they must match")
    if key.shape[:3] != value.shape[:3]:
        raise ValueError(f"key {tuple(key.shape)} and value {tuple(value.shape)} must agree in "
                         "batch, heads and seqlen")
    if key.shape[0] != query.shape[0]:
        raise ValueError(f"batch of key ({key.shape[0]}) differs from query's ({query.shape[0]})")
    if key.shape[3] != query.shape[3]:
        raise ValueError(f"head_dim of key ({key.shape[3]}) differs from query's "
                         f"({query.shape[3]})")
    for name, t in (("query", query), ("value", value)):
        if t.shape[3] > 256:
            raise ValueError(f"{name} head_dim {t.shape[3]} is not supported (<= 256)")
    heads, kv_heads = query.shape[1], key.shape[1]
    if heads != kv_heads:
        if not enable_gqa:
            raise ValueError(f"query has {heads} heads and key/value {kv_heads}: pass "
                             "enable_gqa=True to share key/value heads (GQA)")
        if kv_heads == 0 or heads % kv_heads:
            raise ValueError(f"query heads ({heads}) must be a multiple of key/value heads "
                             f"({kv_heads}) for GQA")


def _full_block_mask(q_len: int, kv_len: int, device: torch.device) -> BlockMask:
    if torch.compiler.is_compiling():  # a few ops in the graph; a cache would specialize lengths
        return create_block_mask(None, 1, 1, q_len, kv_len, device)
    key = (q_len, kv_len, device)
    if key not in _full_masks:
        _full_masks[key] = create_block_mask(None, 1, 1, q_len, kv_len, device)
    return _full_masks[key]


def _check_block_mask(block_mask: BlockMask, batch: int, heads: int, q_len: int,
                      kv_len: int, device: torch.device) -> None:
    if block_mask.seq_lengths != (q_len, kv_len):
        raise ValueError(f"block_mask was made for Q_LEN, KV_LEN = {block_mask.seq_lengths} but "
                         f"query and key have {q_len} and {kv_len} positions")
    mask_batch, mask_heads = block_mask.kv_num_blocks.shape[:2]
    if mask_batch not in (1, batch) or mask_heads not in (1, heads):
        raise ValueError(f"block_mask has B={mask_batch}, H={mask_heads}; the query has "
                         f"batch {batch} and {heads} heads (B and H must match them or be 1)")
    if block_mask.device != device:
        raise ValueError(f"block_mask is on {block_mask.device} but query is on {device}; "
                         "use block_mask.to(device)")


def flex_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    score_mod: Callable | None = None,
    block_mask: BlockMask | None = None,
    scale: float | None = None,
    enable_gqa: bool = False,
    return_lse: bool = False,
    *,
    kernel_options: dict | None = None,
) -> Tensor | tuple[Tensor, Tensor]:
    """Attention with a user score modification and a block-sparse mask.

    query (B, Hq, Sq, D), key (B, Hkv, Sk, D), value (B, Hkv, Sk, Dv), any strides, float16,
    bfloat16 or float32, D and Dv <= 256. score_mod(score, b, h, q_idx, kv_idx) -> new score,
    applied to scale * q.k (0-d tensors; may read tensors it captures); block_mask from
    create_block_mask (or torch's); enable_gqa lets Hkv divide Hq. Returns out (B, Hq, Sq, Dv),
    and with return_lse (out, lse), lse (B, Hq, Sq) float32; a row that sees no key gives zeros
    and lse = -inf. Differentiable in query, key, value (and through lse).
    kernel_options: tile overrides (see flash_ext/flex/configs.py).
    """
    _check(query, key, value, enable_gqa)
    build.check_device(query.device)
    batch, heads, q_len, head_dim = query.shape
    kv_len = key.shape[2]
    scale = 1.0 / math.sqrt(head_dim) if scale is None else float(scale)
    device = query.device
    if block_mask is None:
        block_mask = _full_block_mask(max(q_len, 1), max(kv_len, 1), device)
    else:
        block_mask = as_block_mask(block_mask)
        _check_block_mask(block_mask, batch, heads, q_len, kv_len, device)
    if query.numel() == 0 or kv_len == 0 or value.shape[3] == 0:
        out = query.new_zeros((batch, heads, q_len, value.shape[3]))
        lse = torch.full((batch, heads, q_len), float("-inf"), device=device)
        out = out + 0 * (query.sum() + key.sum() + value.sum())  # keeps the autograd graph
        return (out, lse) if return_lse else out

    kernel_id, buffers = prepare(score_mod, block_mask.mask_mod, device)
    # The configs depend on the head dims only through their padded size (a plain int).
    fwd_config, bwd_config = _configs(device, query.dtype,
                                      padded_head_dim(max(head_dim, value.shape[3])),
                                      block_mask.BLOCK_SIZE, kernel_options)
    args = (query, key, value,
            block_mask.kv_num_blocks, block_mask.kv_indices, block_mask.full_kv_num_blocks,
            block_mask.full_kv_indices, block_mask.q_num_blocks, block_mask.q_indices,
            block_mask.full_q_num_blocks, block_mask.full_q_indices,
            buffers, kernel_id, scale, list(block_mask.BLOCK_SIZE), score_mod is not None,
            fwd_config, bwd_config)
    if needs_custom_op(query, key, value, *buffers):
        out, lse = flex_fwd(*args)
    else:
        out, lse = FlexFunction.apply(*args)
    return (out, lse) if return_lse else out


@torch.compiler.assume_constant_result  # under torch.compile: a constant of the graph
def _configs(device: torch.device, dtype: torch.dtype, head_dim: int, block_size: tuple[int, int],
             kernel_options: dict | None) -> tuple[list[int], list[int]]:
    """The forward and backward tile configs, as the ops take them."""
    fwd_config, bwd_config = choose(device, dtype, head_dim, *block_size, kernel_options)
    return as_list(fwd_config), as_list(bwd_config)
