"""Derivatives of derivatives through calls resolved at run time.

Generated code calls ``call_forward(f, wrt, site, *args)`` where the user's code
called a callee known only when it runs, and ``call_backward(record, g)`` where its
adjoint goes (compiler/dynamic.py).  When generated code is differentiated again
(``sg.grad`` of code that calls ``sg.grad(f)`` of a function value, ``sg.hvp`` of a
loss that calls a layer held in a list), those two calls are themselves calls
resolved at run time: their callee is ``call_forward``.  They are differentiated as
what they compute, written in Python that srcgrad transforms::

    call_forward(f, wrt, site, *args)  ==  split_forward(fwd, bwd, picks, held, n, *args)
    call_backward(record, g)           ==  split_backward(record, g)

``fwd`` and ``bwd`` are the callee's split form (its generated forward and backward
sweeps); the record is data, ``(saved, bwd, picks)``, so that a gradient flows into
what the forward sweep saved.  Each order of differentiation adds one more level of
the same two functions, so derivatives of any order follow calls resolved at run time.
"""
from ..errors import NonDifferentiableError
from ..rules.namespace import add_kernels
from ..rules.registry import defkernel, defnograd, deftransformable
from .. import runtime
from ..runtime import records
from . import construct, dynamic
from .construct import construct_built, construct_every, construct_routes, construct_saved


def split_forward(_sg_fwd, _sg_bwd, _sg_picks, _sg_held, _sg_ncells, *args, **kwargs):
    """A callee's forward sweep; its record as data: (saved, backward sweep, picks).
    ``_sg_held``: what a closure holds, by name (its gradient is the closure's own),
    its first ``_sg_ncells`` the cells, the others defaults the call uses."""
    value, saved = _sg_fwd(*_cells(_sg_held, _sg_ncells), *args, **kwargs,
                           **_defaults(_sg_held, _sg_ncells))
    return value, (saved, _sg_bwd, _sg_picks)


def _cells(held, ncells):
    names = [n for n in held]
    return [held[n] for n in names[:ncells]]


def _defaults(held, ncells):
    names = [n for n in held]
    out = {}
    for n in names[ncells:]:
        out = {**out, n: held[n]}
    return out


def split_plain(_sg_f, *args, **kwargs):
    """A call with no argument to differentiate (its record gives no gradient)."""
    return _sg_f(*args, **kwargs), ((), None, None)


def split_backward(record, g):
    """The gradients a record's call gives for cotangent ``g``."""
    saved = record[0]
    bwd = constant(record[1])
    if bwd is None:
        return ()
    return picked(bwd(saved, g), constant(record[2]))


def constant(v):
    """``v``, through which no gradient flows (a record's backward sweep and picks)."""
    return v


constant.__srcgrad_stop_gradient__ = True


def star_apply(_sg_H, _sg_spec, _sg_kwspec, _sg_picks, _sg_held, stars, pieces, kw_pieces):
    """``call_forward_star``'s call (compiler/dynamic.py): the pieces put together as
    the call does, then ``_sg_H`` (its flat call's unfolding) called with its arguments
    made from them (``_sg_spec``: for each, a flat argument, a keyword, what the callee
    holds or a constant); its record's picks by piece (``_sg_picks``)."""
    flat = []
    for k in range(len(pieces)):
        if k in stars:
            flat = flat + list(pieces[k])
        else:
            flat = flat + [pieces[k]]
    kwargs = {}
    for key, v in kw_pieces:
        if key is None:
            kwargs = {**kwargs, **v}
        else:
            kwargs = {**kwargs, key: v}
    hargs = [_made(kind, x, flat, kwargs, _sg_held) for kind, x in _sg_spec]
    hkw = {}
    for key, (kind, x) in _sg_kwspec:
        hkw = {**hkw, key: _made(kind, x, flat, kwargs, _sg_held)}
    value, record = _sg_H(*hargs, **hkw)
    if _sg_picks is None:
        return value, record
    return value, (record[0], record[1], _sg_picks)


