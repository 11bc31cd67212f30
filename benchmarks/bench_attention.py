"""flash_ext's CUDA backends against PyTorch's attention kernels, side by side in one run.

Providers: flash_ext.attention(..., backend="flash", or "mem_eff" on the mem_eff rows), and again
with deterministic=True (flash_ext_deterministic, flash rows: a bitwise-reproducible backward); torch
SDPA restricted to one backend each with sdpa_kernel (FLASH_ATTENTION, EFFICIENT_ATTENTION,
CUDNN_ATTENTION); and torch.compile(flex_attention) with a causal BlockMask from
create_block_mask (no mask when not causal). Cases:
- flash rows, bfloat16: 16k tokens per batch at model width 2048 (B = 16384 / S, H = 2048 / D),
  D in 64, 128, 256, S in 1024, 4096, 16384, causal and not. TFLOP/s = 4*B*H*S*S*D / time,
  halved for causal; the backward counts 2.5x the forward FLOPs.
- decode rows, bfloat16: B=32, H=32, D=128, Sq=1, Sk in 4096, 32768, not causal, forward only.
  GB/s = bytes of K and V read (2*B*H*Sk*D*2) / time.
- mem_eff rows: the flash rows' shapes and TFLOP/s, flash_ext with backend="mem_eff" against
  sdpa_efficient alone (the peer that takes the same inputs), twice: bfloat16 with an additive
  bias of shape (B, H, S, S) (random normal, bf16, no grad) passed as attn_mask to both, and
  float32 without a bias. SDPA takes no is_causal together with an attn_mask, so on causal bias
  rows the bias holds -inf above the diagonal and both providers get it (flash_ext with
  is_causal=True besides, which lets it skip the hidden blocks; SDPA computes them); TFLOP/s
  counts the causal half for both. The bias is not capped: the largest, D=64 S=16k (B=1, H=32),
  is 16 GiB, about 17 GiB in all with the other tensors, which fits the 80 GB H100; where
  allocating a case's inputs fails, its row shows n/a.

Method. Each case builds its inputs once (random normal) and every provider runs on the same
tensors. A provider is built, called once (the first call is excluded from the timings and its
wall time reported: torch.compile's compile of flex happens there, once per shape, mask and
direction), then timed by triton.testing.do_bench: CUDA events around each call, L2 flushed
before each, warm-up, median (an own event loop with the same method when triton is missing).
fwd runs under torch.no_grad(); fwd_train is the forward as training runs it (inputs that
require grad, a graph built per call, host work of autograd included). bwd is the backward alone: one forward with autograd builds the
graph, then torch.autograd.grad(out, (q, k, v), dout, retain_graph=True) is timed, so the number
covers every kernel of the provider's backward (dO.O preprocessing, dq conversion...) and no
forward; dout is the same random tensor for every provider.
Every provider's output (fwd) or gradients (bwd) is compared with sdpa_flash's (the first of
sdpa_flash, sdpa_efficient, sdpa_cudnn that ran: sdpa_efficient on the mem_eff rows) by
|x - ref| / |ref| (Frobenius norms), with a tolerance per dtype: 2e-2 for bf16 (loose), 1e-4
for float32 (flash_ext's float32 GEMMs are 3xTF32, as SDPA efficient's); a mismatch is printed
loudly, marked in the table, and makes the exit status 1. A provider that raises (not built,
shape not supported, compile error, out of memory) shows n/a with the error's first line in a
footnote; the run goes on.

    python benchmarks/bench_attention.py                  # forward, every case: benchmarks/results/
    python benchmarks/bench_attention.py --quick --out /tmp/bench   # 5 cases, short timing
    python benchmarks/bench_attention.py --direction all --shapes 'D=128'
    python benchmarks/bench_attention.py --shapes '^D='   # the flash rows only
    python benchmarks/bench_attention.py --direction all --shapes '^mem_eff'   # mem_eff only
    python benchmarks/bench_attention.py --list           # the case names --shapes matches
"""

from __future__ import annotations

import argparse
import datetime
import functools
import math
import re
import shlex
import statistics
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import Tensor
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

try:
    import flash_ext
    from flash_ext.ops import CUDA_BACKENDS
except ImportError as exc:  # not installed or not built: its cells show n/a, the peers still run
    flash_ext, FLASH_EXT_IMPORT_ERROR = None, exc
try:
    import triton
    from triton.testing import do_bench
except ImportError:
    triton = do_bench = None

RESULTS = Path(__file__).resolve().parent / "results"
TOKENS, WIDTH = 16384, 2048  # per batch: B * S = TOKENS, H * D = WIDTH
HEAD_DIMS = (64, 128, 256)
SEQLENS = (1024, 4096, 16384)
DECODE_SEQLENS = (4096, 32768)
DIRECTIONS = {"fwd": ("fwd",), "bwd": ("bwd",), "all": ("fwd", "bwd"),
              "fwd_train": ("fwd_train",), "train": ("fwd_train", "bwd")}
