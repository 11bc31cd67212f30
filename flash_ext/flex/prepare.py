"""From a call's score_mod and mask_mod to what the kernels take: the id of the kernel module
generated for them and the tensors they capture (its buffers).

Eager calls trace the mods (trace.py, cached), build their kernel module (build.py, cached) and
read the captured tensors from the functions, every call.

Under torch.compile, dynamo cannot follow make_fx, code generation or a module import, so that
part runs once per compilation, as a constant of the graph (the plan). What may change from one
call to the next stays with dynamo, in code it traces: the captured tensors are read from the
functions there (so they are graph inputs, and new values or new tensors are seen), and every
captured value the plan depends on is compared with the one it was made from, which dynamo turns
into guards (a changed number, function or tensor layout recompiles rather than reusing a stale
kernel). torch's flex_attention gets the same from its higher-order op, whose dynamo rule traces
the mods into subgraphs and lifts what they capture to inputs.

Mods dynamo cannot read this way (functions defined inside the compiled function that capture
anything, callable objects, partials with tensor arguments, captured objects other than tensors,
numbers, strings, functions, partials, tuples and lists) are prepared outside the graph, as in
eager mode: a graph break.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import Tensor

from flash_ext.flex import build
from flash_ext.flex.trace import (
    TracedMod,
    canonical_device,
    captures_unchanged,
    mod_buffers,
    trace_mod,
)


_OLD_DYNAMO = tuple(int(part) for part in torch.__version__.split(".")[:2]) < (2, 13)


@dataclass(frozen=True)
class Plan:
    kernel_id: int
    score: TracedMod | None
    mask: TracedMod | None
    device: torch.device  # with its index


def prepare(score_mod: Callable | None, mask_mod: Callable | None,
            device: torch.device) -> tuple[int, list[Tensor]]:
    """(kernel module id, captured tensors of this call: score_mod's, then mask_mod's)."""
    if not torch.compiler.is_compiling():
        kernel_id, _, _, buffers = _trace_and_build(score_mod, mask_mod, device)
        return kernel_id, buffers
    origins = (_origin(score_mod), _origin(mask_mod))
    plan = None
    if "other" not in origins:
        plan = _plan_while_compiling(score_mod, mask_mod, device, origins)
    if plan is None:
        # Mods traced code cannot read (see this module's doc): prepared eagerly, a graph break.
        return _prepare_outside_graph(score_mod, mask_mod, device)
    for traced, fn, origin in ((plan.score, score_mod, origins[0]),
                               (plan.mask, mask_mod, origins[1])):
        if origin == "outside" and not captures_unchanged(traced, fn):
            raise RuntimeError(f"{traced.kind} {traced.name!r} changed what it captures while "
                               "torch.compile traced it")
    return plan.kernel_id, _buffers(plan, score_mod, mask_mod)


def _trace_and_build(
    score_mod: Callable | None, mask_mod: Callable | None, device: torch.device,
) -> tuple[int, TracedMod | None, TracedMod | None, list[Tensor]]:
    """(kernel module id, traced score_mod, traced mask_mod, captured tensors of this call)."""
    score = mask = None
    score_buffers: list[Tensor] = []
    mask_buffers: list[Tensor] = []
    if score_mod is not None:
        score, score_buffers = trace_mod(score_mod, "score_mod", device)
    if mask_mod is not None:
        mask, mask_buffers = trace_mod(mask_mod, "mask_mod", device)
    kernel_id = build.kernel_module_id(score, score_buffers, mask, mask_buffers,
                                       device.type == "cpu")
    return kernel_id, score, mask, score_buffers + mask_buffers


def _buffers(plan: Plan, score_mod: Callable | None,
             mask_mod: Callable | None) -> list[Tensor]:
    buffers = []
    for traced, fn in ((plan.score, score_mod), (plan.mask, mask_mod)):
        if traced is not None:
            buffers += mod_buffers(traced, fn, plan.device)
    return buffers


def _origin(fn: Callable | None) -> str:
    """How traced code sees fn (through partials): "none"; "outside", a function whose captured
    values it can read again; "inside", a function made inside the compiled region that closes
    over no variables (dynamo rebuilds it for the plan, but cannot read what it captures); or
    "other" (a function made inside that closes over variables, a callable object, a partial
    with tensor arguments)."""
    if fn is None:
        return "none"
    while isinstance(fn, functools.partial):
        # dynamo hands the plan a partial only when its arguments are constants
        if any(isinstance(value, Tensor) for value in (*fn.args, *fn.keywords.values())):
            return "other"
        fn = fn.func
    try:
        fn.__closure__  # noqa: B018 (dynamo >= 2.13: AttributeError for one made inside)
    except AttributeError:
        if isinstance(fn, types.FunctionType) and not fn.__code__.co_freevars:
            return "inside"
        return "other"
    # Dynamo before torch 2.13 cannot always read closure cells back (a function made inside,
    # or one handed to a frame resumed after a graph break, fails inside dynamo): there,
    # functions that close over variables are prepared outside the graph, as before.
    if _OLD_DYNAMO and fn.__code__.co_freevars:
        return "other"
    return "outside"


@torch.compiler.assume_constant_result
def _plan_while_compiling(score_mod: Callable | None, mask_mod: Callable | None,
                          device: torch.device, origins: tuple[str, str]) -> Plan | None:
    """The plan as a constant of the graph (made when dynamo traces the call), or None for mods
    to prepare outside the graph: captured objects that cannot be fingerprinted, or a function
    made inside the compiled region that captures anything (traced code cannot read it back)."""
    kernel_id, score, mask, _ = _trace_and_build(score_mod, mask_mod, device)
    plan = Plan(kernel_id, score, mask, canonical_device(device))
    for traced, origin in ((plan.score, origins[0]), (plan.mask, origins[1])):
        if traced is not None and (traced.key is None or (origin == "inside" and
                                                           len(traced.key) > 1)):
            return None
    return plan


@torch.compiler.disable
def _prepare_outside_graph(score_mod: Callable | None, mask_mod: Callable | None,
                           device: torch.device) -> tuple[int, list[Tensor]]:
    """prepare() run eagerly, for mods that traced code cannot read (see the module doc)."""
    return prepare(score_mod, mask_mod, device)
