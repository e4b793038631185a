"""The compiler driver: parse, normalize, analyse, transform, generate, cache.

``reverse_function(f, wrt, mode, kinds)`` returns generated Python functions:

* mode "grad":  ``g(*args) -> grads``
* mode "value_and_grad": ``g(*args) -> (value, grads)``
* mode "split": ``(fwd, bwd)`` with ``fwd(*args) -> (value, saved)`` and
  ``bwd(saved, cotangent) -> tuple of grads`` (used by vjp, compile, and by
  callers that call this function from their own generated code).
"""
import copy
import math

import gast
import numpy as np

from . import syntax as A
from . import codegen, dynamic, nested, pipeline  # noqa: F401  (nested: installs itself)
from .analysis.kinds import infer_kinds
from .frontend import declare_cells, front_end, recursion_error, refuse_cells
from .optimize.copies import propagate_copies
from .optimize.dce import dead_code
from .optimize.known_calls import drop_type_checks, write_out_matmul_grads
from .optimize.shape_reads import stand_in_shape_reads
from .optimize.shapes import ShapeFacts
from .source import local_imports, unwrap
from .cache import BuildCache, cached_build, code_key
from .ir import Comment
from .modes.adjoint import shape_only_reads
from .modes.body import temporaries
from .modes.reverse import Reverse
from ..rules import ALL_AXES, namespace as ad_namespace
from ..rules.shapes import of_signature
from .. import runtime

_CACHE = BuildCache()


def reverse_function(func, wrt, mode, kinds=None, shapes=None):
    """``shapes``: ((parameter, its ``signature_of``), ...) of one call (rules/shapes.py),
    to specialize the code to (optimize/shapes.py); None: code for every shape."""
    func = unwrap(func)
    kinds = kinds or {}
    key = (code_key(func), tuple(wrt), mode, tuple(sorted(kinds.items())), shapes)
    return cached_build(_CACHE, key, func,
                        lambda: _build(func, tuple(wrt), mode, kinds, shapes),
                        lambda: recursion_error(func))


dynamic.use("reverse", lambda *a, **k: refuse_cells(reverse_function(*a, **k)))    # callees resolved at run time


def _build(func, wrt, mode, kinds, shapes=None):
    front = front_end(func, wrt, kinds)
    fdef, info, params, names, body = front.fdef, front.info, front.params, front.names, front.body
    gen = names.gen
    facts = ShapeFacts(body, {n: of_signature(v) for n, v in shapes}, func.__globals__,
                       names.ad) \
        if shapes else None

    gen_state = set(gen.taken)
    # (before the passes: they mark the body's statements and insert alias guards)
    temps = temporaries(body) | getattr(func, "__srcgrad_temps__", frozenset())
    local_kinds = infer_kinds(body, kinds)

    def run(needed, shape_only=(), reads_before=None, reuse=None):
        gen.taken = set(gen_state)
        names.adjoints = {}
        rev = Reverse(body, params, wrt, info, names, local_kinds, _callee_factory,
                      needed=needed, shape_only=shape_only, reads_before=reads_before,
                      reuse=reuse, shapes=facts)
        fwd, bwd = rev.run()
        return rev, fwd, bwd

    # pass 1 finds what the adjoint sweep reads; pass 2 saves only that
    first, fwd, bwd = run(None)
    primal = A.names_stored(fwd) | set(params)
    primal |= {n.name for s in fwd for n in gast.walk(s) if isinstance(n, gast.FunctionDef)}
    needed = set().union(*first.top_reads) & primal      # (what the adjoint sweep reads)
    # a top-level statement saves the value it overwrites only if the adjoints of the
    # statements before it (or its own, for compound statements) read that name
    reads_before = _ReadsBefore(first.top_reads)
    shape_only = shape_only_reads(bwd, names.ad) & needed
    rev = first
    if not first.agrees(needed, shape_only, reads_before):
        # (when pass 1 made the choices pass 2 would make, its code is pass 2's code)
        first.strip()
        rev, fwd, bwd = run(needed, shape_only, reads_before, reuse=first)
    pipeline.after("reverse", func, fwd + bwd, fdef)
    result = _assemble(func, fdef, info, rev, fwd, bwd, wrt, mode, params, names)
    # so that transforming the generated code again knows its temporaries
    for fn in (result if isinstance(result, tuple) else (result,)):
        fn.__srcgrad_temps__ = temps
        fn.__srcgrad_namespace__ = front.names.np     # (the name of its array namespace)
        fn.__srcgrad_specialized__ = bool(facts is not None and facts.used)
    return result


