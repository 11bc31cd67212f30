"""The CPU backend against reference.py over the feature matrix: outputs, lse and gradients."""

from __future__ import annotations

import dataclasses
import functools
import itertools

import pytest
import torch
from attention_check import check_against_reference

import flash_ext
from flash_ext import dispatch
from flash_ext.reference import attention_ref, attention_varlen_ref

DTYPES = [torch.float32, torch.bfloat16, torch.float16]
SEQLENS = [(1, 1), (17, 17), (113, 113), (17, 113), (113, 17), (1, 64)]
HEAD_DIMS = [8, 40, 72, 96, 136, 256]


def qkv(batch, heads_q, heads_kv, seqlen_q, seqlen_k, head_dim, dtype):
    q = torch.randn(batch, heads_q, seqlen_q, head_dim, dtype=dtype)
    k = torch.randn(batch, heads_kv, seqlen_k, head_dim, dtype=dtype)
    v = torch.randn(batch, heads_kv, seqlen_k, head_dim, dtype=dtype)
    return q, k, v


def check(inputs, grad=True, bottom_right=False, is_causal=False, window_size=(-1, -1),
          **kwargs):
    """flash_ext.attention(backend="cpu") against the reference with the same arguments."""
    enable_gqa = inputs[0].shape[1] != inputs[1].shape[1]
    window = (window_size[0], 0) if is_causal else window_size

    def run(q, k, v):
        return flash_ext.attention(q, k, v, is_causal=is_causal, window_size=window_size,
                                   enable_gqa=enable_gqa, return_lse=True, backend="cpu",
                                   **kwargs)

    reference = functools.partial(attention_ref, window_size=window, bottom_right=bottom_right,
                                  **kwargs)
    check_against_reference(run, reference, inputs, grad=grad)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("seqlens", SEQLENS)
@pytest.mark.parametrize("is_causal", [False, True])
def test_sizes(dtype, seqlens, is_causal):
    head_dim = HEAD_DIMS[SEQLENS.index(seqlens)]
    check(qkv(2, 3, 3, *seqlens, head_dim, dtype), is_causal=is_causal)


# bfloat16's two forward products run as AMX tile products where the CPU has them (amx.h) and
# through the fp32 GEMM otherwise or with FLASH_EXT_CPU_AMX=0: both paths over what the tiles
# pad or cut (head dims off 32, keys off 64, stripes under 16 rows, masks starting mid-tile).
AMX_CASES = {
    "causal": dict(shape=(2, 4, 4, 200, 200, 64), is_causal=True),
    "window_odd_dims": dict(shape=(1, 3, 3, 77, 130, 40), window_size=(20, 5)),
    "gqa_d136": dict(shape=(2, 6, 2, 33, 300, 136), is_causal=True),
    "value_head_dim": dict(shape=(1, 2, 2, 50, 90, 96), head_dim_v=72),
    "softcap_alibi_sinks": dict(shape=(2, 4, 4, 70, 150, 64), softcap=20.0,
                                alibi_slopes=torch.rand(4), sinks=torch.randn(4)),
    "mask_d256": dict(shape=(1, 2, 2, 40, 260, 256), attn_mask=torch.rand(40, 260) > 0.2),
    "rows_17": dict(shape=(3, 2, 1, 17, 17, 8)),
}


