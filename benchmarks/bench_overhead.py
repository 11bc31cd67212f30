"""Host time per call: flash_ext's entry points against torch's SDPA on the same tiny inputs.

Where the kernel is short (short sequences, decoding), what a call costs on the host is the
call's cost. Each entry point is timed side by side with F.scaled_dot_product_attention on the
same inputs ((1, 1, 1, D), D = 8 on the CPU and 64 on the GPU, causal; the varlen entries on one sequence of that size, against
SDPA on its dense view): the forward without grad, the forward of inputs that require grad (as
training runs it), and the backward call (torch.autograd.grad through the output). Times are
host microseconds per call: many calls back to back, one synchronization at the end, the median
over repeats. Run on the CPU and, where there is one, on the GPU.

    python benchmarks/bench_overhead.py [--calls 2000] [--repeats 15] [--out results.md]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from collections.abc import Callable

import torch
import torch.nn.functional as F

import flash_ext
from bench_cpu import cpu_name

ENTRIES = ("attention", "flash_attn_func", "attention_varlen", "flash_attn_varlen_func")
MODES = ("forward, no grad", "forward, requires grad", "backward call")
# Head dim of the tiny inputs: the 8 on the CPU; 64 on the GPU, a flash kernel that
# every development build has (8 runs in the 32 kernel).
HEAD_DIMS = {"cpu": 8, "cuda": 64}


def sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def per_call_us(fn: Callable[[], object], device: str, calls: int, repeats: int) -> float:
    """Median over `repeats` of (time of `calls` back-to-back calls + one sync) / calls."""
    for _ in range(min(calls, 200)):
        fn()
    sync(device)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        sync(device)
        times.append((time.perf_counter() - start) / calls)
    return statistics.median(times) * 1e6


def backward_us(forward: Callable[[], torch.Tensor], inputs, device: str, calls: int,
                repeats: int) -> float:
    """Host time of torch.autograd.grad(out, inputs, g) alone: the graphs are built untimed."""
    times = []
    for _ in range(repeats + 1):
        outs = [forward() for _ in range(calls)]
        grad = torch.ones_like(outs[0])
        sync(device)
        start = time.perf_counter()
        for out in outs:
            torch.autograd.grad(out, inputs, grad)
        sync(device)
        times.append((time.perf_counter() - start) / calls)
    return statistics.median(times[1:]) * 1e6  # the first is a warm-up


def entry_calls(entry: str, device: str, dtype: torch.dtype, grad: bool, head_dim: int):
    """(flash_ext call, its inputs, SDPA call, its inputs): each on leaf tensors of its own
    layout, (B, H, S, D) for SDPA, so that neither pays for views the other does not."""
    def leaves(*shape):
        return tuple(torch.randn(shape, device=device, dtype=dtype, requires_grad=grad)
                     for _ in range(3))

    q, k, v = leaves(1, 1, 1, head_dim)
    sdpa = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True)  # noqa: E731
    if entry in ("attention", "flash_attn_func"):
        qo, ko, vo = leaves(1, 1, 1, head_dim)  # (B, H, S, D), or (B, S, H, D): the same here
        if entry == "attention":
            fn = lambda: flash_ext.attention(qo, ko, vo, is_causal=True)  # noqa: E731
        else:
            fn = lambda: flash_ext.flash_attn_func(qo, ko, vo, causal=True)  # noqa: E731
        return fn, (qo, ko, vo), sdpa, (q, k, v)
    cu = torch.tensor([0, 1], dtype=torch.int32, device=device)
    qo, ko, vo = leaves(1, 1, head_dim)  # (T, H, D)
    if entry == "attention_varlen":
        fn = lambda: flash_ext.attention_varlen(qo, ko, vo, cu, cu, 1, 1, is_causal=True)  # noqa: E731
    else:
        fn = lambda: flash_ext.flash_attn_varlen_func(qo, ko, vo, cu, cu, 1, 1, causal=True)  # noqa: E731
    return fn, (qo, ko, vo), sdpa, (q, k, v)


def measure(device: str, calls: int, repeats: int) -> list[tuple[str, str, float, float]]:
    dtype = torch.float32 if device == "cpu" else torch.bfloat16
    head_dim = HEAD_DIMS[device]
    rows = []
    for entry in ENTRIES:
        for mode in MODES:
            grad = mode != "forward, no grad"
            ours, our_inputs, sdpa, sdpa_inputs = entry_calls(entry, device, dtype, grad,
                                                              head_dim)
            # Interleaved: SDPA, flash_ext, SDPA, flash_ext; the lower of each pair's medians.
            pair = []
            for _ in range(2):
                if mode == "backward call":
                    pair.append((backward_us(sdpa, sdpa_inputs, device, calls, repeats),
                                 backward_us(ours, our_inputs, device, calls, repeats)))
                else:
                    pair.append((per_call_us(sdpa, device, calls, repeats),
                                 per_call_us(ours, device, calls, repeats)))
            rows.append((entry, mode, min(p[0] for p in pair), min(p[1] for p in pair)))
            print(f"  {device} {entry:24s} {mode:24s} SDPA {rows[-1][2]:7.2f} us  "
                  f"flash_ext {rows[-1][3]:7.2f} us  {rows[-1][3] / rows[-1][2]:.2f}x", flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=2000, help="calls per timed repeat")
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--devices", default="cpu,cuda")
    parser.add_argument("--out", help="write the markdown table here")
    args = parser.parse_args()
    devices = [d for d in args.devices.split(",")
               if d == "cpu" or (d == "cuda" and torch.cuda.is_available())]
    header = ["# Host time per call: flash_ext vs F.scaled_dot_product_attention",
              "",
              f"torch {torch.__version__}, Python {platform.python_version()}, {cpu_name()}, "
              f"{torch.get_num_threads()} CPU threads"
              + (f", {torch.cuda.get_device_name()}" if "cuda" in devices else "")
              + f". Inputs (1, 1, 1, D) causal (varlen: one sequence of 1 token), fp32 D = 8 on "
              f"the CPU, bf16 D = 64 on the GPU; {args.calls} calls back to back, one sync, median of "
              f"{args.repeats}; the lower of two interleaved runs. Ratio = flash_ext / SDPA "
              "(target <= 1.5).",
              "",
              "| device | entry point | call | SDPA (us) | flash_ext (us) | ratio |",
              "| --- | --- | --- | --- | --- | --- |"]
    lines = []
    for device in devices:
        print(f"{device}:", flush=True)
        for entry, mode, sdpa_us, ours_us in measure(device, args.calls, args.repeats):
            lines.append(f"| {device} | {entry} | {mode} | {sdpa_us:.2f} | {ours_us:.2f} | "
                         f"{ours_us / sdpa_us:.2f}x |")
    table = "\n".join(header + lines) + "\n"
    print()
    print(table)
    if args.out:
        with open(args.out, "w") as f:
            f.write(table)


if __name__ == "__main__":
    main()
