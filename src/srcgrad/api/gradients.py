"""The public transformations: thin wrappers over the compiler driver.

Each one resolves ``wrt`` against the call's arguments, picks
the cached generated function for that case, and calls it.
"""
import functools
import types
import inspect

import gast
import numpy as np

from .. import rules, runtime
from ..errors import UnsupportedSyntaxError, NonDifferentiableError
from ..compiler import sourcemap
from ..compiler.source import check_function, unwrap
from ..compiler.driver import reverse_function
from ..compiler.dynamic import trampoline
from ..compiler.nested import fresh_record, grad_of_args, grad_of_one, grad_with_aux
from .read_as import as_one_tuple, declared_function
from ..compiler.analysis.kinds import argument_kind
from ..compiler.cache import still_valid
from . import cached_call
from .specialized import Specializations

_MISS = cached_call.MISS


# -- wrt ---------------------------------------------------------------------

def _is_tensor(x):
    return type(x).__name__ == "Tensor" and hasattr(x, "requires_grad") and hasattr(x, "grad_fn")


def _is_float(x):
    if isinstance(x, bool):
        return False
    if isinstance(x, (float, complex)):
        return True
    dt = getattr(x, "dtype", None)
    if dt is not None and getattr(x, "shape", None) is not None:
        return getattr(dt, "kind", "") in "fc"
    if isinstance(x, (dict,)):
        return bool(x) and all(_is_float(v) for v in x.values())
    if isinstance(x, (list, tuple)):
        return bool(x) and all(_is_float(v) for v in x)
    if runtime.is_record(x):
        # (a dataclass or an object of parameters may hold settings too: integers get
        # zeros, functions and strings stay as they are)
        return any(_is_float(v) for v in runtime.fields_of(x).values())
    return False


_kind = argument_kind     # (compiler/analysis/kinds.py)


class _Signature:
    """The parameter names of a function and how a call binds to them."""

    def __init__(self, func):
        self.sig = inspect.signature(func, follow_wrapped=False)
        self.names = list(self.sig.parameters)
        self.simple = all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                          for p in self.sig.parameters.values())

    def bind(self, args, kwargs):
        if self.simple and not kwargs and len(args) == len(self.names):
            return dict(zip(self.names, args))
        b = self.sig.bind(*args, **kwargs)
        passed = set(b.arguments)
        b.apply_defaults()
        out = _Bound(b.arguments)
        out.defaulted = frozenset(out) - passed
        return out

    def call(self, fn, bound):
        """Call ``fn`` (generated with this signature) with the arguments ``bound``
        binds: ``*args`` spread, keyword-only and ``**kwargs`` by name."""
        if self.simple:
            return fn(*bound.values())      # (bound is in signature order, complete)
        args, kwargs = [], {}
        for name, p in self.sig.parameters.items():
            if name not in bound:
                continue
            v = bound[name]
            if p.kind is p.VAR_POSITIONAL:
                args.extend(v)
            elif p.kind is p.VAR_KEYWORD:
                kwargs.update(v)
            elif p.kind is p.KEYWORD_ONLY:
                kwargs[name] = v
            else:
                args.append(v)
        return fn(*args, **kwargs)


def _resolve_wrt(wrt, sig, func):
    """wrt as given by the user -> (tuple of parameter names, single?) or None for 'leaves'."""
    if wrt is None:
        return None, None
    items = wrt if isinstance(wrt, (tuple, list)) else (wrt,)
    out = []
    for w in items:
        if isinstance(w, int) and not isinstance(w, bool):
            if not -len(sig.names) <= w < len(sig.names):
                raise ValueError(f"wrt={w} is out of range: {func.__qualname__} has "
                                 f"{len(sig.names)} parameters {sig.names}")
            out.append(sig.names[w])
        elif isinstance(w, str):
            if w not in sig.names:
                raise ValueError(f"wrt={w!r} is not a parameter of {func.__qualname__} "
                                 f"(parameters: {sig.names})")
            out.append(w)
        else:
            raise TypeError(f"wrt must be an int position, a parameter name, or a tuple of "
                            f"them; got {w!r}")
    return tuple(out), not isinstance(wrt, (tuple, list))


class _Bound(dict):
    """The arguments of a call by parameter name, defaults included; ``defaulted``:
    the parameters the call did not pass."""
    defaulted = frozenset()


def _leaves(bound):
    """What ``wrt=None`` differentiates: the floating-point arguments the call passes
    (a default it did not pass is not one: ``def f(a, guess=10.0)``, ``grad(f)(2.0)``
    is d/da, as in autograd and JAX), or its Tensors that require grad."""
    tensors = [n for n, v in bound.items() if _is_tensor(v)]
    if tensors:
        return tuple(n for n in tensors if bound[n].requires_grad)
    skip = getattr(bound, "defaulted", ())
    return tuple(n for n, v in bound.items() if n not in skip and _is_float(v))


