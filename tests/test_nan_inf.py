"""NaN and Inf in q, k, v, attn_mask and alibi_slopes, forward and backward, on every backend,
against SDPA's math path in float64 (issue 32).

The oracle is `visible_pairs_attention`: float64 attention in which every (query, key) pair that
a row sees computes what torch's math SDPA computes (NaN + x, inf - inf, 0 * NaN and all), while
pairs it does not see (causal, window, False in a boolean mask) take no part at all. Where no
non-finite input sits in such a hidden pair, that is SDPA's math path itself:
test_oracle_is_sdpa_math checks it against F.scaled_dot_product_attention (SDPBackend.MATH) in
float64, NaN, +inf and -inf positions and finite values, output and gradients. Where one does,
flash_ext keeps its own rules, and the test says so case by case (`differs`):

- Hidden pairs. SDPA's math path adds its mask to the scores (NaN + -inf = NaN) and multiplies
  every probability by its value (0 * NaN = NaN), so one NaN key or value turns every row of the
  head NaN. flash_ext's kernels skip the keys a row does not see; a non-finite input of a hidden
  pair can still reach the row through 0 * NaN in a tile shared with keys the row sees (values in
  the CPU forward; any operand in the backward and on the GPU). There the test accepts NaN where
  the oracle is finite, never a finite value other than the oracle's.
- Rows that see no key (or whose scores are all -inf) give zeros, lse = -inf and dq = 0 on every
  backend, also when their hidden keys or their own query are NaN (SDPA: NaN rows).
- lse is NaN where the row's scores hold a NaN or +inf: the kernels' max + log(sum) is
  inf + log(NaN) where torch.logsumexp gives +inf.

Finite entries follow the float64 rule of attention_check.py against the oracle run in float64
and in the input dtype.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest
import torch
import torch.nn.functional as F
from attention_check import EPS
from torch.nn.attention import SDPBackend, sdpa_kernel

import flash_ext
from flash_ext.flex import sdpa as flex_sdpa
from flash_ext.reference import alibi_bias, visible_keys

INF = float("inf")
NAN = float("nan")
BATCH, HEADS_Q, HEADS_KV, SEQLEN_Q, HEAD_DIM = 2, 4, 2, 37, 16
# The poisoned positions: batch 1, kv head 1 (q heads 2 and 3), key 5, query row 7, column 3.
B, KV_HEAD, Q_HEAD, KEY, ROW, COL = 1, 1, 2, 5, 7, 3
FULLY_MASKED_ROW = 3  # the boolean mask hides every key from this row


def classes(t: torch.Tensor) -> torch.Tensor:
    """0 finite, 1 NaN, 2 +inf, 3 -inf."""
    return torch.where(t.isnan(), 1, torch.where(t == INF, 2, torch.where(t == -INF, 3, 0)))


def visible_pairs_attention(q, k, v, visible, bias, scale, softcap=0.0):
    """(out, lse) of q (B, Hq, Sq, D), k and v (B, Hkv, Sk, D) where only the pairs of `visible`
    (bool, broadcastable to (B, Hq, Sq, Sk)) interact; `bias` is added to their scores (None:
    no bias). Materializes (B, Hq, Sq, Sk, D): for small inputs only."""
    group = q.shape[1] // k.shape[1]
    k, v = (t.repeat_interleave(group, 1) for t in (k, v))
    pair = visible[..., None]
    zero = q.new_zeros(())
    # where() before the products: a hidden pair's operands are 0, and so are their gradients.
    scores = (torch.where(pair, q[:, :, :, None], zero) *
              torch.where(pair, k[:, :, None], zero)).sum(-1) * scale
    if softcap > 0:
        scores = softcap * torch.tanh(scores / softcap)
    if bias is not None:
        scores = scores + bias
    scores = scores.masked_fill(~visible, -INF)
    lse = torch.logsumexp(scores, -1)
    lse = torch.where(lse == INF, NAN, lse)
    no_key = (scores == -INF).all(-1, keepdim=True)
    probs = torch.softmax(scores.masked_fill(no_key, 0), -1).masked_fill(no_key, 0)
    out = (probs[..., None] * torch.where(pair, v[:, :, None], zero)).sum(-2)
    return out, lse


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    poison: Callable[[dict], None]  # writes the non-finite values into the inputs
    is_causal: bool = False
    window_size: tuple[int, int] = (-1, -1)
    mask: str | None = None  # "bool" (B, 1, Sq, Sk) or "additive" (1, Hq, Sq, Sk)
    alibi: bool = False  # slopes (B, Hq)
    softcap: float = 0.0
    seqlen_k: int = 45
    hidden: str | None = None  # the poisoned input, when it sits in pairs some row does not see
    differs: str = ""  # how SDPA's math path differs from the oracle, if it does

    def __str__(self) -> str:
        return self.name


def at(name: str, index: tuple, value: float) -> Callable[[dict], None]:
    def poison(inputs: dict) -> None:
        inputs[name][index] = value
    return poison


def q_scores_all_neg_inf(inputs: dict) -> None:
    # Row ROW of q head Q_HEAD: -inf times keys all > 0 in column COL, every score -inf.
    inputs["q"][B, Q_HEAD, ROW] = 0.0
    inputs["q"][B, Q_HEAD, ROW, COL] = -INF
    inputs["k"][B, KV_HEAD, :, COL] = inputs["k"][B, KV_HEAD, :, COL].abs() + 0.1


def neg_inf_mask_row_with_nan_key(inputs: dict) -> None:
    inputs["mask"][0, :, FULLY_MASKED_ROW, :] = -INF
    inputs["k"][B, KV_HEAD, KEY, COL] = NAN


HIDDEN_ROWS = "some rows do not see the poisoned input: SDPA's math path is NaN there"

CASES = [
    Case("nan_q", at("q", (B, Q_HEAD, ROW, COL), NAN)),
    Case("inf_q", at("q", (B, Q_HEAD, ROW, COL), INF)),
    Case("neg_inf_q", at("q", (B, Q_HEAD, ROW, COL), -INF)),
    Case("q_scores_all_neg_inf", q_scores_all_neg_inf),
    Case("nan_k", at("k", (B, KV_HEAD, KEY, COL), NAN)),
    Case("inf_k", at("k", (B, KV_HEAD, KEY, COL), INF)),
    Case("nan_v", at("v", (B, KV_HEAD, KEY, COL), NAN)),
    Case("inf_v", at("v", (B, KV_HEAD, KEY, COL), INF)),
    Case("neg_inf_v", at("v", (B, KV_HEAD, KEY, COL), -INF)),
    # Row 0 sees key 0 alone: its scores are one NaN among hidden -inf. Every row is NaN.
    Case("causal_nan_first_key", at("k", (B, KV_HEAD, 0, COL), NAN), is_causal=True,
         hidden="k", differs="SDPA's dk and dv are NaN also for keys 37..44, which no row sees "
         "(flash_ext: zeros)"),
    # Past the CPU forward's first 256-key block: NaN after finite online-softmax steps.
    Case("nan_k_late_block", at("k", (B, KV_HEAD, 280, COL), NAN), seqlen_k=300),
    Case("inf_q_long", at("q", (B, Q_HEAD, ROW, COL), INF), seqlen_k=300),
    Case("nan_additive_mask", at("mask", (0, Q_HEAD, ROW, KEY), NAN), mask="additive"),
    Case("inf_additive_mask", at("mask", (0, Q_HEAD, ROW, KEY), INF), mask="additive"),
    # An additive -inf is a score: NaN + -inf = NaN, in flash_ext as in SDPA.
    Case("neg_inf_additive_row_nan_k", neg_inf_mask_row_with_nan_key, mask="additive"),
    Case("nan_alibi_slope", at("slopes", (B, Q_HEAD), NAN), alibi=True),
    # -inf * |i - j|: NaN on the diagonal; rows past Sk have none and see only -inf (zeros).
    Case("inf_alibi_slope", at("slopes", (B, Q_HEAD), INF), alibi=True, seqlen_k=30),
    Case("neg_inf_alibi_slope", at("slopes", (B, Q_HEAD), -INF), alibi=True),
    Case("causal_nan_k", at("k", (B, KV_HEAD, KEY, COL), NAN), is_causal=True, hidden="k",
         differs=HIDDEN_ROWS),
    Case("causal_nan_v", at("v", (B, KV_HEAD, KEY, COL), NAN), is_causal=True, hidden="v",
         differs=HIDDEN_ROWS),
    Case("causal_inf_q", at("q", (B, Q_HEAD, ROW, COL), INF), is_causal=True, hidden="q",
         differs="SDPA's gradients of k and v are NaN for the keys the row does not see"),
    Case("window_nan_v", at("v", (B, KV_HEAD, KEY, COL), NAN), window_size=(3, 2), hidden="v",
         differs=HIDDEN_ROWS),
    Case("bool_mask_nan_k", at("k", (B, KV_HEAD, KEY, COL), NAN), mask="bool", hidden="k",
         differs=HIDDEN_ROWS + ", the fully masked row included (flash_ext: zeros)"),
    Case("bool_mask_nan_v", at("v", (B, KV_HEAD, KEY, COL), NAN), mask="bool", hidden="v",
         differs=HIDDEN_ROWS + ", the fully masked row included (flash_ext: zeros)"),
    Case("bool_mask_nan_q_of_fully_masked_row", at("q", (B, Q_HEAD, FULLY_MASKED_ROW, COL), NAN),
         mask="bool", hidden="q",
         differs="SDPA's math path gives the fully masked row NaN, flash_ext zeros and lse -inf"),
    Case("softcap_inf_q", at("q", (B, Q_HEAD, ROW, COL), INF), softcap=5.0,
         differs="SDPA has no softcap: tanh caps the +inf scores, the row stays finite"),
]


def make_inputs(case: Case) -> dict:
    """Float32 CPU inputs of the case, poisoned."""
    sk = case.seqlen_k
    inputs = {
        "q": torch.randn(BATCH, HEADS_Q, SEQLEN_Q, HEAD_DIM),
        "k": torch.randn(BATCH, HEADS_KV, sk, HEAD_DIM),
        "v": torch.randn(BATCH, HEADS_KV, sk, HEAD_DIM),
        "mask": None,
        "slopes": torch.rand(BATCH, HEADS_Q) * 0.3 if case.alibi else None,
    }
    if case.mask == "bool":
        mask = torch.rand(BATCH, 1, SEQLEN_Q, sk) < 0.7
        mask[:, :, FULLY_MASKED_ROW] = False
        mask[B, 0, :, KEY] = torch.arange(SEQLEN_Q) % 2 == 0  # key KEY hidden from odd rows
        inputs["mask"] = mask
    elif case.mask == "additive":
        inputs["mask"] = torch.randn(1, HEADS_Q, SEQLEN_Q, sk)
    case.poison(inputs)
    return inputs


def oracle_args(case: Case, inputs: dict, dtype: torch.dtype):
    """(visible, bias) of the case for visible_pairs_attention, in `dtype`."""
    window = (case.window_size[0], 0) if case.is_causal else case.window_size
    visible = visible_keys(SEQLEN_Q, case.seqlen_k, window)[None, None]
    bias = None
    if inputs["slopes"] is not None:
        bias = alibi_bias(inputs["slopes"], SEQLEN_Q, case.seqlen_k).to(dtype)
    if case.mask == "bool":
        visible = visible & inputs["mask"]
    elif case.mask == "additive":
        mask = inputs["mask"].to(dtype)
        bias = mask if bias is None else bias + mask
    return visible, bias


def oracle(case: Case, inputs: dict, dtype: torch.dtype, grad_out: torch.Tensor):
    """(out, lse, dq, dk, dv) of visible_pairs_attention in `dtype` on the CPU."""
    q, k, v = (inputs[n].to(dtype).requires_grad_() for n in "qkv")
    visible, bias = oracle_args(case, inputs, dtype)
    out, lse = visible_pairs_attention(q, k, v, visible, bias, HEAD_DIM ** -0.5, case.softcap)
    grads = torch.autograd.grad(out, (q, k, v), grad_out.to(dtype))
    return (out, lse, *grads)


def sdpa_math(case: Case, inputs: dict, grad_out: torch.Tensor):
    """(out, dq, dk, dv) of torch's math SDPA in float64, masks and ALiBi as one attn_mask."""
    q, k, v = (inputs[n].double().requires_grad_() for n in "qkv")
    visible, bias = oracle_args(case, inputs, torch.float64)
    mask = None
    if bias is not None:
        mask = bias.masked_fill(~visible, -INF)
    elif not visible.all():
        mask = visible
    with sdpa_kernel(SDPBackend.MATH):
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)
    return (out, *torch.autograd.grad(out, (q, k, v), grad_out.double()))


