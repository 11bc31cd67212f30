"""flash_ext.distributed: ring attention over gloo on the CPU, in 2 and 4 processes the tests
spawn. Each rank shards one random sequence, runs ring_attention forward and backward on its
shard, and the gathered output, lse and gradients must meet the float64 rule (attention_check)
against the reference on the whole sequence."""

from __future__ import annotations

import bisect
import collections
import dataclasses
import functools
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from attention_check import EPS, assert_rule, script_env

import flash_ext
from flash_ext.distributed import ring_attention, ring_attention_varlen, shard, unshard
from flash_ext.distributed.layout import Segment, segments
from flash_ext.distributed.merge import merge_torch, merge_triton
from flash_ext.distributed.pairs import RingOptions, Varlen, dense_pair
from flash_ext.distributed.ring import _global_cu_seqlens
from flash_ext.reference import attention_ref, attention_varlen_ref

pytestmark = pytest.mark.skipif(not dist.is_available() or not dist.is_gloo_available(),
                                reason="needs torch.distributed with gloo")


@dataclasses.dataclass(frozen=True)
class Case:
    layout: str
    is_causal: bool = False
    window_size: tuple[int, int] = (-1, -1)
    heads: tuple[int, int] = (4, 4)  # query heads, key/value heads
    seqlen: int = 96
    head_dim: int = 64
    batch: int = 2
    dtype: torch.dtype = torch.float32
    seed: int = 0
    softcap: float = 0.0
    sinks: bool = False
    head_dim_v: int | None = None  # value's head dim, when it differs


def check_sinks_grad(case, dsinks, sinks, ref64, ref_lowp, g) -> None:
    """The ranks' shares of the sinks' gradient, summed, against the reference's. The gradient
    sums terms -exp(sink - lse) g.out whose rounding errors may cancel in the reference run in
    the inputs' dtype, so the floor of the tolerance is the dtype's EPS times their magnitude
    (as tests/test_sinks.py does)."""
    total = dsinks.detach().clone()
    dist.all_reduce(total)
    row_sums = (g.double() * ref64["out"].detach()).abs().sum(-1)  # (B, H, S) or (T, H)
    lse = ref64["lse"].detach()  # (B, H, S) or (H, T)
    if row_sums.dim() == 2:
        row_sums = row_sums.t()
    else:
        row_sums, lse = (t.movedim(1, 0).flatten(1) for t in (row_sums, lse))
    terms = torch.exp(sinks.double().view(-1, 1) - lse) * row_sums  # (H, rows)
    magnitude = terms.sum(1).max().item()
    assert_rule(f"{case}: dsinks", total, ref64["dsinks"], ref_lowp["dsinks"],
                eps=EPS[case.dtype] * magnitude)


def check_against_reference(case, group_rank: int, reference, gathered: dict, grads, qkv,
                            sinks, g) -> None:
    """The gathered results (and the ranks' summed sinks' gradient) against reference(q, k, v,
    window_size=, softcap=, sinks=, compute_dtype=) on the whole sequence, by the rule."""
    left, right = case.window_size
    window = (left, 0) if case.is_causal else (left, right)

    def run(compute_dtype):
        x = [t.to(compute_dtype or case.dtype).requires_grad_(True) for t in qkv]
        if case.sinks:
            x.append(sinks.to(compute_dtype or torch.float32).requires_grad_(True))
        ref_out, ref_lse = reference(*x[:3], window_size=window, softcap=case.softcap,
                                     sinks=x[3] if case.sinks else None,
                                     compute_dtype=compute_dtype)
        ref_grads = torch.autograd.grad(ref_out, x, g.to(ref_out.dtype))
        return {"out": ref_out, "lse": ref_lse,
                **dict(zip(("dq", "dk", "dv", "dsinks"), ref_grads))}

    ref64, ref_lowp = run(torch.float64), run(None)
    for name, value in gathered.items():
        assert_rule(f"{case} rank {group_rank}: {name}", value, ref64[name], ref_lowp[name])
    if case.sinks:
        check_sinks_grad(case, grads[3], sinks, ref64, ref_lowp, g)


