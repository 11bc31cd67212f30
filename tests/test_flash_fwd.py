"""The flash backend's CUDA forward where it has no backward counterpart, against reference.py by
the float64 rule (attention_check.py): strided layouts, rows without keys (zeros, lse = -inf),
empty inputs, varlen offset checks, the dropout keep-mask's rate and seeding, CUDA graphs,
split-KV decoding, 64-bit offsets, parity with torch SDPA, torch.compile, opcheck, dispatch.

The cases that run with gradients (head dims, dtypes, sequence lengths, both causal alignments,
windows, ALiBi, softcap, GQA/MQA, varlen, dropout against the kernels' own keep-mask) are in
test_flash_bwd.py, which checks out and lse before the gradients. On Hopper the tests with the
`kernels` fixture (conftest.py) also run on the sm80 (mma.sync) kernels, which the default
there leaves for dropout, split-KV, the head dims without a Hopper kernel and layouts TMA cannot
read. Head dims and dtypes that this build left out (FLASH_EXT_HDIMS, FLASH_EXT_DTYPES) are
skipped.
"""

from __future__ import annotations

import functools

import pytest
import torch
from attention_check import assert_rule
from flash_cases import (
    DTYPES,
    FLASH_MARKS,
    capture,
    drawn_seed,
    flash_style,
    packed,
    qkv,
    randn,
    random_lengths,
    require_kernel,
    sdpa_style,
)
from torch.nn.attention import SDPBackend, sdpa_kernel

import flash_ext
from flash_ext.reference import attention_ref, attention_varlen_ref

pytestmark = FLASH_MARKS

ops = torch.ops.flash_ext
NO_KEY = float("-inf")


def check(run, reference, inputs, lse: bool = True) -> None:
    """run(*inputs) -> (out, lse) against reference(*inputs, compute_dtype=...) -> (out, lse),
    in float64 and in the inputs' dtype. The inputs are used as they are (strides included)."""
    with torch.no_grad():
        out, out_lse = run(*inputs)
        ref64, ref64_lse = reference(*(t.double() for t in inputs), compute_dtype=torch.float64)
        ref_lowp, ref_lowp_lse = reference(*inputs, compute_dtype=None)
    assert out.dtype == inputs[0].dtype and out.stride(-1) == 1
    assert not out.isnan().any(), "out has NaN (an element the kernel did not write?)"
    assert_rule("out", out, ref64, ref_lowp)
    if lse:
        assert_rule("lse", out_lse, ref64_lse, ref_lowp_lse)


# Layouts.


