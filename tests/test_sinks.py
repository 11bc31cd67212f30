"""Learnable attention sinks (gpt-oss): `sinks=` of flash_ext.attention and attention_varlen,
`learnable_sink=` of the flash-attn functions. out, lse (which includes the sink) and the
gradients of q, k, v and the sinks against reference.py's eager formula in float64, by the rule
of attention_check.py, over the feature matrix: causal in both alignments, sliding windows,
softcap, ALiBi, scale, masks, GQA/MQA, dropout (the kernels' keep-mask replayed), varlen with
empty sequences, rows that see no key, odd sizes, sinks in float32 or the inputs' dtype. Also:
deterministic mode, torch.compile(fullgraph=True), no-grad calls and a gradient to the sinks
alone, flash_attn_with_kvcache, the math and flex backends, a float64 gradcheck, bad inputs.

Each case runs on every kernel backend through the `target` fixture, which makes its backend
the only automatic one (the flash-attn functions take no backend argument) and checks that its
forward op ran: "cpu", and mem_eff's path (entry, autograd node, routing) on the CPU with
test_ops.py's stand-ins for its CUDA kernels; "flash" and "mem_eff" on the GPU (marked gpu).
"""

from __future__ import annotations

import dataclasses
import itertools

import pytest
import torch
from attention_check import EPS, assert_rule, leaves, run_cpu_check
from test_ops import mem_eff_on_cpu  # noqa: F401  (a fixture: mem_eff's stand-ins on the CPU)
from torch.utils._python_dispatch import TorchDispatchMode

import flash_ext
from flash_ext import dispatch
from flash_ext.ops import CUDA_BACKENDS
from flash_ext.reference import attention_ref, attention_varlen_ref

ops = torch.ops.flash_ext
DTYPES = [torch.float32, torch.bfloat16, torch.float16]
NAMES = ("q", "k", "v", "sinks")


def _on_gpu(name: str):
    return pytest.param(name, marks=[
        pytest.mark.gpu,
        pytest.mark.skipif(name not in CUDA_BACKENDS, reason=f"this build has no {name} kernels"),
    ])


@dataclasses.dataclass(frozen=True)
class Target:
    """The kernel backend under test and the device of its inputs."""

    name: str
    device: str


@pytest.fixture(params=["cpu", "mem_eff_standin", _on_gpu("flash"), _on_gpu("mem_eff")])
def target(request):
    label = request.param
    if label == "mem_eff_standin":
        request.getfixturevalue("mem_eff_on_cpu")
    name = "mem_eff" if label == "mem_eff_standin" else label
    original = dispatch.BACKENDS
    dispatch.set_backends(tuple(b if b.name == name else dataclasses.replace(b, automatic=False)
                                for b in original))
    try:
        yield Target(name, "cpu" if label in ("cpu", "mem_eff_standin") else "cuda")
    finally:
        dispatch.set_backends(original)


class _ForwardOps(TorchDispatchMode):
    """The names of the flash_ext forward ops called."""

    def __init__(self):
        super().__init__()
        self.names = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = func.__name__.split(".")[0]
        if func.namespace == "flash_ext" and name.endswith("_fwd"):
            self.names.add(name)
        return func(*args, **(kwargs or {}))


def require(target: Target, dtype: torch.dtype, head_dim: int) -> None:
    """Skip what the target's backend does not take by design (dtype) or in this build."""
    backend = next(b for b in dispatch.BACKENDS if b.name == target.name)
    if dtype not in backend.dtypes:
        pytest.skip(f"{target.name} does not take {dtype}")
    probe = torch.empty(1, 1, 1, head_dim, dtype=dtype, device=target.device)
    reasons = flash_ext.explain(probe, probe, probe, backend=target.name).reasons[target.name]
    missing = [r for r in reasons if r.startswith("not built")]
    if missing:
        pytest.skip("; ".join(missing))


def built_head_dim(dtype: torch.dtype) -> int:
    """A head dim whose flash kernels this (possibly partial) CUDA build has."""
    for dim in (64, 128, 256, 32, 96, 160, 192, 224):
        probe = torch.empty(1, 1, 1, dim, dtype=dtype, device="cuda")
        reasons = flash_ext.explain(probe, probe, probe, backend="flash").reasons["flash"]
        if not any(r.startswith("not built") for r in reasons):
            return dim
    pytest.skip("this build has no flash kernels for " + str(dtype))


def target_dtype(target: Target) -> torch.dtype:
    """float32, or bfloat16 where the target's backend takes half types only."""
    return torch.bfloat16 if target.name == "flash" else torch.float32