def run_case(case: Case, group_rank: int) -> None:
    """One case on every rank; every rank checks the gathered results."""
    torch.manual_seed(case.seed)  # the same full tensors on every rank
    heads_q, heads_kv = case.heads
    shape_q = (case.batch, heads_q, case.seqlen, case.head_dim)
    shape_kv = (case.batch, heads_kv, case.seqlen, case.head_dim)
    shape_v = (*shape_kv[:3], case.head_dim_v or case.head_dim)
    q, k, v = (torch.randn(s, dtype=case.dtype) for s in (shape_q, shape_kv, shape_v))
    g = torch.randn((*shape_q[:3], shape_v[3]), dtype=case.dtype)
    sinks = torch.randn(heads_q) if case.sinks else None
    local = [shard(t, layout=case.layout).requires_grad_(True) for t in (q, k, v)]
    assert torch.equal(unshard(local[0].detach(), layout=case.layout), q), "unshard(shard(q))"
    leaves = local + ([sinks.clone().requires_grad_(True)] if case.sinks else [])
    out, lse = ring_attention(*local, layout=case.layout, is_causal=case.is_causal,
                              window_size=case.window_size, enable_gqa=heads_q != heads_kv,
                              softcap=case.softcap, sinks=leaves[3] if case.sinks else None,
                              return_lse=True)
    grads = torch.autograd.grad(out, leaves, shard(g, layout=case.layout))
    results = {"out": out, "lse": lse, **dict(zip(("dq", "dk", "dv"), grads))}
    gathered = {name: unshard(t.detach(), layout=case.layout) for name, t in results.items()}

    check_against_reference(case, group_rank, attention_ref, gathered, grads, (q, k, v), sinks, g)


@dataclasses.dataclass(frozen=True)
class VarlenCase:
    layout: str
    documents: tuple[int, ...]  # lengths of the packed documents
    is_causal: bool = False
    window_size: tuple[int, int] = (-1, -1)
    heads: tuple[int, int] = (4, 4)
    head_dim: int = 64
    dtype: torch.dtype = torch.float32
    seed: int = 0
    softcap: float = 0.0
    sinks: bool = False
    head_dim_v: int | None = None


def run_varlen_case(case: VarlenCase, group_rank: int) -> None:
    torch.manual_seed(case.seed)
    total = sum(case.documents)
    cu = torch.tensor([0, *torch.tensor(case.documents).cumsum(0).tolist()], dtype=torch.int32)
    heads_q, heads_kv = case.heads
    q = torch.randn(total, heads_q, case.head_dim, dtype=case.dtype)
    k = torch.randn(total, heads_kv, case.head_dim, dtype=case.dtype)
    v = torch.randn(total, heads_kv, case.head_dim_v or case.head_dim, dtype=case.dtype)
    g = torch.randn(total, heads_q, v.shape[-1], dtype=case.dtype)
    sinks = torch.randn(heads_q) if case.sinks else None
    local = [shard(t, layout=case.layout, dim=0).requires_grad_(True) for t in (q, k, v)]
    leaves = local + ([sinks.clone().requires_grad_(True)] if case.sinks else [])
    out, lse = ring_attention_varlen(*local, cu, layout=case.layout, is_causal=case.is_causal,
                                     window_size=case.window_size,
                                     enable_gqa=heads_q != heads_kv, softcap=case.softcap,
                                     sinks=leaves[3] if case.sinks else None, return_lse=True)
    grads = torch.autograd.grad(out, leaves, shard(g, layout=case.layout, dim=0))
    gathered = {"out": unshard(out.detach(), layout=case.layout, dim=0),
                "lse": unshard(lse, layout=case.layout, dim=1)}
    for name, t in zip(("dq", "dk", "dv"), grads):
        gathered[name] = unshard(t, layout=case.layout, dim=0)
    reference = functools.partial(attention_varlen_ref, cu_seqlens_q=cu, cu_seqlens_k=cu)
    check_against_reference(case, group_rank, reference, gathered, grads, (q, k, v), sinks, g)