def _unwrap_tensors(bound):
    """Tensor arguments become arrays; returns (bound, tensor_names)."""
    tnames = [n for n, v in bound.items() if _is_tensor(v)]
    if not tnames:
        return bound, ()
    bound = dict(bound)
    for n in tnames:
        bound[n] = bound[n].detach().numpy() if hasattr(bound[n], "numpy") else bound[n].data
    return bound, tnames


def _rewrap(value, like):
    from ..tensor import tensor as _t  # noqa: F401
    from .. import tensor as T
    if isinstance(value, tuple):
        return tuple(_rewrap(v, like) for v in value)
    return T.Tensor._from_array(np.asarray(value)) if hasattr(T.Tensor, "_from_array") else \
        T.tensor(np.asarray(value))


_NO_SELF = object()


def plain_function(f):
    """The Python function srcgrad transforms for ``f``: ``f`` itself (behind a method or
    a srcgrad wrapper), or, for a callable that is not a def (``np.sin``, a
    ``functools.partial``, a callable object), a small function that calls it."""
    func = unwrap(f)
    refused = getattr(func, "__srcgrad_refused__", None)
    if refused is not None:     # (a result of sg.jacobian / sg.hvp with no code form)
        raise NonDifferentiableError(refused)
    ruled = next((g for g in (f, func) if not isinstance(g, type) and
                  rules.lookup(g) is not None), None)
    if ruled is not None:
        # a function with a rule (scipy.special.logsumexp, st.norm.logpdf) is its rule,
        # never its library source
        made = trampoline(ruled)
        if made is not None:
            return made
    if isinstance(func, types.FunctionType) and hasattr(func, "__wrapped__"):
        return declared_function(func)
    if isinstance(func, types.FunctionType) or isinstance(func, type) or \
            _is_derivative_like(func):
        return func
    made = trampoline(func)
    return made if made is not None else func


def refuse_generator(f):
    """A generator function is differentiated only where differentiated code iterates
    over it (as the list of what it yields); its own derivative is refused at its
    first ``yield``."""
    func = unwrap(f)
    if not inspect.isgeneratorfunction(func):
        return
    from ..compiler.source import get_function_ast
    fdef, info = get_function_ast(func)
    first = next((n for n in gast.walk(fdef) if isinstance(n, (gast.Yield, gast.YieldFrom))),
                 fdef)
    raise info.error(first, f"srcgrad does not differentiate the generator function "
                            f"{func.__qualname__} itself (yield); a differentiated function "
                            f"may iterate over it, or return a list of values instead")


def _is_derivative_like(f):
    return isinstance(f, Transformed)