@pytest.mark.parametrize("amx", ["1", "0"], ids=["amx", "fp32_gemm"])
@pytest.mark.parametrize("case", list(AMX_CASES))
def test_bf16_products(amx, case, monkeypatch):
    monkeypatch.setenv("FLASH_EXT_CPU_AMX", amx)
    kwargs = dict(AMX_CASES[case])
    batch, heads_q, heads_kv, seqlen_q, seqlen_k, head_dim = kwargs.pop("shape")
    inputs = qkv(batch, heads_q, heads_kv, seqlen_q, seqlen_k, head_dim, torch.bfloat16)
    if "head_dim_v" in kwargs:
        inputs = with_value_head_dim(inputs, kwargs.pop("head_dim_v"))
    check(inputs, **kwargs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("head_dim", HEAD_DIMS)
def test_head_dims(dtype, head_dim):
    check(qkv(1, 2, 2, 33, 47, head_dim, dtype), is_causal=head_dim % 16 == 8)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("heads", [(8, 2), (6, 1), (4, 4)])
@pytest.mark.parametrize("is_causal", [False, True])
def test_gqa(dtype, heads, is_causal):
    check(qkv(2, *heads, 29, 41, 64, dtype), is_causal=is_causal)


# Decoding: up to 16 query rows per sequence run the forward that reads K and V in place, a kv
# head's query heads together (split into items of at most 192 / Sq rows); 17 rows the packed
# GEMM path. Key counts across 256-key blocks, head dims with vector tails, v's own head dim.
DECODE_CASES = [
    dict(seqlens=(1, 300), heads=(8, 2), head_dim=64),
    dict(seqlens=(3, 700), heads=(6, 1), head_dim=20, is_causal=True, bottom_right=True),
    dict(seqlens=(16, 257), heads=(64, 1), head_dim=40, window_size=(100, 0), bottom_right=True),
    dict(seqlens=(17, 257), heads=(4, 2), head_dim=40, is_causal=True, bottom_right=True),
    dict(seqlens=(5, 90), heads=(4, 2), head_dim=72, softcap=10.0,
         alibi_slopes=torch.rand(4) * 0.3),
    dict(seqlens=(7, 64), heads=(4, 4), head_dim=32, attn_mask=torch.rand(2, 1, 7, 64) > 0.3),
    dict(seqlens=(2, 129), heads=(4, 2), head_dim=48, value_head_dim=24),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", range(len(DECODE_CASES)))
def test_decode(dtype, case):
    kwargs = dict(DECODE_CASES[case])
    (seqlen_q, seqlen_k), (heads_q, heads_kv) = kwargs.pop("seqlens"), kwargs.pop("heads")
    head_dim, head_dim_v = kwargs.pop("head_dim"), kwargs.pop("value_head_dim", None)
    q, k, v = qkv(2, heads_q, heads_kv, seqlen_q, seqlen_k, head_dim, dtype)
    if head_dim_v is not None:
        v = torch.randn(*v.shape[:-1], head_dim_v, dtype=dtype)
    if kwargs.get("attn_mask") is not None and kwargs["attn_mask"].dtype != torch.bool:
        kwargs["attn_mask"] = kwargs["attn_mask"].to(dtype)
    bottom_right = kwargs.pop("bottom_right", False)
    if bottom_right:  # the flash-attn meaning of causal and windows: aligned to the last key
        is_causal = kwargs.pop("is_causal", False)
        window = kwargs.pop("window_size", (-1, 0) if is_causal else (-1, -1))

        def run(q, k, v):
            out, lse, _ = flash_ext.flash_attn_func(
                *(t.transpose(1, 2) for t in (q, k, v)), window_size=window,
                return_attn_probs=True, **kwargs)
            return out.transpose(1, 2), lse

        reference = functools.partial(attention_ref, window_size=window, bottom_right=True,
                                      **kwargs)
        check_against_reference(run, reference, (q, k, v))
    else:
        check((q, k, v), **kwargs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("window_size", [(8, 0), (5, 3), (-1, 4), (0, 0), (16, -1)])
@pytest.mark.parametrize("seqlens", [(50, 50), (20, 70), (70, 20)])
def test_window(dtype, window_size, seqlens):
    check(qkv(1, 2, 2, *seqlens, 32, dtype), window_size=window_size)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("slopes_shape", ["heads", "batch_heads"])
@pytest.mark.parametrize("is_causal", [False, True])
def test_alibi(dtype, slopes_shape, is_causal):
    inputs = qkv(2, 4, 2, 37, 53, 64, dtype)
    shape = (4,) if slopes_shape == "heads" else (2, 4)
    slopes = torch.rand(shape, dtype=torch.float32) * 0.5
    check(inputs, alibi_slopes=slopes, is_causal=is_causal)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("softcap", [5.0, 30.0])
def test_softcap(dtype, softcap):
    q, k, v = qkv(2, 2, 2, 40, 40, 64, dtype)
    check((q * 3, k * 3, v), softcap=softcap, is_causal=True)


@pytest.mark.parametrize("dtype", DTYPES)
def test_scale(dtype):
    check(qkv(1, 2, 2, 31, 31, 40, dtype), scale=0.3)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("scale", [-0.3, 0.0])
def test_nonpositive_scale(dtype, scale):
    """scale <= 0 (folded into q by interface.py): masked scores must stay hidden, rows' maxima
    taken on the scaled scores (the kernels' own, on q.k, would be the minima)."""
    inputs = qkv(2, 4, 2, 30, 37, 48, dtype)
    mask = torch.randn(2, 1, 30, 37, dtype=dtype)
    check(inputs, attn_mask=mask, is_causal=True, alibi_slopes=torch.rand(4) * 0.3, softcap=20.0,
          scale=scale)
    check(inputs, window_size=(5, 3), scale=scale)


MASK_SHAPES = [(31, 45), (1, 1, 31, 45), (2, 1, 31, 45), (2, 3, 31, 45), (1, 3, 1, 45), (45,),
               (2, 3, 31, 1)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mask_shape", MASK_SHAPES)
@pytest.mark.parametrize("kind", ["bool", "additive", "float32"])
def test_attn_mask(dtype, mask_shape, kind):
    inputs = qkv(2, 3, 3, 31, 45, 64, dtype)
    if kind == "bool":
        mask = torch.rand(mask_shape) > 0.3
    else:
        mask = torch.randn(mask_shape, dtype=dtype if kind == "additive" else torch.float32)
    check(inputs, attn_mask=mask)


@pytest.mark.parametrize("dtype", DTYPES)
def test_mask_with_causal_and_alibi(dtype):
    inputs = qkv(2, 4, 2, 30, 30, 48, dtype)
    mask = torch.randn(2, 1, 30, 30, dtype=dtype)
    check(inputs, attn_mask=mask, is_causal=True, alibi_slopes=torch.rand(4) * 0.3, softcap=20.0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("how", ["bool", "additive_inf", "window"])
def test_rows_with_no_visible_key(dtype, how):
    """Zeros out, lse = -inf, zero gradients; never NaN."""
    q, k, v = qkv(2, 2, 2, 24, 16, 32, dtype)
    if how == "bool":
        mask = torch.rand(2, 2, 24, 16) > 0.5
        mask[:, :, ::3] = False
        kwargs = {"attn_mask": mask}
    elif how == "additive_inf":
        mask = torch.randn(24, 16, dtype=dtype)
        mask[5:9] = float("-inf")
        kwargs = {"attn_mask": mask}
    else:  # keys j in [i - 2, i]: rows 18.. see none of the 16 keys
        kwargs = {"window_size": (2, 0)}
    out, lse = flash_ext.attention(q, k, v, return_lse=True, backend="cpu", **kwargs)
    assert not out.isnan().any() and not lse.isnan().any()
    assert (lse == float("-inf")).any(), "the case must contain rows that see no key"
    assert (out[lse == float("-inf")] == 0).all()
    check((q, k, v), **kwargs)


@pytest.mark.parametrize("dtype", DTYPES)
def test_non_contiguous(dtype):
    base = torch.randn(2, 40, 3, 3, 64, dtype=dtype)  # (B, S, {q,k,v}, H, D)
    q, k, v = (base[:, :, i].transpose(1, 2) for i in range(3))
    check((q, k, v), is_causal=True)
    wide = torch.randn(2, 3, 40, 128, dtype=dtype)
    check((wide[..., ::2], wide[..., 1::2], wide[..., :64]))


def test_batch_of_many():
    check(qkv(9, 1, 1, 7, 9, 16, torch.float32), is_causal=True)


@pytest.mark.parametrize("dtype", DTYPES)
def test_matches_sdpa(dtype):
    """Drop-in for torch's SDPA on inputs both accept."""
    q, k, v = qkv(2, 4, 4, 64, 80, 64, dtype)
    mask = torch.randn(2, 1, 64, 80, dtype=dtype)
    for kwargs in ({}, {"is_causal": True}, {"attn_mask": mask}, {"scale": 0.2}):
        ours = flash_ext.attention(q, k, v, **kwargs)
        theirs = torch.nn.functional.scaled_dot_product_attention(q, k, v, **kwargs)
        ref64 = attention_ref(q.double(), k.double(), v.double(),
                              is_causal=kwargs.get("is_causal", False),
                              attn_mask=kwargs.get("attn_mask"), scale=kwargs.get("scale"))[0]
        tol = 2 * (theirs.double() - ref64).abs().max().item() + 1e-5
        assert (ours.double() - ref64).abs().max().item() <= tol


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_lse_and_causal_combinations(dtype):
    for seqlens, window in itertools.product([(64, 64), (32, 96)], [(-1, -1), (16, 16)]):
        check(qkv(1, 2, 2, *seqlens, 32, dtype), window_size=window, grad=False)


def test_backward_is_deterministic():
    q, k, v = (t.requires_grad_(True) for t in qkv(2, 8, 2, 150, 150, 64, torch.bfloat16))
    runs = []
    for _ in range(2):
        out = flash_ext.attention(q, k, v, is_causal=True, enable_gqa=True, deterministic=True)
        runs.append(torch.autograd.grad(out.float().square().sum(), (q, k, v)))
    for a, b in zip(*runs):
        assert torch.equal(a, b)


# v's head dim differing from q's and k's (DeepSeek-V3: 192 and 128); out takes v's.

VALUE_HEAD_DIMS = [(192, 128), (64, 32), (40, 72), (16, 136)]


def with_value_head_dim(inputs, head_dim_v):
    q, k, v = inputs
    return q, k, torch.randn(*v.shape[:-1], head_dim_v, dtype=v.dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("head_dims", VALUE_HEAD_DIMS)
@pytest.mark.parametrize("is_causal", [False, True])
def test_value_head_dim(dtype, head_dims, is_causal):
    head_dim, head_dim_v = head_dims
    check(with_value_head_dim(qkv(2, 4, 2, 70, 90, head_dim, dtype), head_dim_v),
          is_causal=is_causal)


@pytest.mark.parametrize("kwargs", [
    {"window_size": (20, 5)}, {"softcap": 15.0}, {"alibi_slopes": torch.rand(4)},
    {"sinks": torch.randn(4)}, {"attn_mask": torch.randn(2, 1, 33, 47)},
    {"attn_mask": torch.rand(33, 47) > 0.3}])
def test_value_head_dim_features(kwargs):
    check(with_value_head_dim(qkv(2, 4, 4, 33, 47, 64, torch.float32), 40), **kwargs)


def test_value_head_dim_varlen_and_flash_api():
    lengths = [13, 0, 40, 7]
    cu = torch.tensor([0, *torch.tensor(lengths).cumsum(0).tolist()], dtype=torch.int32)
    total = sum(lengths)
    q, k, v = torch.randn(total, 4, 48), torch.randn(total, 2, 48), torch.randn(total, 2, 24)

    def run(q, k, v):
        return flash_ext.attention_varlen(q, k, v, cu, cu, 40, 40, is_causal=True,
                                          enable_gqa=True, return_lse=True)

    check_against_reference(run, functools.partial(attention_varlen_ref, cu_seqlens_q=cu,
                                                   cu_seqlens_k=cu, window_size=(-1, 0)),
                            (q, k, v))
    # flash_attn_func: (B, S, H, D) with bottom-right causal alignment.
    q, k, v = with_value_head_dim(qkv(2, 4, 4, 30, 50, 32, torch.float32), 56)

    def run_flash(q, k, v):
        out, lse, _ = flash_ext.flash_attn_func(q.transpose(1, 2), k.transpose(1, 2),
                                                v.transpose(1, 2), causal=True,
                                                return_attn_probs=True)
        return out.transpose(1, 2), lse

    check_against_reference(run_flash, functools.partial(attention_ref, window_size=(-1, 0),
                                                         bottom_right=True), (q, k, v))


def test_value_head_dim_matches_sdpa():
    q, k, v = with_value_head_dim(qkv(2, 8, 2, 64, 80, 192, torch.float32), 128)
    for kwargs in ({}, {"is_causal": True}):
        ours = flash_ext.attention(q, k, v, enable_gqa=True, **kwargs)
        theirs = torch.nn.functional.scaled_dot_product_attention(q, k, v, enable_gqa=True,
                                                                  **kwargs)
        ref64 = attention_ref(*(t.double() for t in (q, k, v)),
                              is_causal=kwargs.get("is_causal", False))[0]
        assert ours.shape == theirs.shape == (2, 8, 64, 128)
        tol = 2 * (theirs.double() - ref64).abs().max().item() + 1e-5
        assert (ours.double() - ref64).abs().max().item() <= tol


def test_value_head_dim_errors_and_explain():
    q, k, v = with_value_head_dim(qkv(1, 2, 2, 8, 9, 32, torch.float32), 16)
    with pytest.raises(ValueError, match="key and value must have the same shape but for the "
                                         "head_dim"):
        flash_ext.attention(q, k, v[:, :, :5])
    with pytest.raises(ValueError, match="head_dim of value must be positive"):
        flash_ext.attention(q, k, v[..., :0])
    call = dispatch.AttentionCall(device_type="cuda", dtype=torch.bfloat16, head_dim=192,
                                  compute_capability=(9, 0), value_head_dim=True,
                                  head_dims=(192, 64))
    reason = "a head_dim of value different from query's"
    reasons = dispatch.explain_call(call).reasons
    assert f"{reason} (not supported)" in reasons["flex"]
    assert f"{reason} (192, 64): runs only (q/k, v) head dims in (192, 128)" in \
        " ".join(reasons["flash"])
    assert not any(r.startswith(reason) for r in reasons["mem_eff"])
    # A backend's head dim limit holds for v's head dim too.
    wide_v = torch.randn(1, 2, 9, 264)
    assert "head_dim 264 (supports <= 256)" in flash_ext.explain(
        q, k, wide_v, backend="mem_eff").reasons["mem_eff"]
    cpu_call = dataclasses.replace(call, device_type="cpu", compute_capability=None)
    assert dispatch.explain_call(cpu_call).reasons["cpu"] == []
