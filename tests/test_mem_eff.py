"""The mem_eff backend (CUTLASS memory-efficient kernels) on the GPU, forward and backward, against
reference.py by the float64 rule (attention_check.py): out, lse, dq, dk, dv and, where the
additive attn_mask requires grad, its gradient (the mask is then the check's fourth input).

Covers fp16, bf16 and float32 (3xTF32 GEMMs: held to float32's own rounding); head dims 8 to
256 off the kernel list; Sq != Sk both ways down to 1; additive biases broadcast every way
(2-D, 3-D, 4-D with any dims of 1, expanded, sliced, transposed and misaligned views, float32
masks with half inputs) and their gradients; boolean masks; rows that see no key (zeros,
lse = -inf, zero gradients, never NaN) and keys that no row sees; both causal alignments
(flash_attn_func's bottom-right calls run with selection forced to mem_eff, as they take no
backend argument), sliding windows, ALiBi, softcap, GQA/MQA, dropout against the flash
backend's keep-mask, varlen, strided q/k/v, empty inputs, the deterministic backward (bitwise
reproducible, two kernels) and the default one (dq by atomics), CUDA graphs,
torch.compile, errors, and one long case against torch SDPA's efficient backend.

Head dims or dtypes that this build left out (explain() says "not built: ...") are skipped.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools

import pytest
import torch
import torch.nn.functional as F
from attention_check import EPS, assert_rule, check_against_reference, leaves
from flash_cases import CAUSAL, capture, drawn_seed, packed, randn, random_lengths
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.utils._python_dispatch import TorchDispatchMode

import flash_ext
from flash_ext import dispatch
from flash_ext.ops import CUDA_BACKENDS
from flash_ext.reference import attention_ref, attention_varlen_ref

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif("mem_eff" not in CUDA_BACKENDS, reason="this build has no mem_eff kernels"),
]

ops = torch.ops.flash_ext
NO_KEY = float("-inf")
DTYPES = [torch.float16, torch.bfloat16, torch.float32]
HALF_DTYPES = [torch.float16, torch.bfloat16]
HEAD_DIMS = [8, 20, 64, 100, 128, 136, 200, 256]  # kernels 64, 128, 256 and odd ones around
SEQLENS = [(1, 1), (1, 17), (17, 1), (113, 113), (17, 1023), (1023, 113), (1023, 1023)]
NAMES = ("q", "k", "v", "bias")


# Inputs.


def require_built(head_dim: int, dtype: torch.dtype) -> None:
    """Skip when this build lacks the mem_eff kernel for the head dim or dtype."""
    q = torch.empty(1, 1, 1, head_dim, device="cuda", dtype=dtype)
    reasons = flash_ext.explain(q, q, q, backend="mem_eff").reasons["mem_eff"]
    missing = [r for r in reasons if r.startswith("not built")]
    if missing:
        pytest.skip("; ".join(missing))


def qkv(batch, heads_q, heads_kv, seqlen_q, seqlen_k, head_dim, dtype):
    """q (B, Hq, Sq, D), k and v (B, Hkv, Sk, D) on the GPU."""
    require_built(head_dim, dtype)
    return (randn(batch, heads_q, seqlen_q, head_dim, dtype=dtype),
            randn(batch, heads_kv, seqlen_k, head_dim, dtype=dtype),
            randn(batch, heads_kv, seqlen_k, head_dim, dtype=dtype))


#: Additive biases: name -> f(B, Hq, Sq, Sk) = (shape of the tensor made, the view of it passed
#: as attn_mask, None for itself). The made tensor is the check's input: its gradient is that
#: of the view's base.
BIASES = {
    "SqSk": lambda b, h, m, n: ((m, n), None),
    "Sk": lambda b, h, m, n: ((n,), None),
    "1Sk": lambda b, h, m, n: ((1, n), None),
    "Sq1": lambda b, h, m, n: ((m, 1), None),  # a constant per row: only lse moves
    "HSqSk": lambda b, h, m, n: ((h, m, n), None),
    "B1SqSk": lambda b, h, m, n: ((b, 1, m, n), None),
    "1HSqSk": lambda b, h, m, n: ((1, h, m, n), None),
    "BHSqSk": lambda b, h, m, n: ((b, h, m, n), None),
    "BH1Sk": lambda b, h, m, n: ((b, h, 1, n), None),
    "B11Sk": lambda b, h, m, n: ((b, 1, 1, n), None),  # key padding
    "expanded": lambda b, h, m, n: ((1, h, m, n), lambda t: t.expand(b, h, m, n)),  # stride 0
    "sliced": lambda b, h, m, n: ((b, h, m + 3, n + 5),  # row stride Sk + 5, offset Sk + 6
                                  lambda t: t[:, :, 1:m + 1, 1:n + 1]),
    "transposed": lambda b, h, m, n: ((b, h, n, m), lambda t: t.transpose(-1, -2)),
    "misaligned": lambda b, h, m, n: ((b * h * m * n + 1,),  # starts one element in
                                      lambda t: t[1:].view(b, h, m, n)),
}


#: Biases that are constant along the keys: the softmax ignores them, their gradient is 0.
KEY_CONSTANT_BIASES = ("Sq1",)


def bias_input(kind: str, q: torch.Tensor, seqlen_k: int, dtype: torch.dtype | None = None):
    """(the tensor made, its view as attn_mask) of one of BIASES for q's (B, Hq, Sq)."""
    shape, view = BIASES[kind](*q.shape[:3], seqlen_k)
    return randn(*shape, dtype=dtype or q.dtype), view


