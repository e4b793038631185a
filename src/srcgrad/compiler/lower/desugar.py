"""Desugaring: expressions that hide a loop or a function become statements.

The first lowering step, run on the user's own tree before the fence.  Its output
has no comprehension, generator expression, lambda or assignment expression (``:=``)
and no call of ``map``/``filter``/``functools.reduce`` or of ``sorted``/``max``/``min``
with a ``key=``; each became the statements Python would run for it:

* ``[e for x in xs if c]`` (and set / dict comprehensions, generator expressions,
  nested ones) is a ``for`` loop that appends to a fresh list (sets a dict item),
  placed right before the statement that uses it.  The comprehension's variables get
  fresh names: as in Python they never leak into the function's own.  A generator
  expression is evaluated at once, as a list (where a change made before it is
  consumed could tell, lower/laziness.py refuses it).
* ``lambda a: e`` is ``def <name>(a): return e`` (``f = lambda ...`` keeps ``f``).
* ``map(f, xs)`` is ``[f(x) for x in xs]``, ``filter(f, xs)`` ``[x for x in xs if f(x)]``,
  ``functools.reduce(f, xs, init)`` a loop that folds, ``sorted(xs, key=f)`` sorts the
  positions by the keys (``ad.order_by``) and reads ``xs`` in that order, ``max(xs,
  key=f)`` / ``min`` read ``xs`` at the position of the best key.
* ``(y := e)`` is ``y = e`` before the statement, and ``y`` in its place.

Evaluation order and laziness are kept: a construct in only one branch of ``a if c
else b`` or in the right operand of ``and`` / ``or`` is evaluated only on that path
(the expression becomes an ``if`` statement).  Where a construct cannot be hoisted
without changing when it runs (the condition of a ``while`` loop), a located error
says so.
"""
import builtins
import copy
import functools
import inspect
import importlib

import gast
import numpy as np

from .. import syntax as A
from ..source import MISSING, add_local_import, local_imports, resolve
from .laziness import check_lazy_values, yields as _yields

_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)
_HOISTED = _COMPREHENSIONS + (gast.Lambda, gast.NamedExpr)


def needs_desugaring(body, func=None):
    return getattr(func, "__srcgrad_namespace__", None) is not None or \
        _mark_data_boolops(body) or \
        any(isinstance(n, _HOISTED + (gast.Import, gast.ImportFrom, gast.Yield,
                                      gast.YieldFrom)) or
            _is_functional_call_node(n) for n in A.walk(body))





_BOOLEAN_CALLS = frozenset(("isinstance", "callable", "hasattr", "bool", "all", "any",
                            "isfinite", "isnan", "isinf", "allclose", "array_equal"))


def _boolean(e):
    """Is ``e`` a bool whatever it reads (a comparison, ``not``, ``isinstance(...)``)?"""
    if isinstance(e, (gast.Compare, gast.Constant)):
        return True
    if isinstance(e, gast.UnaryOp) and isinstance(e.op, gast.Not):
        return True
    if isinstance(e, gast.BoolOp):
        return all(_boolean(v) for v in e.values)
    if isinstance(e, gast.Call):
        f = e.func
        name = f.id if isinstance(f, gast.Name) else f.attr if isinstance(f, gast.Attribute) \
            else None
        return name in _BOOLEAN_CALLS
    return False


def _mark_data_boolops(body):
    """Mark (``srcgrad_value``) each ``a and b`` / ``a or b`` whose value is data (an
    assigned or returned value, not a condition) and may be a number or an array: it
    is one of its operands, and its gradient that operand's, so it becomes an ``if``
    statement (``_Desugar.expr``).  Returns whether there was one."""
    found = False
    for st in A.walk(body):
        if isinstance(st, (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Return)) and \
                st.value is not None:
            for n in A.walk(st.value):
                if isinstance(n, gast.BoolOp) and not _boolean(n):
                    n.srcgrad_value = True
                    found = True
    return found


def _is_functional_call_node(n):
    if not isinstance(n, gast.Call):
        return False
    f = n.func
    if isinstance(f, gast.Name) and f.id in ("map", "filter", "sorted", "max", "min", "sum",
                                             "reduce", "partial"):
        return True
    return isinstance(f, gast.Attribute) and f.attr in ("reduce", "partial")


