"""How one rank's queries attend to the keys of one shard: the pairs of segments (layout.py)
that see something, the slices and mask that put the global mask on them, and the kernels' ops
that run them (flash_ext::attention_fwd/bwd and their varlen forms: the CPU kernel on CPU
tensors, the flash kernel on CUDA).

Dense (B, H, S, D) shards: a causal mask or window in global positions becomes, for each pair,
a slice of the query and key rows and a top-left window on them. Varlen (T, H, D) shards of a
packed sequence of documents: each pair runs the documents that both segments hold, as the
varlen kernels' sequences. The layouts' segments are equal, aligned chunks, two of them the same
or disjoint: a segment against itself holds each document's rows on both sides alike, so the
window applies as it is; two disjoint segments share one document at most (the one that holds
the rows between them), whose two parts take the window the way dense pairs do.
"""

from __future__ import annotations

import bisect
import itertools
from dataclasses import dataclass

import torch
from torch import Tensor

from flash_ext.distributed.layout import Segment


@dataclass(frozen=True)
class RingOptions:
    layout: str
    window_left: int  # -1: unbounded; as flash_ext.attention's window_size, in global rows
    window_right: int  # 0: causal
    scale: float
    deterministic: bool
    softcap: float = 0.0  # > 0: score = softcap * tanh(scale * q.k / softcap)
    sm_margin: int = 0  # SMs the forward's kernels leave free while an exchange is in flight


def rows(t: Tensor, dim: int, index: slice) -> Tensor:
    """t's rows `index` along dim (a view)."""
    return t[(slice(None),) * dim + (index,)]


@dataclass(frozen=True)
class DensePair:
    """A query slice attending to a key slice of the shards, with the kernels' top-left window
    that puts the global mask on them."""

    q_rows: slice
    k_rows: slice
    window_left: int
    window_right: int


def dense_pair(q_seg: Segment, k_seg: Segment, window_left: int,
               window_right: int) -> DensePair | None:
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
    return DensePair(slice(q_seg.offset + q0, q_seg.offset + q1),
                     slice(k_seg.offset + k0, k_seg.offset + k1),
                     -1 if lo is None else -(lo - k0 + q0),
                     -1 if hi is None else hi - k0 + q0)


class Dense:
    """(B, H, S_local, D) shards; lse (B, H, S_local)."""

    row_dim = 2

    def __init__(self, options: RingOptions):
        self.options = options

    def pairs(self, q_segments: list[Segment], k_segments: list[Segment]) -> list[DensePair]:
        found = (dense_pair(qs, ks, self.options.window_left, self.options.window_right)
                 for qs in q_segments for ks in k_segments)
        return [p for p in found if p is not None]

    def new_lse(self, q: Tensor) -> Tensor:
        return torch.full(q.shape[:3], float("-inf"), dtype=torch.float32, device=q.device)

    def per_head(self, x: Tensor) -> Tensor:
        """A (H,) tensor viewed to broadcast against the lse: (1, H, 1)."""
        return x.view(1, -1, 1)

    def final_lse(self, acc_lse: Tensor) -> Tensor:
        return acc_lse

    def forward(self, q: Tensor, k: Tensor, v: Tensor, pair: DensePair,
                exchanging: bool = False) -> tuple[Tensor, Tensor]:
        """exchanging: a K/V exchange is in flight (the kernels leave options.sm_margin SMs)."""
        o = self.options
        return torch.ops.flash_ext.attention_fwd(
            rows(q, 2, pair.q_rows), rows(k, 2, pair.k_rows), rows(v, 2, pair.k_rows), None, None,
            None, 0.0, o.scale, pair.window_left, pair.window_right, False, o.softcap,
            o.deterministic, None, o.sm_margin if exchanging else 0)

    def backward(self, dout: Tensor, q: Tensor, k: Tensor, v: Tensor, out: Tensor, lse: Tensor,
                 pair: DensePair) -> tuple[Tensor, Tensor, Tensor]:
        o, r, c = self.options, pair.q_rows, pair.k_rows
        dq, dk, dv, _ = torch.ops.flash_ext.attention_bwd(
            rows(dout, 2, r), rows(q, 2, r), rows(k, 2, c), rows(v, 2, c), rows(out, 2, r),
            rows(lse, 2, r), None, None, None, 0.0, o.scale, pair.window_left, pair.window_right,
            False, o.softcap, o.deterministic)
        return dq, dk, dv


@dataclass(frozen=True)
class VarlenPair:
    """The documents both segments hold: their query rows and key rows of the shards (each a
    run of whole parts), the parts' prefix sums and longest lengths, and the kernels' top-left
    window on each of those sequences."""

    q_rows: slice
    k_rows: slice
    cu_seqlens_q: Tensor
    cu_seqlens_k: Tensor
    max_seqlen_q: int
    max_seqlen_k: int
    window_left: int
    window_right: int


