"""Saved-tensor hooks and the ``_saved_*`` attributes of nodes (``torch.autograd.graph``
is :mod:`.graph`, which adds ``Node``; this module imports no node class).

    with saved_tensors_hooks(pack, unpack):     # pack(t) when a node saves t,
        y = f(x)                                # unpack(packed) when backward reads it
    with save_on_cpu():                         # saved tensors kept in host memory
    with disable_saved_tensors_hooks(message):  # registering hooks raises ``message``

A node saves what its derivative rule reads (:mod:`.reads`).  Which of those
PyTorch calls ``_saved_self``, ``_saved_other``, ``_saved_result``... and in what
order it packs them is PyTorch's naming, kept in ``SAVED`` below by node name; a
node missing from the table packs its saved tensors inputs first, output last.
"""
import numpy as np

from ..core import Tensor
from .messages import _SECOND_TIME

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "SAVED",
           "saved_attribute"]

# the active (pack, unpack) pairs, innermost last; the message of disable_saved_tensors_hooks
HOOKS = []
_DISABLED = []

RESULT = "result"
# PyTorch's saved attributes of a node, in the order it packs them: (name, source, kind, by)
# where source is the position of the operand among the call's values or RESULT; kind
# "tensor" (a Python number operand is saved as a 0-dim tensor), "scalar" (kept a number),
# "sizes" / "numel" (the operand's shape as a tuple / its number of elements), "dims" (a
# dimension or several, as a tuple) or "one"
# (the constant alpha=1); by: the operands whose gradient needs it (None: always)
_RES = (("result", RESULT, "tensor", None),)
_SELF = (("self", 0, "tensor", None),)


def _crossed(a, b):
    """A bilinear operation's node: ``a`` is saved for ``b``'s gradient and ``b`` for ``a``'s."""
    return ((b, 1, "tensor", (0,)), (a, 0, "tensor", (1,)))


SAVED = {
    "MulBackward0": _crossed("self", "other"),
    "DivBackward0": (("other", 1, "tensor", None), ("self", 0, "tensor", (1,))),
    "MaximumBackward0": (("other", 1, "tensor", None), ("self", 0, "tensor", None)),
    "MinimumBackward0": (("other", 1, "tensor", None), ("self", 0, "tensor", None)),
    "PowBackward0": (("self", 0, "tensor", None), ("exponent", 1, "scalar", None)),
    "PowBackward1": (("exponent", 1, "tensor", None), ("self", 0, "tensor", None),
                     ("result", RESULT, "tensor", (1,))),
    "PowBackward2": (("exponent", 1, "tensor", None), ("self", 0, "scalar", None),
                     ("result", RESULT, "tensor", None)),
    "MmBackward0": _crossed("self", "mat2"),
    "MvBackward0": tuple(reversed(_crossed("self", "vec"))),
    "DotBackward0": tuple(reversed(_crossed("self", "tensor"))),
    "ClampBackward1": (("self", 0, "tensor", None), ("min", 1, "scalar", None),
                       ("max", 2, "scalar", None)),
    "SumBackward0": (("self_sym_sizes", 0, "sizes", None),),
    "SumBackward1": (("dim", 1, "dims", None), ("keepdim", 2, "scalar", None),
                     ("self_sym_sizes", 0, "sizes", None)),
    "MeanBackward0": (("self_sym_numel", 0, "numel", None), ("self_sym_sizes", 0, "sizes", None)),
    "MeanBackward1": (("dim", 1, "dims", None), ("keepdim", 2, "scalar", None),
                      ("self_sym_numel", 0, "numel", None), ("self_sym_sizes", 0, "sizes", None)),
    "ViewBackward0": (("self_sym_sizes", 0, "sizes", None),),
    "AddBackward0": (("alpha", None, "one", None),),
    "SubBackward0": (("alpha", None, "one", None),),
}
for _name in ("Exp", "Tanh", "Sigmoid", "Sqrt", "Relu", "Reciprocal", "Rsqrt", "Expm1"):
    SAVED[f"{_name}Backward0"] = _RES
for _name in ("Sin", "Cos", "Tan", "Log", "Log2", "Log10", "Log1P", "Abs", "Asin", "Acos",
              "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Erf"):
    SAVED[f"{_name}Backward0"] = _SELF
