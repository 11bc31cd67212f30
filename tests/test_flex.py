"""flash_ext.flex_attention against a float64 flex reference over the mods of the issue.

On a CUDA machine the Triton kernels run compiled at full size; without CUDA they run on small
CPU tensors in Triton's interpreter (switched on by tests/conftest.py before triton's import).
"""

from __future__ import annotations

import contextlib
import functools

import pytest
import torch
from attention_check import assert_rule, check_against_reference, leaves
from torch._dynamo.testing import CompileCounterWithBackend
from torch.utils._python_dispatch import TorchDispatchMode

import flash_ext
from flash_ext.flex import create_block_mask, flex_attention
from flash_ext.flex import prepare as flex_prepare
from flash_ext.flex.ops import _tma_ok
from flash_ext.flex.reference import dense_mask, flex_attention_ref

pytest.importorskip("triton")

CUDA = torch.cuda.is_available()
DEVICE = "cuda" if CUDA else "cpu"
DTYPES = [torch.float16, torch.bfloat16, torch.float32]
# The interpreter runs every program in Python: small shapes, 32-blocks (still several blocks
# and several tiles per block); compiled: full size with the default 128-blocks.
BLOCK = 128 if CUDA else 32
BATCH, HEADS = (2, 4) if CUDA else (2, 2)
SEQ = 1000 if CUDA else 75  # not a multiple of the block
HEAD_DIM = 128 if CUDA else 24  # 24: padded to 32 in the kernel


def qkv(dtype, batch=BATCH, heads=HEADS, kv_heads=None, q_len=SEQ, kv_len=SEQ, head_dim=HEAD_DIM,
        v_head_dim=None):
    kv_heads = kv_heads or heads
    q = torch.randn(batch, heads, q_len, head_dim, dtype=dtype, device=DEVICE)
    k = torch.randn(batch, kv_heads, kv_len, head_dim, dtype=dtype, device=DEVICE)
    v = torch.randn(batch, kv_heads, kv_len, v_head_dim or head_dim, dtype=dtype, device=DEVICE)
    return q, k, v


def check(inputs, score_mod=None, mask_mod=None, grad=True, block=BLOCK, mask_b=None,
          mask_h=None, **kwargs):
    q, k = inputs[0], inputs[1]
    block_mask = None
    if mask_mod is not None:
        block_mask = create_block_mask(mask_mod, mask_b, mask_h, q.shape[2], k.shape[2],
                                       device=DEVICE, BLOCK_SIZE=block)
    gqa = q.shape[1] != k.shape[1]

    def run(q, k, v):
        return flex_attention(q, k, v, score_mod=score_mod, block_mask=block_mask,
                              enable_gqa=gqa, return_lse=True, **kwargs)

    def reference(q, k, v, compute_dtype):
        return flex_attention_ref(q, k, v, score_mod, mask_mod, scale=kwargs.get("scale"),
                                  compute_dtype=compute_dtype)

    check_against_reference(run, reference, inputs, grad=grad)


# The mods of the issue. Each factory takes (batch, heads, q_len, kv_len) and returns
# (score_mod, mask_mod); captured tensors live on DEVICE.


def causal(batch, heads, q_len, kv_len):
    def causal_mask(b, h, q_idx, kv_idx):
        return q_idx >= kv_idx

    return None, causal_mask


def sliding_window(batch, heads, q_len, kv_len):
    window = q_len // 4

    def sliding_window_mask(b, h, q_idx, kv_idx):
        return (q_idx >= kv_idx) & (q_idx - kv_idx <= window)

    return None, sliding_window_mask


def alibi(batch, heads, q_len, kv_len):
    slopes = torch.exp2(-8.0 * torch.arange(1, heads + 1, device=DEVICE) / heads)

    def alibi_bias(score, b, h, q_idx, kv_idx):
        return score - slopes[h] * (q_idx - kv_idx).abs()

    return alibi_bias, None


def softcap(batch, heads, q_len, kv_len):
    def tanh_softcap(score, b, h, q_idx, kv_idx):
        return 5.0 * torch.tanh(score / 5.0)

    return tanh_softcap, causal(batch, heads, q_len, kv_len)[1]


def document(batch, heads, q_len, kv_len):
    # Documents of random lengths, different per batch element.
    length = max(q_len, kv_len)
    ends = torch.sort(torch.randint(1, length, (batch, 3)), dim=1).values
    doc_ids = (torch.arange(length)[None, None, :] >= ends[:, :, None]).sum(1).to(DEVICE)

    def document_mask(b, h, q_idx, kv_idx):
        return doc_ids[b, q_idx] == doc_ids[b, kv_idx]

    return None, document_mask