class Transformed:
    """A transformed function: call it, or read its generated ``.source``."""

    def __init__(self, func, wrt, mode, has_aux=False, debug=False, specialize=True):
        refuse_generator(func)
        self.__srcgrad_wrapped__ = func
        self.has_aux = has_aux
        self.debug = debug          # run the generated code from a real file
        # a derivative of a derivative transforms the inner one's generated code
        self.inner = func if _is_derivative(func) else None
        # a bound method (model.loss): self is passed along, never differentiated
        self.bound_self = func.__self__ if isinstance(func, types.MethodType) else _NO_SELF
        self.func = plain_function(func)
        if getattr(self.func, "__srcgrad_called__", None) is func:
            self.bound_self = _NO_SELF      # (a method with a rule: called as it is)
            self.__srcgrad_wrapped__ = self.func
        check_function(self.func)   # a class, a non-callable: a clear TypeError now
        self.sig = _Signature(self.func)
        if self.bound_self is not _NO_SELF and isinstance(wrt, (int, tuple, list)):
            # positions count the method's visible parameters, as for any function
            shift = (lambda w: w + 1 if isinstance(w, int) and w >= 0 else w)
            wrt = tuple(map(shift, wrt)) if isinstance(wrt, (tuple, list)) else shift(wrt)
        self.wrt_names, self.single = _resolve_wrt(wrt, self.sig, self.func)
        self.mode = mode
        # with has_aux, f returns (out, aux): the split form, seeded on out only
        self.compile_mode = "split" if has_aux else mode
        self._last = None
        self._fast = {}
        # code specialized to each call's argument shapes (api/specialized.py)
        self._shapes = Specializations(
            specialize and self.inner is None and not has_aux and mode in ("grad",
                                                                           "value_and_grad"))
        self._by_types = {}     # argument types -> CachedCall (api/cached_call.py)
        self._lookup = self._hit_of_types
        self._hot = self._lookup    # the guard of the last hit taken, or the lookup
        self.no_self = _NO_SELF
        functools.update_wrapper(self, self.func)
        self.__wrapped__ = None  # keep inspect from unwrapping to the primal
        del self.__wrapped__

    def __srcgrad_trace__(self, args, kwargs):
        """For a call of this derivative from differentiated code resolved at run time
        (compiler/dynamic.py): (the generated function it runs for these arguments,
        its positional arguments, its keywords, how many positional arguments were
        put in front)."""
        if self.has_aux and self.mode in ("grad", "value_and_grad") and not kwargs and \
                self.sig.simple and self.bound_self is _NO_SELF and \
                len(args) == len(self.sig.names):
            # f returns (value, aux): Python that calls it and pulls back the value
            wrt, single = self._select(self.sig.bind(tuple(args), {}))
            at = tuple(self.sig.names.index(w) for w in wrt)
            return grad_with_aux, (self.func, at, single, self.mode == "value_and_grad") + \
                tuple(args), kwargs, 4
        if self.mode not in ("grad", "value_and_grad") or self.has_aux:
            raise NonDifferentiableError(
                f"{self!r} (mode {self.mode!r}{', has_aux' if self.has_aux else ''}) cannot "
                f"be differentiated again; transform the function itself")
        front = 0
        if self.bound_self is not _NO_SELF:
            args = (self.bound_self,) + tuple(args)
            front = 1
        return self.as_called(self.sig.bind(tuple(args), dict(kwargs))), tuple(args), \
            kwargs, front

    def __srcgrad_held_trace__(self, args, kwargs):
        """As :meth:`__srcgrad_trace__`, for a call whose own gradient is asked where
        the generated code holds what the function holds under other names
        (compiler/dynamic.py): Python that calls sg.vjp of the function, taking it as
        its first argument; None where that form does not apply (sg.grad of a
        function of its positional arguments, all given, without keywords)."""
        if self.mode != "grad" or self.has_aux or kwargs or not self.sig.simple or \
                self.bound_self is not _NO_SELF or len(args) != len(self.sig.names):
            return None
        if len(args) == 1 and (self.wrt_names is None or self.single):
            return grad_of_one, (self.func, args[0]), {}, 1
        wrt, single = self._select(self.sig.bind(tuple(args), {}))
        at = tuple(self.sig.names.index(w) for w in wrt)
        return grad_of_args, (self.func, at, single) + tuple(args), {}, 3

    def as_called(self, bound):
        """The generated function for these arguments, returning what a call of this
        derivative returns (``wrt=(0,)``: a 1-tuple), for a transformation to read."""
        fn = self.generated(bound)
        if self.wrt_names is not None and not self.single and len(self.wrt_names) == 1:
            fn = as_one_tuple(fn, self.mode, self.sig)
        return fn

    def _hit_of_types(self, args):
        """The cached call of ``args``'s types through its guard, which later calls
        try first; MISS when there is none or it does not apply."""
        hit = self._by_types.get(tuple(map(type, args)))
        if hit is None:
            return cached_call.MISS
        if hit.guard is None:
            hit.guard = cached_call.build_guard(hit, self.func, _with_input_dtypes)
        self._hot, self._last = hit.guard, hit.fn
        return hit.guard(args)

    def _select(self, bound, leaves=None):
        if self.wrt_names is None:
            wrt = _leaves(bound) if leaves is None else leaves
            single = len(wrt) == 1
        else:
            wrt, single = self.wrt_names, self.single
        return wrt, single

    def compiled(self, bound, leaves=None):
        self._hot = self._lookup        # (the last hit's guard would leave _last stale)
        kinds = tuple(map(_kind, bound.values()))
        shapes = self._shapes.signature(bound.values(), kinds)
        fast_key = kinds if shapes is None else (kinds, shapes)
        if self.wrt_names is not None:
            # fast path: one dict lookup per call once this case is compiled
            hit = self._fast.get(fast_key)
            # (and nothing the generated code baked in has changed since)
            if hit is not None and hit[3] is self.func.__code__ and \
                    still_valid(hit[0], hit[4]) and \
                    (self.inner is None or self.inner.generated(bound) is hit[4]):
                self._last = hit[0]
                return hit[:3]
        wrt, single = self._select(bound, leaves)
        target = self.func if self.inner is None else self.inner.generated(bound)
        fn = reverse_function(target, wrt, self.compile_mode, dict(zip(bound, kinds)),
                              None if shapes is None else tuple(zip(bound, shapes)))
        if shapes is not None and not self._shapes.built(kinds, shapes, fn):
            fast_key = kinds        # (no shape changed the code: it serves every shape)
        if self.debug:
            fn = sourcemap.on_disk(fn)
        self._last = fn
        if self.wrt_names is not None:
            self._fast[fast_key] = (fn, wrt, single, self.func.__code__, target)
        return fn, wrt, single

    def generated(self, bound):
        """The generated Python function this derivative runs for these arguments."""
        return self.compiled(bound)[0]

    @property
    def source(self):
        if self._last is None:
            wrt = self.wrt_names if self.wrt_names is not None else tuple(self.sig.names)
            target = self.func
            if self.inner is not None:
                self.inner.source  # noqa: B018  (compiles the inner derivative)
                target = self.inner._last
            fn = reverse_function(target, wrt, self.compile_mode, {})
            self._last = fn
        fn = self._last
        if isinstance(fn, tuple):
            return "".join(f.source + "\n" for f in fn)
        return fn.source

    @property
    def debug_file(self):
        """With ``debug=True``: the file the last call's generated code runs from."""
        fn = self._last
        fn = fn[0] if isinstance(fn, tuple) else fn
        return fn.__code__.co_filename if fn is not None else None

    def __repr__(self):
        return f"<srcgrad {self.mode} of {self.func.__qualname__}>"


