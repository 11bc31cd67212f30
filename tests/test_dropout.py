"""CPU dropout: seeded from torch's generator, reproducible, and exactly the mask that the
test-only op cpu_dropout_keep_mask materializes, replayed by the backward."""

from __future__ import annotations

import functools

import pytest
import torch
from attention_check import check_against_reference

import flash_ext
from flash_ext.reference import attention_ref, attention_varlen_ref


def drawn_seed(seed: int) -> torch.Tensor:
    """The (seed, offset) that flash_ext draws right after torch.manual_seed(seed)."""
    torch.manual_seed(seed)
    return torch.randint(0, 2**62, (2,), dtype=torch.int64)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("is_causal", [False, True])
def test_dropout_matches_reference_with_kernel_mask(dtype, is_causal):
    p = 0.3
    q, k, v = (torch.randn(2, 4, 37, 40, dtype=dtype) for _ in range(3))
    keep = torch.ops.flash_ext.cpu_dropout_keep_mask(drawn_seed(123), 2, 4, 37, 37, p)
    assert 0.6 < keep.float().mean() < 0.8

    def run(q, k, v):
        torch.manual_seed(123)
        return flash_ext.attention(q, k, v, dropout_p=p, is_causal=is_causal, return_lse=True)

    reference = functools.partial(attention_ref, dropout_p=p, dropout_keep=keep,
                                  is_causal=is_causal)
    check_against_reference(run, reference, (q, k, v))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_dropout_decoding(dtype):
    """A few query rows (the kernel that reads K and V in place, a kv head's query heads as one
    tile) against the same keep-mask."""
    p = 0.3
    q = torch.randn(2, 8, 3, 40, dtype=dtype)
    k, v = (torch.randn(2, 2, 300, 40, dtype=dtype) for _ in range(2))
    keep = torch.ops.flash_ext.cpu_dropout_keep_mask(drawn_seed(11), 2, 8, 3, 300, p)

    def run(q, k, v):
        torch.manual_seed(11)
        return flash_ext.attention(q, k, v, dropout_p=p, enable_gqa=True, return_lse=True)

    reference = functools.partial(attention_ref, dropout_p=p, dropout_keep=keep)
    check_against_reference(run, reference, (q, k, v))


def test_dropout_varlen():
    p = 0.2
    cu = torch.tensor([0, 13, 13, 40], dtype=torch.int32)
    q, k, v = (torch.randn(40, 2, 32) for _ in range(3))
    keep = torch.ops.flash_ext.cpu_dropout_keep_mask(drawn_seed(7), 3, 2, 27, 27, p)

    def run(q, k, v):
        torch.manual_seed(7)
        return flash_ext.attention_varlen(q, k, v, cu, cu, 27, 27, dropout_p=p, return_lse=True)

    reference = functools.partial(attention_varlen_ref, cu_seqlens_q=cu, cu_seqlens_k=cu,
                                  dropout_p=p, dropout_keep=keep)
    check_against_reference(run, reference, (q, k, v))


def test_dropout_reproducible_and_seed_dependent():
    q, k, v = (torch.randn(1, 2, 64, 32) for _ in range(3))
    torch.manual_seed(0)
    a = flash_ext.attention(q, k, v, dropout_p=0.5)
    torch.manual_seed(0)
    b = flash_ext.attention(q, k, v, dropout_p=0.5)
    c = flash_ext.attention(q, k, v, dropout_p=0.5)
    assert torch.equal(a, b)
    assert not torch.equal(a, c)


def test_dropout_keep_rate():
    keep = torch.ops.flash_ext.cpu_dropout_keep_mask(drawn_seed(1), 2, 4, 128, 128, 0.1)
    assert abs(keep.float().mean().item() - 0.9) < 0.01
