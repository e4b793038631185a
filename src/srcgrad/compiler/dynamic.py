"""Calls whose callee is known only when they run: ``f(a)`` with ``f`` a parameter, a
default (``nonlinearity=np.tanh``), an item of a list or dict of functions, the result
of a factory (``make_loss(data)(w)``), a method of an object held in a list
(``layer.forward(x)``), a ``functools.partial``.

Generated code calls :func:`call_forward` where the user's code called the callee,
and :func:`call_backward` where its adjoint goes::

    y, f_record = call_forward(f, (0,), "model.py:12", a, b)    # forward sweep
    grads = call_backward(f_record, dy)                          # reverse sweep

``wrt`` lists the positions (ints) and keywords (strs) of the arguments that carry a
gradient.  The callee is resolved at that moment: a primitive of the rule table runs
its rule; a Python function is compiled by srcgrad (split form, cached by its code
and the arguments' kinds, as any callee) and run.  Anything else raises a
NonDifferentiableError naming the call site.  Values a callee holds besides its
arguments (a closure's cells, a partial's bound arguments, a method's object) are
constants here: the compiler refuses a call of a callee built from values that carry
a gradient (analysis/activity.py), so that none is silently dropped.
"""
import functools
import inspect
import types

from ..errors import NonDifferentiableError, UnsupportedSyntaxError
from .. import rules, runtime
from ..runtime import records
from . import construct
from .source import library_name
from .analysis.activity import writes_attributes as attribute_writes
from .analysis.kinds import argument_kind

_SIGNATURES = {}        # code object -> Signature

# the compilers of a Python callee, installed by compiler/driver.py (reverse: split
# form) and compiler/modes/forward.py (forward), which import this module
BUILD = {}


def use(kind, build):
    BUILD[kind] = build


# calls of generated code's own run-time calls (``call_forward`` differentiated again:
# grad of grad): {id(function): unfold(args, kwargs, site, wrt)}, ``wrt`` the positions
# and keywords of ``args`` whose gradients (or tangents) are asked for; and the
# functions of nested.py this module calls by name ("calling", "split_backward"),
# installed by compiler/nested.py (which compiler/driver.py imports)
NESTED = {}
JVP_OF = []             # [nested.jvp_of]
HELD_AT = {}            # {id(nested.split_forward / star_apply): its held dict's position}


_SITES = {}             # "model.py:12" -> "/path/to/model.py:12"


def site(filename, lineno):
    """How generated code names a call site (``"model.py:12"``); errors raised when the
    call runs name the full path."""
    short = f"{filename.rsplit('/', 1)[-1]}:{lineno}"
    _SITES[short] = f"{filename}:{lineno}"
    return short


def _full(site):
    return _SITES.get(site, site)


def _signature(func):
    code = getattr(func, "__code__", None)
    sig = _SIGNATURES.get(code) if code is not None else None
    if sig is None:
        sig = inspect.signature(func, follow_wrapped=False)
        if code is not None:
            _SIGNATURES[code] = sig
    return sig