def check_with_sinks(run, reference, inputs, sinks):
    """run(q, k, v, sinks) -> (out, lse) against reference(q, k, v, sinks, compute_dtype) by the
    rule: out, lse, and the gradients of out . g for a random g, which it returns.

    The sinks' gradient is a sum over the head's rows and their elements, -exp(sink - lse) *
    g * out, whose rounding errors in the eager formula run in the inputs' dtype (ref_lowp)
    cancel out now and then: over a few heads the rule's 2 * |ref_lowp - ref64| is then too
    small a yardstick. Its floor is that of such a sum instead: EPS of the inputs' dtype times
    the sum of the terms' magnitudes (a sign error, a missing factor or the wrong head is off
    by about the sum itself).
    """
    x = leaves(*inputs, sinks)
    x64 = leaves(*(t.to(torch.float64) for t in (*inputs, sinks)))
    xl = leaves(*inputs, sinks)
    (out, lse), (ref64, lse64), (ref_lowp, lse_lowp) = (
        run(*x), reference(*x64, compute_dtype=torch.float64),
        reference(*xl, compute_dtype=None))
    assert out.dtype == inputs[0].dtype
    assert_rule("out", out, ref64, ref_lowp)
    assert_rule("lse", lse, lse64, lse_lowp)
    g = torch.randn_like(out)
    grads = torch.autograd.grad(out, x, g)
    grads64 = torch.autograd.grad(ref64, x64, g.to(torch.float64))
    grads_lowp = torch.autograd.grad(ref_lowp, xl, g)
    for name, a, b, c in zip(NAMES[:3], grads, grads64, grads_lowp):
        assert_rule(f"d{name}", a, b, c)
    varlen = out.dim() == 3
    row_sums = (g.to(torch.float64) * ref64.detach()).abs().sum(-1)  # (B, H, S), or (T, H)
    terms = torch.exp(x64[3].detach()[:, None] - lse64) * (row_sums.t() if varlen else row_sums)
    per_head = terms.sum(1) if varlen else terms.sum((0, 2))
    assert_rule("dsinks", grads[3], grads64[3], grads_lowp[3],
                eps=EPS[inputs[0].dtype] * per_head.max().item())
    return grads


def check(target: Target, run, reference, inputs, sinks):
    """check_with_sinks; the target's forward op must have run."""
    require(target, inputs[0].dtype, inputs[0].shape[-1])
    with _ForwardOps() as ran:
        grads = check_with_sinks(run, reference, inputs, sinks)
    expected = ({"mem_eff_fwd"} if target.name == "mem_eff"
                else {"attention_fwd", "attention_varlen_fwd"})
    assert ran.names and ran.names <= expected, f"ran {ran.names}, not {target.name}'s forward"
    return grads


def qkv(device, batch, heads_q, heads_kv, seqlen_q, seqlen_k, head_dim, dtype):
    """q (B, Hq, Sq, D), k and v (B, Hkv, Sk, D)."""
    def randn(*shape):
        return torch.randn(*shape, dtype=dtype, device=device)
    return (randn(batch, heads_q, seqlen_q, head_dim), randn(batch, heads_kv, seqlen_k, head_dim),
            randn(batch, heads_kv, seqlen_k, head_dim))


def random_sinks(heads: int, dtype: torch.dtype, device) -> torch.Tensor:
    """Sinks around the rows' log-sum-exps (log Sk and a little), so that each one takes from a
    few percent to most of its rows' probability."""
    return (torch.randn(heads, device=device) * 2 + 1.5).to(dtype)


def sinks_dtype(kind: str, dtype: torch.dtype) -> torch.dtype:
    return torch.float32 if kind == "float32" else dtype


# The two call styles and their references; kwargs in the reference's names.


def dense_reference(**kwargs):
    """attention_ref as check_with_sinks calls it, the sinks its fourth input."""

    def reference(q, k, v, sinks, compute_dtype):
        return attention_ref(q, k, v, sinks=sinks, compute_dtype=compute_dtype, **kwargs)

    return reference


def sdpa_style(is_causal=False, window_size=(-1, -1), dropout_keep=None, **kwargs):
    """flash_ext.attention on (B, H, S, D), top-left causal."""

    def run(q, k, v, sinks):
        return flash_ext.attention(q, k, v, is_causal=is_causal, window_size=window_size,
                                   enable_gqa=q.shape[1] != k.shape[1], sinks=sinks,
                                   return_lse=True, **kwargs)

    window = (window_size[0], 0) if is_causal else window_size
    return run, dense_reference(window_size=window, dropout_keep=dropout_keep, **kwargs)


def flash_style(causal=False, window_size=(-1, -1), scale=None, dropout_keep=None, **kwargs):
    """flash_attn_func on the (B, S, H, D) views of (B, H, S, D) inputs, bottom-right causal."""

    def run(q, k, v, sinks):
        out, lse, _ = flash_ext.flash_attn_func(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), softmax_scale=scale,
            causal=causal, window_size=window_size, return_attn_probs=True,
            learnable_sink=sinks, **kwargs)
        return out.transpose(1, 2), lse

    window = (window_size[0], 0) if causal else window_size
    return run, dense_reference(window_size=window, bottom_right=True, scale=scale,
                                dropout_keep=dropout_keep, **kwargs)


STYLES = {"sdpa": sdpa_style, "flash": flash_style}

# (style, options): a tensor option is named by its shape kind and made per test.
CASES = {
    "plain": ("sdpa", {}),
    "causal_top_left": ("sdpa", {"is_causal": True}),
    "causal_bottom_right": ("flash", {"causal": True}),
    "sliding_causal": ("flash", {"causal": True, "window_size": (6, 0)}),  # gpt-oss's layers
    "window": ("sdpa", {"window_size": (5, 3)}),
    "softcap": ("sdpa", {"is_causal": True, "softcap": 4.0}),
    "alibi": ("flash", {"causal": True, "alibi_slopes": "heads"}),
    "alibi_per_batch": ("sdpa", {"alibi_slopes": "batch_heads"}),
    "scale": ("flash", {"scale": 0.3}),
    "negative_scale": ("sdpa", {"scale": -0.2, "window_size": (7, 0)}),
    "bool_mask": ("sdpa", {"attn_mask": "bool"}),
    "additive_mask": ("sdpa", {"attn_mask": "additive", "is_causal": True}),
}