@pytest.mark.parametrize("case", CASES, ids=str)
def test_oracle_is_sdpa_math(case: Case):
    if case.softcap > 0:
        pytest.skip(case.differs)
    inputs = make_inputs(case)
    grad_out = torch.randn(BATCH, HEADS_Q, SEQLEN_Q, HEAD_DIM)
    out, _, *grads = oracle(case, inputs, torch.float64, grad_out)
    differences = 0
    for name, ours, sdpa in zip(("out", "dq", "dk", "dv"), (out, *grads),
                                sdpa_math(case, inputs, grad_out)):
        ours, sdpa = ours.detach(), sdpa.detach()
        got, want = classes(ours), classes(sdpa)
        if case.differs:
            # SDPA poisons more: it has the oracle's non-finite entries, and where SDPA is
            # finite, so is the oracle.
            assert torch.equal(want[got != 0], got[got != 0]), name
            assert (got[want == 0] == 0).all(), name
            differences += int((got != want).sum())
        else:
            assert torch.equal(got, want), name
        same = (got == 0) & (want == 0)
        torch.testing.assert_close(ours[same], sdpa[same], rtol=1e-9, atol=1e-9, msg=name)
    assert differences > 0 or not case.differs, "the case says SDPA differs, but it does not"


def assert_parity(name: str, x: torch.Tensor, ref64: torch.Tensor, ref_lowp: torch.Tensor,
                  extra_nan: torch.Tensor | None = None) -> None:
    """x has ref64's NaN, +inf and -inf entries (or NaN where `extra_nan` allows it over a
    finite ref64), and its finite entries meet the float64 rule."""
    eps = EPS[x.dtype]
    x = x.detach().cpu().double()
    ref64, ref_lowp = ref64.detach(), ref_lowp.detach().double()
    got, want = classes(x), classes(ref64)
    ok = got == want
    if extra_nan is not None:
        ok |= extra_nan.expand_as(ok) & (want == 0) & (got == 1)
    if not ok.all():
        index = tuple(ok.logical_not().nonzero()[0].tolist())
        raise AssertionError(f"{name}: {int((~ok).sum())} of {ok.numel()} entries differ in "
                             f"class, first at {index}: got {x[index].item()}, want "
                             f"{ref64[index].item()}")
    finite = (got == 0) & (want == 0)
    if finite.any():
        err = (x - ref64)[finite].abs().max().item()
        lowp_finite = finite & torch.isfinite(ref_lowp)
        tol = 2 * (ref_lowp - ref64)[lowp_finite].abs().max().item() + eps
        assert err <= tol, f"{name}: max error {err:.3g} > tolerance {tol:.3g}"


