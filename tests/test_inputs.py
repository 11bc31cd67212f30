"""Bad input gets a clear error naming the argument, the value and what is accepted; empty
inputs give empty or zero results."""

from __future__ import annotations

import pytest
import torch

import flash_ext


def qkv(shape_q=(2, 4, 8, 16), shape_kv=(2, 4, 8, 16), dtype=torch.float32):
    return (torch.randn(shape_q, dtype=dtype), torch.randn(shape_kv, dtype=dtype),
            torch.randn(shape_kv, dtype=dtype))


def raises(exc, match, fn, *args, **kwargs):
    with pytest.raises(exc, match=match):
        fn(*args, **kwargs)


def test_ranks():
    q, k, v = qkv()
    raises(ValueError, r"query must have rank 4 .*got shape \(4, 8, 16\)",
           flash_ext.attention, q[0], k, v)
    raises(ValueError, r"q must have rank 4 \(batch, seqlen, heads, head_dim\)",
           flash_ext.flash_attn_func, q[0], k, v)
    raises(ValueError, r"query must have rank 3 \(total_tokens, heads, head_dim\)",
           flash_ext.attention_varlen, q, k[0], v[0], torch.tensor([0, 8], dtype=torch.int32),
           torch.tensor([0, 8], dtype=torch.int32), 8, 8)


def test_mismatched_sizes():
    q, k, v = qkv()
    raises(ValueError, r"batch of key \(1\) differs from query's \(2\)",
           flash_ext.attention, q, k[:1], v[:1])
    raises(ValueError, r"head_dim of key \(8\) differs from query's \(16\)",
           flash_ext.attention, q, k[..., :8], v[..., :8])
    raises(ValueError, r"key and value must have the same shape",
           flash_ext.attention, q, k, v[:, :, :5])
    raises(ValueError, r"query has 4 heads, not a multiple of the 3 heads",
           flash_ext.attention, q, k[:, :3], v[:, :3], enable_gqa=True)
    raises(ValueError, r"key has 2 heads but query has 4: pass enable_gqa=True",
           flash_ext.attention, q, k[:, :2], v[:, :2])


def test_dtypes_and_devices():
    q, k, v = qkv()
    raises(TypeError, r"key has dtype torch.float16 but query has torch.float32",
           flash_ext.attention, q, k.half(), v.half())
    raises(TypeError, r"query has dtype torch.int64; accepted: float16, bfloat16, float32",
           flash_ext.attention, q.long(), k.long(), v.long())
    raises(NotImplementedError, r"cpu: dtype float64", flash_ext.attention, q.double(),
           k.double(), v.double())
    raises(ValueError, r"key is on meta but query is on cpu", flash_ext.attention, q,
           k.to("meta"), v.to("meta"))
    raises(TypeError, r"query must be a torch.Tensor, got list", flash_ext.attention, [1.0], k, v)


def test_attn_mask():
    q, k, v = qkv()
    raises(ValueError, r"attn_mask of shape \(3, 8, 8\) does not broadcast to \(batch, heads, "
           r"seqlen_q, seqlen_k\) = \(2, 4, 8, 8\)", flash_ext.attention, q, k, v,
           attn_mask=torch.zeros(3, 8, 8))
    raises(TypeError, r"attn_mask has dtype torch.int32; accepted: torch.bool", flash_ext.attention,
           q, k, v, attn_mask=torch.zeros(8, 8, dtype=torch.int32))
    raises(TypeError, r"attn_mask has dtype torch.float16", flash_ext.attention, q, k, v,
           attn_mask=torch.zeros(8, 8, dtype=torch.float16))
    raises(ValueError, r"does not broadcast", flash_ext.attention, q, k, v,
           attn_mask=torch.zeros(1, 2, 4, 8, 8))
    mask = torch.zeros(8, 8, requires_grad=True)
    raises(NotImplementedError, r"cpu: attn_mask.requires_grad", flash_ext.attention, q, k, v,
           attn_mask=mask)
    with torch.no_grad():
        flash_ext.attention(q, k, v, attn_mask=mask)


