"""``max_memory=``: each outermost loop of a function as a step function and a call of a
checkpointing primitive (``rules/checkpoint.py``).

Guarantee: the function returned by :func:`checkpointed` computes what the user's
function computes, with each outermost ``for t in range(...)`` or ``while`` loop (one
not inside another loop) replaced by a call that runs the loop's body as a function of
the loop's carried values and its reads::

    for t in range(n):                    def f_loop_line12(t, h, W, xs):
        h = np.tanh(W @ h + xs[t])            h = np.tanh(W @ h + xs[t])
                                              return (h, W, xs)
                                          h, = checkpointed_for(f_loop_line12, range(n),
                                                                (h,), (W, xs), max_memory)

*Carried*: names the body assigns that the body reads before assigning them, or that
the code outside the loop (or a ``while`` loop's condition) reads.  *Reads*: the
function's local names the body reads and does not assign.  The step function returns
the new carry and then the reads unchanged (so its adjoint accumulates the reads'
cotangents as the plain loop does); the call returns the carry and then the reads that
the code after the loop reads (so their cotangents from there seed the loop's).  Globals and closure variables are read live, as in
the user's function.  A loop this cannot express is refused at its line
(UnsupportedSyntaxError): ``break``, ``continue``, ``return`` or ``yield`` in the body,
an ``else:`` clause, a ``for`` over anything but ``range(...)``, a write into a value made
outside the loop (``a[i] = v``, ``a.attr = v``, ``lst.append(v)``), ``global``/``nonlocal``.

The budget is read from a closure cell when the code runs: one compiled derivative
serves every budget; its code differs from the function's own (the cache keeps them apart).
"""
import ast
import copy
import linecache
import types

import gast

from ...errors import UnsupportedSyntaxError
from ..source import get_function_ast, unwrap

# the names the rewritten code calls and reads (each one prefixed where the user's code
# uses it for something else)
FOR, WHILE, BUDGET = "checkpointed_for", "checkpointed_while", "max_memory"

