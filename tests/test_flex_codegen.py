"""How user mods reach the flex kernels: tracing, code generation, captured tensors, caching and
the errors for what is not supported. Kernels run as in test_flex.py (interpreter on CPU)."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import textwrap

import pytest
import torch
from attention_check import check_against_reference

from flash_ext.flex import SUPPORTED_OPS, create_block_mask, flex_attention
from flash_ext.flex import trace as flex_trace
from flash_ext.flex.reference import flex_attention_ref

pytest.importorskip("triton")

CUDA = torch.cuda.is_available()
DEVICE = "cuda" if CUDA else "cpu"
BLOCK = 128 if CUDA else 32
SEQ = 300 if CUDA else 45
HEADS = 2


def qkv(dtype=torch.float32, q_len=SEQ, kv_len=SEQ):
    return tuple(torch.randn(2, HEADS, n, 16, dtype=dtype, device=DEVICE)
                 for n in (q_len, kv_len, kv_len))


def check(score_mod=None, mask_mod=None, dtype=torch.float32, grad=True):
    """flex_attention against the reference: out, lse and (with grad) dq, dk, dv."""
    inputs = qkv(dtype)
    block_mask = None
    if mask_mod is not None:
        block_mask = create_block_mask(mask_mod, 2, HEADS, SEQ, SEQ, DEVICE, BLOCK_SIZE=BLOCK)

    def run(q, k, v):
        return flex_attention(q, k, v, score_mod=score_mod, block_mask=block_mask,
                              return_lse=True)

    def reference(q, k, v, compute_dtype):
        return flex_attention_ref(q, k, v, score_mod, mask_mod, compute_dtype=compute_dtype)

    check_against_reference(run, reference, inputs, grad=grad)


def test_float_ops_and_their_gradients():
    def many_ops(score, b, h, q_idx, kv_idx):
        distance = (q_idx - kv_idx).float()
        bounded = torch.tanh(score)
        terms = [
            torch.exp(-score.abs()), torch.log(1 + score * score),
            torch.sqrt(score * score + 1), torch.sigmoid(score),
            score.clamp(-1.0, 0.5), torch.maximum(score, distance / 50),
            torch.minimum(score, torch.zeros_like(score)), score ** 2, bounded ** 3,
            (score * score + 1) ** 0.5, (score * score + 1) ** -1, (score * score + 1) ** 1.5,
            torch.sign(score) * torch.floor(distance / 7) + torch.ceil(distance / 5),
            torch.trunc(distance / -3), torch.exp2(bounded), torch.log2(bounded + 2),
            torch.sin(score) * torch.cos(score), torch.relu(score), -torch.reciprocal(
                score * score + 2), torch.rsqrt(score * score + 1), torch.erf(score),
            torch.where(score > 0, score, 0.5 * score), torch.remainder(distance, 4.5),
            torch.fmod(distance, 4.5), torch.div(distance, 4, rounding_mode="floor"),
            score.masked_fill(distance > 30, -1.0),
            torch.where(torch.isnan(score) | torch.isinf(score / 0.0), 0.0, score),
        ]
        return score + 0.02 * sum(terms)  # small: ops less exact than torch must not dominate

    check(many_ops)


def test_integer_and_boolean_semantics():
    # Floor division and remainder of negative integers follow torch (Python), not C.
    def integer_mask(b, h, q_idx, kv_idx):
        d = q_idx - kv_idx
        keep = ((d // 3) % 2 == 0) | (torch.remainder(d, 5) == 1)
        keep = keep ^ (torch.div(d, 4, rounding_mode="trunc") == -1)
        keep = keep & ~(torch.fmod(d, 7) == -2) & ((q_idx * 2 + h) % 5 != b)
        return keep | (kv_idx == 0)

    def integer_score(score, b, h, q_idx, kv_idx):
        d = q_idx - kv_idx
        return score + (d // 4).float() * 0.01 + (d % 3) * 0.1 + (d > 2).float() + (
            (q_idx & 3) | (kv_idx ^ 1)).to(torch.float32) * 0.01 + torch.abs(d).to(
            torch.int64) * 1e-3

    check(integer_score, integer_mask)


def test_captured_tensors_of_every_kind():
    table = torch.randn(HEADS, SEQ, SEQ, device=DEVICE)
    half_table = torch.randn(SEQ, HEADS, device=DEVICE, dtype=torch.float16)
    allowed = torch.rand(SEQ, SEQ, device=DEVICE) > 0.2
    temperature = torch.tensor(0.7, device=DEVICE)

    def indexed_many_ways(score, b, h, q_idx, kv_idx):
        return (score * temperature + table[h][q_idx][kv_idx] + table[:, q_idx][h, kv_idx]
                + table.transpose(1, 2)[h, kv_idx, q_idx] + table[-1, q_idx, kv_idx]
                + table.unsqueeze(0)[0, 0, q_idx, kv_idx] + half_table[kv_idx, h])

    def bool_table(b, h, q_idx, kv_idx):
        return allowed[q_idx, kv_idx] | (q_idx == kv_idx)

    check(indexed_many_ways, bool_table)


GLOBAL_SCALE = torch.tensor([0.5, 2.0], device=DEVICE)


def global_scaled(score, b, h, q_idx, kv_idx):
    return score * GLOBAL_SCALE[h]


def test_globals_and_partials():
    def shifted(score, b, h, q_idx, kv_idx, shift, bias):
        return score + shift * bias[kv_idx]

    partial = functools.partial(shifted, shift=0.5, bias=torch.randn(SEQ, device=DEVICE))
    check(global_scaled)
    check(partial)


def test_trace_cache_reuses_code_with_new_tensors(monkeypatch):
    traces = []
    real = flex_trace._trace_new

    def counting(*args):
        traces.append(args[1])
        return real(*args)

    monkeypatch.setattr(flex_trace, "_trace_new", counting)

    def make(bias, weight):
        def biased(score, b, h, q_idx, kv_idx):
            return score * weight + bias[q_idx]

        return biased

    first = make(torch.randn(SEQ, device=DEVICE), 0.5)
    check(first, grad=False)
    check(first, grad=False)
    assert len(traces) == 1
    # A new tensor of the same layout: no new trace, and the new values are read.
    check(make(torch.randn(SEQ, device=DEVICE), 0.5), grad=False)
    assert len(traces) == 1
    check(make(torch.randn(SEQ, device=DEVICE), 1.5), grad=False)  # a captured scalar: baked in
    assert len(traces) == 2
    check(make(torch.randn(SEQ + 1, device=DEVICE), 0.5), grad=False)  # a new shape
    assert len(traces) == 3


def test_unsupported_op_is_named():
    def lgamma_mod(score, b, h, q_idx, kv_idx):
        return torch.lgamma(score)

    with pytest.raises(NotImplementedError, match="aten.lgamma") as info:
        flex_attention(*qkv(), score_mod=lgamma_mod)
    assert "Supported aten operations" in str(info.value)
    assert "tanh" in SUPPORTED_OPS and "index" in SUPPORTED_OPS


def test_python_control_flow_is_explained():
    def branchy(score, b, h, q_idx, kv_idx):
        if q_idx > kv_idx:
            return score
        return score * 2

    with pytest.raises(TypeError, match="torch.where"):
        flex_attention(*qkv(), score_mod=branchy)


def test_captured_tensor_errors():
    bias = torch.randn(SEQ, device=DEVICE, requires_grad=True)

    def learnable(score, b, h, q_idx, kv_idx):
        return score + bias[kv_idx]

    with pytest.raises(NotImplementedError, match="requires grad"):
        flex_attention(*qkv(), score_mod=learnable)
    with torch.no_grad():
        flex_attention(*qkv(), score_mod=learnable)  # no autograd, no problem

    tables = [torch.randn(SEQ, device=DEVICE) for _ in range(7)]

    def seven(score, b, h, q_idx, kv_idx):
        return score + sum(t[kv_idx] for t in tables)

    with pytest.raises(NotImplementedError, match="at most 6"):
        flex_attention(*qkv(), score_mod=seven)


@pytest.mark.gpu
def test_captured_tensor_on_another_device():
    bias = torch.randn(SEQ)

    def cpu_bias(score, b, h, q_idx, kv_idx):
        return score + bias[kv_idx]

    with pytest.raises(ValueError, match="move the captured tensor"):
        flex_attention(*qkv(), score_mod=cpu_bias)


def test_cpu_needs_the_interpreter():
    code = textwrap.dedent("""
        import os
        os.environ.pop("TRITON_INTERPRET", None)
        import triton  # imported before the interpreter could be switched on
        import torch
        from flash_ext.flex import flex_attention
        q = torch.randn(1, 1, 16, 16)
        try:
            flex_attention(q, q, q)
        except RuntimeError as e:
            print(e)
    """)
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env=env, timeout=300, check=False)
    assert "set TRITON_INTERPRET=1" in result.stdout, result.stdout + result.stderr


COMPILE_CHECK = textwrap.dedent("""
    # Compiles the flex kernels (with a score_mod, a mask_mod and a captured tensor) for sm_90
    # with the installed Triton, down to a cubin: no GPU needed.
    import torch
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource, compile as triton_compile
    from flash_ext.flex import build
    from flash_ext.flex.trace import trace_mod

    doc = torch.zeros(2, 256, dtype=torch.int64)
    def softcap(score, b, h, q_idx, kv_idx):
        return 20 * torch.tanh(score / 20)
    def document(b, h, q_idx, kv_idx):
        return (doc[b, q_idx] == doc[b, kv_idx]) & (q_idx >= kv_idx)
    cpu = torch.device("cpu")
    (score, score_bufs), (mask, mask_bufs) = (trace_mod(softcap, "score_mod", cpu),
                                              trace_mod(document, "mask_mod", cpu))
    mod = build.module(build.kernel_module_id(score, score_bufs, mask, mask_bufs, False))
    lists = ("KV_NUM", "KV_IDX", "FULL_KV_NUM", "FULL_KV_IDX", "Q_NUM", "Q_IDX", "FULL_Q_NUM",
             "FULL_Q_IDX")
    types = {"LSE": "*fp32", "DELTA": "*fp32", "BUF0": "*i64", **{n: "*i32" for n in lists}}
    shape = dict(HEAD_DIM=128, V_HEAD_DIM=128, BLOCK_D=128, BLOCK_DV=128, SPARSE_Q=128,
                 SPARSE_KV=128, HAS_SCORE_MOD=True, IS_DIVISIBLE=False, IEEE_FP32=False)
    fwd_tiles = dict(BLOCK_M=128, BLOCK_N=64)
    bwd_tiles = dict(BLOCK_M1=64, BLOCK_N1=128, BLOCK_M2=128, BLOCK_N2=64)
    box = lambda rows: f"tensordesc<bf16[1, 1, {rows}, 128]>"
    descriptors = {"K_DESC": box(64), "V_DESC": box(64)}, {
        "Q_DESC": box(64), "DO_DESC": box(64), "K_DESC": box(64), "V_DESC": box(64)}
    for tma in (False, True):
        for fn, tiles, boxes in ((mod.flex_fwd_kernel, fwd_tiles, descriptors[0]),
                                 (mod.flex_bwd_kernel, bwd_tiles, descriptors[1])):
            constants = {**shape, **tiles, "TMA": tma}
            signature, attrs = {}, {}
            for i, name in enumerate(fn.arg_names):
                if name in constants:
                    signature[name] = "constexpr"
                elif name == "sm_scale":
                    signature[name] = "fp32"
                elif tma and name in boxes:
                    signature[name] = boxes[name]
                elif name[0].isupper() and not name.endswith(("LEN", "HEADS", "GROUP")):
                    signature[name] = types.get(name, "*i32" if name.startswith("BUF") else "*bf16")
                    attrs[(i,)] = [["tt.divisibility", 16]]
                else:
                    signature[name] = "i32"
            kernel = triton_compile(ASTSource(fn, signature, constants, attrs),
                                    target=GPUTarget("cuda", 90, 32),
                                    options={"num_warps": 8, "num_stages": 3})
            print(fn.__name__, "TMA" if tma else "pointers", "compiled, shared memory",
                  kernel.metadata.shared)
""")


@pytest.mark.skipif(CUDA, reason="the GPU tests compile and run the kernels")
def test_kernels_compile_for_sm90():
    # The interpreter runs the kernels as Python; this catches what only the compiler rejects.
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    result = subprocess.run([sys.executable, "-c", COMPILE_CHECK], capture_output=True,
                            text=True, env=env, timeout=600, check=False,
                            cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    for kernel in ("flex_fwd_kernel", "flex_bwd_kernel"):
        for loads in ("pointers", "TMA"):
            assert f"{kernel} {loads} compiled" in result.stdout
