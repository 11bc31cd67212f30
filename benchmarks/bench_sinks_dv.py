"""Issue 35's two model families against what their users run today, side by side in one run.

- gpt-oss's learnable attention sinks: flash_ext.attention(..., sinks=) against the same call
  without sinks (the target: the sinks cost at most 3%) and against gpt-oss's eager attention
  as transformers runs it (repeat_kv, the scores with the head's sink as an extra column,
  softmax, the sink's column dropped, P V: memory quadratic in S). gpt-oss's shapes: Hq = 64,
  Hkv = 8, D = 64, B = 1, S in 4096 and 8192, bf16, causal, full or within a 128-token window
  (its sliding layers).
- DeepSeek-V3's head dims, 192 for q and k and 128 for v: flash_ext.attention (its selection
  picks a backend that takes the pair) against SDPA (its own choice, and its efficient and cuDNN
  backends alone) and the workaround users write for the kernels that take one head dim: v
  padded to 192 with zeros, attention, the output sliced back (SDPA flash, flash_ext's flash
  backend). 16k tokens per batch (B = 16384 / S), H = 16, S in 1024 and 4096, causal, bf16.

Directions: fwd (under no_grad) and bwd (the backward alone: torch.autograd.grad over a
retained graph, as bench_attention.py). Timing: bench_attention.bench on CUDA (CUDA events, L2
flushed, median); on the CPU (--device cpu, a check of the script) the median of a few calls.
Every provider's output or gradients are compared with the section's reference (eager; the
first of sdpa_efficient, sdpa, pad_sdpa_flash that ran) by |x - ref| / |ref|; a mismatch is
marked and makes the exit status 1. A provider that raises shows n/a with its error.

    python benchmarks/bench_sinks_dv.py --out benchmarks/results
    python benchmarks/bench_sinks_dv.py --device cpu --tiny --out /tmp/b   # the script's check
"""

from __future__ import annotations

import argparse
import datetime
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import Tensor
from torch.nn.attention import SDPBackend, sdpa_kernel

import flash_ext

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_attention import CHECK_TOL, timed  # noqa: E402

WINDOW = 128  # gpt-oss's sliding layers: a query sees itself and the 127 keys before it


@dataclass(frozen=True)
class Case:
    section: str  # "sinks" or "dv"
    batch: int
    heads: int
    heads_kv: int
    seqlen: int
    head_dim: int
    head_dim_v: int
    window: bool = False  # sinks rows: the 128-token window

    @property
    def name(self) -> str:
        what = f"window {WINDOW}" if self.window else "causal"
        dims = f"D={self.head_dim}" + (f"/{self.head_dim_v}" if self.head_dim_v != self.head_dim
                                       else "")
        heads = f"Hq={self.heads} Hkv={self.heads_kv}"
        return f"{self.section} B={self.batch} {heads} S={self.seqlen} {dims} {what}"

    def visible_keys(self) -> int:
        """Pairs a query row sees, summed over the rows (FLOPs count them)."""
        s = self.seqlen
        if not self.window:
            return s * (s + 1) // 2
        w = min(WINDOW, s)
        return w * (w + 1) // 2 + (s - w) * w


