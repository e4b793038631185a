"""The nodes of the eager autograd graph: ``grad_fn`` objects.

Every recorded operation becomes one node.  A node knows the derivative rule of
its primitive (from :mod:`srcgrad.rules`, compiled once per rule: see
``Rule.vjp_function``), the values the rule needs, and an edge to the node of
each input.  Leaves collect their gradient in an ``AccumulateGrad`` node, as in
PyTorch.  Nothing here knows a derivative: a node only *calls* a rule.

Version counters: every tensor has one (views and ``detach()`` share their
base's).  A node remembers the version of each tensor whose *value* its rule
reads (:mod:`.reads`); if the tensor changed in place before backward, backward
raises PyTorch's error instead of computing a wrong gradient.

With ``create_graph=True`` a node runs its rule on tensors instead of arrays
(:mod:`.lifted`), so the backward pass is itself recorded and can be
differentiated again.
"""
import re
import types
import weakref

import numpy as np

from ... import runtime
from ..core import Tensor
from ..dtypes import from_numpy_dtype
from .messages import _SECOND_TIME

__all__ = ["Node", "AccumulateGrad", "InputMeta", "RuleNode"]


def _wrap(array):
    return Tensor._make(array)


def checked_hook_result(hook, out, g):
    """What a tensor hook returned for the gradient ``g`` (an array, or a tensor when the
    backward pass records a graph): None, or a tensor of ``g``'s dtype and shape, as
    PyTorch checks (a hook returning ``g.sum()`` would otherwise change the gradient's
    shape silently)."""
    if out is None:
        return None
    if not isinstance(out, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(out).__name__}'")
    name = getattr(hook, "__name__", type(hook).__name__)
    was = g.dtype if isinstance(g, Tensor) else from_numpy_dtype(g.dtype)
    if out.dtype is not was:
        raise RuntimeError(f"hook '{name}' has changed the type of value (was "
                           f"torch.{was.legacy} got torch.{out.dtype.legacy})")
    if tuple(out.shape) != tuple(g.shape):
        raise RuntimeError(f"hook '{name}' has changed the size of value")
    return out


def _owned(g, dtype):
    """A writable array of ``dtype`` that no one else holds (``.grad`` is updated in place)."""
    xp = np if type(g) is np.ndarray else runtime.array_ns(g)
    return xp.array(g, dtype=dtype, copy=True)


# -- nodes ----------------------------------------------------------------------------

