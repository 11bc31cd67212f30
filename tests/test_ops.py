"""The custom ops under torch.library.opcheck, and flash_ext under torch.compile."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

import flash_ext
from flash_ext import dispatch
from flash_ext.reference import alibi_bias, attention_ref, visible_keys

ops = torch.ops.flash_ext


def dense_args(dtype=torch.float32, mask=True, dropout=False, sinks=False):
    q = torch.randn(2, 4, 9, 16, dtype=dtype, requires_grad=True)
    k = torch.randn(2, 2, 12, 16, dtype=dtype, requires_grad=True)
    v = torch.randn(2, 2, 12, 16, dtype=dtype, requires_grad=True)
    attn_mask = torch.randn(1, 4, 9, 12, dtype=dtype) if mask else None
    slopes = torch.rand(4)
    seed = torch.tensor([3, 4]) if dropout else None
    args = (q, k, v, attn_mask, slopes, seed, 0.25 if dropout else 0.0, 0.25, 5, 0, True, 7.0,
            False)
    return (*args, torch.randn(4, requires_grad=True)) if sinks else args


def varlen_args(dropout=False, sinks=False):
    cu = torch.tensor([0, 4, 4, 11], dtype=torch.int32)
    q = torch.randn(11, 4, 16, requires_grad=True)
    k = torch.randn(11, 2, 16, requires_grad=True)
    v = torch.randn(11, 2, 16, requires_grad=True)
    seed = torch.tensor([3, 4]) if dropout else None
    args = (q, k, v, cu, cu, 7, 7, torch.rand(4), seed, 0.25 if dropout else 0.0, 0.25, -1, 0,
            False, 0.0, False)
    return (*args, torch.randn(4, requires_grad=True)) if sinks else args


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize(("dropout", "sinks"), [(False, False), (True, False), (False, True)])
def test_opcheck_dense(dtype, dropout, sinks):
    args = dense_args(dtype, dropout=dropout, sinks=sinks)
    torch.library.opcheck(ops.attention_fwd, args)
    out, lse = ops.attention_fwd(*args)
    bwd_args = (torch.randn_like(out), *args[:3], out.detach(), lse, *args[3:])  # sinks last
    torch.library.opcheck(ops.attention_bwd, tuple(
        t.detach() if isinstance(t, torch.Tensor) else t for t in bwd_args))


@pytest.mark.parametrize(("dropout", "sinks"), [(False, False), (True, False), (False, True)])
def test_opcheck_varlen(dropout, sinks):
    args = varlen_args(dropout, sinks)
    torch.library.opcheck(ops.attention_varlen_fwd, args)
    out, lse = ops.attention_varlen_fwd(*args)
    bwd_args = (torch.randn_like(out), *args[:3], out.detach(), lse, *args[3:])
    torch.library.opcheck(ops.attention_varlen_bwd, tuple(
        t.detach() if isinstance(t, torch.Tensor) else t for t in bwd_args))


def test_opcheck_dropout_mask():
    torch.library.opcheck(ops.cpu_dropout_keep_mask, (torch.tensor([1, 2]), 2, 3, 5, 7, 0.5))


def test_opcheck_non_contiguous_layout():
    base = torch.randn(2, 9, 3, 4, 16, requires_grad=True)  # flash-attn (B, S, 3, H, D)
    q, k, v = (base[:, :, i].transpose(1, 2) for i in range(3))
    torch.library.opcheck(ops.attention_fwd,
                          (q, k, v, None, None, None, 0.0, 0.25, -1, 0, False, 0.0, False))


def test_opcheck_sm_margin():
    """sm_margin (SMs a CUDA forward leaves free) through the schema and the fake; the CPU
    kernels take it and give the same result."""
    args = dense_args(mask=False)
    torch.library.opcheck(ops.attention_fwd, (*args, None, 3))
    for a, b in zip(ops.attention_fwd(*args, None, 3), ops.attention_fwd(*args)):
        assert torch.equal(a, b)
    torch.library.opcheck(ops.attention_varlen_fwd, (*varlen_args(), None, 1))


def _train_step(q, k, v, mask, slopes):
    out = flash_ext.attention(q, k, v, attn_mask=mask, is_causal=True, enable_gqa=True,
                              alibi_slopes=slopes, softcap=20.0, window_size=(6, -1))
    return (out * out,)


def _compare_compiled(step, inputs, extra=()):
    """step compiled with fullgraph against eager: outputs element by element, and the
    gradients to `inputs` of the outputs weighted by fixed random tensors. (Outputs, not a
    loss summed in the graph: inductor sums in another order, which moves a float32 sum of a
    thousand terms by ~1e-5 on some draws.)"""
    torch._dynamo.reset()
    outs = torch.compile(step, fullgraph=True)(*inputs, *extra)
    outs_eager = step(*inputs, *extra)
    weights = [torch.randn_like(o) for o in outs]
    grads = torch.autograd.grad(outs, inputs, weights)
    grads_eager = torch.autograd.grad(outs_eager, inputs, weights)
    for a, b in zip((*outs, *grads), (*outs_eager, *grads_eager)):
        torch.testing.assert_close(a, b)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_compile_fullgraph_forward_backward(dtype):
    q, k, v, mask, slopes = dense_args(dtype)[:5]
    _compare_compiled(_train_step, (q, k, v), (mask > 0, slopes))


def test_compile_fullgraph_varlen_and_flash_api():
    q, k, v, cu = varlen_args()[:4]

    def step(q, k, v):
        out = flash_ext.flash_attn_varlen_func(q, k, v, cu, cu, 7, 7, causal=True)
        dense = flash_ext.flash_attn_func(q[None], k[None], v[None], causal=True)
        return out, dense

    _compare_compiled(step, (q, k, v))


def test_value_head_dim_opcheck_and_compile():
    """v's head dim differing from q's (the CPU kernels' out takes v's): the ops' fake
    implementations agree with them, and a compiled step matches eager."""
    q, k = torch.randn(2, 4, 9, 48), torch.randn(2, 2, 11, 48)
    v = torch.randn(2, 2, 11, 24)
    args = (q, k, v, None, None, None, 0.0, 0.2, -1, 0, False, 0.0, False)
    torch.library.opcheck(ops.attention_fwd, args)
    out, lse = ops.attention_fwd(*args)
    torch.library.opcheck(ops.attention_bwd, (torch.randn_like(out), q, k, v, out, lse, *args[3:]))
    leaves = tuple(t.requires_grad_(True) for t in (q, k, v))

    def step(q, k, v):
        return (flash_ext.attention(q, k, v, is_causal=True, enable_gqa=True),)

    _compare_compiled(step, leaves)


def test_compile_dropout_reproducible():
    q, k, v = dense_args()[:3]

    def f(q, k, v):
        return flash_ext.attention(q, k, v, dropout_p=0.3, enable_gqa=True)

    torch._dynamo.reset()
    compiled = torch.compile(f, fullgraph=True)
    torch.manual_seed(5)
    a = compiled(q, k, v)
    torch.manual_seed(5)
    b = compiled(q, k, v)
    c = compiled(q, k, v)
    # Inductor draws the seed with its own RNG, so compiled and eager seeds differ; each is
    # reproducible under torch.manual_seed.
    assert torch.equal(a, b)
    assert not torch.equal(a, c)


@pytest.mark.parametrize("entry", ["dense", "varlen"])
def test_double_backward_raises(entry):
    """create_graph gives the first-order gradients (their values unchanged); differentiating
    them again raises instead of returning a silently wrong second derivative."""
    if entry == "dense":
        q, k, v = dense_args()[:3]
        def f(q, k, v):
            return flash_ext.attention(q, k, v, is_causal=True, enable_gqa=True)
    else:
        q, k, v, cu = varlen_args()[:4]
        def f(q, k, v):
            return flash_ext.attention_varlen(q, k, v, cu, cu, 7, 7, is_causal=True,
                                              enable_gqa=True)
    out = f(q, k, v)
    weight = torch.randn_like(out)
    grads = torch.autograd.grad(out, (q, k, v), weight, create_graph=True)
    plain = torch.autograd.grad(f(q, k, v), (q, k, v), weight)
    for a, b in zip(grads, plain):
        assert a.requires_grad and torch.equal(a, b)
    with pytest.raises(RuntimeError, match="flash_ext: attention has no second derivative"):
        torch.autograd.grad(grads[0].sum(), q)


def test_double_backward_raises_mem_eff(mem_eff_on_cpu):
    q, k, v, bias = mem_eff_args(torch.float32)[:4]
    out = flash_ext.attention(q, k, v, bias, enable_gqa=True)
    (grad_bias,) = torch.autograd.grad(out.sum(), bias, create_graph=True)
    with pytest.raises(RuntimeError, match="flash_ext: attention has no second derivative"):
        grad_bias.sum().backward()


def test_lse_is_not_differentiable():
    q, k, v = dense_args()[:3]
    out, lse = flash_ext.attention(q, k, v, return_lse=True, enable_gqa=True)
    assert out.requires_grad and not lse.requires_grad


# The mem_eff ops' Python side (fake implementations, autograd, routing from the entry points,
# torch.compile) on the CPU. Stand-ins registered for these tests take the CUDA kernels' place:
# the CPU kernels give out, lse and dq/dk/dv, and the bias gradient dS = P * (dP - rowsum(dO * O))
# comes from the probabilities (of the softcapped scores). The kernels themselves are tested on
# the GPU (test_mem_eff.py).


def _mem_eff_fwd_cpu(q, k, v, attn_bias, cu_q, cu_k, max_seqlen_q, max_seqlen_k, slopes, seed,
                     dropout_p, scale, left, right, bottom_right, softcap, deterministic):
    options = (slopes, seed, dropout_p, scale, left, right, bottom_right, softcap, deterministic)
    if cu_q is None:
        return ops.attention_fwd(q, k, v, attn_bias, *options)
    return ops.attention_varlen_fwd(q, k, v, cu_q, cu_k, max_seqlen_q, max_seqlen_k, *options)


def _mem_eff_bwd_cpu(grad_out, q, k, v, out, lse, attn_bias, bias_requires_grad, cu_q, cu_k,
                     max_seqlen_q, max_seqlen_k, slopes, seed, dropout_p, scale, left, right,
                     bottom_right, softcap, deterministic):
    options = (slopes, seed, dropout_p, scale, left, right, bottom_right, softcap, deterministic)
    if cu_q is None:
        dq, dk, dv, _ = ops.attention_bwd(grad_out, q, k, v, out, lse, attn_bias, *options)
    else:
        dq, dk, dv, _ = ops.attention_varlen_bwd(grad_out, q, k, v, out, lse, cu_q, cu_k,
                                                 max_seqlen_q, max_seqlen_k, *options)
    if not bias_requires_grad:
        return dq, dk, dv, q.new_empty((0,))
    assert dropout_p == 0, "the stand-in's bias gradient has no dropout"
    (batch, heads_q, seqlen_q, _), seqlen_k = q.shape, k.shape[2]
    k, v = (t.repeat_interleave(heads_q // t.shape[1], 1).float() for t in (k, v))
    scores = q.float() @ k.transpose(-2, -1) * scale
    if softcap > 0:
        scores = softcap * torch.tanh(scores / softcap)
    scores = scores + attn_bias.float()
    if slopes is not None:
        scores = scores + alibi_bias(slopes, seqlen_q, seqlen_k, bottom_right).float()
    visible = visible_keys(seqlen_q, seqlen_k, (left, right), bottom_right)
    lse = lse[..., None]
    probs = torch.where(visible & (lse > float("-inf")), torch.exp(scores - lse), 0.0)
    dp = grad_out.float() @ v.transpose(-2, -1)
    ds = probs * (dp - (grad_out.float() * out.float()).sum(-1, keepdim=True))
    # As mem_eff_ops.cpp lays it out: rows padded to whole 16-byte pieces.
    align = 16 // q.element_size()
    padded = -(-seqlen_k // align) * align
    grad_bias = q.new_empty((batch, heads_q, seqlen_q, padded))[..., :seqlen_k]
    return dq, dk, dv, grad_bias.copy_(ds)


@pytest.fixture
def mem_eff_on_cpu():
    """Selection as on a CUDA build with the mem_eff kernels, for CPU tensors, which run the
    stand-ins. mem_eff comes before cpu in the table, so it takes every call it supports."""
    table = tuple(
        dataclasses.replace(b, devices=frozenset({"cpu"}), unavailable=None)
        if b.name == "mem_eff" else b for b in dispatch.BACKENDS)
    original = dispatch.BACKENDS
    dispatch.set_backends(table)
    try:
        with torch.library._scoped_library("flash_ext", "IMPL") as lib:
            lib.impl("mem_eff_fwd", _mem_eff_fwd_cpu, "CPU")
            lib.impl("mem_eff_bwd", _mem_eff_bwd_cpu, "CPU")
            yield
    finally:
        dispatch.set_backends(original)


class _OpCalls(TorchDispatchMode):
    """Records the flash_ext ops called and their arguments."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func.namespace == "flash_ext":
            self.calls.append((func.__name__, args))
        return func(*args, **(kwargs or {}))