def _made(kind, x, flat, kwargs, held):
    if kind == "flat":
        return flat[x]
    if kind == "kw":
        return kwargs[x]
    if kind == "held":
        return held
    return x


def construct_apply(_sg_cls, _sg_where, _sg_site, _sg_picks, *args, **kwargs):
    """``call_forward`` of a user class: the new object, linear in the arguments it
    holds, and its record (compiler/construct.py)."""
    pieces = (args, kwargs)
    every = construct_every(pieces)
    routes = construct_routes(_sg_cls, every, _sg_site, pieces)
    obj = construct_built(_sg_cls, every, routes, pieces)
    return obj, (construct_saved(routes, every, _sg_where, pieces, obj),
                 construct.construct_back, _sg_picks)


def picked(grads, picks):
    """The gradients of the arguments a call asked for, out of those of its callee's
    parameters.  ``picks`` is (lead, slots): a slot is (index, item) with ``item`` the
    index or key within a ``*args`` / ``**kwargs`` parameter (None: the parameter
    itself), or (slots, "tuple" / "list") and (((key, slot), ...), "dict") for an
    unpacked piece of a starred call; ``lead`` is the callee's own gradient: None (not
    asked for), ``"none"`` (it holds nothing) or ((name, index), ...) for the dict of
    what a closure holds."""
    lead, slots = picks
    out = [_take(grads, slot) for slot in slots]
    if lead == "none":
        out = [None] + out
    elif lead is not None:
        own = {}
        for n, i in lead:
            own = {**own, n: grads[i]}
        out = [own] + out
    return tuple(out)


def _take(grads, slot):
    i, sub = slot
    if sub == "dict":
        out = {}
        for k, s in i:
            out = {**out, k: _one(grads, s)}
        return out
    if sub == "list":
        return [_one(grads, s) for s in i]
    if sub == "tuple":
        return tuple([_one(grads, s) for s in i])
    return _one(grads, slot)


def _one(grads, slot):
    i, sub = slot
    return grads[i] if sub is None else grads[i][sub]


def jvp_apply(_sg_fn, _sg_names, tangents, *args, **kwargs):
    """A callee's forward-mode code called with the tangents by their names."""
    by_name = {}
    for n, t in zip(_sg_names, tangents):
        by_name = {**by_name, n: t}
    return _sg_fn(*args, **kwargs, **by_name)


def jvp_of(fun, primals, tangents):
    """``sg.jvp(fun, primals, tangents)`` inside differentiated code, where ``fun`` is
    a value (a lambda, a closure): what it computes, in Python srcgrad transforms."""
    primals = tuple(primals) if isinstance(primals, (tuple, list)) else (primals,)
    tangents = tuple(tangents) if isinstance(tangents, (tuple, list)) else (tangents,)
    wrt = constant(tuple([i for i in range(len(primals))]))
    return dynamic.call_jvp(fun, wrt, "sg.jvp", tangents, *primals)


def vjp_of(fun, *args):
    """``sg.vjp(fun, *args)`` inside differentiated code: its value, and a function
    of the cotangent that gives the gradients of the floating-point arguments."""
    wrt = constant(tuple([i for i in range(len(args)) if holds_floats(args[i])]))
    value, record = dynamic.call_forward(fun, wrt, "sg.vjp", *args)

    def vjp_fn(cotangent):
        grads = dynamic.call_backward(record, cotangent)
        if len(grads) == 1:
            return grads[0]
        return grads
    return value, vjp_fn


def holds_floats(v):
    """Does ``v`` hold a float (``sg.vjp``'s arguments with a gradient)?"""
    return dynamic._holds_floats(v, set())


holds_floats.__srcgrad_stop_gradient__ = True


deftransformable(split_forward, split_plain, jvp_apply, jvp_of, vjp_of, star_apply, _made,
                 split_backward, picked, _take, _one, _cells, _defaults, construct_apply)