class _ReadsBefore:
    """``reads_before[i]``: the names read by the adjoints of top-level statements
    0..i, as a membership test (each name's first reader, not n prefix sets)."""

    def __init__(self, top_reads):
        self.first = {}
        for i, names in enumerate(top_reads):
            for n in names:
                self.first.setdefault(n, i)

    def __getitem__(self, i):
        return _Prefix(self.first, i)


class _Prefix:
    def __init__(self, first, i):
        self.first, self.i = first, i

    def __contains__(self, n):
        return self.first.get(n, self.i + 1) <= self.i


def _callee_factory(func, wrt, stmt, kinds=None):
    return refuse_cells(reverse_function(func, wrt, "split", kinds))


def _assemble(func, fdef, info, rev, fwd, bwd, wrt, mode, params, names):
    ad = names.ad
    result = rev.result
    bwd = _restored_lists_copied(bwd, ad)
    prologue = []
    for p in rev.copy_params:
        prologue.append(A.assign(p, A.call(A.attr(ad, "copy"), [A.name(p)])))
    if names.np in A.names_read(fwd) | A.names_read(bwd):
        # the backend seam: np.* computes in the arguments' array namespace
        prologue.append(A.assign(names.np, A.call(A.attr(ad, "array_ns"),
                                                  [A.name(p) for p in params])))
    # names pushed (or read by the adjoint sweep) that may be unbound on some path
    maybe_unbound = set(rev.saved_vars)
    if mode == "split":  # the forward returns everything the backward reads, on any path
        maybe_unbound |= (A.names_read(bwd) & A.names_stored(fwd)) - {names.np}
    bound = _always_bound(fwd)
    init = sorted(n for n in maybe_unbound if n not in params and n not in bound)
    if init:   # one line: ``add = matmul = h_prev = None`` (values pushed before first set)
        node = A.assign(init[0], A.const(None))
        node.targets = [A.store(n) for n in init]
        prologue.append(node)
    if rev.stack:
        prologue.append(A.assign(rev.stack, gast.List(elts=[], ctx=gast.Load())))
    fwd = prologue + fwd

    grads = []
    # a parameter the function rebinds (``x = a * 2``) may hold another value (of
    # another shape) when the sweeps end: zeros and structure come from the argument
    rebound = A.names_stored(fwd)
    arg_keep = []

    def argument(w):
        if w not in rebound:
            return A.name(w)
        keep = names.gen.fresh(w + "_arg")
        arg_keep.append(A.assign(keep, A.name(w)))
        return A.name(keep)
    for w in wrt:
        if w in rev.final_state and (rev.kinds.get(w) in ("container", "record") or
                                     rev.final_state[w] == "maybe"):
            grads.append(A.call(A.attr(ad, "fill_like"), [A.name(names.d(w)), argument(w)]))
        elif w in rev.final_state:
            grads.append(A.name(names.d(w)))
        else:
            grads.append(A.call(A.attr(ad, "zeros_like"), [argument(w)]))
    fwd = arg_keep + fwd

    closure = {ad: ad_namespace(), names.np: np, names.math: math}
    closure.update(codegen.default_values(fdef, func))
    closure.update(local_imports(func))     # imports inside the function
    closure.update(rev.callees)
    code = func.__code__
    if func.__closure__:
        for n, cell in zip(code.co_freevars, func.__closure__):
            try:
                closure[n] = cell.cell_contents
            except ValueError:
                pass
    where = f"{info.filename.rsplit('/', 1)[-1]}:{fdef.lineno}"
    wrt_text = ", ".join(wrt) if wrt else "nothing"

    def seed_stmt(dr):
        if _scalar_by_construction(rev, result):
            return A.assign(dr, A.const(1.0))   # a full reduction: no check, no value needed
        if rev.shapes is not None and rev.shapes.is_real_float_scalar(result):
            return A.assign(dr, A.const(1.0))   # (what ad.seed returns for it)
        return A.assign(dr, A.call(A.attr(ad, "seed"), [copy.deepcopy(result)]))

    if mode in ("grad", "value_and_grad"):
        _refuse_structured_result(func, info, rev, result)
        body = _bind_zeroed(fwd, bwd, params, len(prologue))
        dres = None
        if isinstance(result, gast.Name):
            dres = names.d(result.id)
        value = copy.deepcopy(result)
        if mode == "value_and_grad" and isinstance(result, gast.Name):
            # the reverse sweep restores overwritten values: keep the result's value
            mutated = _mutated_in_place(bwd)
            if result.id in A.names_stored(bwd) | mutated:
                value = A.name(names.gen.fresh("value"))
                keep = A.name(result.id)
                if result.id in mutated:
                    keep = A.call(A.attr(ad, "copy"), [keep])
                body.append(A.assign(value.id, keep))
        body.append(Comment("reverse sweep"))
        if dres:
            body.append(seed_stmt(dres))
        else:
            body.append(A.expr_stmt(A.call(A.attr(ad, "seed"), [copy.deepcopy(result)])))
        body.extend(_unshared(fwd, bwd, rev, ad))
        ret = grads[0] if len(grads) == 1 else A.tuple_(grads)
        if mode == "value_and_grad":
            ret = A.tuple_([value, ret])
        body.append(gast.Return(value=ret))
        body = drop_type_checks(body, rev.shapes, ad)
        body = write_out_matmul_grads(body, rev.shapes, ad)
        body = dead_code(stand_in_shape_reads(body, rev.an.varied, params, ad))
        body = propagate_copies(body, params)
        kind = "Gradient" if mode == "grad" else "Value and gradient"
        doc = f"{kind} of {func.__qualname__} ({where}) with respect to {wrt_text}."
        if rev.shapes is not None and rev.shapes.used:
            doc += "\n\n    " + rev.shapes.describe()
        name = f"{mode}_{fdef.name}"
        newdef = declare_cells(A.funcdef(fdef, name, [gast.Expr(value=A.const(doc))] + body),
                               getattr(fdef, "srcgrad_cells", ()))
        src = codegen.to_source(newdef)
        fns = codegen.build({name: src}, closure, func, f"{mode} of {func.__qualname__}",
                            trees={name: newdef})
        fn = fns[name]
        fn.__srcgrad_transformable__ = True
        fn.__srcgrad_cell_error__ = getattr(fdef, "srcgrad_cell_error", None)
        return fn

    # split form: forward (primal + records) and backward (adjoint)
    bwd_reads = A.names_read(bwd) | A.names_read(grads)   # ``ad.zeros_like(w)`` reads w
    primal = A.names_stored(fwd) | set(params)
    primal |= {n.name for s in fwd for n in gast.walk(s) if isinstance(n, gast.FunctionDef)}
    # the free names it reads are saved too: the backward sweep runs later, when the
    # enclosing function may have rebound them (``k = 2.0; f = lambda t: t ** k;
    # y = f(x); k = 3.0``); it must see the values the forward sweep saw
    primal |= set(code.co_freevars) - {ad}
    # (the array namespace is not saved: the backward sweep finds it from its values)
    saved = sorted((bwd_reads & primal) - {names.np}, key=lambda n: (n not in params, n))
    if rev.stack and rev.stack not in saved:
        saved.insert(0, rev.stack)
    # a name set on one path only (a branch's condition) is still packed into ``saved``
    bound = _always_bound(fwd[len(prologue):])
    unbound = [n for n in saved if n not in params and n not in init and n not in bound
               and n not in code.co_freevars]
    fwd = [A.assign(n, A.const(None)) for n in unbound] + fwd
    dres = names.d(result.id) if isinstance(result, gast.Name) else names.gen.fresh("dresult")
    saved_name = names.gen.fresh("saved")
    fwd_body = list(fwd) + [gast.Return(value=A.tuple_([copy.deepcopy(result),
                                                       A.tuple_([A.name(n) for n in saved])]))]
    fwd_body = dead_code(drop_type_checks(fwd_body, None, ad))
    unpack = []
    if saved:
        unpack = [A.assign(A.tuple_([A.store(n) for n in saved], gast.Store()),
                           A.name(saved_name))]
    # the backward sweep may run several times (vjp_fn called twice, retain_graph) and
    # must not change the forward's value: it works on copies of what it changes in place
    # (the stack it pops, arrays and dicts it restores)
    # an array or container whose items it restores may be held by a callee's record
    # too (``y = g(w, d); d[0] = 7.0``: g's backward reads d): it is restored in place,
    # so that the record sees it as it was, and given its value after the forward sweep
    # back at the end
    restored, popped = _in_place(bwd)
    mutated = restored | popped
    rebound_in_bwd = A.names_stored(bwd) if restored else set()
    # (``lst = listcomp`` both saved, listcomp popped: one copy, which both names hold)
    aliases = A.alias_groups(fwd)
    done, put_back, copied = set(), [], []
    for n in saved:
        if n not in mutated or n in done:
            continue
        group = [m for m in saved if m in aliases.get(n, ()) or m == n]
        done.update(group)
        if n in restored:
            after, obj = names.gen.fresh(n + "_after"), n
            if n in rebound_in_bwd:             # (the sweep rebinds n: keep the object)
                obj = names.gen.fresh(n + "_object")
                unpack.append(A.assign(obj, A.name(n)))
            unpack.append(A.assign(after, A.call(A.attr(ad, "copy"), [A.name(n)])))
            put_back.append(A.expr_stmt(A.call(A.attr(ad, "restore_item"), [
                A.name(obj), A.const(Ellipsis), A.name(after)])))
            continue
        # the tuples, lists and dicts of the record that may hold the list (``seq =
        # (l5,)``) are rebuilt around its copy: what they hold is what the sweep
        # restores.  Lists that may hold each other are copied together.
        near = set(group) | {m for m in _holders(fwd, group, aliases) if m in saved and
                             m not in params and m not in restored and
                             not any(a in mutated for a in aliases.get(m, (m,)))}
        for other in [c for c in copied if c & near]:
            copied.remove(other)
            near |= other
        copied.append(near)
    for near in sorted(copied, key=lambda c: min(saved.index(m) for m in c)):
        group = [m for m in saved if m in near]
        if len(group) == 1:
            unpack.append(A.assign(group[0], A.call(A.attr(ad, "copy"), [A.name(group[0])])))
        else:
            unpack.append(A.assign(A.tuple_([A.store(m) for m in group], gast.Store()),
                                   A.call(A.attr(ad, "copies"), [A.name(m) for m in group])))
    if names.np in bwd_reads:
        unpack.append(A.assign(names.np, A.call(A.attr(ad, "array_ns"), [A.name(dres)] + [
            A.name(n) for n in saved if n in params])))
    bwd_body = unpack + list(bwd) + put_back + [gast.Return(value=A.tuple_(grads))]
    fname, bname = f"{fdef.name}_fwd", f"{fdef.name}_bwd"
    fdoc = (f"Forward sweep of {func.__qualname__} ({where}): its value and what the "
            f"backward sweep needs.")
    bdoc = f"Backward sweep of {func.__qualname__} ({where}): gradients for {wrt_text}."
    fdef_f = A.funcdef(fdef, fname, [gast.Expr(value=A.const(fdoc))] + fwd_body)
    args = gast.arguments(args=[A.name(saved_name, gast.Param()), A.name(dres, gast.Param())],
                          posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                          kwarg=None, defaults=[])
    fdef_b = gast.FunctionDef(name=bname, args=args,
                              body=[gast.Expr(value=A.const(bdoc))] + bwd_body,
                              decorator_list=[], returns=None, type_comment=None,
                              **A.type_params())
    declare_cells(fdef_f, getattr(fdef, "srcgrad_cells", ()))
    declare_cells(fdef_b, getattr(fdef, "srcgrad_cells", ()))
    srcs = {fname: codegen.to_source(fdef_f), bname: codegen.to_source(fdef_b)}
    fns = codegen.build(srcs, closure, func, f"vjp of {func.__qualname__}",
                        trees={fname: fdef_f, bname: fdef_b})
    for f in fns.values():
        f.__srcgrad_transformable__ = True
        f.__srcgrad_cell_error__ = getattr(fdef, "srcgrad_cell_error", None)
    fns[bname].__srcgrad_gradients__ = True          # (analysis/activity.py)
    return fns[fname], fns[bname]