def _target(f, args, kwargs, site, own=False):
    """(plain callable, positional args, keyword args, positions added in front, what
    the callee itself holds): ``"self"`` when the first added position is the callee's
    own object (a bound method's, a callable object), None when it holds nothing that
    can carry a gradient, else a description of what it holds.  What it holds is looked
    at only when its own gradient is asked for (``own``: a walk of a closure's cells)."""
    front = 0
    holder = _holder(f) if own else None
    while True:
        hit = rules.resolve_call(f, args, kwargs)
        if hit is not None:         # a frozen distribution's method: the distribution's
            f, args, kwargs = hit
            if own and holder is None:
                holder = "the distribution's parameters"
        if rules.lookup(f) is not None:     # (bound methods with rules: st.norm.logpdf)
            return f, tuple(args), kwargs, front, holder
        method = _array_method(f)
        if method is not None:
            # ``flat.reshape(*shape, -1)`` called through a value: the method's rule,
            # its array first
            args = (f.__self__,) + tuple(args)
            front += 1
            f = method
            continue
        if isinstance(f, functools.partial):
            args = f.args + tuple(args)
            kwargs = {**f.keywords, **kwargs}
            front += len(f.args)
            f = f.func
        elif isinstance(f, types.MethodType):
            args = (f.__self__,) + tuple(args)
            front += 1
            f = f.__func__
        elif type(f) is runtime._Writing:
            # a function that changes its arguments in place, also returning them
            # (runtime.writing): its code, whose returns give them back
            f = f.__srcgrad_writing__
            if own:
                holder = _holder(f)
        elif getattr(f, "__srcgrad_inline__", None) is not None:
            # sg.jvp(fun, primals, tangents) of a function value: what it computes
            f = JVP_OF[0]
        elif getattr(f, "__srcgrad_vjp__", False):
            if kwargs:
                raise NonDifferentiableError(
                    f"{site}: inside differentiated code, call sg.vjp(f, *args) without "
                    f"keywords ({', '.join(kwargs)})")
            f = JVP_OF[1]           # sg.vjp(fun, *args): what it computes
        elif hasattr(f, "__srcgrad_trace__"):
            # sg.grad(g) called here: its generated code (transformed again), which holds
            # what g holds (a closure's generated code closes over the same names)
            traced, given = f, (args, kwargs)
            f, args, kwargs, more = f.__srcgrad_trace__(args, kwargs)
            front += more
            if own and more:        # (sg.jacobian's code: what it holds is its first
                holder = "self"     # argument, the function it differentiates)
            elif own and front == 0:
                holder = _holder(f)
                extra = _held_elsewhere(traced, f) if holder == _CLOSURE else []
                if extra:
                    # its code holds what it holds under other names: a code form that
                    # takes the function as an argument, or a refusal
                    held = getattr(traced, "__srcgrad_held_trace__", None)
                    made = held(*given) if held is not None else None
                    if made is None:
                        _refuse_held(traced, extra, site)
                    f, args, kwargs, front = made
                    holder = "self"
        elif not isinstance(f, (types.FunctionType, types.BuiltinFunctionType, type)) and \
                rules.lookup(f) is None and not rules.is_nograd(f) and \
                isinstance(getattr(type(f), "__call__", None), types.FunctionType):
            args = (f,) + tuple(args)      # a callable object: its class's __call__
            front += 1
            f = type(f).__call__
        else:
            return f, tuple(args), kwargs, front, holder


def _held_elsewhere(traced, code):
    """The names under which the generated code of ``sg.grad(g)`` holds values that
    carry a gradient and g does not (a callee g closes over, compiled into the code as
    its split form ``f_fwd``, ``f_bwd``): the gradient of what g holds is a dict by g's
    names, and one by the code's would be dropped."""
    g = getattr(traced, "__srcgrad_wrapped__", None)
    if not isinstance(g, types.FunctionType):
        return []

    def held(fn):
        free = fn.__code__.co_freevars
        return {n for n, c in zip(free, fn.__closure__ or ())
                if _cell_full(c) and _holds_floats(c.cell_contents, set())}
    return sorted(held(code) - held(g))


def _refuse_held(traced, extra, site):
    raise NonDifferentiableError(
        f"{site}: sg.grad of {_name(traced.__srcgrad_wrapped__)}, a function value that "
        f"holds differentiated values through what it calls ({', '.join(extra)} in its "
        f"generated code): srcgrad cannot follow a gradient into them; pass those "
        f"values to the function as arguments")


def _array_method(f):
    """The rule's function for a builtin method bound to an array (``x.reshape``)."""
    owner = getattr(f, "__self__", None)
    if not isinstance(f, types.BuiltinMethodType) or not hasattr(owner, "shape") or \
            not hasattr(owner, "dtype"):
        return None
    m = rules.METHODS.get(f.__name__)
    return m[0] if m is not None and not m[1] and rules.lookup(m[0]) is not None else None


