"""A Hugging Face transformers model with flash_ext as its attention, against transformers'
"sdpa" and "flex_attention" implementations, side by side in one run.

Model: a Llama-shaped LlamaForCausalLM built from a config with random weights, nothing
downloaded: 8 layers, width 2048, 16 query and 4 key/value heads of 128 (GQA), MLP 5632,
vocabulary 32000, bf16 (--tiny: 2 layers, width 128, 4/2 heads, 64 tokens, for a run on the
CPU). One model serves every provider: set_attn_implementation switches between them, so the
weights are the same. flash_ext is registered under flash_ext.integrations.transformers'
default name.
- train: one training step, forward with labels (the causal LM loss) and backward, on B x S
  random tokens (default 1 x 8192). tokens/s = B * S / step time.
- generate: greedy generate() of a B x P prompt (default P = S) with a DynamicCache (--cache
  static: a StaticCache, generate's automatic torch.compile of the decode step switched off for
  every provider): prefill = the time of generate(max_new_tokens=1); decode, per token = (the
  time of generate(max_new_tokens=1+N) minus prefill) / N (default N = 64).
Peak memory: torch.cuda.max_memory_allocated over the timed calls (weights included).

Method. Each provider's first call is excluded from the timings and its wall time reported
(flex_attention compiles there; for training, transformers compiles it with
mode="max-autotune-no-cudagraphs", which may take minutes); then warm-up calls and timed
repetitions, CUDA events around each call (perf_counter on the CPU), median. Check: the first
training step's loss, logits and attention-projection gradients against sdpa's (|x - ref| /
|ref|, Frobenius norms; tolerance 5e-2 in bf16, 1e-4 in float32): a mismatch is printed loudly,
marked in the table and makes the exit status 1. Generated tokens are compared with sdpa's and
the count of differing sequences reported, not failed (bf16 rounding may flip a greedy choice).
A provider that raises (out of memory, compile error) shows n/a with the error's first line in
a footnote; the run goes on.

    python benchmarks/bench_model.py                                  # H100: table on stdout
    python benchmarks/bench_model.py --out benchmarks/results         # and model_<date>.md
    python benchmarks/bench_model.py --device cpu --tiny              # end to end on the CPU
    python benchmarks/bench_model.py --providers flash_ext,sdpa --parts train --seqlen 4096
"""

from __future__ import annotations

import argparse
import datetime
import gc
import importlib.util
import shlex
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import torch
from bench_attention import Footnotes  # this folder's
from torch import Tensor

import flash_ext
from flash_ext.integrations import transformers as flash_ext_hf

OURS = "flash_ext"
REFERENCE = "sdpa"
PROVIDERS = (OURS, "sdpa", "flex_attention")
PARTS = ("train", "generate")
# |x - ref| / |ref| after the whole model: bf16 rounding over the layers stays well below 5e-2;
# a wrong mask, window or alignment is off by far more (order 1)
CHECK_TOL = {torch.bfloat16: 5e-2, torch.float16: 5e-2, torch.float32: 1e-4}
DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}
GIB = 2**30


@dataclass(frozen=True)
class Shape:
    layers: int
    width: int
    heads: int
    kv_heads: int
    mlp: int
    vocab: int
    batch: int
    seqlen: int
    prompt: int
    new_tokens: int

    def describe(self) -> str:
        return (f"{self.layers} layers, width {self.width}, {self.heads}/{self.kv_heads} heads of "
                f"{self.width // self.heads}, MLP {self.mlp}, vocabulary {self.vocab}")


FULL = Shape(layers=8, width=2048, heads=16, kv_heads=4, mlp=5632, vocab=32000, batch=1,
             seqlen=8192, prompt=8192, new_tokens=64)
TINY = Shape(layers=2, width=128, heads=4, kv_heads=2, mlp=256, vocab=256, batch=1, seqlen=64,
             prompt=64, new_tokens=8)