def worker(rank: int, world: int, init_file: str, cases: list[Case | VarlenCase]) -> None:
    dist.init_process_group("gloo", init_method=f"file://{init_file}", rank=rank,
                            world_size=world)
    try:
        for case in cases:
            (run_varlen_case if isinstance(case, VarlenCase) else run_case)(case, rank)
    finally:
        dist.destroy_process_group()


def spawn(world: int, cases: list[Case], tmp_path) -> None:
    mp.spawn(worker, args=(world, str(tmp_path / "init"), cases), nprocs=world, join=True)


def forward_group_worker(rank: int, world: int, init_file: str) -> None:
    """The forward's exchanges over a group of their own, its kernels leaving SMs to them
    (sm_margin, which the CPU kernels take and ignore): the same results, bit for bit, as over
    `group`; a group of other ranks and a negative sm_margin are refused before any exchange."""
    dist.init_process_group("gloo", init_method=f"file://{init_file}", rank=rank,
                            world_size=world)
    try:
        own = dist.new_group(backend="gloo")
        first_only = dist.new_group(ranks=[0], backend="gloo")
        torch.manual_seed(0)
        full = [torch.randn(2, 4, 64, 32) for _ in range(4)]
        runs = []
        for forward_group, sm_margin in ((None, 0), (own, 4)):
            x = [shard(t, layout="zigzag").requires_grad_(True) for t in full[:3]]
            out = ring_attention(*x, layout="zigzag", is_causal=True, forward_group=forward_group,
                                 sm_margin=sm_margin)
            runs.append((out, *torch.autograd.grad(out, x, shard(full[3], layout="zigzag"))))
        assert all(torch.equal(a, b) for a, b in zip(*runs))
        packed = [t.transpose(1, 2).reshape(-1, 4, 32) for t in full]
        cu = [0, 40, 90, 128]
        outs = [ring_attention_varlen(*(shard(t, dim=0) for t in packed[:3]), cu,
                                      forward_group=forward_group, sm_margin=sm_margin)
                for forward_group, sm_margin in ((None, 0), (own, 2))]
        assert torch.equal(*outs)
        if rank == 0:
            with pytest.raises(ValueError, match=r"forward_group: expected a group of group's "
                                                 r"ranks in its order \[0, 1\], got \[0\]"):
                ring_attention(*(shard(t) for t in full[:3]), forward_group=first_only)
            with pytest.raises(ValueError, match=r"sm_margin=-1: expected an int >= 0"):
                ring_attention(*(shard(t) for t in full[:3]), sm_margin=-1)
        dist.barrier()
    finally:
        dist.destroy_process_group()


def test_forward_group(tmp_path):
    mp.spawn(forward_group_worker, args=(2, str(tmp_path / "init")), nprocs=2, join=True)


