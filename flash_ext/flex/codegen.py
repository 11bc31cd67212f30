"""Triton source for a traced mod: one `@triton.jit` function per aten graph.

Every value of a mod is one element per (b, h, q_idx, kv_idx); in the kernel it becomes a tile
that broadcasts like the indices do (q_idx a column, kv_idx a row, b and h scalars). Each aten
node turns into one line; operands are cast to the dtype torch would compute in, so integer and
float promotion follow torch, not Triton. Nodes whose inputs are all constants are folded here by
running the aten op itself. A captured tensor is a `Table` (a strided view of a kernel buffer)
until indexing brings it down to one element, which becomes a load.

SUPPORTED_OPS lists what a mod may use; anything else raises an error naming the op.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import Tensor

from flash_ext.flex.trace import MASK_MOD_ARGS, SCORE_MOD_ARGS, TracedMod

#: Number of captured tensors (all mods of one call together) the kernels take.
BUFFER_SLOTS = 6
BUFFER_PARAMS = tuple(f"BUF{i}" for i in range(BUFFER_SLOTS))

TL_DTYPES = {
    torch.float16: "tl.float16", torch.bfloat16: "tl.bfloat16", torch.float32: "tl.float32",
    torch.float64: "tl.float64", torch.int8: "tl.int8", torch.int16: "tl.int16",
    torch.int32: "tl.int32", torch.int64: "tl.int64", torch.uint8: "tl.uint8",
    torch.bool: "tl.int1",
}


@dataclass(frozen=True)
class Lit:
    """A constant; dtype None for a Python number whose dtype the op decides."""

    value: bool | int | float
    dtype: torch.dtype | None


@dataclass(frozen=True)
class Var:
    """A Triton variable holding a tile (or scalar) of `dtype`; tiled is True when it depends on
    score (or grad), i.e. has the full (q, kv) tile shape."""

    name: str
    dtype: torch.dtype
    tiled: bool = False


@dataclass(frozen=True)
class Table:
    """A strided view of a captured tensor, at element offset `offset` of buffer `buf`."""

    buf: str
    offset: str
    sizes: tuple[int, ...]
    strides: tuple[int, ...]
    dtype: torch.dtype
    wide: bool  # the tensor spans 2**31 elements or more: index math in int64


Value = Lit | Var | Table


class UnsupportedOp(NotImplementedError):
    pass


def _literal(value, dtype: torch.dtype) -> str:
    if dtype == torch.bool:
        return "True" if value else "False"
    if dtype.is_floating_point:
        value = float(value)
        if math.isnan(value):
            return 'float("nan")'
        if math.isinf(value):
            return 'float("inf")' if value > 0 else 'float("-inf")'
        return repr(value)
    return str(int(value))


def _example(x: Value):
    """A stand-in for x in torch's type promotion."""
    if isinstance(x, Lit) and x.dtype is None:
        return x.value
    return torch.zeros((), dtype=x.dtype)


def _promote(a: Value, b: Value) -> torch.dtype:
    """The dtype torch computes a binary op of a and b in (both constants are folded before)."""
    return torch.result_type(_example(a), _example(b))


class _Emitter:
    def __init__(self, what: str, gm: torch.fx.GraphModule, slots: dict[str, int],
                 slot_names: list[str], buffers: list[Tensor]):
        self.what, self.gm, self.slots = what, gm, slots
        self.slot_names, self.buffers = slot_names, buffers
        self.lines: list[str] = []
        self.count = 0

    def var(self, expr: str, dtype: torch.dtype, tiled: bool) -> Var:
        name = f"t{self.count}"
        self.count += 1
        self.lines.append(f"{name} = {expr}")
        return Var(name, dtype, tiled)

    def load(self, x: Value) -> Lit | Var:
        if not isinstance(x, Table):
            return x
        if x.sizes:
            raise UnsupportedOp(
                f"{self.what}: a captured tensor is used with shape {list(x.sizes)}; index it "
                "down to one element per (b, h, q_idx, kv_idx) before computing with it")
        if x.dtype == torch.bool:  # passed as uint8
            return self.var(f"tl.load({x.buf} + {x.offset}) != 0", torch.bool, False)
        return self.var(f"tl.load({x.buf} + {x.offset})", x.dtype, False)

    def text(self, x: Value, dtype: torch.dtype) -> str:
        """x as an expression of `dtype`."""
        x = self.load(x)
        if isinstance(x, Lit):
            return _literal(x.value, dtype)
        if x.dtype == dtype:
            return x.name
        if dtype == torch.bool:
            return f"({x.name} != 0)"
        return f"{x.name}.to({TL_DTYPES[dtype]})"


