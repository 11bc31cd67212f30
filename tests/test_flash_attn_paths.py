"""flash_ext.flash_attn: flash-attn 2.x's import paths (functions, bert_padding, layers.rotary)
against plain float64 computations."""

from __future__ import annotations

import pytest
import torch

import flash_ext
from flash_ext.flash_attn import flash_attn_func, flash_attn_varlen_func
from flash_ext.flash_attn.bert_padding import (
    index_first_axis,
    pad_input,
    unpad_input,
    unpad_input_for_concatenated_sequences,
)
from flash_ext.flash_attn.flash_attn_interface import flash_attn_qkvpacked_func
from flash_ext.flash_attn.layers.rotary import apply_rotary_emb


def test_functions_are_flash_ext_s():
    assert flash_attn_func is flash_ext.flash_attn_func
    assert flash_attn_varlen_func is flash_ext.flash_attn_varlen_func
    assert flash_attn_qkvpacked_func is flash_ext.flash_attn_qkvpacked_func


def padding_mask(lengths: list[int], seqlen: int) -> torch.Tensor:
    return torch.arange(seqlen)[None, :] < torch.tensor(lengths)[:, None]


def test_unpad_pad_round_trip():
    x = torch.randn(3, 7, 2, 4, requires_grad=True)
    mask = padding_mask([7, 0, 3], 7)
    packed, indices, cu, max_seqlen, seqused = unpad_input(x, mask)
    assert packed.shape == (10, 2, 4) and cu.dtype == torch.int32 and max_seqlen == 7
    assert cu.tolist() == [0, 7, 7, 10] and seqused.tolist() == [7, 0, 3]
    assert torch.equal(packed, x[mask])
    assert torch.equal(index_first_axis(x.reshape(21, 2, 4), indices), packed)
    padded = pad_input(packed, indices, 3, 7)
    assert torch.equal(padded, torch.where(mask[..., None, None], x, 0.0))
    (grad,) = torch.autograd.grad(padded.sum(), x)
    assert torch.equal(grad, mask[..., None, None].expand_as(x).float())


def test_unpad_with_unused_tokens():
    x = torch.randn(2, 5, 3)
    mask, unused = padding_mask([2, 4], 5), padding_mask([3, 4], 5) & ~padding_mask([2, 4], 5)
    packed, _, cu, max_seqlen, seqused = unpad_input(x, mask, unused)
    assert cu.tolist() == [0, 3, 7] and seqused.tolist() == [2, 4] and max_seqlen == 4
    assert packed.shape == (7, 3)


def test_unpad_concatenated_sequences():
    x = torch.randn(2, 6, 3)
    lengths = torch.tensor([[2, 3, 0, 0, 0, 0], [6, 0, 0, 0, 0, 0]])
    packed, indices, cu, max_seqlen = unpad_input_for_concatenated_sequences(x, lengths)
    assert cu.tolist() == [0, 2, 5, 11] and max_seqlen == 6
    assert torch.equal(packed, torch.cat((x[0, :5], x[1])))
    assert indices.tolist() == [0, 1, 2, 3, 4, *range(6, 12)]


def test_bad_mask_named():
    with pytest.raises(ValueError, match=r"attention_mask must be \(batch, seqlen\) = \(2, 5\)"):
        unpad_input(torch.randn(2, 5, 3), torch.ones(5, 2, dtype=torch.bool))


def test_unpadded_varlen_equals_padded_attention():
    """The workflow bert_padding serves: pad -> unpad -> varlen attention -> pad."""
    batch, seqlen, heads, dim = 3, 9, 2, 16
    q, k, v = (torch.randn(batch, seqlen, heads, dim) for _ in range(3))
    lengths = [9, 4, 6]
    mask = padding_mask(lengths, seqlen)
    (qp, indices, cu, max_seqlen, _), (kp, *_), (vp, *_) = (unpad_input(t, mask)
                                                            for t in (q, k, v))
    out = pad_input(flash_attn_varlen_func(qp, kp, vp, cu, cu, max_seqlen, max_seqlen,
                                           causal=True), indices, batch, seqlen)
    for b, n in enumerate(lengths):
        ref = flash_attn_func(q[b:b + 1, :n], k[b:b + 1, :n], v[b:b + 1, :n], causal=True)
        torch.testing.assert_close(out[b, :n], ref[0])
        assert (out[b, n:] == 0).all()


