"""SDPA routing (flash_ext/integrations/sdpa.py): after activate(), F.scaled_dot_product_attention
runs flash_ext's kernels where SDPA picks its flash backend (checked in the profiler), forward
and backward against the float64 reference; restore() gives torch's kernels back."""

from __future__ import annotations

import functools
import inspect

import pytest
import torch
import torch.nn.functional as F
from attention_check import assert_rule, check_against_reference

from flash_ext.integrations import sdpa
from flash_ext.ops import CUDA_BACKENDS
from flash_ext.reference import attention_ref

pytestmark = pytest.mark.skipif(not sdpa.available(),
                                reason="this torch has no flash attention impl registry")


@pytest.fixture
def routed():
    sdpa.activate()
    yield
    sdpa.restore()


class _Recorder:
    """Stands for flash_ext's ops in sdpa.py and records which ones it calls."""

    def __init__(self, ops):
        self.ops, self.called = ops, set()

    def __getattr__(self, name):
        self.called.add(f"flash_ext::{name}")
        return getattr(self.ops, name)


def flash_ext_ops(step) -> set[str]:
    """The flash_ext ops that step() ran through the routing."""
    recorder = _Recorder(sdpa.ops)
    sdpa.ops = recorder
    try:
        step()
    finally:
        sdpa.ops = recorder.ops
    return recorder.called


def sdpa_run(**kwargs):
    def run(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, **kwargs), None
    return run


def reference(q, k, v, compute_dtype, **kwargs):
    return attention_ref(q, k, v, compute_dtype=compute_dtype, **kwargs)[0], None


@pytest.mark.usefixtures("routed")
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16, torch.float64])
@pytest.mark.parametrize("is_causal", [False, True])
@pytest.mark.parametrize("mask", [None, "bool", "additive"])
def test_cpu(dtype, is_causal, mask):
    q = torch.randn(2, 8, 33, 40, dtype=dtype)
    k, v = (torch.randn(2, 4, 50, 40, dtype=dtype) for _ in range(2))
    attn_mask = None
    if mask == "bool":
        attn_mask = torch.rand(33, 50) > 0.3
    elif mask == "additive":
        attn_mask = torch.randn(1, 8, 33, 50, dtype=dtype)
    if is_causal and attn_mask is not None:
        pytest.skip("SDPA takes attn_mask or is_causal")
    kwargs = dict(attn_mask=attn_mask, is_causal=is_causal, scale=0.3)
    check_against_reference(sdpa_run(enable_gqa=True, **kwargs),
                            functools.partial(reference, **kwargs), (q, k, v), lse=False)
    leaves = [t.detach().requires_grad_() for t in (q, k, v)]
    ran = flash_ext_ops(lambda: F.scaled_dot_product_attention(
        *leaves, enable_gqa=True, **kwargs).sum().backward())
    # float64 runs flash_ext's reference (its kernels take float32, bfloat16, float16).
    assert ran == (set() if dtype == torch.float64 else {"flash_ext::attention_fwd",
                                                         "flash_ext::attention_bwd"})


@pytest.mark.parametrize("scale", [-0.5, 0.0])
def test_cpu_nonpositive_scale(routed, scale):
    q, k, v = (torch.randn(1, 2, 20, 16) for _ in range(3))
    check_against_reference(sdpa_run(scale=scale), functools.partial(reference, scale=scale),
                            (q, k, v), lse=False)


def test_activate_and_restore():
    q, k, v = (torch.randn(1, 2, 16, 32) for _ in range(3))
    step = lambda: F.scaled_dot_product_attention(q, k, v)  # noqa: E731
    priority = torch._C._get_sdp_priority_order()
    assert torch.backends.cuda.cudnn_sdp_enabled()
    assert flash_ext_ops(step) == set()
    sdpa.activate()
    try:
        assert torch.nn.attention.current_flash_attention_impl() == "flash_ext"
        assert torch._C._get_sdp_priority_order()[0] == int(sdpa._FLASH)
        assert not torch.backends.cuda.cudnn_sdp_enabled()
        assert flash_ext_ops(step) == {"flash_ext::attention_fwd"}
    finally:
        sdpa.restore()
    assert torch.nn.attention.current_flash_attention_impl() is None
    assert torch._C._get_sdp_priority_order() == priority
    assert torch.backends.cuda.cudnn_sdp_enabled()
    assert flash_ext_ops(step) == set()


