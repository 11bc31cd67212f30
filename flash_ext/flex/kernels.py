"""Triton kernels of the flex backend: forward, backward, and the block-mask builder.

This file is the template of every generated kernel module (build.py): the section between the
`<user mods>` markers is replaced by the Triton functions generated from the user's score_mod,
its gradient, and mask_mod (codegen.py). As written, the section holds the default mods, so the
file is valid Triton on its own.

Shapes: q (B, H, Q_LEN, D), k (B, H_KV, KV_LEN, D), v (B, H_KV, KV_LEN, DV), any strides; query
head h reads key/value head h // GQA_GROUP. The block mask lists, per (b, h, query block of
SPARSE_Q rows), the key blocks (of SPARSE_KV columns) that are partially visible (mask_mod is
evaluated) and fully visible (it is not); the transposed lists give, per key block, the query
blocks. Kernel tiles (BLOCK_M x BLOCK_N) divide the sparse blocks. Scores use exp2: LOG2E is
folded in after score_mod. LSE is stored in natural log, -inf for a row that sees no key.
"""

import triton
import triton.language as tl
from triton.language.extra import libdevice

LOG2E = tl.constexpr(1.4426950408889634)
LN2 = tl.constexpr(0.6931471805599453)
# True in modules built for Triton's interpreter (CPU tensors, build.py): libdevice is compiled
# code, and the interpreter's tl.dot multiplies bfloat16's raw uint16 storage; both take a
# float32 path there (exact: products of 16-bit floats are exact in float32).
INTERPRETED = tl.constexpr(False)


@triton.jit
def _dot(a, b, acc, IEEE_FP32: tl.constexpr):
    # float32 inputs are multiplied in full precision, as torch does by default (no TF32).
    if INTERPRETED:
        return tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision="ieee")
    elif IEEE_FP32:
        return tl.dot(a, b, acc, input_precision="ieee")
    else:
        return tl.dot(a, b, acc)


@triton.jit
def _cast(x, dtype: tl.constexpr):
    """x.to(dtype), rounding to nearest even also in the interpreter (it truncates to bf16)."""
    if INTERPRETED and dtype == tl.bfloat16:
        bits = x.to(tl.float32).to(tl.uint32, bitcast=True)
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
        return bits.to(tl.float32, bitcast=True).to(dtype)
    else:
        return x.to(dtype)


@triton.jit
def _next_tile(start, i, block_indices, block_count, SPARSE: tl.constexpr, BLOCK: tl.constexpr):
    """Where tile i + 1 of a block list starts, given that tile i starts at `start`: BLOCK on
    within a block, else at the next listed block. Carried from iteration to iteration rather
    than recomputed from i: with it, the sm_90 TTGIR pipelines both the K and the V loads over
    all num_stages."""
    TILES: tl.constexpr = SPARSE // BLOCK
    block = i // TILES
    current = tl.load(block_indices + block)
    following = tl.load(block_indices + block + 1, mask=block + 1 < block_count, other=0)
    jump = (following - current) * SPARSE - (TILES - 1) * BLOCK
    return start + tl.where((i + 1) % TILES == 0, jump, BLOCK)


@triton.jit
def _block_list(NUM, IDX, off_b, off_h, row, stride_nb, stride_nh, stride_ib, stride_ih,
                stride_im):
    """(pointer to the block indices, number of blocks) of one row of a block-mask list."""
    count = tl.load(NUM + off_b * stride_nb + off_h * stride_nh + row)
    indices = IDX + off_b * stride_ib + off_h * stride_ih + row * stride_im
    return indices, count


# Helpers of the generated mod code: torch semantics where Triton's differ.


@triton.jit
def _tanh(x):
    if INTERPRETED:
        e = tl.exp(-2.0 * tl.abs(x))
        t = (1.0 - e) / (1.0 + e)
        return tl.where(x < 0, -t, t)
    else:
        return libdevice.tanh(x)


@triton.jit
def _trunc(x):
    return tl.where(x < 0, tl.ceil(x), tl.floor(x))


@triton.jit
def _floordiv(a, b):
    # Exact floor division whether Triton's // truncates or floors.
    q = a // b
    r = a - q * b
    return q - ((r != 0) & ((r < 0) != (b < 0))).to(q.dtype)


@triton.jit
def _remainder(a, b):
    # Python/torch remainder: the sign of the divisor.
    return a - _floordiv(a, b) * b


@triton.jit
def _truncdiv(a, b):
    q = _floordiv(a, b)
    return q + ((a - q * b != 0) & ((a < 0) != (b < 0))).to(q.dtype)


# <user mods>
@triton.jit
def score_mod(score, b, h, q_idx, kv_idx, BUF0, BUF1, BUF2, BUF3, BUF4, BUF5):
    return score


@triton.jit
def score_mod_grad(score, b, h, q_idx, kv_idx, grad, BUF0, BUF1, BUF2, BUF3, BUF4, BUF5):
    return grad


@triton.jit
def mask_mod(b, h, q_idx, kv_idx, BUF0, BUF1, BUF2, BUF3, BUF4, BUF5):
    return (q_idx * 0 + kv_idx * 0) == 0
# </user mods>


