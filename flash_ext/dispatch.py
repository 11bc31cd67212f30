"""Backend capability table, selection and explain().

Each backend states what it supports as data; `Backend.not_supported_reasons` turns a call
description into human-readable reasons, and selection takes the first automatic backend, in
priority order, with none. `explain()` reads the same table. There is no silent fallback: when no
backend fits, the error lists every backend's reasons. backend="math" runs only on request.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field

import torch
from torch import Tensor

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
    head_dim: int
    compute_capability: tuple[int, int] | None = None
    mask: str | None = None  # None, "bool" or "additive"
    mask_requires_grad: bool = False
    dropout: bool = False
    window: bool = False
    alibi: bool = False
    softcap: bool = False
    varlen: bool = False
    needs_grad: bool = False  # q, k or v requires grad, with grad mode on


@dataclass(frozen=True)
class Backend:
    name: str
    description: str
    devices: frozenset[str]
    dtypes: frozenset[torch.dtype]
    max_head_dim: int | None = None
    head_dim_multiple: int = 1  # 16-byte row loads need head_dim % (16 / element size) == 0
    min_compute_capability: tuple[int, int] | None = None
    masks: frozenset[str] = frozenset()
    mask_grad: bool = False
    dropout: bool = False
    window: bool = False
    alibi: bool = False
    softcap: bool = False
    varlen: bool = False
    backward: bool = True
    automatic: bool = True  # chosen without being asked for
    unavailable: str | None = None  # why it cannot run in this install, if so
    # Kernels compiled per head dim and dtype, for backends that build a subset (None: all).
    kernel_head_dims: tuple[int, ...] = ()  # a call's head dim runs in the smallest one >= it
    built_head_dims: tuple[int, ...] | None = None
    built_dtypes: frozenset[torch.dtype] | None = None

    def not_supported_reasons(self, call: AttentionCall) -> list[str]:
        reasons = [self.unavailable] if self.unavailable else []
        if call.device_type not in self.devices:
            reasons.append(f"device {call.device_type!r} (runs on {_names(self.devices)})")
        if call.dtype not in self.dtypes:
            reasons.append(f"dtype {_names([call.dtype])} (supports {_names(self.dtypes)})")
        if self.max_head_dim is not None and call.head_dim > self.max_head_dim:
            reasons.append(f"head_dim {call.head_dim} (supports <= {self.max_head_dim})")
        if call.head_dim % self.head_dim_multiple:
            reasons.append(f"head_dim {call.head_dim} (needs a multiple of "
                           f"{self.head_dim_multiple})")
        cc = call.compute_capability
        if self.min_compute_capability and cc is not None and cc < self.min_compute_capability:
            need = ".".join(map(str, self.min_compute_capability))
            reasons.append(f"GPU compute capability {cc[0]}.{cc[1]} (needs >= {need})")
        if call.mask is not None and call.mask not in self.masks:
            reasons.append(f"{call.mask} attn_mask (not supported)")
        if call.mask_requires_grad and not self.mask_grad:
            reasons.append("attn_mask.requires_grad (no gradient for the mask)")
        for feature in ("dropout", "window", "alibi", "softcap", "varlen"):
            if getattr(call, feature) and not getattr(self, feature):
                reasons.append(f"{_FEATURE_NAMES[feature]} (not supported)")
        if call.needs_grad and not self.backward:
            reasons.append("backward not implemented yet (inputs require grad)")
        if self.unavailable is None:
            reasons += self._not_built_reasons(call)
        return reasons

    def _not_built_reasons(self, call: AttentionCall) -> list[str]:
        """What a build with a subset of the kernels (FLASH_EXT_HDIMS, FLASH_EXT_DTYPES) lacks."""
        reasons = []
        if self.built_dtypes is not None and call.dtype in self.dtypes - self.built_dtypes:
            built = ";".join(FLASH_DTYPE_NAMES[t] for t in sorted(self.built_dtypes, key=str))
            reasons.append(f"not built: {_names([call.dtype])} kernels not in this build "
                           f"(FLASH_EXT_DTYPES={built})")
        kernel = next((d for d in self.kernel_head_dims if d >= call.head_dim), None)
        if self.built_head_dims is not None and kernel not in (None, *self.built_head_dims):
            built = ";".join(map(str, self.built_head_dims))
            reasons.append(f"not built: head dim kernel {kernel} not in this build "
                           f"(FLASH_EXT_HDIMS={built})")
        return reasons


_FEATURE_NAMES = {
    "dropout": "dropout_p > 0",
    "window": "window_size (sliding window)",
    "alibi": "alibi_slopes",
    "softcap": "softcap",
    "varlen": "variable-length (cu_seqlens) inputs",
}


def _names(items) -> str:
    return ", ".join(sorted(str(i).replace("torch.", "") for i in items))


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
        max_head_dim=256, head_dim_multiple=8, min_compute_capability=(8, 0),
        unavailable=_cuda_unavailable("flash"), kernel_head_dims=FLASH_KERNEL_HEAD_DIMS,
        built_head_dims=FLASH_HDIMS,
        built_dtypes=frozenset(t for t, name in FLASH_DTYPE_NAMES.items() if name in FLASH_DTYPES),
        **ALL_FEATURES,
    ),
    Backend(
        "mem_eff", "CUTLASS memory-efficient kernels (bias, fp32, any head dim)",
        frozenset({"cuda"}), FLOAT_DTYPES, max_head_dim=256, min_compute_capability=(8, 0),
        masks=frozenset({"bool", "additive"}), mask_grad=True, dropout=True, window=True,
        alibi=True, varlen=True, unavailable=_cuda_unavailable("mem_eff"),
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
        masks=frozenset({"bool", "additive"}), **ALL_FEATURES,
    ),
    Backend(
        "math", "reference.py in plain PyTorch (materializes the score matrix)",
        frozenset({"cpu", "cuda"}), FLOAT_DTYPES | {torch.float64},
        masks=frozenset({"bool", "additive"}), mask_grad=True, automatic=False, **ALL_FEATURES,
    ),
)
BACKEND_NAMES = tuple(b.name for b in BACKENDS)


def describe_call(
    query: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    window_size: tuple[int, int] = (-1, -1),
    alibi_slopes: Tensor | None = None,
    softcap: float = 0.0,
    varlen: bool = False,
    mask_requires_grad: bool = False,
    needs_grad: bool = False,
) -> AttentionCall:
    cc = None
    if query.device.type == "cuda":
        cc = _compute_capability(query.device)
    mask = None
    if attn_mask is not None:
        mask = "bool" if attn_mask.dtype == torch.bool else "additive"
    return AttentionCall(
        device_type=query.device.type,
        dtype=query.dtype,
        head_dim=query.shape[-1],
        compute_capability=cc,
        mask=mask,
        mask_requires_grad=mask_requires_grad,
        dropout=dropout_p > 0,
        window=tuple(window_size) != (-1, -1),
        alibi=alibi_slopes is not None,
        softcap=softcap > 0,
        varlen=varlen,
        needs_grad=needs_grad,
    )


@torch.compiler.assume_constant_result
def _compute_capability(device: torch.device) -> tuple[int, int]:
    """(major, minor) of a CUDA device: a constant under torch.compile, which then needs no
    trace of torch.cuda's device queries in a fullgraph compile."""
    return torch.cuda.get_device_capability(device)


