"""flash-attn's S_dmask: what `return_attn_probs=True` returns with dropout, so that dropout can be
checked the way flash-attn's own tests check it (convert_flash_attn_S_to_softmax and
normalize_flash_attn_S, with _get_block_size_n from flash_attn.flash_attn_interface).

The encoding: for a score s in key block j (block_size_n keys), exp(s - m_j), where m_j is the
row's largest score in block j and the blocks after it; negated where dropout dropped it. Scaling
block j by exp(m_j - lse) gives the probabilities. flash_ext's kernels do not write the score
matrix: it is recomputed here from q and k in float32, and the mask is the kernel's own, replayed
from the (seed, offset) that the call drew. It materializes (B, H, Sq, Sk): for small shapes.
"""

from __future__ import annotations

import torch
from torch import Tensor

from flash_ext.ops import CUDA_BACKENDS, ops
from flash_ext.reference import attention_scores

#: The key block the encoding is relative to (any size gives the same probabilities).
BLOCK_SIZE_N = 64


def block_size_n(device=None, head_dim=None, is_dropout=True, is_causal=False) -> int:
    """flash_attn.flash_attn_interface._get_block_size_n: the key block of the encoding."""
    return BLOCK_SIZE_N


def generator(device: torch.device) -> torch.Generator:
    """The default generator on `device`, from which the entry points draw dropout seeds."""
    if device.type == "cuda":
        index = torch.cuda.current_device() if device.index is None else device.index
        return torch.cuda.default_generators[index]
    if device.type != "cpu":
        raise NotImplementedError(f"return_attn_probs with dropout: no {device.type} generator")
    return torch.default_generator


def _drawn_seed(device: torch.device, state: Tensor) -> Tensor:
    """The (seed, offset) that a call drew from the generator in `state` (csrc/api/entry.cpp's
    dropout_seed: the call's first draw); the generator is left as it was."""
    gen = generator(device)
    after = gen.get_state()
    gen.set_state(state)
    try:
        return torch.randint(0, 2**62, (2,), dtype=torch.int64, device=device)
    finally:
        gen.set_state(after)


def _keep_mask(q: Tensor, seqlen_k: int, seed: Tensor, dropout_p: float) -> Tensor:
    """The kernels' keep-mask (B, H, Sq, Sk) for a (B, H, Sq, D) q."""
    batch, heads, seqlen_q = q.shape[:3]
    if q.device.type == "cpu":
        return ops.cpu_dropout_keep_mask(seed, batch, heads, seqlen_q, seqlen_k, dropout_p)
    if "flash" not in CUDA_BACKENDS:  # the op's schema is in every build, its kernel is not
        raise NotImplementedError("return_attn_probs with dropout needs the flash CUDA kernels, "
                                  "which this install does not have")
    # Only the shapes matter: the mask depends on (batch, head, row, col) and the seed.
    shape = q.new_empty((batch, heads, seqlen_q, 8), dtype=torch.bfloat16)
    keys = q.new_empty((batch, heads, seqlen_k, 8), dtype=torch.bfloat16)
    return ops.flash_dropout_keep_mask(shape, keys, seed, dropout_p)


def _encode(scores: Tensor, keep: Tensor) -> Tensor:
    """exp(s - m_j) per key block j, negated where dropped (see the module's docstring)."""
    seqlen_k = scores.shape[-1]
    blocks = -(-seqlen_k // BLOCK_SIZE_N)
    padded = torch.nn.functional.pad(scores, (0, blocks * BLOCK_SIZE_N - seqlen_k),
                                     value=float("-inf"))
    block_max = padded.unflatten(-1, (blocks, BLOCK_SIZE_N)).amax(-1)
    suffix_max = block_max.flip(-1).cummax(-1).values.flip(-1)
    m = suffix_max.repeat_interleave(BLOCK_SIZE_N, -1)[..., :seqlen_k]
    hidden = scores == float("-inf")
    encoded = torch.exp(torch.where(hidden, 0.0, scores - m)).masked_fill(hidden, 0.0)
    return torch.where(keep, encoded, -encoded)


def dropout_encoded_probs(q: Tensor, k: Tensor, state: Tensor, dropout_p: float, *,
                          cu_seqlens_q: Tensor | None = None, cu_seqlens_k: Tensor | None = None,
                          max_seqlen_q: int = 0, max_seqlen_k: int = 0, **score_args) -> Tensor:
    """S_dmask (B, Hq, Sq, Sk) in q's dtype for flash-attn-layout q (B, Sq, Hq, D) and k
    (B, Sk, Hkv, D), or packed (T, H, D) with cu_seqlens (sequence b in the top-left corner of
    [b]). `state` is the generator's state before the call; `score_args` attention_scores's."""
    seed = _drawn_seed(q.device, state)
    if cu_seqlens_q is None:
        qh, kh = q.transpose(1, 2), k.transpose(1, 2)
        scores = attention_scores(qh, kh, compute_dtype=torch.float32, **score_args)
        return _encode(scores, _keep_mask(qh, k.shape[1], seed, dropout_p)).to(q.dtype)
    batch, heads = cu_seqlens_q.numel() - 1, q.shape[1]
    keep = _keep_mask(q.new_empty((batch, heads, max_seqlen_q, 1)), max_seqlen_k, seed, dropout_p)
    result = q.new_zeros((batch, heads, max_seqlen_q, max_seqlen_k))
    slopes = score_args.pop("alibi_slopes", None)
    for b in range(batch):
        q0, q1, k0, k1 = (int(cu[i]) for cu in (cu_seqlens_q, cu_seqlens_k) for i in (b, b + 1))
        seq_slopes = slopes[b] if slopes is not None and slopes.dim() == 2 else slopes
        scores = attention_scores(q[q0:q1].transpose(0, 1)[None], k[k0:k1].transpose(0, 1)[None],
                                  alibi_slopes=seq_slopes, compute_dtype=torch.float32,
                                  **score_args)
        corner = keep[b : b + 1, :, : q1 - q0, : k1 - k0]
        result[b, :, : q1 - q0, : k1 - k0] = _encode(scores, corner)[0].to(q.dtype)
    return result
