"""The generated kernel files (scripts/generate_kernels.py) and setup.py's choice among them."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


generate_kernels = load("generate_kernels", ROOT / "scripts" / "generate_kernels.py")
setup_py = load("flash_ext_setup", ROOT / "setup.py")  # not __main__: defines, builds nothing


def test_committed_files_are_generated():
    result = subprocess.run([sys.executable, "scripts/generate_kernels.py", "--check"], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_check_reports_every_difference(tmp_path, monkeypatch):
    files = generate_kernels.kernel_files()
    assert len(files) == 2 * 8 * 2 * 2  # (fwd, bwd) x head dims x dtypes x causal
    monkeypatch.setattr(generate_kernels, "OUT_DIR", tmp_path)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    assert generate_kernels.differences(files) == []
    (tmp_path / "fwd_hdim64_bf16.cu").write_text("edited")
    (tmp_path / "fwd_hdim32_fp16.cu").unlink()
    (tmp_path / "fwd_hdim48_fp16.cu").write_text("")
    assert generate_kernels.differences(files) == [
        "missing: fwd_hdim32_fp16.cu", "not generated: fwd_hdim48_fp16.cu",
        "differs: fwd_hdim64_bf16.cu"]


def test_setup_selects_instantiations(monkeypatch):
    monkeypatch.setenv("FLASH_EXT_HDIMS", "128, 64")
    monkeypatch.setenv("FLASH_EXT_DTYPES", "bf16")
    hdims, dtypes = setup_py.flash_hdims(), setup_py.flash_dtypes()
    assert (hdims, dtypes) == ([64, 128], ["bf16"])
    assert sorted(Path(f).name for f in setup_py.flash_instantiations(hdims, dtypes)) == [
        f"{direction}_hdim{d}_bf16{causal}.cu" for direction in ("bwd", "fwd") for d in (128, 64)
        for causal in ("", "_causal")]
    assert setup_py.flash_macros(hdims, dtypes) == [
        ("FLASH_EXT_HDIM_64", None), ("FLASH_EXT_HDIM_128", None), ("FLASH_EXT_BF16", None),
        ("FLASH_EXT_FLASH_HDIMS", "64:128"), ("FLASH_EXT_FLASH_DTYPES", "bf16")]
    assert len(setup_py.flash_instantiations(setup_py.FLASH_HDIMS, ["fp16", "bf16"])) == 64


@pytest.mark.parametrize("name, value, message", [
    ("FLASH_EXT_HDIMS", "64;48", "FLASH_EXT_HDIMS: '48' is not a flash kernel head dim; "
                                 "accepted: 32, 64, 96, 128, 160, 192, 224, 256"),
    ("FLASH_EXT_HDIMS", ";", "FLASH_EXT_HDIMS=';': give at least one value"),
    ("FLASH_EXT_DTYPES", "fp32", "FLASH_EXT_DTYPES: 'fp32' is not a flash dtype; accepted: "
                                 "fp16, bf16"),
    ("FLASH_EXT_CUDA_ARCHS", "80;75", "FLASH_EXT_CUDA_ARCHS: '75' is not a compute capability"),
])
def test_setup_rejects_bad_knobs(monkeypatch, name, value, message):
    monkeypatch.setenv(name, value)
    with pytest.raises(SystemExit) as info:
        setup_py.nvcc_check_args()
    assert str(info.value).startswith(message)


def test_nvcc_arch_flags(monkeypatch):
    monkeypatch.setenv("FLASH_EXT_CUDA_ARCHS", "80,90")
    flags = setup_py.nvcc_flags()
    assert "arch=compute_80,code=sm_80" in flags and "arch=compute_90a,code=sm_90a" in flags