@dataclass
class Explanation:
    """Which backend runs a call, and why each other backend does not."""

    selected: str | None
    reasons: dict[str, list[str]] = field(default_factory=dict)

    def __str__(self) -> str:
        lines = [f"selected backend: {self.selected or 'none'}"]
        for name, why in self.reasons.items():
            if name == self.selected:
                continue
            if not why:
                why = ["runs only when asked for (backend=...)"]
            lines.append(f"  {name}: " + "; ".join(why))
        return "\n".join(lines)


def explain_call(call: AttentionCall, backend: str | None = None) -> Explanation:
    reasons = {b.name: b.not_supported_reasons(call) for b in BACKENDS}
    if backend is not None:
        selected = backend if not reasons[backend] else None
    else:
        selected = next((b.name for b in BACKENDS if b.automatic and not reasons[b.name]), None)
    return Explanation(selected, reasons)


def select_backend(call: AttentionCall, backend: str | None = None) -> str:
    """The name of the backend to run `call`, or an error listing every backend's reasons."""
    if backend is not None and backend not in BACKEND_NAMES:
        raise ValueError(f"backend={backend!r} is not a backend; accepted: {BACKEND_NAMES}")
    explanation = explain_call(call, backend)
    if explanation.selected is not None:
        return explanation.selected
    if backend is not None:
        raise NotImplementedError(
            f"backend={backend!r} cannot run this call: "
            + "; ".join(explanation.reasons[backend])
        )
    raise NotImplementedError("no flash_ext backend can run this call:\n" + str(explanation))
