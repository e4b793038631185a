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
import copy
import types

from ..errors import NonDifferentiableError
from ..rules.namespace import add_kernel
from ..rules.registry import defkernel, deftransformable
from .. import runtime
from ..runtime import records
from . import dynamic, starred
from .construct_higher import construct_apply, construct_jvp_apply


def split_forward(_sg_fwd, _sg_bwd, _sg_picks, _sg_held, _sg_ncells, *_sg_args,
                  **_sg_kwargs):
    """A callee's forward sweep; its record as data: (saved, backward sweep, picks).
    ``_sg_held``: what a closure holds, by name (its gradient is the closure's own),
    its first ``_sg_ncells`` the cells, the others defaults the call uses."""
    value, saved = _sg_fwd(*_cells(_sg_held, _sg_ncells), *_sg_args, **_sg_kwargs,
                           **_defaults(_sg_held, _sg_ncells))
    return value, (saved, _sg_bwd, _sg_picks)


def split_forward_b(_sgb_fwd, _sgb_bwd, _sgb_picks, _sgb_held, _sgb_ncells, *_sgb_args,
                    **_sgb_kwargs):
    """:func:`split_forward` under other names, for a callee given keywords named as
    split_forward's tangents in forward mode (``d_sg_args``: the callee is
    split_forward's forward-mode code, at the next order), which its ``**_sg_kwargs``
    could not tell apart from them."""
    value, saved = _sgb_fwd(*_cells(_sgb_held, _sgb_ncells), *_sgb_args, **_sgb_kwargs,
                            **_defaults(_sgb_held, _sgb_ncells))
    return value, (saved, _sgb_bwd, _sgb_picks)


_SPLIT_TANGENTS = frozenset(f"d_sg_{n}" for n in ("fwd", "bwd", "picks", "held", "ncells",
                                                  "args", "kwargs"))


def _split_forward_for(kw):
    """split_forward, or its copy under other names when ``kw`` holds its tangents'."""
    return split_forward_b if _SPLIT_TANGENTS & set(kw) else split_forward


def _cells(held, ncells):
    names = [n for n in held]
    return [held[n] for n in names[:ncells]]


def _defaults(held, ncells):
    names = [n for n in held]
    out = {}
    for n in names[ncells:]:
        out = {**out, n: held[n]}
    return out


def split_plain(_sg_f, *_sg_args, **_sg_kwargs):
    """A call with no argument to differentiate (its record gives no gradient)."""
    return _sg_f(*_sg_args, **_sg_kwargs), ((), None, None)


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
    flat, kwargs = _flat_call(stars, pieces, kw_pieces)
    hargs = [_made(kind, x, flat, kwargs, _sg_held) for kind, x in _sg_spec]
    hkw = {}
    for key, (kind, x) in _sg_kwspec:
        hkw = {**hkw, key: _made(kind, x, flat, kwargs, _sg_held)}
    value, record = _sg_H(*hargs, **hkw)
    if _sg_picks is None:
        return value, record
    return value, (record[0], record[1], _sg_picks)


def _flat_call(stars, pieces, kw_pieces):
    """A starred call's positional arguments and keywords, put together from its pieces
    (``stars``: the positions of the pieces unpacked; a keyword piece without a key:
    ``**kw``)."""
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
    return flat, kwargs


def jvp_star(f, wrt, site, tangents, stars, pieces, kw_pieces):
    """``call_jvp_star`` (compiler/dynamic.py) as what it computes, in Python srcgrad
    transforms: ``call_jvp`` of the flat call, a tangent for each flat argument."""
    flat, kwargs = _flat_call(stars, pieces, kw_pieces)
    keys, slots = star_tangent_plan(wrt, stars, pieces, kw_pieces)
    flat_tangents = tuple([_one(tangents, slot) for slot in slots])
    return dynamic.call_jvp(f, keys, site, flat_tangents, *flat, **kwargs)