def test_options():
    q, k, v = qkv()
    raises(ValueError, r"window_size left must be an int >= 0, or -1 for unbounded, got -2",
           flash_ext.attention, q, k, v, window_size=(-2, 0))
    raises(ValueError, r"window_size right must be .* got 1.5", flash_ext.attention, q, k, v,
           window_size=(0, 1.5))
    raises(ValueError, r"window_size must be a pair", flash_ext.attention, q, k, v, window_size=3)
    for p in (-0.1, 1.0, 1.5):
        raises(ValueError, rf"dropout_p must be a number in \[0, 1\), got {p}",
               flash_ext.attention, q, k, v, dropout_p=p)
    raises(ValueError, r"softcap must be a finite number >= 0", flash_ext.attention, q, k, v,
           softcap=-1.0)
    raises(ValueError, r"scale must be None or a finite number, got inf", flash_ext.attention,
           q, k, v, scale=float("inf"))
    raises(ValueError, r"alibi_slopes must have shape \(4,\) or \(2, 4\), got \(3,\)",
           flash_ext.attention, q, k, v, alibi_slopes=torch.ones(3))
    raises(TypeError, r"alibi_slopes must be float32, got torch.float64", flash_ext.attention,
           q, k, v, alibi_slopes=torch.ones(4, dtype=torch.float64))
    raises(ValueError, r"backend='fast' is not a backend; accepted: \('flash'",
           flash_ext.attention, q, k, v, backend="fast")
    raises(NotImplementedError, r"backend='flash' cannot run this call: (not built|device 'cpu')",
           flash_ext.attention, q, k, v, backend="flash")


def varlen(cu_q, cu_k, max_q=8, max_k=8, total_q=10, total_k=10):
    q, k, v = (torch.randn(n, 2, 16) for n in (total_q, total_k, total_k))
    return flash_ext.attention_varlen(q, k, v, torch.tensor(cu_q, dtype=torch.int32),
                                      torch.tensor(cu_k, dtype=torch.int32), max_q, max_k)


def test_cu_seqlens():
    raises(ValueError, r"cu_seqlens_q has 3 entries and cu_seqlens_k 2", varlen, [0, 5, 10],
           [0, 10])
    raises(ValueError, r"cu_seqlens_q must be non-decreasing, got 6 then 4 at index 1", varlen,
           [0, 6, 4, 10], [0, 3, 6, 10])
    raises(ValueError, r"cu_seqlens_k\[-1\] must equal the packed total 10, got 9", varlen,
           [0, 5, 10], [0, 5, 9])
    raises(ValueError, r"cu_seqlens_q\[0\] must be 0, got 1", varlen, [1, 5, 10], [0, 5, 10])
    raises(ValueError, r"sequence 0 has length 9 in cu_seqlens_q, more than its max_seqlen 8",
           varlen, [0, 9, 10], [0, 5, 10])
    q = torch.randn(10, 2, 16)
    raises(ValueError, r"cu_seqlens_q must be a 1-D int32 tensor of batch \+ 1 offsets, got "
           r"torch.int64", flash_ext.attention_varlen, q, q, q, torch.tensor([0, 10]),
           torch.tensor([0, 10], dtype=torch.int32), 10, 10)
    raises(ValueError, r"max_seqlen_k must be an int >= 0, got -1", flash_ext.attention_varlen,
           q, q, q, torch.tensor([0, 10], dtype=torch.int32),
           torch.tensor([0, 10], dtype=torch.int32), 10, -1)


def test_op_checks_direct_calls():
    """The ops guard the kernels on their own, for callers that skip the Python layer, with the
    same checks in their own names."""
    q, k, v = qkv()
    op = torch.ops.flash_ext.attention_fwd
    with pytest.raises(ValueError, match=r"q has 4 heads, not a multiple of the 3 heads of k and"):
        op(q, k[:, :3], v[:, :3], None, None, None, 0.0, 1.0, -1, -1, False, 0.0, False)
    with pytest.raises(ValueError, match=r"dropout_p > 0 needs dropout_seed"):
        op(q, k, v, None, None, None, 0.5, 1.0, -1, -1, False, 0.0, False)
    with pytest.raises(ValueError, match=r"window_size left must be an int >= 0, or -1"):
        op(q, k, v, None, None, None, 0.0, 1.0, -3, -1, False, 0.0, False)
    for scale, shown in ((-0.5, "-0.5"), (0.0, "0")):
        with pytest.raises(ValueError,
                           match=rf"the ops' scale must be finite and > 0 .*got {shown}$"):
            op(q, k, v, None, None, None, 0.0, scale, -1, -1, False, 0.0, False)
    with pytest.raises(ValueError, match=r"sm_margin must be an int >= 0 \(the SMs the forward "
                                         r"leaves free\), got -2"):
        op(q, k, v, None, None, None, 0.0, 1.0, -1, -1, False, 0.0, False, None, -2)


