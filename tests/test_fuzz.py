"""Property-based tests (hypothesis) of the public entry points on the CPU: flash_ext.attention,
attention_varlen, flash_attn_func and flash_attn_varlen_func with drawn shapes (0 and 1 sizes
included), dtypes, strides, masks of every broadcast, windows, scales, softcap, ALiBi, dropout,
cu_seqlens, GQA ratios and head dims up to 512.

A third of the draws break one argument (`Call.defect`): the call must raise ValueError,
TypeError or NotImplementedError whose message names it. Every other call must match
reference.py by the float64 rule (attention_check.py; out, lse and, when the inputs require
grad, the gradients), dropout included through the exact keep-mask that cpu_dropout_keep_mask
replays. Any other outcome fails: another exception, a crash, a wrong answer, an error for a
valid call or a result for an invalid one.

CI runs a fixed (derandomized) set of examples; FLASH_EXT_FUZZ_EXAMPLES=N runs N fresh random
ones per entry point (with --hypothesis-seed=S to repeat them).

The *_cuda tests draw the same calls on CUDA tensors (the GPU machine; under compute-sanitizer's
memcheck: `compute-sanitizer --tool memcheck python -m pytest tests/test_fuzz.py -k cuda`).
There the dropout draws check shapes and finiteness (each CUDA backend draws its own keep-mask;
tests/test_dropout.py replays them), and a valid call that no CUDA backend takes may end in the
dispatcher's NotImplementedError, which lists every backend's reasons.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import math
import os
from collections.abc import Callable

import pytest
import torch
from attention_check import assert_rule

import flash_ext
from flash_ext.reference import attention_ref, attention_varlen_ref

hypothesis = pytest.importorskip("hypothesis")
st = hypothesis.strategies

fuzz = hypothesis.settings(
    max_examples=int(os.environ.get("FLASH_EXT_FUZZ_EXAMPLES", "60")),
    derandomize="FLASH_EXT_FUZZ_EXAMPLES" not in os.environ,
    deadline=datetime.timedelta(seconds=20),
    database=None,
    suppress_health_check=[hypothesis.HealthCheck.too_slow,
                           hypothesis.HealthCheck.filter_too_much],
)

DTYPES = [torch.float32, torch.bfloat16, torch.float16, torch.float64]
HEAD_DIMS = [1, 2, 3, 8, 16, 33, 64, 100, 128, 256, 257, 512]
# Largest (B, Hq, Sq, Sk, D) product drawn: the reference materializes the scores.
MAX_WORK = 3_000_000
ERRORS = (ValueError, TypeError, NotImplementedError)
ROUNDING = {t: torch.finfo(t).eps / 2 for t in DTYPES}  # unit roundoff
# The arguments a draw may break, per entry point ("dtype": float64, which no automatic
# backend takes).
COMMON_DEFECTS = ["dtype", "dropout_p", "window_size", "softcap", "alibi_slopes", "head_dim"]
ATTENTION_DEFECTS = [*COMMON_DEFECTS, "scale", "attn_mask", "enable_gqa"]
FLASH_DEFECTS = [*COMMON_DEFECTS, "softmax_scale"]
VARLEN_DEFECTS = [*COMMON_DEFECTS, "scale", "enable_gqa", "max_seqlen", "cu_seqlens_q",
                  "cu_seqlens_k"]
FLASH_VARLEN_DEFECTS = [*FLASH_DEFECTS, "max_seqlen", "cu_seqlens_q", "cu_seqlens_k"]


@dataclasses.dataclass
class Call:
    """One drawn call: `run(q, k, v)` returns (out, lse); `reference(q, k, v, compute_dtype)`
    the same from reference.py."""

    q: torch.Tensor
    k: torch.Tensor
    v: torch.Tensor
    run: Callable
    reference: Callable
    defect: str | None  # the argument the draw broke
    grad: bool
    scale: float | None
    dropout: tuple | None = None  # (seed, keep-mask shape, p) with dropout on
    shapes_only: bool = False  # dropout that cannot be replayed: check shapes and finiteness
    device: str = "cpu"  # where q, k, v (and the call's other tensors) live
    arguments: dict = dataclasses.field(default_factory=dict)

    def _repr_pretty_(self, printer, cycle) -> None:
        """What hypothesis prints for a failing example: the arguments, tensors described."""
        printer.text(f"Call(defect={self.defect!r}, grad={self.grad}, "
                     f"arguments={self.arguments})")


def max_abs(t: torch.Tensor) -> float:
    return t.detach().abs().max().item() if t.numel() else 0.0


def describe(t) -> object:
    """A tensor argument as shape, dtype and strides; anything else as it is."""
    if not isinstance(t, torch.Tensor):
        return t
    return f"{tuple(t.shape)} {str(t.dtype)[6:]} strides {t.stride()}"


def draw_defect(draw, kinds: list[str]) -> str | None:
    return draw(st.sampled_from(kinds)) if draw(st.integers(0, 2)) == 0 else None


def seqlen(draw) -> int:
    return draw(st.one_of(st.integers(0, 20), st.sampled_from([1, 63, 64, 65, 129, 300])))


def layout(draw, t: torch.Tensor, expandable: bool) -> torch.Tensor:
    """t, or a view of the same values with other strides."""
    kind = draw(st.sampled_from(["contiguous", "padded", "swapped", "last_dim_strided",
                                 "expanded" if expandable else "contiguous"]))
    if kind == "padded":  # rows further apart than head_dim
        return torch.cat([t, torch.zeros_like(t[..., :3])], -1)[..., : t.shape[-1]]
    if kind == "swapped":  # dims 0 and 1 swapped in memory
        return t.transpose(0, 1).contiguous().transpose(0, 1)
    if kind == "last_dim_strided":
        return torch.stack([t, torch.zeros_like(t)], -1)[..., 0]
    if kind == "expanded" and t.shape[1] > 0:  # one head (or token) broadcast by stride 0
        return t[:, :1].expand(t.shape)
    return t


def draw_qkv(draw, defect: str | None, shapes, dtype, grad: bool, device: str):
    """Random q, k, v of `shapes` in `dtype` on `device`, each a leaf with drawn strides; for
    the defect "dtype", k and v in another dtype."""
    kv_dtype = dtype
    if defect == "dtype" and (dtype != torch.float64 or draw(st.booleans())):
        kv_dtype = draw(st.sampled_from([t for t in DTYPES if t != dtype]))
    return [layout(draw, torch.randn(shape).to(dtype if name == "q" else kv_dtype).to(device),
                   name != "q").detach().requires_grad_(grad)
            for name, shape in zip("qkv", shapes)]


def on(device: str, *tensors):
    """The call's other tensors (drawn on the CPU, where the reference uses them) on `device`."""
    return [t.to(device) if isinstance(t, torch.Tensor) else t for t in tensors]