class Node:
    """A ``grad_fn``: computes the gradients of an operation's inputs from its output's.

    ``next_functions`` is a tuple of ``(node, 0)`` pairs, one per input, with
    ``(None, 0)`` for inputs that need no gradient; ``source`` is the derivative
    code the node runs.

    Every operation makes a node, so nodes are small: ``__slots__``, and the rarely
    used lists (retained tensors, hooks) and ``metadata`` are made on first use.
    """

    __slots__ = ("_edges", "_retained", "_tensor_hooks", "_metadata", "_freed", "_fn_hooks",
                 "__weakref__")
    source = None
    _has_saved = False             # whether release() frees values (a second backward fails)
    _n_outputs = 1                 # a custom Function's node may have several
    _zero_tensor = False           # its gradients are PyTorch's ZeroTensors (engine._send)

    def __init__(self, edges=()):
        self._edges = edges        # ((node or None, InputMeta or None), ...)
        self._retained = ()        # weakrefs of tensors whose .grad is this node's output grad
        self._tensor_hooks = ()    # hooks registered on the output tensor (register_hook)
        self._metadata = None
        self._freed = False
        self._fn_hooks = None      # [prehooks, posthooks] (register_prehook, register_hook)

    def name(self):
        return type(self).__name__

    @property
    def metadata(self):
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    @property
    def next_functions(self):
        return tuple((None, 0) if node is None else node._as_edge() for node, _ in self._edges)

    def _as_edge(self):
        return (self, 0)

    def apply(self, g):            # pragma: no cover - every node overrides
        raise NotImplementedError

    def release(self):
        """Drop the values saved for backward (after a backward without retain_graph)."""
        self._freed = True

    def _retain(self, tensor):
        """``tensor.retain_grad()``: its ``.grad`` receives this node's output gradient."""
        if not self._retained:
            self._retained = []
        self._retained.append(weakref.ref(tensor))

    def _hook_list(self):
        """The (mutable) list of hooks registered on this node's output tensor."""
        if not self._tensor_hooks:
            self._tensor_hooks = []
        return self._tensor_hooks

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` after the node ran; a tuple it returns
        replaces ``grad_inputs``.  Returns a handle with ``remove()``."""
        return self._add_fn_hook(1, fn)

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` before the node runs; a tuple it returns replaces
        ``grad_outputs``.  Returns a handle with ``remove()``."""
        return self._add_fn_hook(0, fn)

    def _add_fn_hook(self, which, fn):
        if self._n_outputs != 1:
            raise NotImplementedError("srcgrad: hooks on the node of a custom Function with "
                                      "several outputs are not supported; register them on "
                                      "the output tensors")
        if self._fn_hooks is None:
            self._fn_hooks = ([], [])
        from ..core import _HookHandle
        self._fn_hooks[which].append(fn)
        return _HookHandle(self._fn_hooks[which], fn)

    def apply_graph(self, g):
        """The gradients of the inputs as tensors that record their own graph
        (``create_graph=True``); ``g``: the output's gradient, a tensor.  A node that
        cannot record its backward computes it on arrays, and its results carry a node
        that refuses to be differentiated again."""
        grads = self.apply(g._data)
        return [None if gi is None else _once_only(gi, self) for gi in grads]

    def __call__(self, *grads):
        return self.apply(*grads)

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"


class AccumulateGrad(Node):
    """The node of a leaf tensor: adds the incoming gradient into ``variable.grad``."""

    __slots__ = ("variable",)
    source = ("def accumulate_grad(g, variable):\n"
              "    variable.grad = g if variable.grad is None else variable.grad + g\n")

    def __init__(self, variable):
        Node.__init__(self)
        self.variable = variable

    def name(self):
        return "torch::autograd::AccumulateGrad"

    def accumulate_graph(self, g, hooks=True):
        """``create_graph=True``: ``g`` is a tensor with a graph; ``.grad`` becomes
        ``.grad + g`` out of place (recorded), as PyTorch does.  ``hooks``: run the
        leaf's tensor hooks (the engine ran them already when the node has prehooks)."""
        var = self.variable
        for hook in (var._hooks or ()) if hooks else ():
            out = checked_hook_result(hook, hook(g), g)
            if out is not None:
                g = out
        if g.dtype is not var.dtype:
            g = g.to(var.dtype)
        if var._grad is None and g._requires_grad:   # a first gradient with a graph is
            g = g.clone()                                # stored as a copy, as PyTorch does
            g._grad_fn.__class__ = _node_class("CopyBackwards")
        var._grad = g if var._grad is None else var._grad + g
        return ()

    def apply(self, g, owned=False, hooks=True):
        """``owned``: the engine holds the only reference to ``g`` (see ``run_backward``),
        so a first gradient can become ``.grad`` as it is, without a copy; ``hooks``: as
        in ``accumulate_graph``."""
        var = self.variable
        if var._hooks and hooks:
            owned = False            # a hook may keep the tensor it was given
            for hook in var._hooks:
                out = checked_hook_result(hook, hook(_wrap(g)), g)
                if out is not None:
                    g = out._data
        if var._grad is None:
            if not (owned and g.dtype == var._data.dtype):
                g = _owned(g, var._data.dtype)
            var._grad = _wrap(g)
        else:
            acc = var._grad
            acc._data += g           # in place: the .grad tensor object stays the same
            acc._vc.value += 1
        return ()


class OnceDifferentiableBackward(Node):
    """The node of a gradient computed by a node that cannot record its backward: it
    refuses to be differentiated (never a silently wrong higher derivative)."""

    __slots__ = ("_message",)

    def __init__(self, of, message=None):
        Node.__init__(self, of._edges)
        self._message = message or (
            f"srcgrad: the gradient computed by {of.name()} cannot be differentiated again "
            "(its derivative rule does not run on tensors)")

    def apply(self, g):
        raise RuntimeError(self._message)

    apply_graph = apply


class ZeroGradient(Node):
    """The node of a step function (``sign``, ``floor``, ``round``...): its input's
    gradient is zero, as PyTorch defines it (a node, so the result requires grad)."""

    __slots__ = ()

    def apply(self, g):
        xp = runtime.array_ns(g)
        return [None if meta is None else xp.zeros(meta.shape, dtype=meta.dtype)
                for _, meta in self._edges]

    def apply_graph(self, g):
        return [None if gi is None else Tensor._make(gi) for gi in self.apply(g._data)]


