"""The front end both modes share: read the function, name the helpers, lower.

:func:`front_end` runs the ``parse`` and ``normalize`` passes for a function and the
``wrt`` parameters asked for, and returns what the mode passes start from: the
parsed definition, its source information, its parameters, the names generated code
will use (``np``, ``ad``, ``math`` never shadow the user's), and the lowered body.
"""
import math
from dataclasses import dataclass

import gast
import numpy as np

from . import pipeline
from . import syntax as A
from .lower import normalize
from .names import Names
from .source import add_local_import, get_function_ast, resolve
from ..errors import UnsupportedSyntaxError
from ..rules import helper_names, namespace as ad_namespace


@dataclass
class Front:
    fdef: object          # the user's FunctionDef (gast)
    info: object          # where it lives (file, lines) and how to raise located errors
    params: list          # its parameter names, in order
    names: Names          # generated names (``gen``, ``np``, ``ad``, ``math``, ``d<x>``)
    body: list            # the lowered body (normalize's output)
    cells: tuple = ()     # the ``nonlocal`` / ``global`` names it writes (codegen declares them)


def front_end(func, wrt, kinds):
    """Parse and lower ``func`` for a derivative with respect to ``wrt``; ``kinds``
    maps parameters to what this call passes (``"num"``, ``"container"``...)."""
    fdef, info = get_function_ast(func)
    if getattr(func, "__srcgrad_transformable__", False):
        _drop_backend_binding(fdef, func)
        _inline_namespace_calls(fdef, func)
    pipeline.after("parse", func, fdef)
    if getattr(func, "__srcgrad_returns_self__", False):
        _return_self(fdef)
    if getattr(func, "__srcgrad_returns_params__", None):
        _return_with(fdef, func.__srcgrad_returns_params__)
    params = param_names(fdef)
    opened = open_free_names(fdef, func, [w for w in wrt if w not in params])
    params = opened + params
    for w in wrt:
        if w not in params:
            raise ValueError(f"wrt={w!r} is not a parameter of {func.__qualname__}{params}")
    user_names = A.all_names(fdef)
    # the names of the functions this build generates are taken too: a callee of the
    # same name (another factory's ``loss``) gets its own (it was the generated
    # ``loss_fwd`` calling itself)
    generated = {f"{fdef.name}_fwd", f"{fdef.name}_bwd", f"jvp_{fdef.name}"} | \
        {f"{mode}_{fdef.name}" for mode in ("grad", "value_and_grad")}
    gen = A.NameGen(user_names | set(params) | generated)
    names = Names(gen, helper_name("np", user_names, func, np, gen),
                  helper_name("ad", user_names, func, ad_namespace(), gen),
                  helper_name("math", user_names, func, math, gen))
    names.helper_names = helper_names()
    cells = fdef.srcgrad_cells = tuple(_open_cells(fdef, func, info, gen))
    for _, n, _ in cells:
        if n in opened:
            raise ValueError(f"wrt={n!r}: {func.__qualname__} writes that nonlocal name; "
                             f"differentiate with respect to a parameter")
    info.ad_name = names.ad        # the lowering writes helper calls with these names
    info.np_name = names.np        # (np.asarray for lists given to NumPy)
    body = normalize(fdef, info, gen, names.ad,
                     known_arrays=[n for n, k in kinds.items() if k == "num"],
                     known_sequences=[n for n, k in kinds.items() if k == "container"] +
                     [a.id for a in (fdef.args.vararg, fdef.args.kwarg) if a is not None],
                     known_records=[n for n, k in kinds.items() if k == "record"])
    if cells:
        _store_cells(body, cells)
    pipeline.after("normalize", func, body, fdef)
    return Front(fdef, info, params, names, body, cells)


