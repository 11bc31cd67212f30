"""Long runs (scripts/stress.py): forward and backward calls with changing shapes keep host
memory flat and repeat bit for bit with the same seed. The full run is 10000 calls twice
(`python scripts/stress.py`, and `--device cuda` on the GPU machine); CI runs 1500."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("stress", ROOT / "scripts" / "stress.py")
stress = importlib.util.module_from_spec(spec)
sys.modules["stress"] = stress  # its dataclass looks its module up there
spec.loader.exec_module(stress)

CPU = torch.device("cpu")


def quiet(*_):
    pass


def test_flat_and_repeatable():
    first, samples = stress.run(1500, 3, CPU, every=300, log=quiet)
    second, samples_again = stress.run(1500, 3, CPU, every=300, log=quiet)
    assert first == second, "a call's output or gradients differ between two runs of one seed"
    rises = stress.growth(samples + samples_again)
    assert max(rises.values()) < 16, f"memory grew after the first sample: {rises}"


def test_growth_sees_a_leak(monkeypatch):
    """The measurement can fail: calls that each keep 1 MB show as growth."""
    kept, call = [], stress.one_call

    def leaking(index, seed, device):
        kept.append(torch.ones(2**18))  # 1 MB, written, so resident
        return call(index, seed, device)

    monkeypatch.setattr(stress, "one_call", leaking)
    _, samples = stress.run(300, 0, CPU, every=50, log=quiet)
    assert stress.growth(samples)["host_mb"] > 200