BACKENDS = [
    pytest.param("cpu", "cpu", torch.float32, id="cpu-float32"),
    pytest.param("cpu", "cpu", torch.bfloat16, id="cpu-bfloat16"),
    pytest.param("flash", "cuda", torch.bfloat16, id="flash-bfloat16", marks=pytest.mark.gpu),
    pytest.param("mem_eff", "cuda", torch.float32, id="mem_eff-float32", marks=pytest.mark.gpu),
    pytest.param("mem_eff", "cuda", torch.bfloat16, id="mem_eff-bfloat16", marks=pytest.mark.gpu),
    pytest.param("flex", "cuda", torch.float32, id="flex-float32", marks=pytest.mark.gpu),
    # flex's kernels on CPU tensors in Triton's interpreter (CI), which conftest.py switches on
    # only where there is no GPU.
    pytest.param("flex", "cpu", torch.float32, id="flex-interpreter-float32",
                 marks=pytest.mark.skipif(torch.cuda.is_available(), reason="Triton's "
                                          "interpreter is off; flex-float32 runs compiled")),
]


def run_backend(backend: str, q, k, v, kwargs: dict):
    """(out, lse) of flash_ext.attention(backend=backend); flex on CPU tensors, which dispatch
    does not take (its kernels are GPU kernels), through the function that backend runs."""
    if backend == "flex" and q.device.type == "cpu":
        left, right = kwargs["window_size"]
        window = (left, 0) if kwargs["is_causal"] else (left, right)
        return flex_sdpa.attention(q, k, v, attn_mask=kwargs["attn_mask"], window=window,
                                   alibi_slopes=kwargs["alibi_slopes"], softcap=kwargs["softcap"])
    reasons = flash_ext.explain(q, k, v, backend=backend, **kwargs).reasons[backend]
    if reasons:
        pytest.skip(f"{backend}: {'; '.join(reasons)}")
    return flash_ext.attention(q, k, v, return_lse=True, backend=backend, **kwargs)