@pytest.mark.usefixtures("kernels")
@pytest.mark.parametrize("dtype", DTYPES)
def test_strided_inputs(dtype):
    require_kernel(64, dtype)
    q = randn(2, 4, 150, 88, dtype=dtype)[..., 8:72]  # row stride 88, offset 8
    k = randn(2, 300, 4, 64, dtype=dtype).transpose(1, 2)[:, :, ::2]  # every other row
    v = randn(2, 4, 64, 150, dtype=dtype).transpose(-1, -2)  # last dim strided: copied
    check(*sdpa_style(), (q, k, v))
    check(*sdpa_style(is_causal=True), (q, k[:, :1].expand(2, 4, 150, 64), v))  # head stride 0
    # Rows not 16-byte aligned (odd row stride, 2- and 8-byte offsets): copied, not misread.
    q = randn(2, 4, 150, 66, dtype=dtype)[..., 1:65]
    k = randn(2 * 4 * 300 * 64 + 4, dtype=dtype)[4:].view(2, 4, 300, 64)
    check(*sdpa_style(), (q, k, k.flip(2)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_qkv_packed_layout(dtype):
    require_kernel(64, dtype)
    q, k, v = randn(2, 97, 3, 4, 64, dtype=dtype).unbind(2)  # flash-attn (B, S, 3, H, D)
    run, reference = flash_style(causal=True)
    check(run, reference, (q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)))
    out = flash_ext.flash_attn_qkvpacked_func(torch.stack((q, k, v), 2), causal=True)
    torch.testing.assert_close(out, flash_ext.flash_attn_func(q, k, v, causal=True), atol=0,
                               rtol=0)


# Rows that see no key, and empty inputs.


@pytest.mark.usefixtures("kernels")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("how", ["window", "bottom_right"])
def test_rows_without_keys(dtype, how):
    """Zeros and lse = -inf, never NaN."""
    q, k, v = qkv(2, 2, 2, 100, 40, 64, dtype)
    with torch.no_grad():
        if how == "window":  # row i sees key i only: rows 40.. see none
            out, lse = flash_ext.attention(q, k, v, window_size=(0, 0), return_lse=True,
                                           backend="flash")
            empty = slice(40, None)
        else:  # bottom-right causal with Sq > Sk: the first 60 rows see none
            out, lse, _ = flash_ext.flash_attn_func(q.transpose(1, 2), k.transpose(1, 2),
                                                    v.transpose(1, 2), causal=True,
                                                    return_attn_probs=True)
            out = out.transpose(1, 2)
            empty = slice(None, 60)
    assert not out.isnan().any() and not lse.isnan().any()
    assert (out[:, :, empty] == 0).all() and (lse[:, :, empty] == NO_KEY).all()
    visible = torch.ones(100, dtype=torch.bool, device="cuda")
    visible[empty] = False
    assert torch.isfinite(lse[:, :, visible]).all()


@pytest.mark.usefixtures("kernels")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("head_dim", [64, 128, 256])
@pytest.mark.parametrize("is_causal", [False, True])
@pytest.mark.parametrize("spread", [3.0, 30.0])
def test_row_max_moving_across_key_blocks(dtype, head_dim, is_causal, spread):
    """Scores whose row max moves from one group of 16 keys to the next by a few (spread 3)
    or by tens (spread 30) of base-2 exponent units, in either direction: the Hopper forward
    at head dims >= 128 keeps a row's max while a block's exceeds it by at most 8 units (no
    rescale of O) and rescales past that, so both paths run in the kernel's order of blocks."""
    require_kernel(head_dim, dtype)
    batch, heads, seqlen = 2, 3, 1000
    scale_log2 = head_dim ** -0.5 * 1.4426950408889634
    # Score of (row, key) ~ offset[key // 16] in base-2 units: q all ones, k's rows the offset
    # spread over the head dim, plus noise.
    offsets = torch.randn(batch, heads, (seqlen + 15) // 16, 1, device="cuda") * spread
    offsets = offsets.repeat_interleave(16, dim=2)[:, :, :seqlen]
    q = torch.ones(batch, heads, seqlen, head_dim, device="cuda", dtype=dtype)
    k = (offsets / (head_dim * scale_log2) + 0.05 * torch.randn(batch, heads, seqlen, head_dim,
                                                                 device="cuda")).to(dtype)
    v = randn(batch, heads, seqlen, head_dim, dtype=dtype)
    check(*sdpa_style(is_causal=is_causal), (q, k, v))


@pytest.mark.usefixtures("kernels")
@pytest.mark.parametrize("head_dim", [64, 128, 256])
@pytest.mark.parametrize("is_causal", [False, True])
def test_tiles_with_rows_past_the_sequence(head_dim, is_causal):
    """Tiles whose consumer warpgroups own only rows outside the sequence (the Hopper forward
    runs none of their products; they keep its barriers' counts): at head dim 64 (192-row
    tiles) a sequence's first tile starts before its row 0 (the whole 64-row blocks of the
    remainder: the rows read before it are zeros or the previous sequence's), at the others
    (128-row tiles) the last one ends past it. S = 1000, and packed sequences of 1 to 200 rows,
    several tiles a CTA in a row so that idle and working tiles alternate on each consumer."""
    dtype = torch.bfloat16
    require_kernel(head_dim, dtype)
    check(*sdpa_style(is_causal=is_causal), qkv(3, 40, 40, 1000, 1000, head_dim, dtype))
    lengths = [1, 64, 65, 130, 192, 200, 7, 128, 129, 63] * 20
    (q, k, v), cu = packed(lengths, 4, head_dim, dtype, count=3)
    longest = max(lengths)

    def run(q, k, v):
        return flash_ext.attention_varlen(q, k, v, cu, cu, longest, longest, is_causal=is_causal,
                                          return_lse=True, backend="flash")

    def reference(q, k, v, compute_dtype):
        return attention_varlen_ref(q, k, v, cu, cu, is_causal=is_causal,
                                    compute_dtype=compute_dtype)

    check(run, reference, (q, k, v))


@pytest.mark.usefixtures("kernels")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", ["full", "window", "softcap_alibi", "sinks", "bottom_right",
                                  "varlen"])
