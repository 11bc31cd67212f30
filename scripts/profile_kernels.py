"""Nsight Compute side by side: the kernels one benchmark row runs, for flash_ext and its peers.

The benchmarks say how fast a call is; this says why. It profiles one call of one row of
benchmarks/bench_attention.py (the same inputs, providers and directions) or, with --bench
decode, of benchmarks/bench_decode.py, under ncu, a process per provider, and prints a table
of every kernel the call launched: time, launch shape,
registers, shared memory, SM / DRAM / tensor pipe / issue throughput, L2 traffic and hit rate,
eligible and active warps a scheduler; then each kernel's largest stall reasons (cycles a warp
spends stalled per issued instruction, by reason). On the GPU machine:

    python scripts/profile_kernels.py --direction bwd --shapes '^D=64 S=4096 full$' \\
        --providers flash_ext,sdpa_cudnn --out "$OUT/prof"
    python scripts/profile_kernels.py --bench decode --shapes '^Sq=1 B=8 S=32768 Hq=32 Hkv=32' \
        --providers flash_ext,flash_ext_paged16,sdpa_cudnn

The call is warmed up three times outside the profiled range (cudaProfilerStart/Stop around
the fourth), with the GPU's clocks as they are (--clock-control none: this script never changes
the device's settings). Each provider's raw ncu CSV is kept beside the markdown table.
"""

from __future__ import annotations

import argparse
import csv
import io
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

# What ncu collects: the sections whose raw metrics the table reads, and a few metrics named
# outright (they are in no default section's raw page on every ncu version).
SECTIONS = ("SpeedOfLight", "LaunchStats", "Occupancy", "SchedulerStats", "WarpStateStats",
            "MemoryWorkloadAnalysis", "ComputeWorkloadAnalysis")
METRICS = ("gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum",
           "lts__t_sectors.sum", "lts__t_sector_hit_rate.pct")

# The table's columns: (heading, the raw metric's name or a pattern matched against the names).
COLUMNS = (
    ("us", "gpu__time_duration.sum"),
    ("grid", "launch__grid_size"),
    ("block", "launch__block_size"),
    ("regs", "launch__registers_per_thread"),
    ("smem/block", "launch__shared_mem_per_block_dynamic"),
    ("SM %", "sm__throughput.avg.pct_of_peak_sustained_elapsed"),
    ("DRAM %", "dram__throughput.avg.pct_of_peak_sustained_elapsed"),
    ("DRAM read", "dram__bytes_read.sum"),
    ("DRAM write", "dram__bytes_write.sum"),
    ("L2 sectors", "lts__t_sectors.sum"),
    ("L2 hit %", "lts__t_sector_hit_rate.pct"),
    ("tensor %", re.compile(r"sm__pipe_tensor_op_\w*cycles_active"
                            r"\.avg\.pct_of_peak_sustained_active")),
    ("issue %", "smsp__issue_active.avg.pct_of_peak_sustained_active"),
    # Pipes besides the tensor cores (ComputeWorkloadAnalysis): XU runs ex2 and the other
    # MUFU functions (16 a clock per SM), FMA and ALU the softmax's arithmetic.
    ("XU %", re.compile(r"sm__inst_executed_pipe_xu\w*\.avg\.pct_of_peak_sustained_active")),
    ("FMA %", re.compile(r"sm__(pipe_fma\w*cycles_active|inst_executed_pipe_fma\w*)"
                         r"\.avg\.pct_of_peak_sustained_active")),
    ("ALU %", re.compile(r"sm__(pipe_alu\w*cycles_active|inst_executed_pipe_alu\w*)"
                         r"\.avg\.pct_of_peak_sustained_active")),
    ("eligible warps", "smsp__warps_eligible.avg.per_cycle_active"),
    ("active warps", "smsp__warps_active.avg.per_cycle_active"),
)
# Stall reasons: cycles a warp waits per issued instruction, by reason (WarpStateStats).
STALL = re.compile(r"smsp__average_warp_latency_issue_stalled_(\w+)\.ratio$|"
                   r"smsp__average_warps_issue_stalled_(\w+)_per_issue_active\.ratio$")
