"""The eager autograd graph: ``grad_fn`` nodes and the backward engine.

Every recorded operation becomes one node.  A node knows the derivative rule of
its primitive (from :mod:`srcgrad.rules`, compiled once per rule: see
``Rule.vjp_function``), the values the rule needs, and an edge to the node of
each input.  ``backward`` visits the nodes reachable from the output in
topological order, calls each node's rule on the sum of the gradients that
reached it, and hands the results to its inputs.  Leaves collect their
gradient in an ``AccumulateGrad`` node, as in PyTorch.

Nothing here knows a derivative: a node only *calls* a rule.

Version counters: every tensor has one (views and ``detach()`` share their
base's).  A node remembers the version of each tensor whose *value* its rule
reads; if the tensor changed in place before backward, backward raises
PyTorch's error instead of computing a wrong gradient.  Values a rule only
reads the shape of (``unbroadcast(g, x)``) are not checked: an in-place change
cannot alter them.
"""
import ast
import builtins
import re
import sys
import types
import weakref

import numpy as np

from .. import runtime
from . import grad_mode
from .core import Tensor, VersionCounter

__all__ = ["Node", "AccumulateGrad", "backward", "grad", "Function", "FunctionCtx",
           "set_detect_anomaly", "detect_anomaly", "VersionCounter"]


# -- nodes ----------------------------------------------------------------------------

class Node:
    """A ``grad_fn``: computes the gradients of an operation's inputs from its output's.

    ``next_functions`` is a tuple of ``(node, 0)`` pairs, one per input, with
    ``(None, 0)`` for inputs that need no gradient; ``source`` is the derivative
    code the node runs.

    Every operation makes a node, so nodes are small: ``__slots__``, and the rarely
    used lists (retained tensors, hooks) and ``metadata`` are made on first use.
    """

    __slots__ = ("_edges", "_retained", "_tensor_hooks", "_metadata", "_freed", "__weakref__")
    source = None
    _has_saved = False             # whether release() frees values (a second backward fails)

    def __init__(self, edges=()):
        self._edges = edges        # ((node or None, InputMeta or None), ...)
        self._retained = ()        # weakrefs of tensors whose .grad is this node's output grad
        self._tensor_hooks = ()    # hooks registered on the output tensor (register_hook)
        self._metadata = None
        self._freed = False

    def name(self):
        return type(self).__name__

    @property
    def metadata(self):
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    @property
    def next_functions(self):
        return tuple((node, 0) for node, _ in self._edges)

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
        raise NotImplementedError("srcgrad: hooks on grad_fn nodes are not supported; "
                                  "use Tensor.register_hook")

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

    def apply(self, g, owned=False):
        """``owned``: the engine holds the only reference to ``g`` (see ``run_backward``),
        so a first gradient can become ``.grad`` as it is, without a copy."""
        var = self.variable
        if var._hooks:
            owned = False            # a hook may keep the tensor it was given
            for hook in var._hooks:
                out = hook(_wrap(g))
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
            from .device import device_of
            self.device = device_of(array)


# nodes that PyTorch's name() reports with their C++ namespace
_QUALIFIED = {"CopySlices": "torch::autograd::CopySlices"}


def _node_class(name, _cache={}):
    """A ``Node`` subclass named as PyTorch names the operation's node (``MulBackward0``)."""
    cls = _cache.get(name)
    if cls is None:
        ns = {"__module__": "srcgrad.tensor", "__slots__": ()}
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
                 "_has_saved")

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

    @property
    def source(self):
        return self._vjp.source

    def apply(self, g):
        if self._freed and self._has_saved:
            raise RuntimeError(_SECOND_TIME)
        for ref, counter, version in self._saved:
            if counter.value != version:
                raise RuntimeError(_modified_message(ref, counter.value, version, self))
        grads = self._vjp(g, self._ans, *self._args, needs=self._needs, **self._kwargs)
        if self._layout is None:
            return grads
        out = []
        for i, j in self._layout:
            gi = grads[i]
            out.append(gi if j is None or gi is None else gi[j])
        return out

    def release(self):
        self._freed = True
        if self._has_saved:           # free the memory; shape-only nodes can run again
            self._args, self._kwargs, self._ans = (), {}, None
            self._saved = ()


