"""``Tensor``: an array plus PyTorch's autograd bookkeeping.

Every differentiable method is one line: it names the NumPy primitive that
computes it and the ``grad_fn`` name PyTorch gives it, and hands both to
:func:`apply`.  ``apply`` runs the primitive on the arrays and, when a gradient
is needed, records a node that will call the primitive's derivative rule from
the rule table.  So, reading down this file, each operation says its forward
and (by naming its rule) its backward side by side.

In-place operations (``add_``, ``x[i] = v``, ``+=``...) compute the new value
out of place, write it into the tensor's array, bump the version counter and,
when recording, make the new node the tensor's ``grad_fn``.
"""
import builtins
import inspect
import numbers
import operator
import weakref

import numpy as np

from .. import runtime
from ..errors import NonDifferentiableError
from ..rules import lookup
from . import dtypes, grad_mode, printing
from . import autograd
from .autograd import (AccumulateGrad, InputMeta, VersionCounter, _node_class,
                       _warn_nonleaf_grad, rule_reads, vjp_function, backward as _backward)
from .device import CPU, device_of, move, to_device

__all__ = ["Tensor", "Size", "apply", "is_tensor"]

_bool, _int, _float = builtins.bool, builtins.int, builtins.float


class Size(tuple):
    """``torch.Size``: a tuple of ints that prints as ``torch.Size([2, 3])``."""

    def __repr__(self):
        return f"torch.Size([{', '.join(str(n) for n in self)}])"

    __str__ = __repr__

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, i):
        r = tuple.__getitem__(self, i)
        return Size(r) if isinstance(i, slice) else r


# -- the dispatcher -------------------------------------------------------------------------

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
    return out


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
        arrays, kwarrays = (), {k: _unwrap(v) for k, v in bound.items()}

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

    slots, reads_ans = plan.checks(needs) if plan.names is not None \
        else _version_checks(plan.rule, needs, names)
    saved = []
    for i in slots:
        v = values[i]
        for t in ((v,) if isinstance(v, Tensor) else v if isinstance(v, (list, tuple)) else ()):
            if isinstance(t, Tensor):
                saved.append((t, t._vc, t._vc.value))
    if reads_ans:
        saved.append((weakref.ref(out), out._vc, out._vc.value))
    out._grad_fn = plan.node_cls(plan.vjp, arrays, kwarrays, out._data, needs, tuple(edges),
                                 None if simple else tuple(layout), tuple(saved))
    out._requires_grad = True


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


def _wrap_dim(d, ndim):
    n = builtins.max(ndim, 1)
    if not -n <= d < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {d})")
    return d % n if ndim else 0