def test_first_tiles_of_sequences_past_192(dtype, case):
    """Head dim 64 on Hopper (three consumer warpgroups, 192-row tiles) with a sequence 1 to 64
    rows past a multiple of 192: its first tile starts 128 rows before row 0, one consumer
    working (Sm90FwdTile::lead_rows). Sq != Sk, masks, softcap, ALiBi and sinks in that tile
    (a window where its first rows see no key of the first blocks), bottom-right causal with
    few rows, and varlen sequences of such lengths (1 to 1000 rows, several of these tiles a
    CTA) beside key lengths of one to eleven blocks."""
    require_kernel(64, dtype)
    if case == "varlen":
        lengths_q = [200, 1000, 40, 424, 617, 232, 1, 385] * 6
        lengths_k = [1000, 300, 617, 232, 40, 424, 200, 90] * 6
        (q,), cu_q = packed(lengths_q, 8, 64, dtype)
        (k, v), cu_k = packed(lengths_k, 2, 64, dtype, count=2)

        def run(q, k, v):
            return flash_ext.flash_attn_varlen_func(q, k, v, cu_q, cu_k, max(lengths_q),
                                                    max(lengths_k), return_attn_probs=True)[:2]

        check(run, functools.partial(attention_varlen_ref, cu_seqlens_q=cu_q, cu_seqlens_k=cu_k),
              (q, k, v))
        return
    seqlen_q = 50 if case == "bottom_right" else 232
    inputs = qkv(2, 8, 2, seqlen_q, 1000, 64, dtype)
    if case == "full":
        check(*flash_style(), inputs)
    elif case == "window":
        check(*flash_style(window_size=(100, 0)), inputs)
    elif case == "softcap_alibi":
        slopes = torch.rand(8, device="cuda") * 0.1
        check(*flash_style(softcap=30.0, alibi_slopes=slopes), inputs)
    elif case == "sinks":
        check(*sdpa_style(sinks=torch.randn(8, device="cuda") * 3), inputs)
    else:
        check(*flash_style(causal=True), inputs)


@pytest.mark.usefixtures("kernels")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("seqlen_k", [100, 512, 1000, 1152, 2048, 4000])
def test_key_block_widths_without_causal_mask(dtype, seqlen_k):
    """Head dim 64 on Hopper without a causal mask runs 96-key blocks, or 128-key ones with P
    through shared memory where the keys pad to fewer of those (100, 512, 1000 and 2048 keys
    here; 1152 and 4000 take 96): both, with a two-sided window, softcap + ALiBi, sinks and
    GQA."""
    inputs = qkv(2, 8, 2, 333, seqlen_k, 64, dtype)
    check(*flash_style(), inputs)
    check(*flash_style(window_size=(70, 50)), inputs)
    check(*flash_style(softcap=30.0, alibi_slopes=torch.rand(8, device="cuda") * 0.1), inputs)
    check(*sdpa_style(sinks=torch.randn(8, device="cuda") * 3), inputs)


@pytest.mark.usefixtures("kernels")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("case", ["top_left", "bottom_right", "window", "full"])
def test_grid_tail_of_single_blocks(dtype, head_dim, case):
    """A grid of more units than SMs (96 heads of 1200 rows: 384 causal pairs of 192-row blocks
    at head dim 64, 480 of 128 at 128; 672 / 960 blocks without a mask): the last heads go as
    single blocks, last first, after the others' units (Sm90FwdTiles' tail), so that every
    head's blocks, of both kinds, must come out right; Sq < Sk under bottom-right alignment, a
    window, and no mask."""
    seqlen_q = 1000 if case == "bottom_right" else 1200
    inputs = qkv(4, 24, 6, seqlen_q, 1200, head_dim, dtype)
    if case == "full":
        check(*sdpa_style(), inputs)
    elif case == "top_left":
        check(*sdpa_style(is_causal=True), inputs)
    elif case == "bottom_right":
        check(*flash_style(causal=True), inputs)
    else:
        check(*flash_style(causal=True, window_size=(300, 0)), inputs)


