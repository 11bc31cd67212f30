"""flash_ext's CPU backend against torch's CPU flash SDPA, side by side in one run.

Forward and forward+backward, float32 and bfloat16, causal and not, for the (B, H, S, D) rows of
the foundation issue; and decoding: one query token per sequence against Sk cached keys, with
GQA (B, Hq, Hkv, Sk, D), forward under no_grad, against torch's SDPA with enable_gqa. Each
measurement is the median of `--repeats` timed runs after a warm-up, the two contenders
interleaved run by run so that clock or load drift hits both alike. FLOPs: 4*B*H*S*S*D forward
(halved for causal), 2.5x that for the backward; decoding is counted in GB/s of K and V read.

    python benchmarks/bench_cpu.py              # full table, written to benchmarks/results/
    python benchmarks/bench_cpu.py --quick      # first shape in float32 only, nothing written

numpy's OpenBLAS starts a worker thread that busy-waits on the same cores (it made flash_ext's
(4, 8, 512, 64) forward 15% slower on a 2-core machine); OPENBLAS_NUM_THREADS=1, set here for
both contenders unless already set, keeps it out of the measurement.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402

import flash_ext  # noqa: E402

SHAPES = [(4, 8, 512, 64), (1, 8, 2048, 64), (1, 8, 2048, 128), (1, 4, 4096, 128)]
# (B, Hq, Hkv, Sk, D): Llama-style GQA at two batch sizes, MHA, and gpt-oss's 64 / 8 heads.
DECODE_SHAPES = [(1, 32, 8, 4096, 128), (8, 32, 8, 2048, 128), (4, 32, 32, 2048, 128),
                 (1, 64, 8, 8192, 64)]
DTYPES = [torch.float32, torch.bfloat16]
RESULTS = Path(__file__).resolve().parent / "results"


def ours(q, k, v, causal):
    return flash_ext.attention(q, k, v, is_causal=causal, backend="cpu")


def torch_flash(q, k, v, causal):
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)


def ours_decode(q, k, v):
    return flash_ext.attention(q, k, v, enable_gqa=True, backend="cpu")


def torch_decode(q, k, v):
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)


def interleaved_medians(runs, repeats):
    """Median seconds of each zero-argument run, after one warm-up call each, the runs taking
    turns so that drift hits them alike."""
    for run in runs:
        run()
    times = [[] for _ in runs]
    for _ in range(repeats):
        for run, record in zip(runs, times):
            start = time.perf_counter()
            run()
            record.append(time.perf_counter() - start)
    return tuple(statistics.median(t) for t in times)


def measure_decode(shape, dtype, repeats):
    """Median seconds of (flash_ext, torch) for one decoding step, under no_grad."""
    b, hq, hkv, sk, d = shape
    q = torch.randn(b, hq, 1, d, dtype=dtype)
    k, v = (torch.randn(b, hkv, sk, d, dtype=dtype) for _ in range(2))
    with torch.no_grad():
        return interleaved_medians([lambda fn=fn: fn(q, k, v) for fn in (ours_decode, torch_decode)],
                                   repeats)


def step(fn, q, k, v, causal, backward, grad_out):
    if not backward:
        with torch.no_grad():
            fn(q, k, v, causal)
        return
    out = fn(q, k, v, causal)
    torch.autograd.grad(out, (q, k, v), grad_out)


def measure(shape, dtype, causal, backward, repeats):
    """Median seconds of (flash_ext, torch) on the same fresh random inputs."""
    q, k, v = (torch.randn(shape, dtype=dtype, requires_grad=backward) for _ in range(3))
    grad_out = torch.randn(shape, dtype=dtype)
    return interleaved_medians(
        [lambda fn=fn: step(fn, q, k, v, causal, backward, grad_out) for fn in (ours, torch_flash)],
        repeats)


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="first shape in float32 only, nothing written")
    parser.add_argument("--repeats", type=int, default=None)
    args = parser.parse_args()
    repeats = args.repeats or (3 if args.quick else 7)
    shapes = SHAPES[:1] if args.quick else SHAPES
    dtypes = DTYPES[:1] if args.quick else DTYPES
    header = (f"CPU: {cpu_name()}, {os.cpu_count()} cores, {torch.get_num_threads()} threads; "
              f"torch {torch.__version__}; "
              f"flash_ext {flash_ext.__version__} (cpu kernels: {flash_ext.ops.CPU_ISA}"
              f"{', bfloat16 forward on AMX' if flash_ext.ops.cpu_amx() else ''}); "
              f"{datetime.date.today().isoformat()}; median of {repeats} runs")
    print(header, flush=True)
    rows = []
    cases = [(p, d, s, c) for p in ("fwd", "fwd+bwd") for d in dtypes for s in shapes
             for c in (False, True)]
    for i, (pass_, dtype, shape, causal) in enumerate(cases, 1):
        b, h, s, d = shape
        flops = 4 * b * h * s * s * d / (2 if causal else 1) * (3.5 if pass_ == "fwd+bwd" else 1)
        t_ours, t_torch = measure(shape, dtype, causal, pass_ == "fwd+bwd", repeats)
        row = (pass_, str(dtype).replace("torch.", ""), str(shape), str(causal),
               f"{t_ours * 1e3:.1f}", f"{flops / t_ours / 1e9:.1f}",
               f"{t_torch * 1e3:.1f}", f"{flops / t_torch / 1e9:.1f}", f"{t_torch / t_ours:.2f}x")
        rows.append(row)
        print(f"[{i}/{len(cases)}] " + "  ".join(row), flush=True)
    decode_rows = []
    decode_cases = [(d, s) for d in dtypes for s in (DECODE_SHAPES[:1] if args.quick
                                                     else DECODE_SHAPES)]
    for i, (dtype, shape) in enumerate(decode_cases, 1):
        b, hq, hkv, sk, d = shape
        kv_bytes = 2 * b * hkv * sk * d * torch.finfo(dtype).bits // 8
        t_ours, t_torch = measure_decode(shape, dtype, repeats)
        row = (str(dtype).replace("torch.", ""), str(shape), f"{t_ours * 1e3:.2f}",
               f"{kv_bytes / t_ours / 1e9:.1f}", f"{t_torch * 1e3:.2f}",
               f"{kv_bytes / t_torch / 1e9:.1f}", f"{t_torch / t_ours:.2f}x")
        decode_rows.append(row)
        print(f"[decode {i}/{len(decode_cases)}] " + "  ".join(row), flush=True)

    def markdown(columns, body):
        return "\n".join(["| " + " | ".join(columns) + " |", "|" + " --- |" * len(columns)]
                         + ["| " + " | ".join(r) + " |" for r in body])

    table = markdown(("pass", "dtype", "(B, H, S, D)", "causal", "flash_ext ms",
                      "flash_ext GFLOP/s", "torch ms", "torch GFLOP/s", "speedup"), rows)
    decode_table = markdown(("dtype", "(B, Hq, Hkv, Sk, D)", "flash_ext ms", "flash_ext GB/s",
                             "torch ms", "torch GB/s", "speedup"), decode_rows)
    print("\n" + table + "\n\nDecoding (Sq = 1, K and V read once):\n\n" + decode_table)
    if not args.quick:
        RESULTS.mkdir(exist_ok=True)
        path = RESULTS / f"cpu_{datetime.date.today().isoformat()}.md"
        path.write_text(
            "# CPU backend vs torch's CPU flash SDPA (sdpa_kernel(SDPBackend.FLASH_ATTENTION))\n\n"
            f"{header}.\nCommand: `python benchmarks/bench_cpu.py` "
            f"(OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}, "
            f"OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}). GFLOP/s counts "
            "4*B*H*S*S*D forward, halved for causal, x3.5 for forward+backward. speedup = "
            "torch time / flash_ext time.\n\n" + table + "\n\n## Decoding\n\nOne query "
            "token per sequence, q (B, Hq, 1, D) against k, v (B, Hkv, Sk, D), enable_gqa=True, "
            "forward under no_grad; GB/s = K and V bytes / time.\n\n" + decode_table + "\n")
        print(f"\nwrote {path}")


if __name__ == "__main__":
    main()
