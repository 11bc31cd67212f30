"""Ring attention (context parallelism): attention over a sequence sharded across the ranks of
a torch.distributed group.

Each rank holds the query, key and value rows of its shard (layout.py says which global rows).
Forward: W steps over a group of W ranks; at step t a rank holds the key/value shard of rank
r - t, sends it on to r + 1 and receives the next one (batched point-to-point ops, in flight
while it computes), and runs its queries against the keys it holds, pair of segments by pair
(pairs.py: the global mask on each, the kernels' ops). The partial outputs are merged in fp32
through their log-sum-exps. Backward: the key/value shards go round again; each rank runs the
kernels' backward op on every pair with the merged output and lse (so each pair's
probabilities are the final ones), adds dq in place, and adds its dK/dV contribution to the
shard's fp32 accumulator, which travels one rank behind the shard and reaches its owner after
the last step. Learnable sinks (gpt-oss) join after the merge, as in flash_ext.attention's
kernel backends: lse' = logaddexp(lse, sink), out' = out exp(lse - lse'), the backward on
(out', lse'), and d sink = -sum over the rank's rows of exp(sink - lse') rowsum(dO out') (this
rank's share: the sinks are replicated across the group like the model's other weights, whose
gradients the training loop sums over the ranks).
"""
from __future__ import annotations

import math

import torch
import torch.distributed as dist
from torch import Tensor
from torch.autograd.function import once_differentiable

from flash_ext.distributed.layout import check_layout, group_size_rank, segments
from flash_ext.distributed.merge import merge_
from flash_ext.distributed.pairs import Dense, RingOptions, Varlen, rows


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


def _split(kv: Tensor, k_shape: torch.Size, v_shape: torch.Size) -> tuple[Tensor, Tensor]:
    """The k-like and v-like views of a flat buffer holding both (one exchange a step; v may
    have a head dim of its own)."""
    n = math.prod(k_shape)
    return kv[:n].view(k_shape), kv[n:].view(v_shape)


def _shards(ring: _Ring, attention: Dense | Varlen, q: Tensor, k: Tensor, v: Tensor):
    """Yields, for each step, the K/V shard this rank holds (one flat buffer, both in it), the
    pairs of its query segments with that shard's segments, and whether the next shard is on
    its way meanwhile."""
    local_len = q.shape[attention.row_dim]
    layout = attention.options.layout
    mine = segments(layout, ring.rank, ring.world, local_len)
    kv = torch.cat([k.reshape(-1), v.reshape(-1)])
    for step in range(ring.world):
        last = step == ring.world - 1
        if not last:
            next_kv, requests = ring.pass_on(kv)
        yield (kv, attention.pairs(mine, segments(layout, ring.owner(step), ring.world, local_len)),
               not last)
        if not last:
            _wait(requests)
            kv = next_kv


def ring_forward(q: Tensor, k: Tensor, v: Tensor, sinks: Tensor | None,
                 attention: Dense | Varlen,
                 group: dist.ProcessGroup | None) -> tuple[Tensor, Tensor]:
    dim = attention.row_dim
    acc_out = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=torch.float32, device=q.device)
    acc_lse = attention.new_lse(q)
    for kv, pairs, exchanging in _shards(_Ring(group), attention, q, k, v):
        k_held, v_held = _split(kv, k.shape, v.shape)
        for pair in pairs:
            out, lse = attention.forward(q, k_held, v_held, pair, exchanging)
            merge_(rows(acc_out, dim, pair.q_rows), rows(acc_lse, dim, pair.q_rows), out, lse)
    if sinks is not None:  # on the fp32 accumulator; rows without keys: out 0, lse the sink
        with_sink = torch.logaddexp(acc_lse, attention.per_head(sinks.float()))
        acc_out.mul_(torch.exp(acc_lse - with_sink).unsqueeze(-1))
        acc_lse = with_sink
    return acc_out.to(q.dtype), attention.final_lse(acc_lse)


