"""The FlashAttention test rule (DESIGN.md): a backend's output and gradients must satisfy
|x - ref64| <= 2 * |ref_lowp - ref64| + eps (elementwise max), where ref64 is reference.py in
float64 and ref_lowp the reference run in the input dtype. Also: the environment in which a
benchmark script run by a test imports the same flash_ext."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import torch

EPS = {torch.float32: 1e-5, torch.bfloat16: 1e-3, torch.float16: 1e-4}


def assert_rule(name: str, x: torch.Tensor, ref64: torch.Tensor, ref_lowp: torch.Tensor,
                extra: float = 0.0, eps: float | None = None) -> None:
    """The rule; eps: the absolute floor, EPS of x's dtype unless given; `extra` added to the
    tolerance for an error the lowp reference cannot show (test_fuzz.py: the backward's
    cancellation in tiny calls)."""
    assert x.shape == ref64.shape, f"{name}: shape {tuple(x.shape)} != {tuple(ref64.shape)}"
    x64, lowp64 = x.to(torch.float64), ref_lowp.to(torch.float64)
    finite = torch.isfinite(ref64)
    # -inf entries (lse of rows that see no key) must match exactly.
    assert torch.equal(torch.isfinite(x64), finite), f"{name}: non-finite entries differ"
    assert torch.equal(x64[~finite], ref64[~finite]), f"{name}: non-finite values differ"
    if not finite.any():
        return
    err = (x64 - ref64)[finite].abs().max().item()
    if eps is None:
        eps = EPS[x.dtype if x.dtype in EPS else torch.float32]
    tol = 2 * (lowp64 - ref64)[finite].abs().max().item() + eps + extra
    assert err <= tol, f"{name}: max error {err:.3g} > tolerance {tol:.3g}"


def leaves(*tensors: torch.Tensor) -> list[torch.Tensor]:
    return [t.detach().clone().requires_grad_(True) for t in tensors]


def check_against_reference(run, reference, inputs, grad: bool = True, lse: bool = True,
                            names: Sequence[str] = ("q", "k", "v")):
    """run(*inputs) -> (out, lse) of the backend; reference(*inputs, compute_dtype) -> the same.

    Compares out, lse and (with grad) the gradients of out . g for a random g, which it returns
    (the backend's, one per input; None without grad). Every input gets its gradient checked
    (an additive attn_mask passed as a fourth input, say); `names` name them in the messages,
    inputs[i] where it runs out.
    """
    x = leaves(*inputs)
    out, out_lse = run(*x)
    x64 = leaves(*(t.to(torch.float64) for t in inputs))
    ref64, ref64_lse = reference(*x64, compute_dtype=torch.float64)
    xl = leaves(*inputs)
    ref_lowp, ref_lowp_lse = reference(*xl, compute_dtype=None)
    assert out.dtype == inputs[0].dtype
    assert_rule("out", out, ref64, ref_lowp)
    if lse:
        assert_rule("lse", out_lse, ref64_lse, ref_lowp_lse)
    if not grad:
        return None
    g = torch.randn_like(out)
    grads = torch.autograd.grad(out, x, g)
    grads64 = torch.autograd.grad(ref64, x64, g.to(torch.float64))
    grads_lowp = torch.autograd.grad(ref_lowp, xl, g)
    names = [*names, *(f"inputs[{i}]" for i in range(len(names), len(inputs)))]
    for name, a, b, c in zip(names, grads, grads64, grads_lowp):
        assert_rule(f"d{name}", a, b, c)
    return grads


def script_env() -> dict[str, str]:
    """The environment for a benchmark script run in a subprocess: it imports the flash_ext under
    test also where that is importable only from the current folder (an in-place build), since
    a script's own folder comes first on its path."""
    import flash_ext

    paths = [str(Path(flash_ext.__file__).resolve().parent.parent), os.environ.get("PYTHONPATH")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}


def run_cpu_check(script: str, out: Path) -> None:
    """benchmarks/<script> end to end on the CPU with tiny shapes (--device cpu --tiny --out out):
    its exit status must be 0 (every provider that runs agrees with the reference)."""
    path = Path(__file__).resolve().parent.parent / "benchmarks" / script
    result = subprocess.run([sys.executable, str(path), "--device", "cpu", "--tiny", "--out",
                             str(out)], capture_output=True, text=True, timeout=300,
                            env=script_env())
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
