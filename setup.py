"""Build flash_ext with torch.utils.cpp_extension (ninja).

The CPU kernels are always built. The CUDA kernels are built only where the installed torch has
CUDA and nvcc is found, so a CPU-only build needs no CUDA toolkit. Knobs (DESIGN.md):
- FLASH_EXT_CUDA_ARCHS: compute capabilities, e.g. "80;90" (90 builds sm_90a); default: the local
  GPU's, else "80;90".
- FLASH_EXT_HDIMS: flash kernel head dims to build, e.g. "64;128" (default: all eight).
- FLASH_EXT_DTYPES: "fp16", "bf16" or both (default: both).
- FLASH_EXT_CUDA_BACKENDS: "flash", "mem_eff" or both (default: both).
- MAX_JOBS; FLASH_EXT_CPU_ISA ("avx512", "avx2" or "generic"; default: the widest the build machine
  runs).
scripts/nvcc_check.sh imports this file for the nvcc command line (`nvcc_check_args`).
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


CPU_ISAS = {  # the /proc/cpuinfo features each CPU kernel width needs, compiled as -m<feature>
    "avx512": ("avx512f", "avx512bw", "avx512vl", "avx512dq", "fma", "f16c"),
    "avx2": ("avx2", "fma", "f16c"),
}


def cpu_isa() -> str:
    """avx512 or avx2 when this machine runs it (the CPU kernels then use ATen's vectors of
    that width), else generic."""
    wanted = os.environ.get("FLASH_EXT_CPU_ISA")
    if wanted is not None:
        if wanted not in (*CPU_ISAS, "generic"):
            raise SystemExit(f"FLASH_EXT_CPU_ISA={wanted!r}: accepted values are 'avx512', "
                             "'avx2', 'generic'")
        return wanted
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return "generic"
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return "generic"
    for isa, needed in CPU_ISAS.items():
        if all(f" {f}" in flags for f in needed):
            return isa
    return "generic"


def build_cuda() -> bool:
    if os.environ.get("FLASH_EXT_FORCE_CPU_ONLY") == "1":
        return False
    return torch.version.cuda is not None and CUDA_HOME is not None and bool(cuda_sources())


CUDA_BACKEND_DIRS = ("flash", "mem_eff")
FLASH_HDIMS = (32, 64, 96, 128, 160, 192, 224, 256)  # flash::kKernelHeadDims
FLASH_DTYPES = ("fp16", "bf16")


def env_list(name: str, default: str) -> list[str]:
    """The entries of a semicolon- or comma-separated environment variable."""
    value = os.environ.get(name, default)
    entries = [e.strip() for e in value.replace(",", ";").split(";") if e.strip()]
    if not entries:
        raise SystemExit(f"{name}={value!r}: give at least one value")
    return entries


def flash_hdims() -> list[int]:
    wanted = env_list("FLASH_EXT_HDIMS", ";".join(map(str, FLASH_HDIMS)))
    accepted = ", ".join(map(str, FLASH_HDIMS))
    for d in wanted:
        if not d.isdigit() or int(d) not in FLASH_HDIMS:
            raise SystemExit(f"FLASH_EXT_HDIMS: {d!r} is not a flash kernel head dim; accepted: "
                             f"{accepted} (a semicolon- or comma-separated subset)")
    return sorted({int(d) for d in wanted})


def flash_dtypes() -> list[str]:
    wanted = env_list("FLASH_EXT_DTYPES", ";".join(FLASH_DTYPES))
    for t in wanted:
        if t not in FLASH_DTYPES:
            raise SystemExit(f"FLASH_EXT_DTYPES: {t!r} is not a flash dtype; accepted: fp16, bf16 "
                             "(a semicolon- or comma-separated subset)")
    return [t for t in FLASH_DTYPES if t in wanted]


def cuda_archs() -> list[str]:
    """Compute capabilities to compile for, as nvcc spells them ("80", "90a")."""
    default = "80;90"
    if torch.cuda.is_available():
        major, minor = torch.cuda.get_device_capability()
        default = f"{major}{minor}"
    archs = env_list("FLASH_EXT_CUDA_ARCHS", default)
    for arch in archs:
        if not arch.isdigit() or int(arch) < 80:
            raise SystemExit(f"FLASH_EXT_CUDA_ARCHS: {arch!r} is not a compute capability the "
                             "flash kernels run on; accepted: 80 or more without the dot, e.g. "
                             "'80;90' (90 builds sm_90a)")
    # sm_90a: the arch-specific Hopper features (wgmma, setmaxnreg) the hopper kernels need.
    return [f"{arch}a" if arch == "90" else arch for arch in archs]


def flash_instantiations(hdims: list[int], dtypes: list[str]) -> list[str]:
    """The generated kernel files (scripts/generate_kernels.py) of these head dims and dtypes
    (with the v head dim pairs of head dim d: *_hdim<d>v<dv>_*)."""
    return [s for d in hdims for t in dtypes
            for pattern in (f"*_hdim{d}_{t}*.cu", f"*_hdim{d}v*_{t}*.cu")
            for s in sources(f"csrc/flash/instantiations/{pattern}")]


def flash_macros(hdims: list[int], dtypes: list[str]) -> list[tuple[str, str | None]]:
    """FLASH_EXT_HDIM_<d> and FLASH_EXT_FP16/BF16 for what is built (flash::fwd_built reads
    them), and the same as strings for the Python module (flash_ext.ops.FLASH_HDIMS)."""
    return ([(f"FLASH_EXT_HDIM_{d}", None) for d in hdims]
            + [(f"FLASH_EXT_{t.upper()}", None) for t in dtypes]
            + [("FLASH_EXT_FLASH_HDIMS", ":".join(map(str, hdims))),
               ("FLASH_EXT_FLASH_DTYPES", ":".join(dtypes))])


def chosen_backends() -> list[str]:
    """FLASH_EXT_CUDA_BACKENDS: the CUDA backends to build (default: all)."""
    wanted = env_list("FLASH_EXT_CUDA_BACKENDS", ";".join(CUDA_BACKEND_DIRS))
    for name in wanted:
        if name not in CUDA_BACKEND_DIRS:
            raise SystemExit(f"FLASH_EXT_CUDA_BACKENDS: {name!r} is not a CUDA backend; accepted: "
                             + ", ".join(CUDA_BACKEND_DIRS))
    return [name for name in CUDA_BACKEND_DIRS if name in wanted]


def cuda_sources() -> list[str]:
    """Of the chosen backends: csrc/flash/*.cu and the chosen flash instantiations, every other
    backend's .cu files."""
    chosen = chosen_backends()
    flash = (sources("csrc/flash/*.cu") + flash_instantiations(flash_hdims(), flash_dtypes())
             if "flash" in chosen else [])
    return flash + [s for name in chosen if name != "flash"
                    for s in sources(f"csrc/{name}/**/*.cu")]


