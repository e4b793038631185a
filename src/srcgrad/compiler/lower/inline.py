"""Inlining of local ``def``s at their call sites."""
import gast

from .. import syntax as A
from .statements import Normalizer


def inline_local_functions(body, info, names, outer_locals, defs=None, active=(),
                           in_loop=False):
    """``y = f(a)`` where ``f`` is a ``def`` inside the function: inline f's body.

    A closure reads the enclosing variables when it is called; the inlined body
    reads them at the call site, which is the same moment.  f's own names are
    renamed so they never meet the caller's.  In a loop (``in_loop``), a def that makes
    functions (a nested def or lambda, which would close over those renamed names, one
    variable for every trip) is not inlined: each call is its own scope, as in Python.
    """
    if not defs and not any(isinstance(s, gast.FunctionDef) for s in A.statements(body)):
        return body                 # (no def anywhere: nothing to inline)
    defs = dict(defs or {})
    stored_twice = {}
    for s in body:
        for n in A.walk(s):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
                stored_twice[n.id] = stored_twice.get(n.id, 0) + 1
    out = []
    for s in body:
        if isinstance(s, gast.FunctionDef):
            if stored_twice.get(s.name):
                defs.pop(s.name, None)     # rebound later: not a fixed function
            elif not any(isinstance(n, gast.Global) for n in A.walk(s)):
                defs[s.name] = s
            out.append(s)
            continue
        if isinstance(s, gast.Assign) and len(s.targets) == 1 and \
                isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Name):
            if s.value.id in defs and stored_twice.get(s.targets[0].id) == 1:
                # ``g = inc``: a call of g is a call of that def (inlined, so that what
                # it writes, ``nonlocal`` names included, is followed)
                defs[s.targets[0].id] = defs[s.value.id]
            else:
                defs.pop(s.targets[0].id, None)
        for field in ("body", "orelse"):
            block = getattr(s, field, None)
            if isinstance(block, list) and block and not isinstance(s, gast.FunctionDef):
                setattr(s, field, inline_local_functions(
                    block, info, names, outer_locals, defs, active,
                    in_loop or isinstance(s, (gast.For, gast.While))))
        v = s.value if isinstance(s, (gast.Assign, gast.Expr)) else None
        if isinstance(v, gast.Call) and isinstance(v.func, gast.Name) and v.func.id in defs \
                and not _unpacks(v) and not (in_loop and _makes_functions(defs[v.func.id])):
            fdef = defs[v.func.id]
            if fdef.name in active:
                raise info.error(s, f"srcgrad cannot inline the recursive local function "
                                    f"{fdef.name}(); move it to module level and write the "
                                    f"recursion as a loop")
            target = s.targets[0] if isinstance(s, gast.Assign) else None
            made = _inline_call(fdef, v, target, s, info, names, outer_locals, defs,
                                active + (fdef.name,), in_loop)
            out.extend(made)
            # ``f = mk()`` where mk returns a def of its own body: a call of f is a
            # call of that def (its nonlocal names are this function's or further out)
            inner_defs = {d.name: d for d in made if isinstance(d, gast.FunctionDef)}
            last = made[-1] if made else None
            if isinstance(target, gast.Name) and stored_twice.get(target.id) == 1 and \
                    isinstance(last, gast.Assign) and isinstance(last.value, gast.Name) and \
                    last.value.id in inner_defs:
                defs[target.id] = inner_defs[last.value.id]
            continue
        out.append(s)
    return out


def _unpacks(call):
    """Does ``call`` unpack a value into its arguments (``f(*xs)``, ``f(**kw)``)?  Its
    binding is known only when it runs: the def is called as the value it is."""
    return any(isinstance(a, gast.Starred) for a in call.args) or \
        any(k.arg is None for k in call.keywords)


def _makes_functions(fdef):
    """Does the body of ``fdef`` define a function (a nested def or a lambda)?"""
    return any(isinstance(n, (gast.FunctionDef, gast.Lambda))
               for st in fdef.body for n in A.walk(st))