@pytest.mark.parametrize("shape_q, shape_kv", [((0, 4, 8, 64), (0, 4, 8, 64)),
                                               ((2, 4, 0, 64), (2, 4, 8, 64)),
                                               ((2, 4, 8, 64), (2, 4, 0, 64))])
def test_empty(shape_q, shape_kv):
    require_kernel(64, torch.bfloat16)
    q = randn(*shape_q, dtype=torch.bfloat16)
    k = randn(*shape_kv, dtype=torch.bfloat16)
    out, lse = flash_ext.attention(q, k, k, return_lse=True, is_causal=True, backend="flash")
    assert out.shape == shape_q and lse.shape == shape_q[:3]
    assert (out == 0).all() and (lse == NO_KEY).all()


# Varlen offsets.


@pytest.mark.parametrize("dtype", DTYPES)
def test_varlen_checks_offsets(dtype):
    require_kernel(64, dtype)
    (q,), cu = packed([5, 7], 2, 64, dtype)
    bad = torch.tensor([0, 5, 11], dtype=torch.int32, device="cuda")
    with pytest.raises(ValueError, match=r"cu_seqlens_k\[-1\] must equal the packed total 12"):
        ops.attention_varlen_fwd(q, q, q, cu, bad, 7, 7, None, None, 0.0, 0.125, -1, -1, False,
                                 0.0, False)


@pytest.mark.parametrize("dtype", DTYPES)
def test_varlen_offsets_checked_again_when_changed(dtype):
    """The ops remember offsets that passed (reading them syncs): a tensor written in place,
    another tensor, or other max_seqlen are checked again."""
    require_kernel(64, dtype)
    (q,), cu = packed([5, 7], 2, 64, dtype)
    flash_ext.attention_varlen(q, q, q, cu, cu, 7, 7)
    flash_ext.attention_varlen(q, q, q, cu, cu, 7, 7)  # remembered
    with pytest.raises(ValueError, match=r"sequence 1 has length 7 in cu_seqlens_q, more than "
                                         r"its max_seqlen 6"):
        flash_ext.attention_varlen(q, q, q, cu, cu, 6, 7)
    cu[1] = 3  # lengths 3 and 9
    with pytest.raises(ValueError, match=r"more than its max_seqlen 7"):
        flash_ext.attention_varlen(q, q, q, cu, cu, 7, 7)
    fresh = torch.tensor([0, 2, 13], dtype=torch.int32, device="cuda")
    with pytest.raises(ValueError, match=r"cu_seqlens_k\[-1\] must equal the packed total 12"):
        flash_ext.attention_varlen(q, q, q, cu, fresh, 9, 11)


# Dropout: the kernels' keep-mask and its seed.


@pytest.mark.parametrize("p", [0.1, 0.5])
def test_dropout_keep_rate(p):
    q, k = randn(2, 4, 256, 64, dtype=torch.bfloat16), randn(2, 4, 512, 64, dtype=torch.bfloat16)
    keep = ops.flash_dropout_keep_mask(q, k, drawn_seed(1), p)
    assert abs(keep.float().mean().item() - (1 - p)) < 0.005
    # Independent bits across batches, heads, rows, column halves and seeds.
    assert not torch.equal(keep[0, 0], keep[1, 0]) and not torch.equal(keep[0, 0], keep[0, 1])
    assert not torch.equal(keep[:, :, :128], keep[:, :, 128:])
    assert not torch.equal(keep[..., :256], keep[..., 256:])
    assert not torch.equal(keep, ops.flash_dropout_keep_mask(q, k, drawn_seed(2), p))