# an object built inside differentiated code, differentiated again: its two linear maps
add_kernels(construct)
# (``saved`` gives routes and structure only: no derivative flows through it)
defkernel(construct.construct_back, "saved, t",
          vjp=dict(t="construct_push(saved, g)", saved="zeros_like(saved)"),
          jvp=dict(t="construct_back(saved, dt)", saved="zeros_like(ans)"), linear_in=("t",))
defkernel(construct.construct_push, "saved, t",
          vjp=dict(t="construct_back(saved, g)", saved="zeros_like(saved)"),
          jvp=dict(t="construct_push(saved, dt)", saved="zeros_like(ans)"), linear_in=("t",))
defkernel(construct_built, "cls, where, routes, pieces",
          vjp=dict(pieces="built_pieces_grad(g, where, routes, pieces)"),
          jvp=dict(pieces="built_tangent(dpieces, where, routes, ans)"))
defnograd(construct_routes, construct_saved, construct_every,
          names=["ad.construct_routes", "ad.construct_saved", "ad.construct_every"])


def _refuse(site, what):
    raise NonDifferentiableError(
        f"{site}: srcgrad cannot take a derivative of a derivative through {what}; "
        f"first-order gradients work. Call a module-level function by name to "
        f"differentiate it again.")


def _shift(pm):
    """A position map of a callee's arguments, as one of a ``call_forward`` call's
    (the callee's arguments start at position 3)."""
    def shifted(p):
        if isinstance(p, str):
            return pm(p)
        if p is None or p < 3:
            raise IndexError(p)
        q = pm(p - 3)
        return q if q is None or isinstance(q, str) else q + 3
    return shifted


def unfold_forward(args, kwargs, site):
    """(H, its args, its keywords, position map): ``call_forward(*args, **kwargs)`` is
    ``H(*hargs, **hkwargs)``, with H a function srcgrad transforms; the map takes a
    position (or keyword) of ``args`` to H's (None: H's own gradient, which is none)."""
    f, wrt, inner_site, *rest = args
    wrt = tuple(wrt)
    if id(f) in NESTED:     # call_forward(call_forward, ...): its callee unfolded first
        H0, h0, k0, pm0 = NESTED[id(f)](tuple(rest), kwargs, inner_site)
        H, h, k, pm = unfold_forward((H0, tuple(map(pm0, wrt)), inner_site) + tuple(h0),
                                     k0, site)

        def composed(p):
            q = 0 if p == 0 else _shift(pm0)(p)
            return None if q is None else pm(q)     # (None: a callee holding nothing)
        return H, h, k, composed
    full_site = dynamic._full(inner_site)
    if not wrt:
        return split_plain, (f,) + tuple(rest), kwargs, \
            lambda p: p if isinstance(p, str) else 0 if p == 0 else p - 2
    if f is runtime.try_call:
        _refuse(full_site, "a try statement")
    if f is runtime.call_with_self:
        _refuse(full_site, "a method that changes its object")
    target, full, kw, front, holder = dynamic._target(f, tuple(rest), kwargs, full_site,
                                                      None in wrt)
    where_wrt, own = dynamic._callee_slot(wrt, front, holder, full_site, f)
    closure = bool(where_wrt) and where_wrt[0] is dynamic._CLOSURE
    if closure:
        where_wrt = where_wrt[1:]
    where = [0 if i is dynamic._SELF else i + front if isinstance(i, int) else i
             for i in where_wrt]
    if isinstance(target, type) and records.user_class(target) and \
            not issubclass(target, tuple):
        picks = (None if not own else "none", tuple((k, None) for k in range(len(where))))
        if not where:
            return split_plain, (f,) + tuple(rest), kwargs, \
                lambda p: p if isinstance(p, str) else 0 if p == 0 else p - 2
        return construct_apply, (target, tuple(where), full_site, picks) + tuple(full), kw, \
            lambda p: p if isinstance(p, str) else None if p == 0 else p + 1
    if dynamic.rules.lookup(target) is not None:
        target = calling(target, len(full), tuple(kw))
    elif not dynamic.is_python_callee(target):
        dynamic.call_forward(f, wrt, inner_site, *rest, **kwargs)   # raises why
        _refuse(full_site, f"{dynamic._name(f)}")
    fwd, bwd, held, ncells, picks = dynamic.split_plan(target, full, kw, where, full_site,
                                                       closure)
    if own and not closure and (not where_wrt or where_wrt[0] is not dynamic._SELF):
        picks = ("none", picks[1])

    def pm(p):
        if isinstance(p, str):
            return p
        if p == 0:          # the callee itself: its object (a bound method's), or what
            if holder is None:      # a closure holds
                return None
            if holder == "self" and front > 0:
                return 5
            if holder == dynamic._CLOSURE and closure:
                return 3
            _refuse(full_site, f"{dynamic._name(f)}, a function value built from "
                               f"differentiated values ({holder})")
        if p < 3:
            raise IndexError(p)
        return 5 + front + p - 3
    return split_forward, (fwd, bwd, picks, held, ncells) + tuple(full), kw, pm