def _open_cells(fdef, func, info, gen):
    """``nonlocal n`` / ``global n`` in the differentiated function itself: in the body
    ``n`` becomes a local copy, read from the cell (the module) where the function
    starts and written back where it returns (:func:`_store_cells`; the generated
    function declares ``n`` as the user's did, and reads the user's cell: cache.live).
    A value written there is the forward value; no gradient flows through it (a later
    call reads it as data).  Returns [(kind, name, local copy)]."""
    found = []

    def visit(stmts):
        kept = []
        for st in stmts:
            if isinstance(st, (gast.Nonlocal, gast.Global)):
                kind = "nonlocal" if isinstance(st, gast.Nonlocal) else "global"
                found.extend((kind, n, st) for n in st.names)
                continue
            if not isinstance(st, gast.FunctionDef):
                for field in ("body", "orelse", "finalbody"):
                    block = getattr(st, field, None)
                    if isinstance(block, list) and block:
                        setattr(st, field, visit(block) or [A.copy_loc(gast.Pass(), st)])
                for h in getattr(st, "handlers", ()):
                    h.body = visit(h.body) or [A.copy_loc(gast.Pass(), h)]
            kept.append(st)
        return kept
    if not any(isinstance(n, (gast.Nonlocal, gast.Global)) for n in A.walk(fdef.body)):
        return []
    fdef.body = visit(fdef.body) or [A.copy_loc(gast.Pass(), fdef)]
    if not found:
        return []
    out, mapping = [], {}
    kind, n, st = found[0]
    fdef.srcgrad_cell_error = info.error(
        st, f"{func.__qualname__} writes the {kind} name {n!r}, and it is called from "
            f"differentiated code: a gradient through that name would be lost. Return "
            f"the value instead (a {kind} write is accepted in the function given to "
            f"sg.grad / sg.vjp / sg.jvp itself, whose written values are data to later calls)")
    for kind, n, st in found:
        if n in mapping:
            continue
        mapping[n] = gen.fresh(n)
        out.append((kind, n, mapping[n]))
    A.rename(fdef, mapping)
    # read where the function starts (a name not bound yet is first written by it)
    fdef.body[:0] = [A.copy_loc(A.assign(local, A.name(n)), fdef.body[0])
                     for kind, n, local in out if _bound(func, kind, n)]
    return out


def _bound(func, kind, n):
    if kind == "global":
        return n in getattr(func, "__globals__", {})
    code = func.__code__
    if n not in code.co_freevars:
        return False
    try:
        func.__closure__[code.co_freevars.index(n)].cell_contents
    except ValueError:
        return False
    return True


def _store_cells(body, cells):
    """Before the lowered body's one return: each opened cell gets its local copy."""
    ret = body[-1] if body and isinstance(body[-1], gast.Return) else None
    at = len(body) - 1 if ret is not None else len(body)
    like = ret if ret is not None else (body[-1] if body else None)
    body[at:at] = [A.copy_loc(A.assign(n, A.name(local)), like) if like is not None
                   else A.assign(n, A.name(local)) for _, n, local in cells]


def refuse_cells(fns):
    """(For a callee's compiled code.)  The located error of a function that writes a
    ``nonlocal`` / ``global`` name (see :func:`_open_cells`); ``fns`` unchanged else."""
    for fn in fns if isinstance(fns, tuple) else (fns,):
        err = getattr(fn, "__srcgrad_cell_error__", None)
        if err is not None:
            raise err.with_traceback(None)
    return fns


def declare_cells(fdef, cells):
    """Each generated function that writes an opened cell declares it as the user's
    function did (``nonlocal n`` / ``global n``), first in its body."""
    if not cells:
        return fdef
    stored = A.names_stored(fdef.body)
    decls = []
    for kind in ("global", "nonlocal"):
        names = [n for k, n, _ in cells if k == kind and n in stored]
        if names:
            decls.append((gast.Global if kind == "global" else gast.Nonlocal)(names=names))
    doc = 1 if fdef.body and isinstance(fdef.body[0], gast.Expr) and \
        isinstance(getattr(fdef.body[0], "value", None), gast.Constant) and \
        isinstance(fdef.body[0].value.value, str) else 0
    fdef.body[doc:doc] = decls
    return fdef


def _return_self(fdef):
    """A method that changes its object, differentiated as returning ``(result, self)``
    (compiler/dynamic.returning_self): each ``return e`` becomes ``return (e, self)``."""
    a = fdef.args
    _return_with(fdef, [(list(a.posonlyargs) + list(a.args))[0].id])