def mem_eff_args(dtype, bias_shape=(4, 1, 12)):
    """Dense mem_eff_fwd arguments (q, k, v of dense_args) with a bias of bias_shape, ALiBi, a
    window, the bottom-right diagonal and softcap."""
    q, k, v = dense_args(dtype, mask=False)[:3]
    bias = torch.randn(bias_shape, dtype=dtype, requires_grad=True) if bias_shape else None
    return (q, k, v, bias, None, None, 0, 0, torch.rand(4), None, 0.0, 0.25, 5, 0, True, 7.0,
            False)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("bias_shape", [(4, 1, 12), (2, 4, 9, 12), None])
def test_opcheck_mem_eff(mem_eff_on_cpu, dtype, bias_shape):
    args = mem_eff_args(dtype, bias_shape)
    torch.library.opcheck(ops.mem_eff_fwd, args)
    out, lse = ops.mem_eff_fwd(*args)
    for bias_requires_grad in (False, True) if bias_shape else (False,):
        bwd_args = (torch.randn_like(out), *args[:3], out.detach(), lse, args[3],
                    bias_requires_grad, *args[4:])
        torch.library.opcheck(ops.mem_eff_bwd, tuple(
            t.detach() if isinstance(t, torch.Tensor) else t for t in bwd_args))


