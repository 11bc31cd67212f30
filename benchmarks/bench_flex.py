"""flash_ext.flex_attention against torch's compiled FlexAttention, side by side in one run.

Cases (bfloat16, D = 128, 16k tokens per batch at model width 2048: B = 16384 / S, H = 16),
S in 4096 and 16384, forward and backward, each with its block mask:
- causal:    q_idx >= kv_idx
- sliding:   causal and q_idx - kv_idx <= 1024 (a sliding window of 1024 keys)
- document:  doc[b, q_idx] == doc[b, kv_idx], documents of random lengths (fixed seed) that
             differ per batch element; not causal
Providers: "flash_ext" (flash_ext.flex_attention with flash_ext.create_block_mask) and
"torch_flex" (torch.compile(torch.nn.attention.flex_attention.flex_attention) with torch's
create_block_mask), the same mask_mod for both.

TFLOP/s counts the visible (query, key) pairs exactly: 4 * B * H * D * pairs forward, 2.5x that
backward. Timing: triton.testing.do_bench, median, L2 flushed between calls; fwd under no_grad,
bwd = torch.autograd.grad of one retained forward graph (the backward alone). The first call
(torch.compile, flash_ext's code generation and Triton JIT) is excluded and reported. Outputs
(fwd) and gradients (bwd) of flash_ext are compared with torch's by |x - ref| / |ref|.

    python benchmarks/bench_flex.py                 # every case; table to benchmarks/results/
    python benchmarks/bench_flex.py --quick         # causal S=4096 only, nothing written
    python benchmarks/bench_flex.py --sweep         # flash_ext tile configs per case (tuning)
    python benchmarks/bench_flex.py --directions fwd --out DIR   # one direction: flex_DATE_fwd.md
    python benchmarks/bench_flex.py --merge A.jsonl B.jsonl     # one table + plot from split runs

Every measured row is also appended to OUT/flex_rows.jsonl as it is taken (a run cut short
keeps what it measured); the table comes with a plot (.png, TFLOP/s per case) when matplotlib
is there.
"""

from __future__ import annotations

import argparse
import datetime
import json
import time
from pathlib import Path

import torch
import triton
from torch.nn.attention.flex_attention import create_block_mask as torch_create_block_mask
from torch.nn.attention.flex_attention import flex_attention as torch_flex_attention
from triton.testing import do_bench

import flash_ext

RESULTS = Path(__file__).resolve().parent / "results"
DEVICE = "cuda"
TOKENS, WIDTH, HEAD_DIM, WINDOW = 16384, 2048, 128, 1024
SEQLENS = (4096, 16384)
MASKS = ("causal", "sliding", "document")
BWD_FLOP_FACTOR = 2.5
CHECK_TOL = 2e-2
# --sweep: flash_ext configs tried per case (kernel_options of flex_attention).
FWD_SWEEP = [{"BLOCK_M": m, "BLOCK_N": n, "num_warps": w, "num_stages": s}
             for m, n, w, s in [(128, 64, 8, 3), (128, 128, 8, 3), (128, 64, 4, 3),
                                (128, 128, 8, 2), (64, 64, 4, 3), (128, 32, 4, 3),
                                (128, 64, 8, 4), (128, 64, 8, 2)]]
BWD_SWEEP = [{"BLOCK_M1": m1, "BLOCK_N1": n1, "BLOCK_M2": m2, "BLOCK_N2": n2,
              "bwd_num_warps": w, "bwd_num_stages": s}
             for m1, n1, m2, n2, w, s in [(64, 128, 128, 64, 8, 3), (64, 128, 128, 64, 4, 3),
                                          (64, 64, 64, 64, 4, 3), (32, 128, 128, 32, 4, 3),
                                          (64, 128, 128, 64, 8, 2), (32, 64, 64, 32, 4, 3)]]
FWD_SWEEP.append({"USE_TMA": True})  # the default tiles with TMA loads
BWD_SWEEP.append({"USE_TMA": True})