def _return_with(fdef, names):
    """Each ``return e`` becomes ``return (e, *names)`` (and so does falling off the
    end): a method's object (above), the parameters a function changes in place
    (runtime.writing)."""
    def pair(value, like):
        return A.copy_loc(gast.Return(value=gast.Tuple(
            elts=[value if value is not None else A.const(None)] + [A.name(n) for n in names],
            ctx=gast.Load())), like)

    def visit(stmts):
        for i, st in enumerate(stmts):
            if isinstance(st, gast.Return):
                stmts[i] = pair(st.value, st)
            elif not isinstance(st, gast.FunctionDef):
                for field in ("body", "orelse", "finalbody"):
                    if isinstance(getattr(st, field, None), list):
                        visit(getattr(st, field))
                for h in getattr(st, "handlers", ()):
                    visit(h.body)
    visit(fdef.body)
    fdef.body.append(pair(None, fdef.body[-1]))


def open_free_names(fdef, func, names):
    """A closure differentiated with respect to what it closes over (compiler/dynamic.py:
    a function value's own gradient): those free names become its first parameters,
    positional-only, so the derivative takes their values (read from the cells when the
    call runs) and gives their gradients.  Returns the names, in order."""
    free = getattr(getattr(func, "__code__", None), "co_freevars", ())
    opened = [n for n in names if n in free]
    if opened:
        fdef.args.posonlyargs[:0] = [gast.Name(id=n, ctx=gast.Param(), annotation=None,
                                               type_comment=None) for n in opened]
    return opened


def _drop_backend_binding(fdef, func):
    """Generated code (or a kernel) differentiated again: its ``np = ad.array_ns(...)`` is
    left out, so ``np.*`` resolves to NumPy's rules; the new code binds its own namespace.
    The name it bound is NumPy for the compiler (a local import of ``func``): a kernel's
    module need not bind ``np`` itself."""
    def binding(s):
        v = getattr(s, "value", None)
        return isinstance(s, gast.Assign) and len(s.targets) == 1 and \
            isinstance(s.targets[0], gast.Name) and isinstance(v, gast.Call) and \
            getattr(v.func, "attr", getattr(v.func, "id", None)) == "array_ns"
    for s in fdef.body:
        if binding(s):
            add_local_import(func, s.targets[0].id, np)
    fdef.body = [s for s in fdef.body if not binding(s)]


_NUMPY = "__srcgrad_numpy__"


def _inline_namespace_calls(fdef, func):
    """``array_ns(x).reshape(...)`` in a kernel differentiated again: the namespace read
    as NumPy's (whose functions have the rules), as for ``np = array_ns(x)``."""
    found = False
    for n in A.walk(fdef.body):
        if isinstance(n, gast.Attribute) and isinstance(n.value, gast.Call) and \
                getattr(n.value.func, "attr", getattr(n.value.func, "id", None)) == "array_ns":
            n.value = A.name(_NUMPY)
            found = True
    if found:
        add_local_import(func, _NUMPY, np)


def param_names(fdef):
    a = fdef.args
    return [x.id for x in list(a.posonlyargs) + list(a.args) + list(a.kwonlyargs)] + \
        ([a.vararg.id] if a.vararg else []) + ([a.kwarg.id] if a.kwarg else [])


class RecursiveBuild(UnsupportedSyntaxError):
    """The build of a function's derivative asked for that same derivative (recursion):
    a call site that gets this calls the derivative resolved when the call runs."""


def recursion_error(func):
    fdef, info = get_function_ast(func)
    return RecursiveBuild(f"srcgrad cannot differentiate the recursive function "
                          f"{func.__qualname__} here: it calls itself", info.filename,
                          fdef.lineno, fdef.col_offset, info.line(fdef.lineno))


def helper_name(preferred, fdef_names, func, obj, gen):
    """``np`` for numpy if the user's code does not use ``np`` for something else."""
    if preferred not in fdef_names:
        gen.reserve(preferred)
        return preferred
    code = func.__code__
    local = preferred in code.co_varnames or preferred in code.co_cellvars  # ``np = 2.0``
    if not local and resolve(A.name(preferred), func) is obj:
        return preferred
    return gen.fresh("_" + preferred)