def draw_dtype(draw, defect: str | None, math_allowed: bool) -> tuple[torch.dtype, str | None]:
    """(dtype, backend): float64 runs with backend='math' where the entry point takes one, and
    is the defect "dtype" otherwise (or q's dtype, with k and v in another)."""
    if defect == "dtype":
        return draw(st.sampled_from([torch.float64, torch.float32, torch.bfloat16])), None
    dtype = draw(st.sampled_from(DTYPES[:3] + DTYPES[3:] * math_allowed))
    return dtype, "math" if dtype == torch.float64 else None


def draw_head_dims(draw, defect: str | None) -> tuple[int, int]:
    """Head dims of q and of k, v: 0, or two that differ, as the defect "head_dim"."""
    head_dim = draw(st.sampled_from(HEAD_DIMS))
    if defect != "head_dim":
        return head_dim, head_dim
    return (0, 0) if draw(st.booleans()) else (head_dim, head_dim + 1)


def draw_scalars(draw, defect: str | None, scale_name: str) -> dict:
    """dropout_p, scale, window_size and softcap."""
    dropout_p = draw(st.sampled_from([1.0, -0.1] if defect == "dropout_p" else
                                     [0.0, 0.0, 0.0, 0.25]))
    if defect == scale_name:
        scale = draw(st.sampled_from([math.nan, math.inf, -math.inf]))
    else:
        scale = draw(st.one_of(st.none(), st.sampled_from([0.0, -0.3, 0.05, 0.125, 1.0, 2.5])))
    sides = [-1, -1, 0, 1, 2, 5, 17]
    window = (draw(st.sampled_from(sides)), draw(st.sampled_from(sides)))
    if defect == "window_size":
        window = draw(st.sampled_from([(-2, window[1]), (window[0], -5), (1, 2, 3)]))
    softcap = draw(st.sampled_from([-1.0, math.inf] if defect == "softcap" else
                                   [0.0, 0.0, 1.0, 30.0]))
    return {"dropout_p": dropout_p, "scale": scale, "window_size": window, "softcap": softcap}