def star_tangent_plan(wrt, stars, pieces, kw_pieces):
    """The flat call's ``wrt`` and, for each of its entries, (index, item): which of a
    starred call's tangents (by piece) it takes, and which item of it (None: itself)."""
    _, _, spans = dynamic._flatten(stars, pieces, kw_pieces)
    plan = {}
    for i, w in enumerate(wrt):
        if w is None:                   # the callee's own tangent
            plan[None] = (i, None)
            continue
        slots, typ = spans[w]
        if typ is None:
            plan[slots[0]] = (i, None)
        elif typ is dict:
            plan.update({key: (i, key) for key in slots})
        else:
            plan.update({j: (i, k) for k, j in enumerate(slots)})
    return tuple(plan), tuple(plan.values())


star_tangent_plan.__srcgrad_stop_gradient__ = True


def unfold_jvp_star(args, kwargs, site, asked=()):
    """``call_jvp_star(...)`` as :func:`jvp_star` (its arguments as they are)."""
    return jvp_star, tuple(args), kwargs, lambda p: p


def _made(kind, x, flat, kwargs, held):
    if kind == "flat":
        return flat[x]
    if kind == "kw":
        return kwargs[x]
    if kind == "held":
        return held
    return x


def picked(grads, picks):
    """The gradients of the arguments a call asked for, out of those of its callee's
    parameters.  ``picks`` is (lead, slots): a slot is (index, item) with ``item`` the
    index or key within a ``*args`` / ``**kwargs`` parameter (None: the parameter
    itself), or (slots, "tuple" / "list" / "stack": an array's rows) and (((key, slot), ...), "dict") for an
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


def picked_back(t, like, picks):
    """The transpose of :func:`picked`: the cotangent ``t`` of the picked gradients
    given back to the gradients of the callee's parameters (``like``: those, for
    their structure; zeros where nothing was picked, sums where two picks share one)."""
    lead, slots = picks
    out = [None] * len(like)
    t = list(t)
    if lead is not None:
        own = t.pop(0)
        if lead != "none" and own is not None:
            for n, i in lead:
                if own.get(n) is not None:
                    out[i] = runtime.add_grads(out[i], own[n])
    for slot, g in zip(slots, t):
        _put_back(out, like, slot, g)
    return tuple(runtime.zeros_like(x) if o is None and x is not None else o
                 for o, x in zip(out, like))


def _put_back(out, like, slot, g):
    i, sub = slot
    if g is None or sub == "none":
        return
    if sub == "dict":
        for key, s in i:
            _put_back(out, like, s, g.get(key) if isinstance(g, dict) else None)
    elif sub in ("list", "tuple", "stack"):
        for s, item in zip(i, g):
            _put_back(out, like, s, item)
    elif sub is None:
        out[i] = runtime.add_grads(out[i], g)
    else:                   # an item of a ``*args`` tuple or a ``**kwargs`` dict
        whole = runtime.index_grad(g, like[i], sub)
        out[i] = runtime.add_grads(out[i], whole)


def _take(grads, slot):
    i, sub = slot
    if sub == "none":
        return None
    if sub == "dict":
        out = {}
        for k, s in i:
            out = {**out, k: _one(grads, s)}
        return out
    if sub == "list":
        return [_one(grads, s) for s in i]
    if sub == "tuple":
        return tuple([_one(grads, s) for s in i])
    if sub == "stack":          # an array unpacked (``zip(*M)``): its rows' stacked
        return starred.stacked([_one(grads, s) for s in i])
    return _one(grads, slot)


def _one(grads, slot):
    i, sub = slot
    if sub == "none":       # a constant of the call (compiler/dynamic.py: _mapped)
        return None
    return grads[i] if sub is None else grads[i][sub]


def jvp_apply(_sg_fn, _sg_spec, _sg_held, _sg_ncells, tangents, *_sg_args, **_sg_kwargs):
    """A callee's forward-mode code called with its tangents by name: ``_sg_spec`` says,
    for each tangent parameter, which of ``tangents`` it is, an item of a closure's own
    tangent, or a constant (the zero of an argument with none), or for ``*args`` /
    ``**kwargs`` a tuple / dict of those.
    ``_sg_held``: what a closure holds (compiled as its arguments, see
    :func:`split_forward`), whose tangents are zeros there."""
    by_name = {}
    for n, kind, how in _sg_spec:
        by_name = {**by_name, n: _tangent(kind, how, tangents)}
    return _sg_fn(*_cells(_sg_held, _sg_ncells), *_sg_args, **_sg_kwargs,
                  **_defaults(_sg_held, _sg_ncells), **by_name)


def _tangent(kind, how, tangents):
    if kind == "tuple":
        return tuple([_tangent_item(h, tangents) for h in how])
    if kind == "dict":
        out = {}
        for key, h in how:
            out = {**out, key: _tangent_item(h, tangents)}
        return out
    return _tangent_item((kind, how), tangents)


def _tangent_item(h, tangents):
    kind, x = h
    if kind == "own":           # an item of a closure's own tangent: (index, name)
        return tangents[x[0]][x[1]]
    return tangents[x] if kind == "at" else x


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
        # (each call on its own copy of the record: a backward sweep pops its lists and
        # restores what it overwrote, and the pullback may be called again)
        grads = dynamic.call_backward(fresh_record(record), cotangent)
        if len(grads) == 1:
            return grads[0]
        return grads
    return value, vjp_fn


def fresh_record(record):
    """A copy of a call's record for one backward sweep (its saved lists and arrays
    copied; functions and modules as they are): the identity as a linear map."""
    return _fresh(record, {})


def _fresh(v, memo):
    if id(v) in memo:       # (values saved twice stay one value)
        return memo[id(v)]
    if isinstance(v, list):
        out = memo[id(v)] = []
        out.extend(_fresh(x, memo) for x in v)
    elif isinstance(v, dict):
        out = memo[id(v)] = {}
        out.update((k, _fresh(x, memo)) for k, x in v.items())
    elif type(v) is tuple:
        out = memo[id(v)] = tuple(_fresh(x, memo) for x in v)
    elif isinstance(v, (types.ModuleType, type, types.FunctionType, types.MethodType,
                        str, bytes, int, float, complex, bool)) or v is None:
        return v
    else:
        try:
            out = copy.deepcopy(v, memo)
        except TypeError:   # (what cannot be copied is kept: it is not changed in place)
            return v
        memo[id(v)] = out
    return out


def grad_of_one(_sg_f, x):
    """``sg.grad(f)(x)`` of a function of one argument, as Python srcgrad transforms:
    f is its argument, so that the gradient of what f holds is f's own, by f's names
    (compiler/dynamic.py, _target: f's generated code holds them under others)."""
    return vjp_of(_sg_f, x)[1](1.0)


def grad_of_args(_sg_f, _sg_wrt, _sg_single, *args):
    """``sg.grad(f, wrt)(*args)`` as Python srcgrad transforms (:func:`grad_of_one` for
    several arguments): the gradients of the arguments at positions ``_sg_wrt``, one
    value where ``_sg_single``, else a tuple."""
    value, record = dynamic.call_forward(_sg_f, constant(_sg_wrt), "sg.grad", *args)
    grads = dynamic.call_backward(fresh_record(record), 1.0)
    if constant(_sg_single):
        return grads[0]
    return grads


def grad_with_aux(_sg_f, _sg_wrt, _sg_single, _sg_value, *args):
    """``sg.grad(f, wrt, has_aux=True)(*args)`` (``_sg_value``: sg.value_and_grad's) as
    Python srcgrad transforms: f returns (value, aux); the gradients of the value only,
    and aux, which a gradient may flow through, as it is."""
    out, record = dynamic.call_forward(_sg_f, constant(_sg_wrt), "sg.grad", *args)
    value = out[0]
    aux = out[1]
    grads = dynamic.call_backward(fresh_record(record), (1.0, runtime.zeros_like(aux)))
    if constant(_sg_single):
        grads = grads[0]
    if constant(_sg_value):
        return (value, aux), grads
    return grads, aux


def holds_floats(v):
    """Does ``v`` hold a float (``sg.vjp``'s arguments with a gradient)?"""
    return dynamic._holds_floats(v, set())


holds_floats.__srcgrad_stop_gradient__ = True


deftransformable(split_forward, split_forward_b, split_plain, jvp_apply, _tangent,
                 _tangent_item, jvp_of, jvp_star, _flat_call, vjp_of, star_apply, _made,
                 grad_of_one, grad_of_args, grad_with_aux,
                 split_backward, _one, _cells, _defaults)
# ``picked`` (a call's gradients out of its callee's) and its transpose are linear maps
# with rules: differentiated again, they are not transformed into their loops
add_kernel("picked", picked)
add_kernel("picked_back", picked_back)
defkernel(picked, "grads, picks", vjp=dict(grads="picked_back(g, grads, picks)"),
          jvp=dict(grads="picked(dgrads, picks)"), linear_in=("grads",))
defkernel(picked_back, "t, like, picks", vjp=dict(t="picked(g, picks)"),
          jvp=dict(t="picked_back(dt, like, picks)"), linear_in=("t",), shape_only="like")
# a pullback's record, copied per call (vjp_of): a copy's adjoint and tangent are the
# cotangent and the tangent, copied
add_kernel("fresh_record", fresh_record)
defkernel(fresh_record, "record", vjp=dict(record="g"),
          jvp=dict(record="fresh_record(drecord)"))


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


def _asked_after(pm, asked):
    """The positions (and keywords) of an unfolding's call that ``asked`` (positions of
    the call unfolded) come to by its position map ``pm`` (0, the callee, stays 0)."""
    out = []
    for p in asked:
        try:
            q = p if p == 0 else pm(p)
        except (IndexError, NonDifferentiableError):
            continue
        if q is not None:
            out.append(q)
    return tuple(out)


def _with_constants(H, h, mapped, site):
    """H's arguments ``h`` with its record's picks giving None for the entries of
    ``mapped`` that are constants (compiler/dynamic.py: _mapped)."""
    at = {split_forward: 2, split_forward_b: 2, construct_apply: 3}.get(H)
    if at is None:
        _refuse(dynamic._full(site), "a call with no argument to differentiate")
    lead, slots = h[at]
    slots = dynamic._constants_none(((), True, (lead, slots)), mapped)[2][1]
    return h[:at] + ((lead, slots),) + h[at + 1:]


def unfold_forward(args, kwargs, site, asked=()):
    """(H, its args, its keywords, position map): ``call_forward(*args, **kwargs)`` is
    ``H(*hargs, **hkwargs)``, with H a function srcgrad transforms; the map takes a
    position (or keyword) of ``args`` to H's (None: H's own gradient, which is none).
    ``asked``: the positions of ``args`` whose gradients are asked for; when that is the
    callee's (0) and the call's own ``wrt`` does not ask for it, H still takes what the
    callee holds (a closure's cells, a method's object) as arguments, so that the
    gradient flows into them, and its record gives only the gradients ``wrt`` names."""
    f, wrt, inner_site, *rest = args
    wrt = tuple(wrt)
    if id(f) in NESTED:     # call_forward(call_forward, ...): its callee unfolded first
        inner_asked = tuple(p if isinstance(p, str) else p - 3 for p in asked
                            if isinstance(p, str) or p >= 3)
        H0, h0, k0, pm0 = NESTED[id(f)](tuple(rest), kwargs, inner_site, inner_asked)

        def inner(p):
            return 0 if p == 0 else _shift(pm0)(p)
        mapped = tuple(dynamic._mapped(pm0, w) for w in wrt)
        kept = tuple(w for w in mapped if w is not dynamic._CONSTANT)
        H, h, k, pm = unfold_forward((H0, kept, inner_site) + tuple(h0), k0, site,
                                     _asked_after(inner, asked))
        if len(kept) < len(mapped):     # the constants' gradients: None
            h = _with_constants(H, h, mapped, site)

        def composed(p):
            q = inner(p)
            return None if q is None else pm(q)     # (None: a callee holding nothing)
        return H, h, k, composed
    full_site = dynamic._full(inner_site)
    own_asked = None in wrt
    opened = not own_asked and 0 in asked
    if not wrt and not opened:
        return split_plain, (f,) + tuple(rest), kwargs, \
            lambda p: p if isinstance(p, str) else 0 if p == 0 else p - 2
    if f is runtime.try_call:
        return dynamic.unfold_try(args, kwargs, site, asked, unfold_forward)
    if f is runtime.call_with_self:
        _refuse(full_site, "a method that changes its object")
    target, full, kw, front, holder = dynamic._target(f, tuple(rest), kwargs, full_site,
                                                      own_asked or opened)
    if not wrt and holder is None:
        return split_plain, (f,) + tuple(rest), kwargs, \
            lambda p: p if isinstance(p, str) else 0 if p == 0 else p - 2
    where_wrt, own = dynamic._callee_slot(wrt + ((None,) if opened else ()), front, holder,
                                          full_site, f)
    own = own and own_asked
    closure = bool(where_wrt) and where_wrt[0] is dynamic._CLOSURE
    if closure:
        where_wrt = where_wrt[1:]
    opened_self = opened and bool(where_wrt) and where_wrt[0] is dynamic._SELF
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
    if opened:      # what the callee holds is H's argument; the record gives wrt's only
        picks = (None, picks[1][1:] if opened_self else picks[1])
    elif own and not closure and (not where_wrt or where_wrt[0] is not dynamic._SELF):
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
    return _split_forward_for(kw), (fwd, bwd, picks, held, ncells) + tuple(full), kw, pm


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


def unfold_backward(args, kwargs, site, asked=()):
    """``call_backward(record, g)`` as :func:`split_backward`."""
    record = args[0]
    if not isinstance(record, tuple):
        _refuse(dynamic._full(site), "this call (of an object's constructor or a try "
                                     "statement)")
    return split_backward, tuple(args), kwargs, lambda p: p


def unfold_star(args, kwargs, site, asked=()):
    """``call_forward_star(f, wrt, site, stars, pieces, kw_pieces)`` as
    :func:`star_apply` of the flat call's unfolding."""
    f, wrt, inner_site, stars, pieces, kw_pieces = args
    flat, kw, spans, wrt, inner = dynamic.star_slots(stars, pieces, kw_pieces, wrt)
    slots = inner[1:] if None in inner else inner
    flat_asked = ((0,) if 0 in asked else ()) + \
        (tuple(3 + j for j in range(len(flat))) if 4 in asked else ()) + \
        (tuple(kw) if 5 in asked else ())
    H, h, k, pm = unfold_forward((f, inner, inner_site) + tuple(flat), kw, site, flat_asked)
    full_site = dynamic._full(inner_site)
    picks = None
    if H in _SPLITS:
        lead, flat_picks = h[2]
        picks = (lead, dynamic.group_picks(flat_picks, slots, wrt, spans))
    # where each of H's arguments comes from: the flat arguments, or a constant
    spec = [("const", v) for v in h]
    refused, replaced = [], []
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
            if h[q] is not flat[j]:     # a function value, as H takes it: what it holds
                replaced.append((j, h[q]))
    kwspec = {key: ("const", v) for key, v in k.items()}
    for key in kw:
        q = pm(key)
        kwspec[q] = ("kw", key)
        if isinstance(q, str) and k.get(q, kw[key]) is not kw[key]:
            _refuse(full_site, f"{dynamic._name(f)}, a function value given by keyword")
    pieces, fill = _pieces_replaced(stars, pieces, replaced)
    held_at = None
    try:
        held_at = pm(0)
    except NonDifferentiableError:
        pass
    if held_at == 3 and H in _SPLITS:
        spec[3] = ("held", None)

    def position(p):
        if p == 0:
            if held_at == 3 and H in _SPLITS:
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
    if fill is not None:
        position.fills = {6: fill}
    return star_apply, (H, tuple(spec), tuple(kwspec.items()), picks,
                        h[3] if held_at == 3 and H in _SPLITS else {}, stars, pieces,
                        kw_pieces), {}, position


def _pieces_replaced(stars, pieces, replaced):
    """A starred call's pieces with the flat arguments ``replaced`` ((j, value)) by the
    values its unfolding takes for them (a closure: the dict of what it holds, whose
    gradient is the closure's own; a bound method: its object), and None or a function
    that makes a tangent of the pieces whole for them (call_jvp: a closure's tangent is
    a sparse dict, or None)."""
    if not replaced:
        return pieces, None
    at, j = {}, 0
    for k, p in enumerate(pieces):
        for item in (range(len(p)) if k in stars else [None]):
            at[j] = (k, item)
            j += 1
    new = [list(p) if k in stars else p for k, p in enumerate(pieces)]
    where = []
    for j, v in replaced:
        k, item = at[j]
        where.append((k, item, v))
        if item is None:
            new[k] = v
        else:
            new[k][item] = v
    new = tuple(type(pieces[k])(p) if k in stars else p for k, p in enumerate(new))

    def fill(t):
        t = [None] * len(new) if t is None else list(t)
        for k, item, v in where:
            if item is None:
                t[k] = _whole(t[k], v)
            else:
                part = [None] * len(new[k]) if t[k] is None else list(t[k])
                part[item] = _whole(part[item], v)
                t[k] = type(new[k])(part)
        return tuple(t)
    return new, fill


def _whole(t, v):
    """The tangent ``t`` of a value taken as ``v``: whole where ``v`` is a held dict."""
    if isinstance(v, dict):
        return {n: dynamic._part(t, n, x) for n, x in v.items()}
    return runtime.zeros_like(v) if t is None else t


def unfold_jvp(args, kwargs, site, asked=()):
    """``call_jvp(f, wrt, site, tangents, *args)`` (forward-mode generated code
    differentiated again) as :func:`jvp_apply` of ``f``'s forward-mode code; ``asked``
    as for :func:`unfold_forward`."""
    f, wrt, inner_site, tangents, *rest = args
    wrt = tuple(wrt)
    if id(f) in NESTED:
        inner_asked = tuple(p if isinstance(p, str) else p - 4 for p in asked
                            if isinstance(p, str) or p >= 4)
        H0, h0, k0, pm0 = NESTED[id(f)](tuple(rest), kwargs, inner_site, inner_asked)

        def inner(p):
            if isinstance(p, str):
                return pm0(p)
            if p == 0 or p == 3:
                return p
            if p < 3:
                raise IndexError(p)
            q = pm0(p - 4)
            return q if q is None or isinstance(q, str) else q + 4
        mapped = [dynamic._mapped(pm0, w) for w in wrt]
        kept = tuple(w for w in mapped if w is not dynamic._CONSTANT)
        tangents = tuple(t for w, t in zip(mapped, tangents) if w is not dynamic._CONSTANT)
        H, h, k, pm = unfold_jvp((H0, kept, inner_site, tangents) + tuple(h0), k0, site,
                                 _asked_after(inner, asked))

        def composed(p):
            q = inner(p)
            return None if q is None else pm(q)
        return H, h, k, composed
    full_site = dynamic._full(inner_site)
    target, full, kw, front, holder = dynamic._target(f, tuple(rest), kwargs, full_site,
                                                      None in wrt or 0 in asked)
    kept, own = dynamic._callee_slot(wrt, front, holder, full_site, f)   # (refuses others)
    # the entries with a tangent (the callee's object's: _SELF) and their tangents' index;
    # a closure's own tangent (a sparse dict of what it holds): ``own_at``
    entries, own_at = [], None
    for i, w in enumerate(wrt):
        if w is not None:
            entries.append((w, i))
        elif kept and kept[0] is dynamic._SELF:
            entries.append((dynamic._SELF, i))
        elif kept and kept[0] is dynamic._CLOSURE:
            own_at = i
    where = [0 if w is dynamic._SELF else w + front if isinstance(w, int) else w
             for w, _ in entries]
    rule = dynamic.rules.lookup(target)
    if rule is None and isinstance(target, type) and records.user_class(target) and \
            not issubclass(target, tuple) and front == 0 and \
            [i for _, i in entries] == list(range(len(tangents))):
        # an object built inside: its tangent, linear in the arguments' (as call_jvp)
        return construct_jvp_apply, (target, tuple(where), full_site, tangents) + \
            tuple(full), kw, lambda p: p if isinstance(p, str) else None if p == 0 else p
    if rule is not None:
        target = calling(target, len(full), tuple(kw))
    elif not dynamic.is_python_callee(target):
        dynamic.call_jvp(f, wrt, inner_site, tangents, *rest, **kwargs)    # raises why
        _refuse(full_site, f"{dynamic._name(f)}")
    sig = dynamic._signature(target)
    slots = dynamic._slots(sig, full, kw, where, full_site, target)
    if len(set(slots)) < len(slots):
        _refuse(full_site, f"{dynamic._name(f)} with two tangents for one argument")
    bound = sig.bind(*full, **kw)
    opened = holder == dynamic._CLOSURE and front == 0
    cells, defaults = dynamic._opened(target, sig, bound) if opened else ({}, [])
    order = list(sig.parameters)
    params = sorted({p for p, _ in slots} | set(defaults), key=order.index)
    kinds = {n: dynamic.argument_kind(v)
             for n, v in dynamic._with_defaults(bound, target).items()}
    kinds.update({n: dynamic.argument_kind(v) for n, v in cells.items()})
    fn = dynamic.BUILD["forward"](target, tuple(cells) + tuple(params), kinds)
    held = dict(cells)
    actual = dynamic.defaults_of(target)
    held.update({p: actual[p] for p in defaults})
    own_t = tangents[own_at] if own_at is not None else None
    spec = [(fn.tangent_params[n], "own", (own_at, n))
            if isinstance(own_t, dict) and own_t.get(n) is not None else
            (fn.tangent_params[n], "zero", runtime.zeros_like(v)) for n, v in held.items()]
    marks = sig.bind(*range(len(full)), **{key: key for key in kw})
    for p in params:
        if p in defaults:
            continue
        at = {sub: i for (q, sub), (_, i) in zip(slots, entries) if q == p}
        if None in at:
            spec.append((fn.tangent_params[p], "at", at[None]))
        elif isinstance(marks.arguments[p], dict):      # **kwargs: a dict, zeros for the rest
            spec.append((fn.tangent_params[p], "dict", tuple(
                (key, ("at", at[key]) if key in at else
                 ("zero", runtime.zeros_like(kw[key])))
                for key in marks.arguments[p])))
        else:                                           # *args: a tuple, zeros for the rest
            spec.append((fn.tangent_params[p], "tuple", tuple(
                ("at", at[j]) if j in at else ("zero", runtime.zeros_like(full[pos]))
                for j, pos in enumerate(marks.arguments[p]))))

    def pm(p):
        if isinstance(p, str):
            return p
        if p == 0:
            if holder is None:
                return None
            if opened:
                return 2
            if holder == "self" and front > 0:
                return 5
            _refuse(full_site, f"{dynamic._name(f)}, a function value built from "
                               f"differentiated values ({holder}), in forward mode")
        if p == 3:
            return 4
        if p < 3:
            raise IndexError(p)
        return 5 + front + p - 4
    return jvp_apply, (fn, tuple(spec), held, len(cells), tangents) + tuple(full), kw, pm


NESTED = dynamic.NESTED
dynamic.JVP_OF[:] = [jvp_of, vjp_of]
_SPLITS = (split_forward, split_forward_b)
dynamic.HELD_AT.update({id(split_forward): 3, id(split_forward_b): 3, id(star_apply): 4,
                       id(jvp_apply): 2})
NESTED[id(dynamic.call_forward)] = unfold_forward
NESTED[id(dynamic.call_backward)] = unfold_backward
NESTED[id(dynamic.call_forward_star)] = unfold_star
NESTED[id(dynamic.call_jvp)] = unfold_jvp
NESTED[id(dynamic.call_jvp_star)] = unfold_jvp_star
NESTED.update(calling=calling, split_backward=split_backward)
for _f in (dynamic.call_forward, dynamic.call_backward, dynamic.call_forward_star,
           dynamic.call_jvp, dynamic.call_jvp_star):
    _f.__srcgrad_unfolds__ = True       # (analysis/activity.py)