def vjp_function(rule):
    """The rule's compiled vjp function (compiled once per rule, then cached on it)."""
    return rule._vjp_fn or rule.vjp_function()


_SECOND_TIME = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.")


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


# -- which arguments a rule reads the value of ---------------------------------------------
#
# A node only checks the version of a saved tensor whose *values* its rule reads.
# That is decided by reading the rule's template and, through calls, the source of
# the helpers it calls: a use of a parameter is "shape only" when it is ``x.shape``
# (``.ndim``, ``.size``, ``.dtype``), an argument of ``np.shape``-like functions,
# an ``is None`` test, or an argument of a helper that itself uses it shape-only.
# Anything else (unknown functions, methods, assignments) counts as a value read.

_READ_CACHE = {}


def _rules():
    from .. import rules      # the registry (imported when first asked: no import cycle)
    return rules


def _callee(func, namespace):
    """The object a call's ``func`` expression names (``np.shape``, ``unbroadcast``) or None."""
    if isinstance(func, ast.Name):
        obj = namespace.get(func.id)
        if obj is None:
            import builtins
            obj = getattr(builtins, func.id, None)
        return obj
    if isinstance(func, ast.Attribute):
        base = _callee(func.value, namespace)
        return getattr(base, func.attr, None) if base is not None else None
    return None


def _parents(tree):
    parents = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    return parents


def _use_reads_value(use, parents, namespace, stack):
    """Whether one use (an ``ast.Name`` load) of a parameter reads its values."""
    parent = parents.get(use)
    if isinstance(parent, ast.Attribute) and parent.value is use:
        return not _rules().metadata_attribute(parent.attr)
    if isinstance(parent, ast.Compare) and all(isinstance(o, (ast.Is, ast.IsNot))
                                               for o in parent.ops):
        return False
    if isinstance(parent, ast.keyword):
        call = parents.get(parent)
        if parent.arg == "like":          # np.asarray(values, like=ref): the backend only
            return False
        return _call_reads(call, parent.arg, namespace, stack)
    if isinstance(parent, ast.Call) and use in parent.args:
        return _call_reads(parent, parent.args.index(use), namespace, stack)
    return True


def _call_reads(call, arg, namespace, stack):
    if any(isinstance(a, ast.Starred) for a in call.args):
        return True
    callee = _callee(call.func, namespace)
    if callee is None:
        return True
    if callee is builtins.getattr and arg == 0 and len(call.args) > 1 and \
            isinstance(call.args[1], ast.Constant) and isinstance(call.args[1].value, str):
        return not _rules().metadata_attribute(call.args[1].value)   # getattr(x, "shape")
    if _rules().reads_only_shape(callee, arg):
        return False
    return function_reads(callee, arg, stack)


def function_reads(func, arg, stack=()):
    """Whether the Python function ``func`` reads the values of its argument ``arg``
    (a position or a keyword name).  Unknown or opaque functions read everything."""
    import inspect
    import textwrap
    key = (id(func), arg)
    if key in _READ_CACHE:
        return _READ_CACHE[key]
    if key in stack:                       # recursion: decided by the other uses
        return False
    if not isinstance(func, types.FunctionType):
        return True                         # a C function or a NumPy dispatcher: opaque
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
        fn = tree.body[0]
        params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        if isinstance(arg, int):
            if arg >= len(params):
                raise LookupError
            name = params[arg]
        else:
            name = arg
            if name not in params + [a.arg for a in fn.args.kwonlyargs]:
                raise LookupError
    except (TypeError, OSError, SyntaxError, LookupError, IndexError, AttributeError):
        _READ_CACHE[key] = True
        return True
    if _rules().reads_only_shape(func, arg):        # declared on the function's rule
        _READ_CACHE[key] = False
        return False
    result = _names_read(fn, {name}, func.__globals__, stack + (key,))
    _READ_CACHE[key] = bool(result)
    return bool(result)