BWD_FLOP_FACTOR = 2.5  # backward: 5 matmuls against the forward's 2
# |x - ref| / |ref| between two implementations: loose for bf16; float32 (3xTF32 GEMMs) tight.
CHECK_TOL = {torch.bfloat16: 2e-2, torch.float16: 2e-2, torch.float32: 1e-4}
DTYPE_NAMES = {torch.bfloat16: "bf16", torch.float16: "fp16", torch.float32: "fp32"}
OURS = "flash_ext"
DETERMINISTIC = f"{OURS}_deterministic"  # the flash rows' backward in deterministic mode
REFERENCES = ("sdpa_flash", "sdpa_efficient", "sdpa_cudnn")  # checked against the first that ran
MEM_EFF_PROVIDERS = (OURS, "sdpa_efficient")  # the mem_eff rows' providers
PAD_V = "sdpa_flash_pad_v"  # the (192, 128) rows' workaround: v padded to 192, out sliced
DV_HEADS = 16  # the (192, 128) rows' heads (16k tokens per batch)
QUICK_CASES = ("D=128 S=1024 full", "D=128 S=1024 causal", "decode D=128 Sk=4096",
               "mem_eff bf16 bias D=128 S=1024 causal", "mem_eff fp32 D=128 S=1024 full")
_SHAPES = "16k tokens per batch at model width 2048 (B = 16384 / S, H = 2048 / D), TFLOP/s"
SECTION_TITLES = {  # Case.section -> the title of its table
    "flash": _SHAPES,
    "decode": "decode, Sq = 1, GB/s of K and V read",
    "mem_eff bf16 bias": f'mem_eff (flash_ext backend="mem_eff"), bf16 with an additive (B, H, '
                         f"S, S) bias, {_SHAPES}",
    "mem_eff fp32": f'mem_eff (flash_ext backend="mem_eff"), float32 without bias, {_SHAPES}',
    "dv": f"q/k head dim 192, v head dim 128 (DeepSeek-V3's), H = {DV_HEADS}, 16k tokens per "
          "batch, TFLOP/s",
}
SECTION_NOTES = {  # Case.section -> a note below its table
    "flash": (
        "The row B=2 Sq=8192 is a Hugging Face Llama's layer: GQA with 4 key/value heads for the "
        "16 query heads, q, k, v as (B, S, H, D) memory viewed as (B, H, S, D), enable_gqa=True "
        "for every provider."),
    "mem_eff bf16 bias": (
        "The bias is one random normal bf16 tensor of shape (B, H, S, S), passed as attn_mask to "
        "both providers, not requiring grad (the backward computes no bias gradient); it is "
        "not capped: 16 GiB at D=64 S=16384, 8 GiB at D=128, 4 GiB at D=256. SDPA takes no "
        "is_causal with an attn_mask: on causal rows the bias holds -inf above the diagonal, "
        "for both providers (flash_ext also gets is_causal=True and skips the hidden blocks; "
        "SDPA computes them). TFLOP/s counts the causal half for both; the bias read counts no "
        "FLOPs."),
    "mem_eff fp32": (
        "float32 q, k, v; flash_ext's mem_eff kernels run 3xTF32 tensor-core GEMMs. Checked "
        f"against sdpa_efficient with the float32 tolerance {CHECK_TOL[torch.float32]:.0e}."),
    "dv": (
        "flash_ext chooses its backend itself (the Hopper (192, 128) forward without grad, "
        f"mem_eff with). {PAD_V} is the workaround users write for FlashAttention: v padded "
        "with zeros to 192, SDPA's flash backend, the output's first 128 columns. TFLOP/s "
        "counts 2 B H Sq Sk (192 + 128) for the forward."),
}


# Cases


