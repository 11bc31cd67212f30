"""How a sequence is split over the ranks of a context-parallel group.

"contiguous": rank r holds rows [r * S / W, (r + 1) * S / W) of a sequence of S rows over W ranks.
"zigzag": the sequence is cut into 2W equal chunks and rank r holds chunks r and 2W - 1 - r, so
that under a causal mask every rank has the same work (a rank's early chunk sees few keys, its
late chunk many).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.distributed as dist
from torch import Tensor

LAYOUTS = ("contiguous", "zigzag")


@dataclass(frozen=True)
class Segment:
    """Rows [start, start + length) of the global sequence, held at rows [offset, offset +
    length) of a rank's shard."""

    start: int
    length: int
    offset: int


def check_layout(layout: str) -> None:
    if layout not in LAYOUTS:
        raise ValueError(f"layout={layout!r}: accepted values are {', '.join(map(repr, LAYOUTS))}")


def segments(layout: str, rank: int, world: int, local_len: int) -> list[Segment]:
    """The global rows of rank `rank`'s shard of `local_len` rows."""
    if layout == "contiguous":
        return [Segment(rank * local_len, local_len, 0)]
    half = local_len // 2
    return [Segment(rank * half, half, 0), Segment((2 * world - 1 - rank) * half, half, half)]


def group_size_rank(group: dist.ProcessGroup | None) -> tuple[int, int]:
    """The group's size and this process's rank in it, or a clear error before
    init_process_group."""
    if not dist.is_available() or not dist.is_initialized():
        raise RuntimeError("flash_ext.distributed: torch.distributed is not initialized; call "
                           "torch.distributed.init_process_group first")
    return dist.get_world_size(group), dist.get_rank(group)


def _check_divisible(length: int, parts: int, layout: str, dim: int) -> None:
    if length % parts:
        raise ValueError(f"dim {dim} has {length} rows: the {layout} layout over this group "
                         f"needs a multiple of {parts}")


def shard(x: Tensor, group: dist.ProcessGroup | None = None, layout: str = "contiguous",
          dim: int = 2) -> Tensor:
    """This rank's shard of the full sequence `x` (the same on every rank) along `dim` (2: the
    sequence dim of (B, H, S, D)); a copy, contiguous."""
    check_layout(layout)
    world, rank = group_size_rank(group)
    parts = world if layout == "contiguous" else 2 * world
    _check_divisible(x.shape[dim], parts, layout, dim)
    local_len = x.shape[dim] // world
    pieces = [x.narrow(dim, s.start, s.length) for s in segments(layout, rank, world, local_len)]
    return torch.cat(pieces, dim=dim).contiguous()


def unshard(x: Tensor, group: dist.ProcessGroup | None = None, layout: str = "contiguous",
            dim: int = 2) -> Tensor:
    """The full sequence from every rank's shard `x` (all-gather along `dim`): the inverse of
    shard, on every rank."""
    check_layout(layout)
    world, _ = group_size_rank(group)
    if layout == "zigzag":
        _check_divisible(x.shape[dim], 2, layout, dim)
    gathered = [torch.empty_like(x) for _ in range(world)]
    dist.all_gather(gathered, x.contiguous(), group=group)
    local_len = x.shape[dim]
    pieces: list[tuple[int, Tensor]] = []
    for r, part in enumerate(gathered):
        for s in segments(layout, r, world, local_len):
            pieces.append((s.start, part.narrow(dim, s.offset, s.length)))
    return torch.cat([p for _, p in sorted(pieces, key=lambda item: item[0])], dim=dim)