# The two call styles and their references.


class _KernelOps(TorchDispatchMode):
    """Records the flash_ext forward ops called."""

    def __init__(self):
        super().__init__()
        self.names = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func.namespace == "flash_ext":
            self.names.add(func.__name__.split(".")[0])
        return func(*args, **(kwargs or {}))


@contextlib.contextmanager
def mem_eff_selected():
    """flash_ext's backend selection with the flash backend taken out of automatic selection, so
    that the calls made inside (the flash-attn functions take no backend argument) go to
    mem_eff; checks that they did."""
    original = dispatch.BACKENDS
    dispatch.set_backends(tuple(dataclasses.replace(b, automatic=False) if b.name == "flash"
                                else b for b in original))
    try:
        with _KernelOps() as recorded:
            yield
    finally:
        dispatch.set_backends(original)
    forwards = {n for n in recorded.names if n.endswith("_fwd")}
    assert forwards == {"mem_eff_fwd"}, f"ran {forwards}, not mem_eff_fwd"


def sdpa_style(is_causal=False, window_size=(-1, -1), attn_mask=None, mask_view=None,
               deterministic=False, **kwargs):
    """flash_ext.attention(backend="mem_eff") on (B, H, S, D) and its reference (top-left).

    The mask is `attn_mask` (a constant), or, when the call gets a fourth input, that input
    through `mask_view` (its gradient is checked)."""

    def mask(extra):
        if not extra:
            return attn_mask
        return extra[0] if mask_view is None else mask_view(extra[0])

    def run(q, k, v, *extra):
        return flash_ext.attention(q, k, v, attn_mask=mask(extra), is_causal=is_causal,
                                   window_size=window_size, enable_gqa=q.shape[1] != k.shape[1],
                                   return_lse=True, deterministic=deterministic,
                                   backend="mem_eff", **kwargs)

    window = (window_size[0], 0) if is_causal else window_size

    def reference(q, k, v, *extra, compute_dtype, **more):
        return attention_ref(q, k, v, attn_mask=mask(extra), window_size=window,
                             compute_dtype=compute_dtype, **kwargs, **more)

    return run, reference


def flash_style(causal=False, window_size=(-1, -1), deterministic=False, **kwargs):
    """flash_attn_func (bottom-right) on (B, H, S, D) inputs passed as their (B, S, H, D) views,
    selection forced to mem_eff, and its reference."""

    def run(q, k, v):
        with mem_eff_selected():
            out, lse, _ = flash_ext.flash_attn_func(
                q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), causal=causal,
                window_size=window_size, return_attn_probs=True, deterministic=deterministic,
                **kwargs)
        return out.transpose(1, 2), lse

    window = (window_size[0], 0) if causal else window_size
    return run, functools.partial(attention_ref, window_size=window, bottom_right=True, **kwargs)


def styled(causal: str, **kwargs):
    """One of CAUSAL: sdpa_style without or with is_causal, or flash_style causal."""
    if causal == "bottom_right":
        return flash_style(causal=True, **kwargs)
    return sdpa_style(is_causal=causal == "top_left", **kwargs)


def varlen_style(causal: str, cu_q, cu_k, max_q, max_k, window_size=(-1, -1), flash=None,
                 deterministic=False, **kwargs):
    """Packed inputs: attention_varlen(backend="mem_eff") (top-left), or with `flash` (default:
    for bottom_right) flash_attn_varlen_func forced to mem_eff (bottom-right); and the
    reference."""
    flash = causal == "bottom_right" if flash is None else flash
    is_causal = causal != "none"

    def run(q, k, v):
        if flash:
            with mem_eff_selected():
                return flash_ext.flash_attn_varlen_func(
                    q, k, v, cu_q, cu_k, max_q, max_k, causal=is_causal,
                    window_size=window_size, deterministic=deterministic,
                    return_attn_probs=True, **kwargs)[:2]
        return flash_ext.attention_varlen(q, k, v, cu_q, cu_k, max_q, max_k, is_causal=is_causal,
                                          enable_gqa=True, window_size=window_size,
                                          deterministic=deterministic, return_lse=True,
                                          backend="mem_eff", **kwargs)

    window = (window_size[0], 0) if is_causal else window_size
    return run, functools.partial(attention_varlen_ref, cu_seqlens_q=cu_q, cu_seqlens_k=cu_k,
                                  window_size=window, bottom_right=flash, **kwargs)


def check(run, reference, inputs, names=NAMES):
    """out, lse and every input's gradient by the rule; returns (out, lse, grads)."""
    result = {}

    def recorded(*x):
        result["out"], result["lse"] = run(*x)
        return result["out"], result["lse"]

    grads = check_against_reference(recorded, reference, inputs, names=names)
    return result["out"].detach(), result["lse"], grads


def check_bias(inputs, kind, **kwargs):
    """check() with a BIASES bias of `kind` as the fourth input (gradient checked), except for
    biases constant along the keys, whose gradient test_bias_constant_along_keys checks."""
    q, k = inputs[0], inputs[1]
    bias, view = bias_input(kind, q, k.shape[2])
    if kind in KEY_CONSTANT_BIASES:
        return check(*sdpa_style(attn_mask=bias if view is None else view(bias), **kwargs), inputs)
    return check(*sdpa_style(mask_view=view, **kwargs), (*inputs, bias))