def ring_backward(dout: Tensor, q: Tensor, k: Tensor, v: Tensor, out: Tensor, lse: Tensor,
                  attention: Dense | Varlen,
                  group: dist.ProcessGroup | None) -> tuple[Tensor, Tensor, Tensor]:
    ring = _Ring(group)
    dim = attention.row_dim
    dq = torch.zeros(q.shape, dtype=torch.float32, device=q.device)
    dkv_in_flight = None  # the held shard's dK/dV so far, coming from the previous rank
    for kv, pairs, _ in _shards(ring, attention, q, k, v):
        k_held, v_held = _split(kv, k.shape, v.shape)
        dkv = torch.zeros(kv.shape, dtype=torch.float32, device=q.device)
        dk_held, dv_held = _split(dkv, k.shape, v.shape)
        for pair in pairs:
            dq_pair, dk_pair, dv_pair = attention.backward(dout, q, k_held, v_held, out, lse, pair)
            rows(dq, dim, pair.q_rows).add_(dq_pair)
            rows(dk_held, dim, pair.k_rows).add_(dk_pair)
            rows(dv_held, dim, pair.k_rows).add_(dv_pair)
        if dkv_in_flight is not None:
            received, dkv_requests = dkv_in_flight
            _wait(dkv_requests)
            dkv += received
        if ring.world > 1:
            dkv_in_flight = ring.pass_on(dkv)  # to the rank that holds this shard next
    if dkv_in_flight is not None:  # this rank's own dK/dV, back from the last rank that held it
        dkv, dkv_requests = dkv_in_flight
        _wait(dkv_requests)
    dk, dv = _split(dkv, k.shape, v.shape)
    return dq.to(q.dtype), dk.to(k.dtype), dv.to(v.dtype)


def _sinks_grad(dout: Tensor, out: Tensor, lse: Tensor, sinks: Tensor,
                attention: Dense | Varlen) -> Tensor:
    """d sink = -sum over this rank's rows of exp(sink - lse') * rowsum(dO * out')."""
    row_sums = (dout.float() * out.float()).sum(-1)  # the merging lse's layout: heads at dim 1
    if attention.row_dim == 0:
        lse = lse.t()  # the final (H, T) back to (T, H)
    weights = torch.exp(attention.per_head(sinks.float()) - lse)
    return -(weights * row_sums).movedim(1, 0).flatten(1).sum(1).to(sinks.dtype)


class _RingAttention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q: Tensor, k: Tensor, v: Tensor, sinks: Tensor | None,
                attention: Dense | Varlen, group: dist.ProcessGroup | None,
                forward_group: dist.ProcessGroup | None):
        out, lse = ring_forward(q, k, v, sinks, attention,
                                group if forward_group is None else forward_group)
        ctx.save_for_backward(q, k, v, out, lse, sinks)
        ctx.attention, ctx.group = attention, group
        ctx.mark_non_differentiable(lse)
        return out, lse

    @staticmethod
    @once_differentiable
    def backward(ctx, dout: Tensor, _dlse: Tensor):
        q, k, v, out, lse, sinks = ctx.saved_tensors
        dout = dout.contiguous()
        dq, dk, dv = ring_backward(dout, q, k, v, out, lse, ctx.attention, ctx.group)
        dsinks = None
        if ctx.needs_input_grad[3]:
            dsinks = _sinks_grad(dout, out, lse, sinks, ctx.attention)
        return dq, dk, dv, dsinks, None, None, None


# What flash_ext::attention_fwd/bwd run on each device: the CPU kernel, the flash kernel.
_KERNEL_DTYPES = {"cpu": (torch.float32, torch.float16, torch.bfloat16),
                  "cuda": (torch.float16, torch.bfloat16)}


def _check(q: Tensor, k: Tensor, v: Tensor, layout: str, enable_gqa: bool, shape: str) -> None:
    """The checks both entry points share; `shape` names the layout of q, k, v."""
    check_layout(layout)
    dims = shape.count(",") + 1
    for name, t in (("query", q), ("key", k), ("value", v)):
        if not isinstance(t, Tensor) or t.dim() != dims:
            raise ValueError(f"{name}: expected a {dims}-D tensor {shape}, got "
                             f"{tuple(t.shape) if isinstance(t, Tensor) else type(t).__name__}")
    if k.shape[:-1] != v.shape[:-1]:
        raise ValueError(f"key and value must have the same shape but for the head dim, got "
                         f"{tuple(k.shape)} and {tuple(v.shape)}")
    if v.shape[-1] != k.shape[-1] and q.device.type == "cuda":
        raise ValueError(f"value's head dim {v.shape[-1]} differs from key's {k.shape[-1]}: on "
                         "CUDA the ring runs the flash kernels, which take one head dim (the "
                         "CPU kernels take one of value's own)")
    if q.dtype != k.dtype or q.dtype != v.dtype or q.device != k.device or q.device != v.device:
        raise ValueError(f"query, key and value must share dtype and device, got {q.dtype}/"
                         f"{q.device}, {k.dtype}/{k.device}, {v.dtype}/{v.device}")
    accepted = _KERNEL_DTYPES.get(q.device.type, ())
    if q.dtype not in accepted:
        raise ValueError(f"query dtype {q.dtype} on {q.device.type}: ring_attention runs the "
                         f"{'flash' if q.device.type == 'cuda' else 'CPU'} kernels there, which "
                         f"take {', '.join(map(str, accepted)) or 'no tensors of this device'}")
    head = 1  # the heads dim, of (B, H, S, D) and of (T, H, D)
    same = [d for d in range(dims) if d != head]
    if any(q.shape[d] != k.shape[d] for d in same):
        raise ValueError(f"query {tuple(q.shape)} and key {tuple(k.shape)}: ring attention "
                         "shards queries and keys alike (self-attention), so all but the heads "
                         "must match")
    heads_q, heads_kv = q.shape[head], k.shape[head]
    if heads_q != heads_kv and not (enable_gqa and heads_kv > 0 and heads_q % heads_kv == 0):
        raise ValueError(f"query has {heads_q} heads and key {heads_kv}: different counts need "
                         "enable_gqa=True and key heads dividing query heads")
    local_len = q.shape[2 if dims == 4 else 0]
    if layout == "zigzag" and local_len % 2:
        raise ValueError(f"layout='zigzag': the local sequence length must be even (two "
                         f"chunks a rank), got {local_len}")


