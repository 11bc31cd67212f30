"""Ring attention (context parallelism): attention over a sequence sharded across the ranks of
a torch.distributed group.

Each rank holds the query, key and value rows of its shard (layout.py says which global rows).
Forward: W steps over a group of W ranks; at step t a rank holds the key/value shard of rank
r - t, sends it on to r + 1 and receives the next one (batched point-to-point ops, in flight
while it computes), and attends its queries to the keys it holds with the kernels' ops
(flash_ext::attention_fwd: the CPU kernel on CPU tensors, the flash kernel on CUDA), the causal
mask and window applied in global positions. The partial outputs are merged in fp32 through
their log-sum-exps. Backward: the key/value shards go round again; each rank runs the
kernels' backward op on every pair with the merged output and lse (so each pair's
probabilities are the final ones), adds dq in place, and adds its dK/dV contribution to the
owner's fp32 accumulator, which travels one rank behind the shard and reaches its owner after
the last step.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.distributed as dist
from torch import Tensor
from torch.autograd.function import once_differentiable

from flash_ext.distributed.layout import Segment, check_layout, group_size_rank, segments


@dataclass(frozen=True)
class RingOptions:
    group: dist.ProcessGroup | None
    layout: str
    window_left: int  # -1: unbounded; as flash_ext.attention's window_size, in global rows
    window_right: int  # 0: causal
    scale: float
    deterministic: bool


@dataclass(frozen=True)
class _Pair:
    """A query slice attending to a key slice of the shards, with the kernels' top-left window
    that puts the global mask on them."""

    q_rows: slice
    k_rows: slice
    window_left: int
    window_right: int


def _pair(q_seg: Segment, k_seg: Segment, window_left: int, window_right: int) -> _Pair | None:
    """The rows of q_seg that see some key of k_seg, the keys some of them see, and the window
    (relative to the slices' first rows) that gives query a key b of those slices; None when no
    row sees a key. Global rows: query i sees key j when i - window_left <= j <= i +
    window_right (-1: unbounded), that is, for a, b the rows within the segments and shift =
    q_seg.start - k_seg.start, lo <= b - a <= hi with lo = shift - window_left,
    hi = shift + window_right."""
    q_len, k_len = q_seg.length, k_seg.length
    shift = q_seg.start - k_seg.start
    hi = None if window_right < 0 else shift + window_right
    lo = None if window_left < 0 else shift - window_left
    q0 = 0 if hi is None else max(0, -hi)  # rows a < -hi see no key (b >= 0 > a + hi)
    q1 = q_len if lo is None else min(q_len, k_len - lo)  # rows a > k_len - 1 - lo see none
    k0 = 0 if lo is None else max(0, lo)  # keys b < lo: no row sees them (b >= a + lo >= lo)
    k1 = k_len if hi is None else min(k_len, q1 + hi)  # keys past the last row's right edge
    if q1 <= q0 or k1 <= k0:
        return None
    # In the slices' rows a' = a - q0, b' = b - k0: lo - k0 + q0 <= b' - a' <= hi - k0 + q0,
    # a left bound <= 0 and a right bound >= 0 (lo <= hi), as the kernels' windows are.
    return _Pair(slice(q_seg.offset + q0, q_seg.offset + q1),
                 slice(k_seg.offset + k0, k_seg.offset + k1),
                 -1 if lo is None else -(lo - k0 + q0),
                 -1 if hi is None else hi - k0 + q0)


def _pairs(q_segments: list[Segment], k_segments: list[Segment],
           options: RingOptions) -> list[_Pair]:
    pairs = (_pair(qs, ks, options.window_left, options.window_right)
             for qs in q_segments for ks in k_segments)
    return [p for p in pairs if p is not None]


def _fwd(q: Tensor, k: Tensor, v: Tensor, pair: _Pair,
         options: RingOptions) -> tuple[Tensor, Tensor]:
    return torch.ops.flash_ext.attention_fwd(
        q[:, :, pair.q_rows], k[:, :, pair.k_rows], v[:, :, pair.k_rows], None, None, None, 0.0,
        options.scale, pair.window_left, pair.window_right, False, 0.0, options.deterministic)


def _bwd(dout: Tensor, q: Tensor, k: Tensor, v: Tensor, out: Tensor, lse: Tensor, pair: _Pair,
         options: RingOptions) -> tuple[Tensor, Tensor, Tensor]:
    rows, keys = pair.q_rows, pair.k_rows
    return torch.ops.flash_ext.attention_bwd(
        dout[:, :, rows], q[:, :, rows], k[:, :, keys], v[:, :, keys], out[:, :, rows],
        lse[:, :, rows], None, None, None, 0.0, options.scale, pair.window_left,
        pair.window_right, False, 0.0, options.deterministic)


def _merge(acc_out: Tensor, acc_lse: Tensor, out: Tensor, lse: Tensor) -> None:
    """acc (fp32 views) <- the softmax-weighted union of acc and (out, lse)."""
    new_lse = torch.logaddexp(acc_lse, lse)
    # Rows that saw no key in either part keep zeros and -inf (-inf - -inf would be NaN).
    base = torch.where(new_lse == float("-inf"), 0.0, new_lse)
    acc_out.mul_(torch.exp(acc_lse - base).unsqueeze(-1))
    acc_out.add_(out.float() * torch.exp(lse - base).unsqueeze(-1))
    acc_lse.copy_(new_lse)


class _Ring:
    """The group's ring: this rank, the next and the previous (global ranks for the P2P ops)."""

    def __init__(self, group: dist.ProcessGroup | None):
        self.group = group
        self.world, self.rank = group_size_rank(group)
        whole = group if group is not None else dist.group.WORLD
        self.next = dist.get_global_rank(whole, (self.rank + 1) % self.world)
        self.prev = dist.get_global_rank(whole, (self.rank - 1) % self.world)

    def pass_on(self, tensor: Tensor) -> tuple[Tensor, list]:
        """Sends `tensor` to the next rank and receives the previous rank's into a new tensor;
        returns it with the requests to wait for."""
        received = torch.empty_like(tensor)
        ops = [dist.P2POp(dist.isend, tensor, self.next, self.group),
               dist.P2POp(dist.irecv, received, self.prev, self.group)]
        return received, dist.batch_isend_irecv(ops)

    def owner(self, step: int) -> int:
        """The rank whose key/value shard this rank holds at `step`."""
        return (self.rank - step) % self.world


def _wait(requests: list) -> None:
    for request in requests:
        request.wait()


def ring_forward(q: Tensor, k: Tensor, v: Tensor, options: RingOptions) -> tuple[Tensor, Tensor]:
    ring = _Ring(options.group)
    local_len = q.shape[2]
    q_segments = segments(options.layout, ring.rank, ring.world, local_len)
    acc_out = torch.zeros(q.shape, dtype=torch.float32, device=q.device)
    acc_lse = torch.full(q.shape[:3], float("-inf"), dtype=torch.float32, device=q.device)
    kv = torch.stack([k, v])
    for step in range(ring.world):
        last = step == ring.world - 1
        if not last:
            next_kv, requests = ring.pass_on(kv)
        k_segments = segments(options.layout, ring.owner(step), ring.world, local_len)
        for pair in _pairs(q_segments, k_segments, options):
            out, lse = _fwd(q, kv[0], kv[1], pair, options)
            _merge(acc_out[:, :, pair.q_rows], acc_lse[:, :, pair.q_rows], out, lse)
        if not last:
            _wait(requests)
            kv = next_kv
    return acc_out.to(q.dtype), acc_lse


def ring_backward(dout: Tensor, q: Tensor, k: Tensor, v: Tensor, out: Tensor, lse: Tensor,
                  options: RingOptions) -> tuple[Tensor, Tensor, Tensor]:
    ring = _Ring(options.group)
    local_len = q.shape[2]
    q_segments = segments(options.layout, ring.rank, ring.world, local_len)
    dq = torch.zeros(q.shape, dtype=torch.float32, device=q.device)
    kv = torch.stack([k, v])
    dkv_in_flight = None  # the owner's dK/dV so far, coming from the previous rank
    for step in range(ring.world):
        last = step == ring.world - 1
        if not last:
            next_kv, kv_requests = ring.pass_on(kv)
        dkv = torch.zeros(kv.shape, dtype=torch.float32, device=q.device)
        k_segments = segments(options.layout, ring.owner(step), ring.world, local_len)
        for pair in _pairs(q_segments, k_segments, options):
            dq_pair, dk_pair, dv_pair = _bwd(dout, q, kv[0], kv[1], out, lse, pair, options)
            dq[:, :, pair.q_rows] += dq_pair
            dkv[0, :, :, pair.k_rows] += dk_pair
            dkv[1, :, :, pair.k_rows] += dv_pair
        if dkv_in_flight is not None:
            received, dkv_requests = dkv_in_flight
            _wait(dkv_requests)
            dkv += received
        if ring.world > 1:
            dkv_in_flight = ring.pass_on(dkv)  # to the rank that holds this shard next
        if not last:
            _wait(kv_requests)
            kv = next_kv
    if dkv_in_flight is not None:  # this rank's own dK/dV, back from the last rank that held it
        dkv, dkv_requests = dkv_in_flight
        _wait(dkv_requests)
    return dq.to(q.dtype), dkv[0].to(k.dtype), dkv[1].to(v.dtype)


class _RingAttention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q: Tensor, k: Tensor, v: Tensor, options: RingOptions):
        out, lse = ring_forward(q, k, v, options)
        ctx.save_for_backward(q, k, v, out, lse)
        ctx.options = options
        ctx.mark_non_differentiable(lse)
        return out, lse

    @staticmethod
    @once_differentiable
    def backward(ctx, dout: Tensor, _dlse: Tensor):
        q, k, v, out, lse = ctx.saved_tensors
        dq, dk, dv = ring_backward(dout.contiguous(), q, k, v, out, lse, ctx.options)
        return dq, dk, dv, None