def mask_mod_for(kind: str, batch: int, seqlen: int):
    """(mask_mod, visible pairs per batch element summed over the batch, mask depends on b)."""
    if kind == "causal":
        def causal(b, h, q_idx, kv_idx):
            return q_idx >= kv_idx

        return causal, batch * seqlen * (seqlen + 1) // 2, False
    if kind == "sliding":
        def sliding_window(b, h, q_idx, kv_idx):
            return (q_idx >= kv_idx) & (q_idx - kv_idx <= WINDOW)

        rows = torch.arange(seqlen)
        return sliding_window, batch * int(torch.clamp(rows + 1, max=WINDOW + 1).sum()), False
    generator = torch.Generator().manual_seed(0)
    ids, pairs = [], 0
    for _ in range(batch):
        cuts = torch.sort(torch.randperm(seqlen - 1, generator=generator)[:7] + 1).values
        lengths = torch.diff(torch.cat([torch.tensor([0]), cuts, torch.tensor([seqlen])]))
        pairs += int((lengths ** 2).sum())
        ids.append(torch.repeat_interleave(torch.arange(len(lengths)), lengths))
    doc = torch.stack(ids).to(DEVICE)

    def document(b, h, q_idx, kv_idx):
        return doc[b, q_idx] == doc[b, kv_idx]

    return document, pairs, True


def first_call(fn):
    """(fn(), seconds it took): the call that compiles."""
    torch.cuda.synchronize(DEVICE)
    start = time.perf_counter()
    result = fn()
    torch.cuda.synchronize(DEVICE)
    return result, time.perf_counter() - start


def rel_error(x, ref) -> float:
    return ((x.float() - ref.float()).norm() / ref.float().norm()).item()


def run_case(mask: str, seqlen: int, direction: str, sweep: bool) -> list[dict]:
    batch, heads = TOKENS // seqlen, WIDTH // HEAD_DIM
    mask_mod, pairs, per_batch = mask_mod_for(mask, batch, seqlen)
    flops = 4 * heads * HEAD_DIM * pairs * (BWD_FLOP_FACTOR if direction == "bwd" else 1)
    torch.manual_seed(0)
    q, k, v = (torch.randn(batch, heads, seqlen, HEAD_DIM, device=DEVICE, dtype=torch.bfloat16,
                           requires_grad=direction == "bwd") for _ in range(3))
    dout = torch.randn_like(q)
    mask_batch = batch if per_batch else None
    ours_mask = flash_ext.create_block_mask(mask_mod, mask_batch, None, seqlen, seqlen, DEVICE)
    torch_mask = torch_create_block_mask(mask_mod, mask_batch, None, seqlen, seqlen,
                                         device=DEVICE)
    # A fresh dynamo cache per case: otherwise the cases' recompiles of flex_attention reach
    # torch._dynamo's recompile limit (8) and the later ones run torch's eager fallback.
    torch._dynamo.reset()
    compiled = torch.compile(torch_flex_attention, dynamic=False)
    providers = {"torch_flex": lambda: compiled(q, k, v, block_mask=torch_mask)}
    configs = [None] + ((FWD_SWEEP if direction == "fwd" else BWD_SWEEP) if sweep else [])
    for options in configs:
        name = "flash_ext" if options is None else "flash_ext " + " ".join(
            f"{key}={value}" for key, value in options.items())
        providers[name] = (lambda o=options: flash_ext.flex_attention(
            q, k, v, block_mask=ours_mask, kernel_options=o))

    rows, reference = [], None
    for name, forward in providers.items():
        row = {"mask": mask, "S": seqlen, "B": batch, "H": heads, "direction": direction,
               "provider": name}
        try:
            if direction == "fwd":
                def step(forward=forward):
                    with torch.no_grad():
                        return (forward(),)
                result, first = first_call(step)
            else:
                out, first = first_call(forward)

                def step(out=out):
                    return torch.autograd.grad(out, (q, k, v), dout, retain_graph=True)
                result, first_bwd = first_call(step)
                first += first_bwd
            ms = do_bench(step, return_mode="median")
        except Exception as exc:  # noqa: BLE001 - a failing config is reported, the run goes on
            row.update(ms=None, error=str(exc).splitlines()[0][:120])
            rows.append(row)
            print(f"  {name}: error: {row['error']}", flush=True)
            continue
        if name == "torch_flex":
            reference = result
        err = None if reference is None else max(
            rel_error(x, r) for x, r in zip(result, reference))
        row.update(ms=ms, tflops=flops / ms / 1e9, first_s=first, rel_err=err)
        rows.append(row)
        flag = "" if err is None or err <= CHECK_TOL else "  MISMATCH"
        check = "no torch reference" if err is None else f"rel err {err:.1e}{flag}"
        print(f"  {name}: {ms:.3f} ms  {row['tflops']:.1f} TFLOP/s  first call {first:.1f} s  "
              f"{check}", flush=True)
    return rows


