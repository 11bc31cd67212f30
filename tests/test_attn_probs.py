"""return_attn_probs=True with dropout: flash-attn's S_dmask, decoded the way flash-attn's tests
decode it (the sign is the dropout mask; each key block times exp(m_j - lse) is the
probabilities), checked against the float64 reference and against the call's own output."""

from __future__ import annotations

import math

import pytest
import torch
from attention_check import assert_rule

import flash_ext
from flash_ext.flash_attn.flash_attn_interface import _get_block_size_n
from flash_ext.reference import attention_ref, attention_scores

DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]


def normalize(attn_unnorm: torch.Tensor, scores: torch.Tensor, block: int) -> torch.Tensor:
    """flash-attn's normalize_flash_attn_S, on the float32 scores (B, H, Sq, Sk)."""
    lse = torch.logsumexp(scores, -1)
    lse[lse == float("-inf")] = float("inf")
    block_max = torch.stack([s.amax(-1) for s in scores.split(block, -1)], -1)
    suffix_max = block_max.flip(-1).cummax(-1).values.flip(-1).unbind(-1)
    parts = [a * torch.exp(m - lse)[..., None]
             for a, m in zip(attn_unnorm.float().split(block, -1), suffix_max)]
    return torch.cat(parts, -1)


def decode_and_check(q, k, v, out, s_dmask, p, **score_args):
    """q, k, v (B, H, S, D) of one sequence; out (B, Hq, Sq, D); s_dmask (B, Hq, Sq, Sk)."""
    assert s_dmask.dtype == q.dtype
    keep = s_dmask >= 0
    scores = attention_scores(q, k, compute_dtype=torch.float32, **score_args)
    probs = normalize(s_dmask.abs(), scores, _get_block_size_n(q.device, q.shape[-1], True, False))
    _, ref_lse = attention_ref(q, k, v, **score_args)
    ref_probs = torch.exp(attention_scores(q, k, **score_args) - ref_lse.double()[..., None])
    ref_probs = ref_probs.nan_to_num(0.0)  # rows that see no key
    # S_dmask is stored in q's dtype: its probabilities are as close as rounding allows.
    assert (probs.double() - ref_probs).abs().max() <= 2 * torch.finfo(q.dtype).eps
    # The sign is the mask the kernel applied: the output is the reference with that mask.
    ref64 = attention_ref(q, k, v, dropout_p=p, dropout_keep=keep, **score_args)[0]
    ref_lowp = attention_ref(q, k, v, dropout_p=p, dropout_keep=keep, compute_dtype=None,
                             **score_args)[0]
    assert_rule("out", out, ref64, ref_lowp)
    return keep[scores > float("-inf")]  # the mask where keys are visible


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("seqlens", [(67, 67), (40, 150), (130, 33)])
def test_flash_attn_func_s_dmask(device, dtype, causal, seqlens):
    sq, sk = seqlens
    p = 0.17
    q = torch.randn(2, sq, 4, 64, device=device, dtype=dtype)
    k, v = (torch.randn(2, sk, 2, 64, device=device, dtype=dtype) for _ in range(2))
    out, lse, s_dmask = flash_ext.flash_attn_func(q, k, v, dropout_p=p, causal=causal,
                                                  return_attn_probs=True)
    assert s_dmask.shape == (2, 4, sq, sk)
    qh, kh, vh = (t.transpose(1, 2) for t in (q, k, v))
    kept = decode_and_check(qh, kh, vh, out.transpose(1, 2), s_dmask, p, is_causal=causal,
                            bottom_right=True)
    assert abs(kept.float().mean().item() - (1 - p)) < 0.03


@pytest.mark.parametrize("device", DEVICES)
def test_flash_attn_func_s_dmask_features(device):
    p, dtype = 0.3, torch.bfloat16
    q, k, v = (torch.randn(1, 90, 2, 48, device=device, dtype=dtype) for _ in range(3))
    slopes = torch.rand(2, device=device) * 0.2
    window = torch.tensor([20, 5])  # a tensor of two ints, as flash-attn's tests pass it
    out, _, s_dmask = flash_ext.flash_attn_func(q, k, v, dropout_p=p, softmax_scale=0.3,
                                                window_size=window, alibi_slopes=slopes,
                                                return_attn_probs=True)
    qh, kh, vh = (t.transpose(1, 2) for t in (q, k, v))
    decode_and_check(qh, kh, vh, out.transpose(1, 2), s_dmask, p, scale=0.3,
                     window_size=(20, 5), alibi_slopes=slopes, bottom_right=True)


@pytest.mark.parametrize("device", DEVICES)
def test_flash_attn_varlen_func_s_dmask(device):
    p, dtype = 0.25, torch.float16
    cu_q = torch.tensor([0, 30, 30, 101], dtype=torch.int32, device=device)
    cu_k = torch.tensor([0, 50, 61, 101], dtype=torch.int32, device=device)
    q = torch.randn(101, 4, 64, device=device, dtype=dtype)
    k, v = (torch.randn(101, 4, 64, device=device, dtype=dtype) for _ in range(2))
    out, _, s_dmask = flash_ext.flash_attn_varlen_func(q, k, v, cu_q, cu_k, 71, 50,
                                                       dropout_p=p, causal=True,
                                                       return_attn_probs=True)
    assert s_dmask.shape == (3, 4, 71, 50)
    for b in (0, 2):
        q0, q1, k0, k1 = int(cu_q[b]), int(cu_q[b + 1]), int(cu_k[b]), int(cu_k[b + 1])
        seq = [t.transpose(0, 1)[None] for t in (q[q0:q1], k[k0:k1], v[k0:k1], out[q0:q1])]
        decode_and_check(*seq, s_dmask[b : b + 1, :, : q1 - q0, : k1 - k0], p, is_causal=True,
                         bottom_right=True)
        assert (s_dmask[b, :, q1 - q0 :] == 0).all() and (s_dmask[b, :, :, k1 - k0 :] == 0).all()
    assert (s_dmask[1] == 0).all()


def test_s_dmask_only_with_dropout():
    q = torch.randn(1, 8, 2, 32, dtype=torch.float16)
    assert flash_ext.flash_attn_func(q, q, q, return_attn_probs=True)[2] is None
    torch.manual_seed(5)
    out = flash_ext.flash_attn_func(q, q, q, dropout_p=0.5)
    torch.manual_seed(5)
    out_probs, _, s_dmask = flash_ext.flash_attn_func(q, q, q, dropout_p=0.5,
                                                      return_attn_probs=True)
    assert torch.equal(out, out_probs)  # asking for S_dmask does not change the draw
    assert s_dmask.shape == (1, 2, 8, 8) and math.isclose(_get_block_size_n(None, 32, True,
                                                                            False), 64)
