"""Ring attention (flash_ext.distributed) over W ranks against one device doing the whole
sequence, with the ring's communication and compute timed apart, and torch's own context
parallel side by side.

    torchrun --standalone --nproc-per-node 2 benchmarks/bench_context_parallel.py --out DIR
    torchrun --standalone --nproc-per-node 2 benchmarks/bench_context_parallel.py \\
        --device cpu --seqlens 512 --heads 2 --iters 2     # a check of the script on the CPU

Cases: B = 1, H heads of D = 128 (default H = 16, model width 2048), bf16 on CUDA (float32 on
the CPU), total sequence S in --seqlens (default 32k to 256k), causal (zigzag layout) and not
(contiguous), forward and forward + backward. Columns, per case:
- ring: ring_attention on each rank's S / W rows; the slowest rank's time.
- one: flash_ext.attention on all S rows on one device (rank 0): the same total work.
  Scaling efficiency = one / (W x ring): 100% when W ranks take 1/W of the time.
- compute, comm: the ring's kernel calls with no exchange (the shard's own K/V in every step),
  and its exchanges with no kernel call (W - 1 K/V shards forward; backward also the W fp32
  dK/dV accumulators). Hidden = (compute + comm - ring) / comm: the share of the communication
  that ran under the compute.
- torch_cp: SDPA under torch.distributed.tensor.experimental.context_parallel on a 1-D mesh of
  the W devices (its own load balancing), where it runs; n/a with the reason otherwise.
Timing: warm-up, then the median of --iters calls, each between barriers (CUDA: synchronized);
the maximum over ranks. TFLOP/s counts 4 B H S^2 D (forward; x 3.5 forward + backward), halved
for causal, over the whole group. Target (issue 33): scaling efficiency >= 90% forward and
backward at S >= 64k.
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch
import torch.distributed as dist
import torch.nn.functional as F

import flash_ext
from flash_ext.distributed import ring_attention, shard
from flash_ext.distributed.layout import segments
from flash_ext.distributed.pairs import Dense, RingOptions
from flash_ext.distributed.ring import _Ring, _wait

HEAD_DIM = 128


def timed(fn: Callable[[], object], device: torch.device, iters: int) -> float:
    """Median seconds of fn over iters calls after two warm-up calls, the slowest rank's."""
    for _ in range(2):
        fn()
    times = []
    for _ in range(iters):
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        dist.barrier()
        start = time.perf_counter()
        fn()
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        times.append(time.perf_counter() - start)
    slowest = torch.tensor([statistics.median(times)], dtype=torch.float64)
    if device.type == "cuda":
        slowest = slowest.to(device)
    dist.all_reduce(slowest, op=dist.ReduceOp.MAX)
    return slowest.item()


def ring_parts(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, dout: torch.Tensor,
               causal: bool, layout: str, backward: bool, group: dist.ProcessGroup | None,
               forward_group: dist.ProcessGroup | None,
               sm_margin: int) -> tuple[Callable, Callable]:
    """The ring's compute with no exchange (its forward's kernels leaving sm_margin SMs free
    where the ring's would), and its exchanges with no compute (the forward's over
    forward_group, where given)."""
    ring = _Ring(group)
    forward_ring = ring if forward_group is None else _Ring(forward_group)
    attention = Dense(RingOptions(layout, -1, 0 if causal else -1, HEAD_DIM ** -0.5, False,
                                  sm_margin=sm_margin))
    local_len = q.shape[2]
    mine = segments(layout, ring.rank, ring.world, local_len)
    out, lse = torch.ops.flash_ext.attention_fwd(q, k, v, None, None, None, 0.0,
                                                 attention.options.scale, -1, -1, False, 0.0,
                                                 False)
    kv = torch.stack([k, v])
    dkv = torch.zeros(kv.shape, dtype=torch.float32, device=q.device)

    def compute():
        for step in range(ring.world):
            theirs = segments(layout, ring.owner(step), ring.world, local_len)
            for pair in attention.pairs(mine, theirs):
                attention.forward(q, k, v, pair, exchanging=step < ring.world - 1)
                if backward:
                    attention.backward(dout, q, k, v, out, lse, pair)

    def communicate():
        for _ in range(ring.world - 1):
            _wait(forward_ring.pass_on(kv)[1])
        if backward:
            for _ in range(ring.world - 1):
                _wait(ring.pass_on(kv)[1])
            for _ in range(ring.world):
                _wait(ring.pass_on(dkv)[1])

    return compute, communicate