def table(rows: list[dict]) -> str:
    columns = ("mask", "S", "B x H", "pass", "flash_ext ms", "flash_ext TFLOP/s", "torch flex ms",
               "torch flex TFLOP/s", "speedup", "rel err")
    lines = ["| " + " | ".join(columns) + " |", "|" + " --- |" * len(columns)]
    keys = sorted({(r["mask"], r["S"], r["direction"]) for r in rows},
                  key=lambda k: (k[2] != "fwd", MASKS.index(k[0]), k[1]))
    for mask, seqlen, direction in keys:
        group = [r for r in rows if (r["mask"], r["S"], r["direction"]) == (mask, seqlen,
                                                                            direction)]
        ours = next((r for r in group if r["provider"] == "flash_ext"), None)
        theirs = next((r for r in group if r["provider"] == "torch_flex"), None)

        def cell(r, key, fmt):
            return "n/a" if r is None or r.get(key) is None else format(r[key], fmt)

        speedup = "n/a"
        if ours and theirs and ours.get("ms") and theirs.get("ms"):
            speedup = f"{theirs['ms'] / ours['ms']:.2f}x"
        b_h = f"{group[0]['B']} x {group[0]['H']}"
        lines.append(f"| {mask} | {seqlen} | {b_h} | {direction} | {cell(ours, 'ms', '.3f')} | "
                     f"{cell(ours, 'tflops', '.0f')} | {cell(theirs, 'ms', '.3f')} | "
                     f"{cell(theirs, 'tflops', '.0f')} | {speedup} | "
                     f"{cell(ours, 'rel_err', '.1e')} |")
    return "\n".join(lines)