# Sizes.


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("head_dim", HEAD_DIMS)
@pytest.mark.parametrize("variant", ["plain", "causal_bias"])
def test_head_dims(dtype, head_dim, variant):
    inputs = qkv(2, 3, 3, 113, 150, head_dim, dtype)
    if variant == "plain":
        check(*sdpa_style(), inputs)
    else:
        check_bias(inputs, "1HSqSk", is_causal=True)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("head_dims", [(192, 128), (128, 192), (64, 8), (20, 136), (256, 40)])
@pytest.mark.parametrize("variant", ["plain", "causal_bias", "deterministic", "bottom_right"])
def test_value_head_dim(dtype, head_dims, variant):
    """Dqk != Dv (DeepSeek-V3's 192 / 128 and others): v, out and dO with a head dim of their
    own, in the kernel of the larger; with GQA, a bias and its gradient, either backward."""
    head_dim, head_dim_v = head_dims
    require_built(max(head_dims), dtype)
    q, k, _ = qkv(2, 4, 2, 113, 150, head_dim, dtype)
    inputs = (q, k, randn(2, 2, 150, head_dim_v, dtype=dtype))
    if variant == "plain":
        out = check(*sdpa_style(), inputs)[0]
        assert out.shape == (2, 4, 113, head_dim_v)
    elif variant == "causal_bias":
        check_bias(inputs, "1HSqSk", is_causal=True)
    elif variant == "deterministic":
        check(*sdpa_style(window_size=(30, 20), deterministic=True), inputs)
    else:
        check(*styled("bottom_right"), inputs)


def test_value_head_dim_varlen():
    lengths_q, lengths_k = random_lengths(5)
    (q,), cu_q = packed(lengths_q, 4, 192, torch.bfloat16)
    (k,), cu_k = packed(lengths_k, 2, 192, torch.bfloat16)
    (v,), _ = packed(lengths_k, 2, 128, torch.bfloat16)
    check(*varlen_style("top_left", cu_q, cu_k, max(lengths_q), max(lengths_k)), (q, k, v))


def test_value_head_dim_over_256():
    q = randn(1, 2, 8, 64, dtype=torch.bfloat16)
    v = randn(1, 2, 8, 264, dtype=torch.bfloat16)
    assert "head_dim 264 (supports <= 256)" in " ".join(
        flash_ext.explain(q, q, v, backend="mem_eff").reasons["mem_eff"])
    with pytest.raises(RuntimeError, match="v's head_dim <= 256, got 264"):
        ops.mem_eff_fwd(q, q, v, None, None, None, 0, 0, None, None, 0.0, 0.125, -1, -1, False,
                        0.0, False)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("seqlens", SEQLENS)
