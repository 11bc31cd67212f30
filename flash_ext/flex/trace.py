"""From a user's score_mod / mask_mod to aten graphs, and the tensors it captures.

A mod is traced once with make_fx on 0-d example tensors (score float32, b, h, q_idx, kv_idx
int32), the way FlexAttention calls it per element. score_mod is traced twice: the function
itself, and its joint with autograd (the gradient w.r.t. score for an incoming gradient), so the
backward kernel gets the derivative that torch's own autograd defines.

Tensors the function captures (closure cells, referenced globals, defaults, partial arguments,
recursively) become kernel buffers. Each is remembered by its *path* among the function's
captured values, so a later call with a new closure of the same code (new doc ids, a new bias
table with the same layout) reuses the trace and just reads the new tensors: the cache key is the
code plus every captured value (tensors by dtype, shape, strides and device).
"""

from __future__ import annotations

import functools
import threading
import types
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor
from torch.fx.experimental.proxy_tensor import make_fx
from torch.overrides import TorchFunctionMode

SCORE_MOD_ARGS = ("score", "b", "h", "q_idx", "kv_idx")
MASK_MOD_ARGS = ("b", "h", "q_idx", "kv_idx")

_SCALARS = (bool, int, float, complex, str, bytes, type(None), torch.dtype, torch.device)
_MAX_DEPTH = 8
_CACHE_SIZE = 256


@dataclass(frozen=True)
class TracedMod:
    """A traced mod: its graphs and where each captured buffer comes from.

    kind is "score_mod" or "mask_mod"; graph computes the mod, grad_graph (score_mod only) the
    gradient w.r.t. score given an incoming gradient `grad`. buffers[i] is either a path into the
    function's captured values (a tuple) or a tensor the function itself created (a constant).
    """

    kind: str
    graph: torch.fx.GraphModule
    grad_graph: torch.fx.GraphModule | None
    buffers: tuple[Any, ...]
    graph_slots: dict[str, int]  # get_attr target of graph -> index into buffers
    grad_slots: dict[str, int]  # the same for grad_graph
    name: str
    key: tuple | None  # fingerprint of the captured values; None: opaque, traced at every call


class _GatherIndexing(TorchFunctionMode):
    """Makes `table[i]` with a 0-d index tensor trace as aten.index (a gather), as under vmap.

    Eager torch turns a 0-d integer index into a Python int (a data-dependent value that make_fx
    cannot trace). The basic part of the key (ints, slices, None, ...) is applied first; the
    tensor indices then pick from the dims they stood for.
    """

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is Tensor.__getitem__:
            table, key = args
            key = key if isinstance(key, tuple) else (key,)
            if any(isinstance(e, Tensor) for e in key):
                return _gather(table, key)
        return func(*args, **kwargs)


def _gather(table: Tensor, key: tuple) -> Tensor:
    consumed = sum(1 for e in key if e is not None and e is not Ellipsis)
    basic, picks, out_dim = [], [], 0
    for e in key:
        if isinstance(e, Tensor):
            if e.dtype == torch.bool or e.is_floating_point():
                raise NotImplementedError(
                    f"indexing a captured tensor with a {e.dtype} tensor is not supported; "
                    "index with integer tensors (b, h, q_idx, kv_idx and expressions of them)")
            basic.append(slice(None))
            picks.append((out_dim, e))
            out_dim += 1
        elif e is None or isinstance(e, slice):
            basic.append(e)
            out_dim += 1
        elif e is Ellipsis:
            basic.append(e)
            out_dim += table.dim() - consumed
        else:
            basic.append(e)
    view = table[tuple(basic)]
    indices: list[Tensor | None] = [None] * (picks[-1][0] + 1)
    for dim, index in picks:
        indices[dim] = index
    return torch.ops.aten.index.Tensor(view, indices)