def _names_read(tree, names, namespace, stack=()):
    """The subset of ``names`` whose values the code ``tree`` reads."""
    parents = _parents(tree)
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in names and node.id not in out:
            if not isinstance(node.ctx, ast.Load) or \
                    _use_reads_value(node, parents, namespace, stack):
                out.add(node.id)
    return out


def value_reads(expr, names=None):
    """Names whose values (not just shapes) the template expression ``expr`` reads."""
    from ..rules import template_globals
    tree = ast.parse(expr, mode="eval")
    if names is None:
        names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    return _names_read(tree, set(names), template_globals())


_READS = {}


def rule_reads(rule, needs):
    """Parameter names (and ``ans``) whose values the rule reads for the needed inputs."""
    key = (id(rule), needs)
    out = _READS.get(key)
    if out is None:
        out = set()
        names = set(rule.signature.parameters) | {"ans"}
        for p, need in zip(rule.diff_params, needs):
            if need and p in rule.vjp:
                out |= value_reads(rule.vjp[p], names)
        out = _READS[key] = frozenset(out)
    return out


# -- the engine -----------------------------------------------------------------------

def _wrap(array):
    return Tensor._make(array)


def _owned(g, dtype):
    """A writable array of ``dtype`` that no one else holds (``.grad`` is updated in place)."""
    xp = np if type(g) is np.ndarray else runtime.array_ns(g)
    return xp.array(g, dtype=dtype, copy=True)


def _fit_grad(g, meta, node, index):
    """``g`` as the gradient of an input described by ``meta``: cast, and summed down if
    broadcast (as PyTorch's engine does); an incompatible shape is a rule's bug."""
    if hasattr(g, "shape") and type(g) is not meta.kind and not isinstance(g, np.generic):
        from .device import CPU, move
        g = move(g, meta.device or CPU)
    xp = runtime.array_ns(g)
    if not hasattr(g, "shape"):
        g = xp.asarray(g)
    if g.shape != meta.shape:
        try:
            np.broadcast_shapes(g.shape, meta.shape)
            ok = len(meta.shape) <= len(g.shape) and np.broadcast_shapes(g.shape, meta.shape) == g.shape
        except ValueError:
            ok = False
        if not ok:
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {index} - got "
                f"[{', '.join(map(str, g.shape))}] but expected shape compatible with "
                f"[{', '.join(map(str, meta.shape))}]")
        g = runtime.unbroadcast(g, xp.empty(meta.shape, dtype=bool))
    if g.dtype != meta.dtype:
        g = g.astype(meta.dtype)
    return g


def _graph_order(roots):
    """Nodes reachable from ``roots`` and, for each, how many edges point at it."""
    deps = {}
    stack = list(dict.fromkeys(roots))
    seen = set(stack)
    while stack:
        node = stack.pop()
        for nxt, _ in node._edges:
            if nxt is None:
                continue
            if nxt in deps:
                deps[nxt] += 1
            else:
                deps[nxt] = 1
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
    return deps


def run_backward(roots, root_grads, retain_graph=False, capture=None, accumulate=True):
    """Propagate ``root_grads`` (arrays) from the nodes ``roots`` to the leaves.

    ``capture``: a dict ``{node: None}`` whose entries receive the total gradient that
    reached each node (``autograd.grad``); with ``accumulate=False`` leaves' ``.grad``
    is left alone.
    """
    deps = _graph_order(roots)
    buffers = {}
    for node, g in zip(roots, root_grads):
        buffers[node] = g if node not in buffers else buffers[node] + g
    ready = [r for r in dict.fromkeys(roots) if deps.get(r, 0) == 0]
    # hooks and rules run with grad mode off; the thread-local flag is set directly
    # (what no_grad() does) because this runs on every backward
    state = grad_mode._state
    prev, state.enabled = state.enabled, False
    try:
        while ready:
            node = ready.pop()
            g = buffers.pop(node, None)
            if g is not None:
                if node._tensor_hooks or node._retained:
                    g = _pre_hooks(node, g)
                if capture is not None and node in capture:
                    capture[node] = g
                if type(node) is AccumulateGrad:
                    if accumulate:
                        # As PyTorch does, a gradient that nothing else references (a fresh
                        # array: not a view, not saved, not sent to another input) becomes
                        # .grad without a copy.  References now: the name ``g`` and the
                        # argument of getrefcount.
                        owned = (type(g) is np.ndarray and g.base is None
                                 and g.flags.writeable and sys.getrefcount(g) == 2)
                        node.apply(g, owned)
                    continue
                grads = node.apply(g)
                if not retain_graph:
                    node.release()
                for i, ((nxt, meta), gi) in enumerate(zip(node._edges, grads)):
                    if nxt is None or gi is None:
                        continue
                    if not (type(gi) is np.ndarray and gi.shape == meta.shape
                            and gi.dtype == meta.dtype):
                        gi = _fit_grad(gi, meta, node, i)
                    old = buffers.get(nxt)
                    buffers[nxt] = gi if old is None else old + gi
                grads = gi = None     # only ``buffers`` may hold the gradients (see above)
            for nxt, _ in node._edges:
                if nxt is not None:
                    deps[nxt] -= 1
                    if deps[nxt] == 0:
                        ready.append(nxt)
    finally:
        state.enabled = prev


