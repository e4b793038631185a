"""Helpers that generated code and derivative templates call.

Generated code reaches these as ``sg.<name>``; templates in the rule table use
them by bare name.  Each one is small, works on numpy and cupy arrays and on
Python scalars, and never mutates its arguments.
"""

import functools
import types

import numpy as np

from .backends import array_ns, dtype_kind
from .records import carries_gradient, fields_of, grad_fields, is_record, with_fields
from .tapes import FloatTape, filled_tape, float_tape

__all__ = [
    "unbroadcast", "expand", "zeros_like", "ones_like_grad", "reduced_grad",
    "index_grad", "setitem", "zero_index", "add_grads", "shape_of",
    "keep_axis", "moveaxis_back", "minmax_grad", "sort_grad", "cast_like",
    "as_float", "array_ns", "matmul_grad_x", "matmul_grad_y", "copy", "take", "seed", "fill_like", "add_at", "detach", "data_of", "indexable", "indexable_grad",
    "indexable_tangent",
    "keys_of", "sum_grad", "mean_grad", "dtype_kind", "float_tape", "filled_tape",
]


def copy(x):
    """A copy that the generated code may mutate (arrays, lists, dicts; scalars as is)."""
    if isinstance(x, list):
        return list(x)
    if isinstance(x, dict):
        return dict(x)
    if isinstance(x, (tuple, types.ModuleType, type)):
        return x           # (a namespace passed as an argument: ``lib=np``)
    if hasattr(x, "copy"):
        return x.copy()
    if hasattr(x, "__array_namespace__"):      # an array-API array: no copy method
        return array_ns(x).copy(x)
    return x


def copies(*xs):
    """``copy`` of each, where names that held one object hold one copy of it, and a
    tuple, list or dict among them that holds another of them holds its copy (a tuple
    is rebuilt around the copies it holds, else kept as it is)."""
    made = {}
    for x in xs:
        if id(x) not in made and type(x) is not tuple:
            made[id(x)] = copy(x)
    if len(made) + any(type(x) is tuple for x in xs) < 2:
        return tuple(made.get(id(x), x) for x in xs)
    old = {id(x): x for x in xs}

    def held(v):
        return made[id(v)] if id(v) in made else rebuilt(v) if type(v) is tuple else v

    def rebuilt(t):
        if id(t) not in made:
            made[id(t)] = t            # (until its items are known)
            items = [held(v) for v in t]
            if any(a is not b for a, b in zip(items, t)):
                made[id(t)] = tuple(items)
        return made[id(t)]
    for k, x in old.items():
        new = made.get(k)
        if isinstance(x, list) and new is not x:
            new[:] = [held(v) for v in x]
        elif isinstance(x, dict) and new is not x:
            new.update({key: held(v) for key, v in x.items()})
    return tuple(held(x) for x in xs)


__all__ += ["copies"]


def take(g, index):
    """``g[index]`` as a new value (never a view into ``g``); a key a sparse dict of
    gradients lacks is a zero."""
    if index is Ellipsis:
        return copy(g)                  # (the whole value: ad.restore_item's key)
    if isinstance(g, dict) and index not in g:
        return 0.0
    return copy(g[index])


_ABSENT = type("_Absent", (), {"__repr__": lambda self: "<absent>"})()


def try_call(types, body, *rest):
    """``try: body() except types[i]: handler_i()`` for blocks made functions by the
    lowering (compiler/lower/trying.py): ``body(*args)``, or ``handler_i(exc, *args)``
    for the first handler whose types match; each returns ``(which, its values)``, -1
    for the body, i for handler i.  Differentiated code calls it through
    compiler/dynamic.py."""
    handlers, args = rest[:len(types)], rest[len(types):]
    try:
        return body(*args)
    except BaseException as e:
        for i, t in enumerate(types):
            if isinstance(e, t):
                return handlers[i](e, *args)
        raise


try_call.__srcgrad_resolved_when_run__ = True
__all__ += ["try_call"]


def call_with_self(method, *args, **kwargs):
    """``(method(*args, **kwargs), its object)`` for a method that changes its object
    (the lowering rebinds the object to what this returns; run as written, the object
    itself changed in place).  Differentiated code calls it through compiler/dynamic.py,
    whose derivative of the method changes a copy and returns it."""
    return method(*args, **kwargs), method.__self__


call_with_self.__srcgrad_resolved_when_run__ = True
__all__ += ["call_with_self"]

_WRITING = {}       # (code, qualname, names) -> the function that also returns them


class _Writing:
    """``func`` that also returns the parameters ``names`` it changes in place (see
    :func:`writing`)."""
    __slots__ = ("func", "names", "signature", "__srcgrad_writing__")

    def __init__(self, func, names, clone):
        import inspect
        self.func, self.names, self.signature = func, names, inspect.signature(func)
        self.__srcgrad_writing__ = clone

    def __call__(self, *args, **kwargs):
        # on copies, as the derivative does: the caller's own objects keep the values
        # that earlier lines' adjoints read (the caller's names are rebound to these)
        bound = self.signature.bind(*args, **kwargs)
        for n in self.names:
            bound.arguments[n] = copy(bound.arguments[n])
        result = self.func(*bound.args, **bound.kwargs)
        return (result,) + tuple(bound.arguments[n] for n in self.names)

    def __repr__(self):
        return f"<{self.func.__qualname__} returning {', '.join(self.names)}>"