def _size_args(size):
    """``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])`` and ``f(torch.Size(...))`` alike."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    return tuple(_int(s) for s in size)


class _ReturnType(tuple):
    """``torch.return_types.max``: ``(values, indices)`` with names."""

    _name = "max"

    def __new__(cls, values, indices, name):
        self = super().__new__(cls, (values, indices))
        self._name = name
        return self

    @property
    def values(self):
        return self[0]

    @property
    def indices(self):
        return self[1]

    def __repr__(self):
        return f"torch.return_types.{self._name}(\nvalues={self[0]!r},\nindices={self[1]!r})"


# -- the Tensor -----------------------------------------------------------------------------

class Tensor:
    """A multi-dimensional array that records operations for reverse-mode AD."""

    __slots__ = ("_data", "_requires_grad", "_grad_fn", "_grad", "_vc", "_base", "_acc",
                 "_retains_grad", "_hooks", "_view_index", "__weakref__", "__dict__")
    __array_priority__ = 1000      # ndarray (op) Tensor defers to Tensor's reflected operators

    def __init__(self, *args, **kwargs):
        # torch.Tensor(data) / torch.Tensor(2, 3): a float tensor (the default dtype)
        if len(args) == 1 and not isinstance(args[0], numbers.Integral):
            from .factories import tensor
            t = tensor(args[0], dtype=dtypes.get_default_dtype())
            data = t._data
        else:
            data = np.zeros(_size_args(args), dtype=dtypes.get_default_dtype().numpy)
        Tensor._init(self, data)

    def _init(self, data, requires_grad=False, grad_fn=None):
        self._data = data
        self._requires_grad = requires_grad
        self._grad_fn = grad_fn
        self._grad = None
        self._vc = VersionCounter()
        self._base = None
        self._acc = None
        self._retains_grad = False
        self._hooks = None
        self._view_index = None

    @classmethod
    def _make(cls, data, requires_grad=False, grad_fn=None):
        """A tensor of the array ``data`` (no copy): how every operation makes its result."""
        self = object.__new__(cls)
        self._data = data
        self._requires_grad = requires_grad
        self._grad_fn = grad_fn
        self._grad = None
        self._vc = VersionCounter()
        self._base = None
        self._acc = None
        self._retains_grad = False
        self._hooks = None
        self._view_index = None
        return self

    # -- autograd attributes --------------------------------------------------------------
    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        self._set_requires_grad(flag, "only Tensors of floating point and complex dtype can "
                                      "require gradients")

    def requires_grad_(self, requires_grad=True):
        self._set_requires_grad(requires_grad, "only Tensors of floating point dtype can "
                                               "require gradients")
        return self

    def _set_requires_grad(self, flag, int_message):
        if self._grad_fn is not None and not flag:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach().")
        if flag and not (self.is_floating_point() or self.is_complex()):
            raise RuntimeError(int_message)
        if self._grad_fn is None:
            self._requires_grad = _bool(flag)

    @property
    def grad_fn(self):
        return self._grad_fn

    @property
    def is_leaf(self):
        return self._grad_fn is None

    @property
    def grad(self):
        if self._grad_fn is not None and not self._retains_grad:
            _warn_nonleaf_grad()
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None and not isinstance(value, Tensor):
            raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of "
                            f"{type(value).__name__}")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def _version(self):
        return self._vc.value

    def _grad_node(self):
        """The node gradients of this tensor flow into: its grad_fn, or its AccumulateGrad."""
        if self._grad_fn is not None:
            return self._grad_fn
        acc = self._acc() if self._acc is not None else None
        if acc is None:
            acc = AccumulateGrad(self)
            self._acc = weakref.ref(acc)
        return acc

    def retain_grad(self):
        if self._grad_fn is None:
            if not self._requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return
        if not self._retains_grad:
            self._retains_grad = True
            self._grad_fn._retain(self)

    @property
    def retains_grad(self):
        return self._retains_grad

    def register_hook(self, hook):
        """Call ``hook(grad)`` when this tensor's gradient is computed; it may return a
        replacement.  Returns a handle with ``remove()``."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        hooks = self._grad_fn._hook_list() if self._grad_fn is not None else None
        if hooks is None:
            if self._hooks is None:
                self._hooks = []
            hooks = self._hooks
        hooks.append(hook)
        return _HookHandle(hooks, hook)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate d(self)/d(leaf) into every leaf's ``.grad``."""
        _backward(self, gradient, retain_graph, create_graph, inputs)

    def detach(self):
        """The same data and version counter, cut from the graph."""
        out = Tensor._make(self._data)
        out._vc = self._vc          # a non-differentiable view: no _base
        return out

    def detach_(self):
        if self._base is not None and self._grad_fn is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self._grad_fn = None
        self._requires_grad = False
        return self

    @property
    def data(self):
        """The same data, detached, with a version counter of its own (not checked)."""
        return Tensor._make(self._data)

    @data.setter
    def data(self, value):
        self._data = value._data

    # -- array attributes -------------------------------------------------------------------
    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_wrap_dim(dim, self.ndim)]

    @property
    def dtype(self):
        return dtypes.from_numpy_dtype(self._data.dtype)

    @property
    def device(self):
        return device_of(self._data)

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    @property
    def ndim(self):
        return self._data.ndim

    def dim(self):
        return self._data.ndim

    ndimension = dim

    def numel(self):
        return _int(self._data.size)

    nelement = numel

    def element_size(self):
        return self._data.itemsize

    def stride(self, dim=None):
        s = tuple(st // self._data.itemsize for st in self._data.strides)
        return s if dim is None else s[dim]

    def is_contiguous(self, memory_format=None):
        return _bool(self._data.flags.c_contiguous)

    def is_floating_point(self):
        return self._data.dtype.kind == "f"

    def is_complex(self):
        return self._data.dtype.kind == "c"

    def type(self, dtype=None):
        if dtype is None:
            prefix = "torch.cuda." if self.is_cuda else "torch."
            return prefix + self.dtype.legacy
        return self.to(dtype)

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    # -- conversions ------------------------------------------------------------------------
    def item(self):
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted "
                               "to Scalar")
        return self._data.reshape(()).item()

    def tolist(self):
        a = self._data if self.device.type == "cpu" else self._data.get()
        return a.tolist()

    def numpy(self, force=False):
        if self._requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        if self.device.type != "cpu":
            if force:
                return self._data.get()
            raise TypeError(f"can't convert {self.device} device type tensor to numpy. Use "
                            "Tensor.cpu() to copy the tensor to host memory first.")
        return self._data

    def __array__(self, dtype=None, copy=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype, copy=False)

    def __float__(self):
        return _float(self._item_for("float"))

    def __int__(self):
        return _int(self._item_for("int"))

    def __index__(self):
        if self._data.dtype.kind not in "iub":
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return _int(self._item_for("index"))

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return _bool(self._data.reshape(()).item())

    def __complex__(self):
        return complex(self._item_for("complex"))

    def _item_for(self, what):
        if self._data.size != 1:
            raise ValueError(f"only one element tensors can be converted to Python scalars")
        return self._data.reshape(()).item()

    def __format__(self, spec):
        if self.ndim == 0 and spec:
            return format(self.item(), spec)
        return format(repr(self), spec)

    def __repr__(self):
        return printing.tensor_repr(self)

    __str__ = __repr__

    def __hash__(self):
        return id(self)

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        for i in range(self._data.shape[0]):
            yield self._select(i, "UnbindBackward0")

    def __contains__(self, value):
        return _bool((self == value).any())

    def __reduce_ex__(self, proto):
        return (_rebuild, (self.detach().cpu().numpy() if not self._requires_grad else
                           self._data, self._requires_grad))

    def __deepcopy__(self, memo):
        if self._grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment.  If you were "
                               "attempting to deepcopy a module, this may be because of a "
                               "torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        out = Tensor._make(self._data.copy(), self._requires_grad)
        if self._grad is not None:
            out._grad = Tensor._make(self._grad._data.copy())
        memo[id(self)] = out
        return out

    # -- devices and dtypes -----------------------------------------------------------------
    def to(self, *args, **kwargs):
        """``to(dtype)``, ``to(device)``, ``to(device, dtype)``, ``to(other_tensor)``."""
        dev, dt = kwargs.get("device"), kwargs.get("dtype")
        copy = kwargs.get("copy", False)
        for a in args:
            if isinstance(a, Tensor):
                dev, dt = a.device, a.dtype
            elif isinstance(a, dtypes.dtype) or (isinstance(a, type) and a in (_float, _int, _bool)):
                dt = dtypes.to_dtype(a)
            elif a is not None:
                dev = a
        out = self
        if dt is not None:
            dt = dtypes.to_dtype(dt)
            if dt is not out.dtype or copy:
                out = apply(np.ndarray.astype, (out, dt.numpy), name="ToCopyBackward0",
                            forward=_astype)
        if dev is not None:
            dev = to_device(dev)
            if dev != out.device:
                out = _to_device(out, dev)
        return out

    def cpu(self):
        return self.to("cpu")

    def cuda(self, device=None, non_blocking=False):
        return self.to(device if device is not None else "cuda")

    def float(self):
        return self.to(dtypes.float32)

    def double(self):
        return self.to(dtypes.float64)

    def half(self):
        return self.to(dtypes.float16)

    def long(self):
        return self.to(dtypes.int64)

    def int(self):
        return self.to(dtypes.int32)

    def bool(self):
        return self.to(dtypes.bool)

    def type_as(self, other):
        return self.to(other.dtype)

    # -- arithmetic (elementwise, with PyTorch's type promotion) ----------------------------
    def _binary(self, func, other, name, reflected=False):
        args = (other, self) if reflected else (self, other)
        return apply(func, args, name=name, promote=True)

    def __add__(self, other):
        return self._binary(np.add, other, "AddBackward0")

    def __radd__(self, other):
        return self._binary(np.add, other, "AddBackward0")

    def __sub__(self, other):
        return self._binary(np.subtract, other, "SubBackward0")

    def __rsub__(self, other):
        name = "RsubBackward0" if isinstance(other, Tensor) else "RsubBackward1"
        return self._binary(np.subtract, other, name, reflected=True)

    def __mul__(self, other):
        return self._binary(np.multiply, other, "MulBackward0")

    def __rmul__(self, other):
        return self._binary(np.multiply, other, "MulBackward0")

    def __truediv__(self, other):
        return apply(np.true_divide, (self, other), name="DivBackward0", promote=True,
                     floating=True)

    def __rtruediv__(self, other):
        return self.reciprocal() * other

    def __floordiv__(self, other):
        return apply(np.floor_divide, (self, other), name="FloorDivideBackward0", promote=True)

    def __rfloordiv__(self, other):
        return apply(np.floor_divide, (other, self), name="FloorDivideBackward0", promote=True)

    def __mod__(self, other):
        return apply(np.remainder, (self, other), name="RemainderBackward0", promote=True)

    def __rmod__(self, other):
        return apply(np.remainder, (other, self), name="RemainderBackward1", promote=True)

    def __pow__(self, other):
        name = "PowBackward1" if isinstance(other, Tensor) else "PowBackward0"
        return apply(np.power, (self, other), name=name, promote=True)

    def __rpow__(self, other):
        return apply(np.power, (other, self), name="PowBackward2", promote=True)

    def __matmul__(self, other):
        return self.matmul(other)

    def __rmatmul__(self, other):
        return _as_tensor_like(other, self).matmul(self)

    def __neg__(self):
        if self._data.dtype.kind == "b":
            raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. "
                               "If you are trying to invert a mask, use the `~` or "
                               "`logical_not()` operator instead.")
        return apply(np.negative, (self,), name="NegBackward0")

    def __pos__(self):
        return self

    def __abs__(self):
        return self.abs()

    def __invert__(self):
        return apply(np.invert, (self,))

    def __and__(self, other):
        return apply(np.bitwise_and, (self, other), promote=True)

    def __or__(self, other):
        return apply(np.bitwise_or, (self, other), promote=True)

    def __xor__(self, other):
        return apply(np.bitwise_xor, (self, other), promote=True)

    __rand__, __ror__, __rxor__ = __and__, __or__, __xor__

    def _compare(self, func, other):
        return apply(func, (self, other), promote=True)

    def __eq__(self, other):
        if not isinstance(other, (Tensor, numbers.Number, np.ndarray)):
            return False
        return self._compare(np.equal, other)

    def __ne__(self, other):
        if not isinstance(other, (Tensor, numbers.Number, np.ndarray)):
            return True
        return self._compare(np.not_equal, other)

    def __lt__(self, other):
        return self._compare(np.less, other)

    def __le__(self, other):
        return self._compare(np.less_equal, other)

    def __gt__(self, other):
        return self._compare(np.greater, other)

    def __ge__(self, other):
        return self._compare(np.greater_equal, other)

    eq, ne, lt, le, gt, ge = __eq__, __ne__, __lt__, __le__, __gt__, __ge__
    greater, less, greater_equal, less_equal, not_equal = __gt__, __lt__, __ge__, __le__, __ne__

    def add(self, other, alpha=1):
        return self + (other * alpha if alpha != 1 else other)

    def sub(self, other, alpha=1):
        return self - (other * alpha if alpha != 1 else other)

    subtract = sub

    def mul(self, other):
        return self * other

    multiply = mul

    def div(self, other, rounding_mode=None):
        if rounding_mode == "floor":
            return self // other
        if rounding_mode == "trunc":
            return (self / other).trunc()
        return self / other

    divide = true_divide = div

    def pow(self, exponent):
        return self ** exponent

    def remainder(self, other):
        return self % other

    def floor_divide(self, other):
        return self // other

    def rsub(self, other):
        return other - self

    def maximum(self, other):
        return apply(np.maximum, (self, other), name="MaximumBackward0", promote=True)

    def minimum(self, other):
        return apply(np.minimum, (self, other), name="MinimumBackward0", promote=True)

    def logical_not(self):
        return apply(np.logical_not, (self,))

    def logical_and(self, other):
        return apply(np.logical_and, (self, other))

    def logical_or(self, other):
        return apply(np.logical_or, (self, other))

    def isnan(self):
        return apply(np.isnan, (self,))

    def isinf(self):
        return apply(np.isinf, (self,))

    def isfinite(self):
        return apply(np.isfinite, (self,))

    # -- unary math -------------------------------------------------------------------------
    def _unary(self, func, name):
        return apply(func, (self,), name=name, floating=True)

    def square(self):
        return apply(np.power, (self, 2), name="PowBackward0", promote=True)

    def rsqrt(self):
        return apply(np.power, (self, -0.5), name="RsqrtBackward0", promote=True, floating=True)

    def relu(self):
        zero = 0.0 if self._data.dtype.kind in "fc" else 0
        return apply(np.where, (self > 0, self, zero), name="ReluBackward0")

    def sigmoid(self):
        f = _rule_for(getattr(runtime, "sigmoid", None), getattr(runtime, "expit", None))
        if f is not None and lookup(f) is not None:
            return apply(f, (self,), name="SigmoidBackward0", floating=True)
        # no sigmoid rule yet: 1 / (1 + exp(-x)), the last node named as PyTorch's
        return apply(np.reciprocal, ((-self).exp() + 1,), name="SigmoidBackward0",
                     floating=True)

    def clamp(self, min=None, max=None):
        if isinstance(min, Tensor) or isinstance(max, Tensor):
            out = self
            if min is not None:
                out = out.maximum(min)
            if max is not None:
                out = out.minimum(max)
            return out
        if min is None and max is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        return apply(np.clip, (self, min, max), name="ClampBackward1")

    clip = clamp

    def clamp_min(self, min):
        return self.clamp(min=min)

    def clamp_max(self, max):
        return self.clamp(max=max)

    def sign(self):
        return apply(np.sign, (self,))

    def floor(self):
        return apply(np.floor, (self,))

    def ceil(self):
        return apply(np.ceil, (self,))

    def round(self, decimals=0):
        return apply(np.round, (self, decimals))

    def trunc(self):
        return apply(np.trunc, (self,))

    # -- reductions -------------------------------------------------------------------------
    def sum(self, dim=None, keepdim=False, dtype=None, axis=None):
        dim = axis if dim is None else dim
        x = self
        if dtype is not None:
            x = x.to(dtypes.to_dtype(dtype))
        elif x._data.dtype.kind in "biu":
            x = x.to(dtypes.int64)
        if dim is None:
            return apply(np.sum, (x,), name="SumBackward0")
        return apply(np.sum, (x,), {"axis": _dims(dim, x.ndim), "keepdims": keepdim},
                     name="SumBackward1")

    def mean(self, dim=None, keepdim=False, dtype=None, axis=None):
        dim = axis if dim is None else dim
        x = self if dtype is None else self.to(dtypes.to_dtype(dtype))
        if not (x.is_floating_point() or x.is_complex()):
            raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either "
                               f"a floating point or complex dtype. Got: {x.dtype.short}")
        if dim is None:
            return apply(np.mean, (x,), name="MeanBackward0")
        return apply(np.mean, (x,), {"axis": _dims(dim, x.ndim), "keepdims": keepdim},
                     name="MeanBackward1")

    def prod(self, dim=None, keepdim=False, dtype=None):
        x = self if dtype is None else self.to(dtypes.to_dtype(dtype))
        if dim is None:
            return apply(np.prod, (x,), name="ProdBackward0")
        return apply(np.prod, (x,), {"axis": _dims(dim, x.ndim), "keepdims": keepdim},
                     name="ProdBackward1")

    def _var(self, func, name, dim, unbiased, keepdim, correction):
        ddof = correction if correction is not None else (1 if unbiased in (None, True) else 0)
        if isinstance(dim, _bool):                 # x.std(False): the old positional unbiased
            dim, ddof = None, _int(dim)
        kw = {"ddof": ddof}
        if dim is not None:
            kw.update(axis=_dims(dim, self.ndim), keepdims=keepdim)
        return apply(func, (self,), kw, name=name, floating=True)

    def var(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        return self._var(np.var, "VarBackward0", dim, unbiased, keepdim, correction)

    def std(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        return self._var(np.std, "StdBackward0", dim, unbiased, keepdim, correction)

    def _extreme(self, func, argfunc, other, dim, keepdim, what):
        if isinstance(other, Tensor):
            return self.maximum(other) if what == "max" else self.minimum(other)
        if other is not None:          # x.max(1): the dim given positionally
            dim = other
        if dim is None:
            if self.numel() == 0:
                raise RuntimeError(f"{what}(): Expected reduction dim to be specified for "
                                   "input.numel() == 0. Specify the reduction dim with the "
                                   "'dim' argument.")
            return apply(func, (self,), name=f"{what.capitalize()}Backward1")
        d = _wrap_dim(dim, self.ndim)
        values = apply(func, (self,), {"axis": d, "keepdims": keepdim},
                       name=f"{what.capitalize()}Backward0")
        indices = Tensor._make(runtime.array_ns(self._data).asarray(
            argfunc(self._data, axis=d, keepdims=keepdim)).astype(np.int64))
        return _ReturnType(values, indices, what)

    def max(self, dim=None, keepdim=False, *, other=None):
        return self._extreme(np.max, np.argmax, dim if isinstance(dim, Tensor) else None,
                             None if isinstance(dim, Tensor) else dim, keepdim, "max")

    def min(self, dim=None, keepdim=False):
        return self._extreme(np.min, np.argmin, dim if isinstance(dim, Tensor) else None,
                             None if isinstance(dim, Tensor) else dim, keepdim, "min")

    def amax(self, dim=(), keepdim=False):
        axis = None if dim in ((), None) else _dims(dim, self.ndim)
        return apply(np.max, (self,), {"axis": axis, "keepdims": keepdim}, name="AmaxBackward0")

    def amin(self, dim=(), keepdim=False):
        axis = None if dim in ((), None) else _dims(dim, self.ndim)
        return apply(np.min, (self,), {"axis": axis, "keepdims": keepdim}, name="AminBackward0")

    def argmax(self, dim=None, keepdim=False):
        return self._argext(np.argmax, dim, keepdim)

    def argmin(self, dim=None, keepdim=False):
        return self._argext(np.argmin, dim, keepdim)

    def _argext(self, func, dim, keepdim):
        axis = None if dim is None else _wrap_dim(dim, self.ndim)
        r = func(self._data, axis=axis, keepdims=keepdim if axis is not None else False)
        return Tensor._make(runtime.array_ns(self._data).asarray(r).astype(np.int64))

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        ord_ = 2 if p in ("fro", None, 2) else p
        x = self if dtype is None else self.to(dtypes.to_dtype(dtype))
        vector_norm = getattr(np.linalg, "vector_norm", None)
        if vector_norm is not None and lookup(vector_norm) is not None:
            kw = {"ord": ord_, "keepdims": keepdim}
            if dim is not None:
                kw["axis"] = _dims(dim, x.ndim)
            return apply(vector_norm, (x,), kw, name="LinalgVectorNormBackward0", floating=True)
        if dim is None:
            x = x.reshape(-1)
            return apply(np.linalg.norm, (x,), {"ord": ord_},
                         name="LinalgVectorNormBackward0", floating=True)
        return apply(np.linalg.norm, (x,), {"ord": ord_, "axis": _dims(dim, x.ndim),
                                            "keepdims": keepdim},
                     name="LinalgVectorNormBackward0", floating=True)

    def cumsum(self, dim, dtype=None):
        x = self if dtype is None else self.to(dtypes.to_dtype(dtype))
        return apply(np.cumsum, (x,), {"axis": _wrap_dim(dim, x.ndim)}, name="CumsumBackward0")

    def cumprod(self, dim, dtype=None):
        x = self if dtype is None else self.to(dtypes.to_dtype(dtype))
        return apply(np.cumprod, (x,), {"axis": _wrap_dim(dim, x.ndim)}, name="CumprodBackward0")

    # softmax, log_softmax, logsumexp: built from primitives with rules (the table has no
    # single rule for them); the last node carries PyTorch's name.
    def logsumexp(self, dim, keepdim=False):
        m = self.detach().amax(dim, keepdim=True)
        m = m.masked_fill(~m.isfinite(), 0)
        total = (self - m).exp().sum(dim, keepdim=True)
        if not keepdim:
            total, m = total.squeeze(dim), m.squeeze(dim)
        return apply(np.add, (total.log(), m), name="LogsumexpBackward0")

    def softmax(self, dim, dtype=None):
        x = self if dtype is None else self.to(dtypes.to_dtype(dtype))
        e = (x - x.detach().amax(dim, keepdim=True)).exp()
        return apply(np.true_divide, (e, e.sum(dim, keepdim=True)), name="SoftmaxBackward0")

    def log_softmax(self, dim, dtype=None):
        x = self if dtype is None else self.to(dtypes.to_dtype(dtype))
        return apply(np.subtract, (x, x.logsumexp(dim, keepdim=True)),
                     name="LogSoftmaxBackward0")

    def all(self, dim=None, keepdim=False):
        kw = {} if dim is None else {"axis": _wrap_dim(dim, self.ndim), "keepdims": keepdim}
        return apply(np.all, (self,), kw)

    def any(self, dim=None, keepdim=False):
        kw = {} if dim is None else {"axis": _wrap_dim(dim, self.ndim), "keepdims": keepdim}
        return apply(np.any, (self,), kw)

    def count_nonzero(self, dim=None):
        return apply(np.count_nonzero, (self,), {} if dim is None else {"axis": dim})

    # -- linear algebra ---------------------------------------------------------------------
    def matmul(self, other):
        other = _as_tensor_like(other, self)
        a, b = self.ndim, other.ndim
        if a == 0 or b == 0:
            raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                               f"{a}D and {b}D")
        if self.dtype is not other.dtype:
            raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                               f"{self.dtype.name.replace('float32', 'float')} != "
                               f"{other.dtype.name.replace('float32', 'float')}")
        ka, kb = self.shape[-1], other.shape[0] if b == 1 else other.shape[-2]
        if ka != kb:
            if a == 1 and b == 1:
                raise RuntimeError(f"inconsistent tensor size, expected tensor [{self.shape[0]}] "
                                   f"and src [{other.shape[0]}] to have the same number of "
                                   "elements, but got "
                                   f"{self.shape[0]} and {other.shape[0]} elements respectively")
            sa = "x".join(map(str, (self.shape if a == 2 else (1, ka) if a == 1 else
                                    (np.prod(self.shape[:-1]), ka))))
            sb = "x".join(map(str, other.shape if b == 2 else (kb, 1) if b == 1 else other.shape[-2:]))
            if a == 2 and b == 1:
                raise RuntimeError(f"size mismatch, got input ({self.shape[0]}), mat "
                                   f"({self.shape[0]}x{ka}), vec ({other.shape[0]})")
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({sa} and {sb})")
        name = {(2, 2): "MmBackward0", (1, 1): "DotBackward0", (2, 1): "MvBackward0",
                (1, 2): "SqueezeBackward4"}.get((a, b), "UnsafeViewBackward0")
        return apply(np.matmul, (self, other), name=name)

    def mm(self, mat2):
        if self.ndim != 2:
            raise RuntimeError("self must be a matrix")
        if mat2.ndim != 2:
            raise RuntimeError("mat2 must be a matrix")
        return self.matmul(mat2)

    def mv(self, vec):
        return self.matmul(vec)

    def dot(self, other):
        if self.ndim != 1 or other.ndim != 1:
            raise RuntimeError(f"1D tensors expected, but got {self.ndim}D and {other.ndim}D "
                               "tensors")
        if self.dtype is not other.dtype:
            raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                               f"{self.dtype.short} and {other.dtype.short}")
        return self.matmul(other)

    def bmm(self, mat2):
        return self.matmul(mat2)

    def outer(self, vec2):
        return self.reshape(-1, 1) * vec2

    ger = outer

    # -- shape ------------------------------------------------------------------------------
    def reshape(self, *shape):
        shape = _size_args(shape)
        _check_reshape(self, shape)
        # PyTorch: a view when the memory layout allows it, else a copy (clone + view)
        name = "ViewBackward0" if _reshape_is_view(self._data, shape) else "UnsafeViewBackward0"
        return apply(np.reshape, (self, shape), name=name, view=True)

    def view(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], dtypes.dtype):
            raise NotImplementedError("srcgrad: view(dtype) is not supported")
        shape = _size_args(shape)
        _check_reshape(self, shape)
        if not _reshape_is_view(self._data, shape):
            raise RuntimeError("view size is not compatible with input tensor's size and stride "
                               "(at least one dimension spans across two contiguous subspaces). "
                               "Use .reshape(...) instead.")
        return apply(np.reshape, (self, shape), name="ViewBackward0", view=True)

    def view_as(self, other):
        return self.view(other.shape)

    def reshape_as(self, other):
        return self.reshape(other.shape)

    def flatten(self, start_dim=0, end_dim=-1):
        if self.ndim == 0:
            return self.reshape(1)
        s, e = _wrap_dim(start_dim, self.ndim), _wrap_dim(end_dim, self.ndim)
        if s > e:
            raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
        if s == e:
            return self
        shape = self.shape[:s] + (-1,) + self.shape[e + 1:]
        return self.reshape(shape)

    def ravel(self):
        return self.reshape(-1)

    def t(self):
        if self.ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                               f"{self.ndim}D")
        return apply(np.transpose, (self,), name="TBackward0", view=True)

    @property
    def T(self):
        if self.ndim != 2:
            import warnings
            warnings.warn("The use of `x.T` on tensors of dimension other than 2 to reverse "
                          "their shape is deprecated and it will throw an error in a future "
                          "release. Consider `x.mT` to transpose batches of matrices or "
                          "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the "
                          "dimensions of a tensor.", UserWarning, stacklevel=2)
        return apply(np.transpose, (self,), name="PermuteBackward0", view=True)

    @property
    def mT(self):
        return self.transpose(-2, -1)

    def transpose(self, dim0, dim1):
        d0, d1 = _wrap_dim(dim0, self.ndim), _wrap_dim(dim1, self.ndim)
        return apply(np.swapaxes, (self, d0, d1), name="TransposeBackward0", view=True)

    swapaxes = swapdims = transpose

    def permute(self, *dims):
        dims = _size_args(dims)
        if len(dims) != self.ndim:
            raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input "
                               f"does not match the length of the desired ordering of "
                               f"dimensions i.e. input.dim() = {self.ndim} is not equal to "
                               f"len(dims) = {len(dims)}")
        dims = tuple(_wrap_dim(d, self.ndim) for d in dims)
        return apply(np.transpose, (self, dims), name="PermuteBackward0", view=True)

    def squeeze(self, dim=None):
        if dim is None:
            axes = tuple(i for i, n in enumerate(self.shape) if n == 1)
            name = "SqueezeBackward0"
        else:
            dims = dim if isinstance(dim, (tuple, list)) else (dim,)
            axes = tuple(d for d in (_wrap_dim(d, self.ndim) for d in dims)
                         if self.ndim and self.shape[d] == 1)
            name = "SqueezeBackward2" if isinstance(dim, (tuple, list)) else "SqueezeBackward1"
        return apply(np.squeeze, (self,), {"axis": axes}, name=name, view=True)

    def unsqueeze(self, dim):
        d = _wrap_dim(dim, self.ndim + 1)
        return apply(np.expand_dims, (self, d), name="UnsqueezeBackward0", view=True)

    def expand(self, *sizes):
        sizes = _size_args(sizes)
        lead = len(sizes) - self.ndim
        if lead < 0:
            raise RuntimeError(f"expand(torch.FloatTensor{{[{', '.join(map(str, self.shape))}]}}, "
                               f"size=[{', '.join(map(str, sizes))}]): the number of sizes provided "
                               f"({len(sizes)}) must be greater or equal to the number of "
                               f"dimensions in the tensor ({self.ndim})")
        shape = tuple(self.shape[i - lead] if s == -1 else s for i, s in enumerate(sizes))
        for i in range(self.ndim):
            have, want = self.shape[i], shape[lead + i]
            if have != want and have != 1:
                raise RuntimeError(
                    f"The expanded size of the tensor ({want}) must match the existing size "
                    f"({have}) at non-singleton dimension {lead + i}.  Target sizes: "
                    f"[{', '.join(map(str, sizes))}].  Tensor sizes: "
                    f"[{', '.join(map(str, self.shape))}]")
        return apply(np.broadcast_to, (self, shape), name="ExpandBackward0", view=True)

    def expand_as(self, other):
        return self.expand(other.shape)

    def repeat(self, *sizes):
        return apply(np.tile, (self, _size_args(sizes)), name="RepeatBackward0")

    def flip(self, *dims):
        dims = tuple(_wrap_dim(d, self.ndim) for d in _size_args(dims))
        return apply(np.flip, (self,), {"axis": dims}, name="FlipBackward0")

    def roll(self, shifts, dims=None):
        return apply(np.roll, (self, shifts), {"axis": dims}, name="RollBackward0")

    def contiguous(self, memory_format=None):
        return self if self.is_contiguous() else self.clone()

    def clone(self, memory_format=None):
        return apply(np.copy, (self,), name="CloneBackward0")

    def chunk(self, chunks, dim=0):
        d = _wrap_dim(dim, self.ndim)
        n = self.shape[d]
        step = -(-n // chunks)
        return self.split(step, d)

    def split(self, split_size, dim=0):
        d = _wrap_dim(dim, self.ndim)
        n = self.shape[d]
        if isinstance(split_size, numbers.Integral):
            sizes = [split_size] * (n // split_size) + ([n % split_size] if n % split_size else [])
        else:
            sizes = list(split_size)
        out, start = [], 0
        for s in sizes:
            index = (slice(None),) * d + (slice(start, start + s),)
            out.append(self._index(index, "SplitBackward0"))
            start += s
        return tuple(out)

    def unbind(self, dim=0):
        d = _wrap_dim(dim, self.ndim)
        return tuple(self._index((slice(None),) * d + (i,), "UnbindBackward0")
                     for i in range(self.shape[d]))

    def masked_fill(self, mask, value):
        return apply(np.where, (mask, value, self), name="MaskedFillBackward0")

    def where(self, condition, other):
        return where(condition, self, other)

    def sort(self, dim=-1, descending=False):
        from .functions import sort
        return sort(self, dim, descending)

    def argsort(self, dim=-1, descending=False):
        from .functions import argsort
        return argsort(self, dim, descending)

    def topk(self, k, dim=-1, largest=True, sorted=True):
        from .functions import topk
        return topk(self, k, dim, largest, sorted)

    def trace(self):
        return apply(np.trace, (self,), name="TraceBackward0")

    def tril(self, diagonal=0):
        return apply(np.tril, (self, diagonal), name="TrilBackward0")

    def triu(self, diagonal=0):
        return apply(np.triu, (self, diagonal), name="TriuBackward0")

    def diagonal(self, offset=0, dim1=0, dim2=1):
        return apply(np.diagonal, (self, offset, dim1, dim2), name="DiagonalBackward0",
                     view=True)

    def index_select(self, dim, index):
        d = _wrap_dim(dim, self.ndim)
        return self._index((slice(None),) * d + (index,), "IndexSelectBackward0")

    # -- indexing ---------------------------------------------------------------------------
    def __getitem__(self, index):
        index = _index_arrays(index)
        parts = index if isinstance(index, tuple) else (index,)
        if not builtins.all(_basic(p) for p in parts):
            return self._index(index, "IndexBackward0")
        # basic indexing: one node per component, as PyTorch (Select, Slice, Unsqueeze)
        n_real = builtins.sum(1 for p in parts if p is not None and p is not Ellipsis)
        if n_real > self.ndim:
            raise IndexError(f"too many indices for tensor of dimension {self.ndim}")
        out, dim, src = self, 0, 0          # dim: in ``out``; src: in ``self``
        for p in parts:
            if p is Ellipsis:
                dim += self.ndim - n_real
                src += self.ndim - n_real
            elif p is None:
                out = out._index((slice(None),) * dim + (None,), "UnsqueezeBackward0")
                dim += 1
            elif isinstance(p, slice):
                if p != slice(None):
                    out = out._index((slice(None),) * dim + (p,), "SliceBackward0")
                dim += 1
                src += 1
            else:
                size = out.shape[dim]
                if not -size <= p < size:
                    raise IndexError(f"index {p} is out of bounds for dimension {src} with "
                                     f"size {size}")
                out = out._index((slice(None),) * dim + (p,), "SelectBackward0")
                src += 1
        if out is self:
            out = self._index((Ellipsis,), "AliasBackward0")
        return out

    def _select(self, i, name):
        return self._index((i,), name)

    def _index(self, index, name):
        index = _index_arrays(index)
        parts = index if isinstance(index, tuple) else (index,)
        if builtins.all(_basic(p) for p in parts) and Ellipsis not in parts:
            index = tuple(parts) + (Ellipsis,)   # a 0-d result stays a view, not a scalar
        out = apply(operator.getitem, (self, index), name=name, view=True)
        if out._base is not None:
            out._view_index = (self, index)
        return out

    def __setitem__(self, index, value):
        index = _index_arrays(index)
        if grad_mode.is_grad_enabled() and self._grad_fn is None and self._requires_grad:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in "
                               "an in-place operation.")
        if not _recording(self, value):
            self._check_inplace()
            self._data[index] = _unwrap(value) if not isinstance(value, Tensor) \
                else _on_device(value, self)._data
            self._vc.value += 1
            return
        value = value if isinstance(value, Tensor) else Tensor._make(
            runtime.array_ns(self._data).asarray(value, dtype=self._data.dtype))
        value = _on_device(value, self)
        if value.dtype is not self.dtype:
            value = value.to(self.dtype)
        self._inplace(lambda old: _setitem(old, index, value), value)

    # -- in place ---------------------------------------------------------------------------
    def _check_inplace(self):
        if not grad_mode.is_grad_enabled():
            return
        if self._grad_fn is None and self._requires_grad:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                               "operation.")
        base = self._base
        if base is not None and base._grad_fn is None and base._requires_grad \
                and self._grad_fn is not None:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in "
                               "an in-place operation.")

    def _inplace(self, compute, *others):
        """Replace this tensor's value by ``compute(old)``, in place.

        When recording, ``old`` is a snapshot of the current value that keeps
        this tensor's place in the graph, and the node ``compute`` records
        becomes this tensor's ``grad_fn`` (PyTorch's "rebase history").
        """
        self._check_inplace()
        if not _recording(self, *others):
            self._write(compute(self))
            return self
        if self._base is not None:
            return self._inplace_on_view(compute)
        new = compute(self._snapshot())
        self._write(new)
        self._set_history(new._grad_fn)
        return self

    def _inplace_on_view(self, compute):
        """An in-place change of a view ``parent[index]`` while recording: the parent
        gets the new value by ``parent[index] = new`` (a ``CopySlices`` node, recursively
        up to the base), and this view is re-read from the new parent."""
        if self._view_index is None:
            raise NotImplementedError(
                "srcgrad: an in-place operation that needs a gradient on a view made by "
                "view/reshape/transpose/expand is not supported; index the base instead "
                "(x[i] = ...) or use an out-of-place operation")
        parent, index = self._view_index
        parent[index] = compute(self._snapshot())
        fresh = apply(operator.getitem, (parent, index), name="AsStridedBackward0")
        self._set_history(fresh._grad_fn)
        return self

    def _snapshot(self):
        """A copy of the current value in this tensor's place in the graph."""
        old = Tensor._make(self._data.copy(), self._requires_grad, self._grad_fn)
        old._acc = self._acc
        return old

    def _write(self, new):
        if new.dtype is not self.dtype and not dtypes.can_cast(new.dtype, self.dtype):
            raise RuntimeError(f"result type {new.dtype.short} can't be cast to the desired "
                               f"output type {self.dtype.short}")
        if new._data.shape != self._data.shape:
            try:
                fits = np.broadcast_shapes(new._data.shape, self._data.shape) == self._data.shape
            except ValueError:
                fits = False
            if not fits:
                raise RuntimeError(f"output with shape [{', '.join(map(str, self.shape))}] "
                                   "doesn't match the broadcast shape "
                                   f"[{', '.join(map(str, new.shape))}]") from None
        runtime.array_ns(self._data).copyto(self._data, new._data, casting="unsafe")
        self._vc.value += 1

    def _set_history(self, node):
        old = self._grad_fn
        if node is None:
            return
        self._grad_fn = node
        self._requires_grad = True
        if self._retains_grad and old is not None:
            node._retain(self)

    def add_(self, other, alpha=1):
        return self._inplace(lambda x: x.add(other, alpha=alpha), other)

    def sub_(self, other, alpha=1):
        return self._inplace(lambda x: x.sub(other, alpha=alpha), other)

    def mul_(self, other):
        return self._inplace(lambda x: x * other, other)

    def div_(self, other, rounding_mode=None):
        return self._inplace(lambda x: x.div(other, rounding_mode=rounding_mode), other)

    def pow_(self, exponent):
        return self._inplace(lambda x: x ** exponent, exponent)

    def clamp_(self, min=None, max=None):
        return self._inplace(lambda x: x.clamp(min, max), min, max)

    clip_ = clamp_

    def copy_(self, src, non_blocking=False):
        src = _as_tensor_like(src, self)
        return self._inplace(lambda x: _copy_into(x, src), src)

    def fill_(self, value):
        return self._inplace(lambda x: _filled(x, value), value)

    def zero_(self):
        return self.fill_(0)

    def masked_fill_(self, mask, value):
        return self._inplace(lambda x: x.masked_fill(mask, value), value)

    def __iadd__(self, other):
        return self.add_(other)

    def __isub__(self, other):
        return self.sub_(other)

    def __imul__(self, other):
        return self.mul_(other)

    def __itruediv__(self, other):
        return self.div_(other)

    def __ipow__(self, other):
        return self.pow_(other)

    def uniform_(self, a=0.0, b=1.0):
        from . import factories
        return self._inplace(lambda x: _like_values(x, factories._rng().uniform(a, b, x.shape)))

    def normal_(self, mean=0.0, std=1.0):
        from . import factories
        return self._inplace(lambda x: _like_values(x, factories._rng().normal(mean, std, x.shape)))