def write_plot(rows: list[dict], path: Path, title: str) -> None:
    """One panel per direction: TFLOP/s of flash_ext and torch flex per (mask, S)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    directions = [d for d in ("fwd", "bwd") if any(r["direction"] == d for r in rows)]
    fig, axes = plt.subplots(1, len(directions), figsize=(7 * len(directions), 4.8),
                             squeeze=False)
    for ax, direction in zip(axes.flat, directions):
        cases = sorted({(r["mask"], r["S"]) for r in rows if r["direction"] == direction},
                       key=lambda c: (MASKS.index(c[0]), c[1]))
        for i, (provider, color) in enumerate((("flash_ext", "tab:blue"),
                                               ("torch_flex", "tab:orange"))):
            values = []
            for case in cases:
                r = next((r for r in rows if (r["mask"], r["S"]) == case and
                          r["direction"] == direction and r["provider"] == provider), None)
                values.append(r.get("tflops") or 0 if r else 0)
            xs = [g + (i - 0.5) * 0.4 for g in range(len(cases))]
            ax.bar(xs, values, 0.4, color=color, label=provider.replace("_", " "))
        ax.set_xticks(range(len(cases)), [f"{m}\nS={s // 1024}k" for m, s in cases])
        ax.set_title(direction)
        ax.set_ylabel("TFLOP/s (visible pairs)")
        ax.grid(axis="y", alpha=0.3)
        ax.set_axisbelow(True)
        ax.legend(loc="upper left", frameon=False)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_results(rows: list[dict], header: str, stem: Path) -> None:
    """stem.md (table) and stem.png (plot)."""
    stem.parent.mkdir(parents=True, exist_ok=True)
    stem.with_suffix(".md").write_text(
        "# flash_ext.flex_attention vs torch.compile(flex_attention)\n\n"
        f"{header}.\nCommand: `python benchmarks/bench_flex.py`. bfloat16, D = {HEAD_DIM}, "
        f"B = {TOKENS} / S, H = {WIDTH // HEAD_DIM}; TFLOP/s = 4 * B * H * D * visible "
        f"(q, k) pairs / time (x{BWD_FLOP_FACTOR} backward); speedup = torch time / "
        "flash_ext time; rel err = |flash_ext - torch| / |torch| of the output (fwd) or "
        "gradients (bwd). Median of triton.testing.do_bench.\n\n" + table(rows) + "\n")
    print(f"\nwrote {stem.with_suffix('.md')}")
    try:
        write_plot(rows, stem.with_suffix(".png"), header)
        print(f"wrote {stem.with_suffix('.png')}")
    except ImportError as exc:
        print(f"no plot: {exc}")


def merge(paths: list[Path], out: Path) -> None:
    """Table and plot from the flex_rows.jsonl of split runs (later rows replace earlier)."""
    rows: dict[tuple, dict] = {}
    header = None
    for path in paths:
        for line in path.read_text().splitlines():
            r = json.loads(line)
            header = r.pop("header", header)
            rows[(r["mask"], r["S"], r["direction"], r["provider"])] = r
    date = (header or "").rsplit("; ", 1)[-1] or datetime.date.today().isoformat()
    print(table(list(rows.values())))
    write_results(list(rows.values()), header or "", out / f"flex_{date}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="causal S=4096 only, not written")
    parser.add_argument("--sweep", action="store_true",
                        help="also time flash_ext with each config of FWD_SWEEP / BWD_SWEEP")
    parser.add_argument("--masks", default=",".join(MASKS))
    parser.add_argument("--seqlens", default=",".join(map(str, SEQLENS)))
    parser.add_argument("--directions", default="fwd,bwd")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder for the table")
    parser.add_argument("--merge", nargs="+", type=Path, metavar="JSONL",
                        help="no timing: table and plot from flex_rows.jsonl files")
    args = parser.parse_args()
    if args.merge:
        merge(args.merge, args.out)
        return
    masks = ["causal"] if args.quick else args.masks.split(",")
    seqlens = [4096] if args.quick else [int(s) for s in args.seqlens.split(",")]
    directions = args.directions.split(",")
    device = torch.cuda.get_device_name()
    header = (f"{device}; torch {torch.__version__}; triton {triton.__version__}; flash_ext "
              f"{flash_ext.__version__}; {datetime.date.today().isoformat()}")
    print(header, flush=True)
    rows = []
    args.out.mkdir(parents=True, exist_ok=True)
    for direction in directions:
        for mask in masks:
            for seqlen in seqlens:
                print(f"{mask} S={seqlen} {direction}", flush=True)
                case_rows = run_case(mask, seqlen, direction, args.sweep)
                rows += case_rows
                if not args.quick:
                    with open(args.out / "flex_rows.jsonl", "a") as f:
                        f.writelines(json.dumps({**r, "header": header}) + "\n"
                                     for r in case_rows)
    text = table(rows)
    print("\n" + text)
    bad = [r for r in rows if r.get("rel_err") is not None and r["rel_err"] > CHECK_TOL]
    if not args.quick and not args.sweep:
        part = "" if set(directions) == {"fwd", "bwd"} else "_" + "_".join(directions)
        write_results(rows, header, args.out / f"flex_{datetime.date.today().isoformat()}{part}")
    if bad:
        raise SystemExit(f"{len(bad)} result(s) differ from torch's by more than {CHECK_TOL}")


if __name__ == "__main__":
    main()