def _holders(fwd, group, aliases):
    """The names whose values may hold (as an item, at any depth) the object that the
    names of ``group`` hold, or hold it too: ``seq = (l5,)`` holds ``l5``; the values
    of one ``v = ad.copies(l5, seq)`` may hold each other, ``v`` holds them, and ``s =
    v[2]`` is ``seq``'s copy; ``d = r[i]`` and ``d, e = r`` make ``r`` hold ``d``'s
    object; aliases of a holder hold it too.  (Over the whole sweep, ignoring order:
    a name too many costs a copy, never a wrong value.)"""
    built, moves = {}, []
    for n in A.walk(fwd):
        if not isinstance(n, gast.Assign) or len(n.targets) != 1:
            continue
        t, v = n.targets[0], n.value
        copies = isinstance(v, gast.Call) and isinstance(v.func, gast.Attribute) and \
            v.func.attr == "copies"
        if isinstance(t, gast.Name) and (copies or isinstance(v, (gast.Tuple, gast.List,
                                                                   gast.Dict))):
            parts = v.args if copies else [v]
            inner = {e.id for p in parts for e in gast.walk(p) if isinstance(e, gast.Name)}
            moves.append(("holds", t.id, inner))
            if copies:
                moves.extend(("holds", m, inner) for m in inner)
            if not isinstance(v, gast.Dict):
                elts = v.args if copies else v.elts
                built[t.id] = [e.id if isinstance(e, gast.Name) else None for e in elts]
        elif isinstance(t, gast.Name) and isinstance(v, gast.Subscript) and \
                isinstance(v.value, gast.Name):
            elts, i = built.get(v.value.id), getattr(v.slice, "value", None)
            if elts and type(i) is int and -len(elts) <= i < len(elts) and elts[i]:
                moves.append(("same", t.id, elts[i]))      # (that item, or its copy)
            moves.append(("item", t.id, v.value.id))
        elif isinstance(t, gast.Tuple) and isinstance(v, gast.Name):
            moves.extend(("item", e.id, v.id) for e in t.elts if isinstance(e, gast.Name))
    group = set(group)
    held = set()
    changed = True
    while changed:
        changed = False
        for kind, target, src in moves:
            if kind == "holds":
                new = target if src & (group | held) else None
            elif kind == "same":
                new = target if src in group | held else None
            else:                                   # (src holds target's object)
                new = src if target in group | held else None
            if new is not None and new not in held | group:
                held |= {new} | set(aliases.get(new, ()))
                changed = True
    return held - group