@pytest.mark.parametrize("causal", CAUSAL)
def test_seqlens(dtype, seqlens, causal):
    head_dim = (64, 128, 100, 256, 20, 136, 8)[SEQLENS.index(seqlens)]
    check(*styled(causal), qkv(2, 4, 4, *seqlens, head_dim, dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_many_key_blocks(dtype):
    """16k keys (256 key blocks of 64): the online softmax's rescales must not drift lse with the
    number of blocks (fp32 did, by up to half an ulp of the scaled max per block: lse 1.7e-5
    off against a tolerance of 1.2e-5 on the H100 with that code; 5e-7 now)."""
    check(*sdpa_style(), qkv(1, 2, 2, 64, 16384, 64, dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("seqlens", SEQLENS)
@pytest.mark.parametrize("is_causal", [False, True])
def test_seqlens_bias(dtype, seqlens, is_causal):
    """A (B, H, Sq, Sk) bias with gradient: Sk = 1, 17 and 113 give unaligned bias rows."""
    head_dim = (128, 64, 20, 136, 256, 100, 64)[SEQLENS.index(seqlens)]
    check_bias(qkv(2, 4, 2, *seqlens, head_dim, dtype), "BHSqSk", is_causal=is_causal)


# Additive biases: every broadcast, layout and dtype, with their gradients.


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", list(BIASES))
@pytest.mark.parametrize("seqlens", [(67, 113), (130, 17), (97, 128)])
def test_bias_broadcast(dtype, kind, seqlens):
    """With GQA (4 query heads on 2 kv heads): the bias is per query head."""
    check_bias(qkv(2, 4, 2, *seqlens, 64, dtype), kind)


@pytest.mark.parametrize("dtype", DTYPES)
def test_bias_constant_along_keys(dtype):
    """A bias constant along the keys has gradient 0. The backward's D = rowsum(dO * O) uses
    the rounded output O (as FlashAttention and xformers do), so each row's gradient is off by
    the sum over (b, h) of dO . (O_exact - O): the rule's tolerance plus twice that residual."""
    q, k, v = qkv(2, 4, 2, 67, 113, 64, dtype)
    bias = randn(67, 1, dtype=dtype)
    dout = torch.randn(2, 4, 67, 64, device="cuda", dtype=dtype)
    x = leaves(q, k, v, bias)
    out = flash_ext.attention(*x[:3], attn_mask=x[3], enable_gqa=True, backend="mem_eff")
    dbias = torch.autograd.grad(out, x[3], dout)[0].double()
    xl = leaves(q, k, v, bias)
    out_lowp = attention_ref(*xl[:3], attn_mask=xl[3], compute_dtype=None)[0]
    dbias_lowp = torch.autograd.grad(out_lowp, xl[3], dout)[0].double()
    out64 = attention_ref(q.double(), k.double(), v.double(), attn_mask=bias.double(),
                          compute_dtype=torch.float64)[0]
    residual = (dout.double() * (out64 - out.double())).sum(dim=(0, 1, 3)).unsqueeze(-1)
    tol = 2 * dbias_lowp.abs().amax() + EPS[dtype] + 2 * residual.abs().amax()
    err = dbias.abs().amax()
    assert err <= tol, f"dbias: max {err:.3g} > tolerance {tol:.3g}"


@pytest.mark.parametrize("dtype", HALF_DTYPES)
@pytest.mark.parametrize("kind", ["BHSqSk", "B11Sk", "sliced"])
@pytest.mark.parametrize("requires_grad", [False, True])
def test_float32_mask(dtype, kind, requires_grad):
    """A float32 additive mask with half inputs: used in the inputs' dtype (the reference in
    the inputs' dtype converts it likewise); its gradient is float32."""
    inputs = qkv(2, 4, 4, 77, 113, 64, dtype)
    bias, view = bias_input(kind, inputs[0], 113, dtype=torch.float32)
    if requires_grad:
        dbias = check(*sdpa_style(mask_view=view), (*inputs, bias))[2][3]
        assert dbias.dtype == torch.float32
    else:
        check(*sdpa_style(attn_mask=view(bias) if view else bias), inputs)


@pytest.mark.parametrize("dtype", DTYPES)
def test_bias_gradient_alone(dtype):
    """Only the bias requires grad: the backward runs for it alone."""
    q, k, v = qkv(2, 4, 2, 70, 90, 64, dtype)
    bias = randn(4, 70, 90, dtype=dtype)
    g = torch.randn_like(q)
    grads = []
    for b, compute_dtype in ((bias, "kernel"), (bias.double(), torch.float64), (bias, None)):
        (b,) = leaves(b)
        if compute_dtype == "kernel":
            out = flash_ext.attention(q, k, v, attn_mask=b, enable_gqa=True, backend="mem_eff")
        else:
            out, _ = attention_ref(q, k, v, attn_mask=b, compute_dtype=compute_dtype)
        grads += torch.autograd.grad(out, b, g.to(out.dtype))
    assert_rule("dbias", *grads)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("head_dim", [20, 136])
@pytest.mark.parametrize("deterministic", [False, True])
def test_features_together(dtype, head_dim, deterministic):
    """Bias with gradient, causal, window, ALiBi, GQA and a scale in one call, through either
    backward."""
    q, k, v = qkv(2, 6, 2, 97, 161, head_dim, dtype)
    slopes = torch.rand(2, 6, device="cuda") * 0.3
    check_bias((q * 2, k, v), "HSqSk", is_causal=True, window_size=(40, -1), alibi_slopes=slopes,
               scale=0.2, deterministic=deterministic)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("scale", [-0.2, 0.0])
def test_nonpositive_scale(dtype, scale):
    """scale <= 0, folded into q by interface.py: masked scores stay hidden, and the rows' maxima
    are those of the scaled scores."""
    q, k, v = qkv(2, 4, 2, 97, 161, 72, dtype)
    slopes = torch.rand(4, device="cuda") * 0.3
    check_bias((q * 2, k, v), "B1SqSk", is_causal=True, alibi_slopes=slopes, scale=scale)


# Boolean masks, -inf biases, rows that see no key, keys that no row sees.


NO_KEY_CASES = ["bool_random", "bool_rows", "key_padding", "unseen_keys", "bool_causal",
                "inf_bias", "window", "bottom_right"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", NO_KEY_CASES)
def test_masks_and_rows_without_keys(dtype, case):
    """A row that sees no key: out zeros, lse = -inf, dq zeros, nothing NaN (the rule checks
    the rest). A key that no row sees: dk, dv zeros."""
    batch, seqlen_q, seqlen_k = 2, 100, 77
    inputs = qkv(batch, 4, 2, seqlen_q, seqlen_k, 64, dtype)
    unseen = []  # indices of dk and dv that must be zero
    rand = functools.partial(torch.rand, device="cuda")
    if case == "bool_random":  # (B, 1, Sq, Sk); two rows of batch 0 and ten of batch 1 empty
        mask = rand(batch, 1, seqlen_q, seqlen_k) > 0.25
        mask[0, 0, 5] = mask[0, 0, 99] = mask[1, 0, 50:60] = False
        result = check(*sdpa_style(attn_mask=mask), inputs)
    elif case == "bool_rows":  # (Sq, Sk), every 7th row empty
        mask = rand(seqlen_q, seqlen_k) > 0.5
        mask[::7] = False
        result = check(*sdpa_style(attn_mask=mask), inputs)
    elif case == "key_padding":  # (B, 1, 1, Sk): batch 0 hides its last 30 keys, batch 1 all
        mask = torch.ones(batch, 1, 1, seqlen_k, dtype=torch.bool, device="cuda")
        mask[0, ..., -30:] = mask[1] = False
        unseen = [(0, slice(None), slice(-30, None)), (1,)]
        result = check(*sdpa_style(attn_mask=mask), inputs)
    elif case == "unseen_keys":  # (Sq, Sk): keys 10..29 hidden from every row
        mask = torch.ones(seqlen_q, seqlen_k, dtype=torch.bool, device="cuda")
        mask[:, 10:30] = False
        unseen = [(slice(None), slice(None), slice(10, 30))]
        result = check(*sdpa_style(attn_mask=mask), inputs)
    elif case == "bool_causal":  # top-left causal: row 0 sees key 0 only, which the mask hides
        mask = torch.ones(seqlen_q, seqlen_k, dtype=torch.bool, device="cuda")
        mask[0, 0] = False
        result = check(*sdpa_style(attn_mask=mask, is_causal=True), inputs)
    elif case == "inf_bias":  # additive (B, H, Sq, Sk) with -inf entries and -inf rows, grad
        bias = randn(batch, 4, seqlen_q, seqlen_k, dtype=dtype)
        bias[rand(bias.shape) < 0.25] = NO_KEY
        bias[0, :, 3] = bias[1, 2, 40:45] = NO_KEY
        result = check(*sdpa_style(), (*inputs, bias))
        dbias = result[2][3]
        assert (dbias[torch.isinf(bias)] == 0).all(), "dbias not zero where the bias is -inf"
    elif case == "window":  # row i sees key i only: rows 77.. see none
        result = check(*sdpa_style(window_size=(0, 0)), inputs)
    else:  # bottom-right causal with Sq > Sk: the first 23 rows see none
        result = check(*flash_style(causal=True), inputs)
    out, lse, (dq, dk, dv, *_) = result
    empty = lse == NO_KEY
    assert empty.any() == (case != "unseen_keys")
    assert (out[empty] == 0).all() and (dq[empty] == 0).all()
    for index in unseen:
        assert (dk[index] == 0).all() and (dv[index] == 0).all()


# Causal, windows, ALiBi, GQA.


WINDOWS = [(8, 0), (5, 3), (-1, 4), (16, -1)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("window_size", WINDOWS)
@pytest.mark.parametrize("bottom_right", [False, True])
def test_window(dtype, window_size, bottom_right):
    seqlens = [(70, 300), (300, 70), (200, 200), (129, 257)][WINDOWS.index(window_size)]
    style = flash_style if bottom_right else sdpa_style
    check(*style(window_size=window_size), qkv(1, 2, 2, *seqlens, 64, dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("slopes_shape", [(4,), (2, 4)])
@pytest.mark.parametrize("causal", CAUSAL)
def test_alibi(dtype, slopes_shape, causal):
    slopes = torch.rand(slopes_shape, device="cuda") * 0.5
    check(*styled(causal, alibi_slopes=slopes), qkv(2, 4, 2, 77, 133, 64, dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("heads", [(8, 2), (6, 1), (12, 3)])
@pytest.mark.parametrize("causal", CAUSAL)
def test_gqa(dtype, heads, causal):
    """dk and dv of a kv head sum the gradients of its group of query heads."""
    check(*styled(causal), qkv(2, *heads, 129, 257, 128, dtype))


# Softcap: scores softcap * tanh(scale * q.k / softcap), then ALiBi, the bias and the masks. q
# and k are scaled up so that many scores reach the flat part of the cap (derivative near 0).


SOFTCAP_HEAD_DIMS = [59, 100, 200]  # in the kernels of head dim 64, 128 and 256


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("head_dim", SOFTCAP_HEAD_DIMS)
@pytest.mark.parametrize("softcap", [5.0, 30.0])
@pytest.mark.parametrize("causal", CAUSAL)
def test_softcap(dtype, head_dim, softcap, causal):
    q, k, v = qkv(2, 4, 2, 113, 150, head_dim, dtype)
    check(*styled(causal, softcap=softcap), (q * 3, k * 3, v))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("head_dim", SOFTCAP_HEAD_DIMS)
@pytest.mark.parametrize("bias_grad", [False, True])
@pytest.mark.parametrize("deterministic", [False, True])
def test_softcap_bias_alibi(dtype, head_dim, bias_grad, deterministic):
    """With a bias (added after the cap), ALiBi (B, H) and causal. The bias gradient is dS
    before the cap's derivative: with it, either backward runs as two kernels; without it, the
    default one is the fused kernel."""
    q, k, v = qkv(2, 4, 2, 97, 161, head_dim, dtype)
    slopes = torch.rand(2, 4, device="cuda") * 0.3
    options = {"is_causal": True, "alibi_slopes": slopes, "softcap": 10.0,
               "deterministic": deterministic}
    inputs = (q * 3, k * 3, v)
    if bias_grad:
        check_bias(inputs, "HSqSk", **options)
    else:
        check(*sdpa_style(attn_mask=randn(4, 97, 161, dtype=dtype), **options), inputs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("causal", CAUSAL)
def test_softcap_varlen(dtype, causal):
    """Head dim 59, GQA, with sequences of 0 and 1 queries and of 0 and 1 keys. float32 takes
    unscaled inputs and a lower cap (as saturated): with q, k * 3 its dK (~50, summed over up to
    300 rows and a head group) is off by a few ulp, 1.4e-5, which the rule's absolute 1e-5 does
    not allow for (H100)."""
    require_built(59, dtype)
    lengths_q, lengths_k = random_lengths(6)
    (q,), cu_q = packed(lengths_q, 4, 59, dtype)
    (k, v), cu_k = packed(lengths_k, 2, 59, dtype, count=2)
    gain, cap = (1.0, 2.0) if dtype == torch.float32 else (3.0, 5.0)
    check(*varlen_style(causal, cu_q, cu_k, max(lengths_q), max(lengths_k), softcap=cap),
          (q * gain, k * gain, v))


# Dropout: the flash backend's keep-mask, materialized by flash_dropout_keep_mask, replayed in the
# reference for the output and the gradients.


def keep_mask(q: torch.Tensor, k: torch.Tensor, seed: int, p: float) -> torch.Tensor:
    """The keep-mask (B, Hq, Sq, Sk) that a call on q, k draws right after
    torch.manual_seed(seed). It depends on the shapes only; the op takes half q and k."""
    # The op's schema is there in every build, its CUDA kernel with the flash backend only.
    if "flash" not in CUDA_BACKENDS:
        pytest.skip("this build has no flash_dropout_keep_mask kernel (flash backend not built)")
    if q.dtype == torch.float32:
        q, k = q.half(), k.half()
    return ops.flash_dropout_keep_mask(q, k, drawn_seed(seed), p)


def seeded(run, seed: int):
    def seeded_run(*inputs):
        torch.manual_seed(seed)
        return run(*inputs)

    return seeded_run


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("variant", [*CAUSAL, "softcap", "bias", "causal_bias",
                                     "bias_deterministic"])
def test_dropout_matches_keep_mask(dtype, variant):
    p = 0.17
    inputs = qkv(2, 4, 2, 113, 200, 72, dtype)
    q, k = inputs[:2]
    keep = keep_mask(q, k, 11, p)
    assert keep.shape == (2, 4, 113, 200) and keep.dtype == torch.bool
    if variant in CAUSAL:
        run, reference = styled(variant, dropout_p=p)
    elif variant == "softcap":
        run, reference = sdpa_style(dropout_p=p, softcap=5.0)
        inputs = (q * 3, k * 3, inputs[2])
    else:  # with a (B, 1, Sq, Sk) bias and its gradient
        run, reference = sdpa_style(is_causal=variant == "causal_bias", dropout_p=p,
                                    deterministic=variant == "bias_deterministic")
        inputs = (*inputs, bias_input("B1SqSk", q, 200)[0])
    check(seeded(run, 11), functools.partial(reference, dropout_keep=keep), inputs)


@pytest.mark.parametrize("dtype", DTYPES)
def test_dropout_varlen(dtype):
    """Sequence b draws the mask of batch b of a dense call with the max lengths (top-left)."""
    require_built(64, dtype)
    p = 0.25
    lengths_q, lengths_k = [13, 0, 40, 1], [27, 5, 0, 60]
    (q,), cu_q = packed(lengths_q, 4, 64, dtype)
    (k, v), cu_k = packed(lengths_k, 2, 64, dtype, count=2)
    keep = keep_mask(randn(4, 4, 40, 64, dtype=dtype), randn(4, 2, 60, 64, dtype=dtype), 5, p)
    run, reference = varlen_style("none", cu_q, cu_k, 40, 60, dropout_p=p)
    check(seeded(run, 5), functools.partial(reference, dropout_keep=keep), (q, k, v))


def test_dropout_reproducible_and_fresh():
    q, k, v = qkv(1, 2, 2, 64, 96, 64, torch.float32)
    bias = randn(64, 96, dtype=torch.float32)

    def call():
        return flash_ext.attention(q, k, v, attn_mask=bias, dropout_p=0.5, backend="mem_eff")

    torch.manual_seed(0)
    a = call()
    torch.manual_seed(0)
    b = call()
    c = call()
    assert torch.equal(a, b)
    assert not torch.equal(a, c)


# Varlen (no bias: attention_varlen takes no attn_mask).


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("causal", CAUSAL)
def test_varlen(dtype, causal):
    """With sequences of 0 and 1 queries and of 0 and 1 keys."""
    head_dim = {"none": 64, "top_left": 20, "bottom_right": 136}[causal]
    require_built(head_dim, dtype)
    lengths_q, lengths_k = random_lengths(8)
    (q,), cu_q = packed(lengths_q, 4, head_dim, dtype)
    (k, v), cu_k = packed(lengths_k, 2, head_dim, dtype, count=2)
    run, reference = varlen_style(causal, cu_q, cu_k, max(lengths_q), max(lengths_k))
    _, _, (dq, dk, dv) = check(run, reference, (q, k, v))
    # Sequence 1 has no keys: its queries get no gradient. Sequence 0 has no queries: its keys
    # get none.
    cu_q, cu_k = cu_q.tolist(), cu_k.tolist()
    assert (dq[cu_q[1]:cu_q[2]] == 0).all()
    assert (dk[cu_k[0]:cu_k[1]] == 0).all() and (dv[cu_k[0]:cu_k[1]] == 0).all()


@pytest.mark.parametrize("dtype", DTYPES)
def test_varlen_features(dtype):
    """Bottom-right window, ALiBi (B, H) and GQA through flash_attn_varlen_func."""
    require_built(80, dtype)
    lengths_q, lengths_k = random_lengths(5)
    (q,), cu_q = packed(lengths_q, 6, 80, dtype)
    (k, v), cu_k = packed(lengths_k, 3, 80, dtype, count=2)
    slopes = torch.rand(5, 6, device="cuda") * 0.3
    check(*varlen_style("none", cu_q, cu_k, max(lengths_q), max(lengths_k), flash=True,
                        window_size=(30, 7), alibi_slopes=slopes), (q * 3, k, v))


# Layouts: q, k, v are views of other tensors, and the gradients those of the bases.


LAYOUTS = {
    # name: (base shapes of q, k, v; the views (B, H, S, D) of the bases)
    "bshd": (((2, 150, 4, 64), (2, 200, 2, 64), (2, 200, 2, 64)),
             lambda q, k, v: (q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2))),
    "sliced": (((2, 4, 150, 88), (2, 400, 2, 64), (2, 2, 64, 200)),
               lambda q, k, v: (q[..., 8:72],  # row stride 88, offset 8
                                k.transpose(1, 2)[:, :, ::2],  # every other row
                                v.transpose(-1, -2))),  # last dim strided
    "head_stride_0": (((2, 4, 150, 64), (2, 1, 200, 64), (2, 2, 200, 64)),
                      lambda q, k, v: (q, k.expand(2, 2, 200, 64), v)),
    "misaligned": (((2, 4, 150, 66), (2 * 2 * 200 * 64 + 2,), (2 * 2 * 200 * 64 + 1,)),
                   lambda q, k, v: (q[..., 1:65],  # odd row stride, one-element offset
                                    k[2:].view(2, 2, 200, 64),  # two-element offset
                                    v[1:].view(2, 2, 200, 64))),
    "qkv_packed": (((2, 150, 3, 4, 64),),  # flash-attn (B, S, 3, H, D)
                   lambda qkv: tuple(t.transpose(1, 2) for t in qkv.unbind(2))),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("with_bias", [False, True])
def test_strided_inputs(dtype, layout, with_bias):
    """Without a mask, and causal with a (B, 1, Sq, Sk) bias and its gradient."""
    require_built(64, dtype)
    shapes, view = LAYOUTS[layout]
    n = len(shapes)
    inputs = [randn(*shape, dtype=dtype) for shape in shapes]
    if with_bias:
        q, k, _ = view(*inputs)
        inputs.append(bias_input("B1SqSk", q, k.shape[2])[0])
    run, reference = sdpa_style(is_causal=with_bias)
    check(lambda *x: run(*view(*x[:n]), *x[n:]),
          lambda *x, compute_dtype: reference(*view(*x[:n]), *x[n:], compute_dtype=compute_dtype),
          inputs, names=NAMES if n == 3 else ("qkv", "bias"))


# Empty inputs.


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape_q, shape_kv", [((0, 4, 8, 64), (0, 2, 8, 64)),
                                               ((2, 4, 0, 64), (2, 2, 8, 64)),
                                               ((2, 4, 8, 64), (2, 2, 0, 64))])
def test_empty(dtype, shape_q, shape_kv):
    require_built(64, dtype)
    bias_shape = (*shape_q[:3], shape_kv[2])
    q, k, v, bias = leaves(randn(*shape_q, dtype=dtype), randn(*shape_kv, dtype=dtype),
                           randn(*shape_kv, dtype=dtype), randn(*bias_shape, dtype=dtype))
    out, lse = flash_ext.attention(q, k, v, attn_mask=bias, is_causal=True, enable_gqa=True,
                                   return_lse=True, backend="mem_eff")
    assert out.shape == shape_q and lse.shape == shape_q[:3]
    assert (out == 0).all() and (lse == NO_KEY).all()
    grads = torch.autograd.grad(out, (q, k, v, bias), torch.randn_like(out))
    for x, g in zip((q, k, v, bias), grads):
        assert g.shape == x.shape and (g == 0).all()


# deterministic=True: bitwise identical gradients run after run (the two-kernel backward, no
# atomics). By default dq is summed by atomics in an order that varies from run to run; dk, dv
# and the bias gradient are still written once per element, bitwise reproducible.


def gradients(run, inputs, g):
    x = leaves(*inputs)
    out, _ = run(*x)
    return torch.autograd.grad(out, x, g)


@pytest.mark.parametrize("deterministic", [True, False])
@pytest.mark.parametrize("case", ["bias_gqa", "fp32_causal_bias", "varlen"])
def test_backward_reproducible(case, deterministic):
    if case == "varlen":
        require_built(128, torch.float16)
        lengths_q, lengths_k = [700, 0, 1500, 300], [900, 1200, 1, 2000]
        (q,), cu_q = packed(lengths_q, 8, 128, torch.float16)
        (k, v), cu_k = packed(lengths_k, 2, 128, torch.float16, count=2)
        run, reference = varlen_style("top_left", cu_q, cu_k, 1500, 2000,
                                      deterministic=deterministic)
        inputs = (q, k, v)
    elif case == "bias_gqa":  # dbias sums over batch and heads
        inputs = (*qkv(2, 8, 2, 700, 900, 128, torch.bfloat16),
                  randn(700, 900, dtype=torch.bfloat16))
        run, reference = sdpa_style(deterministic=deterministic)
    else:
        inputs = (*qkv(1, 4, 4, 600, 1100, 64, torch.float32),
                  randn(1, 4, 1, 1100, dtype=torch.float32))
        run, reference = sdpa_style(is_causal=True, deterministic=deterministic)
    check(run, reference, inputs)
    g = torch.randn_like(inputs[0])
    first = gradients(run, inputs, g)
    for _ in range(2):
        for name, a, b in zip(NAMES, first, gradients(run, inputs, g)):
            if deterministic or name != "q":
                assert torch.equal(a, b), f"d{name} differs between two runs"


# CUDA graphs, torch.compile, dispatch, errors.


def test_cuda_graph_forward_backward():
    """Forward and backward with a bias gradient captured in one graph replay on new inputs as
    eager calls do."""
    q, k, v = leaves(*qkv(2, 4, 2, 128, 160, 64, torch.float16))
    (bias,) = leaves(randn(2, 1, 128, 160, dtype=torch.float16))
    g = randn(2, 4, 128, 64, dtype=torch.float16)

    def step():
        out = flash_ext.attention(q, k, v, attn_mask=bias, is_causal=True, enable_gqa=True,
                                  deterministic=True, backend="mem_eff")
        return (out.detach(), *torch.autograd.grad(out, (q, k, v, bias), g))

    graph, outputs = capture(step)
    with torch.no_grad():
        for t in (q, k, v, bias, g):
            t.copy_(torch.randn_like(t))
    graph.replay()
    for name, a, b in zip(("out", *(f"d{n}" for n in NAMES)), outputs, step()):
        assert torch.equal(a, b), f"{name}: the replay differs from the eager call"


def test_compile_fullgraph_forward_backward():
    """Deterministic calls: the compiled out, dq, dk, dv are the eager ones bit for bit; dbias
    (summed over the batch, a reduction the compiler may generate itself) to rounding. The
    compiled function returns out, not a loss, whose sum inductor would add in another order."""
    q, k, v = leaves(*qkv(2, 8, 2, 100, 130, 64, torch.bfloat16))
    (bias,) = leaves(randn(1, 8, 100, 130, dtype=torch.bfloat16))
    g = randn(2, 8, 100, 64, dtype=torch.bfloat16)

    def step(q, k, v, bias):
        return flash_ext.attention(q, k, v, attn_mask=bias, is_causal=True, enable_gqa=True,
                                   window_size=(32, -1), deterministic=True, backend="mem_eff")

    torch._dynamo.reset()
    compiled = torch.compile(step, fullgraph=True)
    out = compiled(q, k, v, bias)
    grads = torch.autograd.grad(out, (q, k, v, bias), g)
    out_eager = step(q, k, v, bias)
    grads_eager = torch.autograd.grad(out_eager, (q, k, v, bias), g)
    assert torch.equal(out, out_eager), "out: compiled and eager differ"
    for name, a, b in zip("qkv", grads, grads_eager):
        assert torch.equal(a, b), f"d{name}: compiled and eager differ"
    torch.testing.assert_close(grads[3], grads_eager[3])


def test_selected_automatically():
    """mem_eff runs float32 calls and masked half calls when no backend is named."""
    require_built(64, torch.float32)
    require_built(64, torch.bfloat16)
    q = randn(1, 2, 16, 64, dtype=torch.float32)
    h = q.bfloat16()
    assert flash_ext.explain(q, q, q, is_causal=True).selected == "mem_eff"
    bias = randn(16, 16, dtype=torch.float32).requires_grad_(True)
    assert flash_ext.explain(q, q, q, attn_mask=bias).selected == "mem_eff"
    assert flash_ext.explain(h, h, h, attn_mask=bias.detach().bfloat16()).selected == "mem_eff"
    mask = torch.ones(16, 16, dtype=torch.bool, device="cuda")
    assert flash_ext.explain(h, h, h, attn_mask=mask).selected == "mem_eff"


def test_errors():
    q, k, v = qkv(1, 2, 2, 16, 24, 64, torch.float32)
    for shape in [(17, 24), (16, 23), (3, 16, 24), (2, 2, 16, 24), (1, 1, 1, 16, 24)]:
        with pytest.raises(ValueError, match="attn_mask"):
            flash_ext.attention(q, k, v, attn_mask=randn(*shape, dtype=torch.float32),
                                backend="mem_eff")
    with pytest.raises(TypeError, match="attn_mask"):  # neither q's dtype nor float32
        h = q.half()
        flash_ext.attention(h, h, h, attn_mask=randn(16, 16, dtype=torch.bfloat16),
                            backend="mem_eff")
    # The op itself: a boolean mask has no gradient; other dtypes are the caller's to convert.
    mask = torch.ones(16, 24, dtype=torch.bool, device="cuda")
    options = (None, None, 0, 0, None, None, 0.0, 0.125, -1, -1, False, 0.0, False)
    out, lse = torch.ops.flash_ext.mem_eff_fwd(q, k, v, mask, *options)
    with pytest.raises(RuntimeError, match="bias_requires_grad is true but attn_bias is a "
                                           "boolean mask"):
        torch.ops.flash_ext.mem_eff_bwd(out, q, k, v, out, lse, mask, True, *options)
    with pytest.raises(RuntimeError, match="a boolean mask or an additive bias of q's dtype"):
        torch.ops.flash_ext.mem_eff_fwd(q, k, v, mask.half(), *options)


# Long sequences: against torch SDPA's efficient backend (the float64 reference would need
# chunking at this size).


@pytest.mark.parametrize("is_causal", [False, True])
def test_long_bias_matches_sdpa_efficient(is_causal):
    """S = 4096, D = 128, bf16, a (B, H, S, S) bias with gradient: out, dq, dk, dv and dbias by
    |x - sdpa| / |sdpa|. SDPA takes no is_causal with a mask: causal, it gets the bias with -inf
    above the diagonal (its gradient there is zero, as flash_ext's)."""
    seqlen = 4096
    q, k, v = leaves(*qkv(1, 8, 8, seqlen, seqlen, 128, torch.bfloat16))
    (bias,) = leaves(randn(1, 8, seqlen, seqlen, dtype=torch.bfloat16))
    g = torch.randn_like(q)
    ours = flash_ext.attention(q, k, v, attn_mask=bias, is_causal=is_causal, backend="mem_eff")
    ours = (ours, *torch.autograd.grad(ours, (q, k, v, bias), g))
    sdpa_bias = bias
    if is_causal:
        visible = torch.ones(seqlen, seqlen, dtype=torch.bool, device="cuda").tril()
        sdpa_bias = bias.masked_fill(~visible, NO_KEY)
    with sdpa_kernel(SDPBackend.EFFICIENT_ATTENTION):
        theirs = F.scaled_dot_product_attention(q, k, v, attn_mask=sdpa_bias)
    theirs = (theirs, *torch.autograd.grad(theirs, (q, k, v, bias), g))
    for name, a, b in zip(("out", *(f"d{n}" for n in NAMES)), ours, theirs):
        assert a.shape == b.shape and not a.isnan().any(), name
        err = ((a.float() - b.float()).norm() / b.float().norm()).item()
        assert err <= 1e-2, f"{name}: |flash_ext - sdpa_efficient| / |sdpa_efficient| = {err:.2e}"
