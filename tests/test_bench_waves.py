"""benchmarks/bench_waves.py on the CPU: its head-count ranges, its argument errors, and its
refusal without a GPU (the sweep itself runs on the GPU machine)."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("bench_waves", ROOT / "benchmarks" / "bench_waves.py")
waves = importlib.util.module_from_spec(spec)
sys.modules["bench_waves"] = waves
spec.loader.exec_module(waves)


@pytest.mark.parametrize(("text", "heads"), [("30-34", [30, 31, 32, 33, 34]), ("7", [7]),
                                             ("1-2,5,8-9", [1, 2, 5, 8, 9])])
def test_head_range(text, heads):
    assert waves.head_range(text) == heads


@pytest.mark.parametrize("text", ["0-3", "5-4", "x", ""])
def test_head_range_rejects(text):
    with pytest.raises((argparse.ArgumentTypeError, ValueError)):
        waves.head_range(text)


def test_unknown_provider_names_the_accepted(capsys):
    with pytest.raises(SystemExit):
        waves.parse_args(["--providers", "flash_ext,nope"])
    err = capsys.readouterr().err
    assert "unknown nope" in err and "sdpa_cudnn" in err


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the message without a GPU")
def test_no_gpu(capsys):
    assert waves.main(["--heads", "3-4"]) == 1
    assert "no CUDA device" in capsys.readouterr().err