TIME_UNITS = {"nsecond": 1e-3, "usecond": 1.0, "msecond": 1e3, "second": 1e6,
              "ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}


def _as_float(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


@dataclass
class Kernel:
    """One profiled launch: its name and raw metrics (name -> (value text, unit))."""

    provider: str
    name: str
    metrics: dict[str, tuple[str, str]] = field(default_factory=dict)

    def find(self, key: str | re.Pattern) -> tuple[str, str] | None:
        if isinstance(key, str):
            return self.metrics.get(key)
        # Several pipes' metrics can match (the tensor pipe's dmma, hmma and gmma variants): the
        # busiest is the one the kernel uses.
        matches = [self.metrics[name] for name in self.metrics if key.fullmatch(name)]
        return max(matches, key=lambda found: _as_float(found[0]) or 0.0, default=None)

    def number(self, key: str | re.Pattern) -> float | None:
        found = self.find(key)
        return None if found is None else _as_float(found[0])

    def microseconds(self) -> float | None:
        found, value = self.find("gpu__time_duration.sum"), self.number("gpu__time_duration.sum")
        if found is None or value is None or found[1] not in TIME_UNITS:
            return None
        return value * TIME_UNITS[found[1]]

    def stalls(self) -> list[tuple[str, float]]:
        """(reason, cycles per issued instruction), largest first."""
        found = []
        for name in self.metrics:
            m = STALL.match(name)
            value = self.number(name)
            if m and value is not None:
                found.append((m.group(1) or m.group(2), value))
        return sorted(found, key=lambda item: -item[1])


def parse_ncu_csv(text: str, provider: str) -> list[Kernel]:
    """ncu --csv --page raw output: a header row of metric names, a row of units, then a row a
    kernel launch (ncu's own log lines, starting with ==, are skipped)."""
    lines = [line for line in text.splitlines() if line.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    if len(rows) < 2:
        return []
    header, units, launches = rows[0], rows[1], rows[2:]
    kernels = []
    for row in launches:
        metrics = {name: (value, unit) for name, value, unit in zip(header, row, units)}
        kernels.append(Kernel(provider, metrics.get("Kernel Name", ("?", ""))[0], metrics))
    return kernels


def short(name: str, width: int = 60) -> str:
    """A kernel's name without its parameter list, cut to `width`."""
    name = re.sub(r"\(.*\)$", "", name.strip())
    return name if len(name) <= width else name[:width - 3] + "..."


def cell(kernel: Kernel, key: str | re.Pattern) -> str:
    if key == "gpu__time_duration.sum":
        us = kernel.microseconds()
        return "-" if us is None else f"{us:.1f}"
    found = kernel.find(key)
    if found is None:
        return "-"
    value, unit = found
    return f"{value} {unit}".strip() if unit in ("Kbyte", "Mbyte", "Gbyte", "byte") else value


def render(kernels: list[Kernel], stalls: int = 6) -> str:
    """The kernels' table, each provider's total kernel time, and the stall table."""
    if not kernels:
        return "no kernel was profiled\n"
    head = ["provider", "kernel"] + [h for h, _ in COLUMNS]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for k in kernels:
        cells = [k.provider, short(k.name)] + [cell(k, key) for _, key in COLUMNS]
        lines.append("| " + " | ".join(cells) + " |")
    totals = {}
    for k in kernels:
        totals[k.provider] = totals.get(k.provider, 0.0) + (k.microseconds() or 0.0)
    lines += ["", "Kernel time a call: " + ", ".join(f"{p} {t:.1f} us" for p, t in totals.items()),
              "", "| provider | kernel | largest stalls (cycles per issued instruction) |",
              "| --- | --- | --- |"]
    for k in kernels:
        top = ", ".join(f"{reason} {value:.2f}" for reason, value in k.stalls()[:stalls])
        lines.append(f"| {k.provider} | {short(k.name)} | {top or '-'} |")
    return "\n".join(lines) + "\n"


def ncu_command(ncu: str, args: argparse.Namespace, provider: str) -> list[str]:
    command = [ncu, "--profile-from-start", "off", "--clock-control", "none", "--csv",
               "--page", "raw"]
    for section in SECTIONS:
        command += ["--section", section]
    command += ["--metrics", ",".join(METRICS)]
    return command + [sys.executable, str(Path(__file__).resolve()), "--child", provider,
                      "--bench", args.bench, "--direction", args.direction,
                      "--shapes", args.shapes, "--num-splits", str(args.num_splits)]


def the_case(args: argparse.Namespace):
    """The one benchmark row --shapes picks (SystemExit naming what it picks otherwise)."""
    if args.bench == "decode":
        import bench_decode

        cases = [c for c in bench_decode.cases(False, float("inf"))
                 if re.search(args.shapes, c.name)]
        what = "bench_decode.py row"
    else:
        from bench_attention import select_cases

        cases = select_cases(args.shapes, False, [args.direction])
        what = f"{args.direction} row of bench_attention.py"
    if len(cases) != 1:
        names = ", ".join(c.name for c in cases[:8]) + (", ..." if len(cases) > 8 else "")
        raise SystemExit(f"--shapes {args.shapes!r} must pick one {what}; it picks: "
                         f"{names or 'none'}")
    return cases[0]


def the_call(args: argparse.Namespace, provider: str) -> Callable[[], object]:
    """The call one provider makes for the row, its inputs built on the GPU."""
    case = the_case(args)
    if args.bench == "decode":
        import bench_decode

        calls = bench_decode.providers(case, *bench_decode.make_inputs(case, "cuda"), False,
                                       "cuda", args.num_splits)
        if provider not in calls:
            raise SystemExit(f"--providers: {provider} is not a provider of {case.name}; it has: "
                             f"{', '.join(calls)}")
        return calls[provider]
    from bench_attention import PROVIDERS, RUNNERS, make_inputs

    x = make_inputs(case, "cuda", requires_grad=args.direction != "fwd")
    return RUNNERS[args.direction](PROVIDERS[provider](case, x), x)


def run_child(args: argparse.Namespace) -> None:
    """Under ncu: one row's call, warmed up, then once between cudaProfilerStart and Stop."""
    import torch

    run = the_call(args, args.child)
    for _ in range(3):
        run()
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    run()
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", default="attention", choices=("attention", "decode"),
                        help="the benchmark whose row is profiled")
    parser.add_argument("--direction", default="bwd", choices=("fwd", "fwd_train", "bwd"),
                        help="bench_attention.py's direction (decode: a forward call)")
    parser.add_argument("--shapes", required=True,
                        help="a regex picking one row of the benchmark (bench_attention.py "
                             "--list; bench_decode.py's case names)")
    parser.add_argument("--providers", default="flash_ext,sdpa_cudnn",
                        help="comma-separated providers of the benchmark")
    parser.add_argument("--num-splits", type=int, default=0,
                        help="decode: flash_ext's num_splits (default 0: the kernel chooses)")
    parser.add_argument("--out", type=Path, default=None, help="folder for the table and CSVs")
    parser.add_argument("--ncu", default=None, help="ncu executable (default: ncu on PATH)")
    parser.add_argument("--dry-run", action="store_true", help="print the ncu commands only")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child:
        run_child(args)
        return 0
    providers = [p.strip() for p in args.providers.split(",") if p.strip()]
    if args.bench == "attention":  # decode's providers depend on the row: its child checks
        from bench_attention import PROVIDERS

        unknown = [p for p in providers if p not in PROVIDERS]
        if unknown:
            raise SystemExit(f"--providers: unknown {', '.join(unknown)}; accepted: "
                             f"{', '.join(PROVIDERS)}")
    case = the_case(args)
    direction = "decode" if args.bench == "decode" else args.direction
    ncu = args.ncu or shutil.which("ncu") or "ncu"
    if args.dry_run:
        for provider in providers:
            print(" ".join(ncu_command(ncu, args, provider)))
        return 0
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    kernels = []
    for provider in providers:
        print(f"profiling {provider}: {case.name} {direction}", flush=True)
        done = subprocess.run(ncu_command(ncu, args, provider), capture_output=True, text=True)
        if args.out:
            (args.out / f"ncu_{provider}.csv").write_text(done.stdout + done.stderr)
        found = parse_ncu_csv(done.stdout, provider)
        if done.returncode != 0 or not found:
            tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
            print(f"{provider}: ncu exit status {done.returncode}, {len(found)} kernels\n  "
                  + "\n  ".join(tail), flush=True)
        kernels += found
    table = (f"# Kernels of one call: {case.name}, {direction}\n\n"
             f"Command: `python scripts/profile_kernels.py {shlex.join(sys.argv[1:])}`\n\n"
             + render(kernels))
    print(table)
    if args.out:
        (args.out / "profile.md").write_text(table)
    return 0 if kernels else 1


if __name__ == "__main__":
    sys.exit(main())