# Tiles -------------------------------------------------------------------------------------
# Bounds are checked only where a tile can stick out: the sequence axis when the lengths are not
# multiples of the block-mask blocks (IS_DIVISIBLE false), the head-dim axis when it is padded
# to a power of two.


@triton.jit
def _load(ptrs, offs0, offs1, LEN0, LEN1, CHECK0: tl.constexpr, CHECK1: tl.constexpr):
    """A 2-D tile at ptrs, zero where offs0 >= LEN0 (CHECK0) or offs1 >= LEN1 (CHECK1)."""
    if CHECK0 and CHECK1:
        return tl.load(ptrs, mask=(offs0[:, None] < LEN0) & (offs1[None, :] < LEN1), other=0.0)
    elif CHECK0:
        return tl.load(ptrs, mask=offs0[:, None] < LEN0, other=0.0)
    elif CHECK1:
        return tl.load(ptrs, mask=offs1[None, :] < LEN1, other=0.0)
    else:
        return tl.load(ptrs)


@triton.jit
def _store(ptrs, value, offs0, offs1, LEN0, LEN1, CHECK0: tl.constexpr, CHECK1: tl.constexpr):
    value = _cast(value, ptrs.dtype.element_ty)
    if CHECK0 and CHECK1:
        tl.store(ptrs, value, mask=(offs0[:, None] < LEN0) & (offs1[None, :] < LEN1))
    elif CHECK0:
        tl.store(ptrs, value, mask=offs0[:, None] < LEN0)
    elif CHECK1:
        tl.store(ptrs, value, mask=offs1[None, :] < LEN1)
    else:
        tl.store(ptrs, value)


@triton.jit
def _load_rows(ptrs, offs, LEN, CHECK: tl.constexpr):
    """A 1-D per-row vector (lse, delta), zero past LEN."""
    if CHECK:
        return tl.load(ptrs, mask=offs < LEN, other=0.0)
    else:
        return tl.load(ptrs)


@triton.jit
def _tma_tile(DESC, off_b, off_h, start, BLOCK0: tl.constexpr, BLOCK1: tl.constexpr):
    """Rows start .. start + BLOCK0 of head (off_b, off_h) by TMA from a (B, H, LEN, D)
    descriptor with (1, 1, BLOCK0, BLOCK1) boxes; the copy engine fills rows and columns past the
    tensor's ends with zeros, so no bounds checks."""
    return DESC.load([off_b, off_h, start, 0]).reshape(BLOCK0, BLOCK1)


@triton.jit
def _mod_index(offs, LEN, CHECK: tl.constexpr):
    """The index the mods see: wrapped into [0, LEN) where the tile sticks out, so a gather
    from a captured tensor stays in bounds (those entries are masked anyway)."""
    if CHECK:
        return offs % LEN
    else:
        return offs


@triton.jit
def _scores(qk, sm_scale, off_b, off_h, q_idx, kv_idx, offs_m, offs_n, Q_LEN, KV_LEN,
            BUF0, BUF1, BUF2, BUF3, BUF4, BUF5, HAS_SCORE_MOD: tl.constexpr,
            IS_FULL_BLOCKS: tl.constexpr, IS_DIVISIBLE: tl.constexpr):
    """(score, s2, keep): the scaled score that score_mod sees, the modified score in log2
    units with hidden entries at -inf, and which entries are visible (used only when a tile
    can hold hidden ones: partial blocks, or tiles past the sequence ends)."""
    score = qk * sm_scale
    if HAS_SCORE_MOD:
        s2 = score_mod(score, off_b, off_h, q_idx, kv_idx,
                       BUF0, BUF1, BUF2, BUF3, BUF4, BUF5) * LOG2E
    else:
        s2 = qk * (sm_scale * LOG2E)
    if IS_FULL_BLOCKS:
        keep = (offs_m < Q_LEN) & (offs_n < KV_LEN)
    else:
        keep = mask_mod(off_b, off_h, q_idx, kv_idx, BUF0, BUF1, BUF2, BUF3, BUF4, BUF5)
        if not IS_DIVISIBLE:
            keep = keep & (offs_m < Q_LEN) & (offs_n < KV_LEN)
    if (not IS_FULL_BLOCKS) or (not IS_DIVISIBLE):
        s2 = tl.where(keep, s2, float("-inf"))
    return score, s2, keep


# Forward ------------------------------------------------------------------------------------