def _tiled(*xs) -> bool:
    return any(isinstance(x, Var) and x.tiled for x in xs)


# Op table: name -> handler(em, node, args, out_dtype) -> Value --------------------------------

_HANDLERS: dict[str, Callable] = {}


def _op(*names: str):
    def register(fn):
        for name in names:
            _HANDLERS[name] = fn
        return fn

    return register


def _elementwise(em: _Emitter, template: str, operands, compute: torch.dtype,
                 out: torch.dtype) -> Var:
    texts = [em.text(x, compute) for x in operands]
    expr = template.format(*texts)
    return em.var(f"({expr}).to({TL_DTYPES[out]})", out, _tiled(*operands))


_UNARY_FLOAT = {
    "exp": "tl.exp({0})", "exp2": "tl.exp2({0})", "log": "tl.log({0})", "log2": "tl.log2({0})",
    "sqrt": "tl.sqrt({0})", "rsqrt": "tl.rsqrt({0})", "sin": "tl.sin({0})", "cos": "tl.cos({0})",
    "sigmoid": "tl.sigmoid({0})", "tanh": "_tanh({0})", "erf": "tl.erf({0})",
    "reciprocal": "1.0 / {0}", "floor": "tl.floor({0})", "ceil": "tl.ceil({0})",
    "trunc": "_trunc({0})",
}


@_op(*_UNARY_FLOAT)
def _unary_float(em, node, args, out):
    name = node.target.overloadpacket.__name__.rstrip("_")
    if not out.is_floating_point:  # floor/ceil/trunc of integers are the identity
        return args[0]
    return _elementwise(em, _UNARY_FLOAT[name], args[:1], out, out)


@_op("neg")
def _neg(em, node, args, out):
    return _elementwise(em, "-{0}", args[:1], out, out)


@_op("abs")
def _abs(em, node, args, out):
    return _elementwise(em, "tl.abs({0})", args[:1], out, out)


@_op("sign", "sgn")
def _sign(em, node, args, out):
    return _elementwise(em, "({0} > 0).to({1}) - ({0} < 0).to({1})".replace(
        "{1}", TL_DTYPES[out]), args[:1], out, out)


@_op("relu")
def _relu(em, node, args, out):
    return _elementwise(em, "tl.where({0} > 0, {0}, 0)", args[:1], out, out)


@_op("add", "sub", "rsub")
def _add_sub(em, node, args, out):
    a, b = args[0], args[1]
    alpha = node.kwargs.get("alpha", 1)
    name = node.target.overloadpacket.__name__.rstrip("_")
    if name == "rsub":
        a, b = b, a
    if alpha != 1:
        b = em.var(f"{em.text(b, out)} * {_literal(alpha, out)}", out, _tiled(b))
    op = "+" if name == "add" else "-"
    return _elementwise(em, "{0} " + op + " {1}", [a, b], out, out)


@_op("mul")
def _mul(em, node, args, out):
    return _elementwise(em, "{0} * {1}", args[:2], out, out)


@_op("div")
def _div(em, node, args, out):
    mode = node.kwargs.get("rounding_mode")
    if mode is None:
        return _elementwise(em, "{0} / {1}", args[:2], out, out)
    if out.is_floating_point:
        fn = "tl.floor" if mode == "floor" else "_trunc"
        return _elementwise(em, fn + "({0} / {1})", args[:2], out, out)
    fn = "_floordiv" if mode == "floor" else "_truncdiv"
    return _elementwise(em, fn + "({0}, {1})", args[:2], out, out)


@_op("floor_divide")
def _floor_divide(em, node, args, out):
    if out.is_floating_point:
        return _elementwise(em, "tl.floor({0} / {1})", args[:2], out, out)
    return _elementwise(em, "_floordiv({0}, {1})", args[:2], out, out)


@_op("remainder")
def _remainder(em, node, args, out):
    if out.is_floating_point:
        return _elementwise(em, "{0} - {1} * tl.floor({0} / {1})", args[:2], out, out)
    return _elementwise(em, "_remainder({0}, {1})", args[:2], out, out)