def _holder(f):
    """What a callee value holds that may carry a gradient (see :func:`_target`)."""
    if isinstance(f, types.MethodType):
        return "self" if not isinstance(f.__self__, type) else None
    if _array_method(f) is not None:
        return "self"
    owner = getattr(f, "__self__", None)
    if isinstance(f, types.BuiltinMethodType) and owner is not None and \
            not isinstance(owner, (types.ModuleType, type)):
        return f"the {type(owner).__name__} whose method it is"
    if isinstance(f, functools.partial):
        return "the arguments the partial binds"
    if isinstance(f, types.FunctionType):
        return _CLOSURE if _holds_floats(f, set()) else None
    if isinstance(f, (types.BuiltinFunctionType, type)) or rules.lookup(f) is not None or \
            getattr(f, "nin", None) is not None:
        return None
    return "self"                            # a callable object


def _holds_floats(v, seen):
    """Does ``v`` hold a float or a float array, itself or in what it holds (a list's
    items, an object's fields, a function's closure and defaults, a partial's
    arguments, a method's object)?"""
    if id(v) in seen:
        return False
    seen.add(id(v))
    if isinstance(v, types.FunctionType):
        held = [c.cell_contents for c in (v.__closure__ or ()) if _cell_full(c)]
        held += list(v.__defaults__ or ()) + list((v.__kwdefaults__ or {}).values())
    elif isinstance(v, types.MethodType):
        held = [v.__self__, v.__func__]
    elif isinstance(v, functools.partial):
        held = [v.func, *v.args, *v.keywords.values()]
    elif isinstance(v, dict):
        held = list(v.values())
    elif isinstance(v, (list, tuple)):
        held = list(v)
    elif records.is_record(v):
        held = list(records.fields_of(v).values())
    else:
        return construct.is_leaf(v)
    return any(_holds_floats(x, seen) for x in held)


def _cell_full(cell):
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def _callee_slot(wrt, front, holder, site, f):
    """``wrt`` with the callee's own entry (None) replaced by the position of its object,
    and whether that entry was there."""
    if None not in wrt:
        return list(wrt), False
    rest = [w for w in wrt if w is not None]
    if holder is None:
        return rest, True
    if holder == "self" and front > 0:
        return [_SELF] + rest, True
    if holder == _CLOSURE and front == 0:
        return [_CLOSURE] + rest, True
    raise NonDifferentiableError(
        f"{site}: {_name(f)} is a function value built from values that depend on the "
        f"differentiated inputs ({holder}); srcgrad cannot follow a gradient into what a "
        f"function value holds: pass those values to it as arguments")


_SELF = object()      # the callee's own object in a ``where`` list (position 0)
_CLOSURE = "closure"  # a Python function holding floats: compiled with them opened


def call_forward(f, wrt, site, /, *args, **kwargs):
    """Run ``f(*args, **kwargs)``; return its value and what :func:`call_backward`
    needs for the gradients of the arguments named by ``wrt`` (None in ``wrt``: the
    callee's own gradient, its object's for a method or a callable object)."""
    if id(f) in NESTED:             # generated code differentiated again (nested.py)
        f, args, kwargs, position = NESTED[id(f)](args, kwargs, site, wrt)
        mapped = tuple(_mapped(position, w) for w in wrt)
        if _CONSTANT in mapped:
            kept = tuple(w for w in mapped if w is not _CONSTANT)
            value, record = call_forward(f, kept, site, *args, **kwargs)
            return value, _constants_none(record, mapped)
        wrt = mapped
    if not wrt:                     # nothing to differentiate: the call as written
        return f(*args, **kwargs), _no_gradients
    site = _full(site)
    if f is runtime.try_call:
        return _try_forward(wrt, site, *args)
    if f is runtime.call_with_self:
        # the method's own gradient (position 0: the bound method) is its object's
        method, *rest = args
        return call_forward(returning_self(method.__func__), wrt, site, method.__self__,
                            *rest, **kwargs)
    target, full, kw, front, holder = _target(f, args, kwargs, site, None in wrt)
    wrt, own = _callee_slot(wrt, front, holder, site, f)
    closure = bool(wrt) and wrt[0] is _CLOSURE
    if closure:
        wrt = wrt[1:]
    where = [0 if i is _SELF else i + front if isinstance(i, int) else i for i in wrt]
    value, record = _forward(f, target, full, kw, where, site, closure)
    if own and not closure and (not wrt or wrt[0] is not _SELF):
        # it holds nothing: no gradient of its own
        if isinstance(record, tuple):
            saved, bwd, (_, slots) = record
            return value, (saved, bwd, ("none", slots))
        return value, lambda g: (None,) + call_backward(record, g)
    return value, record