def _inline_call(fdef, call, target, site, info, names, outer_locals, defs, active,
                 in_loop=False):
    import copy as _copy
    sub_def = _copy.deepcopy(fdef)
    sub = Normalizer(sub_def, info, names, ad_name=getattr(info, "ad_name", "ad"))
    sub.locals |= outer_locals
    sub.nested = True
    inner = sub.run()
    params = [a.id for a in Normalizer._params(sub_def)]
    # the function's own name is the def's, unless a parameter shadows it (def kw(**kw));
    # a ``nonlocal`` name is the caller's variable, read and written as it is
    own = (A.names_stored(inner) - {fdef.name} - sub.nonlocals - _outward(inner)) | \
        set(params)
    mapping = {n: names.fresh(f"{fdef.name}_{n}") for n in sorted(own)}
    for st in inner:
        A.rename(st, mapping)
    binds = [A.assign(mapping[p], value, like=site)
             for p, value in _bind_arguments(sub_def, call, site, info)]
    ret = inner[-1]
    body = inline_local_functions(inner[:-1], info, names, outer_locals | own, defs, active,
                                  in_loop)
    tail = []
    if target is not None:
        tail.append(A.assign(_copy.deepcopy(target), ret.value, like=site))
    return binds + body + tail


def _outward(body):
    """The names a def nested in ``body`` declares ``nonlocal`` that ``body``'s own
    scope does not bind: they are a scope further out's, and keep their names."""
    declared = {n for d in A.walk(body) if isinstance(d, gast.FunctionDef)
                for s in A.walk(d.body) if isinstance(s, gast.Nonlocal) for n in s.names}
    if not declared:
        return set()
    bound, todo = set(), list(body)
    while todo:
        node = todo.pop()
        if isinstance(node, gast.FunctionDef):
            continue                    # (its own scope)
        if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Param)):
            bound.add(node.id)
        todo.extend(gast.iter_child_nodes(node))
    return declared - bound


def _bind_arguments(fdef, call, site, info):
    """[(parameter, value expression)] for ``call`` of the local function ``fdef``, bound
    as Python binds them: positional arguments in order, the rest into ``*args`` (a
    tuple); keywords by name, the rest into ``**kwargs`` (a dict); then the defaults
    (names holding the values computed where the ``def`` ran, see stmt_FunctionDef)."""
    import copy as _copy
    a = fdef.args
    positional = list(a.posonlyargs) + list(a.args)
    name = fdef.name
    given, extra_pos, extra_kw = {}, [], []
    for p, v in zip(positional, call.args):
        given[p.id] = v
    extra_pos = list(call.args[len(positional):])
    if extra_pos and a.vararg is None:
        raise info.error(site, f"{name}() takes {len(positional)} positional arguments but "
                               f"{len(call.args)} were given")
    keyword_params = {p.id for p in list(a.args) + list(a.kwonlyargs)}
    for k in call.keywords:
        if k.arg in keyword_params:
            if k.arg in given:
                raise info.error(site, f"{name}() got multiple values for argument {k.arg!r}")
            given[k.arg] = k.value
        elif a.kwarg is not None:
            extra_kw.append(k)
        else:
            raise info.error(site, f"{name}() got an unexpected keyword argument {k.arg!r}")
    out = []
    defaults = list(a.defaults)
    first_default = len(positional) - len(defaults)
    for i, p in enumerate(positional):
        if p.id in given:
            value = given[p.id]
        elif i >= first_default:
            value = defaults[i - first_default]
        else:
            raise info.error(site, f"{name}() is missing the argument {p.id!r}")
        out.append((p.id, _copy.deepcopy(value)))
    if a.vararg is not None:
        out.append((a.vararg.id, A.tuple_([_copy.deepcopy(v) for v in extra_pos])))
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        value = given.get(p.id, d)
        if value is None:
            raise info.error(site, f"{name}() is missing the keyword-only argument {p.id!r}")
        out.append((p.id, _copy.deepcopy(value)))
    if a.kwarg is not None:
        out.append((a.kwarg.id, gast.Dict(keys=[A.const(k.arg) for k in extra_kw],
                                          values=[_copy.deepcopy(k.value) for k in extra_kw])))
    return out
