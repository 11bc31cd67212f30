"""`python -m flash_ext`: the backends of this machine, a correctness check of the selected
backend against reference.py (float64), and a short timing against torch's SDPA flash backend."""

from __future__ import annotations

import argparse
import time

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

import flash_ext
from flash_ext.dispatch import BACKENDS
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
                out = flash_ext.attention(q, k, v, is_causal=is_causal)
            grads = torch.autograd.grad(out.sum(), (q, k, v)) if backward else ()
            x64 = [t.detach().double().requires_grad_(True) for t in (q, k, v)]
            ref64, _ = attention_ref(*x64, is_causal=is_causal)
            grads64 = torch.autograd.grad(ref64.sum(), x64) if backward else ()
            xl = [t.detach().clone().requires_grad_(True) for t in (q, k, v)]
            ref_lowp, _ = attention_ref(*xl, is_causal=is_causal, compute_dtype=None)
            grads_lowp = torch.autograd.grad(ref_lowp.sum(), xl) if backward else ()
            worst = 0.0
            for x, r64, rl in zip((out, *grads), (ref64, *grads64), (ref_lowp, *grads_lowp)):
                err = (x.double() - r64).abs().max().item()
                tol = 2 * (rl.double() - r64).abs().max().item() + 1e-5
                worst = max(worst, err / tol)
            passed = worst <= 1.0
            ok &= passed
            print(f"  {backend:6s} {str(dtype):15s} causal={is_causal!s:5s} "
                  f"{'fwd+bwd' if backward else 'fwd':7s} max error / tolerance = {worst:.2f}  "
                  f"{'PASS' if passed else 'FAIL'}")
    return ok


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
        ours = _time_ms(lambda: flash_ext.attention(q, k, v, is_causal=is_causal), repeats)
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            sdpa_ms = _time_ms(lambda: torch.nn.functional.scaled_dot_product_attention(
                q, k, v, is_causal=is_causal), repeats)
        print(f"  causal={is_causal!s:5s} flash_ext {ours:8.2f} ms "
              f"({flops / ours / per:7.1f} {unit})  SDPA {sdpa_ms:8.2f} ms "
              f"({flops / sdpa_ms / per:7.1f} {unit})  speedup {sdpa_ms / ours:.2f}x")


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