def _refuse_structured_result(func, info, rev, result):
    """A returned tuple, list or dict literal is never a scalar: say so at compile time,
    before the forward pass runs (the runtime check says it for other values)."""
    kinds = {gast.Tuple: "tuple", gast.List: "list", gast.Dict: "dict"}
    if isinstance(result, gast.Name):      # ``result = (a, b)``, its one definition
        defs = [s for s in rev.body if isinstance(s, gast.Assign) and
                isinstance(s.targets[0], gast.Name) and s.targets[0].id == result.id]
        nested = any(isinstance(n, gast.Assign) and isinstance(n.targets[0], gast.Name) and
                     n.targets[0].id == result.id
                     for s in rev.body if not isinstance(s, gast.Assign) for n in gast.walk(s))
        if len(defs) == 1 and not nested:
            result = defs[0].value
    if type(result) not in kinds:
        return
    n = len(result.keys if isinstance(result, gast.Dict) else result.elts)
    at = f" at {info.filename}, line {result.lineno}" if getattr(result, "lineno", None) else ""
    raise runtime.OutputTypeError(
        f"grad needs the function to return a floating-point scalar, but it returned a "
        f"{kinds[type(result)]} of {n} items{at}. For a structured output use sg.vjp or "
        f"sg.jacobian; to return extra values beside a scalar loss, pass has_aux=True and "
        f"return (loss, aux).")