def draw_slopes(draw, defect: str | None, batch: int, heads: int) -> torch.Tensor | None:
    if defect == "alibi_slopes":
        return draw(st.sampled_from([torch.rand(heads + 1), torch.rand(heads).double(),
                                     torch.rand(batch + 1, heads)]))
    kind = draw(st.sampled_from([None, None, "heads", "batch_heads", "strided"]))
    if kind == "heads":
        return torch.rand(heads) * 0.5
    if kind == "batch_heads":
        return torch.rand(batch, heads) * 0.5
    if kind == "strided":  # (heads,) with stride 2
        return (torch.rand(heads, 2) * 0.5)[:, 0]
    return None


def draw_mask(draw, defect: str | None, full: tuple[int, ...], dtype: torch.dtype):
    """None, or a boolean or additive attn_mask of a shape that broadcasts to `full` (B, Hq,
    Sq, Sk); or, as the defect, one of an int dtype or a shape that does not broadcast."""
    kinds = ["int", "wrong_shape"] if defect == "attn_mask" else [None, "bool", "additive",
                                                                   "additive_float32"]
    kind = draw(st.sampled_from(kinds))
    if kind is None:
        return None
    rank = draw(st.integers(2, 4))
    shape = [draw(st.sampled_from([1, n])) for n in full[4 - rank:]]
    if kind == "wrong_shape":
        shape[-1] = full[-1] + 2
    if kind == "bool":
        mask = torch.rand(shape) < 0.8
    elif kind == "int":
        mask = torch.ones(shape, dtype=torch.int32)
    else:
        mask = torch.randn(shape).to(torch.float32 if kind == "additive_float32" else dtype)
    if draw(st.booleans()):  # a transposed view
        mask = mask.mT.contiguous().mT
    return mask


def draw_heads(draw, defect: str | None, flash_api: bool) -> tuple[int, int, bool]:
    """(heads_q, heads_kv, enable_gqa); flash-attn's functions always allow GQA."""
    heads_kv = draw(st.integers(0 if defect != "enable_gqa" else 1, 3))
    ratio = draw(st.sampled_from([2, 3] if defect == "enable_gqa" else [1, 1, 2, 3]))
    enable_gqa = flash_api or (defect != "enable_gqa" and (ratio > 1 or draw(st.booleans())))
    return heads_kv * ratio, heads_kv, enable_gqa


def cost_ok(batch, heads, seqlen_q, seqlen_k, head_dim) -> bool:
    return batch * heads * max(seqlen_q, 1) * max(seqlen_k, 1) * max(head_dim, 1) <= MAX_WORK


def drawn_seed(seed: int) -> torch.Tensor:
    """The (seed, offset) that flash_ext draws right after torch.manual_seed(seed)."""
    torch.manual_seed(seed)
    return torch.randint(0, 2**62, (2,), dtype=torch.int64)


def dropout_of(scalars: dict, seed: int, keep_shape: tuple) -> tuple | None:
    p = scalars["dropout_p"]
    return (seed, keep_shape, p) if 0 < p < 1 else None


