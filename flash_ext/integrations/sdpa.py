"""SDPA routing: `F.scaled_dot_product_attention` runs flash_ext's kernels where SDPA picks its
flash backend, through torch's flash attention impl registry (torch.nn.attention's
register_flash_attention_impl / activate_flash_attention_impl: torch 2.11 and 2.13 have it).

    from flash_ext.integrations import sdpa
    sdpa.activate()        # registers "flash_ext", activates it, puts SDPA's flash backend first
    ...                    # F.scaled_dot_product_attention -> flash_ext
    sdpa.restore()         # torch's own kernels again

What it replaces (aten's kernels, per device):
- CUDA: _scaled_dot_product_flash_attention, _flash_attention_forward (dense and varlen, the op
  under torch.nn.attention.varlen) and their backwards, with flash_ext's flash kernels (fp16,
  bf16, head dims up to 256, dropout, causal, window, ALiBi in the forward). SDPA takes its flash
  backend only where flash-attn 2's rules allow (no attn_mask, fp16/bf16, ...); other calls keep
  running on cuDNN, efficient or math. On the H100 SDPA prefers cuDNN: activate() moves flash
  first in SDPA's priority order and switches SDPA's cuDNN backend off unless prefer_flash=False.
- CPU: _scaled_dot_product_flash_attention_for_cpu and its backward, with flash_ext's CPU kernels
  (float32, bfloat16, float16, with SDPA's attn_mask); float64 runs flash_ext's float64 reference.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import torch
from torch import Tensor

from flash_ext.ops import ops
from flash_ext.reference import attention_ref, attention_scores

IMPL = "flash_ext"
_FLASH = torch.nn.attention.SDPBackend.FLASH_ATTENTION
_KERNEL_DTYPES = (torch.float16, torch.bfloat16, torch.float32)


def available() -> bool:
    """Whether this torch has the flash attention impl registry."""
    return hasattr(torch.nn.attention, "register_flash_attention_impl")


def _require_registry() -> None:
    if not available():
        raise RuntimeError(f"SDPA routing needs torch.nn.attention.register_flash_attention_impl, "
                           f"which torch {torch.__version__} does not have (torch 2.11 does)")


def register() -> None:
    """Registers flash_ext with torch's registry as "flash_ext" (activating is separate)."""
    _require_registry()
    torch.nn.attention.register_flash_attention_impl(IMPL, register_fn=_install)


def activate(prefer_flash: bool = True) -> None:
    """Registers and activates flash_ext for SDPA. With prefer_flash, SDPA's flash backend goes
    first in its priority order and SDPA's cuDNN backend is switched off (torch 2.11 on the H100
    picks cuDNN whatever the order); restore() puts both back."""
    global _saved
    register()
    torch.nn.attention.activate_flash_attention_impl(IMPL)
    if prefer_flash and _saved is None:
        _saved = (torch._C._get_sdp_priority_order(), torch.backends.cuda.cudnn_sdp_enabled())
        order = [int(_FLASH)] + [b for b in _saved[0] if b != int(_FLASH)]
        torch._C._set_sdp_priority_order(order)
        torch.backends.cuda.enable_cudnn_sdp(False)


def restore() -> None:
    """torch's own flash kernels, SDPA's previous priority order and cuDNN setting again."""
    global _saved
    _require_registry()
    if torch.nn.attention.current_flash_attention_impl() == IMPL:
        torch.nn.attention.restore_flash_attention_impl()
    if _saved is not None:
        torch._C._set_sdp_priority_order(_saved[0])
        torch.backends.cuda.enable_cudnn_sdp(_saved[1])
        _saved = None


#: What activate(prefer_flash=True) changed: SDPA's priority order and cuDNN switch.
_saved: tuple[list[int], bool] | None = None


@dataclass
class _Handle:
    """What activation keeps alive: the library holding the kernel overrides."""

    library: torch.library.Library | None

    def remove(self) -> None:
        self.library = None  # the registrations go with the library object


def _install() -> _Handle:
    lib = torch.library.Library("aten", "IMPL")
    kernels = (("_scaled_dot_product_flash_attention", _sdpa_flash_forward, "CUDA"),
               ("_scaled_dot_product_flash_attention_backward", _sdpa_flash_backward, "CUDA"),
               ("_flash_attention_forward", _flash_forward, "CUDA"),
               ("_flash_attention_backward", _flash_backward, "CUDA"),
               ("_scaled_dot_product_flash_attention_for_cpu", _cpu_forward, "CPU"),
               ("_scaled_dot_product_flash_attention_for_cpu_backward", _cpu_backward, "CPU"))
    with warnings.catch_warnings():  # overriding aten's kernels is the point
        warnings.filterwarnings("ignore", "(?s).*Overriding a previously registered kernel")
        for name, kernel, key in kernels:
            lib.impl(name, kernel, key)
    return _Handle(lib)