def _with_input_dtypes(grads, inputs, single):
    """Each gradient in its input's floating dtype (a float32 input gets a float32
    gradient even where the function mixed it with float64 constants), as
    PyTorch's leaves and JAX's grad do.  (On every call: the common cases return at
    once.)"""
    if single:
        return _dtype_like(grads, inputs[0])
    out = None
    for i, x in enumerate(inputs):
        if type(x) is float:
            continue
        g = grads[i]
        h = _dtype_like(g, x)
        if h is not g:
            if out is None:
                out = list(grads)
            out[i] = h
    return grads if out is None else tuple(out)


def _dtype_like(g, x):
    t = type(x)
    if t is float:
        return g
    if t is complex:        # a Python complex argument: a complex gradient, as autograd's
        return complex(g) if isinstance(g, (float, int)) and not isinstance(g, bool) else g
    if t is np.ndarray:
        dt = x.dtype
        if type(g) is np.ndarray and g.dtype == dt or dt.kind not in "fc":
            return g
    if isinstance(x, dict) and isinstance(g, dict):
        return {k: _dtype_like(g[k], x[k]) if k in x else g[k] for k in g}
    if isinstance(x, (list, tuple)) and isinstance(g, (list, tuple)) and len(g) == len(x):
        out = [_dtype_like(gi, xi) for gi, xi in zip(g, x)]
        return type(g)(out) if not hasattr(g, "_fields") else type(g)(*out)
    if runtime.is_record(x) and type(g) is type(x):
        fields = runtime.fields_of(x)
        new = {k: _dtype_like(v, fields[k]) for k, v in runtime.grad_fields(g).items()
               if k in fields}
        changed = {k: v for k, v in new.items() if v is not getattr(g, k)}
        return runtime.with_fields(g, changed) if changed else g
    return runtime.cast_like(g, x)


def _is_derivative(f):
    if isinstance(f, Transformed) and f.has_aux:
        raise NotImplementedError(
            f"{f!r} was taken with has_aux=True and cannot be transformed again; "
            f"transform the function itself")
    return isinstance(f, Transformed) and f.mode in ("grad", "value_and_grad")


def traced_function(f, bound):
    """The Python function a transformation reads for a call of ``f`` with ``bound``.

    A derivative made by srcgrad (``sg.grad(g)``) is its generated code for these
    arguments, so that derivatives compose (``sg.grad(sg.grad(g))``); anything
    else is the plain function behind ``f``.
    """
    if _is_derivative(f):
        return f.as_called(bound)
    return plain_function(f)