def test_cpu_compiled(routed):
    """aot_eager traces SDPA with aten's meta functions and runs flash_ext's kernels."""
    q, k, v = (torch.randn(2, 4, 40, 32, requires_grad=True) for _ in range(3))
    compiled = torch.compile(lambda q, k, v: F.scaled_dot_product_attention(q, k, v,
                                                                            is_causal=True),
                             backend="aot_eager", fullgraph=True)
    check_against_reference(lambda *t: (compiled(*t), None),
                            functools.partial(reference, is_causal=True), (q, k, v), lse=False)


gpu = [pytest.mark.gpu,
       pytest.mark.skipif("flash" not in CUDA_BACKENDS, reason="no flash kernels in this build")]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("is_causal", [False, True])
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.usefixtures("routed")
@pytest.mark.parametrize("_", [pytest.param(0, marks=gpu)])
def test_cuda(dtype, is_causal, head_dim, _):
    q = torch.randn(2, 8, 300, head_dim, device="cuda", dtype=dtype)
    k, v = (torch.randn(2, 2, 300, head_dim, device="cuda", dtype=dtype) for _ in range(2))
    kwargs = dict(is_causal=is_causal)
    check_against_reference(sdpa_run(enable_gqa=True, **kwargs),
                            functools.partial(reference, **kwargs), (q, k, v), lse=False)
    leaves = [t.detach().requires_grad_() for t in (q, k, v)]
    ran = flash_ext_ops(lambda: F.scaled_dot_product_attention(
        *leaves, enable_gqa=True, **kwargs).sum().backward())
    assert {"flash_ext::attention_fwd", "flash_ext::attention_bwd"} <= ran


@pytest.mark.usefixtures("routed")
@pytest.mark.parametrize("_", [pytest.param(0, marks=gpu)])
def test_cuda_dropout(_):
    """The kernels' own keep-mask, drawn from torch's generator, replayed by the backward."""
    p = 0.2
    q, k, v = (torch.randn(2, 4, 200, 64, device="cuda", dtype=torch.bfloat16)
               for _ in range(3))
    torch.manual_seed(9)
    seed = torch.randint(0, 2**62, (2,), dtype=torch.int64, device="cuda")
    keep = torch.ops.flash_ext.flash_dropout_keep_mask(q, k, seed, p)

    def run(q, k, v):
        torch.manual_seed(9)
        return F.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=True), None

    check_against_reference(run, functools.partial(reference, is_causal=True, dropout_p=p,
                                                   dropout_keep=keep), (q, k, v), lse=False)


@pytest.mark.usefixtures("routed")
@pytest.mark.parametrize("_", [pytest.param(0, marks=gpu)])
def test_cuda_varlen(_):
    """torch.nn.attention.varlen's op (_flash_attention_forward on packed sequences)."""
    varlen = pytest.importorskip("torch.nn.attention.varlen")
    # is_causal up to torch 2.12; later a window of (-1, 0) (both: bottom-right here).
    params = inspect.signature(varlen.varlen_attn).parameters
    causal = dict(is_causal=True) if "is_causal" in params else dict(window_size=(-1, 0))
    cu = torch.tensor([0, 70, 71, 300], dtype=torch.int32, device="cuda")
    q, k, v = (torch.randn(300, 4, 128, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    leaves = [t.clone().requires_grad_() for t in (q, k, v)]
    ran = flash_ext_ops(lambda: varlen.varlen_attn(*leaves, cu, cu, 229, 229,
                                                   **causal).sum().backward())
    assert {"flash_ext::attention_varlen_fwd", "flash_ext::attention_varlen_bwd"} <= ran
    for b in range(3):
        s = slice(int(cu[b]), int(cu[b + 1]))
        length = s.stop - s.start
        one = torch.tensor([0, length], dtype=torch.int32, device="cuda")
        out = varlen.varlen_attn(q[s], k[s], v[s], one, one, length, length, **causal)
        ref64, ref_lowp = (attention_ref(*(t[s].transpose(0, 1)[None] for t in (q, k, v)),
                                         is_causal=True, compute_dtype=dtype)[0][0].transpose(0, 1)
                           for dtype in (torch.float64, None))
        assert_rule("out", out, ref64, ref_lowp)
