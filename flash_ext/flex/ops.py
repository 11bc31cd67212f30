"""The flex custom ops (torch.ops.flash_ext.flex_fwd / flex_bwd / flex_block_states): kernel
launches and autograd.

The mods reach the ops as the id of their generated kernel module (build.py) plus the tensors
they capture; block-mask lists, scale and tile configs are plain arguments. Outputs are new
tensors (no aliasing), with fake implementations for torch.compile and fake tensors.
"""

from __future__ import annotations

from contextlib import nullcontext

import torch
from torch import Tensor
from torch.autograd.function import once_differentiable

from flash_ext.flex import build
from flash_ext.flex.codegen import BUFFER_SLOTS
from flash_ext.flex.configs import padded_head_dim

_dummies: dict[torch.device, Tensor] = {}


def kernel_buffers(buffers: list[Tensor], device: torch.device) -> list[Tensor]:
    """The captured tensors as the BUFFER_SLOTS kernel arguments: bool as uint8, unused slots
    filled with a dummy."""
    if device not in _dummies:
        _dummies[device] = torch.zeros(16, dtype=torch.int32, device=device)
    out = [b.view(torch.uint8) if b.dtype == torch.bool else b for b in buffers]
    return out + [_dummies[device]] * (BUFFER_SLOTS - len(out))


def _mask_strides(num: Tensor, idx: Tensor) -> tuple[int, ...]:
    """(batch, head) strides of a count tensor and (batch, head, row) of its indices; a batch or
    head dim of size 1 broadcasts (stride 0)."""
    bcast = [num.shape[0] == 1, num.shape[1] == 1]
    num_strides = [0 if b else s for b, s in zip(bcast, num.stride()[:2])]
    idx_strides = [0 if b else s for b, s in zip(bcast, idx.stride()[:2])] + [idx.stride(2)]
    return (*num_strides, *idx_strides)


def _shape_constexprs(q: Tensor, v: Tensor, block_size: list[int], kv_len: int,
                      has_score_mod: bool) -> dict:
    """The compile-time parameters the forward and backward kernels share."""
    head_dim, v_head_dim = q.shape[3], v.shape[3]
    return {
        "HEAD_DIM": head_dim, "V_HEAD_DIM": v_head_dim, "BLOCK_D": padded_head_dim(head_dim),
        "BLOCK_DV": padded_head_dim(v_head_dim), "SPARSE_Q": block_size[0],
        "SPARSE_KV": block_size[1], "HAS_SCORE_MOD": has_score_mod,
        # No tile sticks out of the sequences when their lengths are multiples of the blocks
        # (which the tiles divide): then the kernels skip every bounds check.
        "IS_DIVISIBLE": q.shape[2] % block_size[0] == 0 and kv_len % block_size[1] == 0,
        "IEEE_FP32": q.dtype == torch.float32,
    }


def _tma_ok(*tensors: Tensor) -> bool:
    """Whether TMA can read these (B, H, S, D) tensors: a 16-byte aligned base, unit last
    stride, the other strides multiples of 16 bytes, nothing broadcast (stride 0)."""
    for t in tensors:
        if t.data_ptr() % 16 or t.stride(3) != 1 or t.numel() == 0:
            return False
        if any(stride * t.element_size() % 16 or (stride == 0 and size > 1)
               for size, stride in zip(t.shape[:3], t.stride()[:3])):
            return False
    return True


def _has_tma(device: torch.device) -> bool:
    return device.type == "cuda" and torch.cuda.get_device_capability(device)[0] >= 9


def _tile_descriptors(use_tma: bool, tiles: list[tuple[Tensor, int]]) -> list:
    """The kernels' descriptor arguments: per (tensor, tile rows), a TMA descriptor of
    (1, 1, rows, padded head dim) boxes, or, without TMA, the tensor itself (then unused)."""
    if not use_tma:
        return [t for t, _ in tiles]
    from triton.tools.tensor_descriptor import TensorDescriptor

    return [TensorDescriptor(t, list(t.shape), list(t.stride()),
                             [1, 1, rows, padded_head_dim(t.shape[3])]) for t, rows in tiles]