class GradFunction(Transformed):
    def __call__(self, *args, **kwargs):
        if not kwargs:
            # a call like one before: what it concluded, checked by the last hit's
            # guard, else by the hit of these argument types (api/cached_call.py)
            hot = self._hot
            try:
                out = hot(args)
                if out is _MISS and hot is not self._lookup:
                    out = self._lookup(args)
            except Exception as e:
                if isinstance(e, _OWN_ERRORS):
                    raise e.with_traceback(None)
                new = self._user_error(e)
                if new is None:
                    raise
                raise new from None
            if out is not _MISS:
                return out
        plain = args
        if self.bound_self is not _NO_SELF:
            args = (self.bound_self,) + args
        bound = self.sig.bind(args, kwargs)
        # with Tensors, the leaves are the ones that require grad: decide before unwrapping
        leaves = _leaves(bound) if self.wrt_names is None else None
        bound, tnames = _unwrap_tensors(bound)
        if not tnames:
            self._check_wrt(bound, leaves)
        try:
            fn, wrt, single = self.compiled(bound, leaves if tnames else None)
        except _OWN_ERRORS as e:
            raise e.with_traceback(None)    # located in the user's code: no srcgrad frames
        except runtime.OutputTypeError as e:    # a structured return, seen before running
            raise TypeError(f"{self.func.__qualname__}: {e}") from None
        try:
            if self.has_aux:
                value, aux, grads = self._call_with_aux(fn, bound)
                grads = grads[0] if len(wrt) == 1 else grads   # as grad mode returns them
            else:
                # (the common case inline: one srcgrad frame above the generated one)
                out = fn(*bound.values()) if self.sig.simple else self.sig.call(fn, bound)
        except _OWN_ERRORS as e:
            raise e.with_traceback(None)
        except Exception as e:
            new = self._user_error(e)
            if new is None:
                raise
            raise new from None
        if not tnames and not kwargs:
            # later calls with these argument types skip the steps above
            hit = cached_call.record(self, fn, wrt, single, plain)
            if hit is not None:
                # its guard built now, not in the next call (which a caller may measure);
                # the next call finds it by its types and makes it the one tried first
                hit.guard = cached_call.build_guard(hit, self.func, _with_input_dtypes)
                self._by_types[hit.types] = hit
        if not self.has_aux:
            value, grads = (None, out) if self.mode == "grad" else out
        if len(wrt) != 1 and not single:
            grads = tuple(grads) if len(wrt) > 1 else (grads,)
        elif len(wrt) == 1 and not single and self.wrt_names is not None:
            grads = (grads,)
        grads = _with_input_dtypes(grads, [bound[w] for w in wrt], single)
        if tnames:
            grads = _to_tensors(grads)
            if self.has_aux:
                aux = _arrays_to_tensors(aux)
        if self.mode == "grad":
            return (grads, aux) if self.has_aux else grads
        if tnames:
            value = _to_tensors(value)
        return ((value, aux), grads) if self.has_aux else (value, grads)

    def _user_error(self, e):
        """What an exception ``e`` from the generated code becomes for the user, or
        None for one raised as it is (with a note naming the user's line)."""
        if isinstance(e, runtime.OutputTypeError):
            return TypeError(f"{self.func.__qualname__}: {e}")
        if isinstance(e, runtime.NonScalarOutputError):
            return RuntimeError(_non_scalar_message(self.func.__qualname__, e.shape))
        sourcemap.point_home(e)
        return None

    def _call_with_aux(self, split, bound):
        """Run the split form of ``f -> (out, aux)`` seeded on ``out`` alone: the aux
        carries no gradient (as in JAX)."""
        fwd, bwd = split
        pair, saved = self.sig.call(fwd, bound)
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            got = (f"a {type(pair).__name__} of {len(pair)} items"
                   if isinstance(pair, (tuple, list)) else _describe(pair))
            raise TypeError(f"{self.func.__qualname__}: with has_aux=True the function must "
                            f"return a pair (output, aux), but it returned {got}")
        value, aux = pair
        cotangent = (runtime.seed(value), _zero_cotangent(aux))
        return value, aux, bwd(saved, cotangent)

    def _check_wrt(self, bound, leaves):
        """Differentiating with respect to integers (or nothing) gives no gradient: say so."""
        name = self.func.__qualname__
        if self.wrt_names is None:
            if not leaves:
                shown = ", ".join(f"{n}={_describe(v)}" for n, v in bound.items()) or "none"
                raise TypeError(
                    f"grad of {name}: no argument is floating-point (arguments: {shown}), so "
                    f"there is nothing to differentiate with respect to. Pass floats (1.0, not "
                    f"1; arrays of a float dtype), or name the parameters with wrt=.")
            return
        for n in self.wrt_names:
            v = bound.get(n)
            refuse_unstructured(self.func, "grad", n, v)
            if _is_integral(v):
                raise TypeError(
                    f"grad of {name} with respect to {n}: {n}={_describe(v)} is not "
                    f"floating-point, and an integer has no gradient. Pass a float (1.0, not 1; "
                    f"an array of a float dtype), or leave {n} out of wrt=.")


_OWN_ERRORS = (UnsupportedSyntaxError, NonDifferentiableError)