CASES_2 = [
    Case("contiguous"),
    Case("contiguous", is_causal=True, heads=(4, 2)),
    Case("zigzag", is_causal=True),
    Case("zigzag", is_causal=True, heads=(6, 1), head_dim=40, window_size=(37, -1)),
    Case("contiguous", window_size=(20, 9), seqlen=100),
    Case("zigzag", window_size=(-1, 13), heads=(4, 2)),
    Case("zigzag", is_causal=True, dtype=torch.bfloat16, seed=1),
    Case("contiguous", is_causal=True, seqlen=2, batch=1),
    # Documents within a shard, across shards, over a whole shard, one row long, empty.
    VarlenCase("contiguous", (10, 37, 0, 49, 1, 47)),
    VarlenCase("zigzag", (10, 37, 0, 49, 1, 47), is_causal=True, heads=(4, 2)),
    VarlenCase("contiguous", (96,), is_causal=True),
    VarlenCase("zigzag", (5, 91), is_causal=True, dtype=torch.bfloat16, heads=(2, 1)),
    # Windows: within a shard's documents and over the document that spans two segments.
    VarlenCase("contiguous", (10, 37, 0, 49, 1, 47), window_size=(7, 20)),
    VarlenCase("zigzag", (10, 37, 0, 49, 1, 47), is_causal=True, window_size=(30, -1),
               heads=(4, 2)),
    VarlenCase("zigzag", (80, 30, 0, 62), window_size=(-1, 3)),
    # gpt-oss (sinks, a window) and Gemma 2 (softcap) layers.
    Case("zigzag", is_causal=True, window_size=(31, -1), heads=(4, 2), sinks=True),
    Case("contiguous", softcap=5.0, sinks=True, dtype=torch.bfloat16, seed=2),
    VarlenCase("zigzag", (10, 37, 0, 49, 1, 47), is_causal=True, window_size=(20, -1),
               sinks=True, softcap=3.0),
    # DeepSeek-V3's head dims (192 / 128; the CPU kernels take them).
    Case("zigzag", is_causal=True, head_dim=48, head_dim_v=32, heads=(4, 2)),
    VarlenCase("contiguous", (10, 37, 0, 49, 1, 47), is_causal=True, head_dim=48,
               head_dim_v=24, sinks=True),
]
CASES_4 = [
    Case("zigzag", is_causal=True, heads=(4, 2), seqlen=160),
    Case("contiguous", seqlen=160),
    Case("contiguous", is_causal=True, window_size=(50, -1), seqlen=160),
    Case("zigzag", window_size=(30, 30), seqlen=160, head_dim=32),
    VarlenCase("zigzag", (3, 50, 27, 0, 60, 20), is_causal=True, heads=(4, 1)),
    VarlenCase("contiguous", (70, 90)),
    VarlenCase("zigzag", (3, 50, 27, 0, 60, 20), is_causal=True, window_size=(25, -1)),
    VarlenCase("contiguous", (160,), window_size=(45, 45)),
]


@pytest.mark.parametrize("world, cases", [(2, CASES_2), (4, CASES_4)], ids=["2 ranks", "4 ranks"])
def test_matches_reference(world, cases, tmp_path):
    spawn(world, cases, tmp_path)


def test_one_rank(tmp_path):
    spawn(1, [Case("contiguous", is_causal=True), Case("zigzag", window_size=(5, 3)),
              VarlenCase("zigzag", (7, 0, 33), is_causal=True)], tmp_path)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16],
                         ids=["fp32", "bf16", "fp16"])
@pytest.mark.parametrize("layout", ["dense", "varlen"])
def test_merge_one_pass(layout, dtype):
    """The ring's one-pass merge (Triton; on CPU tensors in its interpreter) against torch's ops
    on the views the ring passes: a row slice of the accumulators, a pair's out with strides of
    its own (v head dim 72, not a power of two), rows that saw no key on either side or on one,
    and a NaN in out and in lse propagated as torch's ops propagate it."""
    device = "cuda" if torch.cuda.is_available() else "cpu"
    if layout == "dense":  # acc (B, H, S, Dv), the pair's rows along S
        acc_out = torch.randn(2, 3, 40, 72, device=device)
        acc_lse = torch.randn(2, 3, 40, device=device)
        sl = (slice(None), slice(None), slice(5, 33))
        out = torch.randn(2, 28, 3, 72, device=device).to(dtype).transpose(1, 2)
        lse = torch.randn(2, 28, 3, device=device).transpose(1, 2)
    else:  # acc (T, H, Dv), lse (T, H) while merging
        acc_out = torch.randn(50, 3, 72, device=device)
        acc_lse = torch.randn(3, 50, device=device).t()
        sl = (slice(7, 35),)
        out = torch.randn(28, 3, 72, device=device).to(dtype)
        lse = torch.randn(3, 28, device=device).t()
    view_lse, view_out = acc_lse[sl], acc_out[sl]
    flat = torch.arange(view_lse.numel(), device=device).view(view_lse.shape)
    pick = lambda i: flat == i  # noqa: E731 (one row of the pair, by its flat index)
    view_lse[pick(0)] = float("-inf")  # no key so far ...
    view_out[pick(0)] = 0.0
    lse[pick(0)] = float("-inf")  # ... nor in this pair: stays 0, -inf
    view_lse[pick(1)] = float("-inf")  # only this pair's keys
    view_out[pick(1)] = 0.0
    lse[pick(2)] = float("-inf")  # only the earlier keys
    out[pick(3)] = float("nan")
    lse[pick(4)] = float("nan")
    expected_out, expected_lse = acc_out.clone(), acc_lse.clone()
    merge_torch(expected_out[sl], expected_lse[sl], out, lse)
    merge_triton(acc_out[sl], acc_lse[sl], out, lse)
    torch.testing.assert_close(acc_lse, expected_lse, rtol=1e-6, atol=1e-6, equal_nan=True)
    torch.testing.assert_close(acc_out, expected_out, rtol=1e-5, atol=1e-6, equal_nan=True)
    assert torch.isnan(acc_out[sl][pick(3)]).all() and torch.isnan(acc_out[sl][pick(4)]).all()
    assert (acc_out[sl][pick(0)] == 0).all() and acc_lse[sl][pick(0)].item() == float("-inf")