def desugar(body, info, names, params=()):
    """``body`` (a list of statements) without the constructs above (a new list;
    the statements themselves may be changed in place)."""
    check_lazy_values(body, info)
    if _is_generator(info.func):
        body = _generator_as_list(body, info, names)
    if not needs_desugaring(body, info.func):
        return body
    space = getattr(info.func, "__srcgrad_namespace__", None)
    if space is not None:
        add_local_import(info.func, space, np)
    locals_ = set(A.names_stored(body)) | set(params)
    return _Desugar(info, names, locals_ - {space}).block(body)


def _is_generator(func):
    code = getattr(func, "__code__", None)
    return code is not None and bool(code.co_flags & inspect.CO_GENERATOR)


def _generator_as_list(body, info, names):
    """A generator function's body as the function that returns the list of what it
    yields (``yield v`` appends v, ``yield from it`` appends it items, ``return``
    returns the list): what a caller that iterates over all of it sees, computed
    eagerly.  A ``while True`` that no break or return ends (an endless generator)
    is refused; a ``yield`` used as a value stays, for the fence to refuse."""
    out = names.fresh("yielded")

    def append(v, like):
        call = A.call(A.attr(out, "append"), [v if v is not None else A.const(None)])
        return A.copy_loc(gast.Expr(value=call), like)

    def block(stmts):
        new = []
        for st in stmts:
            if isinstance(st, gast.Expr) and isinstance(st.value, gast.Yield):
                new.append(append(st.value.value, st))
                continue
            if isinstance(st, gast.Expr) and isinstance(st.value, gast.YieldFrom):
                item = names.fresh("item")
                loop = gast.For(target=A.store(item), iter=st.value.value,
                                body=[append(A.name(item), st)], orelse=[], type_comment=None)
                new.append(A.copy_loc(loop, st))
                continue
            if isinstance(st, gast.Return):
                new.append(A.copy_loc(gast.Return(value=A.name(out)), st))
                continue
            if isinstance(st, gast.While) and isinstance(st.test, gast.Constant) and \
                    st.test.value is True and not _ends(st.body):
                raise info.error(st, "srcgrad differentiates a generator as the list of what "
                                     "it yields, and this one never ends (while True with "
                                     "no break or return); yield a finite number of values")
            if not isinstance(st, gast.FunctionDef):
                for field in ("body", "orelse", "finalbody"):
                    b = getattr(st, field, None)
                    if isinstance(b, list):
                        setattr(st, field, block(b))
                for h in getattr(st, "handlers", None) or ():
                    h.body = block(h.body)
            new.append(st)
        return new
    start = A.assign(out, gast.List(elts=[], ctx=gast.Load()))
    return [start] + block(body) + [gast.Return(value=A.name(out))]


def _ends(stmts, own_loop=True):
    """Does a ``break`` of this loop (``own_loop``) or a ``return`` leave ``stmts``?"""
    for st in stmts:
        if isinstance(st, gast.Return) or (own_loop and isinstance(st, gast.Break)):
            return True
        if isinstance(st, gast.FunctionDef):
            continue
        inner = own_loop and not isinstance(st, (gast.For, gast.While))
        blocks = [getattr(st, f, None) for f in ("body", "orelse", "finalbody")]
        blocks += [h.body for h in getattr(st, "handlers", None) or ()]
        if any(isinstance(b, list) and _ends(b, inner) for b in blocks):
            return True
    return False