# What flash_ext::attention_fwd/bwd run on each device: the CPU kernel, the flash kernel.
_KERNEL_DTYPES = {"cpu": (torch.float32, torch.float16, torch.bfloat16),
                  "cuda": (torch.float16, torch.bfloat16)}


def _check(q: Tensor, k: Tensor, v: Tensor, layout: str, enable_gqa: bool,
           window_size: tuple[int, int]) -> None:
    check_layout(layout)
    for name, t in (("query", q), ("key", k), ("value", v)):
        if not isinstance(t, Tensor) or t.dim() != 4:
            raise ValueError(f"{name}: expected a 4-D tensor (B, H, S_local, D), got "
                             f"{tuple(t.shape) if isinstance(t, Tensor) else type(t).__name__}")
    if k.shape != v.shape:
        raise ValueError(f"key and value must have the same shape, got {tuple(k.shape)} and "
                         f"{tuple(v.shape)}")
    if q.dtype != k.dtype or q.dtype != v.dtype or q.device != k.device or q.device != v.device:
        raise ValueError(f"query, key and value must share dtype and device, got {q.dtype}/"
                         f"{q.device}, {k.dtype}/{k.device}, {v.dtype}/{v.device}")
    accepted = _KERNEL_DTYPES.get(q.device.type, ())
    if q.dtype not in accepted:
        raise ValueError(f"query dtype {q.dtype} on {q.device.type}: ring_attention runs the "
                         f"{'flash' if q.device.type == 'cuda' else 'CPU'} kernels there, which "
                         f"take {', '.join(map(str, accepted)) or 'no tensors of this device'}")
    if q.shape[0] != k.shape[0] or q.shape[2] != k.shape[2] or q.shape[3] != k.shape[3]:
        raise ValueError(f"query {tuple(q.shape)} and key {tuple(k.shape)}: ring attention "
                         "shards queries and keys alike (self-attention), so batch, local "
                         "sequence length and head dim must match")
    heads_q, heads_kv = q.shape[1], k.shape[1]
    if heads_q != heads_kv and not (enable_gqa and heads_kv > 0 and heads_q % heads_kv == 0):
        raise ValueError(f"query has {heads_q} heads and key {heads_kv}: different counts need "
                         "enable_gqa=True and key heads dividing query heads")
    if layout == "zigzag" and q.shape[2] % 2:
        raise ValueError(f"layout='zigzag': the local sequence length must be even (two "
                         f"chunks a rank), got {q.shape[2]}")
    if (not isinstance(window_size, (tuple, list)) or len(window_size) != 2
            or any(not isinstance(w, int) or w < -1 for w in window_size)):
        raise ValueError(f"window_size={window_size!r}: expected (left, right), each -1 "
                         "(unbounded) or >= 0")


