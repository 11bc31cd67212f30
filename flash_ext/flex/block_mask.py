"""BlockMask and create_block_mask, with torch.nn.attention.flex_attention's meaning.

The (Q_LEN, KV_LEN) mask of each (batch, head) is cut into blocks of Q_BLOCK x KV_BLOCK. A block
is empty (skipped), partial (the kernel evaluates mask_mod in it) or full (every entry visible:
no mask_mod). Per query-block row the mask stores the partial and the full key blocks as
(count, indices) lists in ascending order; the transposed lists (per key-block column, the
query blocks) drive the dk/dv part of the backward. B or H of size 1 broadcast.

create_block_mask evaluates mask_mod block by block in a Triton kernel (codegen of mask_mod, as
in attention), so no (Q_LEN, KV_LEN) mask is ever materialized.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from flash_ext.flex import build
from flash_ext.flex.ops import flex_block_states, launch_block_states, needs_custom_op
from flash_ext.flex.prepare import prepare

_LIST_FIELDS = ("kv_num_blocks", "kv_indices", "full_kv_num_blocks", "full_kv_indices",
                "q_num_blocks", "q_indices", "full_q_num_blocks", "full_q_indices")


class BlockMask:
    """Block-sparse structure of an attention mask, and the mask_mod for its partial blocks.

    kv_num_blocks (B, H, num_q_blocks) int32 and kv_indices (B, H, num_q_blocks, num_kv_blocks)
    int32 list the partial key blocks of each query block; full_kv_* the full ones; q_* and
    full_q_* the transposed lists. BLOCK_SIZE = (Q_BLOCK, KV_BLOCK), seq_lengths =
    (Q_LEN, KV_LEN). B and H may be 1 (broadcast).
    """

    def __init__(self, kv_num_blocks: Tensor, kv_indices: Tensor, full_kv_num_blocks: Tensor,
                 full_kv_indices: Tensor, q_num_blocks: Tensor, q_indices: Tensor,
                 full_q_num_blocks: Tensor, full_q_indices: Tensor,
                 BLOCK_SIZE: tuple[int, int], seq_lengths: tuple[int, int],
                 mask_mod: Callable | None):
        self.kv_num_blocks, self.kv_indices = kv_num_blocks, kv_indices
        self.full_kv_num_blocks, self.full_kv_indices = full_kv_num_blocks, full_kv_indices
        self.q_num_blocks, self.q_indices = q_num_blocks, q_indices
        self.full_q_num_blocks, self.full_q_indices = full_q_num_blocks, full_q_indices
        self.BLOCK_SIZE = tuple(BLOCK_SIZE)
        self.seq_lengths = tuple(seq_lengths)
        self.mask_mod = mask_mod

    @classmethod
    def from_block_states(cls, states: Tensor, BLOCK_SIZE: tuple[int, int],
                          seq_lengths: tuple[int, int], mask_mod: Callable | None) -> BlockMask:
        """From (B, H, num_q_blocks, num_kv_blocks) states: 0 empty, 1 partial, 2 full."""
        partial, full = states == 1, states == 2
        return cls(*_lists(partial), *_lists(full), *_lists(partial.transpose(-1, -2)),
                   *_lists(full.transpose(-1, -2)), BLOCK_SIZE, seq_lengths, mask_mod)

    @property
    def shape(self) -> tuple[int, int, int, int]:
        batch, heads = self.kv_num_blocks.shape[:2]
        return (batch, heads, *self.seq_lengths)

    @property
    def device(self) -> torch.device:
        return self.kv_num_blocks.device

    def to(self, device: torch.device | str) -> BlockMask:
        tensors = [getattr(self, name).to(device) for name in _LIST_FIELDS]
        return BlockMask(*tensors, self.BLOCK_SIZE, self.seq_lengths, self.mask_mod)

    def block_states(self) -> Tensor:
        """(B, H, num_q_blocks, num_kv_blocks) int8: 0 empty, 1 partial, 2 full."""
        num_kv = self.kv_indices.shape[-1]
        states = torch.zeros(self.kv_indices.shape, dtype=torch.int8, device=self.device)
        for value, num, idx in ((1, self.kv_num_blocks, self.kv_indices),
                                (2, self.full_kv_num_blocks, self.full_kv_indices)):
            listed = torch.arange(num_kv, device=self.device) < num.unsqueeze(-1)
            states.scatter_add_(-1, idx.long(), torch.where(listed, value, 0).to(torch.int8))
        return states

    def sparsity(self) -> float:
        """Percentage of blocks skipped (neither partial nor full)."""
        blocks = self.kv_indices.shape[-2] * self.kv_indices.shape[-1]
        visible = (self.kv_num_blocks.sum(-1) + self.full_kv_num_blocks.sum(-1)).double()
        return 100.0 * (1.0 - visible.mean().item() / blocks)

    def __repr__(self) -> str:
        return (f"BlockMask(shape={self.shape}, BLOCK_SIZE={self.BLOCK_SIZE}, "
                f"sparsity={self.sparsity():.2f}%, mask_mod="
                f"{getattr(self.mask_mod, '__name__', self.mask_mod)})")


def _lists(selected: Tensor) -> tuple[Tensor, Tensor]:
    """(count, indices) of the True entries of each row, ascending, int32."""
    counts = selected.sum(-1, dtype=torch.int32)
    order = torch.argsort(selected.to(torch.int8), dim=-1, descending=True, stable=True)
    return counts.contiguous(), order.to(torch.int32).contiguous()


def _block_sizes(BLOCK_SIZE) -> tuple[int, int]:
    sizes = (BLOCK_SIZE, BLOCK_SIZE) if isinstance(BLOCK_SIZE, int) else tuple(BLOCK_SIZE)
    if len(sizes) != 2 or any(not isinstance(s, int) or s < 16 or s & (s - 1) for s in sizes):
        raise ValueError(f"BLOCK_SIZE must be a power of two >= 16, or a (Q_BLOCK, KV_BLOCK) "
                         f"pair of them, got {BLOCK_SIZE!r}")
    return sizes


def _positive(name: str, value, allow_none: bool = False) -> int:
    if value is None and allow_none:
        return 1
    if not isinstance(value, int) or value <= 0:
        raise ValueError(f"{name} must be a positive int{' or None' if allow_none else ''}, "
                         f"got {value!r}")
    return value


def create_block_mask(mask_mod: Callable | None, B: int | None, H: int | None, Q_LEN: int,
                      KV_LEN: int, device: torch.device | str = "cuda",
                      BLOCK_SIZE: int | tuple[int, int] = 128) -> BlockMask:
    """The BlockMask of mask_mod(b, h, q_idx, kv_idx) -> bool (True = visible).

    B or H None: the mask does not depend on it (broadcast; mask_mod sees 0). mask_mod None:
    every key visible. BLOCK_SIZE: a power of two >= 16, or a (Q_BLOCK, KV_BLOCK) pair.
    """
    batch, heads = _positive("B", B, True), _positive("H", H, True)
    q_len, kv_len = _positive("Q_LEN", Q_LEN), _positive("KV_LEN", KV_LEN)
    q_block, kv_block = _block_sizes(BLOCK_SIZE)
    device = torch.device(device)
    build.check_device(device)
    num_q, num_kv = -(-q_len // q_block), -(-kv_len // kv_block)
    if mask_mod is None:
        states = torch.full((batch, heads, num_q, num_kv), 2, dtype=torch.int8, device=device)
        if q_len % q_block:  # the last block holds positions past the end: partial
            states[:, :, -1, :] = 1
        if kv_len % kv_block:
            states[:, :, :, -1] = 1
        return BlockMask.from_block_states(states, (q_block, kv_block), (q_len, kv_len), None)

    kernel_id, buffers = prepare(None, mask_mod, device)
    launch = flex_block_states if needs_custom_op(*buffers) else launch_block_states
    states = launch(buffers, kernel_id, batch, heads, q_len, kv_len, q_block, kv_block, device)
    return BlockMask.from_block_states(states, (q_block, kv_block), (q_len, kv_len), mask_mod)


def as_block_mask(block_mask) -> BlockMask:
    """Ours, or torch's BlockMask (or any object with the same fields) as ours."""
    if isinstance(block_mask, BlockMask):
        return block_mask
    missing = [f for f in ("kv_num_blocks", "kv_indices", "BLOCK_SIZE", "mask_mod")
               if not hasattr(block_mask, f)]
    if missing:
        raise TypeError(f"block_mask must be a BlockMask (create_block_mask), got "
                        f"{type(block_mask).__name__} without {', '.join(missing)}")
    kv_num, kv_idx = block_mask.kv_num_blocks, block_mask.kv_indices
    full_num = getattr(block_mask, "full_kv_num_blocks", None)
    full_idx = getattr(block_mask, "full_kv_indices", None)
    if full_num is None:
        full_num, full_idx = torch.zeros_like(kv_num), torch.zeros_like(kv_idx)
    states = BlockMask(kv_num, kv_idx, full_num, full_idx, kv_num, kv_idx, full_num, full_idx,
                       tuple(block_mask.BLOCK_SIZE), (0, 0), None).block_states()
    seq_lengths = getattr(block_mask, "seq_lengths", None) or (
        kv_idx.shape[-2] * block_mask.BLOCK_SIZE[0], kv_idx.shape[-1] * block_mask.BLOCK_SIZE[1])
    return BlockMask.from_block_states(states, _block_sizes(tuple(block_mask.BLOCK_SIZE)),
                                       tuple(seq_lengths), block_mask.mask_mod)