def _setitem(x, index, value):
    """``x`` with ``x[index] = value``, out of place and recorded: PyTorch's CopySlices,
    differentiated by the rule of ``runtime.setitem``."""
    return apply(runtime.setitem, (x, index, value), name="CopySlices")


def _astype(array, dtype):
    return array.astype(dtype)          # the method: works for numpy and cupy arrays alike


def _rebuild(array, requires_grad):
    return Tensor._make(array, requires_grad)


class _HookHandle:
    def __init__(self, hooks, hook):
        self._hooks, self._hook = hooks, hook

    def remove(self):
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


def _recording(*values):
    return grad_mode.is_grad_enabled() and builtins.any(
        isinstance(v, Tensor) and v._requires_grad for v in values)


def _copy_into(x, src):
    """``x.copy_(src)``: the value of ``src`` broadcast to ``x``'s shape and dtype."""
    out = src.to(x.dtype) if src.dtype is not x.dtype else src
    if out.shape != x.shape:
        out = out.expand(x.shape)
    return out.to(x.device) if out.device != x.device else out


def _filled(x, value):
    if isinstance(value, Tensor):
        return _copy_into(x, value)
    xp = runtime.array_ns(x._data)
    return Tensor._make(xp.full(x._data.shape, value, dtype=x._data.dtype))