_CALLING = {}


def calling(f, npos, keywords):
    """A Python function (with source, in linecache) that calls the primitive ``f``
    with ``npos`` positional arguments and these keywords, as a call srcgrad
    differentiates by ``f``'s rule: ``def sin(_sg_0): return f(_sg_0)``."""
    key = (id(f), npos, keywords)
    if key not in _CALLING:
        lead = [f"_sg_{i}" for i in range(npos)]
        made = dynamic.caller(f, getattr(f, "__name__", "") or "f", lead + list(keywords),
                              lead + [f"{k}={k}" for k in keywords])
        _CALLING[key] = (f, made)        # (f kept: its id names it)
    return _CALLING[key][1]


def unfold_backward(args, kwargs, site):
    """``call_backward(record, g)`` as :func:`split_backward`."""
    record = args[0]
    if not isinstance(record, tuple):
        _refuse(dynamic._full(site), "this call (of an object's constructor or a try "
                                     "statement)")
    return split_backward, tuple(args), kwargs, lambda p: p


def unfold_star(args, kwargs, site):
    """``call_forward_star(f, wrt, site, stars, pieces, kw_pieces)`` as
    :func:`star_apply` of the flat call's unfolding."""
    f, wrt, inner_site, stars, pieces, kw_pieces = args
    flat, kw, spans, wrt, inner = dynamic.star_slots(stars, pieces, kw_pieces, wrt)
    slots = inner[1:] if None in inner else inner
    H, h, k, pm = unfold_forward((f, inner, inner_site) + tuple(flat), kw, site)
    full_site = dynamic._full(inner_site)
    picks = None
    if H is split_forward:
        lead, flat_picks = h[2]
        picks = (lead, dynamic.group_picks(flat_picks, slots, wrt, spans))
    # where each of H's arguments comes from: the flat arguments, or a constant
    spec = [("const", v) for v in h]
    refused = []
    for j in range(len(flat)):
        try:
            q = pm(3 + j)
        except IndexError:          # (a call's wrt or site: constants)
            continue
        except NonDifferentiableError as e:
            refused.append(e)
            continue
        if isinstance(q, int):
            spec[q] = ("flat", j)
    kwspec = {key: ("const", v) for key, v in k.items()}
    for key in kw:
        q = pm(key)
        kwspec[q] = ("kw", key)
    held_at = None
    try:
        held_at = pm(0)
    except NonDifferentiableError:
        pass
    if held_at == 3 and H is split_forward:
        spec[3] = ("held", None)

    def position(p):
        if p == 0:
            if held_at == 3 and H is split_forward:
                return 4
            q = pm(0)
            if q is None:
                return None
            _refuse(full_site, f"{dynamic._name(f)}, a function value that holds "
                               f"differentiated values, called with *args")
        if p in (4, 5):
            if refused:
                raise refused[0]
            return p + 2
        raise IndexError(p)
    return star_apply, (H, tuple(spec), tuple(kwspec.items()), picks,
                        h[3] if held_at == 3 and H is split_forward else {}, stars, pieces,
                        kw_pieces), {}, position