def _mutated_in_place(stmts):
    """Names whose value ``stmts`` change in place: ``y[i] = ...``, ``stack.pop()``,
    ``ad.restore_item(d, ...)``."""
    restored, popped = _in_place(stmts)
    return restored | popped


# what a sweep may call on a list or dict of the other sweep to change it in place: a
# backward sweep pushes back what its forward sweep popped (``stack.append(t)``), and
# when that code is differentiated again the list is in the saved record of a
# derivative's forward sweep, which its backward sweep reads later
_CHANGING = frozenset(("pop", "append", "extend", "insert", "remove", "clear", "reverse",
                       "sort", "popitem", "setdefault", "update"))


def _restored_lists_copied(bwd, ad):
    """The reverse sweep, with ``n = ad.copy(stack.pop())`` where it takes back from a
    stack a list it then pops or pushes onto (undoing ``n.append(v)`` of a loop that
    rebinds ``n``): the object on the stack may be held elsewhere too (by the saved
    record a derivative's forward sweep returns, by a second run of this sweep), so the
    sweep changes its own copy, never the object the forward sweep left."""
    changed = _in_place(bwd)[1]
    if not changed:
        return bwd
    for n in A.walk(bwd):
        if isinstance(n, gast.Assign) and len(n.targets) == 1 and \
                isinstance(n.targets[0], gast.Name) and n.targets[0].id in changed and \
                isinstance(n.value, gast.Call) and isinstance(n.value.func, gast.Attribute) \
                and n.value.func.attr == "pop" and not n.value.args and \
                isinstance(n.value.func.value, gast.Name):
            n.value = A.call(A.attr(ad, "copy"), [n.value])
    return bwd