def _no_gradients(g):
    return ()


_CONSTANT = object()    # an argument of an unfolded call with no gradient


def _mapped(position, w):
    """Where an unfolding's position map takes ``w``; _CONSTANT for an argument with no
    gradient: a constant of the unfolded call (a starred piece holding the ``wrt`` and
    the site of a call of generated code: it asks for them with the arguments) or a
    callee that holds nothing (the map gives None)."""
    try:
        q = position(w)
    except IndexError:
        return _CONSTANT
    return _CONSTANT if q is None else q


def _constants_none(record, mapped):
    """``record`` (of the call for the entries of ``mapped`` that are not _CONSTANT)
    giving None, no gradient, for the constants too."""
    if isinstance(record, tuple) and record[1] is not None:
        saved, bwd, (lead, slots) = record
        rest = iter(slots)
        out = [(None, "none") if w is _CONSTANT else next(rest) for w in mapped
               if w is not None]            # (None: the callee's own, the lead's)
        return saved, bwd, (lead, tuple(out))

    def with_none(g):
        grads = iter(call_backward(record, g))
        return tuple(None if w is _CONSTANT else next(grads) for w in mapped)
    return with_none


def _forward(f, target, full, kw, where, site, closure=False):
    rule = rules.lookup(target)
    if rule is not None:
        return _rule_forward(rule, target, full, kw, where, site)
    if isinstance(target, type) and records.user_class(target) and \
            not issubclass(target, tuple):
        return construct.forward(target, full, kw, where, site)
    if is_python_callee(target, library=True):
        library = library_name(target)
        if library is not None:
            raise NonDifferentiableError(
                f"{site}: {library} has no derivative rule; srcgrad does not differentiate "
                f"the internals of installed libraries (register its derivative with "
                f"@sg.adjoint(...), wrap the call in sg.detach(...), or call "
                f"sg.transform_library({library.split('.')[0]!r}))")
        if attribute_writes(target) and not getattr(target, "__srcgrad_returns_self__", False):
            raise NonDifferentiableError(
                f"{site}: {_name(target)} changes what its caller sees (an attribute of "
                f"an object it is given, self.x = ..., or a global or nonlocal name); "
                f"srcgrad cannot follow a gradient through that. Return the new values "
                f"instead, or build and return a new object")
        return _function_forward(target, full, kw, where, site, own=closure)
    if rules.is_nograd(target):
        raise NonDifferentiableError(
            f"{site}: {_name(f)} returns no gradient (its result does not depend "
            f"differentiably on its arguments); wrap the call in sg.detach(...) if that "
            f"is intended")
    raise NonDifferentiableError(
        f"{site}: {_name(f)} has no derivative rule and no Python source to transform. "
        f"Register its derivative with @sg.adjoint(...), or wrap the call in "
        f"sg.detach(...) if no gradient should flow through it.")


def call_backward(record, g):
    """The gradients of the arguments ``wrt`` named, in that order."""
    if isinstance(record, tuple):       # (saved, bwd, picks): compiler/nested.py
        return NESTED["split_backward"](record, g)
    return record(g)


def _internal(func):
    module = getattr(func, "__module__", "") or ""
    if module == __name__.rsplit(".", 1)[0] + ".nested" and \
            getattr(func, "__qualname__", "").endswith(".vjp_fn"):
        return False        # the function sg.vjp returns inside differentiated code
    return module.startswith("srcgrad.") and not getattr(
        func, "__srcgrad_transformable__", False)


def is_python_callee(func, library=False):
    """A Python function srcgrad compiles (``library``: one from an installed library
    too, which :func:`_forward` refuses by name)."""
    return isinstance(func, types.FunctionType) and not _internal(func) and (
        library or library_name(func) is None)


