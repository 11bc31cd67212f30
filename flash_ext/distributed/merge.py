"""The ring's merge of a pair's partial output into the running one, through their log-sum-exps:

    lse' = logaddexp(acc_lse, lse), acc_out <- acc_out exp(acc_lse - lse') + out exp(lse - lse')

with rows that saw no key in either part left at zeros and -inf (-inf - -inf would be NaN) and
NaN propagated as torch's ops do. On CUDA one Triton pass reads acc_out (fp32) and out (its own
dtype) once and writes acc_out once, ~10 bytes an element; torch's ops take five launches and
~18 bytes an element (the multiply and the addcmul each pass over acc_out), which at 64k tokens
on two GPUs was most of the ring forward's time outside its kernels. Elsewhere (CPU tensors
over gloo) the torch ops run; merge_triton runs the Triton pass on CPU tensors in Triton's
interpreter (TRITON_INTERPRET=1), for tests.
"""
from __future__ import annotations

import functools

import torch
from torch import Tensor


def merge_torch(acc_out: Tensor, acc_lse: Tensor, out: Tensor, lse: Tensor) -> None:
    """acc (fp32 views) <- the softmax-weighted union of acc and (out, lse), by torch's ops."""
    new_lse = torch.logaddexp(acc_lse, lse)
    base = torch.where(new_lse == float("-inf"), 0.0, new_lse)
    acc_out.mul_(torch.exp(acc_lse - base).unsqueeze(-1))
    # One pass over out, read in its own dtype (out.float() * w, then add_: three passes and two
    # fp32 temporaries).
    acc_out.addcmul_(out, torch.exp(lse - base).unsqueeze(-1))
    acc_lse.copy_(new_lse)


def _rows3(t: Tensor, rank: int) -> Tensor:
    """t with unit dims in front, so that its row dims are three (rank: t's rank then)."""
    return t[(None,) * (rank - t.dim())] if t.dim() < rank else t


def merge_triton(acc_out: Tensor, acc_lse: Tensor, out: Tensor, lse: Tensor) -> None:
    """merge_torch's result in one Triton pass. acc_out: fp32 (..., Dv) with Dv contiguous;
    acc_lse: fp32 of acc_out's shape without Dv; out and lse alike (any float dtype for out,
    fp32 lse); up to three row dims."""
    if acc_out.shape != out.shape or acc_lse.shape != lse.shape or acc_out.shape[:-1] != lse.shape:
        raise ValueError(f"merge_triton: acc_out {tuple(acc_out.shape)}, out {tuple(out.shape)}, "
                         f"acc_lse {tuple(acc_lse.shape)}, lse {tuple(lse.shape)}: out's shape "
                         "is acc_out's, and both lse's are theirs without the last dim")
    if acc_out.dim() > 4 or acc_out.stride(-1) != 1 or out.stride(-1) != 1:
        raise ValueError("merge_triton: takes up to three row dims and a contiguous last dim")
    a4, o4 = _rows3(acc_out, 4), _rows3(out, 4)
    al3, l3 = _rows3(acc_lse, 3), _rows3(lse, 3)
    n0, n1, n2, dim = a4.shape
    rows = n0 * n1 * n2
    if rows == 0:
        return
    block_d = max(16, 1 << (dim - 1).bit_length())
    block_r = max(1, 4096 // block_d)
    from flash_ext.distributed.merge_kernel import merge_kernel  # imports triton

    merge_kernel[(-(-rows // block_r),)](
        a4, al3, o4, l3, rows, n1, n2, dim, *a4.stride()[:3], *o4.stride()[:3], *al3.stride(),
        *l3.stride(), BLOCK_R=block_r, BLOCK_D=block_d, num_warps=4)


@functools.cache
def _have_triton() -> bool:
    try:
        import triton  # noqa: F401
    except ImportError:
        return False
    return True


def merge_(acc_out: Tensor, acc_lse: Tensor, out: Tensor, lse: Tensor) -> None:
    """The merge, in place on (acc_out, acc_lse): one Triton pass on CUDA, torch's ops
    elsewhere."""
    if (acc_out.is_cuda and acc_out.dim() <= 4 and acc_out.stride(-1) == 1 and out.stride(-1) == 1
            and _have_triton()):
        merge_triton(acc_out, acc_lse, out, lse)
    else:
        merge_torch(acc_out, acc_lse, out, lse)