def prefix_lm(batch, heads, q_len, kv_len):
    prefix = torch.randint(0, q_len // 2, (batch,), device=DEVICE)

    def prefix_lm_mask(b, h, q_idx, kv_idx):
        return (kv_idx <= prefix[b]) | (q_idx >= kv_idx)

    return None, prefix_lm_mask


def bias_table(batch, heads, q_len, kv_len):
    # A relative-position bias per head, indexed by q_idx - kv_idx: a gather from a table.
    table = torch.randn(heads, q_len + kv_len - 1, device=DEVICE)

    def relative_bias(score, b, h, q_idx, kv_idx):
        return score + table[h, q_idx - kv_idx + kv_len - 1]

    return relative_bias, None


MODS = [causal, sliding_window, alibi, softcap, document, prefix_lm, bias_table]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mods", MODS, ids=lambda m: m.__name__)
def test_mods(mods, dtype):
    score_mod, mask_mod = mods(BATCH, HEADS, SEQ, SEQ)
    check(qkv(dtype), score_mod, mask_mod, mask_b=BATCH, mask_h=HEADS)


@pytest.mark.parametrize("mods", [softcap, bias_table, document], ids=lambda m: m.__name__)
def test_lengths_multiple_of_the_tiles(mods):
    # No bounds checks on the sequence axis, and (with D = 32 / 128) none on the head dim.
    seqlen, head_dim = (1024, 128) if CUDA else (64, 32)
    score_mod, mask_mod = mods(BATCH, HEADS, seqlen, seqlen)
    check(qkv(torch.bfloat16, q_len=seqlen, kv_len=seqlen, head_dim=head_dim), score_mod,
          mask_mod, mask_b=BATCH, mask_h=HEADS)


@pytest.mark.parametrize("mods", [causal, bias_table, document], ids=lambda m: m.__name__)
@pytest.mark.parametrize("lens", [(SEQ // 2 + 3, SEQ), (SEQ, SEQ // 2 + 3)])
def test_seqlen_q_differs_from_k(mods, lens):
    score_mod, mask_mod = mods(BATCH, HEADS, *lens)
    check(qkv(torch.bfloat16, q_len=lens[0], kv_len=lens[1]), score_mod, mask_mod,
          mask_b=BATCH, mask_h=HEADS)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_gqa(dtype):
    score_mod, _ = alibi(1, 4, SEQ, SEQ)
    _, mask_mod = document(1, 4, SEQ, SEQ)
    check(qkv(dtype, batch=1, heads=4, kv_heads=2), score_mod, mask_mod, mask_b=1)


def test_plain_attention_matches_sdpa_reference():
    q, k, v = qkv(torch.float16)
    check((q, k, v))
    out = flex_attention(q, k, v, scale=0.3)
    ref = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(),
                                                           scale=0.3)
    torch.testing.assert_close(out.float(), ref, atol=2e-3, rtol=2e-3)


def test_combined_mods_and_scale():
    score_mod, _ = softcap(BATCH, HEADS, SEQ, SEQ)
    bias_mod, _ = bias_table(BATCH, HEADS, SEQ, SEQ)
    _, doc_mask = document(BATCH, HEADS, SEQ, SEQ)

    def softcap_then_bias(score, b, h, q_idx, kv_idx):
        return bias_mod(score_mod(score, b, h, q_idx, kv_idx), b, h, q_idx, kv_idx)

    def causal_document(b, h, q_idx, kv_idx):
        return doc_mask(b, h, q_idx, kv_idx) & (q_idx >= kv_idx)

    check(qkv(torch.bfloat16), softcap_then_bias, causal_document, mask_b=BATCH, scale=0.2)


def test_rows_that_see_no_key():
    def late_start(b, h, q_idx, kv_idx):
        return (q_idx >= 5) & (kv_idx < q_idx)

    q, k, v = qkv(torch.float32)
    check((q, k, v), mask_mod=late_start)
    block_mask = create_block_mask(late_start, None, None, SEQ, SEQ, DEVICE, BLOCK_SIZE=BLOCK)
    out, lse = flex_attention(q, k, v, block_mask=block_mask, return_lse=True)
    assert torch.equal(out[:, :, :5], torch.zeros_like(out[:, :, :5]))
    assert torch.isneginf(lse[:, :, :5]).all() and torch.isfinite(lse[:, :, 5:]).all()


def test_score_mod_that_hides_keys():
    # -inf from the score_mod itself (causal written as a score_mod), no block mask.
    def causal_score(score, b, h, q_idx, kv_idx):
        return torch.where(q_idx >= kv_idx, score, -float("inf"))

    check(qkv(torch.bfloat16), causal_score)


def test_value_head_dim_and_noncontiguous_inputs():
    q, k, v = qkv(torch.bfloat16, v_head_dim=HEAD_DIM // 2 + 8)
    q = q.transpose(1, 2).contiguous().transpose(1, 2)  # (B, S, H, D) memory
    k = k.transpose(1, 2).contiguous().transpose(1, 2)
    v = v[..., :].transpose(-1, -2).contiguous().transpose(-1, -2)  # head dim not innermost
    assert not q.is_contiguous() and v.stride(-1) != 1
    score_mod, mask_mod = alibi(BATCH, HEADS, SEQ, SEQ)[0], causal(0, 0, 0, 0)[1]
    check((q, k, v), score_mod, mask_mod)


def test_lse_gradient():
    # A loss through lse as well as out: the backward folds dlse into delta.
    _, mask_mod = sliding_window(BATCH, HEADS, SEQ, SEQ)
    block_mask = create_block_mask(mask_mod, None, None, SEQ, SEQ, DEVICE, BLOCK_SIZE=BLOCK)
    weights = torch.randn(BATCH, HEADS, SEQ, 1, device=DEVICE)

    def run(q, k, v):
        out, lse = flex_attention(q, k, v, block_mask=block_mask, return_lse=True)
        return out + lse[..., None] * weights, lse

    def reference(q, k, v, compute_dtype):
        out, lse = flex_attention_ref(q, k, v, mask_mod=mask_mod, compute_dtype=compute_dtype)
        return out + lse[..., None].to(out.dtype) * weights.to(out.dtype), lse

    check_against_reference(run, reference, qkv(torch.float32))


def test_block_sizes_and_tiles():
    # A rectangular block, and tiles smaller than the blocks (several tiles per block).
    score_mod, mask_mod = softcap(BATCH, HEADS, SEQ, SEQ)
    q_block, kv_block = (BLOCK, BLOCK // 2)
    tiles = {name: 16 for name in ("BLOCK_M", "BLOCK_N", "BLOCK_M1", "BLOCK_N1", "BLOCK_M2",
                                   "BLOCK_N2")}
    check(qkv(torch.float16), score_mod, mask_mod, block=(q_block, kv_block),
          kernel_options=tiles)


@pytest.mark.gpu
@pytest.mark.parametrize("use_tma", [True, False], ids=["tma", "pointers"])
@pytest.mark.parametrize("head_dim", [128, 20], ids=["D128", "D20"])
def test_load_paths(use_tma, head_dim):
    # TMA loads (USE_TMA, sm90+) and pointer loads, also where TMA cannot read the tensors
    # (D = 20 in bfloat16: rows 40 bytes apart, not a multiple of 16: pointer loads either way).
    score_mod, mask_mod = bias_table(BATCH, HEADS, SEQ, SEQ)
    check(qkv(torch.bfloat16, kv_heads=HEADS // 2, head_dim=head_dim), score_mod, mask_mod,
          mask_b=BATCH, mask_h=HEADS, kernel_options={"USE_TMA": use_tma})


def test_tma_eligibility():
    x = torch.zeros(2, 4, 64, 136, dtype=torch.bfloat16)
    assert _tma_ok(x, x.transpose(1, 2).contiguous().transpose(1, 2))
    assert not _tma_ok(torch.zeros(2, 4, 64, 20, dtype=torch.bfloat16))  # 40-byte rows
    assert not _tma_ok(x[..., 1:129])  # base 2 bytes past an aligned address
    assert not _tma_ok(x[:, :1].expand(2, 4, 64, 136))  # broadcast heads
    assert not _tma_ok(x.transpose(2, 3))  # head dim not innermost


class _PassThrough(TorchDispatchMode):
    """A dispatch mode that changes nothing: under it flex_attention takes the custom ops."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


@pytest.mark.parametrize("path", ["eager", "custom ops"])
def test_double_backward_raises(path):
    """Both paths give first-order gradients under create_graph; a second order raises."""
    q, k, v = (t.requires_grad_() for t in qkv(torch.float32, batch=1))
    block_mask = create_block_mask(causal(0, 0, 0, 0)[1], None, None, SEQ, SEQ, DEVICE,
                                   BLOCK_SIZE=BLOCK)
    with _PassThrough() if path == "custom ops" else contextlib.nullcontext():
        out = flex_attention(q, k, v, block_mask=block_mask)
        (dq,) = torch.autograd.grad((out * out).sum(), q, create_graph=True)
    assert dq.requires_grad
    with pytest.raises(RuntimeError, match="differentiate twice"):
        dq.sum().backward()


# torch.compile ------------------------------------------------------------------------------
# fullgraph=True: the mods are planned while dynamo traces (flash_ext/flex/prepare.py) and the
# kernels are custom ops in the graph. aot_eager on CPU: dynamo, fake tensors and AOT autograd
# without inductor's C++ build.


#: Dynamo before torch 2.13 cannot read closures back: mods that close over variables are
#: prepared outside the graph there (a graph break; prepare.py).
CLOSURES_IN_GRAPH = not flex_prepare._OLD_DYNAMO


def one_graph(*mods) -> bool:
    """Whether the mods compile into one graph on this torch."""
    return CLOSURES_IN_GRAPH or not any(m is not None and m.__closure__ for m in mods)


def compile_counted(fn, fullgraph=True):
    """fn under torch.compile, and a counter of the graphs compiled for it (dynamo reset first:
    the tests' functions share code objects, whose recompile limit would otherwise run out)."""
    torch._dynamo.reset()
    counter = CompileCounterWithBackend("inductor" if CUDA else "aot_eager")
    return torch.compile(fn, backend=counter, fullgraph=fullgraph), counter


def check_compiled(layer, compiled_layer, reference, inputs):
    """out, lse and the gradients of compiled_layer equal layer's (eager) and pass the float64
    rule against reference."""
    x, x_eager, x_lowp = leaves(*inputs), leaves(*inputs), leaves(*inputs)
    x64 = leaves(*(t.double() for t in inputs))
    out, lse = compiled_layer(*x)
    out_eager, lse_eager = layer(*x_eager)
    ref64, ref64_lse = reference(*x64, compute_dtype=torch.float64)
    ref_lowp, ref_lowp_lse = reference(*x_lowp, compute_dtype=None)
    g = torch.randn_like(out)
    compiled_results = (out, lse, *torch.autograd.grad(out, x, g))
    eager_results = (out_eager, lse_eager, *torch.autograd.grad(out_eager, x_eager, g))
    results64 = (ref64, ref64_lse, *torch.autograd.grad(ref64, x64, g.double()))
    results_lowp = (ref_lowp, ref_lowp_lse, *torch.autograd.grad(ref_lowp, x_lowp, g))
    for i, name in enumerate(("out", "lse", "dq", "dk", "dv")):
        torch.testing.assert_close(compiled_results[i], eager_results[i],
                                   msg=lambda m, name=name: f"{name}: {m}")
        assert_rule(name, compiled_results[i], results64[i], results_lowp[i])


@pytest.mark.parametrize("mods, block_mask_made", [
    (causal, "outside"), (causal, "inside"), (sliding_window, "inside"), (softcap, "outside"),
    (softcap, "inside"), (document, "outside"), (document, "inside"), (alibi, None),
    (bias_table, None)], ids=lambda x: getattr(x, "__name__", x))
def test_compile_fullgraph(mods, block_mask_made):
    """One graph for the mods, the block mask made outside or inside the compiled function, and
    the backward of its output."""
    score_mod, mask_mod = mods(1, HEADS, SEQ, SEQ)
    outside = None
    if block_mask_made == "outside":
        outside = create_block_mask(mask_mod, 1, HEADS, SEQ, SEQ, DEVICE, BLOCK_SIZE=BLOCK)

    def layer(q, k, v):
        block_mask = outside
        if block_mask_made == "inside":
            block_mask = create_block_mask(mask_mod, 1, HEADS, SEQ, SEQ, DEVICE,
                                           BLOCK_SIZE=BLOCK)
        return flex_attention(q, k, v, score_mod=score_mod, block_mask=block_mask,
                              return_lse=True)

    def reference(q, k, v, compute_dtype):
        return flex_attention_ref(q, k, v, score_mod, mask_mod, compute_dtype=compute_dtype)

    compiled_layer, counter = compile_counted(layer, fullgraph=one_graph(score_mod, mask_mod))
    check_compiled(layer, compiled_layer, reference, qkv(torch.float32, batch=1))
    if one_graph(score_mod, mask_mod):
        assert counter.frame_count == 1


@pytest.mark.skipif(not CLOSURES_IN_GRAPH, reason="closures are read in the graph from torch 2.13")
def test_compile_reads_captured_tensors_at_every_call():
    """Captured tensors are graph inputs: new values, in place or in a new closure over a tensor
    of the same layout, reach the kernels (also create_block_mask's) without a recompile; a
    changed captured number, baked into the kernel, recompiles."""
    q, k, v = qkv(torch.float32, batch=1)
    doc_ids = torch.randint(0, 3, (SEQ,), device=DEVICE).sort().values

    def document_mask(b, h, q_idx, kv_idx):
        return doc_ids[q_idx] == doc_ids[kv_idx]

    def make(table, weight):
        def relative_bias(score, b, h, q_idx, kv_idx):
            return score * weight + table[h, q_idx - kv_idx + SEQ - 1]

        return relative_bias

    def layer(q, k, v, score_mod):
        block_mask = create_block_mask(document_mask, None, None, SEQ, SEQ, DEVICE,
                                       BLOCK_SIZE=BLOCK)
        return flex_attention(q, k, v, score_mod=score_mod, block_mask=block_mask)

    compiled_layer, counter = compile_counted(layer)

    def run(score_mod, recompiles=False):
        frames = counter.frame_count
        out = compiled_layer(q, k, v, score_mod)
        assert (counter.frame_count > frames) == recompiles
        torch.testing.assert_close(out, layer(q, k, v, score_mod))
        ref = flex_attention_ref(q, k, v, score_mod, document_mask)[0]
        torch.testing.assert_close(out, ref.float(), atol=1e-4, rtol=1e-4)
        return out

    table = torch.randn(HEADS, 2 * SEQ - 1, device=DEVICE)
    first = run(make(table, 0.5), recompiles=True)
    table.copy_(torch.randn_like(table))
    assert not torch.allclose(run(make(table, 0.5)), first)
    before = run(make(table, 0.5))
    doc_ids.copy_(torch.randint(0, 3, (SEQ,), device=DEVICE).sort().values)
    assert not torch.allclose(run(make(table, 0.5)), before)
    run(make(torch.randn(HEADS, 2 * SEQ - 1, device=DEVICE), 0.5))
    run(make(table, 1.5), recompiles=True)
    run(make(torch.randn(HEADS, 2 * SEQ, device=DEVICE), 1.5), recompiles=True)  # new layout


@pytest.mark.skipif(not CLOSURES_IN_GRAPH, reason="older dynamo fails on the graph break that "
                    "a closure makes under dynamic shapes")
def test_compile_dynamic_lengths():
    """One graph for every sequence length under dynamic shapes (the configs and the plan depend
    on no length)."""
    score_mod, mask_mod = alibi(1, HEADS, SEQ, SEQ)[0], causal(0, 0, 0, 0)[1]

    def layer(q, k, v):
        block_mask = create_block_mask(mask_mod, None, None, q.shape[2], k.shape[2], DEVICE,
                                       BLOCK_SIZE=BLOCK)
        return flex_attention(q, k, v, score_mod=score_mod, block_mask=block_mask)

    torch._dynamo.reset()
    counter = CompileCounterWithBackend("inductor" if CUDA else "aot_eager")
    compiled_layer = torch.compile(layer, backend=counter, fullgraph=True, dynamic=True)
    for q_len, kv_len in ((SEQ, SEQ + 9), (SEQ // 2 + 3, SEQ)):  # Sq != Sk: no duck sizing
        inputs = qkv(torch.float32, batch=1, q_len=q_len, kv_len=kv_len)
        torch.testing.assert_close(compiled_layer(*inputs), layer(*inputs))
    assert counter.frame_count == 1


def test_compile_mods_defined_inside():
    """A mod defined inside the compiled function that captures nothing stays in the graph; one
    that captures a local tensor is prepared outside it (a graph break: fullgraph=True raises)."""
    inputs = qkv(torch.float32, batch=1)
    table = torch.randn(HEADS, 2 * SEQ - 1, device=DEVICE)

    def layer(q, k, v, table, capture):
        def causal_mask(b, h, q_idx, kv_idx):
            return q_idx >= kv_idx

        def relative_bias(score, b, h, q_idx, kv_idx):
            return score + table[h, q_idx - kv_idx + q_idx.new_tensor(SEQ - 1)]

        block_mask = create_block_mask(causal_mask, None, None, SEQ, SEQ, DEVICE,
                                       BLOCK_SIZE=BLOCK)
        return flex_attention(q, k, v, score_mod=relative_bias if capture else None,
                              block_mask=block_mask, return_lse=True)

    compiled_layer, counter = compile_counted(layer)
    out, lse = compiled_layer(*inputs, table, False)
    torch.testing.assert_close((out, lse), layer(*inputs, table, False))
    assert counter.frame_count == 1
    with pytest.raises(torch._dynamo.exc.Unsupported, match="disable"):
        compiled_layer(*inputs, table, True)
    compiled_layer, counter = compile_counted(layer, fullgraph=False)
    for _ in range(2):
        torch.testing.assert_close(compiled_layer(*inputs, table, True),
                                   layer(*inputs, table, True))
        table.copy_(torch.randn_like(table))


# Block masks -------------------------------------------------------------------------------


def expected_states(mask_mod, batch, heads, q_len, kv_len, q_block, kv_block):
    dense = dense_mask(mask_mod, batch, heads, q_len, kv_len, DEVICE)
    pad_q, pad_kv = -q_len % q_block, -kv_len % kv_block
    dense = torch.nn.functional.pad(dense, (0, pad_kv, 0, pad_q), value=False)
    blocks = dense.view(batch, heads, dense.shape[2] // q_block, q_block,
                        dense.shape[3] // kv_block, kv_block).transpose(3, 4)
    any_, all_ = blocks.any(-1).any(-1), blocks.all(-1).all(-1)
    return torch.where(all_, 2, torch.where(any_, 1, 0)).to(torch.int8)


@pytest.mark.parametrize("mods", [causal, sliding_window, document, prefix_lm],
                         ids=lambda m: m.__name__)
def test_block_mask_structure(mods):
    _, mask_mod = mods(BATCH, HEADS, SEQ, SEQ + 9)
    block_mask = create_block_mask(mask_mod, BATCH, HEADS, SEQ, SEQ + 9, DEVICE, BLOCK_SIZE=BLOCK)
    states = expected_states(mask_mod, BATCH, HEADS, SEQ, SEQ + 9, BLOCK, BLOCK)
    assert torch.equal(block_mask.block_states(), states)
    for name, value in (("kv", 1), ("full_kv", 2)):
        num = getattr(block_mask, f"{name}_num_blocks")
        idx = getattr(block_mask, f"{name}_indices")
        assert torch.equal(num, (states == value).sum(-1).int())
        for row in range(states.shape[2]):  # ascending block indices first
            listed = idx[0, 0, row, : num[0, 0, row]]
            assert torch.equal(listed, torch.nonzero(states[0, 0, row] == value)[:, 0].int())
    transposed = states.transpose(-1, -2)
    assert torch.equal(block_mask.q_num_blocks, (transposed == 1).sum(-1).int())
    assert torch.equal(block_mask.full_q_num_blocks, (transposed == 2).sum(-1).int())
    assert block_mask.shape == (BATCH, HEADS, SEQ, SEQ + 9)
    assert block_mask.sparsity() == pytest.approx(100 * (states == 0).double().mean().item())


def test_block_mask_without_mask_mod_and_broadcast():
    block_mask = create_block_mask(None, None, None, SEQ, SEQ, DEVICE, BLOCK_SIZE=BLOCK)
    assert block_mask.shape == (1, 1, SEQ, SEQ) and block_mask.sparsity() == 0
    assert int(block_mask.kv_num_blocks[0, 0, -1]) == -(-SEQ // BLOCK)  # the ragged last row
    q, k, v = qkv(torch.float32)
    torch.testing.assert_close(flex_attention(q, k, v, block_mask=block_mask),
                               flex_attention(q, k, v))


def test_torch_block_mask_is_accepted():
    from torch.nn.attention.flex_attention import create_block_mask as torch_create_block_mask

    _, mask_mod = sliding_window(BATCH, HEADS, SEQ, SEQ)
    theirs = torch_create_block_mask(mask_mod, None, None, SEQ, SEQ, device=DEVICE,
                                     BLOCK_SIZE=BLOCK)
    q, k, v = qkv(torch.float32)
    ours = create_block_mask(mask_mod, None, None, SEQ, SEQ, DEVICE, BLOCK_SIZE=BLOCK)
    torch.testing.assert_close(flex_attention(q, k, v, block_mask=theirs),
                               flex_attention(q, k, v, block_mask=ours), atol=0, rtol=0)


def test_block_mask_errors():
    with pytest.raises(ValueError, match="BLOCK_SIZE must be a power of two"):
        create_block_mask(None, 1, 1, 64, 64, DEVICE, BLOCK_SIZE=48)
    with pytest.raises(ValueError, match="Q_LEN must be a positive int"):
        create_block_mask(None, 1, 1, 0, 64, DEVICE)
    block_mask = create_block_mask(None, 1, 1, SEQ, SEQ + 1, DEVICE, BLOCK_SIZE=BLOCK)
    q, k, v = qkv(torch.float32)
    with pytest.raises(ValueError, match="block_mask was made for Q_LEN, KV_LEN"):
        flex_attention(q, k, v, block_mask=block_mask)
    block_mask = create_block_mask(None, 3, 1, SEQ, SEQ, DEVICE, BLOCK_SIZE=BLOCK)
    with pytest.raises(ValueError, match="block_mask has B=3"):
        flex_attention(q, k, v, block_mask=block_mask)


# Inputs ------------------------------------------------------------------------------------


def test_input_errors():
    q, k, v = qkv(torch.float32, heads=4, kv_heads=2)
    with pytest.raises(ValueError, match="enable_gqa=True"):
        flex_attention(q, k, v)
    with pytest.raises(TypeError, match="query has dtype torch.float64"):
        flex_attention(q.double(), k, v, enable_gqa=True)
    with pytest.raises(ValueError, match="must have rank 4"):
        flex_attention(q[0], k, v, enable_gqa=True)
    with pytest.raises(ValueError, match="kernel_options has unknown keys"):
        flex_attention(q, k, v, enable_gqa=True, kernel_options={"BLOCK": 16})
    with pytest.raises(ValueError, match=r"kernel_options\['USE_TMA'\] must be a bool"):
        flex_attention(q, k, v, enable_gqa=True, kernel_options={"USE_TMA": 1})
    with pytest.raises(ValueError, match=r"kernel_options\['num_warps'\] must be a positive"):
        flex_attention(q, k, v, enable_gqa=True, kernel_options={"num_warps": True})


def test_empty_inputs():
    q, k, v = qkv(torch.float32, q_len=0)
    assert flex_attention(q, k, v).shape == q.shape
    q, k, v = qkv(torch.float32, kv_len=0)
    out, lse = flex_attention(q, k, v, return_lse=True)
    assert torch.equal(out, torch.zeros_like(q)) and torch.isneginf(lse).all()


def test_top_level_exports():
    assert flash_ext.flex_attention is flex_attention
    assert flash_ext.create_block_mask is create_block_mask


def test_opcheck(monkeypatch):
    from flash_ext.flex import attention as api

    calls = []

    def record(*args):
        calls.append(args)
        return real(*args)

    real = api.flex_fwd
    monkeypatch.setattr(api, "flex_fwd", record)
    monkeypatch.setattr(api, "needs_custom_op", lambda *tensors: True)
    q, k, v = (t.requires_grad_() for t in qkv(torch.float32, q_len=40, kv_len=40))
    score_mod, mask_mod = alibi(BATCH, HEADS, 40, 40)[0], causal(0, 0, 0, 0)[1]
    mask = create_block_mask(mask_mod, None, None, 40, 40, DEVICE, BLOCK_SIZE=32)
    flex_attention(q, k, v, score_mod=score_mod, block_mask=mask)
    torch.library.opcheck(torch.ops.flash_ext.flex_fwd.default, calls[0])


def test_eager_path_matches_the_custom_ops(monkeypatch):
    # Plain eager calls run FlexFunction; compile, fake tensors and modes the custom ops. Both
    # launch the same kernels: bitwise equal outputs and gradients, with and without an lse loss.
    from flash_ext.flex import attention as api

    score_mod, mask_mod = bias_table(BATCH, HEADS, SEQ, SEQ)
    block_mask = create_block_mask(mask_mod, None, None, SEQ, SEQ, DEVICE, BLOCK_SIZE=BLOCK)
    q, k, v = (t.requires_grad_() for t in qkv(torch.bfloat16))
    g = torch.randn(BATCH, HEADS, SEQ, HEAD_DIM, device=DEVICE, dtype=torch.bfloat16)
    g_lse = torch.randn(BATCH, HEADS, SEQ, device=DEVICE)

    def run():
        out, lse = flex_attention(q, k, v, score_mod=score_mod, block_mask=block_mask,
                                  return_lse=True)
        grads = torch.autograd.grad((out * g).sum(), (q, k, v), retain_graph=True)
        lse_grads = torch.autograd.grad((lse * g_lse).sum(), (q, k, v))
        return (out, lse, *grads, *lse_grads)

    calls = []
    monkeypatch.setattr(api.FlexFunction, "apply", record(calls, api.FlexFunction.apply))
    eager = run()
    assert len(calls) == 1
    monkeypatch.setattr(api, "needs_custom_op", lambda *tensors: True)
    through_ops = run()
    assert len(calls) == 1
    for a, b in zip(eager, through_ops):
        assert torch.equal(a, b)


def record(calls: list, fn):
    def recorded(*args):
        calls.append(args)
        return fn(*args)
    return recorded


def test_needs_custom_op():
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.utils._python_dispatch import TorchDispatchMode

    from flash_ext.flex.ops import needs_custom_op

    x = torch.zeros(2)
    assert not needs_custom_op(x, torch.nn.Parameter(x))
    with FakeTensorMode() as mode:
        assert needs_custom_op(mode.from_tensor(x))

    class Passthrough(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    with Passthrough():
        assert needs_custom_op(x)
    with torch.device("cpu"):  # a torch-function mode
        assert needs_custom_op(x)
    assert torch.func.vmap(lambda t: torch.tensor(needs_custom_op(t)))(x.view(2, 1)).all()


@pytest.mark.gpu
def test_long_causal_against_sdpa():
    q, k, v = (torch.randn(1, 8, 4096, 128, device="cuda", dtype=torch.bfloat16,
                           requires_grad=True) for _ in range(3))
    block_mask = create_block_mask(causal(0, 0, 0, 0)[1], None, None, 4096, 4096)
    out = flex_attention(q, k, v, block_mask=block_mask)
    ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    torch.testing.assert_close(out, ref, atol=2e-2, rtol=2e-2)
    g = torch.randn_like(out)
    grads = torch.autograd.grad(out, (q, k, v), g)
    ref_grads = torch.autograd.grad(ref, (q, k, v), g)
    for a, b in zip(grads, ref_grads):
        torch.testing.assert_close(a, b, atol=5e-2, rtol=5e-2)


# flash_ext.attention's features through flex (what backend="flex" runs) ---------------------


SDPA_CASES = {  # shapes of alibi_slopes and of the attn_mask's leading dims
    "window_bottom_right_softcap_alibi": {"window_size": (5, 0), "bottom_right": True,
                                          "softcap": 3.0, "alibi_slopes": (HEADS,)},
    "bool_mask_and_window": {"attn_mask": ("bool", (BATCH, 1)), "window_size": (-1, 2)},
    "additive_mask_and_batch_alibi": {"attn_mask": ("additive", (HEADS,)),
                                      "alibi_slopes": (BATCH, HEADS)},
    # Masks hide keys after scaling: a negative scale must not turn them visible.
    "negative_scale_window": {"scale": -0.3, "window_size": (4, 0)},
}


@pytest.mark.parametrize("case", SDPA_CASES)
def test_sdpa_features(case):
    # Sq < Sk for the bottom-right window (every row sees a key), Sq > Sk for the others.
    lens = (SEQ // 2, SEQ) if "bottom_right" in case else (SEQ, SEQ // 2)
    from flash_ext.flex import sdpa
    from flash_ext.reference import attention_ref

    kwargs = dict(SDPA_CASES[case])
    if "alibi_slopes" in kwargs:
        kwargs["alibi_slopes"] = torch.rand(kwargs["alibi_slopes"], device=DEVICE)
    if "attn_mask" in kwargs:
        kind, lead = kwargs["attn_mask"]
        shape = (*lead, *lens)
        kwargs["attn_mask"] = (torch.rand(shape, device=DEVICE) > 0.3 if kind == "bool" else
                               torch.randn(shape, device=DEVICE))

    def run(q, k, v):
        return sdpa.attention(q, k, v, attn_mask=kwargs.get("attn_mask"),
                              window=kwargs.get("window_size", (-1, -1)),
                              bottom_right=kwargs.get("bottom_right", False),
                              scale=kwargs.get("scale"), alibi_slopes=kwargs.get("alibi_slopes"),
                              softcap=kwargs.get("softcap", 0.0))

    check_against_reference(run, functools.partial(attention_ref, **kwargs),
                            qkv(torch.bfloat16, q_len=lens[0], kv_len=lens[1]))


@pytest.mark.skipif(not CUDA, reason="the flex backend of attention() needs a CUDA build of torch")
def test_attention_backend_flex():
    """flash_ext.attention(backend="flex"): validated and described in C++, run here."""
    from flash_ext.reference import attention_ref

    slopes = torch.rand(HEADS, device=DEVICE)
    options = dict(alibi_slopes=slopes, softcap=3.0)
    run = functools.partial(flash_ext.attention, is_causal=True, return_lse=True, backend="flex",
                            **options)
    reference = functools.partial(attention_ref, window_size=(-1, 0), **options)
    check_against_reference(run, reference, qkv(torch.bfloat16))
    with pytest.raises(NotImplementedError, match=r"backend='flex' cannot run this call: "
                                                  r"dropout_p > 0 \(not supported\)"):
        flash_ext.attention(*qkv(torch.bfloat16), dropout_p=0.1, backend="flex")