def _name(f):
    qualname = getattr(f, "__qualname__", None)
    if qualname is not None and "__srcgrad" in qualname:     # a def inside generated code
        return f.__name__
    return qualname or getattr(f, "__name__", None) or type(f).__name__


def _slots(sig, args, kwargs, where, site, f):
    """For each entry of ``where`` (a position or a keyword of the call), the
    parameter it binds to and, for ``*args`` / ``**kwargs``, its index or key there."""
    try:
        marks = sig.bind(*range(len(args)), **{k: k for k in kwargs})
    except TypeError as e:
        raise TypeError(f"{site}: {_name(f)}(): {e}") from None
    out = {}
    for p, v in marks.arguments.items():
        kind = sig.parameters[p].kind
        if kind == inspect.Parameter.VAR_POSITIONAL:
            for j, pos in enumerate(v):
                out[pos] = (p, j)
        elif kind == inspect.Parameter.VAR_KEYWORD:
            for key in v:
                out[key] = (p, key)
        else:
            out[v] = (p, None)
    return [out[w] for w in where]


def split_plan(func, args, kwargs, where, site, own=False):
    """A Python callee compiled in split form, for a call with these arguments:
    (forward sweep, backward sweep, what the callee holds, how many of those are
    cells, picks).  With ``own``, the first gradient is the function value's own: a
    sparse dict, by name, of the gradients of what it closes over (its cells, given to
    the forward sweep in front of the arguments) and of the defaults this call used
    (:func:`_opened`); ``picks`` says which of the backward sweep's gradients the
    call's record gives (compiler/nested.py: ``picked``)."""
    sig = _signature(func)
    slots = _slots(sig, args, kwargs, where, site, func)
    params = []
    for p, _ in slots:
        if p not in params:
            params.append(p)
    bound = sig.bind(*args, **kwargs)
    cells, defaults = _opened(func, sig, bound) if own else ({}, [])
    params += [p for p in defaults if p not in params]
    order = list(sig.parameters)
    params.sort(key=order.index)
    kinds = {n: argument_kind(v) for n, v in _with_defaults(bound, func).items()}
    kinds.update({n: argument_kind(v) for n, v in cells.items()})
    fwd, bwd = BUILD["reverse"](func, tuple(cells) + tuple(params), "split", kinds)
    index = {p: i for i, p in enumerate(tuple(cells) + tuple(params))}
    lead = tuple((n, index[n]) for n in list(cells) + defaults) if own else None
    picks = (lead, tuple((index[p], sub) for p, sub in slots))
    held = dict(cells)
    actual = defaults_of(func)
    held.update({p: actual[p] for p in defaults})
    return fwd, bwd, held, len(cells), picks


def _function_forward(func, args, kwargs, where, site, own=False):
    """A Python callee compiled in split form (:func:`split_plan`) and run; its record
    is data, (saved, backward sweep, picks), so that a derivative of the derivative
    can follow it (compiler/nested.py)."""
    fwd, bwd, held, ncells, picks = split_plan(func, args, kwargs, where, site, own)
    value, saved = fwd(*list(held.values())[:ncells], *args, **kwargs)
    return value, (saved, bwd, picks)


def _opened(func, sig, bound):
    """What a closure holds that may carry a gradient: ({free name: value} of its
    cells, [parameters whose default this call uses])."""
    free = func.__code__.co_freevars
    cells = {n: c.cell_contents for n, c in zip(free, func.__closure__ or ())
             if _cell_full(c) and _holds_floats(c.cell_contents, set())}
    actual = defaults_of(func)
    defaults = [p for p in sig.parameters
                if p not in bound.arguments and p in actual and _holds_floats(actual[p], set())]
    return cells, defaults


def defaults_of(func):
    """{parameter: default} of this function object.  (A signature is cached by code
    object, and each run of a ``def`` in a loop makes a function of the same code with
    defaults of its own: ``def h(x, p=p)``.)"""
    code = func.__code__
    names = code.co_varnames[:code.co_argcount]
    given = func.__defaults__ or ()
    out = dict(zip(names[len(names) - len(given):], given))
    out.update(func.__kwdefaults__ or {})
    return out