def _like_values(x, values):
    xp = runtime.array_ns(x._data)
    return Tensor._make(xp.asarray(values, dtype=x._data.dtype))


def _reshape_is_view(a, shape):
    """Whether ``a`` can take ``shape`` without copying its data."""
    if a.size == 0 or a.flags.c_contiguous:
        return True
    if isinstance(a, np.ndarray):
        try:
            np.reshape(a, shape, copy=False)
            return True
        except ValueError:
            return False
    return False


def _check_reshape(t, shape):
    n = t.numel()
    known = 1
    free = [i for i, s in enumerate(shape) if s == -1]
    for s in shape:
        if s != -1:
            known *= s
    ok = (known == n) if not free else (len(free) == 1 and known and n % known == 0) or \
        (len(free) == 1 and n == 0 and known == 0)
    if not ok:
        raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of "
                           f"size {n}")


def _basic(p):
    return p is None or p is Ellipsis or isinstance(p, (slice, numbers.Integral)) and \
        not isinstance(p, (_bool, np.bool_))


def _index_arrays(index):
    """Tensors inside an index become arrays (integer tensors index, bool tensors mask)."""
    if isinstance(index, Tensor):
        if index.ndim == 0 and index._data.dtype.kind in "iu":
            return _int(index.item())
        return index._data
    if isinstance(index, tuple):
        return tuple(_index_arrays(i) for i in index)
    if isinstance(index, np.integer):
        return _int(index)
    return index