def _examples(kind: str, device: torch.device) -> list[Tensor]:
    ints = [torch.zeros((), dtype=torch.int32, device=device) for _ in range(4)]
    if kind == "mask_mod":
        return ints
    return [torch.zeros((), dtype=torch.float32, device=device), *ints]


def _trace(fn: Callable, examples: list[Tensor], what: str) -> torch.fx.GraphModule:
    def traced(*args):
        with _GatherIndexing():
            return fn(*args)

    try:
        gm = make_fx(traced, tracing_mode="real")(*examples)
    except NotImplementedError:
        raise
    except Exception as e:
        message = str(e).split("\n")[0]
        hint = ""
        if "data-dependent" in message or "_local_scalar_dense" in message or "item" in message:
            hint = (" A mod runs on tensors inside the kernel: no Python `if`, `int()` or "
                    "`.item()` on its arguments; use torch.where.")
        raise TypeError(f"{what} could not be traced: {type(e).__name__}: {message}.{hint}") from e
    gm.graph.eliminate_dead_code()
    gm.recompile()
    return gm


def _joint(score_mod: Callable) -> Callable:
    """(score, b, h, q_idx, kv_idx, grad) -> d(score_mod)/d(score) * grad, by torch autograd."""

    def joint(score, b, h, q_idx, kv_idx, grad):
        with torch.enable_grad():
            score = score.detach().requires_grad_(True)
            out = score_mod(score, b, h, q_idx, kv_idx)
            if not isinstance(out, Tensor) or not out.requires_grad:
                return torch.zeros_like(score)
            (grad_score,) = torch.autograd.grad(out, score, grad, allow_unused=True)
        return torch.zeros_like(score) if grad_score is None else grad_score.detach()

    return joint


# Captured values ----------------------------------------------------------------------------


class _Opaque(Exception):
    """The function reaches a value whose contents cannot be fingerprinted (an arbitrary object):
    such a mod is traced again at every call."""


def captured_values(fn: Callable) -> list[tuple[tuple, Any]]:
    """(path, value) for every tensor, scalar, function, partial and container reachable from
    fn's captured state; an object met again is a `_Seen` of its first path.

    Raises _Opaque when it reaches an object it cannot see into.
    """
    out: list[tuple[tuple, Any]] = []
    _walk(fn, (), out, {}, 0)
    return out


@dataclass(frozen=True)
class _Seen:
    path: tuple