def _pre_hooks(node, g):
    """Tensor hooks and ``retain_grad`` of the (non-leaf) tensor this node produced."""
    for hook in node._tensor_hooks:
        out = hook(_wrap(g))
        if out is not None:
            g = out._data
    for ref in node._retained:
        t = ref()
        if t is None or t._grad_fn is not node:
            continue
        if t._grad is None:
            t._grad = _wrap(_owned(g, t._data.dtype))
        else:
            t._grad._data += g
    return g


def _root_grads(tensors, grads):
    if isinstance(tensors, Tensor):
        tensors = (tensors,)
    tensors = tuple(tensors)
    if grads is None or isinstance(grads, Tensor):
        grads = (grads,) * (1 if grads is not None else len(tensors))
    roots, arrays = [], []
    for i, (t, g) in enumerate(zip(tensors, grads)):
        if not t.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not "
                               "have a grad_fn")
        if g is None:
            if t._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            data = t._data         # np.ones: a tenth of np.ones_like's cost on small arrays
            garr = np.ones(data.shape, data.dtype) if type(data) is np.ndarray \
                else np.ones_like(data)
        else:
            if not isinstance(g, Tensor):
                g = _wrap(runtime.array_ns(t._data).asarray(g, dtype=t._data.dtype))
            if tuple(g.shape) != tuple(t.shape):
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                    f"output[{i}] has a shape of {t.shape}.")
            garr = g._data.astype(t._data.dtype, copy=False)
        roots.append(t._grad_node())
        arrays.append(garr)
    return tensors, roots, arrays


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """``torch.autograd.backward``: accumulate the gradients of ``tensors`` into leaves."""
    if create_graph:
        raise NotImplementedError("srcgrad: create_graph=True (higher-order gradients of "
                                  "eager tensors) is not supported; use sg.grad on a function")
    if inputs is not None:
        raise NotImplementedError("srcgrad: backward(inputs=...) is not supported")
    _, roots, arrays = _root_grads(tensors, grad_tensors)
    run_backward(roots, arrays, retain_graph=bool(retain_graph))


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         allow_unused=None, materialize_grads=False):
    """``torch.autograd.grad``: the gradients of ``outputs`` w.r.t. ``inputs``, returned
    as a tuple; no ``.grad`` is changed."""
    if create_graph:
        raise NotImplementedError("srcgrad: create_graph=True is not supported")
    single = isinstance(inputs, Tensor)
    inputs = (inputs,) if single else tuple(inputs)
    for t in inputs:
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    _, roots, arrays = _root_grads(outputs, grad_outputs)
    capture = {t._grad_node(): None for t in inputs}
    run_backward(roots, arrays, retain_graph=bool(retain_graph), capture=capture,
                 accumulate=False)
    out = []
    for i, t in enumerate(inputs):
        g = capture[t._grad_node()]
        if g is None:
            if not (allow_unused or materialize_grads):
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior.")
            out.append(_wrap(np.zeros_like(t._data)) if materialize_grads else None)
        else:
            out.append(_wrap(_owned(g, t._data.dtype)))
    return tuple(out)


