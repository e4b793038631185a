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
  ``wrt`` or its error (an integer array) has the dtype kind it had; for code
  specialized to the arguments' shapes, each array has the shape and dtype kind it
  had.  When one of
  these fails the call takes the full path, which recompiles or raises.
* The result is what the full path returns: the same gradients, structure and
  dtypes (``_with_input_dtypes`` runs unless every input differentiated is a
  Python float), and errors from the generated code get the same handling.
* The checks of a hit run as one small generated function, its *guard*
  (:func:`build_guard`): the argument tuple unpacked, each check one comparison
  on a local, no loop per call.  For specialized code, every array's shape and
  dtype go into one tuple compared with the recorded one; only when that fails do
  the checks run one by one (which accept a dtype equal to the recorded one but
  another object, and, for an array not differentiated, any dtype of its kind).  Its text is registered with
  ``linecache`` (``<srcgrad cached call #N>``), so a traceback through it shows
  its lines.
"""
import types

import numpy as np

from ..compiler import cache, sourcemap

MISS = object()     # what a guard returns when its hit does not apply to the call
_CODES = {}         # a guard's text -> its compiled code (build_guard)

# types whose kind, float-ness and Tensor-ness the type alone decides (arrays: with
# their dtype kind, checked on each call)
_SCALARS = frozenset({float, int})
_ARRAYS = frozenset({np.ndarray, np.float64, np.float32, np.float16, np.complex128,
                     np.complex64, np.int64, np.int32})
_CONTAINERS = frozenset({list, tuple, dict})


class CachedCall:
    """What a full call concluded for one tuple of argument types."""

    __slots__ = ("fn", "code", "deps", "dtype_checks", "wrt_pos", "single", "wrap",
                 "cast", "value_and_grad", "dtypes", "as_is", "types", "guard",
                 "shape_checks", "seen")

    def __init__(self, fn, code, deps, dtype_checks, wrt_pos, single, wrap, cast,
                 value_and_grad, dtypes=None, types=None):
        self.fn, self.code, self.deps = fn, code, deps
        self.types = types                    # the argument types (the hit's key)
        self.guard = None                     # built on first use (build_guard)
        self.dtype_checks = dtype_checks      # ((position, dtype kind), ...)
        self.wrt_pos, self.single, self.wrap = wrt_pos, single, wrap
        self.cast, self.value_and_grad = cast, value_and_grad
        # every input differentiated an array (the common case): their dtypes, which
        # the guard compares (in place of the kinds) before the call and with the
        # gradients' after it
        self.dtypes = dtypes
        # the generated function's result is the call's result as it is
        self.as_is = not (value_and_grad or wrap or cast)
        # code specialized to the arguments' shapes: ((position, shape, dtype kind), ...)
        self.shape_checks = ()
        self.seen = ()          # the shapes and dtypes the guard compares in one go

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
    if all(type(args[i]) is np.ndarray for i in wrt_pos):
        # (with wrt=None too: an exact dtype decides its kind, so whether it is
        # differentiated; the other arrays' kinds are checked as before)
        dtypes = tuple(args[i].dtype for i in wrt_pos)
    hit = CachedCall(fn, t.func.__code__, deps, tuple(checks), wrt_pos, single, wrap, cast,
                     t.mode == "value_and_grad", dtypes, key(args))
    if getattr(fn, "__srcgrad_specialized__", False):
        # (a NumPy scalar's type decides its shape and dtype: the type check covers it)
        hit.shape_checks = tuple((i, a.shape, a.dtype.kind) for i, a in enumerate(args)
                                 if type(a) is np.ndarray)
        hit.seen = tuple(s for _, s, _ in hit.shape_checks) + \
            tuple(args[i].dtype for i in _dtype_positions(hit))
    return hit


def key(args):
    """The cache key of a call: its arguments' types."""
    return tuple(map(type, args))


def finish(hit, out, args, with_input_dtypes):
    """What the full path makes of the generated function's result ``out``: the value
    split from the gradients, a single gradient wrapped, the dtypes cast."""
    value, grads = (out if hit.value_and_grad else (None, out))
    if hit.wrap:
        grads = (grads,)
    if hit.cast and not hit.same_dtypes(grads, args):
        grads = with_input_dtypes(grads, [args[i] for i in hit.wrt_pos], hit.single)
    return (value, grads) if hit.value_and_grad else grads


def guard_source(hit):
    """The text of ``hit``'s guard: ``cached_call(args)`` returns the call's result, or
    MISS when a check fails (the caller then takes the full path).  The names it
    reads are :func:`build_guard`'s."""
    n = len(hit.types)
    a = [f"a{i}" for i in range(n)]
    lines = ["def cached_call(args):",
             "    try:",
             f"        {', '.join(a)}{',' if n == 1 else ''} = args",
             "    except ValueError:",
             "        return MISS",
             "    if " + " or ".join(f"type({v}) is not T{i}" for i, v in enumerate(a)) + ":",
             "        return MISS",
             "    if func.__code__ is not code:",
             "        return MISS"]
    exact = hit.wrt_pos if hit.dtypes is not None else ()
    checks = []
    if hit.dtypes is not None:
        lines += [f"    d{i} = a{i}.dtype" for i in hit.wrt_pos]
        for i in hit.wrt_pos:
            checks.append(f"d{i} is not D{i} and d{i} != D{i}")
    # (an exact dtype, checked above, decides its kind; with wrt=None an array not
    # differentiated keeps its kind)
    kinds = {i: kind for i, kind in hit.dtype_checks if i not in exact}
    for i, shape, kind in hit.shape_checks:
        checks.append(f"a{i}.shape != S{i}")
        if i not in exact:
            kinds[i] = kind
    checks += [f"a{i}.dtype.kind != {kind!r}" for i, kind in kinds.items()]
    if hit.shape_checks:
        # one comparison of every shape and dtype with the recorded ones (the common
        # case); only when it fails, the checks one by one (a dtype equal but not the
        # same object, another dtype of the same kind)
        seen = [f"a{i}.shape" for i, _, _ in hit.shape_checks] + \
            [f"d{i}" if i in exact else f"a{i}.dtype" for i in _dtype_positions(hit)]
        lines += [f"    if ({', '.join(seen)},) != K:"]
        lines += [f"        if {c}:\n            return MISS" for c in checks]
    else:
        lines += [f"    if {c}:\n        return MISS" for c in checks]
    deps = hit.deps
    if deps is not None:
        if deps.cells or deps.inherited:
            lines += ["    if not deps.valid(func):", "        return MISS"]
        else:
            for j, (name, token) in enumerate(deps.globals):
                if token is cache._DATA:
                    test = f"not isinstance(G.get({name!r}, MISSING), DATA_TYPES)"
                else:
                    test = f"G.get({name!r}, MISSING) is not g{j}"
                lines += [f"    if {test}:", "        return MISS"]
    lines.append(f"    out = fn({', '.join(a)})")
    if hit.as_is:
        lines.append("    return out")
        return "\n".join(lines) + "\n"
    if hit.dtypes is not None and not (hit.value_and_grad or hit.wrap):
        # every input differentiated an array: gradients of their dtypes need nothing more
        if hit.single:
            i, = hit.wrt_pos
            lines += [f"    if type(out) is ndarray and out.dtype is d{i}:", "        return out"]
        else:
            k = len(hit.wrt_pos)
            o = [f"o{i}" for i in hit.wrt_pos]
            lines += [f"    if type(out) is tuple and len(out) == {k}:",
                      f"        {', '.join(o)} = out",
                      "        if " + " and ".join(f"type({v}) is ndarray" for v in o) + " and \\",
                      "                " + " and ".join(f"{v}.dtype is d{i}" for v, i in
                                                       zip(o, hit.wrt_pos)) + ":",
                      "            return out"]
    lines.append("    return finish(out, args)")
    return "\n".join(lines) + "\n"


def _dtype_positions(hit):
    """The positions whose dtype the guard's one comparison includes: the inputs
    differentiated (exact dtypes) or those with a dtype-kind check, then every array
    whose shape it checks."""
    first = hit.wrt_pos if hit.dtypes is not None else tuple(i for i, _ in hit.dtype_checks)
    return first + tuple(i for i, _, _ in hit.shape_checks if i not in first)


def build_guard(hit, func, with_input_dtypes):
    """``hit``'s guard for calls of ``func`` (see :func:`guard_source`).  Its text
    names no value, so one compiled code object serves every hit of the same shape
    (a call alternating dtypes records hit after hit: no new code, no new file)."""
    text = guard_source(hit)
    code = _CODES.get(text)
    if code is None:
        filename = f"<srcgrad cached call #{len(_CODES) + 1}>"
        sourcemap.register(filename, text, None, "the cached call", {})
        module = compile(text, filename, "exec")
        code = _CODES[text] = next(c for c in module.co_consts if isinstance(c, types.CodeType))
    env = {"MISS": MISS, "MISSING": cache._MISSING, "DATA_TYPES": cache._DATA_TYPES,
           "ndarray": np.ndarray, "fn": hit.fn, "func": func, "code": hit.code,
           "deps": hit.deps, "G": func.__globals__,
           "finish": lambda out, args: finish(hit, out, args, with_input_dtypes),
           "type": type, "len": len, "isinstance": isinstance}
    env.update((f"T{i}", t) for i, t in enumerate(hit.types))
    if hit.dtypes is not None:
        env.update((f"D{i}", dt) for i, dt in zip(hit.wrt_pos, hit.dtypes))
    env.update((f"S{i}", shape) for i, shape, _ in hit.shape_checks)
    if hit.shape_checks:
        env["K"] = hit.seen
    if hit.deps is not None:
        env.update((f"g{j}", token) for j, (_, token) in enumerate(hit.deps.globals))
    return types.FunctionType(code, env, "cached_call")