def test_dropout_reproducible_and_fresh():
    q, k, v = qkv(1, 2, 2, 64, 96, 64, torch.bfloat16)
    torch.manual_seed(0)
    a = flash_ext.attention(q, k, v, dropout_p=0.5, backend="flash")
    torch.manual_seed(0)
    b = flash_ext.attention(q, k, v, dropout_p=0.5, backend="flash")
    c = flash_ext.attention(q, k, v, dropout_p=0.5, backend="flash")
    assert torch.equal(a, b)
    assert not torch.equal(a, c)


# CUDA graphs.


def test_cuda_graph_dropout():
    """Each replay draws a fresh seed from torch's CUDA generator, as eager calls do, and
    computes with it what an eager call with that (seed, offset) pair computes. The pair is
    drawn in the graph beside the op, so that the check reads it; whether a replay after
    torch.manual_seed(s) repeats the eager draw after it is torch's affair, and under load it
    does not always (benchmarks/NOTES.md, issue 32: a graph of torch.randint alone)."""
    p = 0.2
    q, k, v = qkv(2, 4, 4, 128, 160, 64, torch.float16)

    def step():
        return flash_ext.attention(q, k, v, dropout_p=p, return_lse=True, backend="flash")

    def step_pair():
        pair = torch.randint(0, 2**62, (2,), dtype=torch.int64, device="cuda")
        return (pair, *ops.attention_fwd(q, k, v, None, None, pair, p, 0.125, -1, -1, False, 0.0,
                                         False))

    graph, (out, lse) = capture(step)
    graph.replay()
    first = out.clone()
    graph.replay()
    assert not torch.equal(out, first), "replays drew the same dropout mask"
    graph, (pair, out, lse) = capture(step_pair)
    graph.replay()
    first, first_pair = out.clone(), pair.clone()
    graph.replay()
    assert not torch.equal(pair, first_pair) and not torch.equal(out, first)
    eager, eager_lse = ops.attention_fwd(q, k, v, None, None, first_pair, p, 0.125, -1, -1,
                                         False, 0.0, False)
    assert torch.equal(first, eager) and torch.equal(lse, eager_lse)
    keep = ops.flash_dropout_keep_mask(q, k, first_pair, p)
    reference = functools.partial(attention_ref, dropout_p=p, dropout_keep=keep)
    check(lambda q, k, v: (first, lse), reference, (q, k, v))


@pytest.mark.usefixtures("kernels")
def test_cuda_graph_varlen():
    """cu_seqlens stay on the GPU: the capture reads no values."""
    require_kernel(64, torch.bfloat16)
    lengths_q, lengths_k = random_lengths(6)
    (q,), cu_q = packed(lengths_q, 2, 64, torch.bfloat16)
    (k, v), cu_k = packed(lengths_k, 2, 64, torch.bfloat16, count=2)

    def step():
        return flash_ext.flash_attn_varlen_func(q, k, v, cu_q, cu_k, max(lengths_q),
                                                max(lengths_k), causal=True)

    graph, out = capture(step)
    q.copy_(torch.randn_like(q))
    graph.replay()
    torch.testing.assert_close(out, step(), atol=0, rtol=0)


# More tiles than SMs: the Hopper kernel's persistent CTAs take several tiles each (causal ones
# in pairs of query blocks), across tiles without a visible key and varlen tiles past their
# sequence, handing Q's buffer and the K/V ring from one tile to the next.