def _device_guard(device: torch.device):
    return torch.cuda.device(device) if device.type == "cuda" else nullcontext()


_working_stages: dict[tuple, int] = {}


def _launch(kernel_id: int, name: str, grid: tuple, args: list, constexprs: dict,
            num_warps: int, num_stages: int) -> None:
    """Launches kernel `name` of a kernel module. A config that needs more shared memory than
    the GPU has (a score_mod's gathers are pipelined too) is retried with fewer pipeline stages;
    the stages that worked are remembered."""
    from triton.runtime.errors import OutOfResources  # triton is needed only from here on

    kernel = getattr(build.module(kernel_id), name)
    key = (kernel_id, name, tuple(sorted(constexprs.items())), num_warps, num_stages)
    stages = _working_stages.get(key, num_stages)
    while True:
        try:
            kernel[grid](*args, **constexprs, num_warps=num_warps, num_stages=stages)
        except OutOfResources:
            if stages == 1:
                raise
            stages -= 1
            continue
        _working_stages[key] = stages
        return


def launch_forward(q: Tensor, k: Tensor, v: Tensor, kv_num_blocks: Tensor, kv_indices: Tensor,
                   full_kv_num_blocks: Tensor, full_kv_indices: Tensor, buffers: list[Tensor],
                   kernel_id: int, scale: float, block_size: list[int], has_score_mod: bool,
                   fwd_config: list[int]) -> tuple[Tensor, Tensor]:
    """The forward kernel's launch: out (B, Hq, Sq, Dv) in q's dtype and lse (B, Hq, Sq)
    float32 (natural log)."""
    batch, heads, q_len = q.shape[:3]
    kv_heads, kv_len = k.shape[1], k.shape[2]
    out = q.new_empty((batch, heads, q_len, v.shape[3]))
    lse = q.new_empty((batch, heads, q_len), dtype=torch.float32)
    block_m, block_n, num_warps, num_stages, use_tma = fwd_config
    use_tma = bool(use_tma) and _has_tma(q.device) and _tma_ok(k, v)
    grid = (triton_cdiv(q_len, block_m), batch * heads)
    args = [q, k, v, out, lse, *_tile_descriptors(use_tma, [(k, block_n), (v, block_n)]),
            kv_num_blocks, kv_indices, full_kv_num_blocks, full_kv_indices,
            *kernel_buffers(buffers, q.device),
            *q.stride(), *k.stride(), *v.stride(), *out.stride(),
            *_mask_strides(kv_num_blocks, kv_indices),
            heads, q_len, kv_len, heads // kv_heads, scale]
    constexprs = {**_shape_constexprs(q, v, block_size, kv_len, has_score_mod),
                  "BLOCK_M": block_m, "BLOCK_N": block_n, "TMA": use_tma}
    with _device_guard(q.device):
        _launch(kernel_id, "flex_fwd_kernel", grid, args, constexprs, num_warps, num_stages)
    return out, lse


def launch_backward(grad_out: Tensor, grad_lse: Tensor | None, q: Tensor, k: Tensor,
                    v: Tensor, out: Tensor, lse: Tensor, kv_num_blocks: Tensor,
                    kv_indices: Tensor, full_kv_num_blocks: Tensor, full_kv_indices: Tensor,
                    q_num_blocks: Tensor, q_indices: Tensor, full_q_num_blocks: Tensor,
                    full_q_indices: Tensor, buffers: list[Tensor], kernel_id: int, scale: float,
                    block_size: list[int], has_score_mod: bool,
                    bwd_config: list[int]) -> tuple[Tensor, Tensor, Tensor]:
    """The backward kernels' launches: dq, dk, dv in the dtypes of q, k, v (grad_out with a
    unit last stride)."""
    batch, heads, q_len = q.shape[:3]
    kv_heads, kv_len = k.shape[1], k.shape[2]
    # delta = rowsum(dO * O) - dLSE: the softmax backward's correction, in one pass over dO and
    # O (eager torch made float32 copies of both and went over them several times).
    delta = torch.empty((batch, heads, q_len), dtype=torch.float32, device=q.device)
    dlse = delta  # not read without an lse gradient
    if grad_lse is not None:
        dlse = grad_lse.float().expand(batch, heads, q_len).contiguous()
    delta_block = 64
    with _device_guard(q.device):
        _launch(kernel_id, "bwd_delta_kernel", (triton_cdiv(q_len, delta_block), batch * heads),
                [out, grad_out, dlse, delta, *out.stride(), *grad_out.stride(), heads, q_len,
                 v.shape[3]],
                {"BLOCK_M": delta_block, "BLOCK_DV": padded_head_dim(v.shape[3]),
                 "HAS_DLSE": grad_lse is not None}, 4, 1)
    dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
    block_m1, block_n1, block_m2, block_n2, num_warps, num_stages, use_tma = bwd_config
    use_tma = bool(use_tma) and _has_tma(q.device) and _tma_ok(q, k, v, grad_out)
    group = heads // kv_heads
    grid = (triton_cdiv(kv_len, block_n1) + group * triton_cdiv(q_len, block_m2),
            batch * kv_heads)
    args = [q, k, v, grad_out, lse, delta, dq, dk, dv,
            *_tile_descriptors(use_tma, [(q, block_m1), (grad_out, block_m1), (k, block_n2),
                                         (v, block_n2)]),
            kv_num_blocks, kv_indices, full_kv_num_blocks, full_kv_indices,
            q_num_blocks, q_indices, full_q_num_blocks, full_q_indices,
            *kernel_buffers(buffers, q.device),
            *q.stride(), *k.stride(), *v.stride(), *grad_out.stride(),
            *dq.stride(), *dk.stride(), *dv.stride(),
            *_mask_strides(kv_num_blocks, kv_indices), *_mask_strides(q_num_blocks, q_indices),
            heads, kv_heads, q_len, kv_len, group, scale]
    constexprs = {**_shape_constexprs(q, v, block_size, kv_len, has_score_mod),
                  "BLOCK_M1": block_m1, "BLOCK_N1": block_n1, "BLOCK_M2": block_m2,
                  "BLOCK_N2": block_n2, "TMA": use_tma}
    with _device_guard(q.device):
        _launch(kernel_id, "flex_bwd_kernel", grid, args, constexprs, num_warps, num_stages)
    return dq, dk, dv


def launch_block_states(buffers: list[Tensor], kernel_id: int, batch: int, heads: int,
                        q_len: int, kv_len: int, q_block: int, kv_block: int,
                        device: torch.device) -> Tensor:
    """The block-state kernel's launch: (batch, heads, num_q_blocks, num_kv_blocks) int8 states
    of a kernel module's mask_mod (see block_mask.py)."""
    num_q, num_kv = triton_cdiv(q_len, q_block), triton_cdiv(kv_len, kv_block)
    states = torch.empty((batch, heads, num_q, num_kv), dtype=torch.int8, device=device)
    with _device_guard(device):
        build.module(kernel_id).block_state_kernel[(num_q, heads, batch)](
            states, *kernel_buffers(buffers, device), *states.stride()[:3], q_len, kv_len,
            num_kv, SPARSE_Q=q_block, SPARSE_KV=kv_block, num_warps=8 if q_block >= 128 else 4,
            num_stages=1,  # no pipelining: a gather of a 2-D table would not fit in shared memory
        )
    return states


# The custom ops: what torch.compile, fake tensors, dispatch modes and functorch see. Plain eager
# calls take FlexFunction below instead (see needs_custom_op).


@torch.library.custom_op("flash_ext::flex_fwd", mutates_args=())
def flex_fwd(
    q: Tensor, k: Tensor, v: Tensor,
    kv_num_blocks: Tensor, kv_indices: Tensor, full_kv_num_blocks: Tensor,
    full_kv_indices: Tensor, q_num_blocks: Tensor, q_indices: Tensor,
    full_q_num_blocks: Tensor, full_q_indices: Tensor, buffers: list[Tensor],
    kernel_id: int, scale: float, block_size: list[int], has_score_mod: bool,
    fwd_config: list[int], bwd_config: list[int],
) -> tuple[Tensor, Tensor]:
    """out and lse (see launch_forward). The q_* lists and bwd_config are for the backward
    (autograd saves them from here)."""
    return launch_forward(q, k, v, kv_num_blocks, kv_indices, full_kv_num_blocks,
                          full_kv_indices, buffers, kernel_id, scale, block_size, has_score_mod,
                          fwd_config)


@flex_fwd.register_fake
def _flex_fwd_fake(q, k, v, *args):
    batch, heads, q_len, _ = q.shape
    out = q.new_empty((batch, heads, q_len, v.shape[3]))
    return out, q.new_empty((batch, heads, q_len), dtype=torch.float32)


@torch.library.custom_op("flash_ext::flex_bwd", mutates_args=())
def flex_bwd(
    grad_out: Tensor, grad_lse: Tensor | None, q: Tensor, k: Tensor, v: Tensor, out: Tensor,
    lse: Tensor, kv_num_blocks: Tensor, kv_indices: Tensor, full_kv_num_blocks: Tensor,
    full_kv_indices: Tensor, q_num_blocks: Tensor, q_indices: Tensor,
    full_q_num_blocks: Tensor, full_q_indices: Tensor, buffers: list[Tensor], kernel_id: int,
    scale: float, block_size: list[int], has_score_mod: bool, bwd_config: list[int],
) -> tuple[Tensor, Tensor, Tensor]:
    """dq, dk, dv (see launch_backward)."""
    return launch_backward(grad_out, grad_lse, q, k, v, out, lse, kv_num_blocks, kv_indices,
                           full_kv_num_blocks, full_kv_indices, q_num_blocks, q_indices,
                           full_q_num_blocks, full_q_indices, buffers, kernel_id, scale,
                           block_size, has_score_mod, bwd_config)


@flex_bwd.register_fake
def _flex_bwd_fake(grad_out, grad_lse, q, k, v, *args):
    return torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)