@dataclass(frozen=True)
class Case:
    """One attention shape. family "flash": TFLOP/s rows; "decode": GB/s rows, forward only;
    "mem_eff": TFLOP/s rows of the mem_eff backend, with an additive (B, H, Sq, Sk) bias or
    not."""

    family: str
    batch: int
    heads: int
    seqlen_q: int
    seqlen_k: int
    head_dim: int
    causal: bool
    dtype: torch.dtype = torch.bfloat16
    bias: bool = False
    heads_kv: int | None = None  # GQA: fewer key/value heads (None: as many as heads)
    head_dim_v: int | None = None  # v's head dim where it differs (family "dv")

    @property
    def dv(self) -> int:
        return self.head_dim_v or self.head_dim

    @property
    def gqa(self) -> bool:
        return self.heads_kv is not None

    @property
    def name(self) -> str:
        """What --shapes matches and progress lines show."""
        if self.family == "decode":
            return f"decode D={self.head_dim} Sk={self.seqlen_k}"
        shape = f"D={self.head_dim} S={self.seqlen_q} {'causal' if self.causal else 'full'}"
        if self.gqa:
            return f"gqa Hq={self.heads} Hkv={self.heads_kv} B={self.batch} {shape}"
        if self.family == "dv":
            return f"dv D={self.head_dim} Dv={self.dv} S={self.seqlen_q} " + \
                ("causal" if self.causal else "full")
        return shape if self.family == "flash" else f"{self.section} {shape}"

    @property
    def section(self) -> str:
        """The table the case is a row of (SECTION_TITLES)."""
        if self.family != "mem_eff":
            return self.family
        return f"mem_eff {DTYPE_NAMES[self.dtype]}{' bias' if self.bias else ''}"

    @property
    def backend(self) -> str | None:
        """flash_ext's backend for the case (None: its own choice)."""
        return {"mem_eff": "mem_eff", "dv": None}.get(self.family, "flash")

    @property
    def providers(self) -> tuple[str, ...]:
        """The providers the case runs (those of --providers among them)."""
        if self.family == "mem_eff":
            return MEM_EFF_PROVIDERS
        if self.family == "dv":
            return tuple(p for p in PROVIDERS if p != DETERMINISTIC)
        return tuple(p for p in PROVIDERS if p != PAD_V and
                     (self.family == "flash" or p != DETERMINISTIC))

    @property
    def check_tol(self) -> float:
        return CHECK_TOL[self.dtype]

    @property
    def directions(self) -> tuple[str, ...]:
        return ("fwd",) if self.family == "decode" else ("fwd", "fwd_train", "bwd")

    @property
    def unit(self) -> str:
        return "GB/s" if self.family == "decode" else "TFLOP/s"

    @property
    def panel(self) -> str:
        """Plot subplot title."""
        if self.family == "decode":
            return f"decode: B={self.batch}, H={self.heads}, D={self.head_dim}, Sq={self.seqlen_q}"
        shape = f"D={self.head_dim}, H={self.heads}, B={TOKENS}/S"
        if self.gqa:
            return f"GQA (B, S, H, D) memory: Hq={self.heads}, Hkv={self.heads_kv}, D={self.head_dim}"
        if self.family == "mem_eff":
            what = "bf16 + (B,H,S,S) bias" if self.bias else DTYPE_NAMES[self.dtype]
            return f"mem_eff {what}: {shape}"
        if self.family == "dv":
            return f"D={self.head_dim}, Dv={self.dv}, H={self.heads}, B={TOKENS}/S"
        return shape

    @property
    def group(self) -> str:
        """Bar-group label within the panel."""
        if self.family == "decode":
            return f"Sk={self.seqlen_k}"
        return f"S={self.seqlen_q}\n{'causal' if self.causal else 'full'}"

    def rate(self, direction: str, seconds: float) -> float:
        """Throughput in `unit`."""
        if self.family == "decode":
            kv_bytes = 2 * self.batch * self.heads * self.seqlen_k * self.head_dim
            return kv_bytes * self.dtype.itemsize / seconds / 1e9
        flops = 2 * self.batch * self.heads * self.seqlen_q * self.seqlen_k * \
            (self.head_dim + self.dv)
        flops /= 2 if self.causal else 1
        flops *= BWD_FLOP_FACTOR if direction == "bwd" else 1
        return flops / seconds / 1e12


