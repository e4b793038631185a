"""Which parameters a user function changes in place, as its caller sees them.

``def h(a): a += 1.0`` changes the caller's array (when a is one); so do
``a[0] = v``, ``a.fill(0)``, ``np.copyto(a, v)``, ``t = a.T; t *= 2`` and a call
``g(a)`` of a function that does.  srcgrad differentiates a user function on its own
(its written parameters are copied), so the caller would go on with the old value:
aliasing.py refuses such a call when the argument is still used after it.

``written_params(func)`` answers from the function's source, in statement order and
conservatively: a name may be a parameter when it is assigned from one (``t = a``,
``t = a[1:]``, ``t = np.asarray(a)``, ``for t in a``, a call of a user function given
``a``); values computed by operators (``a * 2``), copies (``a.copy()``,
``np.array(a)``) and NumPy functions that declare no view are new.  It returns ``{param: HARD | SOFT}``:
``HARD`` for a store into an item or a mutating call (always in place), ``SOFT`` for
``t += v`` (in place only when t is an array; on a Python number it rebinds t).
"""
import inspect

import gast
import numpy as np

from ... import rules
from ..source import MISSING, get_function_ast, library_name, resolve
from .activity import MUTATING_METHODS

HARD, SOFT = "hard", "soft"
_MAX_DEPTH = 6
_CACHE = {}          # code object -> {param: kind}
_IN_PROGRESS = object()
_NONE = frozenset()


def written_params(func, depth=0):
    """``{param name: HARD | SOFT}`` for the parameters ``func`` may change in place."""
    code = getattr(func, "__code__", None)
    if code is None or depth > _MAX_DEPTH:
        return {}
    cached = _CACHE.get(code)
    if cached is _IN_PROGRESS:
        return {}                         # recursion: the outer scan sees the writes
    if cached is not None:
        return cached
    _CACHE[code] = _IN_PROGRESS
    try:
        fdef, _ = get_function_ast(func)
    except Exception:                       # no source (a builtin, a C function)
        _CACHE.pop(code, None)
        return {}
    try:
        out = _scan(fdef, func, depth)
    finally:
        _CACHE.pop(code, None)
    if len(_CACHE) > 512:
        _CACHE.clear()
    _CACHE[code] = out
    return out


def call_targets(func, pos, kws):
    """``[(name, kind)]``: the argument names (gast atoms) of a call ``func(*pos,
    **kws)`` that the callee changes in place."""
    written = written_params(func)
    if not written:
        return []
    try:
        sig = inspect.signature(func, follow_wrapped=False)
        bound = sig.bind_partial(*range(len(pos)), **{k: k for k, _ in kws})
    except (TypeError, ValueError):
        return []
    by_key = dict(kws)
    out = []
    for p, v in bound.arguments.items():
        kind = written.get(p)
        if kind is None:
            continue
        keys = v if isinstance(v, tuple) else v.values() if isinstance(v, dict) else [v]
        for key in keys:
            node = pos[key] if isinstance(key, int) else by_key.get(key)
            if isinstance(node, gast.Name):
                out.append((node.id, kind))
    return out


def _params(fdef):
    a = fdef.args
    names = [p.id for p in a.posonlyargs + a.args + a.kwonlyargs]
    names += [p.id for p in (a.vararg, a.kwarg) if p is not None]
    return names


