"""User-defined functions: ``torch.autograd.Function`` and its ``ctx``.

``forward(ctx, *args)`` runs without recording; every output's ``grad_fn`` is one
``<Name>Backward`` node, which calls ``backward(ctx, *grad_outputs)`` with one
gradient per output (zeros for outputs no gradient reached, unless
``ctx.set_materialize_grads(False)``).  A node with several outputs receives
them through one *port* per output (``_OutputPort``), so the engine, which
knows single-output nodes only, needs nothing special.
"""
import functools

import numpy as np

from .. import grad_mode
from ..core import Tensor
from . import forward_ad as _forward
from .nodes import _SECOND_TIME, InputMeta, Node, _modified_message, _once_only, _wrap

__all__ = ["Function", "FunctionCtx", "once_differentiable", "InplaceFunction",
           "NestedIOFunction"]


_ONCE = "trying to differentiate twice a function that was marked with @once_differentiable"


class FunctionCtx:
    """The ``ctx`` of a custom ``Function``: ``save_for_backward`` and free attributes."""

    def __init__(self):
        self._to_save = ()
        self._versions = ()
        self.needs_input_grad = ()
        self._node = None
        self._non_differentiable = ()
        self._dirty = ()
        self.materialize_grads = True

    def save_for_backward(self, *tensors):
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{tensors.index(t)} is of type {type(t).__name__}")
        self._to_save = tensors
        self._versions = tuple(t._vc.value if t is not None else None for t in tensors)
        from .saved import HOOKS
        if HOOKS:                  # saved_tensors_hooks: pack now, unpack when read
            pack, unpack = HOOKS[-1]
            self._packed = (unpack, tuple(None if t is None else pack(t) for t in tensors))

    save_for_forward = save_for_backward

    @property
    def saved_tensors(self):
        node = self._node
        if node is not None and node._freed:
            raise RuntimeError(_SECOND_TIME)
        for t, v in zip(self._to_save, self._versions):
            if t is not None and t._vc.value != v:
                raise RuntimeError(_modified_message(t, t._vc.value, v))
        packed = self.__dict__.get("_packed")
        if packed is not None:
            unpack, items = packed
            return tuple(None if p is None else unpack(p) for p in items)
        return self._to_save

    saved_variables = saved_tensors

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable = tensors

    def mark_dirty(self, *tensors):
        self._dirty = tensors

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)


class _Partial:
    """Gradients of some outputs of a several-output node, by output index; the engine
    adds two of them with ``+`` like any gradient."""

    __slots__ = ("grads",)

    def __init__(self, grads):
        self.grads = grads

    def __add__(self, other):
        out = dict(self.grads)
        for k, g in other.grads.items():
            out[k] = g if k not in out else out[k] + g
        return _Partial(out)


class _OutputPort(Node):
    """Where the gradient of output ``index`` of a several-output node enters the graph."""

    __slots__ = ("_main", "_index")

    def __init__(self, main, index):
        Node.__init__(self, ((main, None),))
        self._main, self._index = main, index

    def name(self):
        return self._main.name()

    def _as_edge(self):
        return (self._main, self._index)

    def apply(self, g):
        return (_Partial({self._index: g}),)

    apply_graph = apply