def rotary_reference(x, cos, sin, positions, interleaved):
    """float64, as complex multiplication: pair (a, b) is a + ib, turned by e^(i theta)."""
    half = cos.shape[1]
    rot = x[..., :2 * half].double()
    if interleaved:
        pairs = torch.view_as_complex(rot.unflatten(-1, (half, 2)).contiguous())
    else:
        pairs = torch.complex(rot[..., :half], rot[..., half:])
    turn = torch.polar(torch.ones_like(cos.double()), torch.atan2(sin.double(), cos.double()))
    turned = pairs * turn[positions].unsqueeze(-2)
    if interleaved:
        out = torch.view_as_real(turned).flatten(-2)
    else:
        out = torch.cat((turned.real, turned.imag), dim=-1)
    return torch.cat((out, x[..., 2 * half:].double()), dim=-1)


def angles(seqlen_ro: int, rotary_dim: int):
    theta = torch.rand(seqlen_ro, rotary_dim // 2) * 6.28
    return theta.cos(), theta.sin()


@pytest.mark.parametrize("interleaved", [False, True])
@pytest.mark.parametrize("rotary_dim", [16, 10])
@pytest.mark.parametrize("offsets", ["none", "int", "tensor"])
def test_rotary_dense(interleaved, rotary_dim, offsets):
    batch, seqlen = 3, 7
    x = torch.randn(batch, seqlen, 2, 16)
    cos, sin = angles(20, rotary_dim)
    offset = {"none": 0, "int": 5, "tensor": torch.tensor([0, 3, 13])}[offsets]
    positions = torch.arange(seqlen)[None, :] + (offset[:, None] if offsets == "tensor"
                                                 else offset)
    out = apply_rotary_emb(x, cos, sin, interleaved=interleaved, seqlen_offsets=offset)
    ref = rotary_reference(x, cos, sin, positions.expand(batch, seqlen), interleaved)
    torch.testing.assert_close(out.double(), ref, atol=1e-5, rtol=1e-5)
    inplace = x.clone()
    assert apply_rotary_emb(inplace, cos, sin, interleaved, True, offset) is inplace
    torch.testing.assert_close(inplace, out)


@pytest.mark.parametrize("interleaved", [False, True])
def test_rotary_varlen_and_bf16(interleaved):
    cu = torch.tensor([0, 4, 4, 11], dtype=torch.int32)
    x = torch.randn(11, 2, 8, dtype=torch.bfloat16, requires_grad=True)
    cos, sin = angles(16, 8)
    out = apply_rotary_emb(x, cos, sin, interleaved, seqlen_offsets=torch.tensor([1, 0, 2]),
                           cu_seqlens=cu, max_seqlen=7)
    positions = torch.tensor([1, 2, 3, 4, 2, 3, 4, 5, 6, 7, 8])
    ref = rotary_reference(x.detach(), cos, sin, positions, interleaved)
    assert out.dtype == torch.bfloat16
    torch.testing.assert_close(out.double(), ref, atol=2e-2, rtol=2e-2)
    out.float().pow(2).sum().backward()  # a rotation keeps norms: d|Rx|^2/dx = 2x
    torch.testing.assert_close(x.grad.float(), 2 * x.detach().float(), atol=5e-2, rtol=5e-2)


def test_rotary_errors():
    x = torch.randn(1, 4, 2, 8)
    cos, sin = angles(4, 8)
    with pytest.raises(ValueError, match="positions up to 5 need cos and sin of at least 6 rows"):
        apply_rotary_emb(x, cos, sin, seqlen_offsets=2)
    with pytest.raises(ValueError, match="rotary_dim 10 .* exceeds x's head_dim 8"):
        apply_rotary_emb(x, *angles(4, 10))
    with pytest.raises(ValueError, match="needs max_seqlen"):
        apply_rotary_emb(x[0], cos, sin, cu_seqlens=torch.tensor([0, 4], dtype=torch.int32))