def _scan(fdef, func, depth):
    """Walk the body in order: a name is rebound by ``t = e`` (``a = a.copy()`` makes a
    new a), joined over branches, twice around loops."""
    params = _params(fdef)
    written = {}

    def mark(ps, kind):
        for p in ps:
            if written.get(p) != HARD:
                written[p] = kind

    # env: name -> (the parameters it may be or view, the parameters it may hold)
    def refs(env, e):
        """The parameters ``e`` may be (or be a view of)."""
        if isinstance(e, gast.Name):
            return env.get(e.id, (_NONE, _NONE))[0]
        if isinstance(e, gast.Subscript):            # a view, or an item it holds
            return refs(env, e.value) | held(env, e.value)
        if isinstance(e, (gast.Attribute, gast.Starred)):
            return refs(env, e.value)
        if isinstance(e, gast.Call):
            return call_refs(env, e)
        if isinstance(e, gast.IfExp):
            return refs(env, e.body) | refs(env, e.orelse)
        if isinstance(e, gast.NamedExpr):
            return refs(env, e.value)
        return _NONE              # operators, constants, new containers: new values

    def held(env, e):
        """The parameters a container ``e`` may hold."""
        if isinstance(e, gast.Name):
            return env.get(e.id, (_NONE, _NONE))[1]
        if isinstance(e, (gast.Tuple, gast.List, gast.Set, gast.Dict)):
            elts = e.values if isinstance(e, gast.Dict) else e.elts
            return _NONE.union(*(refs(env, x) | held(env, x) for x in elts))
        if isinstance(e, (gast.Subscript, gast.Attribute, gast.Starred)):
            return held(env, e.value)
        if isinstance(e, gast.Call) and call_refs(env, e):
            return _NONE.union(*(refs(env, a) | held(env, a) for a in
                                 list(e.args) + [k.value for k in e.keywords]))
        if isinstance(e, gast.IfExp):
            return held(env, e.body) | held(env, e.orelse)
        return _NONE

    def call_refs(env, e):
        f = e.func
        obj = resolve(f, func) if isinstance(f, (gast.Name, gast.Attribute)) else MISSING
        if obj is not MISSING and rules.signature_of(obj) is not None:
            # a NumPy function: only its declared view shares memory (np.array copies)
            viewed = rules.view_of(obj)
            if viewed is None:
                return _NONE
            try:
                bound = rules.signature_of(obj).bind_partial(
                    *e.args, **{k.arg: k.value for k in e.keywords if k.arg is not None})
            except TypeError:
                return _NONE.union(*(refs(env, a) for a in e.args))
            v = bound.arguments.get(viewed)
            items = v if isinstance(v, tuple) else [v] if v is not None else []
            return _NONE.union(*(refs(env, a) for a in items))
        if isinstance(f, gast.Attribute) and obj is MISSING and \
                hasattr(np.ndarray, f.attr) and not rules.method_view(f.attr):
            return _NONE                       # x.copy(), x.sum(), x.astype(...): new
        out = _NONE                            # any other function may return an argument
        for a in list(e.args) + [k.value for k in e.keywords]:
            out |= refs(env, a) | held(env, a)
        if isinstance(f, gast.Attribute):
            out |= refs(env, f.value)          # a method may return its object
        return out

    def bind(env, target, value, strong):
        """``target = value`` (``strong``: the target is rebound, not maybe)."""
        if isinstance(target, gast.Name):
            new = (refs(env, value), held(env, value))
            if not strong:
                old = env.get(target.id, (_NONE, _NONE))
                new = (old[0] | new[0], old[1] | new[1])
            env[target.id] = new
            return
        every = refs(env, value) | held(env, value)     # unpacking: any item
        for n in gast.walk(target):
            if isinstance(n, gast.Name):
                old = env.get(n.id, (_NONE, _NONE))
                env[n.id] = (old[0] | every, old[1] | every)

    def bind_items(env, target, seq):
        """``for target in seq``: an array's rows are views, a list's items its own."""
        every = refs(env, seq) | held(env, seq)
        for n in gast.walk(target):
            if isinstance(n, gast.Name):
                old = env.get(n.id, (_NONE, _NONE))
                env[n.id] = (old[0] | every, old[1] | every)

    def calls(env, node):
        """Writes by the calls in one statement's expressions (not nested blocks)."""
        todo = [node]
        while todo:
            n = todo.pop()
            if isinstance(n, (gast.stmt, gast.Lambda)) and n is not node:
                continue
            todo.extend(gast.iter_child_nodes(n))
            if isinstance(n, gast.Call):
                call_writes(env, n)

    def call_writes(env, n):
        f = n.func
        if isinstance(f, gast.Attribute) and f.attr in MUTATING_METHODS | {"append"}:
            mark(refs(env, f.value), HARD)
        for k in n.keywords:
            if k.arg == "out":
                mark(refs(env, k.value), HARD)
        obj = resolve(f, func) if isinstance(f, (gast.Name, gast.Attribute)) else MISSING
        if obj is MISSING:
            return
        target = rules.in_place_target(obj)
        if target is not None:
            sig = rules.signature_of(obj)
            names = list(sig.parameters) if sig is not None else []
            for i, a in enumerate(n.args):
                if i < len(names) and names[i] == target or i == 0 and not names:
                    mark(refs(env, a), HARD)
            for k in n.keywords:
                if k.arg == target:
                    mark(refs(env, k.value), HARD)
        elif (inspect.isfunction(obj) or inspect.ismethod(obj)) and \
                not _numpy_function(obj) and rules.lookup(obj) is None:
            # (NumPy's own functions are not read: np.eye(n) builds its own array, and
            # those that change an argument say so in their rules, above; nor is any
            # function with a rule: SciPy's logsumexp writes only its own temporaries)
            for e, kind in call_targets_nested(obj, n, depth):
                # a callee's ``a += v`` may also change an array a list given to it holds
                mark(refs(env, e) | (held(env, e) if kind == SOFT else _NONE), kind)

    def join(a, b):
        out = {}
        for k in set(a) | set(b):
            x, y = a.get(k, (_NONE, _NONE)), b.get(k, (_NONE, _NONE))
            out[k] = (x[0] | y[0], x[1] | y[1])
        return out

    def visit(stmts, env):
        for st in stmts:
            env = statement(st, env)
        return env

    def statement(st, env):
        calls(env, st)
        if isinstance(st, gast.Assign):
            for t in st.targets:
                if isinstance(t, (gast.Name, gast.Tuple, gast.List)):
                    bind(env, t, st.value, strong=isinstance(t, gast.Name))
                for sub in gast.walk(t):
                    if isinstance(sub, (gast.Subscript, gast.Attribute)) and \
                            isinstance(sub.ctx, gast.Store):
                        mark(refs(env, sub.value), HARD)
        elif isinstance(st, gast.AnnAssign):
            t = st.target
            if st.value is not None and isinstance(t, gast.Name):
                bind(env, t, st.value, strong=True)
            elif isinstance(t, (gast.Subscript, gast.Attribute)):
                mark(refs(env, t.value), HARD)
        elif isinstance(st, gast.AugAssign):
            t = st.target
            if isinstance(t, gast.Name):
                mark(env.get(t.id, (_NONE, _NONE))[0], SOFT)
            else:
                mark(refs(env, t.value), HARD)
                if isinstance(t, gast.Subscript):      # d[k] += v: the item, in place
                    mark(held(env, t.value), SOFT)
        elif isinstance(st, gast.Delete):
            for t in st.targets:
                if isinstance(t, (gast.Subscript, gast.Attribute)):
                    mark(refs(env, t.value), HARD)
        elif isinstance(st, gast.If):
            env = join(visit(st.body, dict(env)), visit(st.orelse, dict(env)))
        elif isinstance(st, (gast.For, gast.While)):
            if isinstance(st, gast.For):
                bind_items(env, st.target, st.iter)
            first = visit(st.body, dict(env))
            again = visit(st.body, join(env, first))
            env = join(env, visit(st.orelse, join(env, again)))
        elif isinstance(st, gast.With):
            for item in st.items:
                if item.optional_vars is not None:
                    bind(env, item.optional_vars, item.context_expr, strong=False)
            env = visit(st.body, env)
        elif isinstance(st, gast.Try):
            body = visit(st.body, dict(env))
            out = join(env, body)
            for h in st.handlers:
                out = join(out, visit(h.body, dict(out)))
            out = visit(st.orelse, out)
            env = visit(st.finalbody, out)
        elif isinstance(st, gast.FunctionDef):
            visit(st.body, dict(env))           # a closure may write what it sees
        return env

    visit(fdef.body, {p: (frozenset([p]), frozenset([p])) for p in params})
    return {p: k for p, k in written.items() if p in params}


def _numpy_function(obj):
    fn = getattr(obj, "__func__", obj)
    return library_name(fn) is not None and \
        (getattr(fn, "__module__", "") or "").split(".")[0] == "numpy"


def call_targets_nested(obj, call, depth):
    """The argument expressions of ``call`` that the user function ``obj`` changes."""
    written = written_params(obj, depth + 1)
    if not written:
        return []
    try:
        bound = inspect.signature(obj, follow_wrapped=False).bind_partial(
            *call.args, **{k.arg: k.value for k in call.keywords if k.arg is not None})
    except (TypeError, ValueError):
        return []
    out = []
    for p, v in bound.arguments.items():
        kind = written.get(p)
        if kind is None:
            continue
        items = v if isinstance(v, tuple) else list(v.values()) if isinstance(v, dict) else [v]
        out += [(e, kind) for e in items]
    return out