def cases(tiny: bool) -> list[Case]:
    if tiny:
        return [Case("sinks", 1, 4, 2, 64, 16, 16), Case("sinks", 1, 4, 2, 300, 16, 16, True),
                Case("dv", 2, 2, 2, 48, 24, 16)]
    sinks = [Case("sinks", 1, 64, 8, s, 64, 64, window) for s in (4096, 8192)
             for window in (False, True)]
    dv = [Case("dv", 16384 // s, 16, 16, s, 192, 128) for s in (1024, 4096)]
    return sinks + dv


def window_size(case: Case) -> tuple[int, int]:
    return (WINDOW - 1, 0) if case.window else (-1, -1)


# Providers: fn(q, k, v, sinks) -> out.


def gpt_oss_eager(q: Tensor, k: Tensor, v: Tensor, sinks: Tensor, case: Case) -> Tensor:
    """transformers' gpt-oss eager attention (its formula, in the inputs' dtype)."""
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, 1), v.repeat_interleave(group, 1)
    scores = (q @ k.transpose(-1, -2)) * case.head_dim ** -0.5
    i = torch.arange(case.seqlen, device=q.device)[:, None]
    j = torch.arange(case.seqlen, device=q.device)[None, :]
    hidden = (j > i) | ((i - j >= WINDOW) if case.window else False)
    scores = scores.masked_fill(hidden, float("-inf"))
    sink = sinks.to(q.dtype).reshape(1, -1, 1, 1).expand(q.shape[0], -1, case.seqlen, 1)
    logits = torch.cat([scores, sink], dim=-1)
    logits = logits - logits.max(dim=-1, keepdim=True).values
    probs = F.softmax(logits, dim=-1, dtype=logits.dtype)[..., :-1]
    return probs @ v


def flash_ext_call(with_sinks: bool, backend: str | None = None, pad: bool = False):
    def run(q, k, v, sinks, case):
        if pad:
            v = F.pad(v, (0, case.head_dim - case.head_dim_v))
        out = flash_ext.attention(q, k, v, is_causal=True, window_size=window_size(case),
                                  enable_gqa=q.shape[1] != k.shape[1],
                                  sinks=sinks if with_sinks else None, backend=backend)
        return out[..., :case.head_dim_v] if pad else out
    return run


def sdpa_call(backend: SDPBackend | None, pad: bool = False):
    def run(q, k, v, sinks, case):
        if pad:
            v = F.pad(v, (0, case.head_dim - case.head_dim_v))
        if backend is None:
            out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            with sdpa_kernel(backend):
                out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return out[..., :case.head_dim_v] if pad else out
    return run


PROVIDERS: dict[str, dict[str, Callable]] = {
    "sinks": {"eager": gpt_oss_eager, "flash_ext_sinks": flash_ext_call(True),
              "flash_ext": flash_ext_call(False)},
    "dv": {"flash_ext": flash_ext_call(False), "sdpa": sdpa_call(None),
           "sdpa_efficient": sdpa_call(SDPBackend.EFFICIENT_ATTENTION),
           "sdpa_cudnn": sdpa_call(SDPBackend.CUDNN_ATTENTION),
           "pad_sdpa_flash": sdpa_call(SDPBackend.FLASH_ATTENTION, pad=True),
           "pad_flash_ext": flash_ext_call(False, backend="flash", pad=True)},
}
REFERENCES = {"sinks": ("eager",), "dv": ("sdpa_efficient", "sdpa", "pad_sdpa_flash")}
UNCHECKED = {"flash_ext"}  # the sinks rows' call without sinks computes another function


# Running


@dataclass
class Result:
    case: Case
    direction: str
    provider: str
    seconds: float | None = None
    error: str = ""
    rel_err: float | None = None
    mismatch: bool = False


def run_case(case: Case, device: str, dtype: torch.dtype) -> list[Result]:
    torch.manual_seed(0)
    shape = (case.batch, case.heads, case.seqlen)
    q = torch.randn(*shape, case.head_dim, device=device, dtype=dtype, requires_grad=True)
    k = torch.randn(case.batch, case.heads_kv, case.seqlen, case.head_dim, device=device,
                    dtype=dtype, requires_grad=True)
    v = torch.randn(case.batch, case.heads_kv, case.seqlen, case.head_dim_v, device=device,
                    dtype=dtype, requires_grad=True)
    sinks = torch.randn(case.heads, device=device, dtype=torch.float32, requires_grad=True)
    leaves = (q, k, v, sinks) if case.section == "sinks" else (q, k, v)
    dout = torch.randn(*shape, case.head_dim_v, device=device, dtype=dtype)
    results, outputs = [], {}
    for name, fn in PROVIDERS[case.section].items():
        for direction in ("fwd", "bwd"):
            r = Result(case, direction, name)
            results.append(r)
            try:
                if direction == "fwd":
                    with torch.no_grad():
                        outputs[name, "fwd"] = (fn(q, k, v, sinks, case),)
                        r.seconds = timed(lambda: fn(q, k, v, sinks, case), device)
                else:
                    out = fn(q, k, v, sinks, case)
                    without_sinks = case.section == "sinks" and name == "flash_ext"
                    wanted = leaves[:3] if without_sinks else leaves
                    grads = torch.autograd.grad(out, wanted, dout, retain_graph=True)
                    outputs[name, "bwd"] = grads
                    r.seconds = timed(lambda: torch.autograd.grad(out, wanted, dout,
                                                                  retain_graph=True), device)
                    del out
            except Exception as exc:  # noqa: BLE001 - reported as n/a, the run goes on
                r.error = f"{type(exc).__name__}: {str(exc).splitlines()[0][:80]}"
            if device == "cuda":
                torch.cuda.empty_cache()
    for direction in ("fwd", "bwd"):
        ref = next((outputs[n, direction] for n in REFERENCES[case.section]
                    if (n, direction) in outputs), None)
        for r in results:
            if r.direction != direction or (r.provider, direction) not in outputs:
                continue
            if ref is None or (case.section == "sinks" and r.provider in UNCHECKED):
                continue
            got = outputs[r.provider, direction]
            r.rel_err = max(((a.float() - b.float()).norm()
                             / b.float().norm().clamp_min(1e-30)).item() for a, b in zip(got, ref))
            r.mismatch = not r.rel_err <= CHECK_TOL[dtype]
    return results


def render(results: list[Result], tflops: bool, dtype: torch.dtype) -> str:
    lines = []
    for section, title, ratios in (
            ("sinks", f"gpt-oss attention sinks, {dtype} (ms; on CUDA with TFLOP/s, counting "
                      "the visible pairs)",
             (("flash_ext_sinks", "flash_ext", "sinks cost"),
              ("eager", "flash_ext_sinks", "vs eager"))),
            ("dv", f"DeepSeek-V3 head dims (q/k 192, v 128; --tiny: 24 / 16), causal, {dtype} (ms)",
             (("sdpa", "flash_ext", "vs sdpa"), ("pad_sdpa_flash", "flash_ext", "vs padded"),))):
        rows = [r for r in results if r.case.section == section]
        if not rows:
            continue
        names = list(PROVIDERS[section])
        head = ["case", "dir", *names, *(label for _, _, label in ratios)]
        lines += [f"### {title}", "", "| " + " | ".join(head) + " |",
                  "|" + " --- |" * len(head)]
        for key in dict.fromkeys((r.case, r.direction) for r in rows):
            by = {r.provider: r for r in rows if (r.case, r.direction) == key}
            cells = []
            for n in names:
                r = by[n]
                if r.seconds is None:
                    cells.append(f"n/a ({r.error})")
                    continue
                cell = f"{r.seconds * 1e3:.3f}"
                if tflops and section == "sinks":
                    c = key[0]
                    flops = 4 * c.batch * c.heads * c.visible_keys() * c.head_dim
                    flops *= 2.5 if key[1] == "bwd" else 1
                    cell += f" ({flops / r.seconds / 1e12:.0f})"
                if r.mismatch:
                    cell += f" MISMATCH {r.rel_err:.1e}"
                cells.append(cell)
            for slow, fast, _ in ratios:
                a, b = by[slow].seconds, by[fast].seconds
                cells.append(f"{a / b:.2f}x" if a and b else "n/a")
            lines.append(f"| {key[0].name} | {key[1]} | " + " | ".join(cells) + " |")
        lines.append("")
    lines.append("Ratios: sinks cost = time with sinks / without (target <= 1.03); vs eager, vs "
                 "sdpa, vs padded = the other's time / flash_ext's (> 1: flash_ext faster).")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    parser.add_argument("--tiny", action="store_true", help="tiny shapes (a check of the script)")
    parser.add_argument("--out", type=Path, default=None, help="folder for the markdown table")
    args = parser.parse_args()
    dtype = torch.bfloat16 if args.device == "cuda" else torch.float32
    results = []
    for case in cases(args.tiny or args.device == "cpu"):
        print(f"{case.name} ...", flush=True)
        results += run_case(case, args.device, dtype)
    date = datetime.date.today().isoformat()
    where = (torch.cuda.get_device_name(0) if args.device == "cuda" else "CPU")
    table = (f"# gpt-oss sinks and DeepSeek-V3 head dims: flash_ext vs today's workarounds\n\n"
             f"{where}; torch {torch.__version__}; flash_ext {flash_ext.__version__}; {date}.\n\n"
             f"Command: `python benchmarks/bench_sinks_dv.py {' '.join(sys.argv[1:])}`\n\n"
             + render(results, args.device == "cuda", dtype) + "\n")
    print(table)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / f"sinks_dv_{date}.md").write_text(table)
    return 1 if any(r.mismatch for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
