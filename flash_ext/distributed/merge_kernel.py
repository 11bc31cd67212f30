"""merge.py's Triton pass (imported on first use: triton is imported here)."""
import triton
import triton.language as tl


@triton.jit
def merge_kernel(acc, acc_lse, out, lse, rows, n1, n2, dim,
                 sa0, sa1, sa2, so0, so1, so2, sal0, sal1, sal2, sl0, sl1, sl2,
                 BLOCK_R: tl.constexpr, BLOCK_D: tl.constexpr):
    """acc, acc_lse <- merge.py's merge of (out, lse) into them, BLOCK_R rows a program. Rows r
    = (i0, i1, i2) of the (n0, n1, n2) row shape, strides sa* (acc), so* (out), sal* (acc_lse),
    sl* (lse); the dim columns of a row contiguous."""
    r = tl.program_id(0).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)
    live = r < rows
    i0 = r // (n1 * n2)
    i1 = (r // n2) % n1
    i2 = r % n2
    a_ptr = acc_lse + i0 * sal0 + i1 * sal1 + i2 * sal2
    a = tl.load(a_ptr, mask=live, other=0.0)
    b = tl.load(lse + i0 * sl0 + i1 * sl1 + i2 * sl2, mask=live, other=0.0)
    # torch.logaddexp: max + log1p(exp(-|a - b|)), with a - b taken as 0 where a == b (equal
    # infinities give themselves, not NaN); a NaN propagates.
    m = tl.maximum(a, b, propagate_nan=tl.PropagateNan.ALL)
    new = m + tl.log(1.0 + tl.exp(-tl.abs(tl.where(a == b, 0.0, a - b))))
    base = tl.where(new == float("-inf"), 0.0, new)
    wa = tl.exp(a - base)
    wb = tl.exp(b - base)
    d = tl.arange(0, BLOCK_D)
    both = live[:, None] & (d < dim)[None, :]
    acc_rows = acc + (i0 * sa0 + i1 * sa1 + i2 * sa2)[:, None] + d[None, :]
    x = tl.load(acc_rows, mask=both, other=0.0)
    y = tl.load(out + (i0 * so0 + i1 * so1 + i2 * so2)[:, None] + d[None, :], mask=both,
                other=0.0).to(tl.float32)
    tl.store(acc_rows, x * wa[:, None] + y * wb[:, None], mask=both)
    tl.store(a_ptr, new, mask=live)