class _Desugar:
    def __init__(self, info, names, locals_):
        self.info = info
        self.func = info.func
        self.names = names
        self.locals = locals_

    # -- statements ------------------------------------------------------------
    def block(self, stmts):
        out = []
        for s in stmts:
            out.extend(self.stmt(s))
        return out

    def stmt(self, s):
        if isinstance(s, gast.FunctionDef):
            pre = []
            s.args.defaults = [self.expr(d, pre) for d in s.args.defaults]
            s.args.kw_defaults = [d if d is None else self.expr(d, pre)
                                  for d in s.args.kw_defaults]
            if _yields(s.body):     # a generator def: the list of what it yields
                s.body = _generator_as_list(s.body, self.info, self.names)
            inner = set(A.names_stored(s.body)) | {a.id for a in A.params_of(s)}
            saved, self.locals = self.locals, self.locals | inner
            s.body = self.block(s.body)
            self.locals = saved
            return pre + [s]
        if isinstance(s, gast.Assign) and len(s.targets) == 1 and \
                isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Lambda):
            # ``f = lambda x: ...`` is ``def f(x): return ...`` (its name is f)
            return self.lambda_def(s.value, s.targets[0].id, s)
        if isinstance(s, (gast.Import, gast.ImportFrom)):
            return self.import_(s)
        space = getattr(self.func, "__srcgrad_namespace__", None)
        if space is not None and isinstance(s, gast.Assign) and \
                space in A.names_stored(s.targets):
            # generated code transformed again (grad of grad): the name it binds its
            # array namespace to (``np = ad.array_ns(x)``, or unpacked from the saved
            # values) reads as NumPy, whose functions have the rules; the new code
            # binds its own namespace
            if len(s.targets) == 1 and isinstance(s.targets[0], gast.Name):
                return []
            for t in s.targets:
                for n in A.walk(t):
                    if isinstance(n, gast.Name) and n.id == space:
                        n.id = self.names.fresh("namespace")
            return [s]
        if isinstance(s, gast.While):
            if _contains_hoisted(s.test):
                raise self.info.error(s.test, "srcgrad cannot differentiate a comprehension, "
                                              "lambda or := in the condition of a while loop "
                                              "(it runs again before every iteration); "
                                              "compute it in a name before the loop and again "
                                              "at the end of the loop body")
            s.body = self.block(s.body)
            s.orelse = self.block(s.orelse)
            return [s]
        if isinstance(s, (gast.If,)):
            pre = []
            s.test = self.expr(s.test, pre)
            s.body = self.block(s.body) or [gast.Pass()]
            s.orelse = self.block(s.orelse)
            return pre + [s]
        if isinstance(s, gast.For):
            pre = []
            s.iter = self.expr(s.iter, pre)
            s.body = self.block(s.body)
            s.orelse = self.block(s.orelse)
            return pre + [s]
        if isinstance(s, gast.With):
            pre = []
            for item in s.items:
                item.context_expr = self.expr(item.context_expr, pre)
            s.body = self.block(s.body)
            return pre + [s]
        if isinstance(s, gast.Try):
            s.body = self.block(s.body)
            for h in s.handlers:
                h.body = self.block(h.body)
            s.orelse = self.block(s.orelse)
            s.finalbody = self.block(s.finalbody)
            return [s]
        # a simple statement: hoist out of its expressions
        pre = []
        into = None
        if isinstance(s, gast.Assign) and len(s.targets) == 1 and \
                isinstance(s.targets[0], gast.Name) and \
                isinstance(s.value, (gast.ListComp, gast.DictComp)) and \
                s.targets[0].id not in A.names_read(s.value):
            into = s.targets[0].id    # ``ys = [...]``: build ys itself (readable)
        for field in ("value", "test", "msg", "exc", "cause", "target"):
            v = getattr(s, field, None)
            if isinstance(v, gast.AST) and not (field == "target" and
                                                not isinstance(s, gast.AugAssign)):
                if field == "target":
                    v = self.expr_in_target(v, pre)
                else:
                    v = self.expr(v, pre, into=into if field == "value" else None)
                setattr(s, field, v)
        if isinstance(s, gast.Assign):
            s.targets = [self.expr_in_target(t, pre) for t in s.targets]
        if into is not None and isinstance(s.value, gast.Name) and s.value.id == into:
            return pre           # the loop built ``into``: no ``ys = ys``
        return pre + [s]

    def import_(self, s):
        """``import m as n`` / ``from m import a``: imported now (as Python would when
        the statement runs) and resolved like a global of the function; the generated
        code gets the objects as closure values instead of the statement."""
        def load(module, level=0):
            try:
                if level:
                    package = self.func.__globals__.get("__package__") or ""
                    return importlib.import_module("." * level + (module or ""), package)
                return importlib.import_module(module)
            except ImportError as e:
                raise self.info.error(s, f"this import fails when srcgrad reads the "
                                         f"function: {e}") from None

        bound = {}
        if isinstance(s, gast.Import):
            for a in s.names:
                if a.asname:
                    bound[a.asname] = load(a.name)
                else:               # ``import os.path`` binds ``os``
                    top = a.name.split(".")[0]
                    load(a.name)
                    bound[top] = load(top)
        else:
            mod = load(s.module, s.level)
            for a in s.names:
                if a.name == "*":
                    raise self.info.error(s, "srcgrad does not support 'from ... import *' "
                                             "in a differentiated function; import the "
                                             "names you use")
                try:
                    obj = getattr(mod, a.name)
                except AttributeError:
                    obj = load(f"{mod.__name__}.{a.name}")
                bound[a.asname or a.name] = obj
        for name, obj in bound.items():
            known = local_imports(self.func).get(name, obj)
            if known is not obj or name in self.locals:
                raise self.info.error(s, f"srcgrad needs {name!r} to name one thing in a "
                                         f"differentiated function; this import rebinds it")
            add_local_import(self.func, name, obj)
        return []

    def expr_in_target(self, t, pre):
        """Subscripts of assignment targets may hold expressions (``y[f(i)] = v``)."""
        if isinstance(t, gast.Subscript):
            t.slice = self.expr(t.slice, pre)
            t.value = self.expr_in_target(t.value, pre)
        elif isinstance(t, (gast.Tuple, gast.List)):
            t.elts = [self.expr_in_target(e, pre) for e in t.elts]
        return t

    # -- expressions -----------------------------------------------------------
    def expr(self, e, pre, into=None):
        """``e`` with every hoisted construct replaced by a name; the statements that
        compute them are appended to ``pre`` in evaluation order."""
        if not _contains_hoisted(e):
            return e
        if isinstance(e, _COMPREHENSIONS):
            return self.comprehension(e, pre, into)
        if isinstance(e, gast.Lambda):
            tmp = self.names.fresh("lambda_")
            pre.extend(self.lambda_def(e, tmp, e))
            return A.name(tmp)
        if isinstance(e, gast.NamedExpr):
            value = self.expr(e.value, pre)
            pre.append(A.assign(A.store(e.target.id), value, like=e))
            self.locals.add(e.target.id)
            return A.name(e.target.id)
        if isinstance(e, gast.IfExp) and (_contains_hoisted(e.body) or
                                          _contains_hoisted(e.orelse)):
            test = self.expr(e.test, pre)
            tmp = self.names.fresh("ifexp")
            pre_b, pre_o = [], []
            body = self.expr(e.body, pre_b)
            orelse = self.expr(e.orelse, pre_o)
            node = gast.If(test=test, body=pre_b + [A.assign(tmp, body, like=e)],
                           orelse=pre_o + [A.assign(tmp, orelse, like=e)])
            pre.append(A.copy_loc(node, e))
            return A.name(tmp)
        if isinstance(e, gast.BoolOp) and (getattr(e, "srcgrad_value", False) or
                                           any(_contains_hoisted(v) for v in e.values[1:])):
            # ``a and b``: b runs only if a is true (``or``: if a is false); its value is
            # the operand that decided, with that operand's gradient
            tmp = self.names.fresh("boolop")
            pre.append(A.assign(tmp, self.expr(e.values[0], pre), like=e))
            rest = e.values[1:]
            nest = pre
            for v in rest:
                inner = []
                value = self.expr(v, inner)
                test = A.name(tmp)
                if isinstance(e.op, gast.Or):
                    test = gast.UnaryOp(op=gast.Not(), operand=test)
                node = A.copy_loc(gast.If(test=test, body=inner + [A.assign(tmp, value, like=e)],
                                          orelse=[]), e)
                nest.append(node)
                nest = node.body
            return A.name(tmp)
        if isinstance(e, gast.Call):
            lowered = self.functional_call(e, pre)
            if lowered is not None:
                return lowered
        # any other node: its children, left to right (Python's evaluation order)
        for field in e._fields:
            v = getattr(e, field, None)
            if isinstance(v, list):
                setattr(e, field, [self.expr(x, pre) if isinstance(x, gast.AST) else x
                                   for x in v])
            elif isinstance(v, gast.AST):
                setattr(e, field, self.expr(v, pre))
        return e

    def comprehension(self, e, pre, into=None):
        gens = e.generators
        if any(g.is_async for g in gens):
            raise self.info.error(e, "srcgrad does not support async comprehensions")
        # the comprehension's own variables: fresh names (they never leak)
        bound = set()
        for g in gens:
            bound |= A.names_stored(g.target)
        mapping = {n: self.names.fresh(n) for n in sorted(bound)}
        self.locals |= set(mapping.values())
        for i, g in enumerate(gens):
            A.rename(g.target, mapping)
            for c in g.ifs:
                A.rename(c, mapping)
            if i > 0:
                A.rename(g.iter, mapping)
        parts = [e.key, e.value] if isinstance(e, gast.DictComp) else [e.elt]
        for p in parts:
            A.rename(p, mapping)
        kind = {gast.ListComp: "list", gast.GeneratorExp: "list", gast.SetComp: "list",
                gast.DictComp: "dict"}[type(e)]
        result = into or self.names.fresh("dictcomp" if kind == "dict" else "listcomp")
        self.locals.add(result)
        pre.append(A.assign(result, gast.Dict(keys=[], values=[]) if kind == "dict"
                            else gast.List(elts=[], ctx=gast.Load()), like=e))
        first_iter = self.expr(gens[0].iter, pre)   # in the enclosing scope

        def level(i):
            g = gens[i]
            body = []
            if i == len(gens) - 1:
                inner = []
                if kind == "dict":
                    k = self.expr(e.key, inner)
                    v = self.expr(e.value, inner)
                    target = gast.Subscript(value=A.name(result), slice=k, ctx=gast.Store())
                    inner.append(A.assign(target, v, like=e))
                else:
                    v = self.expr(e.elt, inner)
                    inner.append(A.expr_stmt(A.call(A.attr(result, "append"), [v]), like=e))
            else:
                inner = []
                loop_pre = []
                it = self.expr(gens[i + 1].iter, loop_pre)
                inner = loop_pre + [level_loop(i + 1, it)]
            for c in reversed(g.ifs):
                cpre = []
                test = self.expr(c, cpre)
                inner = cpre + [A.copy_loc(gast.If(test=test, body=inner, orelse=[]), e)]
            body.extend(inner)
            return body

        def level_loop(i, it):
            node = gast.For(target=gens[i].target, iter=it, body=level(i), orelse=[],
                            type_comment=None)
            return A.copy_loc(node, e)

        pre.append(level_loop(0, first_iter))
        if isinstance(e, gast.SetComp):
            return A.copy_loc(A.call(A.name("set"), [A.name(result)]), e)
        return A.name(result)

    def lambda_def(self, lam, name, like):
        fdef = gast.FunctionDef(name=name, args=lam.args, body=[gast.Return(value=lam.body)],
                                decorator_list=[], returns=None, type_comment=None,
                                **A.type_params())
        A.copy_loc(fdef, like)
        A.copy_loc(fdef.body[0], lam.body if hasattr(lam.body, "lineno") else like)
        self.locals.add(name)
        return self.stmt(fdef)

    # -- map, filter, reduce, key= -----------------------------------------------
    def static(self, f):
        base = f
        while isinstance(base, gast.Attribute):
            base = base.value
        if isinstance(base, gast.Name) and base.id in self.locals:
            return MISSING
        return resolve(f, self.func)

    def functional_call(self, e, pre):
        if not isinstance(e.func, (gast.Name, gast.Attribute)):
            return None
        obj = self.static(e.func)
        if obj is MISSING:
            return None
        kws = {k.arg: k.value for k in e.keywords}
        starred = any(isinstance(a, gast.Starred) for a in e.args) or None in kws
        if starred:
            return None
        if obj is builtins.map and len(e.args) >= 2 and not kws:
            f = self.expr(e.args[0], pre)
            its = [self.expr(a, pre) for a in e.args[1:]]
            vs = [self.names.fresh("item") for _ in its]
            call = A.copy_loc(A.call(f, [A.name(v) for v in vs]), e)
            target = A.store(vs[0]) if len(vs) == 1 else \
                gast.Tuple(elts=[A.store(v) for v in vs], ctx=gast.Store())
            it = its[0] if len(its) == 1 else A.call(A.name("zip"), its)
            comp = gast.ListComp(elt=call, generators=[gast.comprehension(
                target=target, iter=it, ifs=[], is_async=0)])
            return self.comprehension(A.copy_loc(comp, e), pre)
        if obj is builtins.filter and len(e.args) == 2 and not kws:
            f = self.expr(e.args[0], pre)
            v = self.names.fresh("item")
            test = A.name(v) if isinstance(f, gast.Constant) and f.value is None else \
                A.call(f, [A.name(v)])
            comp = gast.ListComp(elt=A.name(v), generators=[gast.comprehension(
                target=A.store(v), iter=self.expr(e.args[1], pre), ifs=[test], is_async=0)])
            return self.comprehension(A.copy_loc(comp, e), pre)
        if obj is functools.reduce and len(e.args) in (2, 3) and not kws:
            return self.reduce(e, pre)
        if obj is functools.partial and e.args:
            return self.partial(e, kws, pre)
        start = e.args[1] if len(e.args) == 2 else kws.get("start")
        if obj is builtins.sum and e.args and isinstance(start, (gast.List, gast.Tuple)):
            # ``sum(lists, [])``: a concatenation, item by item (``acc = acc + item``)
            return self.fold(e, e.args[0], start, pre)
        if obj is builtins.sorted and len(e.args) == 1 and set(kws) <= {"key", "reverse"}:
            if "key" in kws:
                seq, keys = self.keyed(e, kws["key"], pre)
            else:
                # ``sorted(zip(scores, values))``: the items are their own keys (the
                # order carries no gradient; the items keep theirs)
                seq = keys = self.names.fresh("seq")
                pre.append(A.assign(seq, A.call(A.name("list"), [self.expr(e.args[0], pre)]),
                                    like=e))
                self.locals.add(seq)
            rev = self.expr(kws.get("reverse", A.const(False)), pre)
            order = self.names.fresh("order")
            pre.append(A.assign(order, A.call(A.attr(self.info_ad(), "order_by"),
                                              [A.name(keys), rev]), like=e))
            i = self.names.fresh("i")
            comp = gast.ListComp(elt=gast.Subscript(value=A.name(seq), slice=A.name(i),
                                                    ctx=gast.Load()),
                                 generators=[gast.comprehension(target=A.store(i),
                                                                iter=A.name(order), ifs=[],
                                                                is_async=0)])
            return self.comprehension(A.copy_loc(comp, e), pre)
        if obj in (builtins.max, builtins.min) and "key" in kws and len(e.args) == 1 and \
                set(kws) == {"key"}:
            seq, keys = self.keyed(e, kws["key"], pre)
            best = self.names.fresh("best")
            which = "index_of_max" if obj is builtins.max else "index_of_min"
            pre.append(A.assign(best, A.call(A.attr(self.info_ad(), which), [A.name(keys)]),
                                like=e))
            return gast.Subscript(value=A.name(seq), slice=A.name(best), ctx=gast.Load())
        return None

    def partial(self, e, kws, pre):
        """``functools.partial(f, a, k=b)`` is a def whose defaults hold what the
        partial binds (evaluated where the partial is made, as partial does), so that
        the gradient of what it binds is that of a closure's defaults::

            def partial_f(*args, _sg_0=a, k=b, **kwargs):
                return f(_sg_0, *args, k=k, **kwargs)

        (``f`` itself a default too, unless it names a module-level function)."""
        f = self.expr(e.args[0], pre)
        bound = [self.expr(a, pre) for a in e.args[1:]]
        values = {k: self.expr(v, pre) for k, v in kws.items()}
        label = f.attr if isinstance(f, gast.Attribute) else f.id if isinstance(f, gast.Name) \
            else "f"
        name = self.names.fresh(f"partial_{label}")
        fixed = isinstance(f, (gast.Name, gast.Attribute)) and self.static(f) is not MISSING
        params, defaults = [], []
        if not fixed:
            params.append("_sg_f")
            defaults.append(f)
        lead = [f"_sg_{i}" for i in range(len(bound))]
        params += lead + list(values)
        defaults += bound + list(values.values())
        # the callee's next required parameters, when they are known, are the partial's
        # own (so that sg.grad of it, with respect to its first argument, gives that
        # argument's gradient, as sg.grad of a functools.partial does)
        named = self._next_params(f, pre, len(bound))
        if set(named) & set(values) or any(n.startswith("_sg_") for n in named):
            named = []          # (a keyword binds one of them: passed on as *args)
        call = A.call(copy.deepcopy(f) if fixed else A.name("_sg_f"),
                      [A.name(p) for p in lead + named] +
                      [gast.Starred(value=A.name("_sg_args"), ctx=gast.Load())])
        call.keywords = [gast.keyword(arg=k, value=A.name(k)) for k in values] + \
            [gast.keyword(arg=None, value=A.name("_sg_kwargs"))]
        A.copy_loc(call, e)
        args = gast.arguments(args=[A.name(n, gast.Param()) for n in named], posonlyargs=[],
                              vararg=A.name("_sg_args", gast.Param()),
                              kwonlyargs=[A.name(p, gast.Param()) for p in params],
                              kw_defaults=defaults,
                              kwarg=A.name("_sg_kwargs", gast.Param()), defaults=[])
        fdef = gast.FunctionDef(name=name, args=args, body=[gast.Return(value=call)],
                                decorator_list=[], returns=None, type_comment=None,
                                **A.type_params())
        A.copy_loc(fdef, e)
        A.copy_loc(fdef.body[0], e)
        self.locals.add(name)
        pre.extend(self.stmt(fdef))
        return A.name(name)

    def _next_params(self, f, pre, skip):
        """The required positional parameters of the function ``f`` names after its
        first ``skip`` (a def just hoisted into ``pre``, as a lambda is, or a Python
        function it resolves to); none when they are not known."""
        if not isinstance(f, (gast.Name, gast.Attribute)):
            return []
        defs = [d for d in pre if isinstance(d, gast.FunctionDef) and
                isinstance(f, gast.Name) and d.name == f.id]
        if defs:
            a = defs[-1].args
            positional = [p.id for p in list(a.posonlyargs) + list(a.args)]
            required = positional[:len(positional) - len(a.defaults)]
        else:
            obj = self.static(f)
            if not inspect.isfunction(obj):
                return []
            ps = list(inspect.signature(obj).parameters.values())
            required = [p.name for p in ps if p.default is inspect.Parameter.empty and
                        p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        return required[skip:]

    def info_ad(self):
        return getattr(self.info, "ad_name", "ad")

    def keyed(self, e, key, pre):
        """``seq = list(xs)`` and ``keys = [key(v) for v in seq]`` (no gradient flows
        through a key: it only orders)."""
        seq = self.names.fresh("seq")
        pre.append(A.assign(seq, A.call(A.name("list"), [self.expr(e.args[0], pre)]), like=e))
        f = self.expr(key, pre)
        v = self.names.fresh("item")
        comp = gast.ListComp(elt=A.call(f, [A.name(v)]), generators=[gast.comprehension(
            target=A.store(v), iter=A.name(seq), ifs=[], is_async=0)])
        keys = self.names.fresh("keys")
        self.comprehension(A.copy_loc(comp, e), pre, into=keys)
        self.locals |= {seq, keys}
        return seq, keys

    def fold(self, e, seq_expr, start, pre):
        seq = self.expr(seq_expr, pre)
        acc = self.names.fresh("acc")
        pre.append(A.assign(acc, self.expr(start, pre), like=e))
        item = self.names.fresh("item")
        loop = gast.For(target=A.store(item), iter=seq,
                        body=[A.assign(acc, gast.BinOp(left=A.name(acc), op=gast.Add(),
                                                       right=A.name(item)), like=e)],
                        orelse=[], type_comment=None)
        pre.append(A.copy_loc(loop, e))
        self.locals |= {acc, item}
        return A.name(acc)

    def reduce(self, e, pre):
        f = self.expr(e.args[0], pre)
        seq = self.names.fresh("seq")
        pre.append(A.assign(seq, A.call(A.name("list"), [self.expr(e.args[1], pre)]), like=e))
        acc = self.names.fresh("acc")
        i = self.names.fresh("i")
        if len(e.args) == 3:
            pre.append(A.assign(acc, self.expr(e.args[2], pre), like=e))
            start = A.const(0)
        else:
            pre.append(A.assign(acc, gast.Subscript(value=A.name(seq), slice=A.const(0),
                                                    ctx=gast.Load()), like=e))
            start = A.const(1)
        item = gast.Subscript(value=A.name(seq), slice=A.name(i), ctx=gast.Load())
        loop = gast.For(target=A.store(i),
                        iter=A.call(A.name("range"), [start, A.call(A.name("len"),
                                                                    [A.name(seq)])]),
                        body=[A.assign(acc, A.call(f, [A.name(acc), item]), like=e)],
                        orelse=[], type_comment=None)
        pre.append(A.copy_loc(loop, e))
        self.locals |= {seq, acc, i}
        return A.name(acc)


def _contains_hoisted(e):
    return any(isinstance(n, _HOISTED) or _is_functional_call_node(n) or
               getattr(n, "srcgrad_value", False) for n in A.walk(e))