def test_opcheck_mem_eff_varlen(mem_eff_on_cpu):
    q, k, v, cu = varlen_args()[:4]
    args = (q, k, v, None, cu, cu, 7, 7, torch.rand(4), None, 0.0, 0.25, -1, 0, False, 7.0,
            True)
    torch.library.opcheck(ops.mem_eff_fwd, args)
    out, lse = ops.mem_eff_fwd(*args)
    assert lse.shape == (4, 11)
    bwd_args = (torch.randn_like(out), *args[:3], out.detach(), lse, None, False, *args[4:])
    torch.library.opcheck(ops.mem_eff_bwd, tuple(
        t.detach() if isinstance(t, torch.Tensor) else t for t in bwd_args))


def test_mem_eff_bias_gradient_layout(mem_eff_on_cpu):
    """grad_bias is (B, Hq, Sq, Sk) in rows of whole 16-byte pieces; without bias_requires_grad
    an empty (0,)."""
    q, k, v, bias, *rest = mem_eff_args(torch.bfloat16, (2, 4, 9, 13))
    k, v = (torch.cat([t, t[:, :, :1]], 2).detach() for t in (k, v))  # Sk = 13
    out, lse = ops.mem_eff_fwd(q, k, v, bias, *rest)
    grads = ops.mem_eff_bwd(out, q, k, v, out, lse, bias, True, *rest)
    assert grads[3].shape == (2, 4, 9, 13) and grads[3].stride() == (4 * 9 * 16, 9 * 16, 16, 1)
    assert grads[3].dtype == torch.bfloat16
    assert ops.mem_eff_bwd(out, q, k, v, out, lse, bias, False, *rest)[3].shape == (0,)


