"""Tile sizes, warps and pipeline stages of the flex kernels.

The GPU defaults start from the ones torch's compiled FlexAttention uses for the same GPU class,
head dim and dtype (torch/_inductor/template_heuristics); one is changed from measurement: the
sm90 16-bit forward for head dims 65-128 uses 128 x 128 tiles (torch: 128 x 64), 3-11% faster on
the H100 over benchmarks/bench_flex.py's cases (--sweep; benchmarks/NOTES.md, issue 6). Tiles
never exceed the block mask's blocks. Under the interpreter (CPU) tiles are small: they only have
to be right. kernel_options overrides any field: BLOCK_M, BLOCK_N, num_warps, num_stages (forward)
and BLOCK_M1, BLOCK_N1, BLOCK_M2, BLOCK_N2, bwd_num_warps, bwd_num_stages (backward), and USE_TMA
(both, default False): True makes the kernels' loop tiles (K and V in the forward and the dq
programs, Q and dO in the dk/dv programs) load by TMA on sm90+ where the tensors' base and strides
are 16-byte aligned (elsewhere pointer loads stay). On the H100 that makes the kernels 2-3%
(forward) and 0-5% (backward, long sequences) faster, but Triton 3.6 specializes each descriptor
argument at every launch in ~45 us of CPU (60-100 us more per forward call on the H100 machine),
more than that gain where kernels are short.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields, replace

import torch

FWD_OPTIONS = ("BLOCK_M", "BLOCK_N", "num_warps", "num_stages")
BWD_OPTIONS = ("BLOCK_M1", "BLOCK_N1", "BLOCK_M2", "BLOCK_N2", "bwd_num_warps", "bwd_num_stages")
FLAG_OPTIONS = ("USE_TMA",)


@dataclass(frozen=True)
class FwdConfig:
    BLOCK_M: int
    BLOCK_N: int
    num_warps: int
    num_stages: int
    USE_TMA: int = 0  # 1: TMA loads where the tensors allow them (an int: configs are int lists)


@dataclass(frozen=True)
class BwdConfig:
    BLOCK_M1: int  # query tile of the dk/dv programs
    BLOCK_N1: int  # key tile of the dk/dv programs
    BLOCK_M2: int  # query tile of the dq programs
    BLOCK_N2: int  # key tile of the dq programs
    bwd_num_warps: int
    bwd_num_stages: int
    USE_TMA: int = 0


def padded_head_dim(head_dim: int) -> int:
    """The power of two >= 16 that holds head_dim; by comparisons only, so that a symbolic head
    dim (torch.compile's dynamic shapes) gives a plain int, each comparison a guard."""
    padded = 16
    while padded < head_dim:
        padded *= 2
    return padded


def _fwd_default(device: torch.device, dtype: torch.dtype, head_dim: int) -> FwdConfig:
    if device.type != "cuda":  # the interpreter's cost is per tile: few, large ones
        return FwdConfig(32, 32, 4, 1)
    d = padded_head_dim(head_dim)
    major, _ = torch.cuda.get_device_capability(device)
    if dtype == torch.float32:
        if d <= 64:
            return FwdConfig(128, 32, 4, 3)
        if d <= 128:
            return FwdConfig(32, 64, 4, 3) if major >= 9 else FwdConfig(128, 32, 4, 3)
        return FwdConfig(32, 32, 4, 3) if major >= 9 else FwdConfig(64, 16, 4, 3)
    if d <= 64:
        return FwdConfig(128, 128 if major >= 9 else 64, 4, 3)
    if d <= 128:
        return FwdConfig(128, 128 if major >= 9 else 64, 8, 3)
    return FwdConfig(64, 32, 4, 3) if major >= 9 else FwdConfig(32, 64, 4, 3)


def _bwd_default(device: torch.device, dtype: torch.dtype, head_dim: int) -> BwdConfig:
    if device.type != "cuda":
        return BwdConfig(32, 32, 32, 32, 4, 1)
    if dtype == torch.float32:
        return BwdConfig(16, 16, 16, 16, 4, 1)
    d = padded_head_dim(head_dim)
    major, _ = torch.cuda.get_device_capability(device)
    if major >= 9:
        if d < 64:
            return BwdConfig(64, 64, 64, 64, 4, 3)
        if d <= 128:
            return BwdConfig(64, 128, 128, 64, 8, 3)
        return BwdConfig(64, 64, 64, 64, 4, 2)
    if d < 64:
        return BwdConfig(32, 128, 128, 32, 4, 3)
    return BwdConfig(64, 64, 64, 64, 4, 2)


def _apply(config, options: dict, names: tuple[str, ...]):
    chosen = {name: options[name] for name in names if name in options}
    for name, value in chosen.items():
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise ValueError(f"kernel_options[{name!r}] must be a positive int, got {value!r}")
    for name in FLAG_OPTIONS:
        if name in options:
            if not isinstance(options[name], bool):
                raise ValueError(f"kernel_options[{name!r}] must be a bool, got "
                                 f"{options[name]!r}")
            chosen[name] = int(options[name])
    return replace(config, **chosen)


def _fit(tile: int, block: int, name: str) -> int:
    """The tile, capped at the block mask's block size (both powers of two)."""
    if tile & (tile - 1) or tile < 16:
        raise ValueError(f"kernel_options[{name!r}] = {tile}: tiles are powers of two >= 16")
    return min(tile, block)


def choose(device: torch.device, dtype: torch.dtype, head_dim: int, q_block: int,
           kv_block: int, kernel_options: dict | None) -> tuple[FwdConfig, BwdConfig]:
    """The (forward, backward) configs of a call; remembered per distinct arguments."""
    options = tuple(sorted((kernel_options or {}).items()))
    if all(type(value) in (int, bool) for _, value in options):
        return _choose_cached(device, dtype, head_dim, q_block, kv_block, options)
    return _choose(device, dtype, head_dim, q_block, kv_block, dict(options))  # raises


@functools.lru_cache(maxsize=256)
def _choose_cached(device, dtype, head_dim, q_block, kv_block, options):
    return _choose(device, dtype, head_dim, q_block, kv_block, dict(options))


def _choose(device: torch.device, dtype: torch.dtype, head_dim: int, q_block: int,
            kv_block: int, options: dict) -> tuple[FwdConfig, BwdConfig]:
    unknown = set(options) - set(FWD_OPTIONS) - set(BWD_OPTIONS) - set(FLAG_OPTIONS)
    if unknown:
        raise ValueError(f"kernel_options has unknown keys {sorted(unknown)}; accepted: "
                         f"{', '.join(FWD_OPTIONS + BWD_OPTIONS + FLAG_OPTIONS)}")
    fwd = _apply(_fwd_default(device, dtype, head_dim), options, FWD_OPTIONS)
    bwd = _apply(_bwd_default(device, dtype, head_dim), options, BWD_OPTIONS)
    fwd = replace(fwd, BLOCK_M=_fit(fwd.BLOCK_M, q_block, "BLOCK_M"),
                  BLOCK_N=_fit(fwd.BLOCK_N, kv_block, "BLOCK_N"))
    bwd = replace(bwd, BLOCK_M1=_fit(bwd.BLOCK_M1, q_block, "BLOCK_M1"),
                  BLOCK_N1=_fit(bwd.BLOCK_N1, kv_block, "BLOCK_N1"),
                  BLOCK_M2=_fit(bwd.BLOCK_M2, q_block, "BLOCK_M2"),
                  BLOCK_N2=_fit(bwd.BLOCK_N2, kv_block, "BLOCK_N2"))
    return fwd, bwd


def as_list(config) -> list[int]:
    return [getattr(config, f.name) for f in fields(config)]