class set_detect_anomaly:
    """Accepted for compatibility; srcgrad's errors already name the failing node."""

    def __init__(self, mode=True, check_nan=True):
        self.mode = mode

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


detect_anomaly = set_detect_anomaly


# -- user-defined functions (torch.autograd.Function) ---------------------------------------

class FunctionCtx:
    """The ``ctx`` of a custom ``Function``: ``save_for_backward`` and free attributes."""

    def __init__(self):
        self._to_save = ()
        self.needs_input_grad = ()
        self._node = None

    def save_for_backward(self, *tensors):
        self._to_save = tensors
        self._versions = tuple(t._vc.value if t is not None else None for t in tensors)

    @property
    def saved_tensors(self):
        node = self._node
        if node is not None and node._freed:
            raise RuntimeError(_SECOND_TIME)
        for t, v in zip(self._to_save, getattr(self, "_versions", ())):
            if t is not None and t._vc.value != v:
                raise RuntimeError(_modified_message(t, t._vc.value, v))
        return self._to_save

    def mark_non_differentiable(self, *tensors):
        pass

    def set_materialize_grads(self, value):
        pass


class _FunctionNode(Node):
    """The node of a custom Function: runs the user's ``backward(ctx, grad)``."""

    def __init__(self, fn_cls, ctx, edges):
        super().__init__()
        self._cls = fn_cls
        self._ctx = ctx
        self._edges = edges
        self._has_saved = True

    def apply(self, g):
        with grad_mode.no_grad():
            grads = self._cls.backward(self._ctx, _wrap(g))
        if not isinstance(grads, tuple):
            grads = (grads,)
        return [None if gi is None else gi._data for gi in grads]

    def release(self):
        self._freed = True


class _FunctionMeta(type):
    def __init__(cls, name, bases, ns):
        super().__init__(name, bases, ns)
        cls._node_cls = type(f"{name}Backward", (_FunctionNode,), {"__module__": "srcgrad.tensor"})


class Function(metaclass=_FunctionMeta):
    """``torch.autograd.Function``: a user's own forward and backward on tensors.

    ``forward(ctx, *args)`` runs without recording; the result's ``grad_fn`` is one
    ``<Name>Backward`` node that calls ``backward(ctx, grad_output)``.
    """

    @staticmethod
    def forward(ctx, *args, **kwargs):   # pragma: no cover - user overrides
        raise NotImplementedError

    @staticmethod
    def backward(ctx, *grad_outputs):    # pragma: no cover - user overrides
        raise NotImplementedError

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = FunctionCtx()
        tensors = [a for a in args if isinstance(a, Tensor)]
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        with grad_mode.no_grad():
            out = cls.forward(ctx, *args, **kwargs)
        if grad_mode.is_grad_enabled() and any(t.requires_grad for t in tensors):
            edges = tuple((a._grad_node() if isinstance(a, Tensor) and a.requires_grad else None,
                           InputMeta(a._data) if isinstance(a, Tensor) else None)
                          for a in args)
            node = cls._node_cls(cls, ctx, edges)
            ctx._node = node
            outs = out if isinstance(out, tuple) else (out,)
            for o in outs:
                if isinstance(o, Tensor) and o.dtype.is_floating_point:
                    o._grad_fn = node
                    o._requires_grad = True
        return out


class GraphMethods:
    """The Tensor methods that reach the graph: attached to :class:`~.core.Tensor` by
    :mod:`.methods`."""

    def _grad_node(self):
        """The node gradients of this tensor flow into: its grad_fn, or its AccumulateGrad."""
        if self._grad_fn is not None:
            return self._grad_fn
        acc = self._acc() if self._acc is not None else None
        if acc is None:
            acc = AccumulateGrad(self)
            self._acc = weakref.ref(acc)
        return acc

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate d(self)/d(leaf) into every leaf's ``.grad``."""
        backward(self, gradient, retain_graph, create_graph, inputs)   # the module's function