@pytest.mark.parametrize("mask_kind", ["bool", "float32", "same"])
def test_mem_eff_routing_and_bias_gradient(mem_eff_on_cpu, mask_kind):
    """attention() gives mem_eff a bool mask as it is and an additive one in q's dtype, and sums
    the bias gradient over the mask's broadcast dims, through its dtype conversion."""
    q, k, v = dense_args(torch.bfloat16, mask=False)[:3]
    mask = torch.randn(4, 1, 12, dtype=torch.bfloat16 if mask_kind == "same" else torch.float32)
    if mask_kind == "bool":
        mask = mask > 0
        mask[0, 0] = False  # query row 0 of head 0 sees no key
    else:
        mask.requires_grad_(True)
    with _OpCalls() as recorded:
        out, lse = flash_ext.attention(q, k, v, mask, enable_gqa=True, return_lse=True)
        grad_out = torch.randn_like(out)
        out.backward(grad_out)
    names = [name for name, _ in recorded.calls]
    assert names == ["mem_eff_fwd.default", "mem_eff_bwd.default"]
    bias, bias_requires_grad = recorded.calls[1][1][6:8]
    assert bias.dtype == (torch.bool if mask_kind == "bool" else torch.bfloat16)
    assert bias_requires_grad == (mask_kind != "bool")
    if mask_kind == "bool":
        assert bias is mask
    reference, lse_ref = attention_ref(q, k, v, attn_mask=mask, compute_dtype=torch.float64)
    torch.testing.assert_close(out.double(), reference, atol=2e-2, rtol=0)
    torch.testing.assert_close(lse.double(), lse_ref, atol=2e-2, rtol=0)
    if mask_kind == "bool":
        assert (out[:, 0, 0] == 0).all() and (lse[:, 0, 0] == float("-inf")).all()
        return
    leaf = mask.detach().double().requires_grad_(True)
    ref, _ = attention_ref(*(t.detach().double() for t in (q, k, v)), attn_mask=leaf)
    (grad_ref,) = torch.autograd.grad(ref, leaf, grad_out.double())
    assert mask.grad.shape == mask.shape and mask.grad.dtype == mask.dtype
    torch.testing.assert_close(mask.grad.double(), grad_ref, atol=5e-2, rtol=5e-2)


