"""Loads the compiled ops (torch.ops.flash_ext.*) and registers their fake implementations.

The schemas, the CPU/CUDA implementations and autograd live in csrc/api; here each kernel op
gets a fake (meta) implementation for torch.compile and fake tensors. The composite entry ops
(attention, check_attention) need none: they trace into the kernel ops.
"""

from __future__ import annotations

import torch
from torch import Tensor

from flash_ext import _C  # noqa: F401  (registers torch.ops.flash_ext)

ops = torch.ops.flash_ext

#: "avx512", "avx2" or "generic": how the CPU kernels were compiled.
CPU_ISA: str = _C.cpu_isa
#: Whether bfloat16 calls on the CPU run their forward products as AMX bf16 tiles (a CPU with
#: AMX, the kernel's permission, FLASH_EXT_CPU_AMX not "0"); else the fp32 kernels run them.
cpu_amx = _C.cpu_amx
#: The CUDA backends this build compiled ("flash", "mem_eff"); empty without CUDA.
CUDA_BACKENDS: frozenset[str] = frozenset(filter(None, _C.cuda_backends.split(":")))
#: The flash kernel head dims and dtypes ("fp16", "bf16") this build compiled (setup.py's
#: FLASH_EXT_HDIMS and FLASH_EXT_DTYPES); empty without CUDA.
FLASH_HDIMS: tuple[int, ...] = tuple(int(d) for d in _C.flash_hdims.split(":") if d)
FLASH_DTYPES: frozenset[str] = frozenset(filter(None, _C.flash_dtypes.split(":")))

_RUNS_ISA = {"avx512": ("AVX512",), "avx2": ("AVX2", "AVX512"), "generic": None}
if _RUNS_ISA[CPU_ISA] and torch.backends.cpu.get_cpu_capability() not in _RUNS_ISA[CPU_ISA]:
    raise ImportError(
        f"flash_ext was built with {CPU_ISA.upper()} CPU kernels but this CPU reports "
        f"{torch.backends.cpu.get_cpu_capability()!r}; rebuild with FLASH_EXT_CPU_ISA=avx2 or "
        "generic"
    )


# Fake implementations: output shapes, dtypes and strides as the real kernels give them.


def _like_rows(t: Tensor) -> Tensor:
    """empty_like(t), contiguous when t's last dim is strided (csrc/api empty_like_rows)."""
    if t.stride(-1) == 1:
        return torch.empty_like(t)
    return torch.empty_like(t, memory_format=torch.contiguous_format)


def _forward_outputs(q: Tensor, v: Tensor, varlen: bool) -> tuple[Tensor, Tensor]:
    """out like q (contiguous, with v's head dim, where that differs), and lse (B, Hq, Sq) dense
    or (Hq, Tq) varlen, fp32 (csrc/api empty_forward_outputs)."""
    lse_shape = (q.shape[1], q.shape[0]) if varlen else (q.shape[0], q.shape[1], q.shape[2])
    out = _like_rows(q) if v.shape[-1] == q.shape[-1] else q.new_empty((*q.shape[:-1], v.shape[-1]))
    return out, q.new_empty(lse_shape, dtype=torch.float32)


@torch.library.register_fake("flash_ext::attention_fwd")
def _attention_fwd_fake(q, k, v, *args):
    return _forward_outputs(q, v, varlen=False)


@torch.library.register_fake("flash_ext::attention_varlen_fwd")
def _attention_varlen_fwd_fake(q, k, v, *args):
    return _forward_outputs(q, v, varlen=True)


def _grads_like(q: Tensor, k: Tensor, v: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    return _like_rows(q), _like_rows(k), _like_rows(v)


def _sinks_grad_like(q: Tensor, sinks: Tensor | None) -> Tensor:
    """The backward ops' grad_sinks: (Hq,) float32 with sinks, else an empty (0,)."""
    return q.new_empty(sinks.shape if sinks is not None else (0,), dtype=torch.float32)


@torch.library.register_fake("flash_ext::attention_bwd")
def _attention_bwd_fake(grad_out, q, k, v, out, lse, *args, sinks=None):
    if len(args) > 10:  # sinks given positionally
        sinks = args[10]
    return (*_grads_like(q, k, v), _sinks_grad_like(q, sinks))


@torch.library.register_fake("flash_ext::attention_varlen_bwd")
def _attention_varlen_bwd_fake(grad_out, q, k, v, out, lse, *args, sinks=None):
    if len(args) > 13:
        sinks = args[13]
    return (*_grads_like(q, k, v), _sinks_grad_like(q, sinks))


@torch.library.register_fake("flash_ext::mem_eff_fwd")
def _mem_eff_fwd_fake(q, k, v, attn_bias, cu_seqlens_q, *args):
    return _forward_outputs(q, v, varlen=cu_seqlens_q is not None)


def _mem_eff_row_alignment(dtype: torch.dtype) -> int:
    """Elements per 16 bytes (mem_eff::row_alignment): the mem_eff kernels store rows in such
    pieces."""
    return 4 if dtype == torch.float32 else 8


@torch.library.register_fake("flash_ext::mem_eff_bwd")
def _mem_eff_bwd_fake(grad_out, q, k, v, out, lse, attn_bias, bias_requires_grad, *args):
    if not bias_requires_grad:
        return (*_grads_like(q, k, v), q.new_empty((0,)))
    # (B, Hq, Sq, Sk) in rows padded to whole 16-byte pieces, as mem_eff_ops.cpp allocates it.
    seqlen_k = k.shape[2]
    align = _mem_eff_row_alignment(q.dtype)
    padded = -(-seqlen_k // align) * align
    grad_bias = q.new_empty((q.shape[0], q.shape[1], q.shape[2], padded))[..., :seqlen_k]
    return (*_grads_like(q, k, v), grad_bias)


@torch.library.register_fake("flash_ext::cpu_dropout_keep_mask")
def _cpu_dropout_keep_mask_fake(dropout_seed, batch, heads, seqlen_q, seqlen_k, dropout_p):
    return dropout_seed.new_empty((batch, heads, seqlen_q, seqlen_k), dtype=torch.bool)


@torch.library.register_fake("flash_ext::flash_dropout_keep_mask")
def _flash_dropout_keep_mask_fake(q, k, dropout_seed, dropout_p):
    return q.new_empty((q.shape[0], q.shape[1], q.shape[2], k.shape[2]), dtype=torch.bool)


@torch.library.register_fake("flash_ext::kvcache_fwd")
def _kvcache_fwd_fake(q, k_cache, v_cache, *args):
    return (torch.empty_like(q, memory_format=torch.contiguous_format),
            q.new_empty((q.shape[0], q.shape[2], q.shape[1]), dtype=torch.float32))