@_op("fmod")
def _fmod(em, node, args, out):
    if out.is_floating_point:
        return _elementwise(em, "{0} - {1} * _trunc({0} / {1})", args[:2], out, out)
    return _elementwise(em, "{0} - {1} * _truncdiv({0}, {1})", args[:2], out, out)


@_op("maximum", "minimum")
def _max_min(em, node, args, out):
    fn = "tl.maximum" if node.target.overloadpacket.__name__ == "maximum" else "tl.minimum"
    return _elementwise(em, fn + "({0}, {1})", args[:2], out, out)


@_op("clamp", "clamp_min", "clamp_max")
def _clamp(em, node, args, out):
    name = node.target.overloadpacket.__name__.rstrip("_")
    x = args[0]
    lo = node.kwargs.get("min", args[1] if len(args) > 1 else None)
    hi = node.kwargs.get("max", args[2] if len(args) > 2 else None)
    if name == "clamp_max":
        lo, hi = None, args[1]
    elif name == "clamp_min":
        lo, hi = args[1], None
    if lo is not None:
        x = _elementwise(em, "tl.maximum({0}, {1})", [x, _value(lo)], out, out)
    if hi is not None:
        x = _elementwise(em, "tl.minimum({0}, {1})", [x, _value(hi)], out, out)
    return x


@_op("pow")
def _pow(em, node, args, out):
    base, exponent = args[0], args[1]
    if isinstance(exponent, Lit) and float(exponent.value).is_integer() and \
            abs(exponent.value) <= 16:
        n = int(exponent.value)
        if n == 0:
            return Lit(1, out)
        x = em.var(em.text(base, out), out, _tiled(base))
        result, square, k = None, x, abs(n)
        while k:  # square-and-multiply, unrolled
            if k & 1:
                result = square if result is None else em.var(
                    f"{result.name} * {square.name}", out, result.tiled)
            k >>= 1
            if k:
                square = em.var(f"{square.name} * {square.name}", out, square.tiled)
        return result if n > 0 else em.var(f"1.0 / {result.name}", out, result.tiled)
    if isinstance(exponent, Lit) and exponent.value == 0.5:
        return _elementwise(em, "tl.sqrt({0})", [base], out, out)
    if isinstance(base, Lit):
        log2_base = math.log2(base.value) if base.value > 0 else (
            float("-inf") if base.value == 0 else float("nan"))
        return _elementwise(em, "tl.exp2({0} * " + _literal(log2_base, out) + ")", [exponent],
                            out, out)
    # base ** e = exp2(e * log2(base)): NaN for a negative base, as torch for non-integer e.
    return _elementwise(em, "tl.exp2({1} * tl.log2({0}))", [base, exponent], out, out)


_COMPARE = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


@_op(*_COMPARE)
def _compare(em, node, args, out):
    op = _COMPARE[node.target.overloadpacket.__name__.rstrip("_")]
    compute = _promote(args[0], args[1])
    return _elementwise(em, "{0} " + op + " {1}", args[:2], compute, torch.bool)


_LOGICAL = {"logical_and": "&", "logical_or": "|", "logical_xor": "^",
            "bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^"}


@_op(*_LOGICAL)
def _logical(em, node, args, out):
    op = _LOGICAL[node.target.overloadpacket.__name__.rstrip("_")]
    compute = torch.bool if out == torch.bool else out
    return _elementwise(em, "{0} " + op + " {1}", args[:2], compute, out)


@_op("logical_not", "bitwise_not")
def _not(em, node, args, out):
    if out == torch.bool:
        return _elementwise(em, "{0} == 0", args[:1], torch.bool, out)
    return _elementwise(em, "~{0}", args[:1], out, out)


@_op("isnan")
def _isnan(em, node, args, out):
    x = em.load(args[0])
    return _elementwise(em, "{0} != {0}", [x], x.dtype, out)


@_op("isinf")
def _isinf(em, node, args, out):
    x = em.load(args[0])
    return _elementwise(em, 'tl.abs({0}) == float("inf")', [x], x.dtype, out)


@_op("where")
def _where(em, node, args, out):
    cond, a, b = args[0], args[1], args[2]
    return em.var(f"tl.where({em.text(cond, torch.bool)}, {em.text(a, out)}, {em.text(b, out)})"
                  f".to({TL_DTYPES[out]})", out, _tiled(cond, a, b))