# methods that change the object they are called on (a write into a value from outside)
_MUTATORS = frozenset(("append", "extend", "insert", "pop", "remove", "clear", "update",
                       "setdefault", "popitem", "sort", "reverse", "add", "discard",
                       "fill", "resize", "put", "itemset", "sort", "partition"))

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef,
           ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _walk(node):
    """Nodes of ``node`` in this scope (not inside nested functions, lambdas or
    comprehensions, whose names are their own)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        for c in ast.iter_child_nodes(n):
            if not isinstance(c, _SCOPES):
                stack.append(c)
            else:
                # a nested scope reads the names its free expressions read
                for d in ast.walk(c):
                    if isinstance(d, ast.Name) and isinstance(d.ctx, ast.Load):
                        yield d


def _names(nodes, ctx):
    """The names ``nodes`` load (``ast.Load``) or assign (``ast.Store``), in the order
    they appear in the source."""
    found = [n for node in nodes for n in _walk(node)
             if isinstance(n, ast.Name) and isinstance(n.ctx, ctx)]
    found.sort(key=lambda n: (n.lineno, n.col_offset))
    out = []
    for n in found:
        if n.id not in out:
            out.append(n.id)
    return out


def _exposed(stmts, defined):
    """Names read in ``stmts`` before they are assigned there (in order of reading)."""
    out = []
    defined = set(defined)
    for s in stmts:
        if isinstance(s, ast.If):
            out += [n for n in _names([s.test], ast.Load) if n not in defined]
            a = _exposed(s.body, defined)
            b = _exposed(s.orelse, defined)
            out += a + b
            both = set(_names(s.body, ast.Store)) & set(_names(s.orelse, ast.Store))
            defined |= both
            continue
        if isinstance(s, ast.For):
            out += [n for n in _names([s.iter], ast.Load) if n not in defined]
            out += _exposed(s.body + s.orelse, defined | set(_names([s.target], ast.Store)))
            continue
        if isinstance(s, ast.While):
            out += [n for n in _names([s.test], ast.Load) if n not in defined]
            out += _exposed(s.body + s.orelse, defined)
            continue
        if isinstance(s, ast.With):
            out += [n for n in _names(s.items, ast.Load) if n not in defined]
            out += _exposed(s.body, defined | set(_names(s.items, ast.Store)))
            defined |= set(_names([s], ast.Store))
            continue
        if isinstance(s, ast.Try):          # any part may not run: nothing defined after
            parts = s.body + [b for h in s.handlers for b in h.body] + s.orelse + s.finalbody
            out += _exposed(parts, defined)
            continue
        value_nodes = [c for c in ast.iter_child_nodes(s)]
        if isinstance(s, ast.AugAssign):
            out += [n for n in _names([s.target], ast.Store) if n not in defined]
        out += [n for n in _names(value_nodes, ast.Load) if n not in defined]
        defined |= set(_names([s], ast.Store))
    seen = []
    for n in out:
        if n not in seen:
            seen.append(n)
    return seen


class _Refuse:
    def __init__(self, info):
        self.info = info

    def __call__(self, node, what):
        line = getattr(node, "lineno", None)
        raise UnsupportedSyntaxError(
            f"max_memory: this loop cannot be checkpointed: {what}. Rewrite the loop, or "
            f"call without max_memory", self.info.filename, line,
            getattr(node, "col_offset", 0), self.info.line(line) if line else None)


def _own_jumps(stmts):
    """``break``/``continue`` statements that belong to this loop (not to an inner one)."""
    for s in stmts:
        if isinstance(s, (ast.Break, ast.Continue)):
            yield s
        elif not isinstance(s, (ast.For, ast.While, *_SCOPES)):
            for field in ("body", "orelse", "finalbody"):
                yield from _own_jumps(getattr(s, field, None) or [])
            for h in getattr(s, "handlers", None) or []:
                yield from _own_jumps(h.body)


def _check_body(loop, assigned, refuse):
    for s in _own_jumps(loop.body):
        refuse(s, f"its body has a '{type(s).__name__.lower()}' (compute a flag and test "
                  f"it in the loop's condition instead)")
    for n in _walk(loop):
        if isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom, ast.Await)):
            refuse(n, f"its body has a '{type(n).__name__.lower()}'")
        if isinstance(n, (ast.Global, ast.Nonlocal)):
            refuse(n, f"its body declares '{type(n).__name__.lower()}'")
        if isinstance(n, ast.Delete):
            refuse(n, "its body deletes names or items ('del')")
    for n in _walk(loop):
        target = None
        if isinstance(n, (ast.Subscript, ast.Attribute)) and isinstance(n.ctx, ast.Store):
            target = n.value
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                n.func.attr in _MUTATORS:
            target = n.func.value
        while isinstance(target, (ast.Subscript, ast.Attribute)):
            target = target.value
        if isinstance(target, ast.Name) and target.id not in assigned:
            refuse(n, f"it writes into {target.id!r}, a value made outside the loop (build "
                      f"a new value in the body, or carry it: {target.id} = ... in the body)")


class _Rewriter:
    def __init__(self, fdef, info, func):
        self.fdef, self.info, self.func = fdef, info, func
        self.refuse = _Refuse(info)
        self.steps = []         # the generated step / condition functions
        self.facts = {}         # step name -> (file:line, reads never assigned, passed through)
        taken = {n.id for n in ast.walk(fdef) if isinstance(n, ast.Name)} | \
            set(func.__code__.co_names) | set(func.__code__.co_freevars)
        self.helpers = {h: h if h not in taken else f"_srcgrad_{h}" for h in (FOR, WHILE, BUDGET)}
        a = fdef.args
        params = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
        params += [x.arg for x in (a.vararg, a.kwarg) if x is not None]
        self.locals = set(params) | set(_names(fdef.body, ast.Store))
        self.params = params
        # parameters the function never assigns: constant when not differentiated
        self.unassigned = set(params) - set(_names(fdef.body, ast.Store))

    def block(self, stmts):
        out = []
        for s in stmts:
            if isinstance(s, (ast.For, ast.While)):
                out.extend(self.loop(s))
                continue
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(s, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt) \
                        and not isinstance(s, _SCOPES):
                    setattr(s, field, self.block(inner))
            if isinstance(s, ast.Try):
                for h in s.handlers:
                    h.body = self.block(h.body)
            out.append(s)
        return out

    def loop(self, loop):
        refuse = self.refuse
        if loop.orelse:
            refuse(loop, "it has an 'else:' clause")
        is_for = isinstance(loop, ast.For)
        if is_for:
            if not isinstance(loop.target, ast.Name):
                refuse(loop, "its target is not one name (write 'for i in range(len(xs)):' "
                             "and index inside)")
            it = loop.iter
            if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and
                    it.func.id == "range"):
                refuse(loop, "it does not loop over range(...) (write 'for i in "
                             "range(len(xs)): x = xs[i]')")
        index = loop.target.id if is_for else "_trip"
        assigned = set(_names(loop.body, ast.Store)) | ({index} if is_for else set())
        _check_body(loop, assigned, refuse)
        outside = self._loads_outside(loop)
        exposed = _exposed(loop.body, {index} if is_for else set())
        if not is_for:
            exposed = _names([loop.test], ast.Load) + exposed
        if is_for and index in outside and index not in self._stores_outside(loop):
            refuse(loop, f"the loop variable {index!r} is read after the loop (keep its "
                         f"last value in another name inside the body)")
        order = _names(loop.body, ast.Store)
        carried = [n for n in order if n != index and (n in exposed or n in outside)]
        reads = [n for n in _names(loop.body + ([] if is_for else [loop.test]), ast.Load)
                 if n in self.locals and n not in assigned]
        if not carried:
            return [loop]
        # reads the code after the loop reads again come out of the call too: their
        # cotangents from after the loop are where the loop's adjoint adds its own
        after = self._loads_after(loop)
        through = [n for n in reads if n in after]
        name = f"{self.fdef.name}_loop_line{loop.lineno}"
        params = ([index if is_for else "_trip"]) + carried + reads
        ret = ast.Return(ast.Tuple([ast.Name(n, ast.Load()) for n in carried + reads],
                                   ast.Load()))
        self.steps.append(_def(name, params, copy.deepcopy(loop.body) + [ret], loop.lineno))
        # what the primitive needs to know of the loop, on its step function
        self.facts[name] = (f"{self.info.filename}:{loop.lineno}",
                            tuple(r in self.unassigned for r in reads),
                            tuple(reads.index(n) for n in through))
        carry = ast.Tuple([ast.Name(n, ast.Load()) for n in carried], ast.Load())
        read = ast.Tuple([ast.Name(n, ast.Load()) for n in reads], ast.Load())
        budget = ast.Name(self.helpers[BUDGET], ast.Load())
        if is_for:
            call = ast.Call(ast.Name(self.helpers[FOR], ast.Load()),
                            [ast.Name(name, ast.Load()), loop.iter, carry, read, budget], [])
        else:
            cond = name + "_test"
            test = ast.copy_location(ast.Return(loop.test), loop)
            self.steps.append(_def(cond, carried + reads, [test], loop.lineno))
            call = ast.Call(ast.Name(self.helpers[WHILE], ast.Load()),
                            [ast.Name(cond, ast.Load()), ast.Name(name, ast.Load()), carry,
                             read, budget], [])
        target = ast.Tuple([ast.Name(n, ast.Store()) for n in carried + through],
                           ast.Store())
        return [ast.copy_location(ast.Assign([target], call), loop)]

    def _stores_outside(self, loop):
        inside = {id(n) for n in ast.walk(loop)}
        return {n.id for n in ast.walk(self.fdef) if isinstance(n, ast.Name) and
                isinstance(n.ctx, ast.Store) and id(n) not in inside}

    def _loads_after(self, loop):
        end = loop.end_lineno
        return {n.id for n in ast.walk(self.fdef) if isinstance(n, ast.Name) and
                isinstance(n.ctx, ast.Load) and n.lineno > end}

    def _loads_outside(self, loop):
        inside = {id(n) for n in ast.walk(loop)}
        return {n.id for n in ast.walk(self.fdef) if isinstance(n, ast.Name) and
                isinstance(n.ctx, ast.Load) and id(n) not in inside}


def _def(name, params, body, line):
    args = ast.arguments(posonlyargs=[], args=[ast.arg(p) for p in params], vararg=None,
                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    fdef = ast.FunctionDef(name=name, args=args, body=body, decorator_list=[], returns=None,
                           lineno=line, col_offset=0)
    if "type_params" in ast.FunctionDef._fields:
        fdef.type_params = []
    return fdef


_MADE = {}      # the user's code -> (codes by name, main name, step names, parameters, ...)
_STEPS = {}     # (code, closure cells, globals) -> the step functions made for them


def checkpointed(f, budget, wrt=None):
    """``f`` with its outermost loops checkpointed within ``budget`` bytes (a new
    function object; its code is built once per version of ``f``'s code), for a
    derivative with respect to ``wrt`` (positions or names; None: every argument)."""
    from ...rules import checkpoint           # the primitives and their rule
    func = unwrap(f)
    key = func.__code__
    made = _MADE.get(key)
    if made is None:
        made = _MADE[key] = _build(func)
    codes, main, steps, params, helpers, facts = made
    user = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))
    cells = {helpers[FOR]: types.CellType(checkpoint.checkpointed_for),
             helpers[WHILE]: types.CellType(checkpoint.checkpointed_while),
             helpers[BUDGET]: types.CellType((budget, _inert(params, wrt)))}
    cells.update(user)

    def make(code):
        missing = [n for n in code.co_freevars if n not in cells]
        for n in missing:
            cells[n] = types.CellType()
        return types.FunctionType(code, func.__globals__, code.co_name, None,
                                  tuple(cells[n] for n in code.co_freevars))
    # the step functions once per closure (the compiled derivative bakes them in)
    held = (key, tuple(map(id, func.__closure__ or ())), id(func.__globals__))
    made_steps = _STEPS.get(held)
    if made_steps is None:
        if len(_STEPS) > 256:
            _STEPS.clear()
        made_steps = {name: make(codes[name]) for name in steps}
        for name, fn in made_steps.items():
            fn.__srcgrad_loop__ = facts.get(name)
        _STEPS[held] = made_steps
    for name in steps:
        cells[name] = types.CellType(made_steps[name])
    out = make(codes[main])
    out.__defaults__, out.__kwdefaults__ = func.__defaults__, func.__kwdefaults__
    out.__qualname__ = func.__qualname__
    out.__doc__ = func.__doc__
    out.__srcgrad_checkpointed__ = func
    return out


def _build(func):
    fdef_g, info = get_function_ast(func)
    fdef = gast.gast_to_ast(copy.deepcopy(fdef_g))
    fdef.decorator_list = []
    rewriter = _Rewriter(fdef, info, func)
    fdef.body = rewriter.block(fdef.body)
    free = list(func.__code__.co_freevars)
    names = list(rewriter.helpers.values()) + free + [s.name for s in rewriter.steps]
    codes = {}
    for unit in [fdef] + rewriter.steps:
        where = "" if unit is fdef else f", line {unit.lineno}" + \
            (" test" if unit.name.endswith("_test") else "")
        filename = f"{info.filename} (max_memory{where})"
        text = _text(unit, names)
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
        factory = next(c for c in compile(text, filename, "exec").co_consts
                       if isinstance(c, types.CodeType))
        codes.update((c.co_name, c) for c in factory.co_consts if isinstance(c, types.CodeType))
    return codes, fdef.name, [s.name for s in rewriter.steps], rewriter.params, \
        rewriter.helpers, rewriter.facts


def _text(fdef, names):
    """A factory that defines ``fdef`` (the rewritten function, or a step) as text, its
    statements on the lines they have in the user's file: the generated code's ``# line
    N:`` comments and errors name the user's lines.  The factory's locals make the
    helpers, the user's closure variables and the steps free variables of ``fdef``."""
    lines = ["def __srcgrad_checkpointing__():",
             "    " + " = ".join(names) + " = None"]

    def put(node, indent):
        at = getattr(node, "lineno", 0) - 1
        while len(lines) < at:
            lines.append("")
        lines.extend(indent + line for line in ast.unparse(node).splitlines())
    body = fdef.body
    fdef.body = [ast.Pass()]
    put(fdef, "    ")
    lines.pop()                                     # (the placeholder body)
    fdef.body = body
    for s in body:
        put(ast.fix_missing_locations(s), "        ")
    return "\n".join(lines) + "\n"


def _inert(params, wrt):
    """The parameters the derivative is not taken with respect to: a loop reading one
    that its function never assigns computes no cotangent for it."""
    if wrt is None:
        return frozenset()
    wrt = wrt if isinstance(wrt, (tuple, list)) else (wrt,)
    named = {params[w] if isinstance(w, int) and -len(params) <= w < len(params) else w
             for w in wrt}
    return frozenset(params) - named
