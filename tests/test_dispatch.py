"""The capability table, backend selection and explain()."""

from __future__ import annotations

import pytest
import torch

import flash_ext
from flash_ext.dispatch import BACKENDS, describe_call, select_backend


def test_every_backend_listed():
    assert [b.name for b in BACKENDS] == ["flash", "mem_eff", "flex", "cpu", "math"]


def test_cpu_selected_and_others_explained():
    q = torch.randn(1, 2, 8, 16)
    explanation = flash_ext.explain(q, q, q, is_causal=True)
    assert explanation.selected == "cpu"
    assert "device 'cpu' (runs on cuda)" in " ".join(explanation.reasons["flash"])
    text = str(explanation)
    assert text.startswith("selected backend: cpu")
    for name in ("flash", "mem_eff", "flex", "math"):
        assert f"  {name}: " in text


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the CPU-only build")
def test_cuda_backends_report_not_built():
    q = torch.randn(1, 2, 8, 16)
    reasons = flash_ext.explain(q, q, q).reasons
    for name in ("flash", "mem_eff"):
        assert reasons[name][0].startswith("not built")


def test_no_backend_lists_every_reason():
    q = torch.randn(1, 2, 8, 16, dtype=torch.float64)
    with pytest.raises(NotImplementedError) as info:
        flash_ext.attention(q, q, q)
    message = str(info.value)
    assert "no flash_ext backend can run this call" in message
    assert "cpu: dtype float64 (supports bfloat16, float16, float32)" in message


def test_math_on_request():
    q = torch.randn(1, 2, 8, 16, dtype=torch.float64)
    out = flash_ext.attention(q, q, q, backend="math")
    assert out.dtype == torch.float64
    assert flash_ext.explain(q, q, q, backend="math").selected == "math"


def test_feature_reasons():
    q = torch.randn(1, 2, 8, 16, dtype=torch.float16)
    call = describe_call(q, attn_mask=torch.zeros(8, 8), dropout_p=0.1, window_size=(4, 0),
                         alibi_slopes=torch.ones(2), softcap=1.0, varlen=True)
    mem_eff = dict((b.name, b) for b in BACKENDS)["mem_eff"]
    reasons = " ".join(mem_eff.not_supported_reasons(call))
    assert "alibi_slopes (not supported)" in reasons and "softcap (not supported)" in reasons
    assert select_backend(call) == "cpu"
