"""The cached call of a gradient: one dictionary lookup on the arguments' types.

``sg.grad(f)(x)`` binds the arguments to ``f``'s parameters, works out their kinds,
checks ``wrt``, finds the generated code and checks it is still current.  Once one
call has done all that, a :class:`CachedCall` remembers what those steps
concluded for that tuple of argument types, and later calls with the same types
do only what could change from call to call.

Guarantees:

* A hit is recorded only for positional calls (no keywords, no bound ``self``, no
  Tensors, no ``has_aux``, no derivative of a derivative) whose argument types
  alone decide every kind the compiler specializes on: Python floats and ints,
  NumPy arrays and NumPy scalars, and (when ``wrt`` is given) lists, tuples and
  dicts.  Anything else takes the full path every time.
* Each call still checks what a type does not tell: the function's code object
  is the one compiled, every global and closure value the generated code baked in
  is unchanged (:meth:`Dependencies.valid`), and each array whose dtype decides
  ``wrt`` or its error (an integer array) has the dtype kind it had.  When one of
  these fails the call takes the full path, which recompiles or raises.
* The result is what the full path returns: the same gradients, structure and
  dtypes (``_with_input_dtypes`` runs unless every input differentiated is a
  Python float), and errors from the generated code get the same handling.
"""
import numpy as np

# types whose kind, float-ness and Tensor-ness the type alone decides (arrays: with
# their dtype kind, checked on each call)
_SCALARS = frozenset({float, int})
_ARRAYS = frozenset({np.ndarray, np.float64, np.float32, np.float16, np.complex128,
                     np.complex64, np.int64, np.int32})
_CONTAINERS = frozenset({list, tuple, dict})


class CachedCall:
    """What a full call concluded for one tuple of argument types."""

    __slots__ = ("fn", "code", "deps", "dtype_checks", "wrt_pos", "single", "wrap",
                 "cast", "value_and_grad", "dtypes", "unguarded",
                 "as_is")

    def __init__(self, fn, code, deps, dtype_checks, wrt_pos, single, wrap, cast,
                 value_and_grad, dtypes=None):
        self.fn, self.code, self.deps = fn, code, deps
        self.dtype_checks = dtype_checks      # ((position, dtype kind), ...)
        self.wrt_pos, self.single, self.wrap = wrt_pos, single, wrap
        self.cast, self.value_and_grad = cast, value_and_grad
        # every input differentiated an array (the common case): their dtypes, compared
        # as one tuple before the call (in place of the kinds) and with the gradients'
        self.dtypes = dtypes
        # nothing to check beyond the types and the code (Python scalars only, nothing
        # baked in): the caller tests the code object and calls at once
        self.unguarded = dtypes is None and not dtype_checks and deps is None
        # the generated function's result is the call's result as it is
        self.as_is = not (value_and_grad or wrap or cast)

    def current(self, func, args):
        """Is this hit still what the full path would conclude for ``args``?  (The
        caller has checked that ``func.__code__`` is ``self.code``.)"""
        dts = self.dtypes
        if dts is None:
            for i, kind in self.dtype_checks:
                if args[i].dtype.kind != kind:
                    return False
        else:
            for i, dt in zip(self.wrt_pos, dts):
                got = args[i].dtype
                if got is not dt and got != dt:
                    return False
        deps = self.deps
        return deps is None or deps.valid(func)

    def same_dtypes(self, grads, args):
        """Has each gradient its input's dtype already (so no cast is needed)?  Only
        the common cases answer yes; the others go through ``_with_input_dtypes``."""
        if self.single:
            grads = (grads,)
        dts = self.dtypes
        if dts is not None:
            if len(grads) != len(dts):
                return False
            for g, dt in zip(grads, dts):
                if type(g) is not np.ndarray:
                    return False
                got = g.dtype
                if got is not dt and got != dt:
                    return False
            return True
        for g, i in zip(grads, self.wrt_pos):
            x = args[i]
            if type(x) is float:
                continue
            if type(x) is not np.ndarray or type(g) is not np.ndarray or g.dtype != x.dtype:
                return False
        return True



def record(t, fn, wrt, single, args):
    """A :class:`CachedCall` for this full call of ``t`` (a GradFunction), or None
    when the argument types do not decide what the full path decided."""
    if t.bound_self is not t.no_self or t.has_aux or t.inner is not None or \
            not t.sig.simple or len(args) != len(t.sig.names) or not wrt:
        return None
    names = t.sig.names
    wrt_pos = tuple(names.index(w) for w in wrt)
    checks = []
    for i, a in enumerate(args):
        ty = type(a)
        if ty in _SCALARS:
            continue
        if ty in _ARRAYS:
            # wrt=None: an array's dtype decides whether it is differentiated;
            # explicit wrt: whether it is refused (integers)
            if t.wrt_names is None or i in wrt_pos:
                checks.append((i, a.dtype.kind))
            continue
        if ty in _CONTAINERS and t.wrt_names is not None:
            continue        # (with wrt=None their contents decide: not cached)
        return None
    deps = getattr(fn, "__srcgrad_deps__", None)
    if deps is not None and not (deps.globals or deps.cells or deps.inherited):
        deps = None         # (nothing baked in: nothing to check on each call)
    # the gradients' structure: what __call__ does after the generated call
    wrap = len(wrt) == 1 and not single and t.wrt_names is not None
    cast = any(type(args[i]) is not float for i in wrt_pos)
    dtypes = None
    if t.wrt_names is not None and all(type(args[i]) is np.ndarray for i in wrt_pos):
        dtypes = tuple(args[i].dtype for i in wrt_pos)
    return CachedCall(fn, t.func.__code__, deps, tuple(checks), wrt_pos, single, wrap, cast,
                      t.mode == "value_and_grad", dtypes)


def key(args):
    """The cache key of a call: its arguments' types."""
    return tuple(map(type, args))