def nvcc_flags() -> list[str]:
    flags = ["-O3", "-std=c++17", "--expt-relaxed-constexpr", "--use_fast_math",
             "-U__CUDA_NO_HALF_OPERATORS__", "-U__CUDA_NO_HALF_CONVERSIONS__",
             "-U__CUDA_NO_HALF2_OPERATORS__", "-U__CUDA_NO_BFLOAT16_CONVERSIONS__"]
    for arch in cuda_archs():
        flags += ["-gencode", f"arch=compute_{arch},code=sm_{arch}"]
    return flags


CUDA_INCLUDE_DIRS = [str(ROOT / "third_party/cutlass/include"), str(ROOT / "csrc")]


def nvcc_check_args() -> list[str]:
    """The nvcc arguments of a CUDA build's kernel files, for scripts/nvcc_check.sh."""
    macros = flash_macros(flash_hdims(), flash_dtypes())
    return (nvcc_flags() + [f"-I{d}" for d in CUDA_INCLUDE_DIRS]
            + [f"-D{k}" if v is None else f"-D{k}={v}" for k, v in macros])


def cuda_backends() -> list[str]:
    """The chosen CUDA backends with sources: built, and reported to dispatch.py by the build."""
    return [name for name in chosen_backends() if sources(f"csrc/{name}/**/*.cu")]


def cuda_glue_sources() -> list[str]:
    """csrc/api/cuda/*.cpp: the shared glue, and <backend>_ops.cpp for each backend built."""
    built = cuda_backends()
    return [s for s in sources("csrc/api/cuda/*.cpp")
            if not s.endswith("_ops.cpp") or Path(s).name.removesuffix("_ops.cpp") in built]


def extension():
    isa = cpu_isa()
    cxx = ["-O3"]
    macros = []
    if isa in CPU_ISAS:  # ATen's Vectorized of that capability, compiled for its features
        capability = isa.upper()
        cxx += [f"-m{feature}" for feature in CPU_ISAS[isa]]
        macros += [("CPU_CAPABILITY", capability), (f"CPU_CAPABILITY_{capability}", None),
                   ("FLASH_EXT_CPU_ISA", isa)]
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
    return CUDAExtension(
        "flash_ext._C",
        src + cuda_glue_sources() + cuda_sources(),
        include_dirs=CUDA_INCLUDE_DIRS,
        extra_compile_args={"cxx": cxx, "nvcc": nvcc_flags()},
        extra_link_args=link,
        define_macros=macros + flash_macros(flash_hdims(), flash_dtypes())
        + [("FLASH_EXT_CUDA_BACKENDS", ":".join(cuda_backends()))],
    )


if __name__ == "__main__":  # setuptools runs this file as __main__; nvcc_check.sh imports it
    setup(
        packages=find_packages(include=["flash_ext", "flash_ext.*"]),
        ext_modules=[extension()],
        cmdclass={"build_ext": BuildExtension.with_options(use_ninja=True)},
    )
