"""The capability table, backend selection and explain()."""

from __future__ import annotations

import dataclasses

import pytest
import torch

import flash_ext
from flash_ext import dispatch
from flash_ext.dispatch import (
    BACKENDS,
    FLASH_KERNEL_HEAD_DIMS,
    HALF_DTYPES,
    AttentionCall,
    Backend,
    select_backend,
)
from flash_ext.ops import FLASH_DTYPES, FLASH_HDIMS


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
    call = AttentionCall("cpu", torch.float16, 16, mask="additive", dropout=True, window=True,
                         alibi=True, softcap=True, varlen=True)
    backends = {b.name: b for b in BACKENDS}
    flex = backends["flex"].not_supported_reasons(call)
    assert "dropout_p > 0 (not supported)" in flex
    assert "variable-length (cu_seqlens) inputs (not supported)" in flex
    assert not any(r.startswith(("window_size", "alibi_slopes", "softcap")) for r in flex)
    assert "(not supported)" not in " ".join(backends["mem_eff"].not_supported_reasons(call))
    assert select_backend(call) == "cpu"


def cuda_backend(name: str, **built) -> Backend:
    """A CUDA backend's entry as a CUDA build with its kernels describes it."""
    backend = next(b for b in BACKENDS if b.name == name)
    return dataclasses.replace(backend, unavailable=None, **built)


def flash_backend(**built) -> Backend:
    """The flash entry as a CUDA build of the given kernels describes it."""
    return cuda_backend("flash", **built)


def cuda_call(dtype=torch.float16, head_dim=64, **kwargs) -> AttentionCall:
    return AttentionCall("cuda", dtype, head_dim, compute_capability=(9, 0), **kwargs)


def test_flash_capabilities():
    flash = flash_backend(built_head_dims=FLASH_KERNEL_HEAD_DIMS, built_dtypes=HALF_DTYPES)
    assert flash.not_supported_reasons(cuda_call(head_dim=200, dropout=True, window=True,
                                                 alibi=True, softcap=True, varlen=True)) == []
    assert flash.not_supported_reasons(cuda_call(torch.float32, 320, mask="bool")) == [
        "dtype float32 (supports bfloat16, float16)", "head_dim 320 (supports <= 256)",
        "bool attn_mask (not supported)"]
    # A head dim that is not a multiple of 8 runs zero-padded (csrc/api/entry.cpp).
    assert flash.not_supported_reasons(cuda_call(head_dim=20, softcap=True)) == []
    old_gpu = AttentionCall("cuda", torch.bfloat16, 64, compute_capability=(7, 5))
    assert flash.not_supported_reasons(old_gpu) == ["GPU compute capability 7.5 (needs >= 8.0)"]
    assert flash.not_supported_reasons(cuda_call(needs_grad=True)) == []  # it has a backward


def test_flash_value_head_dim_pairs():
    """Flash runs q/k head dim 192 with v head dim 128 (in those kernels: 161-192 with 97-128)
    forward and backward, on Hopper, without dropout; every other pair, and those calls with
    dropout or an older GPU, name why."""
    flash = flash_backend(built_head_dims=FLASH_KERNEL_HEAD_DIMS, built_dtypes=HALF_DTYPES)

    def call(qk, v, cc=(9, 0), **kwargs):
        return AttentionCall("cuda", torch.bfloat16, max(qk, v), compute_capability=cc,
                             value_head_dim=True, head_dims=(qk, v), **kwargs)

    assert flash.not_supported_reasons(call(192, 128)) == []
    assert flash.not_supported_reasons(call(176, 112, window=True, softcap=True)) == []
    assert flash.not_supported_reasons(call(192, 128, needs_grad=True)) == []
    reason = ("a head_dim of value different from query's ({}, {}): runs only (q/k, v) head "
              "dims in (192, 128), without dropout, on compute capability >= 9.0")
    for bad in (call(192, 64), call(160, 128), call(128, 192), call(192, 128, cc=(8, 0)),
                call(192, 128, dropout=True)):
        assert reason.format(*bad.head_dims) in flash.not_supported_reasons(bad)


def test_flash_build_subset():
    flash = flash_backend(built_head_dims=(64, 128), built_dtypes=frozenset({torch.float16}))
    assert flash.not_supported_reasons(cuda_call(head_dim=40)) == []  # runs in the 64 kernel
    assert flash.not_supported_reasons(cuda_call(head_dim=72)) == [
        "not built: head dim kernel 96 not in this build (FLASH_EXT_HDIMS=64;128)"]
    assert flash.not_supported_reasons(cuda_call(torch.bfloat16, 128)) == [
        "not built: bfloat16 kernels not in this build (FLASH_EXT_DTYPES=fp16)"]