@pytest.mark.parametrize("shape_q, shape_kv", [((0, 4, 8, 16), (0, 4, 8, 16)),
                                               ((2, 0, 8, 16), (2, 0, 8, 16)),
                                               ((2, 4, 0, 16), (2, 4, 8, 16)),
                                               ((2, 4, 8, 16), (2, 4, 0, 16))])
def test_empty(shape_q, shape_kv):
    q, k, v = (t.requires_grad_(True) for t in qkv(shape_q, shape_kv))
    out, lse = flash_ext.attention(q, k, v, return_lse=True, is_causal=True)
    assert out.shape == shape_q and lse.shape == shape_q[:3]
    assert (out == 0).all() and (lse == float("-inf")).all()
    out.sum().backward()
    for t in (q, k, v):
        assert t.grad.shape == t.shape and (t.grad == 0).all()


def test_zero_kv_heads():
    q, k, v = qkv((2, 4, 8, 16), (2, 0, 8, 16))
    raises(ValueError, r"key and value have 0 heads but query has 4", flash_ext.attention, q, k,
           v, enable_gqa=True)


def test_strided_alibi_slopes():
    q, k, v = qkv()
    slopes = torch.rand(4, 2)[:, 0]  # stride 2
    torch.testing.assert_close(flash_ext.attention(q, k, v, alibi_slopes=slopes),
                               flash_ext.attention(q, k, v, alibi_slopes=slopes.contiguous()))


def test_empty_varlen():
    cu = torch.tensor([0, 0, 0], dtype=torch.int32)
    q = torch.randn(0, 2, 16)
    out = flash_ext.attention_varlen(q, q, q, cu, cu, 0, 0)
    assert out.shape == (0, 2, 16)


def test_head_dim_zero():
    q, k, v = qkv((2, 4, 8, 0), (2, 4, 8, 0))
    raises(ValueError, r"head_dim must be positive, got query of shape \(2, 4, 8, 0\)",
           flash_ext.attention, q, k, v)
    raises(ValueError, r"head_dim must be positive, got q of shape \(2, 8, 4, 0\)",
           flash_ext.flash_attn_func, q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2))
    empty = torch.randn(0, 2, 0)
    cu = torch.tensor([0, 0], dtype=torch.int32)
    raises(ValueError, r"head_dim must be positive", flash_ext.attention_varlen, empty, empty,
           empty, cu, cu, 0, 0)


def test_argument_types():
    """What only the Python objects show: a wrong type named with its argument."""
    q, k, v = qkv()
    raises(TypeError, r"attn_mask must be a torch.Tensor or None, got list", flash_ext.attention,
           q, k, v, attn_mask=[[True]])
    raises(ValueError, r"dropout_p must be a number in \[0, 1\), got '0.1'", flash_ext.attention,
           q, k, v, dropout_p="0.1")
    raises(ValueError, r"softmax_scale must be None or a finite number, got nan",
           flash_ext.flash_attn_func, q, k, v, softmax_scale=float("nan"))
    raises(TypeError, r"backend must be a str or None, got int", flash_ext.attention, q, k, v,
           backend=3)
    raises(TypeError, r"cu_seqlens_k must be a torch.Tensor, got NoneType",
           flash_ext.attention_varlen, q[0], k[0], v[0], torch.tensor([0, 4], dtype=torch.int32),
           None, 4, 4)
    # A window given as a tensor of two ints, as some models and flash-attn's tests pass it.
    torch.testing.assert_close(flash_ext.attention(q, k, v, window_size=torch.tensor([2, 0])),
                               flash_ext.attention(q, k, v, window_size=(2, 0)))