def build_model(shape: Shape, dtype: torch.dtype, device: str):
    import transformers

    config = transformers.LlamaConfig(
        vocab_size=shape.vocab, hidden_size=shape.width, intermediate_size=shape.mlp,
        num_hidden_layers=shape.layers, num_attention_heads=shape.heads,
        num_key_value_heads=shape.kv_heads,
        max_position_embeddings=max(shape.seqlen, shape.prompt + shape.new_tokens))
    with torch.device(device):  # weights initialized where they run
        model = transformers.AutoModelForCausalLM.from_config(config, dtype=dtype,
                                                              attn_implementation=REFERENCE)
    return model.to(device)


# Timing


def synchronize(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def timings(fn: Callable[[], object], device: str, warmup: int, reps: int) -> list[float]:
    """Seconds of each of `reps` calls of fn after `warmup` calls: CUDA events, or perf_counter
    on the CPU."""
    for _ in range(warmup):
        fn()
    synchronize(device)
    if not device.startswith("cuda"):
        times = []
        for _ in range(reps):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
        return times
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(reps)]
    for start, end in events:
        start.record()
        fn()
        end.record()
    torch.cuda.synchronize()
    return [start.elapsed_time(end) / 1e3 for start, end in events]


def reset_memory(device: str) -> None:
    gc.collect()
    if device.startswith("cuda"):
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()


def peak_memory(device: str) -> float | None:
    return torch.cuda.max_memory_allocated() / GIB if device.startswith("cuda") else None


# Running


@dataclass
class Result:
    provider: str
    part: str
    seconds: float | None = None  # train: one step; generate: prefill
    decode_s: float | None = None  # generate: one decode step
    first_s: float | None = None  # wall time of the first call (compiles included)
    peak_gib: float | None = None
    error: str | None = None
    errors: dict[str, float] = field(default_factory=dict)  # check: name -> rel err vs sdpa
    differing: int | None = None  # generate: sequences whose tokens differ from sdpa's