def zero_gradient_class(name, zero_tensor=False, _cache={}):
    """A ``ZeroGradient`` subclass named as PyTorch names the operation's node;
    ``zero_tensor``: PyTorch's gradient is a ZeroTensor (``sgn``), not ``zeros_like``."""
    cls = _cache.get((name, zero_tensor))
    if cls is None:
        cls = _cache[name, zero_tensor] = type(name, (ZeroGradient,), {
            "__module__": "srcgrad.tensor", "__slots__": (), "_zero_tensor": zero_tensor})
    return cls


def _once_only(g, node, message=None):
    """The array ``g`` (a gradient ``node`` computed) as a tensor whose graph refuses a
    second backward."""
    if isinstance(g, Tensor):
        g = g._data
    if not hasattr(g, "shape"):
        g = np.asarray(g)
    return Tensor._make(g, True, OnceDifferentiableBackward(node, message))


class InputMeta:
    """Shape, dtype and array type (device) of an input, to check, cast and move the
    gradient sent to it."""

    __slots__ = ("shape", "dtype", "kind", "device")

    def __init__(self, array):
        self.shape = array.shape
        self.dtype = array.dtype
        self.kind = type(array)
        self.device = None
        if self.kind is not np.ndarray:
            from ..device import device_of
            self.device = device_of(array)


# nodes that PyTorch's name() reports with their C++ namespace
_QUALIFIED = {"CopySlices": "torch::autograd::CopySlices",
              "CopyBackwards": "torch::autograd::CopyBackwards"}


def _node_class(name, _cache={}):
    """A ``Node`` subclass named as PyTorch names the operation's node (``MulBackward0``)."""
    cls = _cache.get(name)
    if cls is None:
        ns = {"__module__": "builtins", "__slots__": ()}   # type() prints <class 'MulBackward0'>
        if name in _QUALIFIED:
            ns["name"] = lambda self, _n=_QUALIFIED[name]: _n
        cls = _cache[name] = type(name, (RuleNode,), ns)
    return cls


class RuleNode(Node):
    """A node that runs a derivative rule: ``vjp(g, ans, *args, needs=needs, **kwargs)``
    where ``vjp`` is the rule's compiled function (``Rule.vjp_function``).

    ``args`` / ``kwargs`` are the operation's arguments as arrays, passed as the
    operation got them (so they bind to the rule's parameters as they did to the
    primitive's); ``layout`` says which entry of the rule's result goes to which
    edge (a list argument, as in ``concatenate``, gives one edge per item), or is
    None when entry i goes to edge i.
    """

    __slots__ = ("_vjp", "_args", "_kwargs", "_ans", "_needs", "_layout", "_saved",
                 "_has_saved", "_diff", "_slots", "_packed", "_fw")

    def __init__(self, vjp, args, kwargs, ans, needs, edges, layout, saved):
        Node.__init__(self, edges)
        self._vjp = vjp
        self._args = args
        self._kwargs = kwargs
        self._ans = ans
        self._needs = needs
        self._layout = layout
        self._saved = saved          # ((tensor or weakref, VersionCounter, version), ...)
        self._has_saved = bool(saved)
        self._diff = None            # position among the call's values of each diff param
        self._slots = None           # positions among the call's values of the saved operands
        self._packed = None          # (unpack_hook, entries) under saved_tensors_hooks (.graph)
        self._fw = None              # ({position: tangent}, result's tangent) (forward_ad)

    def __getattr__(self, name):
        """``_saved_self``, ``_saved_result``...: what the node saved, by PyTorch's names."""
        if name.startswith("_saved_"):
            from .saved import saved_attribute
            return saved_attribute(self, name[7:])
        if name.startswith("_raw_saved_"):
            from .saved import raw_saved
            return raw_saved(self, name[11:])
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __dir__(self):
        from .saved import saved_names
        return sorted((set(object.__dir__(self)) - {"_saved"}) | set(saved_names(self)))

    @property
    def source(self):
        return self._vjp.source

    def _check_saved(self):
        if self._freed and self._has_saved:
            raise RuntimeError(_SECOND_TIME)
        for ref, counter, version in self._saved:
            if counter.value != version:
                raise RuntimeError(_modified_message(ref, counter.value, version, self))

    def apply(self, g):
        self._check_saved()
        if self._packed is not None:          # saved_tensors_hooks: run on the unpacked values
            from .saved import unpacked_values
            args, kwargs, ans = unpacked_values(self)
            grads = self._vjp(g, ans, *args, needs=self._needs, **kwargs)
        else:
            grads = self._vjp(g, self._ans, *self._args, needs=self._needs, **self._kwargs)
        return grads if self._layout is None else self._laid_out(grads)

    def _laid_out(self, grads):
        out = []
        for i, j in self._layout:
            gi = grads[i]
            out.append(gi if j is None or gi is None else gi[j])
        return out

    def apply_graph(self, g):
        """The rule run on tensors (:mod:`.lifted`): its operations are recorded."""
        self._check_saved()
        if self._diff is None or not RECORDED:
            self._check_no_tangent(g)
            return Node.apply_graph(self, g)
        if self._packed is not None:
            from .saved import unpacked_values
            kept = self._args, self._kwargs, self._ans
            self._args, self._kwargs, self._ans = unpacked_values(self)
            try:
                grads = RECORDED[0](self, g)
            finally:
                self._args, self._kwargs, self._ans = kept
        else:
            grads = RECORDED[0](self, g)
        if grads is None:                    # the template cannot run on tensors
            self._check_no_tangent(g)
            return Node.apply_graph(self, g)
        return grads if self._layout is None else self._laid_out(grads)

    def _check_no_tangent(self, g):
        """Computing on arrays would drop a tangent (forward-over-reverse): refuse."""
        if self._fw is not None or "_fw_grad" in g.__dict__:
            raise NotImplementedError(
                f"srcgrad: forward-over-reverse through {self.name()} is not supported (its "
                "derivative rule does not run on dual tensors); compute the Hessian-vector "
                "product with torch.autograd.functional.hvp or double backward instead")

    def release(self):
        self._freed = True
        if self._has_saved:           # free the memory; shape-only nodes can run again
            # (Python numbers stay: PyTorch's _saved_exponent, _saved_min... outlive backward)
            self._args = tuple([a if type(a) in _NUMBERS else None for a in self._args])
            self._kwargs, self._ans = {}, None
            self._saved = ()
            self._packed = None
            self._fw = None