@torch.library.custom_op("flash_ext::flex_block_states", mutates_args=())
def flex_block_states(
    buffers: list[Tensor], kernel_id: int, batch: int, heads: int, q_len: int, kv_len: int,
    q_block: int, kv_block: int, device: torch.device,
) -> Tensor:
    """The block states of create_block_mask (see launch_block_states)."""
    return launch_block_states(buffers, kernel_id, batch, heads, q_len, kv_len, q_block,
                               kv_block, device)


@flex_block_states.register_fake
def _flex_block_states_fake(buffers, kernel_id, batch, heads, q_len, kv_len, q_block, kv_block,
                            device):
    shape = (batch, heads, triton_cdiv(q_len, q_block), triton_cdiv(kv_len, kv_block))
    return torch.empty(shape, dtype=torch.int8, device=device)


def triton_cdiv(a: int, b: int) -> int:
    return -(-a // b)


# Autograd: the backward recomputes the probabilities from q, k and lse.

_MASK_ARGS = 8  # the eight block-mask list tensors, after q, k, v


def _setup_context(ctx, inputs, output):
    q, k, v = inputs[:3]
    lists = inputs[3:3 + _MASK_ARGS]
    (buffers, kernel_id, scale, block_size, has_score_mod, _,
     bwd_config) = inputs[3 + _MASK_ARGS:]
    out, lse = output
    ctx.save_for_backward(q, k, v, out, lse, *lists, *buffers)
    ctx.num_buffers = len(buffers)
    ctx.options = (kernel_id, scale, block_size, has_score_mod, bwd_config)


def _kernel_grad_out(grad_out: Tensor | None, out: Tensor) -> Tensor:
    """dO as the backward kernels take it: zeros for a loss of lse alone, unit last stride."""
    if grad_out is None:
        return torch.zeros_like(out)
    return grad_out.contiguous() if grad_out.stride(-1) != 1 else grad_out


@once_differentiable  # flex_bwd has no derivative: differentiating its result again raises
def _grads(ctx, grad_out, grad_lse):
    q, k, v, out, lse, *rest = ctx.saved_tensors
    lists, buffers = rest[:_MASK_ARGS], rest[_MASK_ARGS:]
    return flex_bwd(_kernel_grad_out(grad_out, out), grad_lse, q, k, v, out, lse, *lists,
                    list(buffers), *ctx.options)


def _backward(ctx, grad_out, grad_lse):
    dq, dk, dv = _grads(ctx, grad_out, grad_lse)
    # No gradient for the mask lists, the captured buffers (a list) and the options.
    return dq, dk, dv, *([None] * _MASK_ARGS), [None] * ctx.num_buffers, *([None] * 6)


flex_fwd.register_autograd(_backward, setup_context=_setup_context)


# The eager path. The custom ops' dispatch (schema checks, the aliasing check, the autograd
# wrapper's pytree handling of 18 arguments, a second op for the backward) took more CPU time per
# call than the launches themselves: on the H100 machine a forward call cost ~520 us of CPU
# against ~360 us of GPU time at the benchmark's sliding-window shape, so the GPU waited.


def needs_custom_op(*tensors: Tensor) -> bool:
    """Whether a call must go through the custom ops: while torch.compile traces, under a
    dispatch or torch-function mode (fake tensors, make_fx, FlopCounterMode, torch.device as a
    context manager), inside functorch transforms (vmap, grad), or with tensor subclasses."""
    return (torch.compiler.is_compiling() or torch._C._len_torch_dispatch_stack() > 0
            or torch._C._is_torch_function_mode_enabled()
            or torch._C._are_functorch_transforms_active()
            or any(type(t) not in (Tensor, torch.nn.Parameter) for t in tensors))


class FlexFunction(torch.autograd.Function):
    """flex_fwd with flex_bwd as its gradient, as a plain autograd function: the same arguments
    and the same launches as the custom ops."""

    @staticmethod
    def forward(ctx, q, k, v, kv_num_blocks, kv_indices, full_kv_num_blocks, full_kv_indices,
                q_num_blocks, q_indices, full_q_num_blocks, full_q_indices, buffers, kernel_id,
                scale, block_size, has_score_mod, fwd_config, bwd_config):
        out, lse = launch_forward(q, k, v, kv_num_blocks, kv_indices, full_kv_num_blocks,
                                  full_kv_indices, buffers, kernel_id, scale, block_size,
                                  has_score_mod, fwd_config)
        ctx.save_for_backward(q, k, v, out, lse)
        # Not differentiated: kept on ctx rather than saved (no version checks needed).
        ctx.lists = (kv_num_blocks, kv_indices, full_kv_num_blocks, full_kv_indices,
                     q_num_blocks, q_indices, full_q_num_blocks, full_q_indices)
        ctx.buffers = buffers
        ctx.options = (kernel_id, scale, block_size, has_score_mod, bwd_config)
        ctx.set_materialize_grads(False)  # no zero tensor for an unused lse
        return out, lse

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_out, grad_lse):
        q, k, v, out, lse = ctx.saved_tensors
        dq, dk, dv = launch_backward(_kernel_grad_out(grad_out, out), grad_lse, q, k, v, out,
                                     lse, *ctx.lists, ctx.buffers, *ctx.options)
        return dq, dk, dv, *([None] * 15)