def _in_place(stmts):
    """(names whose items ``stmts`` put back: ``y[i] = ...``, ``ad.restore_item(d,
    ...)``; names of the lists they pop or push onto), in one walk."""
    restored, popped = set(), set()
    for n in A.walk(stmts):
        if isinstance(n, gast.Assign):
            for t in n.targets:
                if isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name):
                    restored.add(t.value.id)
        elif isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute):
            if n.func.attr in _CHANGING and isinstance(n.func.value, gast.Name):
                popped.add(n.func.value.id)
            elif n.func.attr == "restore_item" and n.args and isinstance(n.args[0], gast.Name):
                restored.add(n.args[0].id)
    return restored, popped


_NOT_KEEPING = frozenset(("min", "max", "sum", "len"))


def _unshared(fwd, bwd, rev, ad):
    """The reverse sweep, with ``n = ad.copy(n)`` before the first statement that pops
    a list ``n`` of the forward sweep, when an earlier statement of the sweep reads it
    (``select_grad(g, m, (l,))`` of ``m = max(l)``): what that statement read keeps its
    value, which a derivative of this code reads after the sweep ran.  Only a list that
    nothing else holds: the forward sweep builds it, appends to it, indexes it and
    passes it to ``min`` / ``max`` / ``sum`` / ``len``, nothing more (an alias, ``a =
    l``, or a container holding it would see the copy's pops no longer)."""
    mutated = _mutated_in_place(bwd) & _always_bound(fwd)
    mutated.discard(rev.stack)
    if not mutated:
        return list(bwd)
    private = set(mutated)
    for s in fwd:
        for parent in gast.walk(s):
            for child in gast.iter_child_nodes(parent):
                if not (isinstance(child, gast.Name) and child.id in private and
                        isinstance(child.ctx, gast.Load)):
                    continue
                ok = isinstance(parent, gast.Subscript) and parent.value is child or \
                    isinstance(parent, gast.Attribute) and parent.attr == "append" or \
                    isinstance(parent, gast.Call) and isinstance(parent.func, gast.Name) and \
                    parent.func.id in _NOT_KEEPING and child in parent.args
                if not ok:
                    private.discard(child.id)
    out, read, done = [], set(), set()
    for s in bwd:
        pops = {n.func.value.id for n in gast.walk(s) if isinstance(n, gast.Call) and
                isinstance(n.func, gast.Attribute) and n.func.attr == "pop" and
                isinstance(n.func.value, gast.Name)} & private
        for n in sorted(pops - done):
            if n in read:
                out.append(A.assign(n, A.call(A.attr(ad, "copy"), [A.name(n)])))
            done.add(n)
        out.append(s)
        read |= A.names_read(s) & private
    return out