def _check_forward_group(group: dist.ProcessGroup | None,
                         forward_group: dist.ProcessGroup | None) -> None:
    """forward_group, where given, holds group's ranks in group's order (the ring is the same)."""
    if forward_group is None:
        return
    whole = group if group is not None else dist.group.WORLD
    size = dist.get_world_size(whole)
    ranks = [dist.get_global_rank(whole, i) for i in range(size)]
    theirs = [dist.get_global_rank(forward_group, i)
              for i in range(dist.get_world_size(forward_group))]
    if theirs != ranks:
        raise ValueError(f"forward_group: expected a group of group's ranks in its order "
                         f"{ranks}, got {theirs}")


def _scale(scale: float | None, head_dim: int) -> float:
    return 1.0 / math.sqrt(head_dim) if scale is None else float(scale)


def _options(q: Tensor, layout: str, is_causal: bool, window_size, scale: float | None,
             softcap: float, sinks: Tensor | None, deterministic: bool,
             sm_margin: int) -> RingOptions:
    if (not isinstance(window_size, (tuple, list)) or len(window_size) != 2
            or any(not isinstance(w, int) or w < -1 for w in window_size)):
        raise ValueError(f"window_size={window_size!r}: expected (left, right), each -1 "
                         "(unbounded) or >= 0")
    if not isinstance(softcap, (int, float)) or not math.isfinite(softcap) or softcap < 0:
        raise ValueError(f"softcap={softcap!r}: expected a finite number >= 0 (0: no cap)")
    if sinks is not None:
        heads_q = q.shape[1]
        if not isinstance(sinks, Tensor) or sinks.shape != (heads_q,):
            got = tuple(sinks.shape) if isinstance(sinks, Tensor) else type(sinks).__name__
            raise ValueError(f"sinks: expected a tensor of shape ({heads_q},), one logit per "
                             f"query head, got {got}")
        if sinks.dtype not in (torch.float32, q.dtype) or sinks.device != q.device:
            raise ValueError(f"sinks: expected torch.float32 or the inputs' dtype ({q.dtype}) "
                             f"on {q.device}, got {sinks.dtype} on {sinks.device}")
    if isinstance(sm_margin, bool) or not isinstance(sm_margin, int) or sm_margin < 0:
        raise ValueError(f"sm_margin={sm_margin!r}: expected an int >= 0, the SMs the forward's "
                         "kernels leave to the exchange (0: none)")
    window_left, window_right = window_size
    return RingOptions(layout, window_left, 0 if is_causal else window_right,
                       _scale(scale, q.shape[-1]), deterministic, float(softcap), sm_margin)