def api_boundary(fn):
    """``fn`` as a public entry point: srcgrad's own errors (located in the user's code)
    are raised without srcgrad's frames, and any other exception from generated code
    gets a note naming the user's file and line it came from."""
    @functools.wraps(fn)
    def entry(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except _OWN_ERRORS as e:
            raise e.with_traceback(None)
        except Exception as e:
            sourcemap.point_home(e)
            raise
    return entry


def _non_scalar_message(name, shape):
    shown = f"an output of shape {tuple(shape)}" if shape is not None else "a non-scalar output"
    return (f"grad can be implicitly created only for scalar outputs: {name} returned "
            f"{shown}. For the gradient of each entry use sg.jacobian(f); for a "
            f"vector-Jacobian product use sg.vjp(f, *args) and call its vjp_fn with a "
            f"cotangent of that shape; to return extra values beside a scalar loss, pass "
            f"has_aux=True and return (loss, aux).")


def _zero_cotangent(aux):
    """A zero cotangent shaped like ``aux`` (the aux output carries no gradient)."""
    if isinstance(aux, dict):
        return {k: _zero_cotangent(v) for k, v in aux.items()}
    if isinstance(aux, (list, tuple)):
        items = [_zero_cotangent(v) for v in aux]
        return type(aux)(*items) if hasattr(aux, "_fields") else type(aux)(items)
    if isinstance(aux, float):
        return 0.0
    dt = getattr(aux, "dtype", None)
    if dt is not None and getattr(aux, "shape", None) is not None and \
            runtime.dtype_kind(dt) in "fc":
        return runtime.zeros_like(aux)
    return None


def _arrays_to_tensors(x):
    """The aux output with its arrays as Tensors (other values as they are)."""
    if isinstance(x, dict):
        return {k: _arrays_to_tensors(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)) and not hasattr(x, "_fields"):
        return type(x)(_arrays_to_tensors(v) for v in x)
    return _to_tensors(x) if isinstance(x, np.ndarray) else x


def refuse_unstructured(func, what, name, value):
    """TypeError when ``value`` (the argument ``name`` is differentiated with respect to)
    is an object srcgrad cannot give a gradient of the same structure."""
    if _kind(value) not in ("other", "module") or _is_tensor(value) or value is None:
        return
    code = getattr(func, "__code__", None)
    where = f" ({code.co_filename}:{code.co_firstlineno})" if code else ""
    raise NonDifferentiableError(
        f"{what} of {getattr(func, '__qualname__', func)}{where} with respect to {name}: "
        f"{name} is a {type(value).__name__} object, and srcgrad differentiates with "
        f"respect to floats, arrays, and lists, tuples, dicts, namedtuples, dataclasses "
        f"or objects of the user's own classes holding them (a gradient of the same "
        f"structure). Pass its arrays as arguments.")


def _is_integral(v):
    """An int, a bool, or an array of integers or booleans."""
    t = type(v)
    if t is float:
        return False
    if t is np.ndarray:
        return v.dtype.kind in "biu"
    if isinstance(v, (bool, int)):
        return True
    dt = getattr(v, "dtype", None)
    return dt is not None and getattr(v, "shape", None) is not None and \
        runtime.dtype_kind(dt) in "biu"


def _describe(v):
    dt = getattr(v, "dtype", None)
    if dt is not None and getattr(v, "shape", None) is not None:
        return f"{type(v).__name__} of dtype {dt}"
    text = repr(v)
    return f"{type(v).__name__} {text if len(text) < 30 else text[:27] + '...'}"


def _to_tensors(x):
    from ..tensor import tensor as make
    if isinstance(x, tuple):
        return tuple(_to_tensors(v) for v in x)
    if isinstance(x, list):
        return [_to_tensors(v) for v in x]
    if isinstance(x, dict):
        return {k: _to_tensors(v) for k, v in x.items()}
    arr = np.asarray(x)
    return make(arr, dtype=None)


def _decorator(mode):
    def transform(f=None, wrt=None, *, has_aux=False, debug=False, argnum=None,
                  argnums=None, max_memory=None, specialize=True):
        # autograd spells wrt ``argnum``, JAX ``argnums``: accepted so their code ports as is
        if wrt is None:
            wrt = argnum if argnum is not None else argnums
        made = (lambda g, w: GradFunction(_budgeted(g, max_memory, w), w, mode, has_aux,
                                          debug, specialize))
        if f is None:
            return lambda g: made(g, wrt)
        if isinstance(f, (int, str, tuple)) and not callable(f):
            return lambda g: made(g, f)
        return made(f, wrt)
    # inside differentiated code, ``sg.grad(loss)`` of a closure holds what loss holds
    # (compiler/analysis/activity.py): its gradient is loss's
    transform.__srcgrad_wraps_function__ = True
    return transform


def _budgeted(f, max_memory, wrt):
    """``f`` with its loops checkpointed to ``max_memory`` bytes, differentiated with
    respect to ``wrt`` (compiler/lower/checkpoint.py)."""
    if max_memory is None:
        return f
    from ..compiler.lower.checkpoint import checkpointed
    if isinstance(f, types.MethodType):        # model.loss: its function, bound again
        shift = wrt + 1 if isinstance(wrt, int) and wrt >= 0 else wrt
        if isinstance(wrt, (tuple, list)):
            shift = tuple(w + 1 if isinstance(w, int) and w >= 0 else w for w in wrt)
        return types.MethodType(_budgeted(f.__func__, max_memory, shift), f.__self__)
    func = plain_function(f)
    if _is_derivative_like(f) or not isinstance(func, types.FunctionType):
        raise TypeError(f"max_memory: {f!r} is not a Python function whose loops srcgrad "
                        f"can checkpoint; pass max_memory to the innermost transformation")
    return checkpointed(func, max_memory, wrt)


grad = _decorator("grad")
grad.__doc__ = """Gradient of f's scalar output with respect to ``wrt``.

    ``sg.grad(f)``, ``@sg.grad`` or ``@sg.grad(wrt=...)``.  With ``has_aux=True``
    f returns ``(loss, aux)`` and the gradient function returns ``(grads, aux)``;
    the aux output carries no gradient.  ``max_memory=bytes`` checkpoints the function's
    outermost loops so that their reverse sweep keeps at most that many bytes (the same
    gradient, with steps recomputed).  The code of a call is specialized to its
    arguments' shapes where they prove an un-broadcast a no-op (another shape compiles
    again; ``specialize=False``: one code for every shape).  With ``debug=True`` the
    generated code runs from a real ``.py`` file (in ``SRCGRAD_DEBUG_DIR`` or a
    temporary folder) that debuggers and editors open; ``.debug_file`` is its path.  ``wrt`` is a parameter's
    position or name, or a tuple of them (``argnum``/``argnums`` are accepted too);
    ``None`` means every floating-point argument (with Tensors: those that require
    grad).  One gradient for a single ``wrt``, else a tuple; containers get gradients
    of the same structure; each gradient has its input's dtype.  ``.source`` is the
    generated Python.  See the README and docs/ for the whole API."""
value_and_grad = _decorator("value_and_grad")
value_and_grad.__doc__ = """Like grad, returning ``(value, grads)``; with ``has_aux=True``
    (f returns ``(loss, aux)``) it returns ``((loss, aux), grads)``."""


@api_boundary
def make_vjp(f, wrt, *example_args):
    """(fwd, bwd) for f and a tuple of parameter positions or names (split form).

    ``fwd(*args) -> (value, saved)``; ``bwd(saved, cotangent) -> tuple of grads``.
    With ``example_args``, the code is specialized on their kinds (Python
    scalars, arrays, containers) as ``grad`` does at call time.
    """
    func = unwrap(f)
    sig = _Signature(func)
    names = tuple(sig.names[w] if isinstance(w, int) else w for w in wrt)
    kinds = {}
    if example_args:
        kinds = {n: _kind(v) for n, v in sig.bind(example_args, {}).items()}
    return reverse_function(func, names, "split", kinds)


@api_boundary
def vjp(f, *args, wrt=None, max_memory=None, **kwargs):
    """``(out, vjp_fn)``: ``vjp_fn(cotangent)`` returns the gradients for ``wrt``."""
    f = _budgeted(f, max_memory, wrt)
    func = plain_function(f)
    check_function(func)
    sig = _Signature(func)
    bound = sig.bind(args, kwargs)
    leaves = _leaves(bound)          # decided before Tensors become arrays
    bound, tnames = _unwrap_tensors(bound)
    func = traced_function(f, bound)
    wrt_names, single = _resolve_wrt(wrt, sig, func)
    if wrt_names is None:
        wrt_names = leaves
        single = len(wrt_names) == 1
    kinds = {n: _kind(v) for n, v in bound.items()}
    fwd, bwd = reverse_function(func, wrt_names, "split", kinds)
    out, saved = sig.call(fwd, bound)

    @api_boundary
    def vjp_fn(cotangent):
        if hasattr(cotangent, "numpy") and _is_tensor(cotangent):
            cotangent = cotangent.detach().numpy()
        # the backward sweep pops its records and restores overwritten values: each
        # call works on its own copy, so that vjp_fn can be called again
        grads = bwd(fresh_record(saved), cotangent)
        res = _with_input_dtypes(grads[0] if single else tuple(grads),
                                 [bound[w] for w in wrt_names], single)
        return _to_tensors(res) if tnames else res
    vjp_fn.source = bwd.source
    return (_to_tensors(out) if tnames else out), vjp_fn


# inside differentiated code: resolved when it runs, as what it computes
# (compiler/nested.py: vjp_of)
vjp.__srcgrad_vjp__ = True
vjp.__srcgrad_resolved_when_run__ = True


@api_boundary
def source(f, wrt=None, mode="reverse", max_memory=None, args=None):
    """The generated Python source of f's derivative, as a string: the code for every
    shape, or with ``args`` (reverse mode) the code a call with these arguments runs,
    specialized to their shapes where that changes it (its docstring then says so)."""
    f = _budgeted(f, max_memory, wrt)
    if mode == "reverse":
        t = GradFunction(f, wrt, "grad")
        if args is not None:
            bound, _ = _unwrap_tensors(t.sig.bind(tuple(args), {}))
            t.compiled(bound)       # (compiles for these arguments, runs nothing)
        return t.source
    if mode in ("vjp", "split"):
        return GradFunction(f, wrt, "split").source
    if mode == "forward":
        return forward_source(f, wrt)
    raise ValueError(f"mode must be 'reverse', 'split' or 'forward', not {mode!r}")


def generated_functions(f, wrt=None, mode="reverse"):
    """The generated functions whose text ``source(f, wrt, mode)`` shows (one, or the
    split form's forward and backward), for tools that show them beside ``f``."""
    if mode == "forward":
        return (_forward_function(f, wrt),)
    if mode not in ("reverse", "vjp", "split"):
        raise ValueError(f"mode must be 'reverse', 'split' or 'forward', not {mode!r}")
    t = GradFunction(f, wrt, "grad" if mode == "reverse" else "split")
    t.source  # noqa: B018  (compiles it)
    return t._last if isinstance(t._last, tuple) else (t._last,)


def forward_source(f, wrt=None):
    """The generated forward-mode source of ``f`` (``sg.source(f, mode="forward")``).

    ``wrt=None`` gives every parameter a tangent (no arguments to look at).
    """
    return _forward_function(f, wrt).source


def _forward_function(f, wrt):
    if _is_derivative(f):
        f.source  # noqa: B018  (compiles f's generated code)
        target = f._last
    else:
        target = unwrap(f)
    sig = _Signature(unwrap(f))
    names, _ = _resolve_wrt(wrt, sig, target)
    if names is None:
        names = tuple(sig.names)
    from ..compiler.modes.forward import forward_function
    return forward_function(target, names)


def adjoint(func):
    """Register the user's own reverse derivative of ``func``; it is inlined in generated code.

        @sg.adjoint(my_op)
        def my_op_adjoint(g, ans, x, y):
            return g * y, g * x          # one cotangent per parameter of my_op

    The adjoint's parameters are ``g``, ``ans`` and the parameters of ``func``;
    it returns one gradient per parameter (a tuple if there are several).
    """
    def register(adj):
        params = list(inspect.signature(func, follow_wrapped=False).parameters.values())
        pnames = [p.name for p in params]
        params_src = ", ".join(str(p) for p in params)
        key = f"_adjoint_{len(_USER_ADJOINTS)}"
        checked = checked_adjoint(adj, func, pnames)
        _USER_ADJOINTS[key] = checked
        rules.add_kernel(key, checked)
        call = f"{key}(g, ans, {', '.join(pnames)})"
        vjp = {p: (call if len(pnames) == 1 else f"{call}[{i}]") for i, p in enumerate(pnames)}
        existing = rules.lookup(func)
        jvp = existing.jvp if existing else {}
        rules.defrule(func, params_src, vjp=vjp, jvp=jvp,
                      name=getattr(func, "__name__", None), user=True)
        return adj
    return register


_USER_ADJOINTS = {}


def _stop(x):
    """The value of x with no gradient flowing through it."""
    if _is_tensor(x):
        return x.detach()
    return x


def detach(x):
    """``x`` with no gradient flowing through it (also inside transformed code)."""
    return _stop(x)


detach.__srcgrad_stop_gradient__ = True


def _qualname(f):
    return getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or repr(f)


def check_like(value, like, what, where):
    """Raise a TypeError/ValueError naming ``where`` unless ``value`` has the structure and
    shape of ``like`` (a user's adjoint or tangent result against what it stands for)."""
    if isinstance(like, (list, tuple, dict)):
        if isinstance(like, dict):
            if not isinstance(value, dict) or set(value) - set(like):
                raise TypeError(f"{where} returned {_shown(value)} for {what}, a dict with "
                                f"keys {sorted(like, key=str)}: return a dict with those keys")
            for k, v in value.items():
                check_like(v, like[k], f"{what}[{k!r}]", where)
            return
        if not isinstance(value, (list, tuple)) or len(value) != len(like):
            raise TypeError(f"{where} returned {_shown(value)} for {what}, a "
                            f"{type(like).__name__} of {len(like)} items: return one "
                            f"gradient per item")
        for i, (v, x) in enumerate(zip(value, like)):
            check_like(v, x, f"{what}[{i}]", where)
        return
    if value is None or not _is_float(like) and not hasattr(like, "shape"):
        return          # no gradient, or an argument that carries none (int, str)
    vs, ls = np.shape(value), np.shape(like)
    if vs != ls:
        raise ValueError(f"{where} returned a value of shape {vs} for {what}, which has "
                         f"shape {ls}: it must have the shape of {what}")


def _shown(v):
    if isinstance(v, (list, tuple)):
        return f"a {type(v).__name__} of {len(v)} items"
    if hasattr(v, "shape"):
        return f"an array of shape {v.shape}"
    return f"{type(v).__name__} {v!r}"[:60]


def checked_adjoint(adj, func, pnames):
    """``adj`` with its result checked: one gradient per parameter of ``func`` (a tuple
    when there are several), each of its argument's shape and structure."""
    where = f"the adjoint {_qualname(adj)} of {_qualname(func)}"

    def adjoint_checked(g, ans, *args):
        out = adj(g, ans, *args)
        if len(pnames) == 1:
            check_like(out, args[0], f"its argument {pnames[0]}", where)
            return out
        if not isinstance(out, (tuple, list)) or len(out) != len(pnames):
            raise TypeError(f"{where} returned {_shown(out)}; it must return a tuple of "
                            f"{len(pnames)} gradients, one per parameter "
                            f"({', '.join(pnames)}; None for one without a gradient)")
        for p, v, x in zip(pnames, out, args):
            check_like(v, x, f"its argument {p}", where)
        return out
    adjoint_checked.__wrapped__ = adj
    # a derivative of a derivative differentiates the adjoint itself, as srcgrad reads
    # it (its checks carry no gradient)
    adjoint_checked.__srcgrad_transformable__ = True
    return adjoint_checked


check_like.__srcgrad_stop_gradient__ = True
_shown.__srcgrad_stop_gradient__ = True
_qualname.__srcgrad_stop_gradient__ = True
