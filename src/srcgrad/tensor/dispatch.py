"""``apply``: run a primitive of the rule table on tensors' arrays, and record its node.

Every differentiable Tensor method is one call of :func:`apply`: it names the
NumPy primitive that computes it and the ``grad_fn`` name PyTorch gives it.
``apply`` runs the primitive on the arrays and, when a gradient is needed,
records a node (:mod:`.autograd`) that will call the primitive's derivative rule
from the rule table.  So each operation says its forward and (by naming its
rule) its backward side by side.
"""
import builtins
import inspect
import numbers
import weakref

import numpy as np

from .. import runtime
from ..errors import NonDifferentiableError
from ..rules import lookup
from . import dtypes, grad_mode
from .autograd.nodes import InputMeta, _node_class, vjp_function
from .autograd.reads import rule_reads
from .autograd import forward_ad as _forward
from .autograd.saved import HOOKS as _SAVED_HOOKS, pack_saved
from .core import InferenceCounter, Tensor, _wrap_dim
from .device import CPU

__all__ = ["apply"]

_bool, _int, _float = builtins.bool, builtins.int, builtins.float

# grad_fn names that PyTorch gives a (None, 0) edge for a Python-scalar operand
_SCALAR_EDGES = {"AddBackward0", "SubBackward0", "MulBackward0", "DivBackward0"}


def _unwrap(v):
    if isinstance(v, Tensor):
        return v._data
    if isinstance(v, (list, tuple)) and v and any(isinstance(i, Tensor) for i in v):
        return type(v)(_unwrap(i) for i in v)
    if isinstance(v, np.generic):
        return v.item()
    return v


def _tensors_in(values):
    for v in values:
        if isinstance(v, Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            for i in v:
                if isinstance(i, Tensor):
                    yield i


def _check_devices(tensors):
    for t in tensors:
        if type(t._data) is not np.ndarray:
            break
    else:
        return CPU                  # the common case: every array is a NumPy array
    first = None
    for t in tensors:
        d = t.device
        if first is None:
            first = d
        elif d != first:
            raise RuntimeError("Expected all tensors to be on the same device, but found at "
                               f"least two devices, {first} and {d}!")
    return first or CPU


def _bind(rule, args, kwargs):
    """The call's arguments by the rule's parameter names (the general, slower way)."""
    params = list(rule.signature.parameters.values())
    if any(p.kind is p.VAR_POSITIONAL for p in params[:len(args) + 1]):
        return rule.bind(args, kwargs)
    bound = dict(zip([p.name for p in params[:len(args)]], args))
    bound.update(kwargs)
    return bound


_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


class _Plan:
    """How to record calls of one shape, worked out once and cached in ``_PLANS``.

    A call shape is (primitive, node name, number of positional arguments,
    keyword names).  ``names`` are the rule's parameter names of the call's values
    (``args`` then the ``kwargs`` values), so recording needs no signature
    binding per call: ``diff`` gives the index among the values of each
    differentiable parameter (None when the call leaves it out), and
    ``checks(needs)`` the indices of the values whose version the node checks.

    When the positional arguments cannot be passed on to the rule positionally
    (a ``*args`` parameter, a keyword-only one, more arguments than parameters),
    ``names`` is None and each call binds by name with ``_bind``.
    """

    __slots__ = ("rule", "vjp", "node_cls", "scalar_edges", "names", "diff", "_checks")

    def __init__(self, rule, name, nargs, kwnames):
        self.rule = rule
        self.vjp = vjp_function(rule)
        self.node_cls = _node_class(name or rule.torch_name or f"{rule.name}Backward")
        self.scalar_edges = name in _SCALAR_EDGES
        params = list(rule.signature.parameters.values())
        positional = nargs <= len(params) and \
            builtins.all(p.kind in _POSITIONAL for p in params[:nargs]) and \
            not builtins.any(p.kind is p.VAR_POSITIONAL for p in params[:nargs + 1])
        self.names = self.diff = None
        if positional:
            self.names = [p.name for p in params[:nargs]] + list(kwnames)
            self.diff = _diff_positions(rule, self.names)
        self._checks = {}

    def checks(self, needs):
        out = self._checks.get(needs)
        if out is None:
            out = self._checks[needs] = _version_checks(self.rule, needs, self.names)
        return out


def _diff_positions(rule, names):
    return tuple(names.index(p) if p in names else None for p in rule.diff_params)


def _version_checks(rule, needs, names):
    """(indices of the values whose version a node checks, whether it checks ``ans``):
    the values the rule reads, not only the shape of, for the inputs that need a gradient."""
    reads = rule_reads(rule, needs)
    return tuple(i for i, n in enumerate(names) if n in reads), "ans" in reads


_PLANS = {}


def apply(func, args, kwargs=None, *, name=None, promote=False, floating=False, view=False,
          forward=None):
    """Run ``func`` on the tensors' arrays and record it for backward when needed.

    ``func`` is a primitive of the rule table (``np.multiply``); ``name`` the
    PyTorch name of its node.  ``promote``: cast tensor operands to PyTorch's
    promoted dtype first (elementwise binary operations); ``floating``: compute
    integer inputs in the default float dtype (``exp`` of an int tensor);
    ``view``: the result shares the input's memory and version counter when
    NumPy returned a view.  ``forward``: compute the value with this function
    instead of ``func`` (same value; ``func`` still names the rule), as a move
    between devices does with ``np.copy``'s rule.
    """
    tensors = []
    for a in args:
        if isinstance(a, Tensor):
            tensors.append(a)
        elif isinstance(a, (list, tuple)):
            tensors.extend(t for t in a if isinstance(t, Tensor))
    if kwargs:
        tensors.extend(_tensors_in(kwargs.values()))
    dev = _check_devices(tensors)
    if promote:
        args = _promoted(args, tensors, floating)
    elif floating:
        args = tuple(a.to(dtypes.get_default_dtype())
                     if isinstance(a, Tensor) and a._data.dtype.kind not in "fc" else a
                     for a in args)
    arrays = tuple([a._data if isinstance(a, Tensor) else _unwrap(a) for a in args])
    kwarrays = {k: _unwrap(v) for k, v in kwargs.items()} if kwargs else _NO_KWARGS
    run = forward or func
    try:
        ans = run(*arrays, **kwarrays)
    except ValueError:
        if promote and len(tensors) > 1:
            _check_broadcast(tensors)       # PyTorch's message for shapes that do not broadcast
        raise
    if type(ans) is not np.ndarray and (not hasattr(ans, "shape") or isinstance(ans, np.generic)):
        ans = np.asarray(ans) if dev.type == "cpu" else runtime.array_ns(*arrays).asarray(ans)
    out = Tensor._make(ans)
    if view and tensors and ans.size and runtime.array_ns(ans).may_share_memory(ans, tensors[0]._data):
        base = tensors[0]
        out._vc = base._vc
        out._base = base._base if base._base is not None else base

    if grad_mode._state.enabled and ans.dtype.kind in "fc":
        for t in tensors:
            if t._requires_grad:
                _record(func, name, args, kwargs, arrays, kwarrays, out)
                break
    if _forward._state.level >= 0 and ans.dtype.kind in "fc":
        _forward.propagate(func, args, kwargs, arrays, kwarrays, out)   # dual tensors
        if out._grad_fn is not None:
            _forward.remember_tangents(out._grad_fn, args, kwargs, out)  # forward-over-reverse
    return out


_INFERENCE_SAVED = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
    "`torch.inference_mode()`.")

