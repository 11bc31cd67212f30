"""Issue 30's decoding benchmark: flash_ext.flash_attn_with_kvcache on dense and paged caches
against SDPA's flash and cuDNN backends (and its own choice) on the dense cache, side by side in
one run, as GB/s of K and V read against the device's read bandwidth measured in the same run.

Cases: Sq in 1 and 4 query tokens a sequence (decoding, speculative decoding), B in 1, 8, 32,
128, cache lengths 1k to 128k (every sequence full), D = 128, Hq / Hkv in 32 / 32, 32 / 8 and
64 / 8, bf16; a case whose K and V exceed --max-cache-gib is left out. Causal, bottom-right (the
new tokens see the whole cache and each other in order): SDPA gets
torch.nn.attention.bias.causal_lower_right for Sq > 1.
Providers: flash_ext on the dense cache (B, S, Hkv, D) and on paged caches of 16- and 256-token
pages (the blocks in a random order through block_table); sdpa_flash, sdpa_cudnn and sdpa (its
own choice) on the dense cache viewed as (B, Hkv, S, D), enable_gqa. GB/s counts the K and V
bytes of the cache once (B S Hkv D x 2 tensors x 2 bytes); the read bandwidth is the best of
three sums over a 2 GiB tensor. The column `sum` times torch's sum over a tensor of the cache's
size in the same run: what one plain read of those bytes reaches (the launch and the ramp up and
down weigh on small caches). Targets (issue 30, H100): >= 90% of that bandwidth where the cache
holds >= 256 MiB, paged within 5% of dense, GQA 8:1 at MHA's GB/s.
Each call is timed by CUDA events (median over ~100 ms) with L2 flushed before it by reading a
256 MiB buffer; --flush write zeroes the buffer instead, as triton's do_bench does, which
leaves L2 full of dirty lines whose write-back then lands in the timed call (--flush says why).
--num-splits N passes num_splits to flash_ext's calls (default 0: the decode kernel chooses).
Every output is compared with flash_ext's dense one by |x - ref| / |ref| (tolerance 2e-2); a
mismatch is marked and makes the exit status 1; a provider that raises shows n/a.

    python benchmarks/bench_decode.py --out benchmarks/results
    python benchmarks/bench_decode.py --device cpu --tiny --out /tmp/b   # the script's check
"""

from __future__ import annotations

import argparse
import datetime
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import Tensor
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.attention.bias import causal_lower_right

import flash_ext

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_attention import event_median, relative_error, timed  # noqa: E402

# Flush of L2 before each timed call: "read" sums a 256 MiB buffer (L2 then holds clean lines,
# which the call evicts for free); "write" is triton's do_bench, which zeroes one, so that each
# call starts with L2 full of dirty lines (~50 MB on the H100) and pays their write-back, about
# 17 us of the HBM's time: the same for every provider and most of a 256 MiB call's gap to the
# bandwidth (benchmarks/NOTES.md).
FLUSHES = ("read", "write")

TOL = 2e-2
REFERENCE = "flash_ext"
SUM = "sum"  # torch's sum over as many bytes as the cache: a read ceiling, not a provider


@dataclass(frozen=True)
class Case:
    sq: int
    batch: int
    seqlen: int
    heads: int
    heads_kv: int
    head_dim: int = 128

    @property
    def name(self) -> str:
        return (f"Sq={self.sq} B={self.batch} S={self.seqlen} Hq={self.heads} "
                f"Hkv={self.heads_kv} D={self.head_dim}")

    @property
    def cache_bytes(self) -> int:
        return self.batch * self.seqlen * self.heads_kv * self.head_dim * 2 * 2


def cases(tiny: bool, max_cache_gib: float) -> list[Case]:
    if tiny:
        return [Case(1, 2, 96, 4, 4, 16), Case(4, 3, 80, 4, 2, 16)]
    found = [Case(sq, b, s, hq, hkv)
             for sq in (1, 4) for hq, hkv in ((32, 32), (32, 8), (64, 8))
             for b in (1, 8, 32, 128) for s in (1024, 8192, 32768, 131072)]
    return [c for c in found if c.cache_bytes <= max_cache_gib * 2**30]