@_op("masked_fill")
def _masked_fill(em, node, args, out):
    x, mask, value = args[0], args[1], args[2]
    return em.var(f"tl.where({em.text(mask, torch.bool)}, {em.text(value, out)}, "
                  f"{em.text(x, out)}).to({TL_DTYPES[out]})", out, _tiled(x, mask, value))


@_op("tanh_backward")
def _tanh_backward(em, node, args, out):
    return _elementwise(em, "{0} * (1.0 - {1} * {1})", args[:2], out, out)


@_op("sigmoid_backward")
def _sigmoid_backward(em, node, args, out):
    return _elementwise(em, "{0} * (1.0 - {1}) * {1}", args[:2], out, out)


@_op("threshold_backward")
def _threshold_backward(em, node, args, out):
    grad, x, threshold = args[0], args[1], args[2]
    x = em.load(x)
    return em.var(f"tl.where({em.text(x, x.dtype)} <= {_literal(threshold.value, x.dtype)}, "
                  f"0.0, {em.text(grad, out)}).to({TL_DTYPES[out]})", out, _tiled(grad, x))


@_op("_to_copy", "to", "convert_element_type", "type_as", "_conj")
def _convert(em, node, args, out):
    x = em.load(args[0])
    if isinstance(x, Lit):
        return Lit(x.value, out)
    if x.dtype == out:
        return x
    return em.var(em.text(x, out), out, x.tiled)


@_op("scalar_tensor", "full", "zeros", "ones", "zeros_like", "ones_like", "full_like",
     "new_zeros", "new_ones", "new_full")
def _constant(em, node, args, out):
    """A constant of a variable's shape (constants of constants are folded before)."""
    name = node.target.overloadpacket.__name__
    if name in ("zeros", "zeros_like", "new_zeros"):
        return Lit(0, out)
    if name in ("ones", "ones_like", "new_ones"):
        return Lit(1, out)
    if name == "scalar_tensor":
        return Lit(_plain(args[0]), out)
    return Lit(_plain(args[-1] if name == "new_full" else args[1]), out)


# Views: identity on one-element values, strided arithmetic on tables.

_VIEWS = ("alias", "detach", "clone", "lift_fresh_copy", "view", "reshape", "_unsafe_view",
          "expand", "unsqueeze", "squeeze", "permute", "t", "transpose", "select", "slice",
          "sum", "contiguous")


@_op(*_VIEWS)
def _view(em, node, args, out):
    x = args[0]
    name = node.target.overloadpacket.__name__.rstrip("_")
    if not isinstance(x, Table):
        if name == "sum" and out != getattr(x, "dtype", out):
            return _convert(em, node, args, out)
        return x
    sizes, strides, offset = list(x.sizes), list(x.strides), x.offset
    val = node.meta["val"]
    if name in ("alias", "detach", "clone", "lift_fresh_copy", "contiguous"):
        return x
    if name == "select":
        dim, index = _dim(args[1], len(sizes)), args[2]
        index = index.value if isinstance(index, Lit) else index
        offset = f"{offset} + {_index_text(em, index, x.wide, sizes[dim])} * {strides[dim]}"
        del sizes[dim], strides[dim]
    elif name == "slice":
        dim = _dim(args[1] if len(args) > 1 else 0, len(sizes))
        start = _plain(args[2]) if len(args) > 2 and args[2] is not None else 0
        step = _plain(args[4]) if len(args) > 4 else 1
        start = start + sizes[dim] if start < 0 else min(start, sizes[dim])
        offset = f"{offset} + {start * strides[dim]}"
        sizes[dim], strides[dim] = val.shape[dim], strides[dim] * step
    elif name == "unsqueeze":
        dim = _dim(args[1], len(sizes) + 1)
        sizes.insert(dim, 1)
        strides.insert(dim, 0)
    elif name in ("squeeze", "view", "reshape", "_unsafe_view", "expand"):
        # Only changes that add or drop size-1 dims, or broadcast them, keep a strided view.
        kept = [(s, st) for s, st in zip(sizes, strides) if s != 1]
        new_sizes = list(val.shape)
        if [s for s in new_sizes if s != 1] != [s for s, _ in kept]:
            if name != "expand":
                raise UnsupportedOp(f"{em.what}: {name} of a captured tensor from {sizes} to "
                                    f"{new_sizes}; index the tensor instead")
            if len(new_sizes) < len(sizes):
                raise UnsupportedOp(f"{em.what}: expand of a captured tensor to {new_sizes}")
            lead = len(new_sizes) - len(sizes)
            sizes, strides = new_sizes, [0] * lead + [
                0 if s == 1 and n != 1 else st
                for s, st, n in zip(sizes, strides, new_sizes[lead:])]
        else:
            it = iter(kept)
            strides = [0 if s == 1 else next(it)[1] for s in new_sizes]
            sizes = new_sizes
    elif name in ("permute", "t", "transpose"):
        if name == "t":
            order = list(range(len(sizes)))[::-1]
        elif name == "transpose":
            d0, d1 = _dim(args[1], len(sizes)), _dim(args[2], len(sizes))
            order = list(range(len(sizes)))
            order[d0], order[d1] = order[d1], order[d0]
        else:
            order = [_dim(d, len(sizes)) for d in _plain(args[1])]
        sizes, strides = [sizes[i] for i in order], [strides[i] for i in order]
    else:  # sum of a table
        raise UnsupportedOp(f"{em.what}: {name} over a captured tensor")
    return Table(x.buf, offset, tuple(sizes), tuple(strides), x.dtype, x.wide)