def _bind_zeroed(fwd, bwd, params, skip):
    """The forward sweep, with ``n = None`` first for each name the reverse sweep gives
    a zero cotangent (``ad.zeros_like(n)``: where branches meet) that a branch or a loop
    of the forward sweep may leave unassigned (the other branch's, when generated code
    is differentiated again); a zero of None is 0.0."""
    zeroed = set()
    for s in bwd:
        for n in gast.walk(s):
            if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and \
                    n.func.attr == "zeros_like" and n.args and isinstance(n.args[0], gast.Name):
                zeroed.add(n.args[0].id)
    if not zeroed:
        return list(fwd)
    maybe = (zeroed & A.names_stored(fwd)) - set(params) - _always_bound(fwd[skip:])
    return [A.assign(n, A.const(None)) for n in sorted(maybe)] + list(fwd)


def _always_bound(fwd):
    """The names a top-level statement of the forward sweep assigns before any
    statement reads them (or a branch or loop may assign them): one pass over the
    sweep for all names."""
    bound, decided = set(), set()
    for s in fwd:
        if isinstance(s, gast.Assign):
            t = s.targets[0]
            if isinstance(t, gast.Name) and t.id not in decided:
                bound.add(t.id)
                decided.add(t.id)
            decided |= A.names_read(s.value)
        else:
            decided |= A.names_read(s)
        if isinstance(s, (gast.If, gast.For, gast.While)):
            decided |= A.names_stored([s])
    return bound


def _scalar_by_construction(rev, result):
    """Is the returned value a reduction over all axes (a scalar whatever the inputs)?

    Then the seed is 1.0 without looking at the value, and in grad mode the value
    itself is dead code."""
    if not isinstance(result, gast.Name):
        return False
    defs = [s for s in rev.body[:-1] if isinstance(s, gast.Assign) and
            isinstance(s.targets[0], gast.Name) and s.targets[0].id == result.id]
    nested = [n for s in rev.body[:-1] if not isinstance(s, gast.Assign)
              for n in gast.walk(s) if isinstance(n, gast.Assign) and
              isinstance(n.targets[0], gast.Name) and n.targets[0].id == result.id]
    if len(defs) != 1 or nested or result.id in rev.params:
        return False
    op = getattr(defs[0], "srcgrad_op", None)
    if op is None or op.kind != "rule" or op.rule.facets.reduction is None:
        return False
    if op.rule.facets.reduction == ALL_AXES:
        return True
    a = op.args.get(op.rule.facets.reduction)
    if a is not None and not (isinstance(a, gast.Constant) and a.value is None):
        return False
    k = op.args.get("keepdims")
    return k is None or k is False or (isinstance(k, gast.Constant) and k.value in (False, None))

