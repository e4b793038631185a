"""Rule templates run on tensors: how ``create_graph=True`` records the backward pass.

A node's rule function (``Rule.vjp_function``) is Python that calls ``np.*``,
``math.*`` and the kernels of the ``ad`` namespace.  :func:`lifted` makes a copy
of such a function whose globals are *lifted*: each callable, given tensors,
becomes a recorded operation of the Tensor runtime:

* a function with a rule (``np.cos``, the kernel ``unbroadcast``) is run by
  :func:`..dispatch.apply`, which records a node for *its* rule, so the
  derivative of a derivative comes from the rule table too, to any order;
* a function declared to carry no gradient (``np.shape``, ``np.sign``) runs on
  the arrays, and its array results are constants;
* a Python helper without a rule (``balanced_eq``) is lifted in turn;
* anything else, given a tensor that needs a gradient, is refused: the node then
  computes its gradient on arrays and marks it as not differentiable again.

Operators (``g * y``) are Tensor operators, recorded as usual.
"""
import types

import numpy as np

from ...rules import is_nograd, lookup
from ..core import Tensor
from . import forward_ad as _forward
from . import nodes as _nodes
from .. import grad_mode
from .nodes import AccumulateGrad, InputMeta, zero_gradient_class

__all__ = ["lifted", "run_recorded"]


class NotLiftable(Exception):
    """A template called something that cannot record its derivative."""


def _has_tensor(values):
    for v in values:
        if isinstance(v, Tensor):
            return True
        if isinstance(v, (list, tuple)) and any(isinstance(e, Tensor) for e in v):
            return True
    return False


def _needs_grad(values):
    for v in values:
        if isinstance(v, Tensor) and v._requires_grad:
            return True
        if isinstance(v, (list, tuple)) and any(isinstance(e, Tensor) and e._requires_grad
                                                for e in v):
            return True
    return False


def _arrays(v):
    if isinstance(v, Tensor):
        return v._data
    if isinstance(v, (list, tuple)) and any(isinstance(e, Tensor) for e in v):
        return type(v)(_arrays(e) for e in v)
    return v


def _constant(result):
    if isinstance(result, np.ndarray):
        return Tensor._make(result)
    if isinstance(result, tuple) and any(isinstance(r, np.ndarray) for r in result):
        return tuple(_constant(r) for r in result)
    return result


def _on_arrays(func, args, kwargs):
    return func(*[_arrays(a) for a in args], **{k: _arrays(v) for k, v in kwargs.items()})


# the nodes a recorded backward pass makes for the derivative kernels of the ``ad``
# namespace, named as PyTorch names the operation its own backward formula records there
# (pow's ``exponent * x.pow(exponent - 1)``, mm's ``grad.mm(other.t())``...)
_KERNEL_NODES = {
    "ad.power_deriv": "PowBackward0", "ad.matmul_grad_x": "MmBackward0",
    "ad.matmul_grad_y": "MmBackward0", "ad.matvec_grad": "MvBackward0",
    "ad.dot_grad": "DotBackward0", "ad.unbroadcast": "SumBackward1",
    "ad.sum_grad": "ExpandBackward0", "ad.mean_grad": "DivBackward0",
    "ad.norm_grad": "DivBackward0", "ad.prod_partials": "ProdBackward0",
    "ad.cumsum_grad": "CumsumBackward0", "ad.transpose_grad": "PermuteBackward0",
    "ad.ravel_grad": "ViewBackward0", "ad.index_grad": "IndexPutBackward0",
}


def _kernel_node(rule):
    """The node name of a kernel's recorded call: PyTorch's where it has one, else the
    kernel's name in PyTorch's style (``ad.tile_grad``: ``TileGradBackward0``), never the
    ``ad.`` namespace's own."""
    if rule.torch_name or not rule.name.startswith("ad."):
        return None
    known = _KERNEL_NODES.get(rule.name)
    if known is not None:
        return known
    return "".join(w.capitalize() for w in rule.name[3:].split("_")) + "Backward0"


def _with_rule(func):
    from ..dispatch import apply
    rule = lookup(func)
    first = next(iter(rule.signature.parameters), None)
    passes_first = rule.diff_params == [first]
    name = _kernel_node(rule)

    def call(*args, **kwargs):
        if not _has_tensor(args) and not _has_tensor(kwargs.values()):
            return func(*args, **kwargs)
        out = apply(func, args, kwargs, name=name)
        # a kernel that handed back its only differentiable argument's array (unbroadcast
        # of a gradient that needs no summing): the result is that tensor, no new node
        if passes_first and args and isinstance(args[0], Tensor) and out._data is args[0]._data:
            return args[0]
        return out
    return call