def case_options(case: str, target: Target, dtype: torch.dtype, batch: int, heads: int,
                 seqlen_q: int, seqlen_k: int) -> dict:
    options = dict(CASES[case][1])
    if options.get("alibi_slopes") == "heads":
        options["alibi_slopes"] = torch.rand(heads, device=target.device)
    elif options.get("alibi_slopes") == "batch_heads":
        options["alibi_slopes"] = torch.rand(batch, heads, device=target.device)
    if options.get("attn_mask") == "bool":
        if target.name == "flash":
            pytest.skip("flash takes no attn_mask")
        mask = torch.rand(batch, 1, seqlen_q, seqlen_k, device=target.device) > 0.4
        mask[:, :, ::5] = False  # rows that see no key
        options["attn_mask"] = mask
    elif options.get("attn_mask") == "additive":
        if target.name == "flash":
            pytest.skip("flash takes no attn_mask")
        options["attn_mask"] = torch.randn(seqlen_q, seqlen_k, dtype=dtype, device=target.device)
    return options


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("sinks_kind", ["float32", "inputs"])
@pytest.mark.parametrize("case", CASES)
def test_features(target, case, dtype, sinks_kind):
    batch, heads_q, heads_kv, seqlen_q, seqlen_k = 2, 4, 2, 29, 41
    q, k, v = qkv(target.device, batch, heads_q, heads_kv, seqlen_q, seqlen_k, 40, dtype)
    if case == "softcap":
        q, k = q * 3, k * 3  # scores well into tanh's curve
    options = case_options(case, target, dtype, batch, heads_q, seqlen_q, seqlen_k)
    run, reference = STYLES[CASES[case][0]](**options)
    sinks = random_sinks(heads_q, sinks_dtype(sinks_kind, dtype), target.device)
    grads = check(target, run, reference, (q, k, v), sinks)
    assert grads[3].dtype == sinks.dtype and grads[3].abs().max() > 0


SEQLENS = [(1, 1), (1, 17), (17, 1), (17, 17), (113, 17), (17, 113), (113, 113)]


def _one_key_rows(seqlens: tuple[int, int], causal: str) -> bool:
    """Whether every row that sees a key sees exactly one."""
    seqlen_q, seqlen_k = seqlens
    return seqlen_k == 1 or (seqlen_q == 1 and causal == "top_left")


# Rows that see a single key and the sink are run in float32 only: their dS = p (dP - D') with
# D' = rowsum(dO * out') cancels to p (1 - p) dO.v, and the kernels read out' rounded to the
# input dtype (any kernel that computes D from O does), where the eager formula in that dtype
# rounds dO.v instead; measured up to 2.8x the rule's 2x margin in bfloat16 over 30 draws.
SIZE_CASES = [(seqlens, causal, dtype)
              for seqlens in SEQLENS for causal in ("none", "top_left", "bottom_right")
              for dtype in (torch.float32, torch.bfloat16)
              if dtype == torch.float32 or not _one_key_rows(seqlens, causal)]


@pytest.mark.parametrize(("seqlens", "causal", "dtype"), SIZE_CASES)
def test_sizes(target, seqlens, causal, dtype):
    """Sq != Sk both ways; bottom-right with Sq > Sk has rows that see no key. Head dim 36: not
    a multiple of 8 (the flash kernels run it zero-padded)."""
    q, k, v = qkv(target.device, 2, 3, 3, *seqlens, 36, dtype)
    run, reference = (flash_style(causal=True) if causal == "bottom_right"
                      else sdpa_style(is_causal=causal == "top_left"))
    check(target, run, reference, (q, k, v), random_sinks(3, torch.float32, target.device))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("heads", [(8, 2), (6, 1)])
@pytest.mark.parametrize("style", STYLES)
def test_gqa(target, heads, style, dtype):
    """The sinks are per query head: each gets the gradient of its own rows only."""
    q, k, v = qkv(target.device, 2, *heads, 23, 31, 64, dtype)
    run, reference = STYLES[style](**({"causal": True} if style == "flash" else {}))
    check(target, run, reference, (q, k, v), random_sinks(heads[0], dtype, target.device))


def test_non_contiguous_inputs(target):
    base = torch.randn(2, 37, 3, 4, 64, device=target.device)  # flash-attn's (B, S, 3, H, D)
    q, k, v = (base[:, :, i].transpose(1, 2) for i in range(3))
    sinks = random_sinks(8, torch.float32, target.device)[::2]  # a strided (4,) view
    check(target, *sdpa_style(is_causal=True), (q, k, v), sinks)