@pytest.mark.parametrize("case", CASES, ids=str)
@pytest.mark.parametrize("backend, device, dtype", BACKENDS)
def test_nan_inf_parity(backend: str, device: str, dtype: torch.dtype, case: Case):
    inputs = make_inputs(case)
    q, k, v = (inputs[n].to(device, dtype).requires_grad_() for n in "qkv")
    mask = inputs["mask"]
    if mask is not None:
        mask = mask.to(device)
    slopes = None if inputs["slopes"] is None else inputs["slopes"].to(device)
    kwargs = {"attn_mask": mask, "is_causal": case.is_causal, "enable_gqa": True,
              "window_size": case.window_size, "alibi_slopes": slopes, "softcap": case.softcap}
    out, lse = run_backend(backend, q, k, v, kwargs)
    grad_out = torch.randn(out.shape, dtype=dtype)
    grads = torch.autograd.grad(out, (q, k, v), grad_out.to(device))

    ref64 = oracle(case, inputs, torch.float64, grad_out)
    ref_lowp = oracle(case, inputs, dtype, grad_out)
    # Extra NaN from hidden pairs (module docstring), never in rows that see no key.
    sees_a_key = ref64[1] != -INF
    forward_extra = None
    if case.hidden is not None and (backend != "cpu" or case.hidden == "v"):
        forward_extra = sees_a_key
    grad_extra = {"dq": sees_a_key[..., None], "dk": torch.tensor(True), "dv": torch.tensor(True)}
    assert_parity("out", out, ref64[0], ref_lowp[0],
                  None if forward_extra is None else forward_extra[..., None])
    assert_parity("lse", lse, ref64[1], ref_lowp[1], forward_extra)
    for name, x, r64, rlow in zip(("dq", "dk", "dv"), grads, ref64[2:], ref_lowp[2:]):
        assert_parity(name, x, r64, rlow, grad_extra[name] if case.hidden else None)
