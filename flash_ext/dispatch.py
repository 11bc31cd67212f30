"""Backend capability table, selection and explain().

Each backend states what it supports as data, here; the rules that turn a call description into
human-readable reasons live once, in C++ (csrc/api/dispatch.cpp), which gets this table at import
and selects on every call without building strings: the first automatic backend, in priority
order, that supports the call. `explain()` reads the same table and rules. There is no silent
fallback: when no backend fits, the error lists every backend's reasons. backend="math" runs
only on request.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field

import torch

from flash_ext import _C
from flash_ext.ops import CPU_ISA, CUDA_BACKENDS, FLASH_DTYPES, FLASH_HDIMS

FLOAT_DTYPES = frozenset({torch.float16, torch.bfloat16, torch.float32})
HALF_DTYPES = frozenset({torch.float16, torch.bfloat16})
#: setup.py's names of the flash dtypes (FLASH_EXT_DTYPES).
FLASH_DTYPE_NAMES = {torch.float16: "fp16", torch.bfloat16: "bf16"}
#: The flash kernels' head dims (flash::kKernelHeadDims); a call's D runs in the smallest >= D.
FLASH_KERNEL_HEAD_DIMS = (32, 64, 96, 128, 160, 192, 224, 256)


@dataclass(frozen=True)
class AttentionCall:
    """What backend selection needs to know about one attention call."""

    device_type: str
    dtype: torch.dtype
    head_dim: int  # the larger of q's and v's
    compute_capability: tuple[int, int] | None = None
    mask: str | None = None  # None, "bool" or "additive"
    mask_requires_grad: bool = False
    dropout: bool = False
    window: bool = False
    alibi: bool = False
    softcap: bool = False
    varlen: bool = False
    value_head_dim: bool = False  # v's head dim differs from q's and k's
    head_dims: tuple[int, int] | None = None  # (q's, v's) where they differ
    needs_grad: bool = False  # q, k or v requires grad, with grad mode on


@dataclass(frozen=True)
class Backend:
    name: str
    description: str
    devices: frozenset[str]
    dtypes: frozenset[torch.dtype]
    max_head_dim: int | None = None
    min_compute_capability: tuple[int, int] | None = None
    masks: frozenset[str] = frozenset()
    mask_grad: bool = False
    dropout: bool = False
    window: bool = False
    alibi: bool = False
    softcap: bool = False
    varlen: bool = False
    value_head_dim: bool = False
    backward: bool = True
    automatic: bool = True  # chosen without being asked for
    unavailable: str | None = None  # why it cannot run in this install, if so
    # Kernels compiled per head dim and dtype, for backends that build a subset (None: all).
    kernel_head_dims: tuple[int, ...] = ()  # a call's head dim runs in the smallest one >= it
    # Without value_head_dim: the (q/k, v) kernel head dims with kernels of their own (forward
    # and backward), run on compute capability >= 9.0 without dropout.
    value_head_dim_pairs: tuple[tuple[int, int], ...] = ()
    built_head_dims: tuple[int, ...] | None = None
    built_dtypes: frozenset[torch.dtype] | None = None

    def not_supported_reasons(self, call: AttentionCall) -> list[str]:
        """Why this backend cannot run `call` (empty: it can)."""
        return _C.not_supported_reasons(self, call)


def _cuda_unavailable(name: str) -> str | None:
    if name in CUDA_BACKENDS:
        return None
    if torch.version.cuda is None:
        return "not built: this torch has no CUDA"
    return f"not built: this install has no {name} CUDA kernels"


def _flex_unavailable() -> str | None:
    if torch.version.cuda is None:
        return "not available: this torch has no CUDA (the flex kernels are Triton GPU kernels)"
    if importlib.util.find_spec("triton") is None:
        return "not available: triton is not installed (pip install triton)"
    return None


ALL_FEATURES = dict(dropout=True, window=True, alibi=True, softcap=True, varlen=True)

#: Every backend, in selection priority order.
BACKENDS: tuple[Backend, ...] = (
    Backend(
        "flash", "FlashAttention-2-class CuTe kernels (sm80+), wgmma on Hopper",
        frozenset({"cuda"}), HALF_DTYPES,
        max_head_dim=256, min_compute_capability=(8, 0),
        unavailable=_cuda_unavailable("flash"), kernel_head_dims=FLASH_KERNEL_HEAD_DIMS,
        value_head_dim_pairs=((192, 128),),
        built_head_dims=FLASH_HDIMS,
        built_dtypes=frozenset(t for t, name in FLASH_DTYPE_NAMES.items() if name in FLASH_DTYPES),
        **ALL_FEATURES,
    ),
    Backend(
        "mem_eff", "CUTLASS memory-efficient kernels (bias, fp32, any head dim)",
        frozenset({"cuda"}), FLOAT_DTYPES, max_head_dim=256, min_compute_capability=(8, 0),
        masks=frozenset({"bool", "additive"}), mask_grad=True, value_head_dim=True,
        unavailable=_cuda_unavailable("mem_eff"), **ALL_FEATURES,
    ),
    # flex runs these features as generated score_mod/mask_mod code (flash_ext/flex/sdpa.py).
    # Not automatic: flash and mem_eff are the fast paths for plain attention calls, and
    # flex_attention is its own entry point for user mods.
    Backend(
        "flex", "FlexAttention-style Triton kernels", frozenset({"cuda"}), FLOAT_DTYPES,
        max_head_dim=256, masks=frozenset({"bool", "additive"}), window=True, alibi=True,
        softcap=True, automatic=False, unavailable=_flex_unavailable(),
    ),
    Backend(
        "cpu", f"CPU flash kernels ({CPU_ISA})", frozenset({"cpu"}), FLOAT_DTYPES,
        masks=frozenset({"bool", "additive"}), value_head_dim=True, **ALL_FEATURES,
    ),
    Backend(
        "math", "reference.py in plain PyTorch (materializes the score matrix)",
        frozenset({"cpu", "cuda"}), FLOAT_DTYPES | {torch.float64},
        masks=frozenset({"bool", "additive"}), mask_grad=True, automatic=False,
        value_head_dim=True, **ALL_FEATURES,
    ),
)
BACKEND_NAMES = tuple(b.name for b in BACKENDS)


@dataclass
class Explanation:
    """Which backend runs a call, and why each other backend does not."""

    selected: str | None
    reasons: dict[str, list[str]] = field(default_factory=dict)

    def __str__(self) -> str:
        return _C.explanation_text(self.selected, list(self.reasons), list(self.reasons.values()))


def explain_call(call: AttentionCall, backend: str | None = None) -> Explanation:
    """Which backend runs `call` (the one named, or the first automatic one that supports it),
    and every backend's reasons."""
    reasons = {b.name: b.not_supported_reasons(call) for b in BACKENDS}
    return Explanation(_C.select_backend(call, backend, False), reasons)


def select_backend(call: AttentionCall, backend: str | None = None) -> str:
    """The name of the backend that runs `call`, or an error listing every backend's reasons."""
    return _C.select_backend(call, backend, True)


def set_backends(table: tuple[Backend, ...]) -> None:
    """Makes `table` the one selection uses (in C++) and BACKENDS: for tests that simulate
    other builds."""
    global BACKENDS, BACKEND_NAMES
    _C.set_backends(table)
    BACKENDS = tuple(table)
    BACKEND_NAMES = tuple(b.name for b in table)


set_backends(BACKENDS)