@pytest.fixture
def use_backends():
    """dispatch.set_backends for one test: selection as with another table (another build)."""
    original = dispatch.BACKENDS
    yield dispatch.set_backends
    dispatch.set_backends(original)


def test_needs_grad_follows_grad_mode(use_backends):
    """A backend without a backward (none today: the cpu one stands in) refuses inputs that
    require grad, only while grad mode is on."""
    forward_only = tuple(dataclasses.replace(b, backward=b.name != "cpu") for b in BACKENDS)
    use_backends(forward_only)
    q = torch.randn(1, 2, 8, 16)
    reason = "backward not implemented yet (inputs require grad)"
    assert reason not in flash_ext.explain(q, q, q).reasons["cpu"]
    k = q.clone().requires_grad_(True)
    assert reason in flash_ext.explain(q, k, q).reasons["cpu"]
    with pytest.raises(NotImplementedError, match="backward not implemented yet"):
        flash_ext.attention(q, k, q)
    with torch.no_grad():
        assert reason not in flash_ext.explain(q, k, q).reasons["cpu"]


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the CPU-only build")
def test_cpu_build_has_no_flash_kernels():
    assert FLASH_HDIMS == () and FLASH_DTYPES == frozenset()


def test_mem_eff_capabilities():
    mem_eff = cuda_backend("mem_eff")
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        assert mem_eff.not_supported_reasons(cuda_call(
            dtype, 20, mask="additive", mask_requires_grad=True, dropout=True, window=True,
            alibi=True, softcap=True, varlen=True, needs_grad=True)) == []
    assert mem_eff.not_supported_reasons(cuda_call(torch.float64, 320)) == [
        "dtype float64 (supports bfloat16, float16, float32)", "head_dim 320 (supports <= 256)"]
    old_gpu = AttentionCall("cuda", torch.float32, 64, compute_capability=(7, 5))
    assert mem_eff.not_supported_reasons(old_gpu) == [
        "GPU compute capability 7.5 (needs >= 8.0)"]


@pytest.fixture
def cuda_build(use_backends):
    """Selection as on a CUDA build with every flash and mem_eff kernel."""
    built = {"flash": cuda_backend("flash", built_head_dims=FLASH_KERNEL_HEAD_DIMS,
                                   built_dtypes=HALF_DTYPES),
             "mem_eff": cuda_backend("mem_eff")}
    use_backends(tuple(built.get(b.name, b) for b in BACKENDS))


@pytest.mark.parametrize("call, selected", [
    (cuda_call(), "flash"),
    (cuda_call(torch.bfloat16, 256, dropout=True, window=True, alibi=True, softcap=True,
               varlen=True, needs_grad=True), "flash"),
    (cuda_call(torch.float32), "mem_eff"),  # flash takes fp16 and bf16 only
    (cuda_call(mask="additive"), "mem_eff"),
    (cuda_call(mask="bool"), "mem_eff"),
    (cuda_call(torch.bfloat16, mask="additive", mask_requires_grad=True), "mem_eff"),
    (cuda_call(head_dim=59, softcap=True), "flash"),  # zero-padded to 64
    (cuda_call(torch.float32, 100, alibi=True, window=True, dropout=True, varlen=True),
     "mem_eff"),
    (cuda_call(torch.float32, softcap=True), "mem_eff"),
    (cuda_call(mask="additive", mask_requires_grad=True, softcap=True, needs_grad=True),
     "mem_eff"),
    # DeepSeek's (192, 128): flash's kernels, forward and backward; mem_eff with dropout.
    (cuda_call(torch.bfloat16, 192, value_head_dim=True, head_dims=(192, 128)), "flash"),
    (cuda_call(torch.bfloat16, 192, value_head_dim=True, head_dims=(192, 128), needs_grad=True),
     "flash"),
    (cuda_call(torch.bfloat16, 192, value_head_dim=True, head_dims=(192, 128), dropout=True),
     "mem_eff"),
    (cuda_call(torch.bfloat16, 128, value_head_dim=True, head_dims=(64, 128)), "mem_eff"),
])
def test_cuda_selection(cuda_build, call, selected):
    assert select_backend(call) == selected


def test_cuda_call_no_backend_takes(cuda_build):
    """float32 or a mask with head_dim over 256: flash refuses the dtype or the mask, mem_eff
    (and flash) the head dim."""
    for call in (cuda_call(torch.float32, 320, softcap=True),
                 cuda_call(head_dim=320, mask="bool")):
        with pytest.raises(NotImplementedError) as info:
            select_backend(call)
        assert "  mem_eff: head_dim 320 (supports <= 256)\n" in str(info.value)
    assert select_backend(cuda_call(torch.float32, 320, softcap=True), "math") == "math"