def _with_defaults(bound, func):
    """``bound.arguments`` with the defaults of this function object for the others."""
    out = dict(defaults_of(func))
    out.update(bound.arguments)
    return out


def _rule_forward(rule, func, args, kwargs, where, site):
    """A primitive called through a value: the call, made by a Python function that
    calls it by name (compiler/nested.py: ``calling``), in split form."""
    slots = _slots(rule.signature, args, kwargs, where, site, func)
    for p, sub in slots:
        if p not in rule.diff_params:
            raise NonDifferentiableError(f"{site}: {rule.name} has no derivative for its "
                                         f"argument {p!r}")
    return _function_forward(NESTED["calling"](func, len(args), tuple(kwargs)), args, kwargs,
                             where, site)


def call_jvp(f, wrt, site, tangents, /, *args, **kwargs):
    """Forward mode: ``(f(*args, **kwargs), its tangent)`` given the tangents of the
    arguments named by ``wrt`` (the others have none)."""
    if id(f) in NESTED:             # generated code differentiated again (nested.py)
        f, args, kwargs, position = NESTED[id(f)](args, kwargs, site, wrt)
        mapped = [_mapped(position, w) for w in wrt]
        tangents = tuple(t for w, t in zip(mapped, tangents) if w is not _CONSTANT)
        wrt = tuple(w for w in mapped if w is not _CONSTANT)
        fills = getattr(position, "fills", {})      # (tangents of function values made
        tangents = tuple(fills[w](t) if w in fills else t   # whole, nested.unfold_star)
                         for w, t in zip(wrt, tangents))
        at = HELD_AT.get(id(f))
        if at in wrt:           # what a closure holds: its tangent, sparse, made whole
            i = wrt.index(at)
            held = args[at]
            t = tangents[i] if isinstance(tangents[i], dict) else {}
            tangents = tangents[:i] + ({n: _part(t, n, v) for n, v in held.items()},) + \
                tangents[i + 1:]
    site = _full(site)
    if f is runtime.try_call:
        return _try_jvp(wrt, site, tangents, *args)
    if f is runtime.call_with_self:
        method, *rest = args
        return call_jvp(returning_self(method.__func__), wrt, site, tangents,
                        method.__self__, *rest, **kwargs)
    target, full, kw, front, holder = _target(f, args, kwargs, site, None in wrt)
    kept, own = _callee_slot(wrt, front, holder, site, f)
    own_tangent = _CLOSURE
    if own and kept and kept[0] is _CLOSURE:
        # a closure's own tangent: a dict, by name, of what it holds (see call_forward)
        own_tangent = tangents[list(wrt).index(None)]
        tangents = tuple(t for w, t in zip(wrt, tangents) if w is not None)
        wrt = kept[1:]
    elif own:               # the callee's own tangent: its object's, or none
        tangents = tuple(t for w, t in zip(wrt, tangents) if w is not None or
                         (kept and kept[0] is _SELF))
        wrt = kept
    where = [0 if i is _SELF else i + front if isinstance(i, int) else i for i in wrt]
    rule = rules.lookup(target)
    if isinstance(target, type) and records.user_class(target) and rule is None and \
            not issubclass(target, tuple):
        return construct.jvp(target, full, kw, where, tangents, site)
    if rule is not None:
        sig = rule.signature
    elif is_python_callee(target):
        sig = _signature(target)
    else:
        call_forward(f, (), site, *args, **kwargs)     # raises the error that says why
        raise NonDifferentiableError(f"{site}: {_name(f)} cannot be differentiated")
    slots = _slots(sig, full, kw, where, site, target)
    # one tangent per parameter: ``*args`` / ``**kwargs`` get a tuple / dict with zeros
    # for the items that have none
    marks = sig.bind(*range(len(full)), **{k: k for k in kw})
    by_param = {}
    for (p, sub), t in zip(slots, tangents):
        if sub is None:
            by_param[p] = t
        else:
            packed = marks.arguments[p]
            if p not in by_param:
                if isinstance(packed, dict):
                    by_param[p] = {k: runtime.zeros_like(kw[k]) for k in packed}
                else:
                    by_param[p] = [runtime.zeros_like(full[j]) for j in packed]
            by_param[p][sub] = t
    by_param = {p: tuple(v) if isinstance(v, list) else v for p, v in by_param.items()}
    if rule is not None:
        for p in by_param:
            if p not in rule.diff_params:
                raise NonDifferentiableError(f"{site}: {rule.name} has no derivative for its "
                                             f"argument {p!r}")
        value = target(*full, **kw)
        jvp = rule.jvp_function()
        return value, jvp(value, *full, **kw, **{"d" + p: t for p, t in by_param.items()})
    bound = sig.bind(*full, **kw)
    cells = {}
    if own_tangent is not _CLOSURE:
        cells, defaults = _opened(target, sig, bound)
        actual = defaults_of(target)
        for p in defaults:
            by_param[p] = _part(own_tangent, p, actual[p])
        by_param.update({n: _part(own_tangent, n, v) for n, v in cells.items()})
    params = list(cells) + [p for p in sig.parameters if p in by_param]
    kinds = {n: argument_kind(v) for n, v in _with_defaults(bound, target).items()}
    kinds.update({n: argument_kind(v) for n, v in cells.items()})
    fn = BUILD["forward"](target, tuple(params), kinds)
    clash = sorted(set(kw) & set(fn.tangent_params.values()))
    if clash:
        raise NonDifferentiableError(
            f"{site}: {_name(f)} is called with the keyword argument(s) {', '.join(clash)} "
            f"that its **kwargs takes, and its forward-mode code takes its tangents "
            f"under those names; srcgrad cannot tell them apart (rename the keyword)")
    return fn(*cells.values(), *full, **kw,
              **{fn.tangent_params[p]: by_param[p] for p in params})


