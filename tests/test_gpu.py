"""GPU checks of the Python layer; the CUDA kernels' own tests come with their backends."""

from __future__ import annotations

import pytest
import torch

import flash_ext

pytestmark = pytest.mark.gpu


def test_explain_names_the_gpu():
    q = torch.randn(1, 2, 8, 64, device="cuda", dtype=torch.float16)
    explanation = flash_ext.explain(q, q, q)
    assert set(explanation.reasons) == {"flash", "mem_eff", "flex", "cpu", "math"}
    assert "device 'cuda' (runs on cpu)" in explanation.reasons["cpu"]


def test_math_backend_on_gpu():
    q = torch.randn(1, 2, 8, 64, device="cuda", dtype=torch.float16)
    out = flash_ext.attention(q, q, q, is_causal=True, backend="math")
    ref = torch.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True)
    torch.testing.assert_close(out, ref, atol=2e-3, rtol=2e-3)