class _FunctionNode(Node):
    """The node of a custom Function: runs the user's ``backward(ctx, *grads)``."""

    __slots__ = ("_cls", "_ctx", "_outs", "_n")
    _has_saved = True

    def __init__(self, fn_cls, ctx, edges, outputs):
        Node.__init__(self, edges)
        self._cls = fn_cls
        self._ctx = ctx
        self._outs = outputs         # (shape, dtype) of each output, to make zeros
        self._n = len(outputs)

    @property
    def _n_outputs(self):
        return self._n

    def __repr__(self):
        return f"<torch.autograd.function.{type(self).__name__} object at {hex(id(self))}>"

    @property
    def next_functions(self):
        """One pair per tensor input (PyTorch leaves the other arguments out)."""
        return tuple((None, 0) if node is None else node._as_edge()
                     for node, meta in self._edges if meta is not None)

    def _grads_in(self, g, tensors):
        if self._n == 1:
            parts = {0: g}
        else:
            parts = g.grads
        out = []
        for k, (shape, dtype) in enumerate(self._outs):
            gk = parts.get(k)
            if gk is None and self._ctx.materialize_grads:
                gk = np.zeros(shape, dtype)
            if gk is not None and not isinstance(gk, Tensor):
                gk = _wrap(gk)
            out.append(gk)
        return out

    def _run(self, grads):
        result = self._cls.backward(self._ctx, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        n = len(self._edges)
        if len(result) != n:
            if len(result) > n and all(r is None for r in result[n:]):
                result = result[:n]
            else:
                raise RuntimeError(f"function {type(self).__name__} returned an incorrect "
                                   f"number of gradients (expected {n}, got {len(result)})")
        return result

    def apply(self, g):
        if self._freed:
            raise RuntimeError(_SECOND_TIME)
        with grad_mode.no_grad():
            result = self._run(self._grads_in(g, False))
        return [None if gi is None else gi._data if isinstance(gi, Tensor) else gi
                for gi in result]

    def apply_graph(self, g):
        if self._freed:
            raise RuntimeError(_SECOND_TIME)
        if getattr(self._cls.backward, "_once_differentiable", False):
            # as PyTorch: the results refuse a second backward only when a gradient fed in
            # has a graph; else they are constants
            parts = g.grads.values() if isinstance(g, _Partial) else (g,)
            graph = any(isinstance(p, Tensor) and p.requires_grad for p in parts)
            return [None if gi is None else _once_only(gi, self, _ONCE) if graph else _wrap(gi)
                    for gi in self.apply(g)]
        return list(self._run(self._grads_in(g, True)))

    def release(self):
        self._freed = True


class _FunctionMeta(type):
    def __init__(cls, name, bases, ns):
        super().__init__(name, bases, ns)
        cls._node_cls = type(f"{name}Backward", (_FunctionNode,),
                             {"__module__": "torch.autograd.function", "__slots__": ()})


class Function(metaclass=_FunctionMeta):
    """``torch.autograd.Function``: a user's own forward and backward on tensors.

    ``forward(ctx, *args)`` (or ``forward(*args)`` with ``setup_context(ctx, inputs,
    output)``) runs without recording; the outputs' ``grad_fn`` is one
    ``<Name>Backward`` node that calls ``backward(ctx, *grad_outputs)``.
    """

    @staticmethod
    def forward(ctx, *args, **kwargs):   # pragma: no cover - user overrides
        raise NotImplementedError

    @staticmethod
    def backward(ctx, *grad_outputs):    # pragma: no cover - user overrides
        raise NotImplementedError

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom "
                                  "autograd.Function to use it with forward mode AD.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError        # marks "forward takes ctx" when not overridden

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = FunctionCtx()
        tensors = [a for a in args if isinstance(a, Tensor)]
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        separate = cls.setup_context is not Function.setup_context
        tangents = [_forward.tangent_of(a) for a in args] if _forward.active() else ()
        dual = any(t is not None for t in tangents)
        with grad_mode.no_grad(), _no_tangents(dual):
            out = cls.forward(*args, **kwargs) if separate else cls.forward(ctx, *args, **kwargs)
            if separate:
                cls.setup_context(ctx, args, out)
        if not (grad_mode.is_grad_enabled() and any(t.requires_grad for t in tensors)):
            if dual:           # forward mode: the outputs' tangents are the user's jvp's
                _attach_jvp(cls, ctx, args, tangents, out)
            return out
        for t in ctx._dirty:
            if isinstance(t, Tensor) and t._requires_grad and t._grad_fn is None:
                raise RuntimeError("a leaf Variable that requires grad has been used in an "
                                   "in-place operation.")
        edges = tuple((a._grad_node() if isinstance(a, Tensor) and a.requires_grad else None,
                       InputMeta(a._data) if isinstance(a, Tensor) else None)
                      for a in args)
        outs = out if isinstance(out, tuple) else (out,)
        node = cls._node_cls(cls, ctx, edges,
                             tuple((o._data.shape, o._data.dtype) if isinstance(o, Tensor)
                                   else ((), np.float32) for o in outs))
        ctx._node = node
        non_diff = {id(t) for t in ctx._non_differentiable}
        dirty = {id(t) for t in ctx._dirty}
        for k, o in enumerate(outs):
            if not isinstance(o, Tensor) or id(o) in non_diff or \
                    not (o.dtype.is_floating_point or o.dtype.is_complex):
                continue
            o._grad_fn = node
            o._requires_grad = True
            if id(o) in dirty:
                o._vc.value += 1
            if node._n != 1:
                o.__dict__["_port"] = _OutputPort(node, k)
        if dual:               # (after the outputs have their node: jvp may read them)
            _attach_jvp(cls, ctx, args, tangents, out)
        return out


class _no_tangents:
    """While a custom forward runs, its operations compute no tangents (its ``jvp`` does)."""

    def __init__(self, active):
        self.active = active

    def __enter__(self):
        if self.active:
            self.level, _forward._state.level = _forward._state.level, -1

    def __exit__(self, *exc):
        if self.active:
            _forward._state.level = self.level


def _attach_jvp(cls, ctx, args, tangents, out):
    """Give ``out`` the tangents ``cls.jvp(ctx, *input_tangents)`` returns (zeros for a
    tensor input without one, None for other inputs)."""
    given = [t if t is not None else Tensor._make(np.zeros_like(a._data))
             if isinstance(a, Tensor) else None for a, t in zip(args, tangents)]
    with _no_tangents(True):       # in the caller's grad mode: the tangents may record
        result = cls.jvp(ctx, *given)
    outs = out if isinstance(out, tuple) else (out,)
    results = result if isinstance(result, tuple) else (result,)
    if len(results) != len(outs):
        raise RuntimeError(f"{cls.__name__}.jvp returned {len(results)} tangents for "
                           f"{len(outs)} outputs")
    for o, t in zip(outs, results):
        if isinstance(o, Tensor) and isinstance(t, Tensor):
            _forward._attach(o, t)


class InplaceFunction(Function):
    def __init__(self, inplace=False):
        self.inplace = inplace


NestedIOFunction = Function


def once_differentiable(fn):
    """Mark a ``backward`` as not differentiable again: with ``create_graph=True`` its
    results refuse a second backward (PyTorch's message)."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with grad_mode.no_grad():
            return fn(ctx, *args)
    wrapper._once_differentiable = True
    return wrapper


# the classes as PyTorch names them (<class 'torch.autograd.function.Function'>)
Function.__module__ = FunctionCtx.__module__ = "torch.autograd.function"