def test_pair_windows():
    """dense_pair's slices and top-left windows give each (query, key) of two segments exactly
    the global mask, for segments at any offsets (the layouts only make aligned ones)."""
    generator = torch.Generator().manual_seed(0)

    def draw(low, high):
        return int(torch.randint(low, high, (1,), generator=generator))

    for _ in range(3000):
        qs, ks = (Segment(draw(0, 60), draw(1, 20), draw(0, 5)) for _ in range(2))
        left, right = (int(w) for w in torch.tensor([-1, 0, 1, 3, 10, 40])[
            torch.randint(0, 6, (2,), generator=generator)])
        pair = dense_pair(qs, ks, left, right)
        for a in range(qs.length):
            for b in range(ks.length):
                i, j = qs.start + a, ks.start + b
                want = (right < 0 or j <= i + right) and (left < 0 or j >= i - left)
                got = False
                row, col = qs.offset + a, ks.offset + b
                if (pair is not None and pair.q_rows.start <= row < pair.q_rows.stop
                        and pair.k_rows.start <= col < pair.k_rows.stop):
                    a2, b2 = row - pair.q_rows.start, col - pair.k_rows.start
                    got = ((pair.window_right < 0 or b2 <= a2 + pair.window_right)
                           and (pair.window_left < 0 or b2 >= a2 - pair.window_left))
                assert got == want, (qs, ks, left, right, a, b, pair)