def test_rows_with_no_visible_key(target):
    """out 0 and lse = the sink's logit (the sink alone in the row, its probability dropped);
    no NaN, the gradients of those rows zero."""
    dtype = target_dtype(target)
    require(target, dtype, 32)
    q, k, v = leaves(*qkv(target.device, 2, 4, 4, 24, 16, 32, dtype))
    sinks = leaves(random_sinks(4, torch.float32, target.device))[0]
    out, lse, _ = flash_ext.flash_attn_func(*(t.transpose(1, 2) for t in (q, k, v)), causal=True,
                                            return_attn_probs=True, learnable_sink=sinks)
    hidden = slice(0, 8)  # bottom-right causal, Sq - Sk = 8: rows 0..7 see no key
    assert (out[:, hidden] == 0).all()
    assert torch.equal(lse[:, :, hidden], sinks.detach()[None, :, None].expand(2, 4, 8))
    grads = torch.autograd.grad(out, (q, k, v, sinks), torch.randn_like(out))
    assert all(torch.isfinite(g).all() for g in grads)
    assert (grads[0][:, :, hidden] == 0).all()


def test_infinite_sinks(target):
    """A sink of -inf (no sink: rows without keys keep lse = -inf) or +inf (every row's weight:
    out 0, lse +inf) gives finite gradients and a zero gradient for that sink, and leaves the
    other heads as they are with finite sinks there."""
    dtype = target_dtype(target)
    require(target, dtype, 32)
    q, k, v = leaves(*qkv(target.device, 2, 4, 4, 24, 16, 32, dtype))
    finite = random_sinks(4, torch.float32, target.device)
    edge = finite.clone()
    edge[1], edge[2] = -float("inf"), float("inf")
    dout = torch.randn(2, 24, 4, 32, device=target.device, dtype=dtype)
    results = []
    for values in (finite, edge):
        sinks = leaves(values)[0]
        out, lse, _ = flash_ext.flash_attn_func(*(t.transpose(1, 2) for t in (q, k, v)),
                                                causal=True, return_attn_probs=True,
                                                learnable_sink=sinks)
        results.append((out, lse, *torch.autograd.grad(out, (q, k, v, sinks), dout)))
    (out0, lse0, *grads0), (out, lse, *grads) = results
    assert all(torch.isfinite(t).all() for t in (out, *grads))
    assert grads[3][1] == 0 and grads[3][2] == 0
    assert (out[:, :, 2] == 0).all() and (lse[:, 2] == float("inf")).all()
    assert (lse[:, 1, :8] == -float("inf")).all()  # rows 0..7 see no key (bottom-right)
    assert (grads[0][:, 2] == 0).all()  # the +inf sink takes every row's weight
    kept = [0, 3]  # heads with the same finite sink in both calls (MHA: nothing shared)
    torch.testing.assert_close(out[:, :, kept], out0[:, :, kept], rtol=0, atol=0)
    torch.testing.assert_close(lse[:, kept], lse0[:, kept], rtol=0, atol=0)
    torch.testing.assert_close(grads[3][kept], grads0[3][kept], rtol=0, atol=0)
    for g, g0 in zip(grads[:3], grads0[:3]):  # (B, H, S, D); flash's dq adds by atomics
        torch.testing.assert_close(g[:, kept], g0[:, kept], rtol=1e-5, atol=1e-5)


def drawn_seed(seed: int, device: str) -> torch.Tensor:
    """The (seed, offset) that flash_ext draws on `device` right after torch.manual_seed(seed)."""
    torch.manual_seed(seed)
    return torch.randint(0, 2**62, (2,), dtype=torch.int64, device=device)


def keep_mask(target: Target, q: torch.Tensor, k: torch.Tensor, seed: int, p: float):
    """The keep-mask (B, Hq, Sq, Sk) that the target's kernels draw after manual_seed(seed)."""
    if target.device == "cpu":
        return ops.cpu_dropout_keep_mask(drawn_seed(seed, "cpu"), q.shape[0], q.shape[1],
                                         q.shape[2], k.shape[2], p)
    if "flash" not in CUDA_BACKENDS:  # the op's schema is in every build, its kernel is not
        pytest.skip("the keep-mask comes from the flash kernels, not in this build")
    if q.dtype == torch.float32:  # the mask depends on the shapes only; the op takes half q, k
        q, k = q.half(), k.half()
    return ops.flash_dropout_keep_mask(q, k, drawn_seed(seed, "cuda"), p)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("style", STYLES)
def test_dropout(target, style, dtype):
    """Dropout applies to the probabilities after the sink's is dropped (gpt-oss's eager
    attention: softmax, drop the sink column, then dropout), with the kernels' own mask."""
    p, seed = 0.3, 123
    q, k, v = qkv(target.device, 2, 4, 2, 37, 29, 40, dtype)
    require(target, dtype, q.shape[-1])  # before the kernels draw their keep-mask
    keep = keep_mask(target, q, k, seed, p)
    run, reference = STYLES[style](**({"causal": True} if style == "flash" else {}),
                                   dropout_p=p, dropout_keep=keep)

    def seeded(*inputs):
        torch.manual_seed(seed)
        return run(*inputs)

    check(target, seeded, reference, (q, k, v), random_sinks(4, torch.float32, target.device))