def all_cases() -> list[Case]:
    flash = [Case("flash", TOKENS // s, WIDTH // d, s, s, d, causal)
             for d in HEAD_DIMS for s in SEQLENS for causal in (False, True)]
    # A Hugging Face Llama's attention: GQA, q/k/v as (B, S, H, D) memory viewed as (B, H, S, D).
    gqa = [Case("flash", 2, 16, 8192, 8192, 128, True, heads_kv=4)]
    decode = [Case("decode", 32, 32, 1, sk, 128, False) for sk in DECODE_SEQLENS]
    mem_eff = [Case("mem_eff", c.batch, c.heads, c.seqlen_q, c.seqlen_k, c.head_dim, c.causal,
                    dtype, bias)
               for dtype, bias in ((torch.bfloat16, True), (torch.float32, False))
               for c in flash]
    dv = [Case("dv", TOKENS // s, DV_HEADS, s, s, 192, causal, head_dim_v=128)
          for s in (1024, 4096) for causal in (False, True)]
    return flash + gqa + decode + mem_eff + dv


def select_cases(pattern: str | None, quick: bool, directions: Sequence[str]) -> list[Case]:
    cases = [c for c in all_cases() if set(c.directions) & set(directions)]
    if quick:
        cases = [c for c in cases if c.name in QUICK_CASES]
    if pattern:
        cases = [c for c in cases if re.search(pattern, c.name)]
    return cases


@dataclass
class Inputs:
    """The tensors of one case, shared by every provider."""

    q: Tensor
    k: Tensor
    v: Tensor
    grad_out: Tensor | None  # dO for the backward
    bias: Tensor | None = None  # additive attn_mask (B, H, Sq, Sk), no grad; causal folded in


def make_inputs(case: Case, device: str, requires_grad: bool) -> Inputs:
    def randn(seqlen: int, heads: int, head_dim: int = case.head_dim) -> Tensor:
        if case.gqa:  # (B, S, H, D) memory, as a transformers model's projections give it
            t = torch.randn(case.batch, seqlen, heads, head_dim, device=device,
                            dtype=case.dtype).transpose(1, 2)
            return t.requires_grad_(requires_grad)
        return torch.randn(case.batch, heads, seqlen, head_dim, device=device,
                           dtype=case.dtype, requires_grad=requires_grad)

    heads_kv = case.heads_kv or case.heads
    q = randn(case.seqlen_q, case.heads)
    k, v = randn(case.seqlen_k, heads_kv), randn(case.seqlen_k, heads_kv, case.dv)
    bias = None
    if case.bias:
        bias = torch.randn(case.batch, case.heads, case.seqlen_q, case.seqlen_k, device=device,
                           dtype=case.dtype)
        if case.causal:  # SDPA takes no is_causal with a mask: -inf above the diagonal
            visible = torch.ones(case.seqlen_q, case.seqlen_k, dtype=torch.bool, device=device)
            bias.masked_fill_(~visible.tril_(), float("-inf"))
    grad_out = None
    if requires_grad:
        grad_out = torch.randn(*q.shape[:-1], case.dv, device=device, dtype=case.dtype)
    return Inputs(q, k, v, grad_out, bias)


# Providers: a factory takes (case, inputs) and returns the call to time, out = fn().

Provider = Callable[[Case, Inputs], Callable[[], Tensor]]


def flash_ext_attention(case: Case, x: Inputs) -> Callable[[], Tensor]:
    if flash_ext is None:
        raise FLASH_EXT_IMPORT_ERROR
    return lambda: flash_ext.attention(x.q, x.k, x.v, attn_mask=x.bias, is_causal=case.causal,
                                       enable_gqa=case.gqa, backend=case.backend)


def flash_ext_deterministic(case: Case, x: Inputs) -> Callable[[], Tensor]:
    """flash_ext with deterministic=True: a bitwise-reproducible backward."""
    if flash_ext is None:
        raise FLASH_EXT_IMPORT_ERROR
    return lambda: flash_ext.attention(x.q, x.k, x.v, attn_mask=x.bias, is_causal=case.causal,
                                       enable_gqa=case.gqa, deterministic=True,
                                       backend=case.backend)


def sdpa(backend: SDPBackend) -> Provider:
    def factory(case: Case, x: Inputs) -> Callable[[], Tensor]:
        is_causal = case.causal and x.bias is None  # else the bias holds the causal mask

        def run() -> Tensor:
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(x.q, x.k, x.v, attn_mask=x.bias,
                                                      is_causal=is_causal, enable_gqa=case.gqa)

        return run

    return factory


@functools.cache
def compiled_flex() -> Callable[..., Tensor]:
    """One compiled flex_attention, recompiled per shape (static shapes, no silent eager
    fallback: hitting the recompile limit raises)."""
    torch._dynamo.config.recompile_limit = 128
    torch._dynamo.config.fail_on_recompile_limit_hit = True
    return torch.compile(flex_attention, dynamic=False)


def causal_mask(b: Tensor, h: Tensor, q_idx: Tensor, kv_idx: Tensor) -> Tensor:
    return q_idx >= kv_idx


def torch_flex(case: Case, x: Inputs) -> Callable[[], Tensor]:
    flex = compiled_flex()
    block_mask = None
    if case.causal:
        block_mask = create_block_mask(causal_mask, None, None, case.seqlen_q, case.seqlen_k,
                                       device=x.q.device)
    return lambda: flex(x.q, x.k, x.v, block_mask=block_mask, enable_gqa=case.gqa)


def sdpa_flash_pad_v(case: Case, x: Inputs) -> Callable[[], Tensor]:
    """The workaround for kernels that take one head dim: v zero-padded to q's, the output's
    first v head dim columns (the pad inside the timed call, as a model runs it)."""
    def run() -> Tensor:
        v = F.pad(x.v, (0, case.head_dim - case.dv))
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            out = F.scaled_dot_product_attention(x.q, x.k, v, is_causal=case.causal,
                                                 enable_gqa=case.gqa)
        return out[..., :case.dv]

    return run


PROVIDERS: dict[str, Provider] = {
    OURS: flash_ext_attention,
    DETERMINISTIC: flash_ext_deterministic,
    "sdpa_flash": sdpa(SDPBackend.FLASH_ATTENTION),
    "sdpa_efficient": sdpa(SDPBackend.EFFICIENT_ATTENTION),
    "sdpa_cudnn": sdpa(SDPBackend.CUDNN_ATTENTION),
    "torch_flex": torch_flex,
    PAD_V: sdpa_flash_pad_v,
}


# Directions: a runner turns a provider's call into the call to time, returning what is checked.

Runner = Callable[[], tuple[Tensor, ...]]


def forward_runner(fn: Callable[[], Tensor], x: Inputs) -> Runner:
    def run() -> tuple[Tensor, ...]:
        with torch.no_grad():
            return (fn(),)

    return run


def train_forward_runner(fn: Callable[[], Tensor], x: Inputs) -> Runner:
    """The forward as training runs it: inputs that require grad, a graph built (and dropped)
    per call, so that the entry point's autograd work is in the time."""
    def run() -> tuple[Tensor, ...]:
        with torch.enable_grad():
            return (fn(),)

    return run


def backward_runner(fn: Callable[[], Tensor], x: Inputs) -> Runner:
    """The backward alone: autograd.grad over the retained graph of one forward."""
    with torch.enable_grad():
        out = fn()
    leaves = (x.q, x.k, x.v)
    return lambda: torch.autograd.grad(out, leaves, x.grad_out, retain_graph=True)


RUNNERS: dict[str, Callable[[Callable[[], Tensor], Inputs], Runner]] = {
    "fwd": forward_runner,
    "fwd_train": train_forward_runner,
    "bwd": backward_runner,
}


# Timing


def bench(fn: Callable[[], object], warmup_ms: float, rep_ms: float) -> float:
    """Median seconds of fn() by CUDA events, after warm-up, L2 flushed before each call."""
    if do_bench is not None:
        return do_bench(fn, warmup=warmup_ms, rep=rep_ms, return_mode="median") / 1e3
    return event_median(fn, warmup_ms, rep_ms)


def timed(fn: Callable[[], object], device: str) -> float:
    """Median seconds of fn(): bench() on CUDA; on the CPU (a check of a script) of five calls."""
    if device == "cuda":
        return bench(fn, warmup_ms=25, rep_ms=100)
    times = []
    for _ in range(5):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def event_median(fn: Callable[[], object], warmup_ms: float, rep_ms: float,
                  flush: Callable[[], object] | None = None, max_reps: int | None = None) -> float:
    """do_bench's method without triton: flush() before each timed call (default: zeroing a
    256 MiB buffer, as do_bench does), at most max_reps timed calls."""
    if flush is None:
        flush = torch.empty(256 * 2**20, dtype=torch.int8, device="cuda").zero_

    def timed(n: int) -> list[float]:
        events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                  for _ in range(n)]
        for start, end in events:
            flush()
            start.record()
            fn()
            end.record()
        torch.cuda.synchronize()
        return [start.elapsed_time(end) for start, end in events]

    estimate_ms = max(sum(timed(5)) / 5, 1e-3)
    for _ in range(max(1, int(warmup_ms / estimate_ms))):
        fn()
    reps = max(1, int(rep_ms / estimate_ms))
    times = sorted(timed(reps if max_reps is None else min(reps, max_reps)))
    return times[len(times) // 2] / 1e3


# Running


@dataclass
class Result:
    case: Case
    direction: str
    provider: str
    seconds: float | None = None  # median time of one call
    setup_s: float | None = None  # wall time from building the provider to its first result
    error: str | None = None  # why n/a
    reference: str | None = None  # provider checked against
    rel_err: float | None = None

    @property
    def rate(self) -> float | None:
        return None if self.seconds is None else self.case.rate(self.direction, self.seconds)

    @property
    def mismatch(self) -> bool:
        return self.rel_err is not None and not self.rel_err <= self.case.check_tol  # NaN too


def describe_error(exc: BaseException, caught: list[warnings.WarningMessage]) -> str:
    """The error's first line (two when it only introduces the next, as torch.compile's do),
    plus the warnings raised with it (SDPA says there why a backend refused)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    head = lines[:2] if lines and lines[0].endswith(":") else lines[:1]
    text = " ".join([f"{type(exc).__name__}:", *head])
    reasons = [re.sub(r"\s*\(Triggered internally at .*", "", str(w.message)).strip()
               for w in caught if issubclass(w.category, UserWarning)]
    reasons = list(dict.fromkeys(r.splitlines()[0] for r in reasons if r))
    if reasons:
        text += " (warnings: " + "; ".join(reasons) + ")"
    return text if len(text) <= 400 else text[:397] + "..."


def run_provider(case: Case, direction: str, name: str, x: Inputs,
                 timer: Callable[[Runner], float]) -> tuple[Result, tuple[Tensor, ...] | None]:
    """Time one provider; returns its result and its first call's output (None if n/a)."""
    result = Result(case, direction, name)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            start = time.perf_counter()
            run = RUNNERS[direction](PROVIDERS[name](case, x), x)
            out = run()
            torch.cuda.synchronize()
            result.setup_s = time.perf_counter() - start
            result.seconds = timer(run)
        except Exception as exc:  # noqa: BLE001  (any failure is this provider's n/a)
            result.error = describe_error(exc, caught)
            return result, None
    return result, tuple(t.detach() for t in out)


def relative_error(out: Sequence[Tensor], ref: Sequence[Tensor]) -> float:
    """Largest |x - ref| / |ref| over the tensors (output, or dq, dk, dv)."""
    return max(((a.float() - b.float()).norm() / b.float().norm()).item()
               for a, b in zip(out, ref, strict=True))


def check(results: list[Result], outputs: dict[str, tuple[Tensor, ...]]) -> None:
    """Compare every provider's output with the reference's; print the errors, loudly if over
    the tolerance."""
    reference = next((name for name in REFERENCES if name in outputs), None)
    if reference is None:
        print(f"{'check':>15}  nothing to check against (none of {', '.join(REFERENCES)} ran)")
        return
    checked = [r for r in results if r.provider in outputs and r.provider != reference]
    for r in checked:
        r.reference = reference
        r.rel_err = relative_error(outputs[r.provider], outputs[reference])
    errors = ", ".join(f"{r.provider} {r.rel_err:.1e}" for r in checked)
    print(f"{'check':>15}  |x - ref| / |ref| against {reference}: {errors or '-'}", flush=True)
    for r in checked:
        if r.mismatch:
            print(f"!!! MISMATCH !!! {r.provider} {r.direction} {r.case.name}: rel err "
                  f"{r.rel_err:.3e} against {reference} (tolerance {r.case.check_tol:.0e})",
                  flush=True)


def progress_line(r: Result) -> str:
    if r.error is not None:
        return f"{r.provider:>15}  n/a: {r.error}"
    return (f"{r.provider:>15}  {r.seconds * 1e3:9.3f} ms  {r.rate:8.1f} {r.case.unit}"
            f"  (first call {r.setup_s:.1f} s)")


def run_case(case: Case, directions: Sequence[str], providers: Sequence[str],
             timer: Callable[[Runner], float], device: str = "cuda",
             label: str = "") -> list[Result]:
    """Every (direction, provider) of one case, on one set of inputs."""
    try:
        x = make_inputs(case, device, requires_grad=bool({"bwd", "fwd_train"} & set(directions)))
    except Exception as exc:  # noqa: BLE001  (out of memory, say: the whole case is n/a)
        error = "inputs: " + describe_error(exc, [])
        print(f"{label} {case.name}: n/a, {error}", flush=True)
        return [Result(case, d, p, error=error) for d in directions for p in providers]
    results = []
    for direction in directions:
        print(f"{label} {case.name} {direction}: B={case.batch} H={case.heads} "
              f"Sq={case.seqlen_q} Sk={case.seqlen_k} D={case.head_dim}", flush=True)
        outputs: dict[str, tuple[Tensor, ...]] = {}
        batch = []
        for name in providers:
            result, out = run_provider(case, direction, name, x, timer)
            print(progress_line(result), flush=True)
            if out is not None:
                outputs[name] = out
            batch.append(result)
        check(batch, outputs)
        results += batch
    return results


# Report


class Footnotes:
    """Numbered notes, one number per distinct text."""

    def __init__(self) -> None:
        self.numbers: dict[str, int] = {}

    def ref(self, text: str) -> str:
        return f"[{self.numbers.setdefault(text, len(self.numbers) + 1)}]"

    def render(self) -> str:
        return "\n".join(f"- [{n}] {text}" for text, n in self.numbers.items())


def rate_cell(r: Result, notes: Footnotes) -> str:
    if r.error is not None:
        return "n/a " + notes.ref(f"{r.provider}: {r.error}")
    cell = f"{r.rate:.1f}"
    if r.mismatch:
        cell += " (!) " + notes.ref(
            f"{r.provider} {r.direction} {r.case.name}: differs from {r.reference}, "
            f"rel err {r.rel_err:.2e} > {r.case.check_tol:.0e}")
    return cell


def ratio_cell(ours: Result, peer: Result) -> str:
    if ours.rate is None or peer.rate is None:
        return "-"
    return f"{ours.rate / peer.rate:.2f}x"


def providers_of(results: list[Result]) -> list[str]:
    """The providers that appear in `results`, in order."""
    return list(dict.fromkeys(r.provider for r in results))


def render_table(results: list[Result], notes: Footnotes) -> str:
    providers = providers_of(results)
    rows: dict[Case, dict[str, Result]] = {}
    for r in results:
        rows.setdefault(r.case, {})[r.provider] = r
    peers = [p for p in providers if p != OURS]
    columns = ["B", "H", "Sq", "Sk", "D", "causal", *providers]
    if OURS in providers:
        columns += [f"{OURS} ms", *(f"{OURS} / {p}" for p in peers)]
    lines = ["| " + " | ".join(columns) + " |", "|" + " --- |" * len(columns)]
    for case, row in rows.items():
        cells = [str(n) for n in (case.batch, case.heads, case.seqlen_q, case.seqlen_k,
                                  case.head_dim)]
        cells.append("yes" if case.causal else "no")
        cells += [rate_cell(row[p], notes) for p in providers]
        if OURS in providers:
            ours = row[OURS]
            cells.append("n/a" if ours.seconds is None else f"{ours.seconds * 1e3:.3f}")
            cells += [ratio_cell(ours, row[p]) for p in peers]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def render_tables(results: list[Result]) -> str:
    """One markdown table per (direction, section), with the section's note, then the
    footnotes."""
    sections: dict[tuple[str, str], list[Result]] = {}
    for r in results:
        sections.setdefault((r.direction, r.case.section), []).append(r)
    notes = Footnotes()
    parts = []
    for (direction, section), rs in sections.items():
        parts.append(f"### {direction}: {SECTION_TITLES[section]}\n\n{render_table(rs, notes)}")
        if section in SECTION_NOTES:
            parts.append(f"Note: {SECTION_NOTES[section]}")
    if notes.numbers:
        parts.append(notes.render())
    return "\n\n".join(parts)


def render_summary(results: list[Result]) -> str:
    """Largest check error (per dtype when there are several) and total first-call time, per
    provider."""
    providers = providers_of(results)
    dtypes = list(dict.fromkeys(r.case.dtype for r in results))
    errors = []
    for direction in ("fwd", "fwd_train", "bwd"):
        for p in providers:
            for dtype in dtypes:
                checked = [r for r in results if r.provider == p and r.direction == direction
                           and r.case.dtype == dtype and r.rel_err is not None]
                if checked:
                    worst = max(checked, key=lambda r: r.rel_err)
                    which = f"{direction} {DTYPE_NAMES[dtype]}" if len(dtypes) > 1 else direction
                    errors.append(f"{p} {which} {worst.rel_err:.1e} (vs {worst.reference})")
    setup = [f"{p} {sum(r.setup_s for r in results if r.provider == p and r.setup_s):.1f} s"
             for p in providers]
    tolerance = ", ".join(f"{CHECK_TOL[t]:.0e} {DTYPE_NAMES[t]}" for t in dtypes)
    return (f"Output check, largest |x - ref| / |ref| over the rows (tolerance {tolerance}): "
            f"{', '.join(errors) or 'nothing checked'}.\n"
            "First calls (excluded from the timings; torch_flex's compile happens there), "
            f"total per provider: {', '.join(setup)}.")


def render_markdown(results: list[Result], environment: str, command: str, timing: str,
                    directions: Sequence[str]) -> str:
    method = ("Method: inputs random normal, built once per case and shared by the providers; "
              f"{timing}; fwd under torch.no_grad(); fwd_train with inputs that require grad "
              "(a graph per call); bwd = torch.autograd.grad over a retained "
              "graph (backward alone). TFLOP/s counts 4*B*H*Sq*Sk*D forward, halved for causal, "
              "2.5x for the backward; decode GB/s counts K and V read once. mem_eff rows: "
              f"{OURS} with backend=\"mem_eff\" against sdpa_efficient alone. "
              f"`{OURS} / peer` = {OURS} throughput / the peer's (> 1: {OURS} faster).")
    return (f"# Attention on GPU: flash_ext vs PyTorch ({', '.join(directions)})\n\n"
            f"{environment}\n\nCommand: `{command}`\n\n{method}\n\n"
            f"{render_summary(results)}\n\n{render_tables(results)}\n")


def write_plot(results: list[Result], path: Path, title: str) -> None:
    """One subplot per (direction, head dim) of each family and variant, one for decode;
    grouped bars per provider."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels: dict[tuple[str, str], list[Result]] = {}
    for r in results:
        panels.setdefault((r.direction, r.case.panel), []).append(r)
    providers = providers_of(results)
    ncols = min(len(panels), 2)
    nrows = math.ceil(len(panels) / ncols)
    top = 0.75  # inches above the panels for the title and the legend
    fig, axes = plt.subplots(nrows, ncols, figsize=(8 * ncols, 4.5 * nrows + top), squeeze=False)
    colors = dict(zip(providers, plt.get_cmap("tab10").colors, strict=False))
    for ax, ((direction, panel), rs) in zip(axes.flat, panels.items(), strict=False):
        cases = list(dict.fromkeys(r.case for r in rs))
        names = providers_of(rs)
        width = 0.8 / len(names)
        for r in rs:
            i, g = names.index(r.provider), cases.index(r.case)
            offset = (i - (len(names) - 1) / 2) * width
            ax.bar(g + offset, r.rate or 0, width, color=colors[r.provider], label=r.provider)
            if r.rate is None:
                ax.text(g + offset, 0, " n/a", rotation=90, ha="center", va="bottom",
                        fontsize=7)
            elif r.mismatch:
                ax.text(g + offset, r.rate, "!", color="red", ha="center", va="bottom",
                        fontweight="bold")
        ax.set_xticks(range(len(cases)), [c.group for c in cases])
        ax.set_title(f"{direction}, {panel}")
        ax.set_ylabel(cases[0].unit)
        ax.grid(axis="y", alpha=0.3)
        ax.set_axisbelow(True)
    for ax in axes.flat[len(panels):]:
        ax.axis("off")
    handles = {label: h for ax in axes.flat for h, label in zip(*ax.get_legend_handles_labels())}
    height = fig.get_figheight()
    fig.suptitle(title, y=1 - 0.12 / height, va="top")
    fig.legend(handles.values(), handles.keys(), loc="upper center", ncol=len(handles),
               frameon=False,
               bbox_to_anchor=(0.5, 1 - 0.4 / height))
    fig.tight_layout(rect=(0, 0, 1, 1 - top / height))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def environment(date: str) -> str:
    p = torch.cuda.get_device_properties(0)
    if flash_ext is None:
        ours = f"flash_ext not importable ({FLASH_EXT_IMPORT_ERROR})"
    else:
        built = ", ".join(sorted(CUDA_BACKENDS)) or "none"
        ours = f"flash_ext {flash_ext.__version__} (CUDA backends built: {built})"
    return (f"Device: {p.name} (sm_{p.major}{p.minor}, {p.multi_processor_count} SMs, "
            f"{p.total_memory / 2**30:.0f} GiB); torch {torch.__version__} (CUDA "
            f"{torch.version.cuda}, cuDNN {torch.backends.cudnn.version()}); triton "
            f"{triton.__version__ if triton else 'not installed'}; {ours}; {date}.")


# Command line


def provider_list(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in PROVIDERS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown provider(s) {unknown}; choose from {', '.join(PROVIDERS)}")
    return names


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--direction", choices=DIRECTIONS, default="fwd",
                        help="fwd (under no_grad), fwd_train (inputs that require grad), bwd "
                        "(backward alone), all (fwd and bwd) or train (fwd_train and bwd); "
                        "default fwd")
    parser.add_argument("--quick", action="store_true",
                        help=f"only {', '.join(QUICK_CASES)}, shorter timing; writes files only "
                        "with --out")
    parser.add_argument("--shapes", metavar="REGEX",
                        help="run the cases whose name matches (re.search), e.g. 'D=128', "
                        "'S=16384 causal', 'decode'; --list shows the names")
    parser.add_argument("--providers", type=provider_list, default=list(PROVIDERS),
                        help=f"comma-separated subset of {','.join(PROVIDERS)}")
    parser.add_argument("--out", type=Path, default=None,
                        help="directory for attention_<direction>_<date>.md and .png "
                        "(default benchmarks/results; none with --quick)")
    parser.add_argument("--warmup-ms", type=float, default=None,
                        help="warm-up per provider in ms (default 25, --quick 10)")
    parser.add_argument("--rep-ms", type=float, default=None,
                        help="timed repetitions per provider in ms (default 200, --quick 50)")
    parser.add_argument("--list", action="store_true", help="print the selected cases and exit")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    directions = DIRECTIONS[args.direction]
    cases = select_cases(args.shapes, args.quick, directions)
    if args.list or not cases:
        print("\n".join(c.name for c in cases) or f"no case matches {args.shapes!r}")
        return 0 if cases else 2
    if not torch.cuda.is_available():
        print("bench_attention.py needs a CUDA GPU (torch.cuda.is_available() is False)",
              file=sys.stderr)
        return 2
    out_dir = args.out or (None if args.quick else RESULTS)
    warmup_ms = args.warmup_ms or (10 if args.quick else 25)
    rep_ms = args.rep_ms or (50 if args.quick else 200)
    timing = (f"{'triton.testing.do_bench' if do_bench else 'CUDA-event loop'} median, "
              f"warm-up {warmup_ms:g} ms, repetitions over {rep_ms:g} ms, L2 flushed per call")
    date = datetime.date.today().isoformat()
    env = environment(date)
    command = shlex.join(["python", "benchmarks/bench_attention.py",
                          *(sys.argv[1:] if argv is None else argv)])
    print(f"{env}\n{timing}\n{len(cases)} cases x {len(args.providers)} providers", flush=True)
    timer = functools.partial(bench, warmup_ms=warmup_ms, rep_ms=rep_ms)
    results: list[Result] = []
    for i, case in enumerate(cases, 1):
        todo = [d for d in directions if d in case.directions]
        providers = [p for p in args.providers if p in case.providers]
        if providers:
            results += run_case(case, todo, providers, timer, label=f"[{i}/{len(cases)}]")
    print("\n" + render_summary(results))
    print("\n" + render_tables(results), flush=True)
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        stem = out_dir / f"attention_{args.direction}_{date}"
        md = stem.with_suffix(".md")
        md.write_text(render_markdown(results, env, command, timing, directions))
        print(f"\nwrote {md}")
        try:
            write_plot(results, stem.with_suffix(".png"),
                       f"flash_ext vs PyTorch attention, bf16 unless marked "
                       f"({torch.cuda.get_device_name()}, torch {torch.__version__}, {date})")
            print(f"wrote {stem.with_suffix('.png')}")
        except ImportError as exc:
            print(f"no plot: {exc}")
    mismatches = [r for r in results if r.mismatch]
    for r in mismatches:
        print(f"!!! MISMATCH !!! {r.provider} {r.direction} {r.case.name}: rel err "
              f"{r.rel_err:.3e} against {r.reference}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
