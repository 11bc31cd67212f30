"""Wave quantization: one shape's time as the number of heads (CTAs) grows, flash_ext beside
SDPA's cuDNN in one run.

A kernel of one CTA an SM whose tiles are of equal work runs ceil(CTAs / SMs) rounds; with
CTAs / SMs just over a whole number the last round keeps a few SMs busy while the rest wait.
Sweeping the head count H at a fixed (B, S, D) moves the CTA count in steps of one head's
tiles: where the time stays flat from H to H + 1 the last round was mostly idle, and TFLOP/s at
H + 1 over that at H says what filling it would give. The script prints time and TFLOP/s for
each H and provider and the ratio of each H's time to the time at the smallest H scaled by the
head count (1.00: time proportional to the work).

    python benchmarks/bench_waves.py --direction bwd --head-dim 64 --seqlen 16384 --heads 30-34
    python benchmarks/bench_waves.py --direction fwd_train --head-dim 64 --seqlen 1024 \
        --batch 16 --heads 30-34 --causal --out /tmp/waves

Timing, inputs and the correctness check are bench_attention.py's (its Case, providers and
runners); the providers run alternately, --runs times each.
"""

from __future__ import annotations

import argparse
import datetime
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_attention as ba  # noqa: E402  (the benchmark's cases, providers and timing)


def head_range(text: str) -> list[int]:
    """'30-34' or '30,32,33' -> the head counts."""
    heads: list[int] = []
    for part in text.split(","):
        first, _, last = part.partition("-")
        heads += range(int(first), int(last or first) + 1)
    if not heads or min(heads) < 1:
        raise argparse.ArgumentTypeError(f"--heads {text!r}: give counts >= 1 as 'a-b' or 'a,b'")
    return heads


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--direction", choices=("fwd", "fwd_train", "bwd"), default="bwd")
    parser.add_argument("--head-dim", type=int, default=64)
    parser.add_argument("--seqlen", type=int, default=16384)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--heads", type=head_range, default=head_range("30-34"))
    parser.add_argument("--causal", action="store_true")
    parser.add_argument("--providers", default=f"{ba.OURS},sdpa_cudnn",
                        help=f"comma-separated subset of {','.join(ba.PROVIDERS)}")
    parser.add_argument("--runs", type=int, default=2, help="timed runs a provider (default 2)")
    parser.add_argument("--rep-ms", type=float, default=200)
    parser.add_argument("--out", type=Path, help="directory for waves_<shape>_<date>.md")
    args = parser.parse_args(argv)
    unknown = set(args.providers.split(",")) - set(ba.PROVIDERS)
    if unknown:
        parser.error(f"--providers: unknown {', '.join(sorted(unknown))}; "
                     f"accepted: {', '.join(ba.PROVIDERS)}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not torch.cuda.is_available():
        print("bench_waves.py times CUDA kernels: no CUDA device here", file=sys.stderr)
        return 1
    providers = args.providers.split(",")
    shape = (f"{args.direction} B={args.batch} S={args.seqlen} D={args.head_dim} "
             f"{'causal' if args.causal else 'full'}")
    props = torch.cuda.get_device_properties(0)
    print(f"{shape}, heads {args.heads[0]}..{args.heads[-1]}, {props.name}, "
          f"{props.multi_processor_count} SMs", flush=True)
    rows = []
    mismatch = False
    for heads in args.heads:
        case = ba.Case("flash", args.batch, heads, args.seqlen, args.seqlen, args.head_dim,
                       args.causal)
        x = ba.make_inputs(case, "cuda", requires_grad=args.direction != "fwd")
        times: dict[str, list[float]] = {name: [] for name in providers}
        results, outputs = [], {}
        for _ in range(args.runs):
            for name in providers:
                result, out = ba.run_provider(
                    case, args.direction, name, x,
                    lambda run: ba.bench(run, warmup_ms=25, rep_ms=args.rep_ms))
                if result.error is not None:
                    print(f"H={heads} {name}: n/a: {result.error}", flush=True)
                    continue
                times[name].append(result.seconds)
                if name not in outputs:
                    results.append(result)
                    outputs[name] = out
        ba.check(results, outputs)
        mismatch |= any(r.mismatch for r in results)
        best = {name: min(t) for name, t in times.items() if t}
        rows.append((case, best))
        print(f"H={heads:3d}  " + "  ".join(
            f"{name} {s * 1e3:.3f} ms {case.rate(args.direction, s):.1f} TFLOP/s"
            for name, s in best.items()), flush=True)
        del x, outputs

    def cell(case: ba.Case, name: str, best: dict[str, float]) -> str:
        if name not in best:
            return "n/a"
        first_case, first_best = rows[0]
        scaled = first_best.get(name, float("nan")) * case.heads / first_case.heads
        return (f"{best[name] * 1e3:.3f} ms, {case.rate(args.direction, best[name]):.1f} "
                f"TFLOP/s, {best[name] / scaled:.3f}")

    lines = [f"# Wave sweep: {shape}", "",
             f"{props.name}, {props.multi_processor_count} SMs, torch {torch.__version__}, "
             f"{datetime.date.today()}. Each cell: the lower of {args.runs} alternating runs "
             f"(bench_attention.py's timing), TFLOP/s, and the time over the first row's "
             f"scaled by the head count.", "",
             "| H | " + " | ".join(providers) + " |",
             "| --- | " + " | ".join("---" for _ in providers) + " |"]
    lines += [f"| {case.heads} | " + " | ".join(cell(case, n, best) for n in providers) + " |"
              for case, best in rows]
    table = "\n".join(lines) + "\n"
    print(table)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        name = shape.replace(" ", "_").replace("=", "")
        (args.out / f"waves_{name}_{datetime.date.today()}.md").write_text(table)
    return 1 if mismatch else 0


if __name__ == "__main__":
    sys.exit(main())
