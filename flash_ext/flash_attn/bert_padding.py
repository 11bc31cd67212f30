"""flash_attn.bert_padding: between padded (batch, seqlen, ...) tensors with a padding mask and
the packed (total_tokens, ...) tensors with cu_seqlens that the varlen functions take.

    x_packed, indices, cu_seqlens, max_seqlen, seqused = unpad_input(x, attention_mask)
    out = flash_attn_varlen_func(q_packed, k_packed, v_packed, cu_seqlens, cu_seqlens,
                                 max_seqlen, max_seqlen, causal=True)
    out_padded = pad_input(out, indices, batch, seqlen)   # zeros at the padding

Everything is differentiable (plain indexing).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor


def index_first_axis(input: Tensor, indices: Tensor) -> Tensor:
    """input[indices] along the first axis: (n, ...) -> (len(indices), ...)."""
    return input[indices]


def index_put_first_axis(values: Tensor, indices: Tensor, first_axis_dim: int) -> Tensor:
    """A (first_axis_dim, ...) tensor of zeros with values at rows `indices`."""
    out = values.new_zeros((first_axis_dim, *values.shape[1:]))
    return out.index_put((indices,), values)


def _check_mask(attention_mask: Tensor, hidden_states: Tensor, name: str) -> None:
    if attention_mask.dim() != 2 or tuple(attention_mask.shape) != tuple(hidden_states.shape[:2]):
        raise ValueError(f"{name} must be (batch, seqlen) = {tuple(hidden_states.shape[:2])} of "
                         f"hidden_states, got shape {tuple(attention_mask.shape)}")


def _pack(hidden_states: Tensor, keep: Tensor, seqlens: Tensor) -> tuple[Tensor, Tensor, Tensor,
                                                                       int]:
    """The kept tokens packed, their flat indices, cu_seqlens of `seqlens`, the longest."""
    indices = torch.nonzero(keep.flatten(), as_tuple=False).flatten()
    max_seqlen = int(seqlens.max().item()) if seqlens.numel() else 0
    cu_seqlens = F.pad(torch.cumsum(seqlens, dim=0, dtype=torch.int32), (1, 0))
    packed = index_first_axis(hidden_states.reshape(-1, *hidden_states.shape[2:]), indices)
    return packed, indices, cu_seqlens, max_seqlen


def unpad_input(hidden_states: Tensor, attention_mask: Tensor,
                unused_mask: Tensor | None = None
                ) -> tuple[Tensor, Tensor, Tensor, int, Tensor]:
    """Packs the tokens the mask keeps.

    hidden_states (batch, seqlen, ...); attention_mask (batch, seqlen), bool or int, 1 = a token
    to keep; unused_mask (batch, seqlen), 1 = a token allocated in the packed tensor but not
    used (counted in cu_seqlens, not in seqused). Returns (hidden_states (total, ...), indices
    of the kept tokens in the flattened (batch * seqlen) order, cu_seqlens (batch + 1,) int32,
    max_seqlen_in_batch, seqused (batch,) int32: the used tokens of each sequence).
    """
    _check_mask(attention_mask, hidden_states, "attention_mask")
    all_masks = attention_mask.bool()
    if unused_mask is not None:
        _check_mask(unused_mask, hidden_states, "unused_mask")
        all_masks = all_masks | unused_mask.bool()
    seqlens = all_masks.sum(dim=-1, dtype=torch.int32)
    seqused = attention_mask.bool().sum(dim=-1, dtype=torch.int32)
    return (*_pack(hidden_states, all_masks, seqlens), seqused)


def pad_input(hidden_states: Tensor, indices: Tensor, batch: int, seqlen: int) -> Tensor:
    """unpad_input's inverse: (total, ...) -> (batch, seqlen, ...), zeros at the padding."""
    out = index_put_first_axis(hidden_states, indices, batch * seqlen)
    return out.view(batch, seqlen, *hidden_states.shape[1:])


def unpad_input_for_concatenated_sequences(hidden_states: Tensor,
                                           attention_mask_in_length: Tensor
                                           ) -> tuple[Tensor, Tensor, Tensor, int]:
    """Packs rows that hold several sequences each (packed pretraining data).

    attention_mask_in_length (batch, seqlen), int: row b holds sequences of lengths
    attention_mask_in_length[b, 0], [b, 1], ... (zeros after the last). Returns
    (hidden_states (total, ...), indices, cu_seqlens of every sequence, max_seqlen_in_batch).
    """
    _check_mask(attention_mask_in_length, hidden_states, "attention_mask_in_length")
    lengths = attention_mask_in_length.to(torch.int64)
    seqlens = lengths[lengths > 0].to(torch.int32)
    # Row b keeps its first sum(lengths[b]) tokens.
    kept = lengths.sum(dim=-1, keepdim=True)
    positions = torch.arange(hidden_states.shape[1], device=hidden_states.device)
    return _pack(hidden_states, positions[None, :] < kept, seqlens)