class Varlen:
    """(T_local, H, D) shards of a packed sequence whose documents are given by the global
    prefix sums cu_seqlens (host ints); lse (H, T_local)."""

    row_dim = 0

    def __init__(self, options: RingOptions, cu_seqlens: list[int], device: torch.device):
        self.options = options
        self.cu_seqlens = cu_seqlens
        self.device = device

    def _documents(self, seg: Segment) -> tuple[int, int]:
        """The documents [first, last] that rows of seg lie in."""
        start, stop = seg.start, seg.start + seg.length
        return (bisect.bisect_right(self.cu_seqlens, start) - 1,
                bisect.bisect_left(self.cu_seqlens, stop) - 1)

    def _parts(self, seg: Segment, first: int, last: int) -> tuple[slice, list[int]]:
        """seg's rows of documents first..last: their slice of the shard and their lengths."""
        start, stop = seg.start, seg.start + seg.length
        cu = self.cu_seqlens
        lengths = [max(0, min(stop, cu[d + 1]) - max(start, cu[d])) for d in range(first, last + 1)]
        begin = max(start, cu[first]) - start + seg.offset
        return slice(begin, begin + sum(lengths)), lengths

    def _part(self, seg: Segment, document: int) -> Segment:
        """The rows of `document` that seg holds, as a segment of their own."""
        start = max(seg.start, self.cu_seqlens[document])
        stop = min(seg.start + seg.length, self.cu_seqlens[document + 1])
        return Segment(start, max(0, stop - start), seg.offset + start - seg.start)

    def _prefix(self, lengths: list[int]) -> Tensor:
        return torch.tensor([0, *itertools.accumulate(lengths)], dtype=torch.int32,
                            device=self.device)

    def pairs(self, q_segments: list[Segment], k_segments: list[Segment]) -> list[VarlenPair]:
        left, right = self.options.window_left, self.options.window_right
        found = []
        for qs in q_segments:
            for ks in k_segments:
                q_first, q_last = self._documents(qs)
                k_first, k_last = self._documents(ks)
                first, last = max(q_first, k_first), min(q_last, k_last)
                if first > last:
                    continue
                if qs.start != ks.start:
                    # One document at most has rows in both (empty ones give no pair).
                    for document in range(first, last + 1):
                        pair = dense_pair(self._part(qs, document), self._part(ks, document),
                                          left, right)
                        if pair is not None:
                            found.append(self._single(pair))
                    continue
                q_rows, q_lengths = self._parts(qs, first, last)
                k_rows, k_lengths = self._parts(ks, first, last)
                # Empty documents between: no rows in either segment, no sequence for the kernels.
                q_lengths, k_lengths = (list(t) for t in zip(
                    *((a, b) for a, b in zip(q_lengths, k_lengths) if a or b)))
                found.append(VarlenPair(q_rows, k_rows, self._prefix(q_lengths),
                                        self._prefix(k_lengths), max(q_lengths), max(k_lengths),
                                        left, right))
        return found

    def _single(self, pair: DensePair) -> VarlenPair:
        """A dense pair's slices as one varlen sequence."""
        q_len = pair.q_rows.stop - pair.q_rows.start
        k_len = pair.k_rows.stop - pair.k_rows.start
        return VarlenPair(pair.q_rows, pair.k_rows, self._prefix([q_len]), self._prefix([k_len]),
                          q_len, k_len, pair.window_left, pair.window_right)

    def new_lse(self, q: Tensor) -> Tensor:  # (T, H) while merging
        return torch.full(q.shape[:2], float("-inf"), dtype=torch.float32, device=q.device)

    def per_head(self, x: Tensor) -> Tensor:
        """A (H,) tensor viewed to broadcast against the lse while merging, (T, H): (1, H)."""
        return x.view(1, -1)

    def final_lse(self, acc_lse: Tensor) -> Tensor:
        return acc_lse.t().contiguous()

    def forward(self, q: Tensor, k: Tensor, v: Tensor, pair: VarlenPair,
                exchanging: bool = False) -> tuple[Tensor, Tensor]:
        o = self.options
        out, lse = torch.ops.flash_ext.attention_varlen_fwd(
            q[pair.q_rows], k[pair.k_rows], v[pair.k_rows], pair.cu_seqlens_q, pair.cu_seqlens_k,
            pair.max_seqlen_q, pair.max_seqlen_k, None, None, 0.0, o.scale, pair.window_left,
            pair.window_right, False, o.softcap, o.deterministic, None,
            o.sm_margin if exchanging else 0)
        return out, lse.t()

    def backward(self, dout: Tensor, q: Tensor, k: Tensor, v: Tensor, out: Tensor, lse: Tensor,
                 pair: VarlenPair) -> tuple[Tensor, Tensor, Tensor]:
        o, r, c = self.options, pair.q_rows, pair.k_rows
        dq, dk, dv, _ = torch.ops.flash_ext.attention_varlen_bwd(
            dout[r], q[r], k[c], v[c], out[r], lse[:, r].contiguous(), pair.cu_seqlens_q,
            pair.cu_seqlens_k, pair.max_seqlen_q, pair.max_seqlen_k, None, None, 0.0, o.scale,
            pair.window_left, pair.window_right, False, o.softcap, o.deterministic)
        return dq, dk, dv