def _part(t, name, like):
    """Item ``name`` of a function value's tangent (a dict, or None), zeros if absent."""
    v = t.get(name) if isinstance(t, dict) else None
    return runtime.zeros_like(like) if v is None else v



# (starred calls: compiler/starred.py; callables that are not a def: trampolines.py)
from . import starred  # noqa: E402
from .starred import (call_forward_star, call_jvp_star,  # noqa: E402,F401
                      group_picks, star_slots, _flatten)
from .trampolines import caller, trampoline  # noqa: E402,F401
starred.CALLS.update(forward=call_forward, backward=call_backward, jvp=call_jvp)


# -- a property read from an object that holds varied values (rules/python/attributes) --

def _property_vjp(getter, obj, g, name):
    site = f"property {type(obj).__qualname__}.{name}"
    return call_backward(call_forward(getter, (0,), site, obj)[1], g)[0]


def _property_jvp(getter, obj, t, name):
    site = f"property {type(obj).__qualname__}.{name}"
    return call_jvp(getter, (0,), site, (t,), obj)[1]


rules.python.attributes.PROPERTIES.update(vjp=_property_vjp, jvp=_property_jvp)

for _f in (call_forward, call_forward_star, call_jvp, call_jvp_star, call_backward):
    _f.__srcgrad_dynamic_call__ = True          # (analysis/activity.py: grad of grad)
call_backward.__srcgrad_gradients__ = True      # (its results are gradients: activity.py)


# -- try / except (compiler/lower/trying.py): ad.try_call(types, body, *handlers, *args) --
#
# A call of ad.try_call is a call of the block that finishes: the body, or the handler
# of the exception that stopped it (whose first argument is that exception).  Each
# block returns ``(which, values)`` itself, so the call's value, record and tangent are
# the block's, its ``wrt`` mapped onto the block's arguments: a record that is data,
# which a derivative of the derivative follows (compiler/nested.py, unfold_try).

_OWN_ERRORS = (NonDifferentiableError, UnsupportedSyntaxError)


def _try_pick(types, body, rest, attempt):
    """``attempt(block, its position among the call's arguments, its extra first
    arguments)`` for the body and, if that raises one of ``types``, for the first
    matching handler; srcgrad's own errors are never caught."""
    handlers = rest[:len(types)]
    try:
        return attempt(body, 1, ())
    except _OWN_ERRORS:
        raise
    except BaseException as e:
        for i, t in enumerate(types):
            if isinstance(e, t):
                return attempt(handlers[i], 2 + i, (e,))
        raise