def _dim(d, ndim: int) -> int:
    d = d.value if isinstance(d, Lit) else d
    return d + ndim if d < 0 else d


def _plain(x):
    if isinstance(x, Lit):
        return x.value
    if isinstance(x, (list, tuple)):
        return [_plain(e) for e in x]
    return x


def _index_text(em: _Emitter, index, wide: bool, size: int | None = None) -> str:
    """An index as an expression; constant negative indices count from the end, as in torch."""
    index = _plain(index) if isinstance(index, Lit) else index
    if isinstance(index, Table):
        index = em.load(index)
    if isinstance(index, (int, float, bool)):
        index = int(index)
        return str(index + size if index < 0 and size is not None else index)
    if index.dtype.is_floating_point or index.dtype == torch.bool:
        raise UnsupportedOp(f"{em.what}: indexing a captured tensor with a {index.dtype} value")
    return f"{index.name}.to(tl.int64)" if wide and index.dtype != torch.int64 else index.name


@_op("index")
def _index(em, node, args, out):
    table, indices = args[0], args[1]
    if not isinstance(table, Table):
        raise UnsupportedOp(f"{em.what}: indexing a computed value; only captured tensors can "
                            "be indexed")
    sizes, strides, offset = list(table.sizes), list(table.strides), table.offset
    keep_sizes, keep_strides = [], []
    for dim, (size, stride) in enumerate(zip(sizes, strides)):
        index = indices[dim] if dim < len(indices) else None
        if index is None:
            keep_sizes.append(size)
            keep_strides.append(stride)
            continue
        if stride:
            offset = f"{offset} + {_index_text(em, index, table.wide, size)} * {stride}"
    result = Table(table.buf, offset, tuple(keep_sizes), tuple(keep_strides), table.dtype,
                   table.wide)
    return result if keep_sizes else em.load(result)


SUPPORTED_OPS = tuple(sorted(_HANDLERS))


# Graph -> function -------------------------------------------------------------------------


def _value(x):
    return x if isinstance(x, (Lit, Var, Table)) else Lit(x, None)


def _fold(node, args) -> Lit | None:
    """Evaluates a node whose inputs are all constants; None if any input is not."""
    flat = [a for a in args if isinstance(a, (Lit, Var, Table))]
    if any(not isinstance(a, Lit) for a in flat):
        return None

    def real(a):
        if isinstance(a, Lit):
            return torch.tensor(a.value, dtype=a.dtype) if a.dtype else a.value
        return a

    kwargs = {k: (real(v) if isinstance(v, Lit) else v) for k, v in node.kwargs.items()
              if k not in ("device", "layout", "pin_memory")}
    result = node.target(*[real(a) for a in args], **kwargs)
    if not isinstance(result, Tensor) or result.numel() != 1:
        return None
    return Lit(result.item(), result.dtype)


def _run(em: _Emitter, placeholders: dict[str, Var]) -> Value:
    env: dict = {}
    names = iter(placeholders.values())
    for node in em.gm.graph.nodes:
        if node.op == "placeholder":
            env[node] = next(names)
        elif node.op == "get_attr":
            tensor = em.buffers[em.slots[node.target]]
            slot = em.slot_names[em.slots[node.target]]
            wide = tensor.numel() >= 2**31 or any(
                (s - 1) * st >= 2**31 for s, st in zip(tensor.shape, tensor.stride()))
            env[node] = Table(slot, "0", tuple(tensor.shape), tuple(tensor.stride()),
                              tensor.dtype, wide)
        elif node.op == "call_function":
            env[node] = _call(em, node, env)
        elif node.op == "output":
            result = node.args[0]
            result = result[0] if isinstance(result, (tuple, list)) else result
            return env[result] if isinstance(result, torch.fx.Node) else Lit(result, None)
    raise AssertionError("graph without output")