def writing(func, names):
    """``func`` (a user function that changes its parameters ``names`` in place: a memo
    dict, a list it appends to, an array it fills) as a callable returning
    ``(result, *those parameters)``; the lowering (lower/statements.py) calls it and
    rebinds the caller's arguments to what comes back.  Run as written, it changes
    copies of them, as its derivative does.  Differentiated
    (compiler/dynamic.py), it is ``__srcgrad_writing__``: func's code, whose returns
    compiler/frontend.py extends with the parameters, its derivative changing copies."""
    key = (func.__code__, func.__qualname__, names)
    made = _WRITING.get(key)
    if made is None or made.func is not func:
        import types
        clone = types.FunctionType(func.__code__, func.__globals__, func.__name__,
                                   func.__defaults__, func.__closure__)
        clone.__kwdefaults__ = func.__kwdefaults__
        clone.__qualname__ = f"{func.__qualname__} (returning {', '.join(names)})"
        clone.__module__ = func.__module__
        clone.__srcgrad_returns_params__ = names
        if len(_WRITING) > 256:
            _WRITING.clear()
        made = _WRITING[key] = _Writing(func, names, clone)
    return made


def getter(obj, name):
    """The getter of the property ``name`` of obj's class (lower/expressions.py calls
    it on obj)."""
    import inspect
    a = inspect.getattr_static(type(obj), name, None)
    if not isinstance(a, property) or a.fget is None:
        from ..errors import NonDifferentiableError
        raise NonDifferentiableError(
            f"{type(obj).__qualname__}.{name} is not the property srcgrad compiled this "
            f"code for (a subclass redefines it?); read it into a name first")
    return a.fget


def operator_method(obj, name):
    """``type(obj).<name>`` (``__add__``, ``__rmul__``, ``__neg__``...), a function of
    the user's class, for ``a + b`` on its objects (lower/expressions.py calls it with
    the object first)."""
    import inspect
    import types
    f = inspect.getattr_static(type(obj), name, None)
    if not isinstance(f, types.FunctionType):
        from ..errors import NonDifferentiableError
        raise NonDifferentiableError(
            f"srcgrad cannot differentiate the operator {name} of a {type(obj).__name__} "
            f"object: its class defines no Python method {name}")
    return f


_NUMERIC_OPERATORS = {
    "__add__": np.add, "__sub__": np.subtract, "__mul__": np.multiply,
    "__truediv__": np.true_divide, "__floordiv__": np.floor_divide, "__mod__": np.mod,
    "__pow__": np.power, "__matmul__": np.matmul, "__neg__": np.negative,
    "__pos__": np.positive}


def operator_for(name, *operands):
    """The function that ``a + b`` (``name`` "__add__"; ``-a``: "__neg__") calls on
    these values, as a function of the operands in order: the left operand's class's
    method; the right one's reflected method (``__radd__``), with the operands
    swapped back; NumPy's ufunc for numbers and arrays.  For code that cannot know
    the operands' types (read from a field, an item, a function's result), in a
    module whose classes define operators (lower/expressions.py)."""
    import inspect
    import types
    first = operands[0]
    if is_record(first):
        return operator_method(first, name)
    if len(operands) == 2 and is_record(operands[1]):
        reflected = "__r" + name[2:]
        f = inspect.getattr_static(type(operands[1]), reflected, None)
        if isinstance(f, types.FunctionType):
            return functools.partial(_reflected, method=f)
        operator_method(operands[1], reflected)          # (its error)
    if all(_plain_number(v) for v in operands):
        return _NUMERIC_OPERATORS[name]
    from ..errors import NonDifferentiableError
    raise NonDifferentiableError(
        f"srcgrad cannot differentiate {name} on a {type(first).__name__} here: read from "
        f"a field, an item or a function's result, its operand is neither an object of "
        f"a class with that operator nor a number or an array; compute it in a name "
        f"whose type the code shows")


def _reflected(a, b, method):
    """``a op b`` by the right operand's reflected method (``b.__radd__(a)``)."""
    return method(b, a)


_reflected.__srcgrad_transformable__ = True     # (its source is differentiated)


def _plain_number(v):
    return isinstance(v, (float, int, complex, np.ndarray, np.generic)) or \
        hasattr(v, "__array_namespace__")


def numeric_operand(v, op):
    """(Before ``a op b`` on a value read from a field, an item or a function's result.)
    An object of a user's class there is refused, at the user's line: its operator is
    the class's method, which srcgrad cannot tell it calls here."""
    if type(v) is np.ndarray or type(v) is float or not is_record(v):
        return
    import linecache
    import sys
    from ..compiler.sourcemap import user_place
    from ..errors import NonDifferentiableError
    frame = sys._getframe(1)
    place = user_place(frame.f_code.co_filename, frame.f_lineno)
    where, line = "", ""
    if place is not None:
        where = f"{place[0]}:{place[1]}: "
        line = f" ({linecache.getline(place[0], place[1]).strip()})"
    raise NonDifferentiableError(
        f"{where}srcgrad cannot differentiate {op} on a {type(v).__name__} object "
        f"here{line}: read from a field, an item or a function's result, srcgrad cannot "
        f"tell that it calls the class's operator method; call the method itself "
        f"(r.__mul__(2.0) for r * 2.0), or keep the object in a name its class builds")


__all__ += ["writing", "getter", "operator_method", "numeric_operand", "operator_for"]