def torch_cp(q, k, v, dout, causal: bool, backward: bool) -> Callable:
    """SDPA under torch's context_parallel on full-length q, k, v (it shards them itself)."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.experimental import context_parallel

    mesh = init_device_mesh(q.device.type, (dist.get_world_size(),))
    q, k, v, dout = (t.detach().clone() for t in (q, k, v, dout))

    def run():
        with context_parallel(mesh, buffers=[q, k, v, dout], buffer_seq_dims=[2, 2, 2, 2]):
            if not backward:
                with torch.no_grad():
                    F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                return
            # Leaves over the sharded buffers: the buffers themselves are resized back on exit.
            x = [t.detach().requires_grad_(True) for t in (q, k, v)]
            out = F.scaled_dot_product_attention(*x, is_causal=causal)
            torch.autograd.grad(out, x, dout)

    return run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    parser.add_argument("--seqlens", default="32768,65536,131072,262144",
                        help="total sequence lengths, comma-separated")
    parser.add_argument("--heads", type=int, default=16)
    parser.add_argument("--iters", type=int, default=5)
    parser.add_argument("--out", type=Path, default=None, help="folder for the markdown table")
    parser.add_argument("--max-ctas", type=int, default=0,
                        help="CUDA: run the ring on a NCCL group of its own whose kernels take at "
                             "most this many CTAs (SMs), leaving the rest to the attention "
                             "kernels (0: the default group)")
    parser.add_argument("--capped", choices=("all", "forward"), default="all",
                        help="with --max-ctas: the exchanges on that group, all of them or the "
                             "forward's only (ring_attention's forward_group)")
    parser.add_argument("--sm-margin", type=int, default=0,
                        help="ring_attention's sm_margin: SMs the forward's kernels leave free "
                             "while an exchange is in flight (CUDA; e.g. --max-ctas's value)")
    parser.add_argument("--high-priority", action="store_true",
                        help="with --max-ctas: that group's NCCL stream at high priority")
    args = parser.parse_args()
    cuda = args.device == "cuda"
    dist.init_process_group("nccl" if cuda else "gloo")
    world, rank = dist.get_world_size(), dist.get_rank()
    device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", 0))) if cuda \
        else torch.device("cpu")
    if cuda:
        torch.cuda.set_device(device)
    group = forward_group = None
    if cuda and args.max_ctas > 0:
        options = dist.ProcessGroupNCCL.Options()
        options.config.max_ctas = args.max_ctas
        options.is_high_priority_stream = args.high_priority
        capped = dist.new_group(backend="nccl", pg_options=options)
        if args.capped == "all":
            group = capped
        else:
            forward_group = capped
    dtype = torch.bfloat16 if cuda else torch.float32
    rows = []
    for seqlen in (int(s) for s in args.seqlens.split(",")):
        for causal in (False, True):
            layout = "zigzag" if causal else "contiguous"
            torch.manual_seed(0)
            shape = (1, args.heads, seqlen, HEAD_DIM)
            full = [torch.randn(shape, device=device, dtype=dtype) for _ in range(4)]
            q, k, v, dout = (shard(t, layout=layout) for t in full)
            for backward in (False, True):
                cells = {"S": seqlen, "causal": causal, "direction": "fwd+bwd" if backward
                         else "fwd"}

                def ring_call():
                    if not backward:
                        with torch.no_grad():
                            ring_attention(q, k, v, is_causal=causal, layout=layout,
                                           group=group, forward_group=forward_group,
                                           sm_margin=args.sm_margin)
                        return
                    x = [t.detach().requires_grad_(True) for t in (q, k, v)]
                    out = ring_attention(*x, is_causal=causal, layout=layout, group=group,
                                         forward_group=forward_group, sm_margin=args.sm_margin)
                    torch.autograd.grad(out, x, dout)

                def one_call():
                    if rank != 0:
                        return
                    if not backward:
                        with torch.no_grad():
                            flash_ext.attention(*full[:3], is_causal=causal)
                        return
                    x = [t.detach().requires_grad_(True) for t in full[:3]]
                    out = flash_ext.attention(*x, is_causal=causal)
                    torch.autograd.grad(out, x, full[3])

                compute, communicate = ring_parts(q, k, v, dout, causal, layout, backward,
                                                  group, forward_group, args.sm_margin)
                cells["ring"] = timed(ring_call, device, args.iters)
                cells["one"] = timed(one_call, device, args.iters)
                cells["compute"] = timed(compute, device, args.iters)
                cells["comm"] = timed(communicate, device, args.iters)
                try:
                    cells["torch_cp"] = timed(torch_cp(*full, causal, backward), device,
                                              args.iters)
                except Exception as exc:  # noqa: BLE001 - a peer that does not run shows n/a
                    reason = f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:80]}"
                    cells["torch_cp"] = f"n/a ({reason})"
                flops = 4 * args.heads * seqlen * seqlen * HEAD_DIM * (3.5 if backward else 1)
                cells["tflops"] = flops / (2 if causal else 1) / cells["ring"] / 1e12
                rows.append(cells)
                if rank == 0:
                    print(format_row(cells, world), flush=True)
    if rank == 0:
        table = render(rows, world, device, args)
        print(table)
        if args.out is not None:
            args.out.mkdir(parents=True, exist_ok=True)
            name = f"context_parallel_{datetime.date.today().isoformat()}.md"
            (args.out / name).write_text(table)
    dist.destroy_process_group()
    return 0


COLUMNS = ("S", "causal", "direction", "ring ms", "TFLOP/s", "one ms", "efficiency",
           "compute ms", "comm ms", "hidden", "torch_cp ms")


def ms(seconds: float | str) -> str:
    return f"{seconds * 1e3:.2f}" if isinstance(seconds, float) else seconds


def format_row(c: dict, world: int) -> str:
    hidden = (c["compute"] + c["comm"] - c["ring"]) / c["comm"] if c["comm"] > 0 else 1.0
    cells = (c["S"], "yes" if c["causal"] else "no", c["direction"], ms(c["ring"]),
             f"{c['tflops']:.1f}", ms(c["one"]), f"{c['one'] / (world * c['ring']):.0%}",
             ms(c["compute"]), ms(c["comm"]), f"{min(max(hidden, 0.0), 1.0):.0%}",
             ms(c["torch_cp"]))
    return "| " + " | ".join(str(x) for x in cells) + " |"


def render(rows: list[dict], world: int, device: torch.device, args) -> str:
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "CPU"
    header = ("# Ring attention: flash_ext.distributed vs one device and torch's context "
              f"parallel\n\n{world} x {name}; torch {torch.__version__}; B=1, H={args.heads}, "
              f"D={HEAD_DIM}; {datetime.date.today().isoformat()}.\n\nCommand: `torchrun "
              f"--nproc-per-node {world} {' '.join(sys.argv)}`\n\n")
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + " --- |" * len(COLUMNS)]
    return header + "\n".join(lines + [format_row(r, world) for r in rows]) + "\n"


if __name__ == "__main__":
    sys.exit(main())
