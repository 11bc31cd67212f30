"""`python -m flash_ext`: the backends of this machine, a correctness check of the selected
backend against reference.py (float64), and a short timing against torch's SDPA flash backend;
where the mem_eff kernels are built, also their check and a timing against SDPA's efficient
backend."""

from __future__ import annotations

import argparse
import functools
import time

import torch
import torch.nn.functional as F
from torch import Tensor
from torch.nn.attention import SDPBackend, sdpa_kernel

import flash_ext
from flash_ext.dispatch import BACKENDS
from flash_ext.ops import CUDA_BACKENDS
from flash_ext.reference import attention_ref


def _device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def _time_ms(fn, repeats: int) -> float:
    fn()
    if _device() == "cuda":
        torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        if _device() == "cuda":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2] * 1e3


def backends_report(device: str) -> None:
    print(f"flash_ext {flash_ext.__version__}, torch {torch.__version__}, device {device}")
    for backend in BACKENDS:
        state = backend.unavailable or "available"
        if backend.unavailable is None and backend.built_head_dims is not None:
            dtypes = ", ".join(sorted(str(t).replace("torch.", "") for t in backend.built_dtypes))
            state += f" (head dims {':'.join(map(str, backend.built_head_dims))}; {dtypes})"
        if not backend.automatic:
            state += " (on request only)"
        print(f"  {backend.name:8s} {state:60s} {backend.description}")


def _error_ratio(run, inputs: tuple[Tensor, ...], backward: bool, **options) -> float:
    """The largest error / tolerance of run(*inputs) (q, k, v and maybe an additive attn_mask)
    and, with `backward`, of its gradients, against reference.py under the float64 rule."""
    out = run(*inputs)
    grads = torch.autograd.grad(out.sum(), inputs) if backward else ()
    x64 = [t.detach().double().requires_grad_(True) for t in inputs]
    xl = [t.detach().clone().requires_grad_(True) for t in inputs]
    results = []
    for x, compute_dtype in ((x64, torch.float64), (xl, None)):
        with torch.enable_grad():
            ref, _ = attention_ref(*x[:3], attn_mask=x[3] if len(x) > 3 else None,
                                   compute_dtype=compute_dtype, **options)
            results.append((ref, *torch.autograd.grad(ref.sum(), x)) if backward else (ref,))
    worst = 0.0
    for got, r64, rl in zip((out, *grads), *results):
        err = (got.double() - r64).abs().max().item()
        tol = 2 * (rl.double() - r64).abs().max().item() + 1e-5
        worst = max(worst, err / tol)
    return worst


def _print_check(backend: str, label: str, backward: bool, worst: float) -> bool:
    passed = worst <= 1.0
    print(f"  {backend:7s} {label:38s} {'fwd+bwd' if backward else 'fwd':7s} "
          f"max error / tolerance = {worst:.2f}  {'PASS' if passed else 'FAIL'}")
    return passed


def correctness(device: str) -> bool:
    print("correctness against reference.py (float64), forward and, where the backend has it, "
          "backward:")
    dtypes = [torch.bfloat16, torch.float16] if device == "cuda" else [torch.float32,
                                                                      torch.bfloat16]
    ok = True
    for dtype in dtypes:
        for is_causal in (False, True):
            q, k, v = (torch.randn(2, 4, 97, 64, device=device, dtype=dtype, requires_grad=True)
                       for _ in range(3))
            # Without a backend that has a backward, check the forward of one that runs it.
            backward = flash_ext.explain(q, k, v, is_causal=is_causal).selected is not None
            with torch.set_grad_enabled(backward):
                backend = flash_ext.explain(q, k, v, is_causal=is_causal).selected
                if backend is None:
                    print(f"  {dtype} causal={is_causal}: no backend on this device "
                          "(explain says why)")
                    continue
                run = functools.partial(flash_ext.attention, is_causal=is_causal)
                worst = _error_ratio(run, (q, k, v), backward, is_causal=is_causal)
            ok &= _print_check(backend, f"{dtype!s:15s} causal={is_causal}", backward, worst)
    if device == "cuda" and "mem_eff" in CUDA_BACKENDS:
        ok &= mem_eff_correctness()
    return ok