del _name


class saved_tensors_hooks:
    """Call ``pack_hook(tensor)`` for every tensor a node saves, and keep what it returns;
    backward calls ``unpack_hook(packed)`` and uses the tensor it returns."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        if _DISABLED and _DISABLED[-1] is not None:
            raise RuntimeError(_DISABLED[-1])
        HOOKS.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc):
        HOOKS.pop()
        return False


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are moved to the CPU when saved and back to their device when read."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack(t):
            return t.device, t.detach().cpu()

        def unpack(packed):
            device, t = packed
            return t.to(device)

        super().__init__(pack, unpack)


class disable_saved_tensors_hooks:
    """Inside, registering saved-tensor hooks raises ``RuntimeError(error_message)``."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        _DISABLED.append(self.error_message)
        return self

    def __exit__(self, *exc):
        _DISABLED.pop()
        return False


# -- what a node saves ------------------------------------------------------------------------

def _value(node, i):
    n = len(node._args)
    if i < n:
        return node._args[i]
    keys = list(node._kwargs)
    return node._kwargs[keys[i - n]] if i - n < len(keys) else None


def _needs_at(node, pos):
    return any(need for need, p in zip(node._needs, node._diff or ()) if p == pos)


def _is_saved(node, by):
    return by is None or any(_needs_at(node, p) for p in by)


def _input_tensor(node, pos):
    """The tensor that was the operand at ``pos``: the saved one, the leaf of its edge,
    or a tensor of its value whose grad_fn is the edge's node."""
    k = 0
    entries = [e[0] for e in node._saved if isinstance(e[0], Tensor)]
    for i in node._slots or ():
        v = _value(node, i)
        if i == pos and hasattr(v, "shape") and k < len(entries):
            return entries[k]
        k += sum(1 for e in v if hasattr(e, "shape")) if isinstance(v, (list, tuple)) \
            else 1 if hasattr(v, "shape") else 0
    v = _value(node, pos)
    if not hasattr(v, "shape"):
        return None
    if node._layout is None and node._diff and pos in node._diff:
        edge = node._edges[node._diff.index(pos)][0]
        if edge is not None:
            leaf = getattr(edge, "variable", None)    # an AccumulateGrad node's leaf
            return leaf if leaf is not None else Tensor._make(v, True, edge)
    return Tensor._make(v)


def _schema(node):
    """``SAVED``'s entries for ``node``: by its PyTorch name, unless its class took that
    name for display only (``display_only``: einsum's node, named as PyTorch's last node)."""
    return None if getattr(node, "display_only", False) else SAVED.get(node.name())


def _tensor_entries(node):
    """(source, original tensor) of what ``node`` saves, in PyTorch's packing order."""
    order = _schema(node)
    out = []
    if order is None:                       # not in the table: what the rule reads
        for k, (t, _, _) in enumerate(node._saved):
            out.append((("saved", k), t) if isinstance(t, Tensor) else (RESULT, None))
        return out
    for _, src, kind, by in order:
        if kind != "tensor" or not _is_saved(node, by):
            continue
        if src == RESULT:
            out.append((RESULT, None))
        else:
            t = _input_tensor(node, src)
            if t is not None:
                out.append((src, t))
    return out


def pack_saved(node, out):
    """Run the innermost pack hook on each tensor ``node`` saves (called as it is recorded)."""
    pack, unpack = HOOKS[-1]
    packed = []
    for src, t in _tensor_entries(node):
        t = out if src == RESULT else t
        packed.append((src, pack(t)))
    node._packed = (unpack, tuple(packed))


class SavedTensor:
    """``node._raw_saved_<name>``: one saved tensor, whose hooks can be set by
    ``register_hooks(pack_hook, unpack_hook)`` (pack runs at once, unpack in backward)."""

    def __init__(self, node, src):
        self._node, self._src = node, src

    def __repr__(self):
        return f"<torch._C._autograd.SavedTensor object at {hex(id(self))}>"

    def register_hooks(self, pack_hook, unpack_hook):
        node, src = self._node, self._src
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("expected two callables")
        if node._freed and node._has_saved:
            raise RuntimeError(_SECOND_TIME)
        packed = node._packed[1] if node._packed is not None else ()
        if any(s == src for s, _ in packed):
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have "
                               "already been set. Hint: only one pair of hooks is allowed at "
                               "a time.")
        data = node._ans if src == RESULT else _input_tensor(node, src)._data
        entry = (src, _OwnHooks(pack_hook(Tensor._make(data)), unpack_hook))   # (no graph)
        node._packed = (node._packed[0] if node._packed is not None else None,
                        packed + (entry,))