# The kernels take scale > 0 (they mask and take row maxima on q.k): scale * q.k is
# (-scale) * (-q).k, and a zero scale (0 q).k with scale 1; dq gets the same sign.


def _fold_scale(q: Tensor, scale: float | None) -> tuple[Tensor, float, int]:
    scale = q.shape[-1] ** -0.5 if scale is None else scale
    if scale > 0:
        return q, scale, 1
    if scale < 0:
        return -q, -scale, -1
    return q * 0, 1.0, 0


def _window(left: int | None, right: int | None, is_causal: bool) -> tuple[int, int]:
    left = -1 if left is None else int(left)
    right = 0 if is_causal else (-1 if right is None else int(right))
    return left, right


def _seed(dropout_p: float, q: Tensor) -> Tensor | None:
    """(seed, offset) for the kernels' dropout, from torch's generator on q's device."""
    if dropout_p == 0:
        return None
    return torch.randint(0, 2**62, (2,), dtype=torch.int64, device=q.device)


def _rng_outputs(seed: Tensor | None, q: Tensor) -> tuple[Tensor, Tensor]:
    """aten's (rng_state (2,), unused ()) uint64 outputs, carrying the seed to the backward."""
    state = seed if seed is not None else torch.zeros(2, dtype=torch.int64, device=q.device)
    return state.view(torch.uint64), torch.empty((), dtype=torch.uint64, device=q.device)


def _seed_back(rng_state: Tensor | None, dropout_p: float) -> Tensor | None:
    return rng_state.view(torch.int64) if dropout_p > 0 else None


def _like(result: Tensor, template: Tensor) -> Tensor:
    """`result` in template's strides (aten's meta functions promise empty_like(query))."""
    if result.stride() == template.stride():
        return result
    return torch.empty_like(template).copy_(result)


def _unsupported(what: str) -> NotImplementedError:
    return NotImplementedError(f"flash_ext's SDPA routing does not support {what}; call "
                               f"flash_ext.integrations.sdpa.restore() to use torch's kernels")


def _sdpa_flash_forward(query, key, value, dropout_p=0.0, is_causal=False,
                        return_debug_mask=False, *, scale=None):
    """(B, H, S, D) inputs, top-left causal (SDPA's)."""
    if return_debug_mask:
        raise _unsupported("return_debug_mask=True")
    q, scale, _ = _fold_scale(query, scale)
    seed = _seed(dropout_p, q)
    left, right = _window(None, None, is_causal)
    out, lse = ops.attention_fwd(q, key, value, None, None, seed, dropout_p, scale, left, right,
                                 False, 0.0, False)
    rng_state, unused = _rng_outputs(seed, q)
    empty = query.new_empty(0)
    return (_like(out, query), lse, None, None, query.shape[2], key.shape[2], rng_state, unused,
            empty)


def _sdpa_flash_backward(grad_out, query, key, value, out, logsumexp, cum_seq_q, cum_seq_k,
                         max_q, max_k, dropout_p, is_causal, philox_seed, philox_offset, *,
                         scale=None):
    q, scale, sign = _fold_scale(query, scale)
    left, right = _window(None, None, is_causal)
    deterministic = torch.are_deterministic_algorithms_enabled()
    dq, dk, dv, _ = ops.attention_bwd(grad_out, q, key, value, out, logsumexp, None, None,
                                      _seed_back(philox_seed, dropout_p), dropout_p, scale, left,
                                      right, False, 0.0, deterministic)
    return _like(dq * sign if sign != 1 else dq, query), _like(dk, key), _like(dv, value)


def _flash_forward(query, key, value, cum_seq_q, cum_seq_k, max_q, max_k, dropout_p, is_causal,
                   return_debug_mask, *, scale=None, window_size_left=None,
                   window_size_right=None, seqused_k=None, alibi_slopes=None, block_table=None,
                   num_splits=None):
    """flash-attn's (B, S, H, D) or packed (T, H, D) inputs, bottom-right causal."""
    if return_debug_mask:
        raise _unsupported("return_debug_mask=True")
    if seqused_k is not None or block_table is not None:
        raise _unsupported("seqused_k or block_table (use flash_ext.flash_attn_with_kvcache)")
    if alibi_slopes is not None and torch.is_grad_enabled() and any(
            t.requires_grad for t in (query, key, value)):
        raise _unsupported("alibi_slopes with gradients (aten's flash backward has no slopes)")
    q, scale, _ = _fold_scale(query, scale)
    seed = _seed(dropout_p, q)
    left, right = _window(window_size_left, window_size_right, is_causal)
    if cum_seq_q is None:
        out, lse = ops.attention_fwd(q.transpose(1, 2), key.transpose(1, 2),
                                     value.transpose(1, 2), None, alibi_slopes, seed, dropout_p,
                                     scale, left, right, True, 0.0, False)
        out = out.transpose(1, 2)
    else:
        out, lse = ops.attention_varlen_fwd(q, key, value, cum_seq_q, cum_seq_k, max_q, max_k,
                                            alibi_slopes, seed, dropout_p, scale, left, right,
                                            True, 0.0, False)
    rng_state, unused = _rng_outputs(seed, q)
    return _like(out, query), lse, rng_state, unused, query.new_empty(0)