def packed(device, lengths, heads, head_dim, dtype):
    """A packed (total, heads, head_dim) tensor and its int32 cu_seqlens."""
    cu = torch.tensor([0, *itertools.accumulate(lengths)], dtype=torch.int32, device=device)
    return torch.randn(sum(lengths), heads, head_dim, dtype=dtype, device=device), cu


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("style", STYLES)
def test_varlen(target, style, dtype):
    """Sequences of every kind: no queries, no keys (rows that see none), one of each, longer
    ones both ways."""
    lengths_q, lengths_k = [5, 0, 17, 1, 30, 9], [7, 3, 17, 0, 11, 1]
    q, cu_q = packed(target.device, lengths_q, 4, 40, dtype)
    (k, cu_k), (v, _) = (packed(target.device, lengths_k, 2, 40, dtype) for _ in range(2))
    max_q, max_k = max(lengths_q), max(lengths_k)

    def run(q, k, v, sinks):
        if style == "sdpa":
            return flash_ext.attention_varlen(q, k, v, cu_q, cu_k, max_q, max_k, is_causal=True,
                                              enable_gqa=True, sinks=sinks, return_lse=True)
        out, lse, _ = flash_ext.flash_attn_varlen_func(q, k, v, cu_q, cu_k, max_q, max_k,
                                                       causal=True, return_attn_probs=True,
                                                       learnable_sink=sinks)
        return out, lse

    def reference(q, k, v, sinks, compute_dtype):
        return attention_varlen_ref(q, k, v, cu_q, cu_k, sinks=sinks, window_size=(-1, 0),
                                    bottom_right=style == "flash", compute_dtype=compute_dtype)

    check(target, run, reference, (q, k, v),
          random_sinks(4, sinks_dtype("inputs", dtype), target.device))


def test_packed_variants(target):
    """The qkv- and kv-packed flash-attn functions pass learnable_sink on: the same out as the
    unpacked ones."""
    dtype = target_dtype(target)
    require(target, dtype, 32)
    sinks = random_sinks(4, torch.float32, target.device)
    qkv_dense = torch.randn(2, 11, 3, 4, 32, dtype=dtype, device=target.device)
    q, k, v = qkv_dense.unbind(2)
    options = {"causal": True, "learnable_sink": sinks}
    expected = flash_ext.flash_attn_func(q, k, v, **options)
    assert torch.equal(flash_ext.flash_attn_qkvpacked_func(qkv_dense, **options), expected)
    assert torch.equal(flash_ext.flash_attn_kvpacked_func(q, qkv_dense[:, :, 1:], **options),
                       expected)
    cu = torch.tensor([0, 5, 11], dtype=torch.int32, device=target.device)
    qkv_packed = qkv_dense[0]
    q, k, v = qkv_packed.unbind(1)
    expected = flash_ext.flash_attn_varlen_func(q, k, v, cu, cu, 6, 6, **options)
    assert torch.equal(flash_ext.flash_attn_varlen_qkvpacked_func(qkv_packed, cu, 6, **options),
                       expected)
    assert torch.equal(flash_ext.flash_attn_varlen_kvpacked_func(
        q, qkv_packed[:, 1:], cu, cu, 6, 6, **options), expected)
    assert not torch.equal(flash_ext.flash_attn_varlen_func(q, k, v, cu, cu, 6, 6, causal=True),
                           expected)


def test_deterministic(target):
    """deterministic=True: every gradient, the sinks' included, bitwise reproducible."""
    dtype = target_dtype(target)
    require(target, dtype, 64)
    q, k, v = leaves(*qkv(target.device, 2, 8, 2, 150, 150, 64, dtype))
    sinks = leaves(random_sinks(8, torch.float32, target.device))[0]
    runs = []
    for _ in range(2):
        out = flash_ext.attention(q, k, v, is_causal=True, enable_gqa=True, sinks=sinks,
                                  deterministic=True)
        runs.append(torch.autograd.grad(out.float().square().sum(), (q, k, v, sinks)))
    for a, b in zip(*runs):
        assert torch.equal(a, b)


def test_no_grad_and_sinks_only_gradient(target):
    """No grad: the same out and lse. Only the sinks requiring grad: their gradient, the same
    as with q, k, v requiring grad too. lse is not differentiable."""
    dtype = target_dtype(target)
    require(target, dtype, 32)
    q, k, v = qkv(target.device, 2, 4, 2, 19, 26, 32, dtype)
    sinks = random_sinks(4, torch.float32, target.device).requires_grad_(True)
    with torch.no_grad():
        out0, lse0 = flash_ext.attention(q, k, v, enable_gqa=True, sinks=sinks, return_lse=True)
    out, lse = flash_ext.attention(q, k, v, enable_gqa=True, sinks=sinks, return_lse=True)
    assert out.requires_grad and not lse.requires_grad
    assert torch.equal(out, out0) and torch.equal(lse, lse0)
    g = torch.randn_like(out)
    (grad_sinks,) = torch.autograd.grad(out, sinks, g)
    x = leaves(q, k, v)
    full = flash_ext.attention(*x, enable_gqa=True, sinks=sinks)
    grads = torch.autograd.grad(full, (*x, sinks), g)
    torch.testing.assert_close(grad_sinks, grads[3], rtol=0, atol=0)
    # q's gradient alone, the sinks requiring one too
    (grad_q,) = torch.autograd.grad(flash_ext.attention(*x, enable_gqa=True, sinks=sinks), x[0],
                                    g)
    torch.testing.assert_close(grad_q, grads[0])


