"""Build flash_ext with torch.utils.cpp_extension (ninja).

The CPU kernels are always built. The CUDA kernels are built only where the installed torch has
CUDA and nvcc is found, so a CPU-only build needs no CUDA toolkit. Knobs (DESIGN.md):
FLASH_EXT_CUDA_ARCHS, FLASH_EXT_HDIMS, FLASH_EXT_DTYPES, MAX_JOBS, and FLASH_EXT_CPU_ISA
("avx2" or "generic"; default: avx2 where the build machine has it).
"""

from __future__ import annotations

import os
import platform
from pathlib import Path

import torch
from setuptools import find_packages, setup
from torch.utils.cpp_extension import CUDA_HOME, BuildExtension, CppExtension, CUDAExtension

ROOT = Path(__file__).resolve().parent


def sources(pattern: str) -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for p in ROOT.glob(pattern))


def cpu_isa() -> str:
    """avx2 when this machine runs it (the CPU kernels then use ATen's AVX2 vectors)."""
    wanted = os.environ.get("FLASH_EXT_CPU_ISA")
    if wanted is not None:
        if wanted not in ("avx2", "generic"):
            raise SystemExit(f"FLASH_EXT_CPU_ISA={wanted!r}: accepted values are 'avx2', 'generic'")
        return wanted
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return "generic"
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return "generic"
    return "avx2" if all(f" {f}" in flags for f in ("avx2", "fma", "f16c")) else "generic"


def build_cuda() -> bool:
    if os.environ.get("FLASH_EXT_FORCE_CPU_ONLY") == "1":
        return False
    return torch.version.cuda is not None and CUDA_HOME is not None and bool(cuda_sources())


CUDA_BACKEND_DIRS = ("flash", "mem_eff")


def cuda_sources() -> list[str]:
    return [s for name in CUDA_BACKEND_DIRS for s in sources(f"csrc/{name}/**/*.cu")]


def cuda_backends() -> str:
    """Colon-separated CUDA backends with sources, reported to dispatch.py by the build."""
    return ":".join(name for name in CUDA_BACKEND_DIRS if sources(f"csrc/{name}/**/*.cu"))


def extension():
    isa = cpu_isa()
    cxx = ["-O3"]
    macros = []
    if isa == "avx2":
        cxx += ["-mavx2", "-mfma", "-mf16c"]
        macros += [("CPU_CAPABILITY", "AVX2"), ("CPU_CAPABILITY_AVX2", None),
                   ("FLASH_EXT_CPU_AVX2", None)]
    # Some toolchains (the GPU machine's /opt/gcc) link libstdc++ statically by default; a
    # second libstdc++ beside torch's crashes in iostream (c10::str). Link torch's shared one.
    link = ["-l:libstdc++.so.6"] if platform.system() == "Linux" else []
    if "OpenMP" in torch.__config__.parallel_info():
        # at::parallel_for is inline OpenMP in such builds: without the flag it runs one thread.
        cxx.append("-fopenmp")
        link.append("-fopenmp")
    src = sources("csrc/api/*.cpp") + sources("csrc/cpu/*.cpp")
    if not build_cuda():
        return CppExtension("flash_ext._C", src, extra_compile_args={"cxx": cxx},
                            extra_link_args=link, define_macros=macros)
    nvcc = ["-O3", "--expt-relaxed-constexpr", "--use_fast_math",
            "-U__CUDA_NO_HALF_OPERATORS__", "-U__CUDA_NO_HALF_CONVERSIONS__",
            "-U__CUDA_NO_HALF2_OPERATORS__", "-U__CUDA_NO_BFLOAT16_CONVERSIONS__"]
    for arch in os.environ.get("FLASH_EXT_CUDA_ARCHS", "80;90").split(";"):
        suffix = "a" if arch == "90" else ""
        nvcc += ["-gencode", f"arch=compute_{arch}{suffix},code=sm_{arch}{suffix}"]
    return CUDAExtension(
        "flash_ext._C",
        src + sources("csrc/api/cuda/*.cpp") + cuda_sources(),
        include_dirs=[str(ROOT / "third_party/cutlass/include"), str(ROOT / "csrc")],
        extra_compile_args={"cxx": cxx, "nvcc": nvcc},
        extra_link_args=link,
        define_macros=macros + [("FLASH_EXT_CUDA_BACKENDS", cuda_backends())],
    )


setup(
    packages=find_packages(include=["flash_ext", "flash_ext.*"]),
    ext_modules=[extension()],
    cmdclass={"build_ext": BuildExtension.with_options(use_ninja=True)},
)