def test_mem_eff_varlen_routing(mem_eff_on_cpu):
    q, k, v, cu = varlen_args()[:4]
    with _OpCalls() as recorded:
        flash_ext.attention_varlen(q, k, v, cu, cu, 7, 7, enable_gqa=True)
        flash_ext.flash_attn_varlen_func(q, k, v, cu, cu, 7, 7, causal=True)
        flash_ext.attention_varlen(q, k, v, cu, cu, 7, 7, enable_gqa=True, softcap=5.0)
    assert [name for name, _ in recorded.calls] == ["mem_eff_fwd.default"] * 3
    assert recorded.calls[1][1][3:6] == (None, cu, cu)
    assert recorded.calls[1][1][12:] == (-1, 0, True, 0.0, False)  # causal, bottom-right
    assert recorded.calls[2][1][15] == 5.0  # softcap


def test_mem_eff_compile_fullgraph(mem_eff_on_cpu):
    q, k, v = dense_args(torch.float32, mask=False)[:3]
    bias = torch.randn(1, 4, 9, 12, requires_grad=True)
    keep = torch.rand(9, 12) > 0.2
    cu = varlen_args()[3]  # its first sequence: 4 tokens

    def step(q, k, v, bias):
        dense = flash_ext.attention(q, k, v, bias, enable_gqa=True, window_size=(6, -1),
                                    alibi_slopes=torch.ones(4), softcap=20.0)
        masked = flash_ext.attention(q, k, v, keep, is_causal=True, enable_gqa=True)
        first = (t[0, :, :4].transpose(0, 1) for t in (q, k, v))
        packed = flash_ext.flash_attn_varlen_func(*first, cu[:2], cu[:2], 4, 4, causal=True)
        return (dense * dense).sum() + masked.sum() + packed.sum()

    assert flash_ext.explain(q, k, v, bias, enable_gqa=True).selected == "mem_eff"
    torch._dynamo.reset()
    compiled = torch.compile(step, fullgraph=True)
    loss = compiled(q, k, v, bias)
    grads = torch.autograd.grad(loss, (q, k, v, bias))
    loss_eager = step(q, k, v, bias)
    torch.testing.assert_close(loss, loss_eager)
    for a, b in zip(grads, torch.autograd.grad(loss_eager, (q, k, v, bias))):
        torch.testing.assert_close(a, b)