def test_compile_fullgraph(target):
    """The dense, flash-attn and varlen entries with sinks (and the math backend on the CPU)
    compiled with fullgraph: outputs and gradients as eager."""
    dtype = target_dtype(target)
    require(target, dtype, 32)
    q, k, v = leaves(*qkv(target.device, 2, 4, 2, 9, 12, 32, dtype))
    sinks = leaves(random_sinks(4, torch.float32, target.device))[0]
    cu = torch.tensor([0, 4, 9], dtype=torch.int32, device=target.device)
    slopes = torch.rand(4, device=target.device)

    def step(q, k, v, sinks):
        dense = flash_ext.attention(q, k, v, is_causal=True, enable_gqa=True, sinks=sinks,
                                    alibi_slopes=slopes, softcap=20.0)
        seq_first = flash_ext.flash_attn_func(q.transpose(1, 2), k.transpose(1, 2),
                                              v.transpose(1, 2), causal=True,
                                              window_size=(3, 0), learnable_sink=sinks)
        tokens = [t[0, :, :9].transpose(0, 1) for t in (q, k, v)]  # (9, H, D)
        varlen = flash_ext.attention_varlen(*tokens, cu, cu, 5, 5, is_causal=True,
                                            enable_gqa=True, sinks=sinks)
        outs = [dense, seq_first, varlen]
        if target.device == "cpu":
            outs.append(flash_ext.attention(q, k, v, enable_gqa=True, sinks=sinks,
                                            backend="math"))
        return outs

    torch._dynamo.reset()
    outs = torch.compile(step, fullgraph=True)(q, k, v, sinks)
    outs_eager = step(q, k, v, sinks)
    weights = [torch.randn_like(o) for o in outs]
    grads = torch.autograd.grad(outs, (q, k, v, sinks), weights)
    grads_eager = torch.autograd.grad(outs_eager, (q, k, v, sinks), weights)
    for a, b in zip((*outs, *grads), (*outs_eager, *grads_eager)):
        torch.testing.assert_close(a, b)


@pytest.mark.parametrize("paged", [False, True])
def test_kvcache(target, paged):
    """flash_attn_with_kvcache with learnable_sink: two new tokens against caches of different
    lengths (one empty), appended to them; against the reference per sequence."""
    dtype = target_dtype(target)
    require(target, dtype, 32)
    batch, heads_q, heads_kv, head_dim, capacity, page = 3, 4, 2, 32, 24, 8
    lengths = torch.tensor([5, 0, 19], dtype=torch.int32, device=target.device)

    def randn(*shape):
        return torch.randn(*shape, dtype=dtype, device=target.device)

    q = randn(batch, 2, heads_q, head_dim)
    k_new, v_new = randn(batch, 2, heads_kv, head_dim), randn(batch, 2, heads_kv, head_dim)
    k_cache, v_cache = (randn(batch, capacity, heads_kv, head_dim) for _ in range(2))
    sinks = random_sinks(heads_q, torch.float32, target.device)
    expected = []
    for b in range(batch):
        keys, values = (torch.cat([cache[b, :lengths[b]], new[b]]).transpose(0, 1)[None].double()
                        for cache, new in ((k_cache, k_new), (v_cache, v_new)))
        expected.append(attention_ref(q[b].transpose(0, 1)[None].double(), keys, values,
                                      window_size=(-1, 0), bottom_right=True, sinks=sinks))
    block_table = None
    if paged:  # pages of 8 tokens, the sequences' pages interleaved
        pages = capacity // page
        block_table = (torch.arange(pages, device=target.device)[None] * batch
                       + torch.arange(batch, device=target.device)[:, None]).int()
        k_cache, v_cache = (cache.view(batch, pages, page, heads_kv, head_dim).transpose(0, 1)
                            .reshape(pages * batch, page, heads_kv, head_dim)
                            for cache in (k_cache, v_cache))
    out, lse = flash_ext.flash_attn_with_kvcache(
        q, k_cache, v_cache, k_new, v_new, cache_seqlens=lengths, block_table=block_table,
        causal=True, return_softmax_lse=True, learnable_sink=sinks)
    tol = 2e-5 if dtype == torch.float32 else 2e-2
    for b, (out_ref, lse_ref) in enumerate(expected):
        torch.testing.assert_close(out[b].double(), out_ref[0].transpose(0, 1), atol=tol,
                                   rtol=tol)
        torch.testing.assert_close(lse[b].double(), lse_ref[0], atol=tol, rtol=tol)


# The Python backends and the oracle.


def test_math_backend():
    q, k, v = qkv("cpu", 2, 4, 2, 13, 17, 24, torch.bfloat16)
    sinks = random_sinks(4, torch.float32, "cpu")

    def run(q, k, v, sinks):
        return flash_ext.attention(q, k, v, is_causal=True, enable_gqa=True, softcap=3.0,
                                   sinks=sinks, return_lse=True, backend="math")

    check_with_sinks(run, dense_reference(window_size=(-1, 0), softcap=3.0), (q, k, v), sinks)


def test_math_backend_varlen():
    q, cu_q = packed("cpu", [13, 0, 6], 4, 24, torch.bfloat16)
    (k, cu_k), (v, _) = (packed("cpu", [17, 5, 0], 2, 24, torch.bfloat16)
                         for _ in range(2))

    def run(q, k, v, sinks):
        return flash_ext.attention_varlen(q, k, v, cu_q, cu_k, 13, 17, window_size=(3, 2),
                                          enable_gqa=True, sinks=sinks, return_lse=True,
                                          backend="math")

    def reference(q, k, v, sinks, compute_dtype):
        return attention_varlen_ref(q, k, v, cu_q, cu_k, window_size=(3, 2), sinks=sinks,
                                    compute_dtype=compute_dtype)

    check_with_sinks(run, reference, (q, k, v), random_sinks(4, torch.bfloat16, "cpu"))


