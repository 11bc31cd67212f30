"""What the flash backend's GPU tests (test_flash_fwd.py, test_flash_bwd.py) share: the marks,
the parameter lists, inputs on the GPU, and the two call styles with their references."""

from __future__ import annotations

import functools
import itertools

import pytest
import torch

import flash_ext
from flash_ext.dispatch import FLASH_DTYPE_NAMES, FLASH_KERNEL_HEAD_DIMS
from flash_ext.ops import CUDA_BACKENDS, FLASH_DTYPES, FLASH_HDIMS
from flash_ext.reference import attention_ref

#: The test modules' pytestmark: GPU tests, skipped where this build has no flash kernels.
FLASH_MARKS = [
    pytest.mark.gpu,
    pytest.mark.skipif("flash" not in CUDA_BACKENDS, reason="this build has no flash kernels"),
]

DTYPES = [torch.float16, torch.bfloat16]
#: The dtype of tests that need only one: float16 where this build has its kernels, else
#: bfloat16, so that builds of one dtype still run them.
ONE_DTYPE = torch.float16 if FLASH_DTYPE_NAMES[torch.float16] in FLASH_DTYPES else torch.bfloat16
HEAD_DIMS = [*FLASH_KERNEL_HEAD_DIMS, 40, 72, 136, 200]  # the kernels' and odd ones between
CAUSAL = ["none", "top_left", "bottom_right"]  # SDPA is_causal, flash-attn causal
SEQLENS = [(1, 1), (1, 17), (17, 1), (17, 17), (113, 113), (17, 1023), (1023, 113), (113, 1023),
           (1023, 1023)]


def require_kernel(head_dim: int, dtype: torch.dtype) -> None:
    kernel = next(d for d in FLASH_KERNEL_HEAD_DIMS if d >= head_dim)
    if kernel not in FLASH_HDIMS or FLASH_DTYPE_NAMES[dtype] not in FLASH_DTYPES:
        pytest.skip(f"head dim kernel {kernel} in {FLASH_DTYPE_NAMES[dtype]} is not in this build")


def randn(*shape: int, dtype: torch.dtype) -> torch.Tensor:
    return torch.randn(*shape, device="cuda", dtype=dtype)


def qkv(batch, heads_q, heads_kv, seqlen_q, seqlen_k, head_dim, dtype):
    """q (B, Hq, Sq, D), k and v (B, Hkv, Sk, D) on the GPU."""
    require_kernel(head_dim, dtype)
    return (randn(batch, heads_q, seqlen_q, head_dim, dtype=dtype),
            randn(batch, heads_kv, seqlen_k, head_dim, dtype=dtype),
            randn(batch, heads_kv, seqlen_k, head_dim, dtype=dtype))


def packed(lengths: list[int], heads: int, head_dim: int, dtype, count: int = 1):
    """`count` packed (total, heads, head_dim) tensors and their int32 cu_seqlens on the GPU."""
    cu = torch.tensor([0, *itertools.accumulate(lengths)], dtype=torch.int32, device="cuda")
    return [randn(sum(lengths), heads, head_dim, dtype=dtype) for _ in range(count)], cu


def random_lengths(batch: int) -> tuple[list[int], list[int]]:
    """Random sequence lengths with a 0- and a 1-long sequence on each side."""
    lengths_q = torch.randint(2, 300, (batch,)).tolist()
    lengths_k = torch.randint(2, 300, (batch,)).tolist()
    lengths_q[0], lengths_k[1], lengths_q[2], lengths_k[3] = 0, 0, 1, 1
    return lengths_q, lengths_k


def sdpa_style(is_causal=False, window_size=(-1, -1), deterministic=False, **kwargs):
    """flash_ext.attention(backend="flash") on (B, H, S, D) and its reference (top-left)."""

    def run(q, k, v):
        return flash_ext.attention(q, k, v, is_causal=is_causal, window_size=window_size,
                                   enable_gqa=q.shape[1] != k.shape[1], return_lse=True,
                                   deterministic=deterministic, backend="flash", **kwargs)

    window = (window_size[0], 0) if is_causal else window_size
    return run, functools.partial(attention_ref, window_size=window, **kwargs)


def flash_style(causal=False, window_size=(-1, -1), deterministic=False, **kwargs):
    """flash_attn_func on (B, H, S, D) inputs passed as their (B, S, H, D) views, and its
    reference (bottom-right)."""

    def run(q, k, v):
        out, lse, _ = flash_ext.flash_attn_func(q.transpose(1, 2), k.transpose(1, 2),
                                                v.transpose(1, 2), causal=causal,
                                                window_size=window_size, return_attn_probs=True,
                                                deterministic=deterministic, **kwargs)
        return out.transpose(1, 2), lse

    window = (window_size[0], 0) if causal else window_size
    return run, functools.partial(attention_ref, window_size=window, bottom_right=True, **kwargs)


def styled(causal: str, **kwargs):
    """One of CAUSAL: sdpa_style without or with is_causal, or flash_style causal."""
    if causal == "bottom_right":
        return flash_style(causal=True, **kwargs)
    return sdpa_style(is_causal=causal == "top_left", **kwargs)


def drawn_seed(seed: int) -> torch.Tensor:
    """The (seed, offset) that flash_ext draws on the GPU right after torch.manual_seed(seed)."""
    torch.manual_seed(seed)
    return torch.randint(0, 2**62, (2,), dtype=torch.int64, device="cuda")


def capture(step):
    """A CUDA graph of step() (warmed up on a side stream first) and its outputs."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        step()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        outputs = step()
    return graph, outputs