def _flash_backward(grad_out, query, key, value, out, logsumexp, cum_seq_q, cum_seq_k, max_q,
                    max_k, dropout_p, is_causal, rng_state, unused, *, scale=None,
                    window_size_left=None, window_size_right=None):
    q, scale, sign = _fold_scale(query, scale)
    left, right = _window(window_size_left, window_size_right, is_causal)
    seed = _seed_back(rng_state, dropout_p)
    deterministic = torch.are_deterministic_algorithms_enabled()
    if cum_seq_q is None or cum_seq_q.numel() == 0:
        t = (grad_out, q, key, value, out)
        dq, dk, dv, _ = ops.attention_bwd(*(x.transpose(1, 2) for x in t), logsumexp, None, None,
                                          seed, dropout_p, scale, left, right, True, 0.0,
                                          deterministic)
        dq, dk, dv = (x.transpose(1, 2) for x in (dq, dk, dv))
    else:
        dq, dk, dv, _ = ops.attention_varlen_bwd(grad_out, q, key, value, out, logsumexp, cum_seq_q,
                                                 cum_seq_k, max_q, max_k, None, seed, dropout_p,
                                                 scale, left, right, True, 0.0, deterministic)
    return _like(dq * sign if sign != 1 else dq, query), _like(dk, key), _like(dv, value)


def _cpu_mask(attn_mask: Tensor | None, query: Tensor) -> Tensor | None:
    """SDPA's attn_mask as flash_ext's CPU kernels take it: bool or of the inputs' dtype."""
    if attn_mask is None or attn_mask.dtype in (torch.bool, query.dtype):
        return attn_mask
    return attn_mask.to(query.dtype)


def _cpu_forward(query, key, value, dropout_p=0.0, is_causal=False, *, attn_mask=None,
                 scale=None):
    """(B, H, S, D) on the CPU, top-left causal; no dropout (SDPA's CPU flash takes none)."""
    if dropout_p > 0:
        raise _unsupported("dropout on the CPU (SDPA's CPU flash backend takes none)")
    left, right = _window(None, None, is_causal)
    if query.dtype not in _KERNEL_DTYPES:
        with torch.no_grad():
            out, lse = attention_ref(query, key, value, attn_mask=attn_mask, is_causal=is_causal,
                                     scale=scale, compute_dtype=query.dtype)
    else:
        q, scale, _ = _fold_scale(query, scale)
        out, lse = ops.attention_fwd(q, key, value, _cpu_mask(attn_mask, query), None, None, 0.0,
                                     scale, left, right, False, 0.0, False)
    # aten's meta: logsumexp (B, Sq, H) memory viewed as (B, H, Sq), in the compute dtype.
    lse = lse.to(torch.float64 if query.dtype == torch.float64 else torch.float32)
    return _like(out, query), lse.transpose(1, 2).contiguous().transpose(1, 2)


def _cpu_backward(grad_out, query, key, value, out, logsumexp, dropout_p, is_causal, *,
                  attn_mask=None, scale=None):
    left, right = _window(None, None, is_causal)
    if query.dtype not in _KERNEL_DTYPES:
        return _math_backward(grad_out, query, key, value, out, attn_mask, is_causal, scale)
    q, scale, sign = _fold_scale(query, scale)
    dq, dk, dv, _ = ops.attention_bwd(grad_out, q, key, value, out, logsumexp.contiguous(),
                                      _cpu_mask(attn_mask, query), None, None, 0.0, scale, left,
                                      right, False, 0.0, False)
    return _like(dq * sign if sign != 1 else dq, query), _like(dk, key), _like(dv, value)


def _math_backward(grad_out, query, key, value, out, attn_mask, is_causal, scale):
    """The gradients through the materialized probabilities (float64 on the CPU): below
    autograd, so written out: dS = P * (dO V^T - rowsum(dO * O)), dq = scale dS k, and so on."""
    group = query.shape[1] // key.shape[1]
    scale = query.shape[-1] ** -0.5 if scale is None else scale
    scores = attention_scores(query, key, attn_mask=attn_mask, is_causal=is_causal, scale=scale,
                              compute_dtype=query.dtype)
    probs = torch.softmax(scores, -1).nan_to_num(0.0)  # rows that see no key: zeros
    k, v = (t.repeat_interleave(group, 1) for t in (key, value))
    grad_scores = probs * (grad_out @ v.transpose(-2, -1)
                           - (grad_out * out).sum(-1, keepdim=True))
    dq = grad_scores @ k * scale
    dk = (grad_scores.transpose(-2, -1) @ query * scale).unflatten(1, (-1, group)).sum(2)
    dv = (probs.transpose(-2, -1) @ grad_out).unflatten(1, (-1, group)).sum(2)
    return dq, dk, dv