@pytest.mark.usefixtures("kernels")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("head_dim", [64, 128, 256])
@pytest.mark.parametrize("case", ["dense", "causal", "keyless_tiles", "window", "varlen"])
def test_many_tiles_per_cta(dtype, head_dim, case):
    if case == "varlen":
        require_kernel(head_dim, dtype)
        lengths = torch.randint(1, 700, (40,)).tolist()
        lengths[3] = 0
        (q,), cu_q = packed(lengths, 8, head_dim, dtype)
        (k, v), cu_k = packed(lengths[::-1], 4, head_dim, dtype, count=2)

        def run(q, k, v):
            return flash_ext.flash_attn_varlen_func(q, k, v, cu_q, cu_k, max(lengths),
                                                    max(lengths), causal=True,
                                                    return_attn_probs=True)[:2]

        reference = functools.partial(attention_varlen_ref, cu_seqlens_q=cu_q,
                                      cu_seqlens_k=cu_k, window_size=(-1, 0), bottom_right=True)
        check(run, reference, (q, k, v))
        return
    # 2 x 32 heads x 5 query blocks: 320 tiles (causal: 192 pairs) on 132 SMs.
    seqlen_k = 250 if case == "keyless_tiles" else 600
    q, k, v = qkv(2, 32, 8, 600, seqlen_k, head_dim, dtype)
    if case == "dense":
        check(*sdpa_style(), (q, k, v))
    elif case == "causal":
        check(*sdpa_style(is_causal=True), (q, k, v))
    elif case == "keyless_tiles":  # bottom-right: query rows < 350 see no key
        check(*flash_style(causal=True), (q, k, v))
    else:
        check(*flash_style(window_size=(90, 40)), (q, k, v))


@pytest.mark.parametrize("is_causal", [False, True])
def test_many_tiles_beside_another_stream(is_causal):
    """The persistent forward's CTAs take their tiles from a counter (calls of more than one wave):
    with a long GEMM on another stream holding SMs as the call starts, CTAs start late and take
    fewer tiles; every tile must still be computed once."""
    q, k, v = qkv(2, 32, 8, 600, 600, 128, torch.bfloat16)
    a = randn(8192, 8192, dtype=torch.bfloat16)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    run, reference = sdpa_style(is_causal=is_causal)

    def beside(q, k, v):
        with torch.cuda.stream(side):
            for _ in range(4):
                a @ a
        return run(q, k, v)

    check(beside, reference, (q, k, v))
    torch.cuda.current_stream().wait_stream(side)


@pytest.mark.usefixtures("kernels")
@pytest.mark.parametrize("case", ["causal", "varlen"])
def test_sm_margin(case):
    """sm_margin leaves SMs free (the persistent grid is smaller; each CTA takes more tiles):
    the same output and lse, bit for bit, as without it; a margin of every SM is refused."""
    require_kernel(128, torch.bfloat16)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    if case == "causal":
        q, k, v = qkv(2, 32, 8, 600, 600, 128, torch.bfloat16)
        args = (q, k, v, None, None, None, 0.0, 0.125, -1, 0, False, 0.0, False, None)
        op = ops.attention_fwd
    else:
        lengths = torch.randint(1, 700, (40,)).tolist()
        (q,), cu = packed(lengths, 8, 128, torch.bfloat16)
        (k, v), _ = packed(lengths, 4, 128, torch.bfloat16, count=2)
        args = (q, k, v, cu, cu, max(lengths), max(lengths), None, None, 0.0, 0.125, -1, 0,
                False, 0.0, False, None)
        op = ops.attention_varlen_fwd
    out, lse = op(*args)
    for margin in (4, 100, sms - 1):
        out_m, lse_m = op(*args, margin)
        assert torch.equal(out_m, out) and torch.equal(lse_m, lse), margin
    with pytest.raises(ValueError, match=rf"sm_margin={sms}: the device has {sms} SMs"):
        op(*args, sms)


# Split-KV decoding and 64-bit offsets.


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("seqlen_k", [4096, 32768])
@pytest.mark.parametrize("features", ["plain", "causal", "window_alibi"])
def test_split_kv_decode(dtype, seqlen_k, features):
    seqlen_q = 1 if features != "window_alibi" else 5
    q, k, v = qkv(2, 8, 2, seqlen_q, seqlen_k, 128, dtype)
    if features == "plain":
        check(*sdpa_style(), (q, k, v))
    elif features == "causal":
        check(*flash_style(causal=True), (q, k, v))
    else:
        slopes = torch.rand(8, device="cuda") * 0.01
        check(*flash_style(causal=True, window_size=(1000, 0), alibi_slopes=slopes), (q, k, v))