class _OwnHooks:
    """A value packed by a SavedTensor's own hooks, with the unpack hook to read it."""

    def __init__(self, value, unpack):
        self.value, self.unpack = value, unpack


def raw_saved(node, name):
    """``node._raw_saved_<name>``: a :class:`SavedTensor` (None when not saved)."""
    entry = next((e for e in _schema(node) or () if e[0] == name), None)
    if entry is None or entry[2] != "tensor":
        raise AttributeError(f"'{node.name()}' object has no attribute '_raw_saved_{name}'")
    if not _is_saved(node, entry[3]):
        return None
    if entry[1] != RESULT and _input_tensor(node, entry[1]) is None:
        return None
    return SavedTensor(node, entry[1])


def unpacked(node, src):
    """The tensor backward reads for ``src``: ``unpack_hook`` of what was packed."""
    unpack, packed = node._packed
    for s, p in packed:
        if s == src:
            t = p.unpack(p.value) if isinstance(p, _OwnHooks) else unpack(p)
            if not isinstance(t, Tensor):
                raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor "
                                f"but got result of type {type(t).__name__}")
            return t
    return None


def unpacked_values(node):
    """``(args, kwargs, ans)`` of ``node`` with each packed value replaced by its unpacked
    array (the values its rule runs on)."""
    args, kwargs, ans = list(node._args), dict(node._kwargs), node._ans
    keys = list(kwargs)
    for src, _ in node._packed[1]:
        data = unpacked(node, src)._data
        if src == RESULT:
            ans = data
        elif isinstance(src, tuple):        # a saved operand, found by its array
            original = node._saved[src[1]][0]._data
            args = [data if a is original else a for a in args]
            kwargs = {k: data if v is original else v for k, v in kwargs.items()}
        elif src < len(args):
            args[src] = data
        else:
            kwargs[keys[src - len(args)]] = data
    return tuple(args), kwargs, ans


def saved_names(node):
    """The ``_saved_*`` attribute names of ``node`` (for ``dir()``)."""
    entries = _schema(node) or ()
    return [f"_saved_{e[0]}" for e in entries] + \
        [f"_raw_saved_{e[0]}" for e in entries if e[2] == "tensor"]


def saved_attribute(node, name):
    """``node._saved_<name>`` as PyTorch gives it (None when that operand was not saved)."""
    order = _schema(node)
    entry = next((e for e in order or () if e[0] == name), None)
    if entry is None:
        raise AttributeError(f"'{node.name()}' object has no attribute '_saved_{name}'")
    _, src, kind, by = entry
    if kind == "one":
        return 1
    if kind in ("sizes", "numel"):              # kept after backward, as PyTorch
        shape = tuple(_value(node, src).shape) if _value(node, src) is not None else \
            tuple(node._edges[0][1].shape)
        return shape if kind == "sizes" else int(np.prod(shape))
    if kind == "dims":
        v = _value(node, src)
        return tuple(v) if isinstance(v, (tuple, list)) else (v,)
    if kind == "scalar":
        v = _value(node, src)
        return v.item() if hasattr(v, "item") and getattr(v, "ndim", 1) == 0 else v
    if node._freed and node._has_saved:
        raise RuntimeError(_SECOND_TIME)
    if not _is_saved(node, by):
        return None
    packed = node._packed is not None and any(s == src for s, _ in node._packed[1])
    if src == RESULT:
        data = unpacked(node, RESULT)._data if packed else node._ans
        return Tensor._make(data, True, node)
    t = _input_tensor(node, src)
    if t is None:
        v = _value(node, src)
        if v is None:
            return None
        from ..factories import tensor
        return tensor(v)               # a Python number operand, saved as a 0-dim tensor
    if not packed:
        return t
    return Tensor._make(unpacked(node, src)._data, t._requires_grad, t._grad_fn)