_NO_KWARGS = {}       # shared, never changed: the keyword arguments of most calls


def _record(func, name, args, kwargs, arrays, kwarrays, out):
    """Make ``out``'s grad_fn: a node that will run ``func``'s derivative rule on the
    call's arrays (``arrays``, ``kwarrays``: the values ``func`` ran on)."""
    rule = lookup(func)
    if rule is None:
        raise NonDifferentiableError(
            f"srcgrad: no derivative rule for {getattr(func, '__name__', func)!r} "
            f"(needed by {name or 'a tensor operation'}); register one in srcgrad.rules")
    key = (id(rule), name, len(args), tuple(kwargs) if kwargs else ())
    plan = _PLANS.get(key)
    if plan is None:                  # (the plan holds the rule, so its id stays unique)
        plan = _PLANS[key] = _Plan(rule, name, len(args), key[3])
    if plan.names is not None:         # the usual case: values in the order of the call
        names, diff = plan.names, plan.diff
        values = (*args, *kwargs.values()) if kwargs else args
    else:                              # bind by name, and pass on by name
        bound = _bind(plan.rule, args, kwargs or {})
        names, values = list(bound), tuple(bound.values())
        diff = _diff_positions(plan.rule, names)
        arrays, kwarrays = _by_kind(plan.rule, bound)

    needs, edges, layout = [], [], []
    simple = True                      # whether entry i of the rule's result goes to edge i
    for i, pos in enumerate(diff):
        v = values[pos] if pos is not None else None
        if isinstance(v, Tensor):
            needs.append(v._requires_grad)
            edges.append(_edge(v))
            layout.append((i, None))
        elif isinstance(v, (list, tuple)) and builtins.any(isinstance(e, Tensor) for e in v):
            needs.append(builtins.any(isinstance(e, Tensor) and e._requires_grad for e in v))
            for j, e in enumerate(v):
                edges.append(_edge(e) if isinstance(e, Tensor) else (None, None))
                layout.append((i, j))
            simple = False
        else:
            needs.append(False)
            if plan.scalar_edges and isinstance(v, numbers.Number):
                edges.append((None, None))
                layout.append((i, None))
            else:
                simple = False
    needs = tuple(needs)
    if True not in needs:       # only non-differentiable arguments need a gradient (a kernel
        return                  # reading the shape of one, in a recorded backward)

    slots, reads_ans = plan.checks(needs) if plan.names is not None \
        else _version_checks(plan.rule, needs, names)
    saved = []
    scalar_saved = False     # PyTorch saves a Python-number operand (w * 3) as a tensor too
    for i in slots:
        v = values[i]
        if isinstance(v, numbers.Number) and names[i] in plan.rule.diff_params:
            scalar_saved = True
        for t in ((v,) if isinstance(v, Tensor) else v if isinstance(v, (list, tuple)) else ()):
            if isinstance(t, Tensor):
                if type(t._vc) is InferenceCounter:
                    raise RuntimeError(_INFERENCE_SAVED)
                saved.append((t, t._vc, t._vc.value))
    if reads_ans:
        saved.append((weakref.ref(out), out._vc, out._vc.value))
    node = out._grad_fn = plan.node_cls(plan.vjp, arrays, kwarrays, out._data, needs,
                                        tuple(edges), None if simple else tuple(layout),
                                        tuple(saved))
    # (a *args parameter passed item by item: positions among the values no longer match
    # the vjp's arguments, so the backward is not recorded; see RuleNode.apply_graph)
    node._diff = diff if plan.names is not None or not arrays else None
    node._slots = slots
    if scalar_saved:
        node._has_saved = True
    out._requires_grad = True
    if _SAVED_HOOKS:
        pack_saved(node, out)