@pytest.mark.usefixtures("kernels")
def test_offsets_over_2_31_elements():
    """k and v in one (1, Sk, 2, 1, 64) buffer of 2^31 + 2^19 bf16 elements (4.3 GB); the
    windowed queries read only its last rows, beyond element 2^31."""
    require_kernel(64, torch.bfloat16)
    window = 300
    kv = randn(1, 2**24 + 4096, 2, 1, 64, dtype=torch.bfloat16)
    for seqlen_q in (1, 128):  # split-KV decoding and the plain kernel
        q = randn(1, seqlen_q, 1, 64, dtype=torch.bfloat16)
        # The visible keys are the last seqlen_q + window: the reference sees only those, and
        # bottom-right alignment keeps their positions.
        tail = kv[:, -(seqlen_q + window):]

        def run(q, k, v):
            out, lse, _ = flash_ext.flash_attn_kvpacked_func(
                q.transpose(1, 2), kv, causal=True, window_size=(window, 0),
                return_attn_probs=True)
            return out.transpose(1, 2), lse

        _, reference = flash_style(causal=True, window_size=(window, 0))
        check(run, reference, (q.transpose(1, 2), tail[:, :, 0].transpose(1, 2),
                               tail[:, :, 1].transpose(1, 2)))


# Parity with torch and the op contracts.


@pytest.mark.usefixtures("kernels")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("head_dim", [40, 64, 128, 256])
@pytest.mark.parametrize("is_causal", [False, True])
def test_matches_sdpa_flash(dtype, head_dim, is_causal):
    # SDPA's flash backend takes is_causal only for square inputs.
    seqlens = (257, 257) if is_causal else (200, 333)
    q, k, v = qkv(2, 4, 4, *seqlens, head_dim, dtype)
    ours = flash_ext.attention(q, k, v, is_causal=is_causal, backend="flash")
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        theirs = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=is_causal)
    tol = 2e-3 if dtype == torch.float16 else 1.6e-2
    torch.testing.assert_close(ours, theirs, atol=tol, rtol=tol)


def test_compile_fullgraph():
    q, k, v = qkv(2, 8, 2, 100, 130, 64, torch.bfloat16)
    slopes = torch.rand(8, device="cuda") * 0.3
    q_packed = q.transpose(1, 2).reshape(200, 8, 64)
    k_packed, v_packed = (t.transpose(1, 2).reshape(260, 2, 64) for t in (k, v))
    cu_q = torch.tensor([0, 100, 200], dtype=torch.int32, device="cuda")
    cu_k = torch.tensor([0, 130, 260], dtype=torch.int32, device="cuda")

    def f(q, k, v, slopes):
        dense = flash_ext.attention(q, k, v, is_causal=True, enable_gqa=True,
                                    alibi_slopes=slopes, softcap=20.0, window_size=(32, -1))
        flash = flash_ext.flash_attn_func(q.transpose(1, 2), k.transpose(1, 2),
                                          v.transpose(1, 2), causal=True)
        varlen = flash_ext.flash_attn_varlen_func(q_packed, k_packed, v_packed, cu_q, cu_k, 100,
                                                  130, causal=True)
        return dense * 2, flash, varlen

    torch._dynamo.reset()
    compiled = torch.compile(f, fullgraph=True)
    for got, want in zip(compiled(q, k, v, slopes), f(q, k, v, slopes)):
        torch.testing.assert_close(got, want, atol=0, rtol=0)


def test_compile_dropout_reproducible():
    q, k, v = qkv(1, 4, 4, 64, 64, 64, torch.float16)

    def f(q, k, v):
        return flash_ext.attention(q, k, v, dropout_p=0.3)

    torch._dynamo.reset()
    compiled = torch.compile(f, fullgraph=True)
    torch.manual_seed(5)
    a = compiled(q, k, v)
    torch.manual_seed(5)
    b = compiled(q, k, v)
    c = compiled(q, k, v)
    assert torch.equal(a, b)
    assert not torch.equal(a, c)


