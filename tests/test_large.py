"""Tensors over 2^31 elements on the CPU backend, forward and backward (issue 32). Opt-in: the
call needs about 20 GB of host memory, so it runs with FLASH_EXT_LARGE_TESTS=1
(`FLASH_EXT_LARGE_TESTS=1 python -m pytest -q tests/test_large.py`).

An MQA call whose query, output and their gradients hold 2^31 + 8192 elements each (2^21 + 8
query heads of 16 rows, head dim 64, bf16, one key/value head): every head's output, lse and
dq must equal, bit for bit, those of the same heads run in calls under 2^31 elements; dk and dv
(sums over all heads) must match the chunks' sums; a few heads are checked against the float64
reference by the float64 rule."""

from __future__ import annotations

import os

import pytest
import torch
from attention_check import assert_rule

import flash_ext
from flash_ext.reference import attention_ref

pytestmark = pytest.mark.skipif(os.environ.get("FLASH_EXT_LARGE_TESTS") != "1",
                                reason="needs about 20 GB of host memory: FLASH_EXT_LARGE_TESTS=1")

HEADS, SEQLEN, HEAD_DIM = 2**21 + 8, 16, 64
CHUNKS = 4  # heads per chunk call: a quarter, under 2^31 elements


def test_over_2_31_elements_forward_backward():
    torch.manual_seed(0)
    q = torch.empty(1, HEADS, SEQLEN, HEAD_DIM, dtype=torch.bfloat16).normal_()
    assert q.numel() > 2**31
    k, v = (torch.randn(1, 1, SEQLEN, HEAD_DIM, dtype=torch.bfloat16) for _ in range(2))
    q.requires_grad_(True)
    k.requires_grad_(True)
    v.requires_grad_(True)
    out, lse = flash_ext.attention(q, k, v, is_causal=True, enable_gqa=True, return_lse=True,
                                   backend="cpu")
    dout = torch.empty_like(out).normal_()
    dq, dk, dv = torch.autograd.grad(out, (q, k, v), dout)
    out, lse = out.detach(), lse.detach()

    dk_sum = torch.zeros(dk.shape, dtype=torch.float64)
    dv_sum = torch.zeros(dv.shape, dtype=torch.float64)
    for heads in torch.arange(HEADS).chunk(CHUNKS):
        part = slice(int(heads[0]), int(heads[-1]) + 1)
        x = [q.detach()[:, part].requires_grad_(True), k.detach().requires_grad_(True),
             v.detach().requires_grad_(True)]
        o, l = flash_ext.attention(*x, is_causal=True, enable_gqa=True, return_lse=True,
                                   backend="cpu")
        g = torch.autograd.grad(o, x, dout[:, part])
        assert torch.equal(o, out[:, part]), f"out of heads {part} differs from their own call"
        assert torch.equal(l, lse[:, part]), f"lse of heads {part} differs from their own call"
        assert torch.equal(g[0], dq[:, part]), f"dq of heads {part} differs from their own call"
        dk_sum += g[1].double()
        dv_sum += g[2].double()
        del o, l, g, x
    for name, big, parts in (("dk", dk, dk_sum), ("dv", dv, dv_sum)):
        err = (big.double() - parts).norm() / parts.norm()
        assert err < 1e-2, f"{name}: the large call and the chunks' sum differ by {err:.2e}"

    picked = torch.tensor([0, 1, HEADS // 2, HEADS - 1])
    q_few = q.detach()[:, picked]
    ref64, ref64_lse = attention_ref(q_few.double(), k.detach().double(), v.detach().double(),
                                     window_size=(-1, 0))
    ref_lowp, ref_lowp_lse = attention_ref(q_few, k.detach(), v.detach(), window_size=(-1, 0),
                                           compute_dtype=None)
    assert_rule("out (picked heads)", out[:, picked], ref64, ref_lowp)
    assert_rule("lse (picked heads)", lse[:, picked], ref64_lse, ref_lowp_lse)