def describe_error(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    text = f"{type(exc).__name__}: {lines[0] if lines else ''}"
    return text if len(text) <= 300 else text[:297] + "..."


def relative_error(x: Tensor, ref: Tensor) -> float:
    return ((x.float() - ref.float()).norm() / ref.float().norm()).item()


def run_train(model, ids: Tensor, device: str, warmup: int, reps: int,
              result: Result) -> dict[str, Tensor]:
    """Times the training step; returns what the check compares (loss, logits, gradients of
    the attention projections) from the first step."""
    model.train()

    def step() -> Tensor:
        out = model(input_ids=ids, labels=ids, use_cache=False)
        out.loss.backward()
        return out

    start = time.perf_counter()
    out = step()
    synchronize(device)
    result.first_s = time.perf_counter() - start
    # kept on the CPU, out of the next providers' peak memory
    checked = {"loss": out.loss.detach().cpu(), "logits": out.logits.detach().cpu()}
    checked |= {name: p.grad.detach().cpu() for name, p in model.named_parameters()
                if "self_attn" in name and p.grad is not None}
    del out
    model.zero_grad(set_to_none=True)
    reset_memory(device)

    def timed_step() -> None:
        step()
        model.zero_grad(set_to_none=True)

    result.seconds = statistics.median(timings(timed_step, device, warmup, reps))
    result.peak_gib = peak_memory(device)
    return checked


def run_generate(model, prompt: Tensor, new_tokens: int, cache: str, device: str, warmup: int,
                 reps: int, result: Result) -> Tensor:
    """Times prefill and decode; returns the generated tokens."""
    model.eval()
    mask = torch.ones_like(prompt)

    def generate(n: int) -> Tensor:
        return model.generate(input_ids=prompt, attention_mask=mask, max_new_tokens=n,
                              min_new_tokens=n, do_sample=False, pad_token_id=0,
                              cache_implementation=cache, disable_compile=True)

    start = time.perf_counter()
    tokens = generate(1 + new_tokens)
    synchronize(device)
    result.first_s = time.perf_counter() - start
    reset_memory(device)
    prefill = statistics.median(timings(lambda: generate(1), device, warmup, reps))
    total = statistics.median(timings(lambda: generate(1 + new_tokens), device, warmup, reps))
    result.seconds, result.decode_s = prefill, (total - prefill) / new_tokens
    result.peak_gib = peak_memory(device)
    return tokens.cpu()


def run_provider(model, provider: str, attn_name: str, part: str, inputs: Tensor,
                 args: argparse.Namespace) -> tuple[Result, object]:
    result = Result(provider, part)
    try:
        model.set_attn_implementation(attn_name)
        reset_memory(args.device)
        if part == "train":
            out = run_train(model, inputs, args.device, args.warmup, args.reps, result)
        else:
            out = run_generate(model, inputs, args.shape.new_tokens, args.cache, args.device,
                               args.warmup, args.reps, result)
    except Exception as exc:  # noqa: BLE001  (any failure is this provider's n/a)
        result.error = describe_error(exc)
        model.zero_grad(set_to_none=True)
        return result, None
    return result, out


def check(results: list[Result], outputs: dict[str, object], tol: float) -> None:
    if REFERENCE not in outputs:
        print(f"{'check':>15}  nothing to check against ({REFERENCE} did not run)")
        return
    ref = outputs[REFERENCE]
    for r in results:
        if r.provider == REFERENCE or r.provider not in outputs:
            continue
        out = outputs[r.provider]
        if r.part == "train":
            r.errors = {"loss": relative_error(out["loss"], ref["loss"]),
                        "logits": relative_error(out["logits"], ref["logits"]),
                        "attention grads": max(relative_error(out[n], ref[n])
                                               for n in ref if n not in ("loss", "logits"))}
            text = ", ".join(f"{k} {v:.1e}" for k, v in r.errors.items())
            print(f"{'check':>15}  {r.provider} against {REFERENCE}: {text}", flush=True)
            if mismatch(r, tol):
                print(f"!!! MISMATCH !!! {r.provider} train: {text} (tolerance {tol:.0e})",
                      flush=True)
        else:
            r.differing = int((out != ref).any(dim=-1).sum()) if out.shape == ref.shape else (
                out.shape[0])
            print(f"{'check':>15}  {r.provider}: {r.differing} of {ref.shape[0]} sequences "
                  f"differ from {REFERENCE}'s", flush=True)


def mismatch(r: Result, tol: float) -> bool:
    return any(not err <= tol for err in r.errors.values())  # NaN too


def progress_line(r: Result, shape: Shape) -> str:
    if r.error is not None:
        return f"{r.provider:>15}  n/a: {r.error}"
    peak = "" if r.peak_gib is None else f"  peak {r.peak_gib:.2f} GiB"
    if r.part == "train":
        rate = shape.batch * shape.seqlen / r.seconds
        what = f"{r.seconds * 1e3:9.2f} ms/step  {rate:10.0f} tokens/s"
    else:
        what = f"prefill {r.seconds * 1e3:9.2f} ms  decode {r.decode_s * 1e3:7.3f} ms/token"
    return f"{r.provider:>15}  {what}{peak}  (first call {r.first_s:.1f} s)"


# Report


def ms(seconds: float | None) -> str:
    return "n/a" if seconds is None else f"{seconds * 1e3:.2f}"


def speedup(ours: float | None, theirs: float | None) -> str:
    return "-" if ours is None or theirs is None else f"{theirs / ours:.2f}x"


def gib(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def render_table(columns: list[str], results: list[Result], cells: Callable[[Result], list[str]],
                 notes: Footnotes) -> str:
    """A markdown table, a row per provider: its name, then cells(result), or n/a."""
    lines = ["| " + " | ".join(columns) + " |", "|" + " --- |" * len(columns)]
    for r in results:
        if r.error is not None:
            row = [f"n/a {notes.ref(f'{r.provider}: {r.error}')}"] + ["-"] * (len(columns) - 2)
        else:
            row = cells(r)
        lines.append("| " + " | ".join([r.provider, *row]) + " |")
    return "\n".join(lines)


def render_train(results: list[Result], shape: Shape, tol: float, notes: Footnotes) -> str:
    ours = next((r for r in results if r.provider == OURS and r.error is None), None)

    def cells(r: Result) -> list[str]:
        errors = " / ".join(f"{v:.1e}" for v in r.errors.values()) or "-"
        if mismatch(r, tol):
            errors += " (!) " + notes.ref(f"{r.provider}: differs from {REFERENCE} by more than "
                                          f"{tol:.0e}")
        return [ms(r.seconds), f"{shape.batch * shape.seqlen / r.seconds:.0f}", gib(r.peak_gib),
                f"{r.first_s:.1f}", speedup(ours and ours.seconds, r.seconds), errors]

    columns = ["attn_implementation", "ms / step", "tokens/s", "peak GiB", "first call s",
               f"{OURS} speedup", f"loss / logits / attention grads rel err vs {REFERENCE}"]
    return render_table(columns, results, cells, notes)


def render_generate(results: list[Result], shape: Shape, notes: Footnotes) -> str:
    ours = next((r for r in results if r.provider == OURS and r.error is None), None)

    def cells(r: Result) -> list[str]:
        differing = "-" if r.differing is None else f"{r.differing} of {shape.batch}"
        return [ms(r.seconds), ms(r.decode_s), gib(r.peak_gib), f"{r.first_s:.1f}",
                speedup(ours and ours.seconds, r.seconds),
                speedup(ours and ours.decode_s, r.decode_s), differing]

    columns = ["attn_implementation", "prefill ms", "decode ms / token", "peak GiB",
               "first call s", f"{OURS} prefill speedup", f"{OURS} decode speedup",
               f"sequences differing from {REFERENCE}"]
    return render_table(columns, results, cells, notes)


def render_tables(results: list[Result], args: argparse.Namespace, tol: float) -> str:
    shape, notes, parts = args.shape, Footnotes(), []
    train = [r for r in results if r.part == "train"]
    if train:
        parts.append(f"### Training step (forward + backward), B={shape.batch}, "
                     f"S={shape.seqlen}\n\n{render_train(train, shape, tol, notes)}")
    generate = [r for r in results if r.part == "generate"]
    if generate:
        parts.append(f"### generate(), greedy, B={shape.batch}, prompt {shape.prompt}, "
                     f"{shape.new_tokens} new tokens, {args.cache} cache\n\n"
                     f"{render_generate(generate, shape, notes)}")
    if notes.numbers:
        parts.append(notes.render())
    parts.append(f"`{OURS} speedup` = the row's time / {OURS}'s (> 1: {OURS} faster).")
    return "\n\n".join(parts)


def environment(args: argparse.Namespace, date: str) -> str:
    import transformers

    if args.device.startswith("cuda"):
        p = torch.cuda.get_device_properties(0)
        device = (f"{p.name} (sm_{p.major}{p.minor}, {p.total_memory / GIB:.0f} GiB); torch "
                  f"{torch.__version__} (CUDA {torch.version.cuda})")
    else:
        device = f"CPU ({torch.get_num_threads()} threads); torch {torch.__version__}"
    return (f"Device: {device}; transformers {transformers.__version__}; flash_ext "
            f"{flash_ext.__version__} (registered as {args.attn_name!r}); model: "
            f"{args.shape.describe()}, {args.dtype}; {date}.")


# Command line


def subset_of(choices: Sequence[str]) -> Callable[[str], list[str]]:
    """argparse type: a comma-separated subset of `choices`."""
    def parse(text: str) -> list[str]:
        names = [n.strip() for n in text.split(",") if n.strip()]
        unknown = [n for n in names if n not in choices]
        if unknown or not names:
            raise argparse.ArgumentTypeError(
                f"unknown name(s) {unknown} in {text!r}; choose from {', '.join(choices)}")
        return names

    return parse


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cuda", help="cuda (default) or cpu")
    parser.add_argument("--tiny", action="store_true",
                        help=f"a tiny model for a check run: {TINY.describe()}, S={TINY.seqlen}")
    parser.add_argument("--dtype", choices=DTYPES, default=None,
                        help="default bf16 (fp32 with --device cpu)")
    parser.add_argument("--providers", type=subset_of(PROVIDERS), default=list(PROVIDERS),
                        help=f"comma-separated subset of {','.join(PROVIDERS)}")
    parser.add_argument("--parts", type=subset_of(PARTS), default=list(PARTS),
                        help=f"comma-separated subset of {','.join(PARTS)}")
    parser.add_argument("--layers", type=int, help="number of layers (default 8)")
    parser.add_argument("--batch", type=int, help="batch size (default 1)")
    parser.add_argument("--seqlen", type=int, help="training tokens per sequence (default 8192)")
    parser.add_argument("--prompt", type=int, help="prompt length for generate (default: S)")
    parser.add_argument("--new-tokens", type=int, help="tokens to decode (default 64)")
    parser.add_argument("--cache", choices=("dynamic", "static"), default="dynamic",
                        help="generate()'s cache (default dynamic)")
    parser.add_argument("--warmup", type=int, default=None,
                        help="warm-up calls per provider after the first (default 2)")
    parser.add_argument("--reps", type=int, default=None,
                        help="timed calls per provider (default 5; 2 with --tiny)")
    parser.add_argument("--out", type=Path, default=None,
                        help="directory for model_<date>.md (default: print only)")
    args = parser.parse_args(argv)
    base = TINY if args.tiny else FULL
    seqlen = args.seqlen or base.seqlen
    args.shape = Shape(layers=args.layers or base.layers, width=base.width, heads=base.heads,
                       kv_heads=base.kv_heads, mlp=base.mlp, vocab=base.vocab,
                       batch=args.batch or base.batch, seqlen=seqlen,
                       prompt=args.prompt or (seqlen if args.seqlen else base.prompt),
                       new_tokens=args.new_tokens or base.new_tokens)
    args.dtype = args.dtype or ("fp32" if args.device == "cpu" else "bf16")
    args.warmup = 2 if args.warmup is None else args.warmup
    args.reps = args.reps or (2 if args.tiny else 5)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print("bench_model.py: no CUDA device (torch.cuda.is_available() is False); "
              "--device cpu --tiny runs on the CPU", file=sys.stderr)
        return 2
    if importlib.util.find_spec("transformers") is None:
        print("bench_model.py needs transformers (pip install transformers)", file=sys.stderr)
        return 2
    args.attn_name = flash_ext_hf.register()
    attn_names = {OURS: args.attn_name, "sdpa": "sdpa", "flex_attention": "flex_attention"}
    dtype, shape = DTYPES[args.dtype], args.shape
    tol = CHECK_TOL[dtype]
    date = datetime.date.today().isoformat()
    env = environment(args, date)
    command = shlex.join(["python", "benchmarks/bench_model.py",
                          *(sys.argv[1:] if argv is None else argv)])
    print(env, flush=True)
    torch.manual_seed(0)
    model = build_model(shape, dtype, args.device)
    generator = torch.Generator(args.device).manual_seed(1)
    inputs = {
        "train": torch.randint(0, shape.vocab, (shape.batch, shape.seqlen), device=args.device,
                               generator=generator),
        "generate": torch.randint(0, shape.vocab, (shape.batch, shape.prompt),
                                  device=args.device, generator=generator),
    }
    # The reference runs first, so that every other provider can be checked as it finishes.
    order = sorted(args.providers, key=lambda p: p != REFERENCE)
    results: list[Result] = []
    for part in args.parts:
        print(f"{part}: B={shape.batch} S={shape.seqlen if part == 'train' else shape.prompt}",
              flush=True)
        batch, outputs = [], {}
        for provider in order:
            result, out = run_provider(model, provider, attn_names[provider], part,
                                       inputs[part], args)
            print(progress_line(result, shape), flush=True)
            if out is not None:
                outputs[provider] = out
            batch.append(result)
        check(batch, outputs, tol)
        del outputs
        results += sorted(batch, key=lambda r: args.providers.index(r.provider))
    tables = render_tables(results, args, tol)
    print("\n" + tables, flush=True)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        path = args.out / f"model_{date}.md"
        method = ("Method: one model, random weights, its attention switched with "
                  "set_attn_implementation; first call excluded and reported; "
                  f"{args.warmup} warm-up calls, median of {args.reps} timed calls "
                  f"({'CUDA events' if args.device.startswith('cuda') else 'perf_counter'}).")
        path.write_text(f"# A Llama-shaped transformers model: {OURS} vs sdpa vs flex_attention"
                        f"\n\n{env}\n\nCommand: `{command}`\n\n{method}\n\n{tables}\n")
        print(f"\nwrote {path}")
    mismatches = [r for r in results if mismatch(r, tol)]
    for r in mismatches:
        print(f"!!! MISMATCH !!! {r.provider} {r.part}: {r.errors}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