def old_item(x, key):
    """A copy of ``x[key]`` before ``x[key] = ...`` overwrites it; for a dict key that
    the assignment creates, a marker that :func:`restore_item` understands."""
    if isinstance(x, dict) and key is not Ellipsis and key not in x:
        return _ABSENT
    return take(x, key)         # (``...``: all of x, restore_item's whole-value key)


def restore_item(x, key, old):
    """Undo ``x[key] = ...`` in the reverse sweep (``old`` from :func:`old_item`); with
    ``key`` ``...``, undo an in-place change of the whole of ``x`` (``d.sort()``,
    ``np.copyto(d, v)``), ``old`` a :func:`copy` of it from before (None: a name not
    bound on the path the forward sweep took; a number: nothing changed it in place)."""
    if key is Ellipsis and not isinstance(x, set) and not hasattr(x, "__setitem__"):
        return
    if old is _ABSENT:
        del x[key]
    elif key is Ellipsis and isinstance(x, list):
        x[:] = old
    elif key is Ellipsis and isinstance(x, (dict, set)):
        x.clear()
        x.update(old)
    else:
        x[key] = old


__all__ += ["old_item", "restore_item"]


class OutputTypeError(TypeError):
    """``grad`` of a function whose result is not a floating-point scalar."""


def _check_float_output(y):
    """A None, int, bool, str or container result has no gradient to seed: say so
    (a zero gradient would be silently wrong)."""
    dt = getattr(y, "dtype", None)
    if dt is not None and getattr(y, "shape", None) is not None:
        if dtype_kind(dt) in "fc":
            return
        what = f"an array of dtype {dt}"
    elif isinstance(y, float) or (type(y).__name__ == "Tensor" and hasattr(y, "grad_fn")):
        return
    elif y is None:
        what = "None (is a return statement missing?)"
    else:
        what = f"{type(y).__name__} {y!r}" if not isinstance(y, (list, tuple, dict)) \
            else f"a {type(y).__name__}"
    raise OutputTypeError(
        f"grad needs the function to return a floating-point scalar, but it returned "
        f"{what}. Return a float (e.g. 0.0, not 0, or float(...)); for a non-scalar or "
        f"structured output use sg.vjp or sg.jacobian; to return extra values beside a "
        f"scalar loss, pass has_aux=True and return (loss, aux).")


class NonScalarOutputError(RuntimeError):
    """``grad`` of a function whose result has more than one entry (PyTorch's message;
    ``shape`` is the result's, for the API to say what to use instead)."""

    def __init__(self, message, shape):
        super().__init__(message)
        self.shape = shape


_REAL_SCALARS = frozenset({float, np.float64, np.float32, np.float16})


def seed(y):
    """The cotangent 1 of a scalar output; PyTorch's error for anything else."""
    if type(y) in _REAL_SCALARS:        # the common case, at once
        return 1.0
    _check_float_output(y)
    size = getattr(y, "size", 1)
    if size != 1 or isinstance(y, (list, tuple, dict)):
        shape = getattr(y, "shape", None)
        raise NonScalarOutputError("grad can be implicitly created only for scalar outputs",
                                   shape)
    if getattr(y, "ndim", 0):
        return array_ns(y).ones_like(y)
    return 1.0


def shape_of(x):
    return getattr(x, "shape", ())


def _is_complex(v):
    return isinstance(v, (complex, np.complexfloating)) or \
        getattr(getattr(v, "dtype", None), "kind", None) == "c"


def unbroadcast(g, x):
    """Sum ``g`` down to ``x``'s shape: the adjoint of NumPy broadcasting.

    Also casts back to a Python float where ``x`` is one, so a float argument
    gets a float gradient.  A real ``x`` gets the real part of a complex ``g`` (complex
    values pair a cotangent with a tangent by ``Re(sum(g * dz))``).
    """
    if type(g) is np.ndarray and g.dtype.kind != "c":
        # the common cases, without exceptions: a real NumPy cotangent and an array
        # operand, a recorded shape, or a Python scalar (same results as below)
        tx = type(x)
        xs = x.shape if tx is np.ndarray else x if tx is tuple else None
        if xs is not None:
            gs = g.shape
            if gs == xs:
                return g
            nlead = len(gs) - len(xs)
            if nlead > 0 and xs and gs[nlead:] == xs:   # only leading axes were added
                return g.sum(axis=tuple(range(nlead)))
            if nlead >= 0:
                axes = tuple(range(nlead)) + tuple(
                    nlead + i for i, n in enumerate(xs) if n == 1 and gs[nlead + i] != 1)
                if axes:
                    g = g.sum(axis=axes, keepdims=True)
                return g.reshape(xs) if nlead else g
        elif tx is float or tx is int:
            return g.sum() if g.shape != () else g
    elif type(g) is float:
        xs = x if type(x) is tuple else getattr(x, "shape", None)
        if not xs:                      # a scalar operand (or a 0-d one): nothing to do
            return g
    try:                                # the common case first: nothing to sum
        if g.shape == x.shape:
            return g if g.dtype.kind != "c" or x.dtype.kind == "c" else g.real
    except AttributeError:
        pass
    if _is_complex(g) and not _is_complex(x) and type(x) is not tuple:   # (a shape: unknown)
        g = g.real
    # x is the operand, or (when only its shape was recorded) its shape tuple
    xs = x if type(x) is tuple else getattr(x, "shape", None)
    gs = getattr(g, "shape", ())
    if xs is None:                      # Python scalar (or list): sum everything
        if gs == ():
            return g
        return g.sum() if hasattr(g, "sum") else array_ns(g).sum(g)   # (array API: no .sum)
    if gs == xs:
        return g
    xp = array_ns(g, x)
    nlead = len(gs) - len(xs)
    if nlead < 0:                       # g smaller than x (a scalar cotangent): broadcast up
        if hasattr(g, "shape"):
            return copy(xp.broadcast_to(g, xs))
        return xp.full_like(x, g, dtype=_float_like(x)) if hasattr(x, "shape") else \
            np.full(xs, g)
    axes = tuple(range(nlead)) + tuple(
        nlead + i for i, n in enumerate(xs) if n == 1 and gs[nlead + i] != 1)
    if axes:
        g = g.sum(axis=axes, keepdims=True) if xp is np else xp.sum(g, axis=axes, keepdims=True)
    if nlead:
        g = g.reshape(xs) if xp is np else xp.reshape(g, xs)
    return g