@st.composite
def attention_calls(draw, device: str = "cpu") -> Call:
    torch.manual_seed(draw(st.integers(0, 2**31 - 1)))
    defect = draw_defect(draw, ATTENTION_DEFECTS)
    dtype, backend = draw_dtype(draw, defect, math_allowed=True)
    batch = draw(st.integers(0, 3))
    heads_q, heads_kv, enable_gqa = draw_heads(draw, defect, flash_api=False)
    seqlen_q, seqlen_k = seqlen(draw), seqlen(draw)
    head_dim, kv_head_dim = draw_head_dims(draw, defect)
    hypothesis.assume(cost_ok(batch, heads_q, seqlen_q, seqlen_k, head_dim))
    scalars = draw_scalars(draw, defect, "scale")
    is_causal = draw(st.booleans())
    slopes = draw_slopes(draw, defect, batch, heads_q)
    mask = draw_mask(draw, defect, (batch, heads_q, seqlen_q, seqlen_k), dtype)
    grad = draw(st.booleans())
    q, k, v = draw_qkv(draw, defect, [(batch, heads_q, seqlen_q, head_dim),
                                      (batch, heads_kv, seqlen_k, kv_head_dim),
                                      (batch, heads_kv, seqlen_k, kv_head_dim)], dtype, grad,
                       device)
    seed = draw(st.integers(0, 2**31 - 1))
    mask_on, slopes_on = on(device, mask, slopes)

    def run(q, k, v):
        torch.manual_seed(seed)
        return flash_ext.attention(q, k, v, attn_mask=mask_on, is_causal=is_causal,
                                   enable_gqa=enable_gqa, alibi_slopes=slopes_on,
                                   return_lse=True, backend=backend, **scalars)

    reference = functools.partial(
        attention_ref, attn_mask=mask, is_causal=is_causal, window_size=scalars["window_size"],
        scale=scalars["scale"], alibi_slopes=slopes, softcap=scalars["softcap"])
    arguments = {"q": q, "k": k, "v": v, "attn_mask": mask, "is_causal": is_causal,
                 "enable_gqa": enable_gqa, "alibi_slopes": slopes, "backend": backend, **scalars}
    dropout = dropout_of(scalars, seed, (batch, heads_q, seqlen_q, seqlen_k))
    # backend='math' draws its own dropout mask (torch.rand): no replay to compare with.
    return Call(q, k, v, run, reference, defect, grad, scalars["scale"], dropout,
                shapes_only=dropout is not None and (backend == "math" or device != "cpu"),
                arguments={name: describe(a) for name, a in arguments.items()}, device=device)


@st.composite
def flash_attn_calls(draw, device: str = "cpu") -> Call:
    torch.manual_seed(draw(st.integers(0, 2**31 - 1)))
    defect = draw_defect(draw, FLASH_DEFECTS)
    dtype, _ = draw_dtype(draw, defect, math_allowed=False)
    batch = draw(st.integers(0, 3))
    heads_q, heads_kv, _ = draw_heads(draw, defect, flash_api=True)
    seqlen_q, seqlen_k = seqlen(draw), seqlen(draw)
    head_dim, kv_head_dim = draw_head_dims(draw, defect)
    hypothesis.assume(cost_ok(batch, heads_q, seqlen_q, seqlen_k, head_dim))
    scalars = draw_scalars(draw, defect, "softmax_scale")
    causal = draw(st.booleans())
    slopes = draw_slopes(draw, defect, batch, heads_q)
    grad = draw(st.booleans())
    deterministic = draw(st.booleans())
    q, k, v = draw_qkv(draw, defect, [(batch, seqlen_q, heads_q, head_dim),
                                      (batch, seqlen_k, heads_kv, kv_head_dim),
                                      (batch, seqlen_k, heads_kv, kv_head_dim)], dtype, grad,
                       device)
    seed = draw(st.integers(0, 2**31 - 1))
    (slopes_on,) = on(device, slopes)

    def run(q, k, v):
        torch.manual_seed(seed)
        out, lse, _ = flash_ext.flash_attn_func(
            q, k, v, scalars["dropout_p"], scalars["scale"], causal, scalars["window_size"],
            scalars["softcap"], slopes_on, deterministic, return_attn_probs=True)
        return out, lse

    def reference(q, k, v, dropout_keep=None, dropout_p=0.0, compute_dtype=None):
        out, lse = attention_ref(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=causal,
            window_size=scalars["window_size"], bottom_right=True, scale=scalars["scale"],
            alibi_slopes=slopes, softcap=scalars["softcap"], dropout_keep=dropout_keep,
            dropout_p=dropout_p, compute_dtype=compute_dtype)
        return out.transpose(1, 2), lse

    arguments = {"q": q, "k": k, "v": v, "causal": causal, "alibi_slopes": slopes,
                 "deterministic": deterministic, **scalars}
    dropout = dropout_of(scalars, seed, (batch, heads_q, seqlen_q, seqlen_k))
    return Call(q, k, v, run, reference, defect, grad, scalars["scale"], dropout,
                shapes_only=dropout is not None and device != "cpu",
                arguments={name: describe(a) for name, a in arguments.items()}, device=device)


def draw_cu_seqlens(draw, defect: str | None, name: str, batch: int):
    """(cu_seqlens, max_seqlen): lengths from 0 up, max_seqlen at least the longest; int64
    offsets as the defect `name`, a max_seqlen short of the longest as "max_seqlen"."""
    lengths = [seqlen(draw) for _ in range(batch)]
    longest = max(lengths, default=0)
    max_seqlen = longest + draw(st.sampled_from([0, 0, 1, 5]))
    if defect == "max_seqlen" and name == "cu_seqlens_q":
        max_seqlen = longest - 1  # -1 for an empty batch: not a valid max_seqlen either
    cu = torch.tensor([0, *torch.tensor(lengths, dtype=torch.int64).cumsum(0).tolist()],
                      dtype=torch.int64 if defect == name else torch.int32)
    return cu, max_seqlen