_NUMBERS = (int, float, bool)

# how a rule runs on tensors when the backward pass is recorded (create_graph): installed
# by :mod:`.lifted`, which builds on this module (no import back)
RECORDED = []


def vjp_function(rule):
    """The rule's compiled vjp function (compiled once per rule, then cached on it), with
    its ``unbroadcast`` summing in PyTorch's CPU order (:func:`..summation.summed_to`)."""
    fn = rule._vjp_fn or rule.vjp_function()
    ordered = _ORDERED.get(fn)
    if ordered is None:
        ordered = _ORDERED[fn] = _torch_ordered(fn)
    return ordered


_ORDERED = weakref.WeakKeyDictionary()


class _Globals(dict):
    """A template's globals with ``unbroadcast`` replaced; other names read through."""

    def __init__(self, base, **names):
        super().__init__(names, __builtins__=base.get("__builtins__", __builtins__))
        self.base = base

    def __missing__(self, name):
        return self.base[name]


def _torch_ordered(fn):
    if "unbroadcast" not in fn.__code__.co_names:
        return fn
    base = fn.__globals__
    from ..summation import summed_to

    def unbroadcast(g, x, _plain=base["unbroadcast"]):
        return summed_to(g, x, _plain)
    copy = types.FunctionType(fn.__code__, _Globals(base, unbroadcast=unbroadcast),
                              fn.__name__, fn.__defaults__, fn.__closure__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    copy.__dict__.update(fn.__dict__)
    copy.plain = fn
    return copy



def _modified_message(ref, now, expected, node=None):
    """PyTorch's message.  A saved output (held by weakref) is named by the node that
    made it; a saved input by its current grad_fn, as PyTorch does."""
    is_output = isinstance(ref, weakref.ref)
    t = ref() if is_output else ref
    desc = ""
    if t is not None:
        desc = f"[torch.{t.dtype.legacy} [{', '.join(str(n) for n in t.shape)}]]"
        fn = node if is_output and node is not None else t._grad_fn
        if fn is not None:
            op = re.sub(r"Backward\d*$", "", fn.name())
            desc += f", which is output 0 of {op},"
    return ("one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: {desc} is at version {now}; expected version {expected} "
            "instead. Hint: enable anomaly detection to find the operation that failed to "
            "compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")




# the classes as PyTorch names them: type(grad_fn) prints <class 'AccumulateGrad'>, and
# torch.autograd.graph.Node <class 'torch.autograd.graph.Node'> (nodes are not pickled)
Node.__module__ = "torch.autograd.graph"
AccumulateGrad.__module__ = "builtins"