def expand(t, ans):
    """Broadcast a tangent ``t`` to the shape of ``ans`` (forward-mode unbroadcast)."""
    s = getattr(ans, "shape", ())
    if getattr(t, "shape", ()) == s:
        return t
    if s == ():
        return t
    xp = array_ns(t, ans)
    if not hasattr(t, "shape"):
        return xp.full_like(ans, t)
    return xp.broadcast_to(t, s)


def same_sequence(like, items):
    """A list, tuple or namedtuple of ``like``'s type holding ``items`` (a namedtuple
    is built from its fields: its constructor does not take one iterable)."""
    if hasattr(type(like), "_make"):
        return type(like)._make(items)
    return type(like)(items)



_FUNCTION_VALUES = (types.FunctionType, types.MethodType, functools.partial)


def zeros_like(x, xp=None):
    """A zero gradient for ``x``: same shape, floating dtype; 0.0 for Python scalars.
    ``xp``: the namespace of the whole computation (NumPy zeros of a NumPy parameter
    become Dask zeros when the data is a Dask array, so Dask contributions add in)."""
    if isinstance(x, (dict,)):
        return {k: zeros_like(v, xp) for k, v in x.items()}
    if isinstance(x, _FUNCTION_VALUES):
        return {}          # a function value's gradient: a dict of what it holds (sparse)
    if isinstance(x, range):
        # loop steps a forward sweep saved, read item by item when generated code is
        # differentiated again: zeros that can be indexed (and added at) like them
        return np.zeros(len(x))
    if isinstance(x, (list, tuple)):
        return same_sequence(x, [zeros_like(v, xp) for v in x])
    if isinstance(x, FloatTape):
        # a loop's float tape (tapes.py) when generated code is differentiated again:
        # the gradients of its floats, a list used as the tape is (append, pop)
        return [0.0] * len(x)
    if is_record(x):
        return with_fields(x, {f: zeros_like(v, xp) for f, v in fields_of(x).items()
                               if carries_gradient(v)})
    if hasattr(x, "shape") and not isinstance(x, types.ModuleType):   # (np has np.shape)
        if xp is None or xp is np:
            xp = array_ns(x)
        dt = _float_like(x)
        if xp is np:
            return np.zeros_like(x) if dt is x.dtype else np.zeros_like(x, dtype=dt)
        return xp.zeros_like(x, dtype=dt)
    return 0.0


def ones_like_grad(x):
    return array_ns(x).ones_like(x) if hasattr(x, "shape") else 1.0


def keep_axis(g, x, axis, keepdims):
    """Re-insert the reduced axes of a reduction so that ``g`` broadcasts against ``x``."""
    if keepdims or axis is None or not hasattr(g, "shape"):
        return g
    nd = getattr(x, "ndim", None)
    if nd is None:
        nd = np.ndim(x)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    axes = sorted(a % nd for a in axes)
    shape = list(g.shape)
    for a in axes:
        shape.insert(a, 1)
    return array_ns(g).reshape(g, tuple(shape))


def reduced_grad(g, x, axis=None, keepdims=False):
    """Adjoint of a sum over ``axis``: ``g`` broadcast back to ``x``'s shape."""
    g = keep_axis(g, x, axis, keepdims)
    xs = shape_of(x) if hasattr(x, "shape") else np.shape(x)
    xp = array_ns(g, x)
    if xs == ():
        return g if not hasattr(g, "shape") else xp.reshape(g, ())
    if not hasattr(g, "shape"):
        return xp.full_like(x, g, dtype=_float_like(x))
    return xp.broadcast_to(g, xs)


def _float_like(a):
    dt = getattr(a, "dtype", None)
    if dt is None:
        return np.float64
    kind = getattr(dt, "kind", None)
    if kind is not None:
        return dt if kind in "fc" else np.float64
    # an array-API dtype (no .kind): the namespace's float64 for integers and bools
    return dt if dtype_kind(dt) in "fc" else array_ns(a).float64


# up to this many entries, a spread cotangent is written out (a broadcast view costs
# more to make than a small array costs to fill)
_SMALL = 1 << 14


def _filled(a, v):
    """A new NumPy array of ``a``'s shape and floating dtype, every entry ``v``."""
    out = np.empty_like(a, dtype=_float_like(a))
    out.fill(v)
    return out