# piecewise-constant functions that PyTorch's derivative formulas differentiate (with a zero
# derivative): on a tensor that requires grad their result has a node, named as PyTorch
# names it, so a gradient such as abs's ``g * sgn(x)`` can be differentiated again
_STEP_NODES = {np.sign: "SgnBackward0", np.floor: "FloorBackward0", np.ceil: "CeilBackward0",
               np.round: "RoundBackward0", np.rint: "RoundBackward0",
               np.trunc: "TruncBackward0", np.fix: "TruncBackward0"}


def _without_gradient(func):
    step = _STEP_NODES.get(func)

    def call(*args, **kwargs):
        if not _has_tensor(args) and not _has_tensor(kwargs.values()):
            return func(*args, **kwargs)
        out = _constant(_on_arrays(func, args, kwargs))
        if step is not None and isinstance(args[0], Tensor) and args[0]._requires_grad \
                and isinstance(out, Tensor) and out._data.dtype.kind in "fc" \
                and grad_mode._state.enabled:
            node = zero_gradient_class(step, zero_tensor=step == "SgnBackward0")
            out._grad_fn = node(((args[0]._grad_node(), InputMeta(args[0]._data)),))
            out._requires_grad = True
        return out
    return call


def _refused(func):
    def call(*args, **kwargs):
        if _needs_grad(args) or _needs_grad(kwargs.values()):
            raise NotLiftable(getattr(func, "__name__", repr(func)))
        if not _has_tensor(args) and not _has_tensor(kwargs.values()):
            return func(*args, **kwargs)
        return _constant(_on_arrays(func, args, kwargs))
    return call


class _LiftedModule:
    """``np`` (or ``np.linalg``, ``math``) with each attribute lifted."""

    def __init__(self, module):
        self._module = module
        self._cache = {}

    def __getattr__(self, name):
        try:
            return self._cache[name]
        except KeyError:
            out = self._cache[name] = _lift(getattr(self._module, name))
            return out


_LIFTED = {}


def _lift(obj):
    key = id(obj)
    hit = _LIFTED.get(key)
    if hit is not None and hit[0] is obj:
        return hit[1]
    if isinstance(obj, types.ModuleType):
        out = _LiftedModule(obj)
    elif isinstance(obj, type) or not callable(obj):
        return obj
    elif lookup(obj) is not None:
        out = _with_rule(obj)
    elif is_nograd(obj):
        out = _without_gradient(obj)
    elif isinstance(obj, types.FunctionType):
        out = _LazyFunction(obj)
    else:
        out = _refused(obj)
    _LIFTED[key] = (obj, out)
    return out


class _LazyFunction:
    """A Python helper, lifted when first called (helpers refer to each other)."""

    def __init__(self, func):
        self._func = func
        self._lifted = None

    def __call__(self, *args, **kwargs):
        if self._lifted is None:
            self._lifted = lifted(self._func)
        return self._lifted(*args, **kwargs)


def lifted(func):
    """A copy of the Python function ``func`` whose globals are lifted (cached)."""
    cached = getattr(func, "_srcgrad_lifted", None)
    if cached is not None:
        return cached
    glb = {k: (v if k.startswith("__") else _lift(v)) for k, v in func.__globals__.items()}
    if "array_ns" in glb and "np" in glb:
        # rule functions and kernels choose their namespace from their operands
        # (``np = array_ns(x)``): on tensors that is the lifted NumPy
        lifted_np = glb["np"]
        glb["array_ns"] = lambda *xs: lifted_np
    out = types.FunctionType(func.__code__, glb, func.__name__, func.__defaults__,
                             func.__closure__)
    out.__kwdefaults__ = func.__kwdefaults__
    try:
        func._srcgrad_lifted = out
    except AttributeError:
        pass
    return out


def _input_tensor(edge, array):
    """The tensor whose gradient flows along ``edge``: the leaf itself, or a tensor of
    the saved array whose grad_fn is the input's node (as PyTorch unpacks a saved
    variable)."""
    node, _ = edge
    if node is None:                 # a constant operand (a Python number stays one)
        return Tensor._make(array) if isinstance(array, np.ndarray) else array
    if type(node) is AccumulateGrad:
        return node.variable
    main = getattr(node, "_main", None)
    if main is not None:             # output k of a node with several: enters at its port
        t = Tensor._make(array, True, main)
        t.__dict__["_port"] = node
        return t
    if node._n_outputs != 1:
        raise NotLiftable("an output of a node with several outputs")
    return Tensor._make(array, True, node)