def _as_tensor_like(v, ref):
    if isinstance(v, Tensor):
        return v
    xp = runtime.array_ns(ref._data)
    return Tensor._make(xp.asarray(v))


def _on_device(t, ref):
    if t.device != ref.device:
        raise RuntimeError("Expected all tensors to be on the same device, but found at least "
                           f"two devices, {ref.device} and {t.device}!")
    return t


def _to_device(t, dev):
    """A copy of ``t`` on ``dev`` (cupy <-> numpy).  Recorded with the rule of ``np.copy``
    (the gradient passes through); the engine moves the gradient back to ``t``'s device."""
    return apply(np.copy, (t,), name="ToCopyBackward0", forward=lambda a: move(a, dev))


def is_tensor(obj):
    return isinstance(obj, Tensor)


def where(condition, input=None, other=None):
    """``torch.where(cond, x, y)``; ``torch.where(cond)`` gives the indices."""
    if input is None and other is None:
        return tuple(Tensor._make(i.astype(np.int64)) for i in np.nonzero(_unwrap(condition)))
    ref = input if isinstance(input, Tensor) else other
    target = dtypes.result_type(*[a for a in (input, other) if isinstance(a, (Tensor, numbers.Number))])
    input, other = (a.to(target) if isinstance(a, Tensor) and a.dtype is not target else a
                    for a in (input, other))
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError("where(): expected a tensor for input or other")
    return apply(np.where, (condition, input, other), name="WhereBackward0")