def _spread(g, a):
    """``g`` (a NumPy array of ``a``'s rank, its reduced axes of length 1) broadcast
    to ``a``'s shape in ``a``'s floating dtype: written out when small, else a
    read-only view (as ``np.broadcast_to`` gives)."""
    dt = _float_like(a)
    if a.size <= _SMALL:
        out = np.empty(a.shape, dt)
        out[...] = g
        return out
    return _astype(np, np.broadcast_to(g, a.shape), dt)


def sum_grad(g, a, axis=None, keepdims=False):
    """Adjoint of ``np.sum(a, axis, keepdims)``: g spread over the summed axes, a's dtype."""
    if isinstance(a, (list, tuple)):
        a = np.asarray(a)     # np.sum([x, y]): the list is read as an array
    if not hasattr(a, "shape"):
        return g
    if type(a) is np.ndarray:           # the common cases, fast
        if axis is None and type(g) is float:
            return _filled(a, g)
        if keepdims and type(g) is np.ndarray:
            return _spread(g, a)
    xp = array_ns(g, a)
    if axis is None:
        if xp is not np and hasattr(g, "shape"):   # a device scalar: never read on the host
            return xp.broadcast_to(xp.astype(g, _float_like(a)), a.shape)
        return xp.full_like(a, g, dtype=_float_like(a))   # (dispatches on a: cupy for cupy)
    g = keep_axis(g, a, axis, keepdims)
    return _astype(xp, xp.broadcast_to(g, a.shape), _float_like(a))


def mean_grad(g, a, axis=None, keepdims=False):
    """Adjoint of ``np.mean``: g divided by the number of averaged elements."""
    if isinstance(a, (list, tuple)):
        a = np.asarray(a)     # np.sum([x, y]): the list is read as an array
    if not hasattr(a, "shape"):
        return g
    if type(a) is np.ndarray and type(g) is float:     # the common case, fast
        return _filled(a, g / max(a.size, 1))
    xp = array_ns(g, a)
    size = _size(a.shape)        # from the shape: a Dask array is not computed to count
    if axis is None:
        if xp is not np and hasattr(g, "shape"):
            return _astype(xp, xp.broadcast_to(g / max(size, 1), a.shape), _float_like(a))
        return xp.full_like(a, g / max(size, 1), dtype=_float_like(a))
    g = keep_axis(g, a, axis, keepdims)
    n = size // max(_size(getattr(g, "shape", ())), 1)
    return _astype(xp, xp.broadcast_to(g / n, a.shape), _float_like(a))


def _on(x):
    """``device=`` for creation functions of array-API namespaces (NumPy: none)."""
    return {} if type(x) is np.ndarray or not hasattr(x, "__array_namespace__") or \
        hasattr(x, "__array_function__") else {"device": x.device}