def _call(em: _Emitter, node, env) -> Value:
    if not isinstance(node.target, torch._ops.OpOverload):
        raise UnsupportedOp(f"{em.what}: {node.target} is not supported")
    name = node.target.overloadpacket.__name__
    base = name.rstrip("_") if name.endswith("_") and not name.startswith("_") else name
    handler = _HANDLERS.get(base)
    if handler is None:
        raise UnsupportedOp(
            f"{em.what} uses torch operation aten.{name}, which flash_ext's flex backend does "
            f"not support. Supported aten operations: {', '.join(SUPPORTED_OPS)}")

    def get(a):
        if isinstance(a, torch.fx.Node):
            return env[a]
        if isinstance(a, (list, tuple)):
            return [get(e) for e in a]
        return a

    args = [get(a) for a in node.args]
    val = node.meta.get("val")
    out = val.dtype if isinstance(val, Tensor) else None
    if isinstance(val, Tensor) and val.numel() != 1 and not any(
            isinstance(a, Table) for a in args):
        raise UnsupportedOp(f"{em.what}: aten.{name} gives shape {list(val.shape)}; a mod "
                            "computes one value per (b, h, q_idx, kv_idx)")
    result = None
    if not any(isinstance(a, (Table, list)) for a in args):
        result = _fold(node, args)
    if result is None:
        args = [_value(a) if isinstance(a, (int, float, bool)) else a for a in args]
        result = handler(em, node, args, out)
    if base != name and isinstance(node.args[0], torch.fx.Node):  # in-place: rebinds its input
        env[node.args[0]] = result
    return result


def mod_function(traced: TracedMod | None, kind: str, func_name: str, slot_names: list[str],
                 buffers: list[Tensor]) -> str:
    """Source of `@triton.jit def func_name(...)` for one graph of a traced mod.

    kind: "score_mod", "score_mod_grad" or "mask_mod". traced None is the default mod (score
    unchanged, every key visible, gradient passed through). slot_names[i] is the kernel buffer
    parameter holding traced.buffers[i]; buffers are the tensors of this call (their layout is
    baked into the code).
    """
    params = {"score_mod": SCORE_MOD_ARGS, "score_mod_grad": SCORE_MOD_ARGS + ("grad",),
              "mask_mod": MASK_MOD_ARGS}[kind]
    header = [
        "@triton.jit",
        f"def {func_name}({', '.join(params + BUFFER_PARAMS)}):",
    ]
    if traced is None:
        body = {"score_mod": "return score", "score_mod_grad": "return grad",
                "mask_mod": "return (q_idx * 0 + kv_idx * 0) == 0"}[kind]
        return "\n".join(header + ["    " + body]) + "\n"
    gm = traced.grad_graph if kind == "score_mod_grad" else traced.graph
    slots = traced.grad_slots if kind == "score_mod_grad" else traced.graph_slots
    what = f"{traced.kind} {traced.name!r}" + (" (its gradient)" if kind.endswith("grad") else "")
    em = _Emitter(what, gm, slots, slot_names, buffers)
    placeholders = {}
    for p in params:
        dtype = torch.float32 if p in ("score", "grad") else torch.int32
        placeholders[p] = Var(p, dtype, p in ("score", "grad"))
    result = em.load(_run(em, placeholders))
    if kind == "mask_mod":
        if isinstance(result, Lit):
            ret = "(q_idx * 0 + kv_idx * 0) == 0" if result.value else \
                "(q_idx * 0 + kv_idx * 0) != 0"
        else:
            ret = em.text(result, torch.bool)
    else:
        like = "grad" if kind == "score_mod_grad" else "score"
        if isinstance(result, Lit):
            ret = f"tl.zeros_like({like}) + {_literal(result.value, torch.float32)}"
        else:
            ret = em.text(result, torch.float32)
            if not result.tiled:
                ret = f"{ret} + tl.zeros_like({like})"
    lines = header + ["    " + line for line in em.lines] + [f"    return {ret}"]
    return "\n".join(lines) + "\n"