def _try_mapped(wrt, ntypes, position, extra):
    """Where each entry of the call's ``wrt`` goes in the call of the block at
    ``position``: its own gradient (None) for the block, its arguments past the
    ``extra`` ones it takes first; _CONSTANT (no gradient) for the others."""
    first = 2 + ntypes                          # the call's position of the blocks' args
    return tuple(None if w == position else w - first + extra
                 if isinstance(w, int) and w >= first else _CONSTANT for w in wrt)


def _try_forward(wrt, site, types, body, *rest):
    args = rest[len(types):]

    def attempt(fn, position, extra):
        mapped = _try_mapped(wrt, len(types), position, len(extra))
        kept = tuple(w for w in mapped if w is not _CONSTANT)
        value, record = call_forward(fn, kept, site, *extra, *args)
        return value, _constants_none(record, mapped)
    return _try_pick(types, body, rest, attempt)


def _try_jvp(wrt, site, tangents, types, body, *rest):
    args = rest[len(types):]

    def attempt(fn, position, extra):
        mapped = _try_mapped(wrt, len(types), position, len(extra))
        kept = tuple((w, t) for w, t in zip(mapped, tangents) if w is not _CONSTANT)
        return call_jvp(fn, tuple(w for w, _ in kept), site, tuple(t for _, t in kept),
                        *extra, *args)
    return _try_pick(types, body, rest, attempt)


def unfold_try(args, kwargs, site, asked, unfold):
    """``call_forward(ad.try_call, wrt, site, types, body, *handlers, *args)`` unfolded
    (``unfold``: compiler/nested.unfold_forward, given ``asked`` unless it is None) as
    the call of the block that finishes, found by running the blocks as written on
    these arguments."""
    _, wrt, inner_site, types, body, *rest = args
    block_args = tuple(rest[len(types):])

    def attempt(fn, position, extra):
        fn(*extra, *block_args)
        return fn, position, extra
    fn, position, extra = _try_pick(types, body, rest, attempt)
    mapped = _try_mapped(tuple(wrt), len(types), position, len(extra))
    kept = tuple(w for w in mapped if w is not _CONSTANT)
    first = 3 + 2 + len(types)          # (in ``args``: after f, wrt, site, types, body, ...)

    def to_block(p):
        """A position of ``args`` as one of the block's call's arguments (None: none)."""
        if isinstance(p, str):
            return p
        if p == 3 + position:
            return 0                    # the block itself: what it holds
        if p >= first:
            return p - first + 3 + len(extra)
        return None
    block_call = (fn, kept, inner_site) + tuple(extra) + block_args
    if asked is None:
        H, h, k, pm = unfold(block_call, kwargs, site)
    else:
        H, h, k, pm = unfold(block_call, kwargs, site,
                             tuple(q for q in map(to_block, asked) if q is not None))

    def position_map(p):
        q = to_block(p)
        return None if q is None else pm(q)
    return H, h, k, position_map


# -- a method that changes its object, called through ad.call_with_self ---------------------

_RETURNING_SELF = {}        # code object -> the function that also returns its object


def returning_self(func):
    """``func`` (a method ``def m(self, ...)``) as a function returning ``(result, self)``:
    what srcgrad differentiates, its attribute writes changing a copy of self
    (rules/python/attributes.with_field) that comes back to the caller.  The same code
    (its source, its lines); compiler/frontend.py adds the object to each return."""
    code = func.__code__
    fn = _RETURNING_SELF.get(code)
    if fn is None:
        fn = types.FunctionType(code, func.__globals__, func.__name__, func.__defaults__,
                                func.__closure__)
        fn.__kwdefaults__ = func.__kwdefaults__
        fn.__qualname__ = func.__qualname__ + " (returning its object)"
        fn.__module__ = func.__module__
        fn.__srcgrad_returns_self__ = True
        _RETURNING_SELF[code] = fn
    return fn