def _size(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _astype(xp, a, dt):
    """``a`` as dtype ``dt`` (no copy when it already is)."""
    if a.dtype == dt:
        return a
    return a.astype(dt, copy=False) if xp is np else xp.astype(a, dt)


def minmax_grad(g, ans, x, axis=None, keepdims=False):
    """Adjoint of max/min: ``g`` goes to the extremal entries, shared among ties."""
    a = keep_axis(ans, x, axis, keepdims)
    g = keep_axis(g, x, axis, keepdims)
    if type(x) is np.ndarray and x.dtype.kind == "f":      # NumPy, fast: one reduction
        mask = x == a       # (counted in x's dtype; a bool times a float is that float)
        count = np.add.reduce(mask, axis=axis, keepdims=axis is not None, dtype=x.dtype)
        return mask * (g / count)
    mask = (x == a)
    # the tie count in x's floating dtype: an int64 count made float32 gradients float64
    dt = _float_like(x)
    xp = array_ns(x, g)
    mask = _astype(xp, mask, dt)
    count = xp.sum(mask, axis=axis, keepdims=True) if axis is not None else xp.sum(mask)
    return mask * (g / count)   # divide the small array, then one full-size multiply


def moveaxis_back(g, source, destination):
    return array_ns(g).moveaxis(g, destination, source)


def sort_grad(g, x, axis=-1):
    xp = array_ns(g, x)
    idx = xp.argsort(x, axis=axis)
    out = xp.zeros_like(g)
    xp.put_along_axis(out, idx, g, axis=axis)
    return out


def index_grad(g, x, index):
    """Adjoint of ``x[index]``: zeros of x's shape with ``g`` added at ``index``.

    Repeated fancy indices accumulate (``np.add.at``), they never overwrite.
    """
    if index is Ellipsis and not hasattr(x, "shape"):
        return g                        # (all of a container: ad.restore_item's key)
    if isinstance(x, (list, tuple)):
        # (the item read gets g: its own zeros are not made, a record's saved values are)
        at = index % len(x) if isinstance(index, int) and -len(x) <= index < len(x) else None
        out = [None if k == at else zeros_like(v) for k, v in enumerate(x)]
        if isinstance(index, slice):
            for i, gi in zip(range(*index.indices(len(x))), g):
                out[i] = gi
        else:
            out[index] = g
        # a plain tuple for a namedtuple too (np.linalg.slogdet / svd / qr / eigh results)
        return tuple(out) if isinstance(x, tuple) else out
    if isinstance(x, dict):
        return {index: g}     # sparse: keys nobody read get zeros at the end (fill_like)
    xp = array_ns(g, x)
    out = xp.zeros_like(x, dtype=_float_like(x))
    if _basic_index(index):
        out[index] = g
    else:
        xp.add.at(out, index, g)
    return out


def _is_int(x):
    return getattr(x, "dtype", np.dtype(float)).kind not in "fc"


def _basic_index(index):
    """True when ``index`` selects each element at most once (no fancy indices)."""
    items = index if isinstance(index, tuple) else (index,)
    for i in items:
        if i is None or i is Ellipsis or isinstance(i, (int, np.integer, slice)):
            continue
        return False
    return True


def add_at(d, index, g):
    """``d[index] += g`` in place on an adjoint the generated code owns; returns ``d``.

    Repeated fancy indices accumulate (np.add.at); dict and list adjoints add
    item by item.
    """
    if isinstance(d, tuple):          # immutable: a new tuple
        d = list(d)
        add_at(d, index, g)
        return tuple(d)
    if isinstance(d, dict):
        d[index] = add_grads(d.get(index), g)
    elif isinstance(d, list):
        if isinstance(index, slice):
            for i, gi in zip(range(*index.indices(len(d))), g):
                d[i] = add_grads(d[i], gi)
        else:
            d[index] = add_grads(d[index], g)
    elif _basic_index(index):
        d[index] += g
    else:
        array_ns(d, g).add.at(d, index, g)
    return d


def setitem(x, index, v):
    """``x[index] = v`` on a copy of ``x`` (the generated code never mutates inputs)."""
    x = copy(x)
    x[index] = v
    return x


def zero_index(g, index):
    """``g`` with ``g[index]`` set to zero, without mutating ``g``."""
    if index is Ellipsis and not hasattr(g, "shape"):
        return {} if isinstance(g, dict) else None if g is None else zeros_like(g)
    if isinstance(g, dict):          # a sparse dict adjoint: the key holds no gradient
        g = dict(g)
        g.pop(index, None)
        return g
    if isinstance(g, (list, tuple)):  # items keep their shapes (fill_like needs them)
        out = list(g)
        for i in (range(*index.indices(len(out))) if isinstance(index, slice) else [index]):
            out[i] = zeros_like(out[i])
        return tuple(out) if isinstance(g, tuple) else out   # (namedtuples: a plain tuple)
    g = copy(g)
    g[index] = 0
    return g


def assign_grad(g, index, v):
    """Adjoint of ``v`` in ``y[index] = v``, given ``g`` the adjoint of ``y`` after it.

    Each element of ``y`` that the assignment wrote sends its gradient to the element of
    (broadcast) ``v`` that wrote it; with a repeated fancy index NumPy keeps the last
    write, so the earlier items of ``v`` get nothing.
    """
    part = g[index]
    if not _basic_index(index):
        # index arrays built in g's namespace (on its device): no host round trip
        xp = array_ns(g)
        shape = tuple(part.shape)
        pos = xp.reshape(xp.arange(_size(shape), dtype=xp.int64, **_on(g)), shape)
        winner = xp.full(tuple(g.shape), -1, dtype=xp.int64, **_on(g))
        winner[index] = pos
        wrote = winner >= 0
        flat = xp.zeros(_size(shape), dtype=_float_like(g), **_on(g))
        flat[winner[wrote]] = g[wrote]
        part = xp.reshape(flat, shape)
    else:
        part = copy(part)
    return unbroadcast(part, v)


__all__ += ["assign_grad"]


def add_grads(a, b):
    """Sum two gradients, either of which may be None, or a dict/list/tuple of gradients."""
    if a is None:
        return b
    if b is None:
        return a
    if is_record(a) or is_record(b):
        # a record's gradient: an instance (a callee's, filled) or a sparse dict
        a = grad_fields(a) if is_record(a) else a
        b = grad_fields(b) if is_record(b) else b
    if isinstance(a, (dict, list, tuple)) != isinstance(b, (dict, list, tuple)):
        # a zero written as a Python 0 for a structured value's gradient (a ``**kwargs``
        # dict's, when generated code is transformed again): the other one
        if type(a) in (int, float) and a == 0:
            return b
        if type(b) in (int, float) and b == 0:
            return a
    if isinstance(a, dict):
        out = dict(a)
        for k, v in b.items():
            out[k] = add_grads(out.get(k), v)
        return out
    if isinstance(a, (list, tuple)):
        if len(a) != len(b):
            _shorter_zeros(a, b)
        return same_sequence(a, [add_grads(x, y) for x, y in zip(a, b)])
    return a + b


def _shorter_zeros(a, b):
    """Two gradients of one list of different lengths (the list grew or shrank in
    place between the reads they come from): the sum keeps the shorter length, which
    may drop only zeros; any other item is refused, never dropped."""
    longer = a if len(a) > len(b) else b
    if not all(_all_zero(item) for item in longer[min(len(a), len(b)):]):
        raise ValueError(
            f"srcgrad: two gradients of one list have {len(a)} and {len(b)} items and "
            f"the extra ones are not zero (the list changed length in place between "
            f"the reads they come from); please report this program")


def _all_zero(v):
    if v is None:
        return True
    if isinstance(v, dict):
        return all(_all_zero(x) for x in v.values())
    if isinstance(v, (list, tuple)):
        return all(_all_zero(x) for x in v)
    try:
        nonzero = v != 0
        return not bool(nonzero.any() if hasattr(nonzero, "any") else nonzero)
    except Exception:
        return False


def keep_dtype(new, old):
    """``x += v`` on an array keeps x's dtype (Python's in-place arithmetic): ``new``
    (``x + v``) in ``old``'s floating dtype when both are arrays of different ones; any
    other value as it is (a Python float, a list).  On a 0-d NumPy array it stays a 0-d
    array (``x + v`` is a NumPy scalar), as in Python, where names that hold x see it
    change (the alias check reads that: ``v2 = min(x, 0.25); x /= 2.0``)."""
    if type(old) is np.ndarray and isinstance(new, np.generic):
        return np.asarray(new, dtype=old.dtype if dtype_kind(old.dtype) in "fc" else None)
    dt = getattr(old, "dtype", None)
    if dt is None or getattr(new, "dtype", dt) == dt or not hasattr(new, "astype") or \
            dtype_kind(dt) not in "fc":
        return new
    return new.astype(dt)


__all__ += ["keep_dtype"]


def cast_like(g, x):
    """Cast a gradient to ``x``'s floating dtype (float32 stays float32)."""
    dt = getattr(x, "dtype", None)
    if dt is not None and getattr(g, "dtype", dt) != dt and _float_like(x) == dt:
        return _astype(array_ns(g), g, dt)
    return g


def as_float(g):
    return float(g)


def _promote_matmul(g, x, y):
    np = array_ns(g, x, y)
    xd, yd = np.ndim(x), np.ndim(y)
    x1 = x[None, :] if xd == 1 else x
    y1 = y[:, None] if yd == 1 else y
    if xd == 1 and yd == 1:
        g1 = np.reshape(g, (1, 1))
    elif xd == 1:
        g1 = np.expand_dims(g, -2)
    elif yd == 1:
        g1 = np.expand_dims(g, -1)
    else:
        g1 = g
    return g1, x1, y1


def matmul_grad_x(g, x, y):
    """Adjoint of ``x @ y`` for x: 1-D, 2-D and batched (broadcast) operands."""
    if getattr(x, "ndim", 0) == 2 and getattr(y, "ndim", 0) == 2:   # the common case, fast
        return g @ y.T
    np = array_ns(g, x, y)
    g1, x1, y1 = _promote_matmul(g, x, y)
    dx = g1 @ np.swapaxes(y1, -1, -2)
    if np.ndim(x) == 1:
        dx = dx[..., 0, :]
    return unbroadcast(dx, x)


def matmul_grad_y(g, x, y):
    """Adjoint of ``x @ y`` for y."""
    if getattr(x, "ndim", 0) == 2 and getattr(y, "ndim", 0) == 2:
        return x.T @ g
    np = array_ns(g, x, y)
    g1, x1, y1 = _promote_matmul(g, x, y)
    dy = np.swapaxes(x1, -1, -2) @ g1
    if np.ndim(y) == 1:
        dy = dy[..., :, 0]
    return unbroadcast(dy, y)


def fill_like(g, x):
    """A gradient with exactly x's structure: zeros where nothing flowed (dict keys, None)."""
    if type(g) in (int, float) and g == 0 and not isinstance(x, (int, float, complex)):
        # a zero written as a Python 0 for an array's or a structured value's gradient
        # (the tangent of a None adjoint, when generated code is transformed again)
        g = None
    if isinstance(x, dict):
        # (a record's gradient as an instance where x holds it as a sparse dict: the
        # tangent of a record's adjoint, when generated code is transformed again)
        g = grad_fields(g) if is_record(g) else g or {}
        return {k: fill_like(g.get(k), v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        if g is None:
            g = [None] * len(x)
        return same_sequence(x, [fill_like(gi, xi) for gi, xi in zip(g, x)])
    if is_record(x):
        g = (grad_fields(g) if is_record(g) else g) or {}
        return with_fields(x, {k: fill_like(g.get(k), v) for k, v in fields_of(x).items()
                               if carries_gradient(v)})
    if g is None:
        return zeros_like(x)
    return g


def item_grad(g, key, x):
    """``g[key]``, the adjoint of the item ``x`` stored at ``key`` of a dict literal;
    zeros when nobody read that key (dict adjoints are sparse)."""
    if key is Ellipsis and not hasattr(g, "shape"):
        return g                        # (all of it: ad.restore_item's key)
    if isinstance(g, dict):
        v = g.get(key)
        return zeros_like(x) if v is None else v
    return take(g, key)


__all__ += ["item_grad"]


def alias_guard(y, other, message, filename=None, lineno=None, rebinds=False):
    """In front of an in-place change of ``y`` (``y[i] = v``, or ``y += v`` when
    ``rebinds``) that ``other``, still used later, may see: srcgrad's refusal, located
    in the user's code, if the two really share memory (``other`` is y, a view of it,
    or a container holding it).  ``y += v`` on an immutable scalar rebinds y: no check;
    on a list (``extend``), a dict or a set (``|=``) it changes y in place, as on an
    array."""
    if rebinds and not (_is_mutable_array(y) or isinstance(y, (list, dict, set, bytearray))):
        return
    if _holds(other, y):
        import linecache
        from ..errors import ALIAS_ADVICE, UnsupportedSyntaxError
        line = linecache.getline(filename, lineno) if filename and lineno else None
        col = len(line) - len(line.lstrip()) if line else 0
        raise UnsupportedSyntaxError(message + ALIAS_ADVICE, filename, lineno, col, line)


def _is_mutable_array(x):
    return isinstance(x, np.ndarray) or (type(x).__module__.startswith("cupy") and
                                         hasattr(x, "shape"))


def _holds(o, y, depth=0):
    if o is y:
        return True
    if _is_mutable_array(o) and _is_mutable_array(y):
        mod = array_ns(o, y)
        return bool(mod.may_share_memory(o, y))
    if depth < 8 and isinstance(o, (list, tuple)):
        return any(_holds(e, y, depth + 1) for e in o)
    if depth < 8 and isinstance(o, dict):
        return any(_holds(e, y, depth + 1) for e in o.values())
    if depth < 8 and is_record(o):
        return any(_holds(e, y, depth + 1) for e in fields_of(o).values())
    return False


__all__ += ["alias_guard"]


def indexable(x):
    """What ``for v in x`` visits, as something ``len`` and ``[i]`` work on."""
    if isinstance(x, (dict, list)) or is_record(x):
        # a list: a snapshot, never an alias of a list changed later (an object of the
        # user's class: what its __iter__ or __getitem__ yields)
        return list(x)
    if hasattr(x, "__getitem__") and hasattr(x, "__len__"):
        return x
    return list(x)


def indexable_grad(g, x):
    """Adjoint of :func:`indexable`: identity, except that dict keys carry no gradient
    and an object of the user's class gets each item's gradient at the field that
    holds the item (its sparse record gradient)."""
    if isinstance(x, dict):
        return fill_like(None, x)
    if is_record(x):
        return _items_grad(g, x)
    return g


def indexable_tangent(t, x):
    """Tangent of :func:`indexable` (the transpose of :func:`indexable_grad`): the
    items' tangents, read from an object's tangent at the fields that hold them."""
    if isinstance(x, dict):
        return zeros_like(list(x))
    if is_record(x):
        return _items_tangent(t, x)
    return t


def _item_places(x):
    """What iterating the user's object ``x`` yields, and where each item is held: the
    (field, None) or (field, index into a list or tuple field) holding that very
    object.  An item that carries a gradient and is held nowhere (a value ``__iter__``
    computes, a view of an array field) is refused: its gradient could not be put
    anywhere."""
    items = list(x)
    fields = fields_of(x)
    where = {}
    for name, v in fields.items():
        where.setdefault(id(v), (name, None))
    for name, v in fields.items():
        if isinstance(v, (list, tuple)):
            for k, item in enumerate(v):
                where.setdefault(id(item), (name, k))
    places = []
    for i, item in enumerate(items):
        place = where.get(id(item))
        if place is None and carries_gradient(item) and not isinstance(item, (bool, int)):
            from ..errors import NonDifferentiableError
            raise NonDifferentiableError(
                f"srcgrad cannot follow a gradient through iterating a "
                f"{type(x).__qualname__} object: item {i} that it yields is not one of its "
                f"fields nor an item of a list or tuple field (a value __iter__ computes, "
                f"or a view); iterate over the field itself (for v in obj.items) or yield "
                f"the values the object holds")
        places.append(place)
    return items, places, fields


def _items_grad(g, x):
    items, places, fields = _item_places(x)
    if len(g) != len(items):
        raise ValueError(f"iterating a {type(x).__qualname__} object yielded {len(items)} "
                         f"items in the backward sweep, {len(g)} in the forward sweep")
    out = {}
    for gi, place in zip(g, places):
        if place is None or gi is None:
            continue
        name, k = place
        if k is None:
            out[name] = add_grads(out.get(name), gi)
            continue
        field = fields[name]
        cur = out.get(name)
        cur = [zeros_like(v) for v in field] if cur is None else list(cur)
        cur[k] = add_grads(cur[k], gi)
        out[name] = tuple(cur) if isinstance(field, tuple) else cur
    return out


def _items_tangent(t, x):
    items, places, fields = _item_places(x)
    out = []
    for item, place in zip(items, places):
        if place is None or t is None:
            out.append(zeros_like(item))
            continue
        name, k = place
        f = t.get(name) if isinstance(t, dict) else getattr(t, name, None)
        if f is not None and k is not None:
            f = f[k] if isinstance(f, (list, tuple)) else None
        out.append(zeros_like(item) if f is None else f)
    return out


def keys_of(d):
    """The keys of a dict, as a list (loops over ``d.items()`` index them)."""
    return list(d)


def _plain_array(x):
    return isinstance(x, (np.ndarray, np.generic, float, int)) or \
        type(x).__module__.startswith("cupy")


def detach(x):
    """``x.detach()`` in transformed code: arrays and numbers are already plain values."""
    return x if _plain_array(x) else x.detach()


def data_of(x):
    """``x.data`` in transformed code: an array stays itself (not its memory buffer)."""
    return x if _plain_array(x) else x.data


# -- orders for sorted / max / min with key= (desugared by the compiler) --------------

def order_by(keys, reverse=False):
    """The positions of ``keys`` in sorted order (stable, as ``sorted`` is)."""
    return sorted(range(len(keys)), key=keys.__getitem__, reverse=bool(reverse))


def index_of_max(keys):
    """The first position of the largest key (``max(xs, key=f)`` returns that item)."""
    best = 0
    for i in range(1, len(keys)):
        if keys[i] > keys[best]:
            best = i
    return best


def index_of_min(keys):
    """The first position of the smallest key."""
    best = 0
    for i in range(1, len(keys)):
        if keys[i] < keys[best]:
            best = i
    return best


__all__ += ["order_by", "index_of_max", "index_of_min"]
