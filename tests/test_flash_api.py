"""flash-attn style functions and varlen entry points on the CPU against reference.py:
(B, S, H, D) layout, bottom-right causal alignment, packed variants, cu_seqlens."""

from __future__ import annotations

import functools

import pytest
import torch
from attention_check import check_against_reference

import flash_ext
from flash_ext.reference import attention_ref, attention_varlen_ref

DTYPES = [torch.float32, torch.bfloat16, torch.float16]


def bshd(batch, seqlen, heads, head_dim, dtype):
    return torch.randn(batch, seqlen, heads, head_dim, dtype=dtype)


def reference_bshd(q, k, v, compute_dtype, **kwargs):
    out, lse = attention_ref(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                             compute_dtype=compute_dtype, bottom_right=True, **kwargs)
    return out.transpose(1, 2), lse


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("seqlens", [(33, 33), (17, 70), (70, 17), (1, 45)])
@pytest.mark.parametrize("causal", [False, True])
def test_flash_attn_func(dtype, seqlens, causal):
    sq, sk = seqlens
    inputs = (bshd(2, sq, 4, 64, dtype), bshd(2, sk, 2, 64, dtype), bshd(2, sk, 2, 64, dtype))

    def run(q, k, v):
        out, lse, probs = flash_ext.flash_attn_func(q, k, v, causal=causal,
                                                    return_attn_probs=True)
        assert probs is None
        return out, lse

    window = (-1, 0) if causal else (-1, -1)
    check_against_reference(run, functools.partial(reference_bshd, window_size=window), inputs)


@pytest.mark.parametrize("dtype", DTYPES)
def test_flash_attn_func_features(dtype):
    inputs = (bshd(2, 40, 4, 40, dtype), bshd(2, 50, 4, 40, dtype), bshd(2, 50, 4, 40, dtype))
    slopes = torch.rand(2, 4) * 0.3

    def run(q, k, v):
        return flash_ext.flash_attn_func(q, k, v, softmax_scale=0.2, window_size=(6, 2),
                                         softcap=10.0, alibi_slopes=slopes,
                                         return_attn_probs=True)[:2]

    reference = functools.partial(reference_bshd, scale=0.2, window_size=(6, 2), softcap=10.0,
                                  alibi_slopes=slopes)
    check_against_reference(run, reference, inputs)


def test_packed_variants():
    qkv = bshd(2, 30, 3 * 4, 32, torch.float32).view(2, 30, 3, 4, 32)
    q, k, v = qkv.unbind(2)
    expected = flash_ext.flash_attn_func(q, k, v, causal=True)
    torch.testing.assert_close(flash_ext.flash_attn_qkvpacked_func(qkv, causal=True), expected)
    torch.testing.assert_close(
        flash_ext.flash_attn_kvpacked_func(q, qkv[:, :, 1:], causal=True), expected)
    qkv.requires_grad_(True)
    flash_ext.flash_attn_qkvpacked_func(qkv, causal=True).sum().backward()
    assert qkv.grad is not None and qkv.grad.abs().sum() > 0


def varlen_inputs(lengths_q, lengths_k, heads_q, heads_kv, head_dim, dtype):
    cu_q = torch.tensor([0] + lengths_q, dtype=torch.int32).cumsum(0, dtype=torch.int32)
    cu_k = torch.tensor([0] + lengths_k, dtype=torch.int32).cumsum(0, dtype=torch.int32)
    q = torch.randn(int(cu_q[-1]), heads_q, head_dim, dtype=dtype)
    k = torch.randn(int(cu_k[-1]), heads_kv, head_dim, dtype=dtype)
    v = torch.randn(int(cu_k[-1]), heads_kv, head_dim, dtype=dtype)
    return q, k, v, cu_q, cu_k


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("lengths", [([5, 17, 1], [5, 17, 1]), ([3, 0, 40], [20, 7, 40]),
                                     ([30, 12], [9, 50])])
def test_flash_attn_varlen_func(dtype, causal, lengths):
    q, k, v, cu_q, cu_k = varlen_inputs(*lengths, 4, 2, 40, dtype)
    max_q, max_k = max(lengths[0]), max(lengths[1])
    slopes = torch.rand(4) * 0.2

    def run(q, k, v):
        return flash_ext.flash_attn_varlen_func(q, k, v, cu_q, cu_k, max_q, max_k, causal=causal,
                                                alibi_slopes=slopes, return_attn_probs=True)[:2]

    reference = functools.partial(attention_varlen_ref, cu_seqlens_q=cu_q, cu_seqlens_k=cu_k,
                                  window_size=(-1, 0) if causal else (-1, -1), bottom_right=True,
                                  alibi_slopes=slopes)
    check_against_reference(run, reference, (q, k, v))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_attention_varlen_top_left(dtype):
    q, k, v, cu_q, cu_k = varlen_inputs([7, 33], [20, 13], 2, 2, 64, dtype)

    def run(q, k, v):
        return flash_ext.attention_varlen(q, k, v, cu_q, cu_k, 33, 20, is_causal=True,
                                          window_size=(4, -1), softcap=8.0, return_lse=True)

    reference = functools.partial(attention_varlen_ref, cu_seqlens_q=cu_q, cu_seqlens_k=cu_k,
                                  window_size=(4, 0), softcap=8.0)
    check_against_reference(run, reference, (q, k, v))


@pytest.mark.parametrize("scale", [-0.4, 0.0])
def test_varlen_nonpositive_scale(scale):
    q, k, v, cu_q, cu_k = varlen_inputs([7, 33], [20, 13], 4, 2, 32, torch.float32)

    def run(q, k, v):
        return flash_ext.flash_attn_varlen_func(q, k, v, cu_q, cu_k, 33, 20, softmax_scale=scale,
                                                causal=True, return_attn_probs=True)[:2]

    reference = functools.partial(attention_varlen_ref, cu_seqlens_q=cu_q, cu_seqlens_k=cu_k,
                                  window_size=(-1, 0), bottom_right=True, scale=scale)
    check_against_reference(run, reference, (q, k, v))


def test_varlen_packed_variants():
    q, k, v, cu, _ = varlen_inputs([9, 4, 21], [9, 4, 21], 3, 3, 32, torch.float32)
    qkv = torch.stack([q, k, v], 1)
    expected = flash_ext.flash_attn_varlen_func(q, k, v, cu, cu, 21, 21, causal=True)
    torch.testing.assert_close(
        flash_ext.flash_attn_varlen_qkvpacked_func(qkv, cu, 21, causal=True), expected)
    torch.testing.assert_close(
        flash_ext.flash_attn_varlen_kvpacked_func(q, qkv[:, 1:], cu, cu, 21, 21, causal=True),
        expected)


def test_varlen_equals_dense_per_sequence():
    q, k, v, cu_q, cu_k = varlen_inputs([12, 30], [25, 8], 2, 2, 48, torch.float32)
    out, lse = flash_ext.attention_varlen(q, k, v, cu_q, cu_k, 30, 25, return_lse=True)
    for b in range(2):
        qs, ks = slice(cu_q[b], cu_q[b + 1]), slice(cu_k[b], cu_k[b + 1])
        dense, dense_lse = flash_ext.attention(
            q[qs].transpose(0, 1)[None], k[ks].transpose(0, 1)[None], v[ks].transpose(0, 1)[None],
            return_lse=True)
        torch.testing.assert_close(out[qs], dense[0].transpose(0, 1))
        torch.testing.assert_close(lse[:, qs], dense_lse[0])