def page_sizes(tiny: bool) -> tuple[int, ...]:
    return (16,) if tiny else (16, 256)


def paged(cache: Tensor, page: int, generator: torch.Generator) -> tuple[Tensor, Tensor]:
    """The dense cache (B, S, Hkv, D) as pages (B S / page, page, Hkv, D) in a random order, and
    the block_table (B, S / page) that finds them."""
    b, s = cache.shape[:2]
    blocks = b * s // page
    order = torch.randperm(blocks, generator=generator).to(cache.device)
    pages = torch.empty((blocks, page, *cache.shape[2:]), dtype=cache.dtype, device=cache.device)
    pages[order] = cache.reshape(blocks, page, *cache.shape[2:])
    return pages, order.view(b, s // page).to(torch.int32)


def cold_timed(fn: Callable[[], object], device: str, flush: str) -> float:
    """Median seconds of fn() with L2 flushed before each call by `flush` (FLUSHES); on the CPU
    bench_attention.timed."""
    if device != "cuda" or flush == "write":
        return timed(fn, device)
    buffer = torch.ones(2**27, dtype=torch.bfloat16, device=device)  # 256 MiB
    total = torch.empty((), dtype=torch.float32, device=device)
    # timed()'s 25 ms of warm-up and 100 ms of repetitions, at most 1000 of them (the flush
    # takes ~90 us a call).
    return event_median(fn, 25, 100, max_reps=1000,
                         flush=lambda: torch.sum(buffer, 0, dtype=torch.float32, out=total))


def read_bandwidth(device: str, flush: str) -> tuple[float, int]:
    """Bytes per second of the best of three sums over a large tensor (2 GiB on CUDA, 64 MiB on
    the CPU), and its size in bytes."""
    x = torch.ones((2**30 if device == "cuda" else 2**25,), dtype=torch.bfloat16, device=device)
    seconds = min(cold_timed(lambda: x.sum(), device, flush) for _ in range(3))
    size = x.numel() * x.element_size()
    return size / seconds, size


@dataclass
class Result:
    case: Case
    provider: str
    seconds: float | None = None
    error: str = ""
    rel_err: float | None = None

    @property
    def mismatch(self) -> bool:
        return self.rel_err is not None and not self.rel_err <= TOL  # NaN too


def providers(case: Case, q: Tensor, k_cache: Tensor, v_cache: Tensor, tiny: bool,
              device: str, num_splits: int = 0) -> dict[str, Callable[[], Tensor]]:
    generator = torch.Generator().manual_seed(1)
    seqlens = torch.full((case.batch,), case.seqlen, dtype=torch.int32, device=q.device)
    found = {REFERENCE: lambda: flash_ext.flash_attn_with_kvcache(
        q, k_cache, v_cache, cache_seqlens=seqlens, causal=True, num_splits=num_splits)}
    for page in page_sizes(tiny):
        if case.seqlen % page:
            continue
        k_pages, table = paged(k_cache, page, generator)
        v_pages = torch.empty_like(k_pages)
        v_pages[table.view(-1).long()] = v_cache.reshape(-1, page, *v_cache.shape[2:])
        found[f"flash_ext_paged{page}"] = (
            lambda k_pages=k_pages, v_pages=v_pages, table=table: flash_ext.flash_attn_with_kvcache(
                q, k_pages, v_pages, cache_seqlens=seqlens, block_table=table, causal=True,
                num_splits=num_splits))
    # SDPA on the dense cache as it lies: (B, Hkv, S, D) views, the queries (B, Hq, Sq, D).
    q_t, k_t, v_t = q.transpose(1, 2), k_cache.transpose(1, 2), v_cache.transpose(1, 2)
    mask = causal_lower_right(case.sq, case.seqlen) if case.sq > 1 else None

    def sdpa(backend: SDPBackend | None) -> Callable[[], Tensor]:
        def run() -> Tensor:
            if backend is None:
                out = F.scaled_dot_product_attention(q_t, k_t, v_t, attn_mask=mask,
                                                     enable_gqa=True)
            else:
                with sdpa_kernel(backend):
                    out = F.scaled_dot_product_attention(q_t, k_t, v_t, attn_mask=mask,
                                                         enable_gqa=True)
            return out.transpose(1, 2)
        return run

    if device == "cuda":
        found["sdpa_flash"] = sdpa(SDPBackend.FLASH_ATTENTION)
        found["sdpa_cudnn"] = sdpa(SDPBackend.CUDNN_ATTENTION)
    found["sdpa"] = sdpa(None)
    return found


def make_inputs(case: Case, device: str) -> tuple[Tensor, Tensor, Tensor]:
    """q (B, Sq, Hq, D) and the dense caches (B, S, Hkv, D), bf16, seeded."""
    torch.manual_seed(0)
    dtype = torch.bfloat16
    q = torch.randn(case.batch, case.sq, case.heads, case.head_dim, device=device, dtype=dtype)
    k_cache, v_cache = (torch.randn(case.batch, case.seqlen, case.heads_kv, case.head_dim,
                                    device=device, dtype=dtype) for _ in range(2))
    return q, k_cache, v_cache


def run_case(case: Case, device: str, tiny: bool, flush: str, num_splits: int) -> list[Result]:
    q, k_cache, v_cache = make_inputs(case, device)
    results, outputs = [], {}
    for name, fn in providers(case, q, k_cache, v_cache, tiny, device, num_splits).items():
        result = Result(case, name)
        try:
            outputs[name] = fn()
            result.seconds = cold_timed(fn, device, flush)
        except Exception as exc:  # noqa: BLE001 - a provider that does not run shows n/a
            result.error = f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:70]}"
        results.append(result)
    if device == "cuda" or tiny:  # a plain read of as many bytes: the column `sum`
        flat = torch.ones(case.cache_bytes // 2, dtype=torch.bfloat16, device=device)
        results.append(Result(case, SUM, seconds=cold_timed(lambda: flat.sum(), device, flush)))
        del flat
    if REFERENCE in outputs:
        for r in results:
            if r.provider in outputs and r.provider != REFERENCE:
                r.rel_err = relative_error([outputs[r.provider]], [outputs[REFERENCE]])
    return results


def render(results: list[Result], bandwidth: float, swept: int, device: str,
           argv: list[str], flush: str) -> str:
    names = list(dict.fromkeys(r.provider for r in results))
    where = torch.cuda.get_device_name() if device == "cuda" else "CPU"
    lines = [
        "# Decoding against a KV cache: flash_ext vs SDPA", "",
        f"{where}; torch {torch.__version__}; flash_ext {flash_ext.__version__}; bf16; "
        f"{datetime.date.today().isoformat()}. Measured read bandwidth: {bandwidth / 1e9:.0f} GB/s "
        f"(best of three sums over a {swept / 2**20:.0f} MiB tensor). L2 flushed before each "
        f"timed call by {'reading' if flush == 'read' else 'zeroing'} a 256 MiB buffer "
        f"(--flush {flush}).", "",
        f"Command: `python {' '.join(argv)}`", "",
        "GB/s of the cache's K and V read once per call (% of the measured bandwidth); ms per "
        "call in the last columns. (!) marks an output that differs from flash_ext's dense one.",
        "", "| case | cache MiB | " + " | ".join(names) + " | " + " | ".join(f"{n} ms" for n in names)
        + " |", "|" + " --- |" * (2 + 2 * len(names))]
    by_case: dict[Case, dict[str, Result]] = {}
    for r in results:
        by_case.setdefault(r.case, {})[r.provider] = r
    for case, row in by_case.items():
        rates, times = [], []
        for name in names:
            r = row.get(name)
            if r is None or r.seconds is None:
                reason = f"n/a ({r.error})" if r is not None and r.error else "-"
                rates.append(reason)
                times.append("-")
                continue
            gbs = case.cache_bytes / r.seconds
            mark = " (!)" if r.mismatch else ""
            rates.append(f"{gbs / 1e9:.0f} ({100 * gbs / bandwidth:.0f}%){mark}")
            times.append(f"{r.seconds * 1e3:.3f}")
        lines.append(f"| {case.name} | {case.cache_bytes / 2**20:.1f} | " + " | ".join(rates)
                     + " | " + " | ".join(times) + " |")
    return "\n".join(lines) + "\n"


def plot(results: list[Result], bandwidth: float, path: Path) -> None:
    """GB/s against the cache size, a line per provider and head layout, Sq = 1."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        print(f"no plot: {exc}")
        return
    fig, ax = plt.subplots(figsize=(9, 5))
    series: dict[str, list[tuple[float, float]]] = {}
    for r in results:
        if r.seconds is not None and r.case.sq == 1:
            label = (f"{r.provider} {r.case.heads}/{r.case.heads_kv}" if r.provider != SUM
                     else "torch sum over as many bytes")
            series.setdefault(label, []).append((r.case.cache_bytes / 2**20,
                                                 r.case.cache_bytes / r.seconds / 1e9))
    for label, points in series.items():
        points.sort()
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", ms=3, label=label)
    ax.axhline(bandwidth / 1e9, color="black", linestyle="--", label="measured read bandwidth")
    ax.set_xscale("log")
    ax.set_xlabel("KV cache (MiB)")
    ax.set_ylabel("GB/s of K and V read")
    ax.set_title("Decoding (Sq = 1), bf16, D = 128")
    ax.legend(fontsize=6, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    print(f"wrote {path}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    parser.add_argument("--tiny", action="store_true", help="tiny shapes (a check of the script)")
    parser.add_argument("--shapes", default="", help="run the cases whose name matches (re.search)")
    parser.add_argument("--max-cache-gib", type=float, default=8.0,
                        help="leave out cases whose K and V take more (default 8)")
    parser.add_argument("--out", type=Path, default=None, help="folder for the table and plot")
    parser.add_argument("--flush", choices=FLUSHES, default="read",
                        help="how L2 is flushed before each timed call: read a 256 MiB buffer "
                        "(default) or zero one (triton's do_bench: its dirty lines' write-back "
                        "then falls in the timed call)")
    parser.add_argument("--num-splits", type=int, default=0,
                        help="flash_ext's num_splits (default 0: the decode kernel chooses)")
    args = parser.parse_args()
    if args.num_splits < 0:
        parser.error(f"--num-splits must be >= 0, got {args.num_splits}")
    if args.device == "cuda" and not torch.cuda.is_available():
        parser.error("no CUDA device: pass --device cpu")
    selected = [c for c in cases(args.tiny, args.max_cache_gib) if re.search(args.shapes, c.name)]
    bandwidth, swept = read_bandwidth(args.device, args.flush)
    print(f"read bandwidth: {bandwidth / 1e9:.0f} GB/s; {len(selected)} cases", flush=True)
    results = []
    for i, case in enumerate(selected, 1):
        row = run_case(case, args.device, args.tiny, args.flush, args.num_splits)
        results += row
        done = ", ".join(f"{r.provider} {r.seconds * 1e3:.3f} ms" if r.seconds is not None
                         else f"{r.provider} n/a" for r in row)
        print(f"[{i}/{len(selected)}] {case.name}: {done}", flush=True)
        if args.device == "cuda":
            torch.cuda.empty_cache()
    table = render(results, bandwidth, swept, args.device, sys.argv, args.flush)
    print(table)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        stem = args.out / f"decode_{datetime.date.today().isoformat()}"
        stem.with_suffix(".md").write_text(table)
        plot(results, bandwidth, stem.with_suffix(".png"))
    mismatches = [r for r in results if r.mismatch]
    for r in mismatches:
        print(f"!!! MISMATCH !!! {r.provider} {r.case.name}: rel err {r.rel_err:.3e}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