@st.composite
def varlen_calls(draw, flash_api: bool, device: str = "cpu") -> Call:
    torch.manual_seed(draw(st.integers(0, 2**31 - 1)))
    defect = draw_defect(draw, FLASH_VARLEN_DEFECTS if flash_api else VARLEN_DEFECTS)
    dtype, backend = draw_dtype(draw, defect, math_allowed=not flash_api)
    batch = draw(st.integers(0, 3))
    heads_q, heads_kv, enable_gqa = draw_heads(draw, defect, flash_api)
    cu_q, max_q = draw_cu_seqlens(draw, defect, "cu_seqlens_q", batch)
    cu_k, max_k = draw_cu_seqlens(draw, defect, "cu_seqlens_k", batch)
    head_dim, kv_head_dim = draw_head_dims(draw, defect)
    hypothesis.assume(cost_ok(max(batch, 1), heads_q, max_q, max_k, head_dim))
    scalars = draw_scalars(draw, defect, "softmax_scale" if flash_api else "scale")
    causal = draw(st.booleans())
    slopes = draw_slopes(draw, defect, batch, heads_q)
    grad = draw(st.booleans())
    total_q, total_k = int(cu_q[-1]), int(cu_k[-1])
    q, k, v = draw_qkv(draw, defect, [(total_q, heads_q, head_dim),
                                      (total_k, heads_kv, kv_head_dim),
                                      (total_k, heads_kv, kv_head_dim)], dtype, grad, device)
    seed = draw(st.integers(0, 2**31 - 1))
    cu_q_on, cu_k_on, slopes_on = on(device, cu_q, cu_k, slopes)

    def run(q, k, v):
        torch.manual_seed(seed)
        if flash_api:
            out, lse, _ = flash_ext.flash_attn_varlen_func(
                q, k, v, cu_q_on, cu_k_on, max_q, max_k, scalars["dropout_p"], scalars["scale"],
                causal, scalars["window_size"], scalars["softcap"], slopes_on,
                return_attn_probs=True)
            return out, lse
        return flash_ext.attention_varlen(q, k, v, cu_q_on, cu_k_on, max_q, max_k,
                                          is_causal=causal, enable_gqa=enable_gqa,
                                          alibi_slopes=slopes_on, return_lse=True,
                                          backend=backend, **scalars)

    left, right = scalars["window_size"][0], scalars["window_size"][-1]
    reference = functools.partial(
        attention_varlen_ref, cu_seqlens_q=cu_q, cu_seqlens_k=cu_k,
        window_size=(left, 0 if causal else right), bottom_right=flash_api,
        scale=scalars["scale"], alibi_slopes=slopes, softcap=scalars["softcap"])
    arguments = {"q": q, "k": k, "v": v, "cu_seqlens_q": cu_q.tolist(),
                 "cu_seqlens_k": cu_k.tolist(), "max_seqlen_q": max_q, "max_seqlen_k": max_k,
                 "causal": causal, "enable_gqa": enable_gqa, "alibi_slopes": slopes,
                 "backend": backend, **scalars}
    dropout = dropout_of(scalars, seed, (batch, heads_q, max_q, max_k))
    return Call(q, k, v, run, reference, defect, grad, scalars["scale"], dropout,
                shapes_only=dropout is not None and (backend == "math" or device != "cpu"),
                arguments={name: describe(a) for name, a in arguments.items()}, device=device)