@triton.jit
def _fwd_inner(
    acc, l_i, m_i, q, k_base, v_base, K_DESC, V_DESC, block_indices, block_count,
    off_b, off_h, off_hkv, offs_m, q_idx, sm_scale, Q_LEN, KV_LEN,
    stride_kn, stride_kd, stride_vn, stride_vd,
    BUF0, BUF1, BUF2, BUF3, BUF4, BUF5,
    HEAD_DIM: tl.constexpr, V_HEAD_DIM: tl.constexpr, BLOCK_D: tl.constexpr,
    BLOCK_DV: tl.constexpr, SPARSE_KV: tl.constexpr, BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr, HAS_SCORE_MOD: tl.constexpr, IS_DIVISIBLE: tl.constexpr,
    IEEE_FP32: tl.constexpr, TMA: tl.constexpr, IS_FULL_BLOCKS: tl.constexpr,
):
    """Online softmax over the key tiles of the listed blocks. Full blocks skip mask_mod."""
    TILES: tl.constexpr = SPARSE_KV // BLOCK_N
    offs_d = tl.arange(0, BLOCK_D)
    offs_dv = tl.arange(0, BLOCK_DV)
    start_n = tl.load(block_indices) * SPARSE_KV  # a list always has an entry to read
    for i in range(block_count * TILES):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        if TMA:
            kT = tl.trans(_tma_tile(K_DESC, off_b, off_hkv, start_n, BLOCK_N, BLOCK_D))
        else:
            kT = _load(k_base + offs_d[:, None] * stride_kd + offs_n[None, :] * stride_kn,
                       offs_d, offs_n, HEAD_DIM, KV_LEN, HEAD_DIM != BLOCK_D,
                       not IS_DIVISIBLE)  # (D, BLOCK_N)
        qk = _dot(q, kT, tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32), IEEE_FP32)
        kv_idx = _mod_index(offs_n, KV_LEN, not IS_DIVISIBLE)[None, :]
        _, s2, _ = _scores(qk, sm_scale, off_b, off_h, q_idx, kv_idx, offs_m[:, None],
                           offs_n[None, :], Q_LEN, KV_LEN, BUF0, BUF1, BUF2, BUF3, BUF4, BUF5,
                           HAS_SCORE_MOD, IS_FULL_BLOCKS, IS_DIVISIBLE)
        m_new = tl.maximum(m_i, tl.max(s2, 1))
        # A row that has seen only -inf keeps a finite reference, so exp2 gives 0, not NaN.
        m_ref = tl.where(m_new == float("-inf"), 0.0, m_new)
        alpha = tl.math.exp2(m_i - m_ref)
        p = tl.math.exp2(s2 - m_ref[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        if TMA:
            v = _tma_tile(V_DESC, off_b, off_hkv, start_n, BLOCK_N, BLOCK_DV)
        else:
            v = _load(v_base + offs_n[:, None] * stride_vn + offs_dv[None, :] * stride_vd,
                      offs_n, offs_dv, KV_LEN, V_HEAD_DIM, not IS_DIVISIBLE,
                      V_HEAD_DIM != BLOCK_DV)  # (BLOCK_N, DV)
        acc = _dot(_cast(p, v.dtype), v, acc * alpha[:, None], IEEE_FP32)
        m_i = m_new
        start_n = _next_tile(start_n, i, block_indices, block_count, SPARSE_KV, BLOCK_N)
    return acc, l_i, m_i


@triton.jit
def flex_fwd_kernel(
    Q, K, V, OUT, LSE, K_DESC, V_DESC,
    KV_NUM, KV_IDX, FULL_KV_NUM, FULL_KV_IDX,
    BUF0, BUF1, BUF2, BUF3, BUF4, BUF5,
    stride_qb, stride_qh, stride_qm, stride_qd,
    stride_kb, stride_kh, stride_kn, stride_kd,
    stride_vb, stride_vh, stride_vn, stride_vd,
    stride_ob, stride_oh, stride_om, stride_od,
    stride_nb, stride_nh, stride_ib, stride_ih, stride_im,
    NUM_HEADS, Q_LEN, KV_LEN, GQA_GROUP, sm_scale,
    HEAD_DIM: tl.constexpr, V_HEAD_DIM: tl.constexpr, BLOCK_D: tl.constexpr,
    BLOCK_DV: tl.constexpr, SPARSE_Q: tl.constexpr, SPARSE_KV: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HAS_SCORE_MOD: tl.constexpr,
    IS_DIVISIBLE: tl.constexpr, IEEE_FP32: tl.constexpr, TMA: tl.constexpr,
):
    """One program per (query tile, batch * head): out and lse of BLOCK_M query rows. With TMA,
    K and V tiles come from the descriptors K_DESC and V_DESC (else K_DESC, V_DESC are unused)."""
    start_m = tl.program_id(0)
    off_bh = tl.program_id(1)
    off_b = off_bh // NUM_HEADS
    off_h = off_bh % NUM_HEADS
    off_hkv = off_h // GQA_GROUP
    q_base = Q + off_b.to(tl.int64) * stride_qb + off_h.to(tl.int64) * stride_qh
    k_base = K + off_b.to(tl.int64) * stride_kb + off_hkv.to(tl.int64) * stride_kh
    v_base = V + off_b.to(tl.int64) * stride_vb + off_hkv.to(tl.int64) * stride_vh
    o_base = OUT + off_b.to(tl.int64) * stride_ob + off_h.to(tl.int64) * stride_oh

    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, BLOCK_D)
    offs_dv = tl.arange(0, BLOCK_DV)
    q = _load(q_base + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qd, offs_m,
              offs_d, Q_LEN, HEAD_DIM, not IS_DIVISIBLE, HEAD_DIM != BLOCK_D)  # (BLOCK_M, D)
    q_idx = _mod_index(offs_m, Q_LEN, not IS_DIVISIBLE)[:, None]

    acc = tl.zeros([BLOCK_M, BLOCK_DV], dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    row = (start_m * BLOCK_M) // SPARSE_Q
    indices, count = _block_list(KV_NUM, KV_IDX, off_b, off_h, row, stride_nb, stride_nh,
                                 stride_ib, stride_ih, stride_im)
    acc, l_i, m_i = _fwd_inner(
        acc, l_i, m_i, q, k_base, v_base, K_DESC, V_DESC, indices, count, off_b, off_h, off_hkv,
        offs_m, q_idx, sm_scale, Q_LEN, KV_LEN, stride_kn, stride_kd, stride_vn, stride_vd,
        BUF0, BUF1, BUF2, BUF3, BUF4, BUF5, HEAD_DIM, V_HEAD_DIM, BLOCK_D, BLOCK_DV, SPARSE_KV,
        BLOCK_M, BLOCK_N, HAS_SCORE_MOD, IS_DIVISIBLE, IEEE_FP32, TMA, IS_FULL_BLOCKS=False,
    )
    indices, count = _block_list(FULL_KV_NUM, FULL_KV_IDX, off_b, off_h, row, stride_nb,
                                 stride_nh, stride_ib, stride_ih, stride_im)
    acc, l_i, m_i = _fwd_inner(
        acc, l_i, m_i, q, k_base, v_base, K_DESC, V_DESC, indices, count, off_b, off_h, off_hkv,
        offs_m, q_idx, sm_scale, Q_LEN, KV_LEN, stride_kn, stride_kd, stride_vn, stride_vd,
        BUF0, BUF1, BUF2, BUF3, BUF4, BUF5, HEAD_DIM, V_HEAD_DIM, BLOCK_D, BLOCK_DV, SPARSE_KV,
        BLOCK_M, BLOCK_N, HAS_SCORE_MOD, IS_DIVISIBLE, IEEE_FP32, TMA, IS_FULL_BLOCKS=True,
    )

    # l_i is positive, NaN in a row with a NaN or +inf score (out and lse NaN), or 0 in a row
    # that sees no key: out 0 (acc may hold 0 * NaN of a hidden value) and lse -inf.
    no_key = l_i == 0
    l_safe = tl.where(no_key, 1.0, l_i)
    out = tl.where(no_key[:, None], 0.0, acc / l_safe[:, None])
    lse = tl.where(no_key, float("-inf"), (m_i + tl.math.log2(l_safe)) * LN2)
    _store(o_base + offs_m[:, None] * stride_om + offs_dv[None, :] * stride_od, out, offs_m,
           offs_dv, Q_LEN, V_HEAD_DIM, not IS_DIVISIBLE, V_HEAD_DIM != BLOCK_DV)
    lse_ptrs = LSE + off_bh.to(tl.int64) * Q_LEN + offs_m
    if IS_DIVISIBLE:
        tl.store(lse_ptrs, lse)
    else:
        tl.store(lse_ptrs, lse, mask=offs_m < Q_LEN)


# Backward -----------------------------------------------------------------------------------
# One kernel, two kinds of programs: the first cdiv(KV_LEN, BLOCK_N1) programs of axis 0 each
# own a key tile and accumulate dk, dv over the query tiles of the transposed lists (and over
# the GQA_GROUP query heads that share the key head); the others each own a query tile and head
# and accumulate dq over the key tiles of the forward lists. No atomics: deterministic.


@triton.jit
def _bwd_dq_inner(
    dq, q, do, lse2, delta, k_base, v_base, K_DESC, V_DESC, block_indices, block_count,
    off_b, off_h, off_hkv, offs_m, q_idx, sm_scale, Q_LEN, KV_LEN,
    stride_kn, stride_kd, stride_vn, stride_vd,
    BUF0, BUF1, BUF2, BUF3, BUF4, BUF5,
    HEAD_DIM: tl.constexpr, V_HEAD_DIM: tl.constexpr, BLOCK_D: tl.constexpr,
    BLOCK_DV: tl.constexpr, SPARSE_KV: tl.constexpr, BLOCK_M2: tl.constexpr,
    BLOCK_N2: tl.constexpr, HAS_SCORE_MOD: tl.constexpr, IS_DIVISIBLE: tl.constexpr,
    IEEE_FP32: tl.constexpr, TMA: tl.constexpr, IS_FULL_BLOCKS: tl.constexpr,
):
    TILES: tl.constexpr = SPARSE_KV // BLOCK_N2
    offs_d = tl.arange(0, BLOCK_D)
    offs_dv = tl.arange(0, BLOCK_DV)
    start_n = tl.load(block_indices) * SPARSE_KV
    for i in range(block_count * TILES):
        offs_n = start_n + tl.arange(0, BLOCK_N2)
        if TMA:
            kT = tl.trans(_tma_tile(K_DESC, off_b, off_hkv, start_n, BLOCK_N2, BLOCK_D))
            vT = tl.trans(_tma_tile(V_DESC, off_b, off_hkv, start_n, BLOCK_N2, BLOCK_DV))
        else:
            kT = _load(k_base + offs_d[:, None] * stride_kd + offs_n[None, :] * stride_kn,
                       offs_d, offs_n, HEAD_DIM, KV_LEN, HEAD_DIM != BLOCK_D,
                       not IS_DIVISIBLE)  # (D, BLOCK_N2)
            vT = _load(v_base + offs_dv[:, None] * stride_vd + offs_n[None, :] * stride_vn,
                       offs_dv, offs_n, V_HEAD_DIM, KV_LEN, V_HEAD_DIM != BLOCK_DV,
                       not IS_DIVISIBLE)  # (DV, BLOCK_N2)
        qk = _dot(q, kT, tl.zeros([BLOCK_M2, BLOCK_N2], dtype=tl.float32), IEEE_FP32)
        kv_idx = _mod_index(offs_n, KV_LEN, not IS_DIVISIBLE)[None, :]
        score, s2, keep = _scores(qk, sm_scale, off_b, off_h, q_idx, kv_idx, offs_m[:, None],
                                  offs_n[None, :], Q_LEN, KV_LEN, BUF0, BUF1, BUF2, BUF3, BUF4,
                                  BUF5, HAS_SCORE_MOD, IS_FULL_BLOCKS, IS_DIVISIBLE)
        p = tl.math.exp2(s2 - lse2[:, None])
        dp = _dot(do, vT, tl.zeros([BLOCK_M2, BLOCK_N2], dtype=tl.float32), IEEE_FP32)
        ds = p * (dp - delta[:, None])
        if HAS_SCORE_MOD:
            ds = score_mod_grad(score, off_b, off_h, q_idx, kv_idx, ds,
                                BUF0, BUF1, BUF2, BUF3, BUF4, BUF5)
        if (not IS_FULL_BLOCKS) or (not IS_DIVISIBLE):
            ds = tl.where(keep, ds, 0.0)
        dq = _dot(_cast(ds, kT.dtype), tl.trans(kT), dq, IEEE_FP32)
        start_n = _next_tile(start_n, i, block_indices, block_count, SPARSE_KV, BLOCK_N2)
    return dq


@triton.jit
def _bwd_dkdv_inner(
    dk, dv, k, v, q_base, do_base, Q_DESC, DO_DESC, lse_base, delta_base, block_indices,
    block_count, off_b, off_h, offs_n, kv_idx, sm_scale, Q_LEN, KV_LEN,
    stride_qm, stride_qd, stride_dom, stride_dod,
    BUF0, BUF1, BUF2, BUF3, BUF4, BUF5,
    HEAD_DIM: tl.constexpr, V_HEAD_DIM: tl.constexpr, BLOCK_D: tl.constexpr,
    BLOCK_DV: tl.constexpr, SPARSE_Q: tl.constexpr, BLOCK_M1: tl.constexpr,
    BLOCK_N1: tl.constexpr, HAS_SCORE_MOD: tl.constexpr, IS_DIVISIBLE: tl.constexpr,
    IEEE_FP32: tl.constexpr, TMA: tl.constexpr, IS_FULL_BLOCKS: tl.constexpr,
):
    """Scores are transposed here: (BLOCK_N1 keys, BLOCK_M1 queries)."""
    TILES: tl.constexpr = SPARSE_Q // BLOCK_M1
    offs_d = tl.arange(0, BLOCK_D)
    offs_dv = tl.arange(0, BLOCK_DV)
    start_m = tl.load(block_indices) * SPARSE_Q
    for i in range(block_count * TILES):
        offs_m = start_m + tl.arange(0, BLOCK_M1)
        if TMA:
            qT = tl.trans(_tma_tile(Q_DESC, off_b, off_h, start_m, BLOCK_M1, BLOCK_D))
            do = _tma_tile(DO_DESC, off_b, off_h, start_m, BLOCK_M1, BLOCK_DV)
        else:
            qT = _load(q_base + offs_d[:, None] * stride_qd + offs_m[None, :] * stride_qm,
                       offs_d, offs_m, HEAD_DIM, Q_LEN, HEAD_DIM != BLOCK_D,
                       not IS_DIVISIBLE)  # (D, BLOCK_M1)
            do = _load(do_base + offs_m[:, None] * stride_dom + offs_dv[None, :] * stride_dod,
                       offs_m, offs_dv, Q_LEN, V_HEAD_DIM, not IS_DIVISIBLE,
                       V_HEAD_DIM != BLOCK_DV)  # (BLOCK_M1, DV)
        lse = _load_rows(lse_base + offs_m, offs_m, Q_LEN, not IS_DIVISIBLE)
        delta = _load_rows(delta_base + offs_m, offs_m, Q_LEN, not IS_DIVISIBLE)
        # Rows that saw no key (lse = -inf) have every score -inf: p = 0 with a finite lse.
        lse2 = tl.where(lse == float("-inf"), 0.0, lse * LOG2E)
        kq = _dot(k, qT, tl.zeros([BLOCK_N1, BLOCK_M1], dtype=tl.float32), IEEE_FP32)
        # dP^T's place: in full blocks right after S^T (2-6% faster backward on the H100); in
        # partial blocks, where mask_mod's code is live too, after dV (there, early was 1-5%
        # slower on sliding windows: benchmarks/NOTES.md).
        if IS_FULL_BLOCKS:
            dpT = _dot(v, tl.trans(do), tl.zeros([BLOCK_N1, BLOCK_M1], dtype=tl.float32),
                       IEEE_FP32)
        q_idx = _mod_index(offs_m, Q_LEN, not IS_DIVISIBLE)[None, :]
        score, s2, keep = _scores(kq, sm_scale, off_b, off_h, q_idx, kv_idx, offs_m[None, :],
                                  offs_n[:, None], Q_LEN, KV_LEN, BUF0, BUF1, BUF2, BUF3, BUF4,
                                  BUF5, HAS_SCORE_MOD, IS_FULL_BLOCKS, IS_DIVISIBLE)
        pT = tl.math.exp2(s2 - lse2[None, :])
        dv = _dot(_cast(pT, do.dtype), do, dv, IEEE_FP32)
        if not IS_FULL_BLOCKS:
            dpT = _dot(v, tl.trans(do), tl.zeros([BLOCK_N1, BLOCK_M1], dtype=tl.float32),
                       IEEE_FP32)
        dsT = pT * (dpT - delta[None, :])
        if HAS_SCORE_MOD:
            dsT = score_mod_grad(score, off_b, off_h, q_idx, kv_idx, dsT,
                                 BUF0, BUF1, BUF2, BUF3, BUF4, BUF5)
        if (not IS_FULL_BLOCKS) or (not IS_DIVISIBLE):
            dsT = tl.where(keep, dsT, 0.0)
        dk = _dot(_cast(dsT, qT.dtype), tl.trans(qT), dk, IEEE_FP32)
        start_m = _next_tile(start_m, i, block_indices, block_count, SPARSE_Q, BLOCK_M1)
    return dk, dv


@triton.jit
def bwd_delta_kernel(
    OUT, DO, DLSE, DELTA,
    stride_ob, stride_oh, stride_om, stride_od,
    stride_dob, stride_doh, stride_dom, stride_dod,
    NUM_HEADS, Q_LEN, V_HEAD_DIM,
    BLOCK_M: tl.constexpr, BLOCK_DV: tl.constexpr, HAS_DLSE: tl.constexpr,
):
    """DELTA[bh, m] = sum_d OUT * DO (in float32) - DLSE[bh, m]: the backward's per-row term, in
    one pass over out and dO (DLSE contiguous (B * H, Q_LEN), read only with HAS_DLSE)."""
    start_m = tl.program_id(0)
    off_bh = tl.program_id(1)
    off_b = off_bh // NUM_HEADS
    off_h = off_bh % NUM_HEADS
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_dv = tl.arange(0, BLOCK_DV)
    o = _load(OUT + off_b.to(tl.int64) * stride_ob + off_h.to(tl.int64) * stride_oh
              + offs_m[:, None] * stride_om + offs_dv[None, :] * stride_od, offs_m, offs_dv,
              Q_LEN, V_HEAD_DIM, True, V_HEAD_DIM != BLOCK_DV)
    do = _load(DO + off_b.to(tl.int64) * stride_dob + off_h.to(tl.int64) * stride_doh
               + offs_m[:, None] * stride_dom + offs_dv[None, :] * stride_dod, offs_m, offs_dv,
               Q_LEN, V_HEAD_DIM, True, V_HEAD_DIM != BLOCK_DV)
    delta = tl.sum(o.to(tl.float32) * do.to(tl.float32), 1)
    rows = off_bh.to(tl.int64) * Q_LEN + offs_m
    if HAS_DLSE:
        delta = delta - tl.load(DLSE + rows, mask=offs_m < Q_LEN, other=0.0)
    tl.store(DELTA + rows, delta, mask=offs_m < Q_LEN)


@triton.jit
def flex_bwd_kernel(
    Q, K, V, DO, LSE, DELTA, DQ, DK, DV, Q_DESC, DO_DESC, K_DESC, V_DESC,
    KV_NUM, KV_IDX, FULL_KV_NUM, FULL_KV_IDX, Q_NUM, Q_IDX, FULL_Q_NUM, FULL_Q_IDX,
    BUF0, BUF1, BUF2, BUF3, BUF4, BUF5,
    stride_qb, stride_qh, stride_qm, stride_qd,
    stride_kb, stride_kh, stride_kn, stride_kd,
    stride_vb, stride_vh, stride_vn, stride_vd,
    stride_dob, stride_doh, stride_dom, stride_dod,
    stride_dqb, stride_dqh, stride_dqm, stride_dqd,
    stride_dkb, stride_dkh, stride_dkn, stride_dkd,
    stride_dvb, stride_dvh, stride_dvn, stride_dvd,
    stride_nb, stride_nh, stride_ib, stride_ih, stride_im,
    stride_tnb, stride_tnh, stride_tib, stride_tih, stride_tim,
    NUM_HEADS, NUM_KV_HEADS, Q_LEN, KV_LEN, GQA_GROUP, sm_scale,
    HEAD_DIM: tl.constexpr, V_HEAD_DIM: tl.constexpr, BLOCK_D: tl.constexpr,
    BLOCK_DV: tl.constexpr, SPARSE_Q: tl.constexpr, SPARSE_KV: tl.constexpr,
    BLOCK_M1: tl.constexpr, BLOCK_N1: tl.constexpr, BLOCK_M2: tl.constexpr,
    BLOCK_N2: tl.constexpr, HAS_SCORE_MOD: tl.constexpr, IS_DIVISIBLE: tl.constexpr,
    IEEE_FP32: tl.constexpr, TMA: tl.constexpr,
):
    """dq, dk, dv of one (batch, key head); LSE natural log, DELTA = rowsum(dO * O) - dLSE.
    With TMA, the loop tiles come from descriptors: Q and dO in (1, 1, BLOCK_M1, D) boxes for the
    dk/dv programs, K and V in (1, 1, BLOCK_N2, D) ones for the dq programs."""
    pid = tl.program_id(0)
    off_bkv = tl.program_id(1)
    off_b = off_bkv // NUM_KV_HEADS
    off_hkv = off_bkv % NUM_KV_HEADS
    num_kv_tiles = tl.cdiv(KV_LEN, BLOCK_N1)
    offs_d = tl.arange(0, BLOCK_D)
    offs_dv = tl.arange(0, BLOCK_DV)
    k_base = K + off_b.to(tl.int64) * stride_kb + off_hkv.to(tl.int64) * stride_kh
    v_base = V + off_b.to(tl.int64) * stride_vb + off_hkv.to(tl.int64) * stride_vh

    if pid < num_kv_tiles:
        offs_n = pid * BLOCK_N1 + tl.arange(0, BLOCK_N1)
        k = _load(k_base + offs_n[:, None] * stride_kn + offs_d[None, :] * stride_kd, offs_n,
                  offs_d, KV_LEN, HEAD_DIM, not IS_DIVISIBLE, HEAD_DIM != BLOCK_D)
        v = _load(v_base + offs_n[:, None] * stride_vn + offs_dv[None, :] * stride_vd, offs_n,
                  offs_dv, KV_LEN, V_HEAD_DIM, not IS_DIVISIBLE, V_HEAD_DIM != BLOCK_DV)
        kv_idx = _mod_index(offs_n, KV_LEN, not IS_DIVISIBLE)[:, None]
        dk = tl.zeros([BLOCK_N1, BLOCK_D], dtype=tl.float32)
        dv = tl.zeros([BLOCK_N1, BLOCK_DV], dtype=tl.float32)
        col = (pid * BLOCK_N1) // SPARSE_KV
        for g in range(GQA_GROUP):
            off_h = off_hkv * GQA_GROUP + g
            q_base = Q + off_b.to(tl.int64) * stride_qb + off_h.to(tl.int64) * stride_qh
            do_base = DO + off_b.to(tl.int64) * stride_dob + off_h.to(tl.int64) * stride_doh
            row_base = (off_b * NUM_HEADS + off_h).to(tl.int64) * Q_LEN
            indices, count = _block_list(Q_NUM, Q_IDX, off_b, off_h, col, stride_tnb,
                                         stride_tnh, stride_tib, stride_tih, stride_tim)
            dk, dv = _bwd_dkdv_inner(
                dk, dv, k, v, q_base, do_base, Q_DESC, DO_DESC, LSE + row_base,
                DELTA + row_base, indices, count, off_b, off_h, offs_n, kv_idx, sm_scale, Q_LEN,
                KV_LEN, stride_qm, stride_qd, stride_dom, stride_dod,
                BUF0, BUF1, BUF2, BUF3, BUF4, BUF5,
                HEAD_DIM, V_HEAD_DIM, BLOCK_D, BLOCK_DV, SPARSE_Q, BLOCK_M1, BLOCK_N1,
                HAS_SCORE_MOD, IS_DIVISIBLE, IEEE_FP32, TMA, IS_FULL_BLOCKS=False,
            )
            indices, count = _block_list(FULL_Q_NUM, FULL_Q_IDX, off_b, off_h, col, stride_tnb,
                                         stride_tnh, stride_tib, stride_tih, stride_tim)
            dk, dv = _bwd_dkdv_inner(
                dk, dv, k, v, q_base, do_base, Q_DESC, DO_DESC, LSE + row_base,
                DELTA + row_base, indices, count, off_b, off_h, offs_n, kv_idx, sm_scale, Q_LEN,
                KV_LEN, stride_qm, stride_qd, stride_dom, stride_dod,
                BUF0, BUF1, BUF2, BUF3, BUF4, BUF5,
                HEAD_DIM, V_HEAD_DIM, BLOCK_D, BLOCK_DV, SPARSE_Q, BLOCK_M1, BLOCK_N1,
                HAS_SCORE_MOD, IS_DIVISIBLE, IEEE_FP32, TMA, IS_FULL_BLOCKS=True,
            )
        _store(DK + off_b.to(tl.int64) * stride_dkb + off_hkv.to(tl.int64) * stride_dkh
               + offs_n[:, None] * stride_dkn + offs_d[None, :] * stride_dkd, dk * sm_scale,
               offs_n, offs_d, KV_LEN, HEAD_DIM, not IS_DIVISIBLE, HEAD_DIM != BLOCK_D)
        _store(DV + off_b.to(tl.int64) * stride_dvb + off_hkv.to(tl.int64) * stride_dvh
               + offs_n[:, None] * stride_dvn + offs_dv[None, :] * stride_dvd, dv,
               offs_n, offs_dv, KV_LEN, V_HEAD_DIM, not IS_DIVISIBLE, V_HEAD_DIM != BLOCK_DV)
    else:
        num_q_tiles = tl.cdiv(Q_LEN, BLOCK_M2)
        task = pid - num_kv_tiles
        off_h = off_hkv * GQA_GROUP + task // num_q_tiles
        start_m = task % num_q_tiles
        offs_m = start_m * BLOCK_M2 + tl.arange(0, BLOCK_M2)
        q = _load(Q + off_b.to(tl.int64) * stride_qb + off_h.to(tl.int64) * stride_qh
                  + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qd, offs_m, offs_d,
                  Q_LEN, HEAD_DIM, not IS_DIVISIBLE, HEAD_DIM != BLOCK_D)  # (BLOCK_M2, D)
        do = _load(DO + off_b.to(tl.int64) * stride_dob + off_h.to(tl.int64) * stride_doh
                   + offs_m[:, None] * stride_dom + offs_dv[None, :] * stride_dod, offs_m,
                   offs_dv, Q_LEN, V_HEAD_DIM, not IS_DIVISIBLE, V_HEAD_DIM != BLOCK_DV)
        rows = (off_b * NUM_HEADS + off_h).to(tl.int64) * Q_LEN + offs_m
        lse = _load_rows(LSE + rows, offs_m, Q_LEN, not IS_DIVISIBLE)
        delta = _load_rows(DELTA + rows, offs_m, Q_LEN, not IS_DIVISIBLE)
        lse2 = tl.where(lse == float("-inf"), 0.0, lse * LOG2E)
        q_idx = _mod_index(offs_m, Q_LEN, not IS_DIVISIBLE)[:, None]
        dq = tl.zeros([BLOCK_M2, BLOCK_D], dtype=tl.float32)
        row = (start_m * BLOCK_M2) // SPARSE_Q
        indices, count = _block_list(KV_NUM, KV_IDX, off_b, off_h, row, stride_nb, stride_nh,
                                     stride_ib, stride_ih, stride_im)
        dq = _bwd_dq_inner(
            dq, q, do, lse2, delta, k_base, v_base, K_DESC, V_DESC, indices, count, off_b, off_h,
            off_hkv, offs_m, q_idx, sm_scale, Q_LEN, KV_LEN, stride_kn, stride_kd, stride_vn,
            stride_vd, BUF0, BUF1, BUF2, BUF3, BUF4, BUF5, HEAD_DIM, V_HEAD_DIM, BLOCK_D,
            BLOCK_DV, SPARSE_KV, BLOCK_M2, BLOCK_N2, HAS_SCORE_MOD, IS_DIVISIBLE, IEEE_FP32, TMA,
            IS_FULL_BLOCKS=False,
        )
        indices, count = _block_list(FULL_KV_NUM, FULL_KV_IDX, off_b, off_h, row, stride_nb,
                                     stride_nh, stride_ib, stride_ih, stride_im)
        dq = _bwd_dq_inner(
            dq, q, do, lse2, delta, k_base, v_base, K_DESC, V_DESC, indices, count, off_b, off_h,
            off_hkv, offs_m, q_idx, sm_scale, Q_LEN, KV_LEN, stride_kn, stride_kd, stride_vn,
            stride_vd, BUF0, BUF1, BUF2, BUF3, BUF4, BUF5, HEAD_DIM, V_HEAD_DIM, BLOCK_D,
            BLOCK_DV, SPARSE_KV, BLOCK_M2, BLOCK_N2, HAS_SCORE_MOD, IS_DIVISIBLE, IEEE_FP32, TMA,
            IS_FULL_BLOCKS=True,
        )
        # A row that sees no key has dq 0, also where a key it does not see is NaN (0 * NaN in
        # ds @ k).
        dq = tl.where((lse == float("-inf"))[:, None], 0.0, dq)
        _store(DQ + off_b.to(tl.int64) * stride_dqb + off_h.to(tl.int64) * stride_dqh
               + offs_m[:, None] * stride_dqm + offs_d[None, :] * stride_dqd, dq * sm_scale,
               offs_m, offs_d, Q_LEN, HEAD_DIM, not IS_DIVISIBLE, HEAD_DIM != BLOCK_D)


# Block mask ---------------------------------------------------------------------------------


@triton.jit
def block_state_kernel(
    STATE, BUF0, BUF1, BUF2, BUF3, BUF4, BUF5,
    stride_sb, stride_sh, stride_sm, Q_LEN, KV_LEN, NUM_KV_BLOCKS,
    SPARSE_Q: tl.constexpr, SPARSE_KV: tl.constexpr,
):
    """STATE[b, h, i, j] = 0 (no visible entry), 1 (some) or 2 (all) for the (SPARSE_Q x
    SPARSE_KV) block (i, j) of mask_mod; entries past the sequence ends count as hidden."""
    row = tl.program_id(0)
    off_h = tl.program_id(1)
    off_b = tl.program_id(2)
    offs_m = row * SPARSE_Q + tl.arange(0, SPARSE_Q)
    in_m = offs_m[:, None] < Q_LEN
    q_idx = offs_m[:, None] % Q_LEN
    state_ptrs = STATE + off_b * stride_sb + off_h * stride_sh + row * stride_sm
    for col in range(NUM_KV_BLOCKS):
        offs_n = col * SPARSE_KV + tl.arange(0, SPARSE_KV)
        kv_idx = offs_n[None, :] % KV_LEN
        keep = mask_mod(off_b, off_h, q_idx, kv_idx, BUF0, BUF1, BUF2, BUF3, BUF4, BUF5)
        keep = keep & in_m & (offs_n[None, :] < KV_LEN)
        visible = tl.sum(tl.sum(keep.to(tl.int32), 1), 0)
        state = tl.where(visible == SPARSE_Q * SPARSE_KV, 2, tl.where(visible > 0, 1, 0))
        tl.store(state_ptrs + col, state.to(tl.int8))