def unfold_jvp(args, kwargs, site):
    """``call_jvp(f, wrt, site, tangents, *args)`` (forward-mode generated code
    differentiated again) as :func:`jvp_apply` of ``f``'s forward-mode code."""
    f, wrt, inner_site, tangents, *rest = args
    wrt = tuple(wrt)
    if id(f) in NESTED:
        H0, h0, k0, pm0 = NESTED[id(f)](tuple(rest), kwargs, inner_site)
        H, h, k, pm = unfold_jvp((H0, tuple(map(pm0, wrt)), inner_site, tangents) +
                                 tuple(h0), k0, site)

        def composed(p):
            if isinstance(p, str):
                q = pm0(p)
            elif p == 0 or p == 3:
                q = p
            elif p < 3:
                raise IndexError(p)
            else:
                q = pm0(p - 4)
                q = q if q is None or isinstance(q, str) else q + 4
            return None if q is None else pm(q)
        return H, h, k, composed
    full_site = dynamic._full(inner_site)
    if None in wrt:
        _refuse(full_site, f"{dynamic._name(f)}, a function value holding differentiated "
                           f"values, in forward mode")
    target, full, kw, front, holder = dynamic._target(f, tuple(rest), kwargs, full_site)
    where = [i + front if isinstance(i, int) else i for i in wrt]
    if dynamic.rules.lookup(target) is not None:
        target = calling(target, len(full), tuple(kw))
    elif not dynamic.is_python_callee(target):
        dynamic.call_jvp(f, wrt, inner_site, tangents, *rest, **kwargs)    # raises why
        _refuse(full_site, f"{dynamic._name(f)}")
    sig = dynamic._signature(target)
    slots = dynamic._slots(sig, full, kw, where, full_site, target)
    if any(sub is not None for _, sub in slots) or len({p for p, _ in slots}) < len(slots):
        _refuse(full_site, f"{dynamic._name(f)} with tangents of its *args or **kwargs")
    order = list(sig.parameters)
    params = sorted([p for p, _ in slots], key=order.index)
    bound = sig.bind(*full, **kw)
    kinds = {n: dynamic.argument_kind(v)
             for n, v in dynamic._with_defaults(bound, target).items()}
    fn = dynamic.BUILD["forward"](target, tuple(params), kinds)
    names = tuple(fn.tangent_params[p] for p, _ in slots)

    def pm(p):
        if isinstance(p, str):
            return p
        if p == 0:
            if holder is None:
                return None
            _refuse(full_site, f"{dynamic._name(f)}, a function value built from "
                               f"differentiated values ({holder}), in forward mode")
        if p == 3:
            return 2
        if p < 3:
            raise IndexError(p)
        return 3 + front + p - 4
    return jvp_apply, (fn, names, tangents) + tuple(full), kw, pm


NESTED = dynamic.NESTED
dynamic.JVP_OF[:] = [jvp_of, vjp_of]
dynamic.HELD_AT.update({id(split_forward): 3, id(star_apply): 4})
NESTED[id(dynamic.call_forward)] = unfold_forward
NESTED[id(dynamic.call_backward)] = unfold_backward
NESTED[id(dynamic.call_forward_star)] = unfold_star
NESTED[id(dynamic.call_jvp)] = unfold_jvp
NESTED.update(calling=calling, split_backward=split_backward)
for _f in (dynamic.call_forward, dynamic.call_backward, dynamic.call_forward_star,
           dynamic.call_jvp):
    _f.__srcgrad_unfolds__ = True       # (analysis/activity.py)