def _by_kind(rule, bound):
    """The bound arguments as the rule's vjp takes them: a ``*args`` parameter's values
    (``np.einsum``'s operands) and those before it positionally, the rest by name."""
    params = rule.signature.parameters
    if not builtins.any(params[k].kind is inspect.Parameter.VAR_POSITIONAL
                        for k in bound if k in params):
        return (), {k: _unwrap(v) for k, v in bound.items()}
    args, kwargs, positional = [], {}, True
    for k, v in bound.items():
        kind = params[k].kind if k in params else None
        if positional and kind is inspect.Parameter.VAR_POSITIONAL:
            args.extend(_unwrap(i) for i in v)
            positional = False
        elif positional and kind in _POSITIONAL:
            args.append(_unwrap(v))
        else:
            kwargs[k] = _unwrap(v)
    return tuple(args), kwargs


def _promoted(args, tensors, floating):
    """``args`` with tensor operands cast to PyTorch's promoted dtype."""
    if tensors and _same_dtype(args, tensors, floating):
        return args
    target = dtypes.result_type(*[a for a in args if isinstance(a, (Tensor, numbers.Number))])
    if floating and dtypes.category(target) < 2:
        target = dtypes.get_default_dtype()
    return tuple(a.to(target) if isinstance(a, Tensor) and a.dtype is not target else a
                 for a in args)


def _same_dtype(args, tensors, floating):
    """The common case, decided without the promotion lattice: tensors of one dtype with
    Python scalars that do not change it."""
    first = tensors[0]._data.dtype
    kind = first.kind
    if floating and kind not in "fc":
        return False
    for t in tensors:           # plain loops: this runs for every arithmetic operation
        if t._data.dtype != first:
            return False
    for a in args:
        if not (isinstance(a, Tensor) or isinstance(a, _bool) or isinstance(a, _int)
                and kind != "b" or isinstance(a, _float) and kind in "fc"):
            return False
    return True


def _check_broadcast(tensors):
    """PyTorch's message for operands whose shapes do not broadcast."""
    shapes = [t._data.shape for t in tensors]
    if all(sh == shapes[0] for sh in shapes):
        return
    out = shapes[0]
    for other in shapes[1:]:
        n = builtins.max(len(out), len(other))
        a = (1,) * (n - len(out)) + tuple(out)
        b = (1,) * (n - len(other)) + tuple(other)
        for i in range(n - 1, -1, -1):
            if a[i] != b[i] and a[i] != 1 and b[i] != 1:
                raise RuntimeError(f"The size of tensor a ({a[i]}) must match the size of "
                                   f"tensor b ({b[i]}) at non-singleton dimension {i}")
        out = tuple(builtins.max(x, y) if 1 in (x, y) else x for x, y in zip(a, b))


def _edge(t):
    if t._requires_grad:
        return (t._grad_node(), InputMeta(t._data))
    return (None, None)


def _rule_for(*candidates):
    """The first of ``candidates`` (primitives) that has a rule, else the first one."""
    for f in candidates:
        if f is not None and lookup(f) is not None:
            return f
    return candidates[0]


def _dims(dim, ndim):
    if dim is None:
        return None
    if isinstance(dim, (list, tuple)):
        return tuple(_wrap_dim(d, ndim) for d in dim)
    return _wrap_dim(dim, ndim)


def _as_tensor_like(v, ref):
    if isinstance(v, Tensor):
        return v
    xp = runtime.array_ns(ref._data)
    return Tensor._make(xp.asarray(v))