def _walk(obj, path: tuple, out: list, seen: dict[int, tuple], depth: int) -> None:
    if isinstance(obj, (Tensor, *_SCALARS)):
        out.append((path, obj))
        return
    if isinstance(obj, (types.ModuleType, types.BuiltinFunctionType, type)) or obj is Ellipsis:
        return  # torch, math, builtins and classes are taken as fixed
    if isinstance(obj, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
        return
    if depth > _MAX_DEPTH:
        raise _Opaque(f"captured values nested deeper than {_MAX_DEPTH}")
    if id(obj) in seen:
        out.append((path, _Seen(seen[id(obj)])))
        return
    seen[id(obj)] = path
    if isinstance(obj, types.FunctionType):
        out.append((path, obj))
        for i, cell in enumerate(obj.__closure__ or ()):
            try:
                value = cell.cell_contents
            except ValueError:  # an empty cell (a name assigned later)
                continue
            _walk(value, path + (("cell", i),), out, seen, depth + 1)
        for name in sorted(_global_names(obj.__code__)):
            if name in obj.__globals__:
                _walk(obj.__globals__[name], path + (("global", name),), out, seen, depth + 1)
        for i, value in enumerate(obj.__defaults__ or ()):
            _walk(value, path + (("default", i),), out, seen, depth + 1)
        for name, value in sorted((obj.__kwdefaults__ or {}).items()):
            _walk(value, path + (("kwdefault", name),), out, seen, depth + 1)
    elif isinstance(obj, functools.partial):
        out.append((path, obj))
        _walk(obj.func, path + (("func",),), out, seen, depth + 1)
        for i, value in enumerate(obj.args):
            _walk(value, path + (("arg", i),), out, seen, depth + 1)
        for name, value in sorted(obj.keywords.items()):
            _walk(value, path + (("keyword", name),), out, seen, depth + 1)
    elif isinstance(obj, (tuple, list)):
        out.append((path, obj))
        for i, value in enumerate(obj):
            _walk(value, path + (("item", i),), out, seen, depth + 1)
    else:
        raise _Opaque(f"captured {type(obj).__name__} object")


def _global_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names


def resolve(fn: Callable, path: tuple) -> Any:
    """The value at `path` (from captured_values) in fn."""
    obj = fn
    for step in path:
        kind, key = step[0], step[1] if len(step) > 1 else None
        if kind == "cell":
            obj = obj.__closure__[key].cell_contents
        elif kind == "global":
            obj = obj.__globals__[key]
        elif kind == "default":
            obj = obj.__defaults__[key]
        elif kind == "kwdefault":
            obj = obj.__kwdefaults__[key]
        elif kind == "func":
            obj = obj.func
        elif kind == "arg":
            obj = obj.args[key]
        elif kind == "keyword":
            obj = obj.keywords[key]
        else:  # "item"
            obj = obj[key]
    return obj


def _summary(value) -> Any:
    """What a trace depends on in a captured value: a tensor's layout (not its contents), a
    function's code, a partial's or container's kind and length, a scalar itself."""
    if isinstance(value, Tensor):
        return ("tensor", value.dtype, tuple(value.shape), value.stride(), value.device.type)
    # NaN, compared with itself: math.isnan does not take dynamo's symbolic floats
    if isinstance(value, float) and value != value:  # noqa: PLR0124
        return ("nan",)
    if isinstance(value, types.FunctionType):
        return value.__code__
    if isinstance(value, functools.partial):
        return (len(value.args), tuple(sorted(value.keywords)))
    if isinstance(value, (tuple, list)):
        return len(value)
    return value


def _fingerprint(values: list[tuple[tuple, Any]]) -> tuple:
    """The trace cache key of a function's captured values: per value, its path, type name and
    summary; for one met again, the path it was first met at."""
    return tuple((path, "seen", value.path) if isinstance(value, _Seen) else
                 (path, type(value).__name__, _summary(value)) for path, value in values)


def captures_unchanged(traced: TracedMod, fn: Callable) -> bool:
    """Whether fn still captures what traced was made from (its cache key), read again path by
    path. Run while torch.compile traces, each comparison becomes one of dynamo's guards: a
    changed number, function or tensor layout recompiles instead of reusing traced's kernel."""
    for path, type_name, summary in traced.key:
        value = resolve(fn, path)
        if type_name == "seen":
            if value is not resolve(fn, summary):
                return False
        elif not (_equal(type(value).__name__, type_name) and _equal(_summary(value), summary)):
            return False
    return True


def _equal(a, b) -> bool:
    """a == b, tuples element by element, never through !=: dynamo up to torch 2.11 fails (an
    internal NotImplementedError) on != with a value read from a constant, and on == between
    tuples, but compares their items with ==."""
    if not isinstance(b, tuple):
        return a == b
    if not isinstance(a, tuple) or len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if not _equal(x, y):
            return False
    return True


# Tracing with a cache -----------------------------------------------------------------------


_cache: OrderedDict[tuple, TracedMod] = OrderedDict()
_lock = threading.Lock()


def trace_mod(fn: Callable, kind: str, device: torch.device) -> tuple[TracedMod, list[Tensor]]:
    """The traced mod for fn and the tensors to pass as its buffers in this call."""
    if not callable(fn):
        raise TypeError(f"{kind} must be a callable, got {type(fn).__name__}")
    device = canonical_device(device)
    try:
        values = captured_values(fn)
        fingerprint = _fingerprint(values)
    except _Opaque:
        values, fingerprint = None, None
    key = None if fingerprint is None else (kind, device.type, fingerprint)
    traced = None if key is None else _cache.get(key)
    if traced is None:
        try:
            traced = _trace_new(fn, kind, device, values, key)
        except TypeError as e:
            # A captured tensor on another device fails in tracing already (index on a CPU table
            # with a CUDA index): say so rather than pass on torch's message.
            elsewhere = [v for _, v in values or [] if isinstance(v, Tensor) and
                         canonical_device(v.device) != device]
            if elsewhere:
                raise _device_error(kind, _name(fn), elsewhere[0].device, device) from e
            raise
    return traced, mod_buffers(traced, fn, device)


def canonical_device(device: torch.device | str) -> torch.device:
    """The device with its index: "cuda" is the current CUDA device (tensors report cuda:N)."""
    device = torch.device(device)
    if device.type == "cuda" and device.index is None:
        return torch.device("cuda", torch.cuda.current_device())
    return device


def _name(fn) -> str:
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__


def _device_error(kind: str, name: str, where: torch.device, device: torch.device) -> ValueError:
    return ValueError(f"{kind} {name!r} captures a tensor on {where} but the query is on "
                      f"{device}; move the captured tensor to {device}")


@torch.compiler.disable  # make_fx runs eagerly, outside any compiled graph
def _trace_new(fn, kind: str, device: torch.device, values, key: tuple | None) -> TracedMod:
    name = _name(fn)
    what = f"{kind} {name!r}"
    examples = _examples(kind, device)
    graph = _trace(fn, examples, what)
    grad_graph = None
    if kind == "score_mod":
        grad_example = torch.ones((), dtype=torch.float32, device=device)
        grad_graph = _trace(_joint(fn), examples + [grad_example], f"the gradient of {what}")

    by_identity = {id(v): path for path, v in (values or []) if isinstance(v, Tensor)}
    buffers: list[Any] = []
    slots: tuple[dict[str, int], dict[str, int]] = ({}, {})
    slot_of: dict[int, int] = {}
    for gm, gm_slots in zip((graph, grad_graph), slots):
        if gm is None:
            continue
        for node in gm.graph.nodes:
            if node.op != "get_attr":
                continue
            tensor = getattr(gm, node.target)
            if id(tensor) not in slot_of:
                if values is None:
                    ref = ("call", tensor)  # opaque function: the tensors of this very call
                elif id(tensor) in by_identity:
                    ref = by_identity[id(tensor)]
                else:
                    ref = ("constant", tensor)
                slot_of[id(tensor)] = len(buffers)
                buffers.append(ref)
            gm_slots[node.target] = slot_of[id(tensor)]
    traced = TracedMod(kind, graph, grad_graph, tuple(buffers), *slots, name,
                       None if key is None else key[2])
    if key is not None:
        with _lock:
            _cache[key] = traced
            while len(_cache) > _CACHE_SIZE:  # oldest first
                _cache.popitem(last=False)
    return traced


def mod_buffers(traced: TracedMod, fn, device: torch.device) -> list[Tensor]:
    """The tensors of this call for traced.buffers: read from fn, or the constants; device with
    its index (canonical_device)."""
    tensors = []
    for ref in traced.buffers:
        if isinstance(ref, tuple) and ref and ref[0] in ("constant", "call"):
            tensor = ref[1]
        else:
            tensor = resolve(fn, ref)
        if canonical_device(tensor.device) != device:
            if ref[0] == "constant":
                tensor = tensor.to(device)
            else:
                raise _device_error(traced.kind, traced.name, tensor.device, device)
        if tensor.requires_grad and torch.is_grad_enabled():
            raise NotImplementedError(
                f"{traced.kind} {traced.name!r} captures a tensor that requires grad; gradients "
                "to captured tensors are not supported: pass tensor.detach()")
        tensors.append(tensor)
    return tensors
