"""Values Python computes later than srcgrad does: generator expressions, calls of
generator functions, ``map`` / ``filter`` / ``zip`` / ``enumerate`` / ``reversed``.

The desugaring evaluates each at once, as a list (lower/desugar.py).  Python runs
them item by item as they are consumed, reading the names and arrays they use then.
Bound to a name and consumed later, they differ when something in between rebinds a
name they read or changes a value in place::

    gen = (w * di for di in d)
    d[0] = 5.0               # Python's sum(gen) sees 5.0; the list made at once did not
    total = sum(gen)

:func:`check_lazy_values` refuses that at the line that changes it, before anything is
transformed, as it refuses a second pass over one (Python's is used up by the first);
a lazy value consumed once, in the statement that makes it (``sum(x for x in xs)``) or
with nothing in between that could change what it reads, is left alone.
"""
import inspect

import gast

from .. import syntax as A
from ..source import MISSING, resolve

_LAZY_BUILTINS = (map, filter, zip, enumerate, reversed, iter)
# methods that change their object in place (a subset of analysis/activity.py's list
# would do; any call of a method by these names counts)
_CHANGING = frozenset(("append", "extend", "insert", "pop", "remove", "update", "setdefault",
                       "clear", "sort", "reverse", "fill", "resize", "put", "itemset",
                       "__setitem__", "add", "discard"))


def check_lazy_values(body, info):
    """Raise a located error where a lazy value bound to a name in ``body`` (at any
    depth outside nested defs) would see a change made before it is consumed."""
    for block in _blocks(body):
        for i, st in enumerate(block):
            lazy = _lazy_value(st, info.func, body)
            if lazy is None:
                continue
            name, reads, what = lazy
            for j, later in enumerate(block[i + 1:], i + 1):
                if name in A.names_read(later):
                    _used_once(name, what, later, block[j + 1:], info)
                    break
                changer = _change_in(later, reads, info.func)
                if changer is not None:
                    raise info.error(changer, (
                        f"{name} is {what}: Python runs it only as it is consumed, "
                        f"which here is after this line changes what it reads, while "
                        f"srcgrad evaluates it where it is made. Build a list there "
                        f"([...] or list(...)) if that is what you mean, or consume "
                        f"{name} before this line"))


def _used_once(name, what, first, rest, info):
    """A lazy value is used up by its first pass: refuse a second one (a later statement
    reading ``name``, or a loop around the read that runs it again), which Python would
    find empty and the list srcgrad made would not."""
    again = None
    if isinstance(first, (gast.For, gast.While)):
        inner = first.body + first.orelse
        if any(name in A.names_read(st) for st in inner):
            again = first
    elif sum(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load)
             for n in gast.walk(first)) > 1:
        again = first                       # (``sum(gen) + sum(gen)``)
    if again is None:
        again = next((st for st in rest if name in A.names_read(st)), None)
    if again is not None:
        raise info.error(again, (
            f"{name} is {what}: Python's is used up by its first pass, and this line "
            f"would find it empty, while srcgrad makes it a list that every pass reads. "
            f"Build a list ([...] or list(...)) if every pass should see the values"))


def _blocks(stmts):
    """``stmts`` and every statement list nested in them (not in nested defs)."""
    out = [stmts]
    for st in stmts:
        if isinstance(st, gast.FunctionDef):
            continue
        for field in ("body", "orelse", "finalbody"):
            b = getattr(st, field, None)
            if isinstance(b, list) and b:
                out.extend(_blocks(b))
        for h in getattr(st, "handlers", None) or ():
            out.extend(_blocks(h.body))
    return out


def _lazy_value(st, func, body):
    """(name, names it reads, what it is) for ``name = <lazy value>``, else None."""
    if not (isinstance(st, gast.Assign) and len(st.targets) == 1 and
            isinstance(st.targets[0], gast.Name)):
        return None
    v = st.value
    if isinstance(v, gast.GeneratorExp):
        own = set()
        for g in v.generators:
            own |= A.names_stored(g.target)
        return st.targets[0].id, A.names_read(v) - own, "a generator expression"
    if not isinstance(v, gast.Call):
        return None
    reads = A.names_read(v)
    f = v.func
    if isinstance(f, gast.Name):
        nested = [d for d in body if isinstance(d, gast.FunctionDef) and d.name == f.id]
        if nested and yields(nested[-1].body):
            reads |= A.names_read(nested[-1].body)
            return st.targets[0].id, reads, f"a generator ({f.id}() yields)"
    obj = resolve(f, func) if isinstance(f, (gast.Name, gast.Attribute)) else MISSING
    if any(obj is b for b in _LAZY_BUILTINS):
        return st.targets[0].id, reads, f"{obj.__name__}(...), an iterator"
    if inspect.isgeneratorfunction(obj):
        return st.targets[0].id, reads, f"a generator ({obj.__name__}() yields)"
    return None


def yields(stmts):
    """Does this def body yield (outside its own nested defs and lambdas)?"""
    stack = list(stmts)
    while stack:
        n = stack.pop()
        if isinstance(n, (gast.Yield, gast.YieldFrom)):
            return True
        if isinstance(n, (gast.FunctionDef, gast.Lambda)):
            continue
        A.push_children(n, stack)
    return False


def _change_in(st, reads, func):
    """The node of ``st`` that may change what ``reads`` name (a rebinding, an item or
    attribute write, an augmented assignment, a call that may change its arguments),
    else None."""
    if A.names_stored([st]) & reads:
        return st
    for n in gast.walk(st):
        if isinstance(n, (gast.Subscript, gast.Attribute)) and isinstance(n.ctx, gast.Store):
            return n
        if isinstance(n, gast.AugAssign):
            return n
        if isinstance(n, gast.Call) and _may_change_arguments(n, func):
            return n
    return None


def _may_change_arguments(call, func):
    if any(k.arg == "out" for k in call.keywords):
        return True
    f = call.func
    if isinstance(f, gast.Attribute) and f.attr in _CHANGING:
        return True
    obj = resolve(f, func) if isinstance(f, (gast.Name, gast.Attribute)) else MISSING
    if obj is MISSING:
        return True
    module = getattr(obj, "__module__", None) or ""
    # NumPy's and math's functions and the builtins change nothing they are given
    # (out= and the in-place methods above aside); anything else may
    return not (module.split(".")[0] in ("numpy", "math", "builtins") or
                type(obj).__name__ in ("ufunc", "builtin_function_or_method") or
                obj in (len, range, float, int, sum, min, max, abs, list, tuple))
