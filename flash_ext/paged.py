"""Where a KV cache's tokens lie: dense rows or the pages of a block table, and the gather of
each sequence's tokens into the packed (total, Hkv, D) layout the varlen entry points take."""

from __future__ import annotations

import torch
from torch import Tensor


class CacheIndex:
    """Where token position p of sequence b lies in a dense (rows of k_cache) or paged
    (block_table's pages) cache."""

    def __init__(self, k_cache: Tensor, batch: int, cache_batch_idx: Tensor | None,
                 block_table: Tensor | None):
        device = k_cache.device
        self.block_table = block_table
        self.count = k_cache.shape[0]  # dense rows or pages
        if block_table is not None:
            if cache_batch_idx is not None:
                raise ValueError("cache_batch_idx is not supported with block_table (paged cache)")
            if block_table.dim() != 2 or block_table.shape[0] != batch or block_table.dtype != torch.int32:
                raise ValueError(f"block_table must be ({batch}, max_blocks_per_seq) int32, got "
                                 f"{block_table.dtype} of shape {tuple(block_table.shape)}")
            self.page = k_cache.shape[1]
            self.capacity = block_table.shape[1] * self.page
        else:
            rows = torch.arange(batch, device=device) if cache_batch_idx is None else \
                cache_batch_idx.to(device=device, dtype=torch.int64)
            if rows.shape != (batch,):
                raise ValueError(f"cache_batch_idx must have shape ({batch},), got "
                                 f"{tuple(cache_batch_idx.shape)}")
            self.rows = rows
            self.capacity = k_cache.shape[1]

    def index(self, sequence: Tensor, position: Tensor) -> tuple[Tensor, Tensor]:
        """(first index, second index) into the cache of (sequence, position) pairs; a row or
        page outside the cache is a ValueError naming the argument (on CUDA a host sync)."""
        if self.block_table is None:
            first, name = self.rows[sequence], "cache_batch_idx"
        else:
            first, name = self.block_table.to(torch.int64)[sequence, position // self.page], \
                "block_table"
            position = position % self.page
        outside = (first < 0) | (first >= self.count)
        if bool(outside.any()):
            raise ValueError(
                f"{name} holds {int(first[outside][0])}, outside the cache's "
                f"{self.count} {'rows' if self.block_table is None else 'pages'} "
                f"(k_cache.shape[0])")
        return first, position


def ranges(starts: Tensor, ends: Tensor) -> tuple[Tensor, Tensor]:
    """(sequence, position) of every position in [starts[b], ends[b]) for each b, in order."""
    lengths = (ends - starts).clamp_min(0)
    sequence = torch.repeat_interleave(torch.arange(starts.numel(), device=starts.device),
                                       lengths)
    first = torch.cumsum(lengths, 0) - lengths
    position = torch.arange(sequence.numel(), device=starts.device) - first[sequence] + \
        starts[sequence]
    return sequence, position


def gather_pages(k_cache: Tensor, v_cache: Tensor, cu_seqlens_k: Tensor,
                 block_table: Tensor) -> tuple[Tensor, Tensor]:
    """The keys and values of paged caches (num_blocks, page_size, Hkv, D), sequence b's first
    cu_seqlens_k[b + 1] - cu_seqlens_k[b] tokens in the pages block_table[b], packed as
    (total_k, Hkv, D): what flash_attn_varlen_func takes with block_table."""
    if k_cache.dim() != 4 or k_cache.shape != v_cache.shape:
        raise ValueError(f"with block_table, k and v must be paged caches (num_blocks, page_size, "
                         f"heads, head_dim) of one shape, got {tuple(k_cache.shape)} and "
                         f"{tuple(v_cache.shape)}")
    batch = cu_seqlens_k.numel() - 1
    cache = CacheIndex(k_cache, batch, None, block_table)
    cu = cu_seqlens_k.to(device=k_cache.device, dtype=torch.int64)
    lengths = cu[1:] - cu[:-1]
    if batch and int(lengths.max()) > cache.capacity:
        raise ValueError(f"cu_seqlens_k has a sequence of {int(lengths.max())} tokens, more than "
                         f"the {cache.capacity} that block_table's pages hold")
    where = cache.index(*ranges(torch.zeros_like(lengths), lengths))
    return k_cache[where], v_cache[where]