def test_opcheck():
    q, k, v = qkv(2, 4, 2, 33, 47, 64, torch.bfloat16)
    seed = torch.tensor([3, 4], device="cuda")
    slopes = torch.rand(4, device="cuda")
    torch.library.opcheck(ops.attention_fwd,
                          (q, k, v, None, slopes, seed, 0.25, 0.125, 5, 0, True, 7.0, False))
    (qp,), cu = packed([20, 0, 13], 4, 64, torch.bfloat16)
    (kp, vp), _ = packed([20, 0, 13], 2, 64, torch.bfloat16, count=2)
    torch.library.opcheck(ops.attention_varlen_fwd, (qp, kp, vp, cu, cu, 20, 20, slopes, seed,
                                                     0.25, 0.125, -1, 0, False, 0.0, False))
    torch.library.opcheck(ops.flash_dropout_keep_mask, (q, k, seed, 0.3))


def test_dispatch():
    q = qkv(1, 2, 2, 16, 16, 64, torch.float16)[0]
    assert flash_ext.explain(q, q, q).selected == "flash"
    q.requires_grad_(True)
    assert flash_ext.explain(q, q, q).selected == "flash"  # it has a backward
    mask = torch.ones(16, 16, dtype=torch.bool, device="cuda")
    assert "bool attn_mask (not supported)" in flash_ext.explain(
        q, q, q, attn_mask=mask).reasons["flash"]


def test_op_errors():
    q, k, v = qkv(1, 2, 2, 16, 16, 64, torch.float16)
    op = ops.attention_fwd
    tail = (0.125, -1, -1, False, 0.0, False)
    with pytest.raises(RuntimeError, match="the flash backend takes no attn_mask"):
        op(q, k, v, torch.ones(16, 16, dtype=torch.bool, device="cuda"), None, None, 0.0, *tail)
    with pytest.raises(RuntimeError, match="takes float16 or bfloat16, got Float"):
        op(q.float(), k.float(), v.float(), None, None, None, 0.0, *tail)
    wide = randn(1, 2, 16, 320, dtype=torch.float16)
    with pytest.raises(RuntimeError, match="takes head_dim <= 256, got 320"):
        op(wide, wide, wide, None, None, None, 0.0, *tail)
    with pytest.raises(ValueError, match="dropout_seed must be an int64 tensor .* on q's dev"):
        op(q, k, v, None, None, torch.tensor([1, 2]), 0.5, *tail)
    with pytest.raises(RuntimeError, match=r"dropout_seed holds \(seed, offset\): 2 int64"):
        op(q, k, v, None, None, torch.tensor([1], device="cuda"), 0.5, *tail)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dims, causal, heads, seqlens", [
    ((192, 128), "none", (4, 4), (333, 517)),
    ((192, 128), "bottom_right", (8, 2), (517, 1023)),
    ((176, 112), "top_left", (4, 1), (1023, 1023)),
])
def test_value_head_dim_192_128(dtype, dims, causal, heads, seqlens):
    """q/k head dim 192 with v head dim 128 (DeepSeek's) on the Hopper forward, without grad,
    against the reference (test_flash_bwd.py has the backward)."""
    require_kernel(192, dtype)
    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("the (192, 128) forward is a Hopper kernel")
    (dqk, dv), (hq, hkv), (sq, sk) = dims, heads, seqlens
    q, k = randn(2, hq, sq, dqk, dtype=dtype), randn(2, hkv, sk, dqk, dtype=dtype)
    v = randn(2, hkv, sk, dv, dtype=dtype)
    is_causal = causal != "none"
    window = (-1, 0 if is_causal else -1)

    def run(q, k, v):
        if causal == "bottom_right":  # flash-attn's causal; the backend chosen automatically
            out, lse, _ = flash_ext.flash_attn_func(*(t.transpose(1, 2) for t in (q, k, v)),
                                                    causal=True, return_attn_probs=True)
            return out.transpose(1, 2), lse
        return flash_ext.attention(q, k, v, is_causal=is_causal, enable_gqa=True,
                                   backend="flash", return_lse=True)

    def reference(q, k, v, compute_dtype):
        return attention_ref(q, k, v, window_size=window, bottom_right=causal == "bottom_right",
                             compute_dtype=compute_dtype)

    check(run, reference, (q, k, v))