def test_reference_is_the_eager_formula():
    """attention_ref with sinks against gpt-oss's eager attention written out: the sink column
    concatenated, softmax, the column dropped."""
    q, k, v = (torch.randn(2, 4, 7, 16, dtype=torch.float64) for _ in range(3))
    sinks = torch.randn(4, dtype=torch.float64)
    scores = q @ k.transpose(-2, -1) / 4.0
    combined = torch.cat([scores, sinks.view(1, 4, 1, 1).expand(2, 4, 7, 1)], -1)
    probs = torch.softmax(combined, -1)[..., :-1]
    out, lse = attention_ref(q, k, v, sinks=sinks)
    torch.testing.assert_close(out, probs @ v, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(lse, torch.logsumexp(combined, -1), rtol=1e-12, atol=1e-12)


def test_flex_sinks():
    """flex's (out, lse) with the sinks applied through autograd (flash_ext/flex/sdpa.py), in
    Triton's interpreter on the CPU (compiled on the GPU)."""
    pytest.importorskip("triton")
    from flash_ext.flex import sdpa

    device = "cuda" if torch.cuda.is_available() else "cpu"
    q, k, v = qkv(device, 1, 4, 2, 40, 33, 16, torch.bfloat16)
    slopes = torch.rand(4, device=device)

    def run(q, k, v, sinks):
        return sdpa.attention(q, k, v, window=(5, 0), bottom_right=True, alibi_slopes=slopes,
                              softcap=5.0, sinks=sinks)

    reference = dense_reference(window_size=(5, 0), bottom_right=True, alibi_slopes=slopes,
                                softcap=5.0)
    check_with_sinks(run, reference, (q, k, v), random_sinks(4, torch.float32, device))


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="the flex backend needs CUDA")
def test_flex_backend():
    q, k, v = qkv("cuda", 2, 4, 2, 100, 130, 64, torch.bfloat16)

    def run(q, k, v, sinks):
        return flash_ext.attention(q, k, v, is_causal=True, softcap=5.0, enable_gqa=True,
                                   sinks=sinks, return_lse=True, backend="flex")

    check_with_sinks(run, dense_reference(window_size=(-1, 0), softcap=5.0), (q, k, v),
                     random_sinks(4, torch.float32, "cuda"))


def test_gradcheck():
    """The sinks' gradient: backend="math" (the eager formula under autograd) passes a float64
    gradcheck, and the cpu backend's, from its float32 kernels and lse, matches math's."""
    q, k, v = (torch.randn(2, 4, 12, 8, dtype=torch.float64) for _ in range(3))
    sinks = random_sinks(4, torch.float64, "cpu")
    # window (2, 0) top-left with Sq = 12 > Sk = 6: rows 8.. see no key
    k, v = k[:, :2, :6], v[:, :2, :6]
    options = {"window_size": (2, 0), "enable_gqa": True, "softcap": 3.0}

    def math(q, k, v, sinks):
        return flash_ext.attention(q, k, v, sinks=sinks, backend="math", **options)

    x64 = leaves(q, k, v, sinks)
    assert torch.autograd.gradcheck(math, tuple(x64))
    g = torch.randn(2, 4, 12, 8, dtype=torch.float64)
    grads64 = torch.autograd.grad(math(*x64), x64, g)
    x32 = leaves(*(t.float() for t in (q, k, v, sinks)))
    grads32 = torch.autograd.grad(flash_ext.attention(*x32[:3], sinks=x32[3], backend="cpu",
                                                      **options), x32, g.float())
    for a, b in zip(grads32, grads64):
        torch.testing.assert_close(a.double(), b, rtol=1e-4, atol=1e-5)