def mem_eff_correctness() -> bool:
    """The mem_eff backend: float32, and bf16 with a head dim of no kernel and an additive bias
    broadcast over heads, with its gradient."""
    ok = True
    for dtype, head_dim, bias in ((torch.float32, 64, False), (torch.bfloat16, 20, True)):
        x = [torch.randn(2, 4, 97, head_dim, device="cuda", dtype=dtype) for _ in range(3)]
        if bias:
            x.append(torch.randn(2, 1, 97, 97, device="cuda", dtype=dtype))
        inputs = tuple(t.requires_grad_(True) for t in x)
        run = functools.partial(flash_ext.attention, backend="mem_eff")  # (q, k, v[, attn_mask])
        worst = _error_ratio(run, inputs, backward=True)
        label = f"{dtype!s:15s} D={head_dim}" + (" + bias (B,1,S,S)" if bias else "")
        ok &= _print_check("mem_eff", label, True, worst)
    return ok


def _print_timing(label: str, flops: float, ours: float, sdpa_ms: float, unit: str,
                  per: float) -> None:
    print(f"  {label:18s} flash_ext {ours:8.2f} ms ({flops / ours / per:7.1f} {unit})  "
          f"SDPA {sdpa_ms:8.2f} ms ({flops / sdpa_ms / per:7.1f} {unit})  "
          f"speedup {sdpa_ms / ours:.2f}x")


def timing(device: str, repeats: int) -> None:
    dtype = torch.bfloat16 if device == "cuda" else torch.float32
    shape = (4, 16, 4096, 128) if device == "cuda" else (1, 8, 1024, 64)
    unit, per = ("TFLOP/s", 1e9) if device == "cuda" else ("GFLOP/s", 1e6)
    q, k, v = (torch.randn(shape, device=device, dtype=dtype) for _ in range(3))
    backend = flash_ext.explain(q, k, v).selected
    if backend is None:
        print(f"forward timing {shape} {dtype}: no backend (explain says why)")
        return
    print(f"forward timing {shape} {dtype} (median of {repeats}), flash_ext's {backend} vs "
          "torch SDPA's flash backend:")
    for is_causal in (False, True):
        flops = 4 * shape[0] * shape[1] * shape[2] ** 2 * shape[3] / (2 if is_causal else 1)
        ours = _time_ms(functools.partial(flash_ext.attention, q, k, v, is_causal=is_causal),
                        repeats)
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            sdpa_ms = _time_ms(functools.partial(F.scaled_dot_product_attention, q, k, v,
                                                 is_causal=is_causal), repeats)
        _print_timing(f"causal={is_causal}", flops, ours, sdpa_ms, unit, per)
    if device == "cuda" and "mem_eff" in CUDA_BACKENDS:
        mem_eff_timing(repeats)


def mem_eff_timing(repeats: int) -> None:
    shape = (4, 16, 4096, 128)
    batch, _, seqlen, head_dim = shape
    print(f"mem_eff forward timing {shape} (median of {repeats}) vs torch SDPA's efficient "
          "backend:")
    flops = 4 * batch * shape[1] * seqlen**2 * head_dim
    for dtype, bias_shape in ((torch.float32, None), (torch.bfloat16, (batch, 1, seqlen, seqlen))):
        q, k, v = (torch.randn(shape, device="cuda", dtype=dtype) for _ in range(3))
        bias = None if bias_shape is None else torch.randn(bias_shape, device="cuda", dtype=dtype)
        ours = _time_ms(functools.partial(flash_ext.attention, q, k, v, bias, backend="mem_eff"),
                        repeats)
        with sdpa_kernel(SDPBackend.EFFICIENT_ATTENTION):
            sdpa_ms = _time_ms(functools.partial(F.scaled_dot_product_attention, q, k, v, bias),
                               repeats)
        label = str(dtype).replace("torch.", "") + (" + bias (B,1,S,S)" if bias_shape else "")
        _print_timing(label, flops, ours, sdpa_ms, "TFLOP/s", 1e9)


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m flash_ext", description=__doc__)
    parser.add_argument("--repeats", type=int, default=10, help="timing repetitions")
    args = parser.parse_args()
    device = _device()
    backends_report(device)
    ok = correctness(device)
    timing(device, args.repeats)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