def test_varlen_pair_windows():
    """Varlen.pairs' sequences and windows give each (query, key) of a rank's rows and a shard's
    exactly the global rule (same document, within the window), once, for random documents,
    both layouts and 2 or 4 ranks."""
    generator = torch.Generator().manual_seed(1)
    for trial in range(300):
        world = (2, 4)[trial % 2]
        layout = ("contiguous", "zigzag")[trial // 2 % 2]
        local_len = 2 * int(torch.randint(1, 12, (1,), generator=generator))
        total = world * local_len
        cuts = sorted(torch.randint(0, total + 1, (int(torch.randint(0, 6, (1,),
                                                                     generator=generator)),),
                                    generator=generator).tolist())
        cu = [0, *cuts, total]
        left, right = (int(w) for w in torch.tensor([-1, 0, 1, 3, 10])[
            torch.randint(0, 5, (2,), generator=generator)])
        attention = Varlen(RingOptions(layout, left, right, 1.0, False), cu, "cpu")

        def global_rows(segs):
            return {seg.offset + x: seg.start + x for seg in segs for x in range(seg.length)}

        document = [bisect.bisect_right(cu, i) - 1 for i in range(total)]
        for rank in range(world):
            mine = segments(layout, rank, world, local_len)
            for owner in range(world):
                theirs = segments(layout, owner, world, local_len)
                q_global, k_global = global_rows(mine), global_rows(theirs)
                got = collections.Counter()
                for pair in attention.pairs(mine, theirs):
                    cq, ck = pair.cu_seqlens_q.tolist(), pair.cu_seqlens_k.tolist()
                    for s in range(len(cq) - 1):
                        for a in range(cq[s + 1] - cq[s]):
                            for b in range(ck[s + 1] - ck[s]):
                                if ((pair.window_right < 0 or b <= a + pair.window_right) and
                                        (pair.window_left < 0 or b >= a - pair.window_left)):
                                    got[q_global[pair.q_rows.start + cq[s] + a],
                                        k_global[pair.k_rows.start + ck[s] + b]] += 1
                want = {(i, j) for i in q_global.values() for j in k_global.values()
                        if document[i] == document[j] and (right < 0 or j <= i + right)
                        and (left < 0 or j >= i - left)}
                assert set(got) == want and set(got.values()) <= {1}, (
                    cu, layout, world, rank, owner, left, right)


def test_errors():
    q = torch.randn(1, 4, 8, 16)
    with pytest.raises(ValueError, match="layout='diagonal'"):
        ring_attention(q, q, q, layout="diagonal")
    with pytest.raises(ValueError, match="enable_gqa=True"):
        ring_attention(q, q[:, :2], q[:, :2])
    with pytest.raises(ValueError, match="local sequence length must be even"):
        ring_attention(q[:, :, :7], q[:, :, :7], q[:, :, :7], layout="zigzag")
    with pytest.raises(ValueError, match="same shape but for the head dim"):
        ring_attention(q, q, q[:, :2])
    with pytest.raises(ValueError, match="shards queries and keys alike"):
        ring_attention(q, q[:, :, :4], q[:, :, :4])
    with pytest.raises(ValueError, match="window_size"):
        ring_attention(q, q, q, window_size=(-2, 0))
    with pytest.raises(ValueError, match="softcap=-1.0"):
        ring_attention(q, q, q, softcap=-1.0)
    with pytest.raises(ValueError, match=r"sinks: expected a tensor of shape \(4,\)"):
        ring_attention(q, q, q, sinks=torch.zeros(2))
    with pytest.raises(ValueError, match="sinks: expected torch.float32"):
        ring_attention(q, q, q, sinks=torch.zeros(4, dtype=torch.float64))
    with pytest.raises(ValueError, match="torch.float64 on cpu"):
        ring_attention(q.double(), q.double(), q.double())
    with pytest.raises(ValueError, match="expected a 3-D tensor"):
        ring_attention_varlen(q, q, q, [0, 8])
    for cu in ([0, 5, 3, 10], [1, 10], [0, 9], [0, 2.5, 10]):
        with pytest.raises(ValueError, match="cu_seqlens"):
            _global_cu_seqlens(cu, 10)
    if not dist.is_initialized():
        with pytest.raises(RuntimeError, match="init_process_group"):
            shard(q)
        with pytest.raises(RuntimeError, match="init_process_group"):
            ring_attention(q, q, q)


def test_public_names():
    assert flash_ext.distributed.ring_attention is ring_attention


def test_example_block():
    """examples/ring_attention_block.py under torchrun (2 ranks, gloo): the sharded transformer
    block's output and parameter gradients match the block on the whole sequence."""
    script = Path(__file__).resolve().parent.parent / "examples" / "ring_attention_block.py"
    result = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2",
         str(script), "--seqlen", "64"], capture_output=True, text=True, timeout=300,
        env=script_env())
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert ": ok" in result.stdout, result.stdout[-3000:]


def test_bench_context_parallel_runs():
    """benchmarks/bench_context_parallel.py end to end on the CPU (2 ranks, gloo, a tiny size):
    the script the GPU run uses stays runnable."""
    script = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_context_parallel.py"
    result = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2",
         str(script), "--device", "cpu", "--seqlens", "128", "--heads", "1", "--iters", "1"],
        capture_output=True, text=True, timeout=300, env=script_env())
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "| 128 | yes | fwd+bwd |" in result.stdout, result.stdout[-3000:]