def run_recorded(node, g):
    """Run ``node``'s rule with tensors for its gradient, output and inputs, grad mode
    on: the gradients it returns have a graph.  None when the template cannot run on
    tensors (the caller then computes on arrays)."""
    fn = lifted(getattr(node._vjp, "plain", node._vjp))   # (the rule's own, not summed_to)
    args = list(node._args)
    keys = list(node._kwargs)
    values = args + [node._kwargs[k] for k in keys]
    values = list(values)
    diff, layout = node._diff, node._layout
    try:
        for k, edge in enumerate(node._edges):
            i, j = layout[k] if layout is not None else (k, None)
            pos = diff[i]
            if pos is None:
                continue
            if j is None:
                values[pos] = _input_tensor(edge, values[pos])
            else:
                items = list(values[pos])
                items[j] = _input_tensor(edge, items[j])
                values[pos] = type(values[pos])(items)
        for pos in diff:           # operands without an edge: constant tensors
            if pos is not None and isinstance(values[pos], np.ndarray):
                values[pos] = Tensor._make(values[pos])
        ans = Tensor._make(node._ans, True, node)
        if node._fw is not None:   # forward-over-reverse: the operands' tangents
            tangents, result = node._fw
            for pos, tan in tangents.items():
                if tan is NotImplemented or not isinstance(values[pos], Tensor):
                    raise NotLiftable("a tangent on a list operand")
                values[pos] = _forward.with_tangent(values[pos], tan)
            if result is not None:
                _forward._attach(ans, result)
        n = len(args)
        fused = _FUSED_BACKWARD.get(type(node).__name__)
        if fused is not None and node._fw is None and sum(map(bool, node._needs)) == 1:
            return _fused(fused, fn, g, ans, values, n, keys, node._needs)
        grads = fn(g, ans, *values[:n], needs=node._needs, **dict(zip(keys, values[n:])))
    except Exception:         # noqa: BLE001 - NotLiftable, or a template needing arrays:
        return None           # the caller reruns it on arrays (a real error shows there)
    return [_constant(gi) if not isinstance(gi, (Tensor, type(None))) else gi for gi in grads]


# operations whose backward PyTorch computes with one function of its own (tanh_backward,
# softmax_backward_data...): recorded with create_graph, that backward is one node named
# after it.  The rule's template still computes it (composite: its operations record a
# private graph, which gives the node's own backward), so no derivative is written here.
_FUSED_BACKWARD = {
    "TanhBackward0": "TanhBackwardBackward0", "SigmoidBackward0": "SigmoidBackwardBackward0",
    "SoftmaxBackward0": "SoftmaxBackwardDataBackward0",
    "LogSoftmaxBackward0": "LogSoftmaxBackwardDataBackward0",
    "GeluBackward0": "GeluBackwardBackward0", "LeakyReluBackward0": "LeakyReluBackwardBackward0",
    "SoftplusBackward0": "SoftplusBackwardBackward0", "EluBackward0": "EluBackwardBackward0",
    "HardtanhBackward0": "HardtanhBackwardBackward0",
    "LogSigmoidBackward0": "LogSigmoidBackwardBackward0",
    "MseLossBackward0": "MseLossBackwardBackward0", "NllLossBackward0": "NllLossBackwardBackward0",
    "HuberLossBackward0": "HuberLossBackwardBackward0",
    "SmoothL1LossBackward0": "SmoothL1LossBackwardBackward0",
    "BinaryCrossEntropyBackward0": "BinaryCrossEntropyBackwardBackward0",
}


def _fused(name, fn, g, ans, values, n, keys, needs):
    """The one needed gradient of a rule, as one node ``name`` (:data:`_FUSED_BACKWARD`):
    its inputs are the gradient, the result and the tensor operands the template reads."""
    from .composite import composite
    slots = [i for i, v in enumerate(values) if isinstance(v, Tensor)]
    which = [i for i, need in enumerate(needs) if need][0]

    def composed(g, ans, *tensors):
        vals = list(values)
        for i, t in zip(slots, tensors):
            vals[i] = t
        grads = fn(g, ans, *vals[:n], needs=needs, **dict(zip(keys, vals[n:])))
        out = grads[which]
        if not isinstance(out, Tensor):
            raise NotLiftable("a gradient computed on arrays")
        return out
    g = g if isinstance(g, Tensor) else Tensor._make(np.asarray(g))
    out = composite(name, composed, [g, ans] + [values[i] for i in slots])
    return [out if i == which else None for i in range(len(needs))]


_nodes.RECORDED[:] = [run_recorded]     # RuleNode.apply_graph runs rules on tensors with it
_forward.LIFTED[:] = [lifted]           # recorded tangents run forward templates with it