def ring_attention(query: Tensor, key: Tensor, value: Tensor, *,
                   group: dist.ProcessGroup | None = None, layout: str = "contiguous",
                   is_causal: bool = False, window_size: tuple[int, int] = (-1, -1),
                   scale: float | None = None, enable_gqa: bool = False,
                   softcap: float = 0.0, sinks: Tensor | None = None,
                   deterministic: bool = False, return_lse: bool = False,
                   forward_group: dist.ProcessGroup | None = None, sm_margin: int = 0,
                   ) -> Tensor | tuple[Tensor, Tensor]:
    """Attention over a sequence sharded across `group` (default: the whole world), called by
    every rank with its shard: query (B, Hq, S_local, D), key (B, Hkv, S_local, D) and value
    (B, Hkv, S_local, Dv; Dv != D on CPU tensors only, as DeepSeek-V3's 192 / 128), this rank's
    rows of the sequence by `layout` ("contiguous" or "zigzag"; shard() and unshard()
    convert). Returns this rank's rows of the output, (B, Hq, S_local, Dv), as
    flash_ext.attention on the whole sequence would give them; with return_lse also their fp32
    log-sum-exp (B, Hq, S_local). is_causal and window_size are in global positions,
    top-left aligned as in SDPA; GQA as in SDPA (enable_gqa); softcap and sinks (Hq,) as in
    flash_ext.attention (the lse then includes the sink). Differentiable in query, key, value
    and sinks (once; the sinks' gradient is this rank's share). CPU tensors run the CPU kernel
    (group over gloo), CUDA tensors the flash kernel (fp16/bf16, group over NCCL).
    forward_group (default: group) carries the forward's key/value exchanges: a group of the
    same ranks whose NCCL kernels take a few CTAs (ProcessGroupNCCL.Options with
    config.max_ctas = 4), while the backward's larger exchanges run better on `group`.
    sm_margin: the SMs the forward's kernels leave free while an exchange is in flight (the
    persistent Hopper forward's grid; set it to forward_group's max_ctas), so that the
    exchange's NCCL kernels start at once on every rank instead of waiting for a kernel's grid
    to drain (benchmarks/NOTES.md, "Context parallelism")."""
    _check(query, key, value, layout, enable_gqa, "(B, H, S_local, D)")
    _check_forward_group(group, forward_group)
    attention = Dense(_options(query, layout, is_causal, window_size, scale, softcap, sinks,
                               deterministic, sm_margin))
    out, lse = _RingAttention.apply(query, key, value, sinks, attention, group, forward_group)
    return (out, lse) if return_lse else out


def _global_cu_seqlens(cu_seqlens, total: int) -> list[int]:
    values = cu_seqlens.tolist() if isinstance(cu_seqlens, Tensor) else list(cu_seqlens)
    if (len(values) < 2 or any(not isinstance(x, int) for x in values) or values[0] != 0
            or values[-1] != total or any(b < a for a, b in zip(values, values[1:]))):
        raise ValueError(f"cu_seqlens: expected the non-decreasing int prefix sums of the "
                         f"documents, from 0 to the packed sequence's {total} rows (the ranks' "
                         f"rows together), got {values[:8]}{'...' if len(values) > 8 else ''}")
    return values


def ring_attention_varlen(query: Tensor, key: Tensor, value: Tensor, cu_seqlens, *,
                          group: dist.ProcessGroup | None = None, layout: str = "contiguous",
                          is_causal: bool = False, window_size: tuple[int, int] = (-1, -1),
                          scale: float | None = None, enable_gqa: bool = False,
                          softcap: float = 0.0, sinks: Tensor | None = None,
                          deterministic: bool = False, return_lse: bool = False,
                          forward_group: dist.ProcessGroup | None = None, sm_margin: int = 0,
                          ) -> Tensor | tuple[Tensor, Tensor]:
    """ring_attention on a packed sequence of documents (attention within each document, as
    flash_ext.attention_varlen): query (T_local, Hq, D), key and value (T_local, Hkv, D), this
    rank's rows by `layout` of the T = W * T_local packed rows (shard(x, dim=0)), and
    cu_seqlens the documents' prefix sums over all T rows (a tensor or a list of ints, the
    same on every rank): documents may span shards. Returns this rank's rows of the output,
    (T_local, Hq, D); with return_lse also their fp32 log-sum-exp (Hq, T_local). is_causal and
    window_size within each document, in its own positions (as attention_varlen's); softcap,
    sinks, forward_group and sm_margin as in ring_attention."""
    _check(query, key, value, layout, enable_gqa, "(T_local, H, D)")
    _check_forward_group(group, forward_group)
    world, _ = group_size_rank(group)
    cu = _global_cu_seqlens(cu_seqlens, world * query.shape[0])
    attention = Varlen(_options(query, layout, is_causal, window_size, scale,
                                softcap, sinks, deterministic, sm_margin), cu, query.device)
    out, lse = _RingAttention.apply(query, key, value, sinks, attention, group, forward_group)
    return (out, lse) if return_lse else out