autograd.Tensor = Tensor       # the engine wraps gradients in Tensors


# -- elementwise math, as a table: method -> (NumPy primitive, PyTorch's node name) -----------

_UNARY_FLOAT = {
    "exp": (np.exp, "ExpBackward0"), "exp2": (np.exp2, "Exp2Backward0"),
    "expm1": (np.expm1, "Expm1Backward0"), "log": (np.log, "LogBackward0"),
    "log2": (np.log2, "Log2Backward0"), "log10": (np.log10, "Log10Backward0"),
    "log1p": (np.log1p, "Log1PBackward0"), "sqrt": (np.sqrt, "SqrtBackward0"),
    "sin": (np.sin, "SinBackward0"), "cos": (np.cos, "CosBackward0"),
    "tan": (np.tan, "TanBackward0"), "asin": (np.arcsin, "AsinBackward0"),
    "acos": (np.arccos, "AcosBackward0"), "atan": (np.arctan, "AtanBackward0"),
    "sinh": (np.sinh, "SinhBackward0"), "cosh": (np.cosh, "CoshBackward0"),
    "tanh": (np.tanh, "TanhBackward0"), "reciprocal": (np.reciprocal, "ReciprocalBackward0"),
}
_ALIASES = {"arcsin": "asin", "arccos": "acos", "arctan": "atan"}


def _unary_method(func, name):
    def method(self):
        return apply(func, (self,), name=name, floating=True)
    return method


for _m, (_f, _n) in _UNARY_FLOAT.items():
    setattr(Tensor, _m, _unary_method(_f, _n))
for _a, _m in _ALIASES.items():
    setattr(Tensor, _a, getattr(Tensor, _m))


def _abs(self):
    return apply(np.absolute, (self,), name="AbsBackward0")


def _neg(self):
    return -self


Tensor.abs = Tensor.absolute = _abs
Tensor.neg = Tensor.negative = _neg


def _inplace_method(method):
    def method_(self, *args, **kwargs):
        return self._inplace(lambda x: getattr(x, method)(*args, **kwargs), *args)
    method_.__name__ = method + "_"
    return method_


for _m in list(_UNARY_FLOAT) + ["abs", "neg", "relu", "sigmoid", "square", "rsqrt", "sign",
                                "floor", "ceil", "round", "trunc", "clamp_min", "clamp_max",
                                "t", "squeeze", "unsqueeze", "transpose", "remainder",
                                "floor_divide"]:
    if not hasattr(Tensor, _m + "_"):
        setattr(Tensor, _m + "_", _inplace_method(_m))