def ring_attention(query: Tensor, key: Tensor, value: Tensor, *,
                   group: dist.ProcessGroup | None = None, layout: str = "contiguous",
                   is_causal: bool = False, window_size: tuple[int, int] = (-1, -1),
                   scale: float | None = None, enable_gqa: bool = False,
                   deterministic: bool = False,
                   return_lse: bool = False) -> Tensor | tuple[Tensor, Tensor]:
    """Attention over a sequence sharded across `group` (default: the whole world), called by
    every rank with its shard: query (B, Hq, S_local, D), key and value (B, Hkv, S_local, D),
    this rank's rows of the sequence by `layout` ("contiguous" or "zigzag"; shard() and
    unshard() convert). Returns this rank's rows of the output, (B, Hq, S_local, D), as
    flash_ext.attention on the whole sequence would give them; with return_lse also their fp32
    log-sum-exp (B, Hq, S_local). is_causal and window_size are in global positions,
    top-left aligned as in SDPA; GQA as in SDPA (enable_gqa). Differentiable in query, key and
    value (once). CPU tensors run the CPU kernel (group over gloo), CUDA tensors the flash
    kernel (fp16/bf16, group over NCCL)."""
    _check(query, key, value, layout, enable_gqa, window_size)
    window_left, window_right = window_size
    options = RingOptions(group, layout, window_left, 0 if is_causal else window_right,
                          1.0 / math.sqrt(query.shape[-1]) if scale is None else float(scale),
                          deterministic)
    out, lse = _RingAttention.apply(query, key, value, options)
    return (out, lse) if return_lse else out