def check(call: Call) -> None:
    """The property of the module docstring."""
    inputs = (call.q, call.k, call.v)
    if call.defect is not None:
        with pytest.raises(ERRORS) as error:
            call.run(*inputs)
        assert call.defect in str(error.value), (
            f"the error does not name {call.defect}: {error.value}")
        return
    try:
        out, lse = call.run(*inputs)
    except NotImplementedError as error:
        if call.device == "cpu" or "no flash_ext backend can run this call" not in str(error):
            raise
        hypothesis.event("no CUDA backend takes the call")
        return
    assert out.dtype == call.q.dtype and out.shape == call.q.shape
    assert out.device == call.q.device
    if call.shapes_only:
        assert torch.isfinite(out).all()
        return
    out_on_device, out, lse = out, out.cpu(), lse.cpu()
    reference = call.reference
    if call.dropout is not None:
        seed, shape, p = call.dropout
        keep = torch.ops.flash_ext.cpu_dropout_keep_mask(drawn_seed(seed), *shape, p)
        reference = functools.partial(reference, dropout_keep=keep, dropout_p=p)
    x64 = [t.detach().cpu().to(torch.float64).requires_grad_(call.grad) for t in inputs]
    ref64, ref64_lse = reference(*x64, compute_dtype=torch.float64)
    xl = [t.detach().cpu().clone().requires_grad_(call.grad) for t in inputs]
    ref_lowp, ref_lowp_lse = reference(*xl, compute_dtype=None)
    # Errors the lowp reference does not share, which its luck can hide in a small call: the
    # kernels' fp32 scores, and dS = P (dP - delta) where P is near one-hot, which the
    # reference's autograd cancels exactly but the flash backward (dP from a GEMM, delta =
    # rowsum(dO * O) from the stored O, rounded to the input dtype) does not. A D-term dot
    # product is taken to err by dot_error * max|x| max|y|.
    head_dim = call.q.shape[-1]
    dot_error = 4 * math.sqrt(head_dim) * (ROUNDING[torch.float32] + ROUNDING[call.q.dtype])
    scale = abs(call.scale if call.scale is not None else head_dim ** -0.5)
    score_error = dot_error * scale * max_abs(call.q) * max_abs(call.k)
    assert_rule("out", out, ref64, ref_lowp, 2 * score_error * max_abs(call.v))
    assert_rule("lse", lse, ref64_lse, ref_lowp_lse, score_error)
    if not call.grad or out.numel() == 0:
        return
    g = torch.randn_like(out)
    # allow_unused: backend='math' leaves k and v out of the graph when they have no tokens.
    grads = torch.autograd.grad(out_on_device, inputs, g.to(call.device), allow_unused=True)
    grads = [None if t is None else t.cpu() for t in grads]
    grads64 = torch.autograd.grad(ref64, x64, g.to(torch.float64), allow_unused=True)
    grads_lowp = torch.autograd.grad(ref_lowp, xl, g, allow_unused=True)
    # P errs by 2 * score_error relative, dP - delta by dot_error; dP is about sqrt(D) |dO| |v|.
    keep_scale = 1 / (1 - call.dropout[2]) if call.dropout else 1.0
    dp = math.sqrt(head_dim) * max_abs(g) * max_abs(call.v) * keep_scale
    ds_error = (dot_error + 2 * score_error) * dp
    extra = {"q": ds_error * scale * max_abs(call.k), "k": ds_error * scale * max_abs(call.q),
             "v": 2 * score_error * max_abs(g) * keep_scale}
    for name, a, b, c, x in zip("qkv", grads, grads64, grads_lowp, inputs):
        zeros = torch.zeros(x.shape, dtype=torch.float64)
        assert_rule(f"d{name}", zeros if a is None else a, zeros if b is None else b,
                    zeros if c is None else c, extra[name])


@fuzz
@hypothesis.given(attention_calls())
def test_attention(call: Call):
    check(call)


@fuzz
@hypothesis.given(varlen_calls(flash_api=False))
def test_attention_varlen(call: Call):
    check(call)


@fuzz
@hypothesis.given(flash_attn_calls())
def test_flash_attn_func(call: Call):
    check(call)


@fuzz
@hypothesis.given(varlen_calls(flash_api=True))
def test_flash_attn_varlen_func(call: Call):
    check(call)


@pytest.mark.gpu
@fuzz
@hypothesis.given(attention_calls("cuda"))
def test_attention_cuda(call: Call):
    check(call)


@pytest.mark.gpu
@fuzz
@hypothesis.given(varlen_calls(flash_api=False, device="cuda"))
def test_attention_varlen_cuda(call: Call):
    check(call)


@pytest.mark.gpu
@fuzz
@hypothesis.given(flash_attn_calls("cuda"))
def test_flash_attn_func_cuda(call: Call):
    check(call)


@pytest.mark.gpu
@fuzz
@hypothesis.given(varlen_calls(flash_api=True, device="cuda"))
def test_flash_attn_varlen_func_cuda(call: Call):
    check(call)