# The forward ops themselves: each backend joins the sinks to its kernel's (out, lse) (the CPU
# kernel as it normalizes, the others after it), which must equal the formula on the op's own
# result without sinks: edge logits included (-inf: no sink; large; +inf: every row's weight).


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
@pytest.mark.parametrize("varlen", [False, True])
def test_ops_join_sinks(device, varlen):
    if device == "cuda" and "flash" not in CUDA_BACKENDS:
        pytest.skip("this build has no flash kernels")
    dtype = torch.float32 if device == "cpu" else torch.bfloat16
    dim = 32 if device == "cpu" else built_head_dim(dtype)
    heads = 6
    sinks = torch.tensor([0.5, -float("inf"), 40.0, -3.0, float("inf"), 2.0], device=device)
    options = (None, None, None, 0.0, 0.25, 3, 0, True, 0.0, False)  # window (3, 0), bottom-right
    if varlen:
        lengths = [5, 0, 9, 12]
        cu = torch.tensor([0, *itertools.accumulate(lengths)], dtype=torch.int32, device=device)
        total = int(cu[-1])
        q, k, v = (torch.randn(total, heads, dim, device=device, dtype=dtype) for _ in range(3))
        # keys fewer than queries: the first rows of each sequence see no key (bottom-right)
        ks = [max(n - 4, 0) for n in lengths]
        cu_k = torch.tensor([0, *itertools.accumulate(ks)], dtype=torch.int32, device=device)
        k, v = k[:int(cu_k[-1])], v[:int(cu_k[-1])]
        run = lambda s: ops.attention_varlen_fwd(q, k, v, cu, cu_k, max(lengths), max(ks),  # noqa: E731
                                                 *options[1:], s)
    else:
        q = torch.randn(2, heads, 11, dim, device=device, dtype=dtype)
        k, v = (torch.randn(2, heads, 7, dim, device=device, dtype=dtype) for _ in range(2))
        run = lambda s: ops.attention_fwd(q, k, v, *options, s)  # noqa: E731
    out0, lse0 = run(None)
    out, lse = run(sinks)
    lse_rows = lse0.double()
    sink_rows = sinks.double()[:, None] if varlen else sinks.double()[None, :, None]
    want_lse = torch.logaddexp(lse_rows, sink_rows)
    weight = torch.exp(lse_rows - want_lse).nan_to_num(0.0)  # +inf sink: inf - inf
    want_out = out0.double() * (weight.t() if varlen else weight)[..., None]
    torch.testing.assert_close(lse.double(), want_lse, rtol=1e-5, atol=1e-5)
    tol = 1e-5 if dtype == torch.float32 else 1e-2
    torch.testing.assert_close(out.double(), want_out, rtol=tol, atol=tol)
    assert (lse0 == -float("inf")).any()  # the case has rows without keys


# Bad input.


def test_bad_sinks():
    q, k, v = (torch.randn(1, 4, 5, 8, dtype=torch.float16) for _ in range(3))
    fq, fk, fv = (t.transpose(1, 2) for t in (q, k, v))
    cu = torch.tensor([0, 5], dtype=torch.int32)
    pq, pk, pv = (t[0].transpose(0, 1) for t in (q, k, v))
    cases = [
        (torch.zeros(3), ValueError,
         r"must have shape \(4,\), one logit per query head, got \(3,\)"),
        (torch.zeros(1, 4), ValueError, r"must have shape \(4,\), .*got \(1, 4\)"),
        (torch.zeros(4, dtype=torch.int64), TypeError,
         r"has dtype torch.int64; accepted: torch.float32 or the inputs' dtype \(torch.float16\)"),
        (torch.zeros(4, dtype=torch.bfloat16), TypeError, r"has dtype torch.bfloat16; accepted"),
        (torch.zeros(4, dtype=torch.float64), TypeError, r"has dtype torch.float64; accepted"),
        (torch.zeros(4, device="meta"), ValueError, r"is on meta but q(uery)? is on cpu"),
        ([0.0] * 4, TypeError, r"must be a torch.Tensor or None, got list"),
    ]
    for sinks, error, message in cases:
        with pytest.raises(error, match="sinks " + message):
            flash_ext.attention(q, k, v, sinks=sinks)
        with pytest.raises(error, match="sinks " + message):
            flash_ext.attention_varlen(pq, pk, pv, cu, cu, 5, 5, sinks=sinks)
        with pytest.raises(error, match="sinks " + message):
            flash_ext.explain(q, k, v, sinks=sinks)
        with pytest.raises(error, match="learnable_sink " + message):
            flash_ext.flash_attn_func(fq, fk, fv, learnable_sink=sinks)
        with pytest.raises(error, match="learnable_sink " + message):
            flash_ext.flash_attn_varlen_func(pq, pk, pv, cu, cu, 5, 5, learnable_sink=sinks)
        with pytest.raises(error, match="learnable_sink " + message):
            flash_ext.flash_attn_with_kvcache(fq, fk, fv, learnable_sink=sinks)
    # the math backend takes float64 inputs, and then float64 sinks
    flash_ext.attention(q.double(), k.double(), v.double(), sinks=torch.zeros(4).double(),
                        backend="math")


def test_rule_is_strict_enough():
    """A sink ignored, or its probability kept, fails the comparison: the tests can fail."""
    q, k, v = (torch.randn(1, 2, 9, 16) for _ in range(3))
    sinks = torch.tensor([1.5, 2.5])
    out = flash_ext.attention(q, k, v, sinks=sinks)
    ref64, _ = attention_ref(q.double(), k.double(), v.double(), sinks=sinks.double())
    ref32, _ = attention_ref(q, k, v, sinks=sinks, compute_dtype=None)
    assert_rule("out", out, ref64, ref32)
    with pytest.raises(AssertionError, match="max error"):
        assert_rule("out", flash_ext.attention(q, k, v), ref64, ref32)


def test_bench_sinks_dv_runs(tmp_path):
    """benchmarks/bench_sinks_dv.py end to end on the CPU (tiny shapes): every provider that
    runs there agrees with the reference (exit status 0), and the tables come out."""
    run_cpu_check("bench_sinks_dv.py", tmp_path)
    table = next(tmp_path.glob("sinks_dv_*.md")).read_text()
    assert "| sinks B=1 Hq=4 Hkv=2 S=300 D=16 window 128 | bwd |" in table
    assert "| dv B=2 Hq=2 Hkv=2 S=48 D=24/16 causal | fwd |" in table
    assert "MISMATCH" not in table
