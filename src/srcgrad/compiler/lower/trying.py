"""``try`` / ``except`` / ``else`` / ``finally`` in differentiated code.

An exception may stop the ``try`` body after any of its operations, and what ran
before it stays done.  So the body and each handler become functions of the values
they read, returning the values they assign::

    try:                                  def try_body(K):
        L = np.linalg.cholesky(K)             L = np.linalg.cholesky(K)
    except np.linalg.LinAlgError:             return (-1, (L,))
        L = np.eye(3)                     def try_except(exc, K):
                                              L = np.eye(3)
                                              return (0, (L,))
                                          try_result = ad.try_call(
                                              (np.linalg.LinAlgError,), try_body,
                                              try_except, K)
                                          which, tried = try_result
                                          if which == -1:
                                              L, = tried
                                          else:
                                              L, = tried

``ad.try_call`` runs the body and, if it raises one of the handlers' exceptions,
that handler; each block returns which it is (-1 for the body) with its values, so
that the call is a call of the block that finished.  Generated code calls it through
compiler/dynamic.py, which compiles each block when it runs, like any callee: a block
stopped by an exception leaves no records behind, and the reverse sweep runs the
adjoint of the block that finished (its record, which a derivative of the derivative
follows too).
``else`` runs after the body's values are bound, ``finally`` after either.  A
``try`` with only ``finally`` is its body then its ``finally`` (an exception leaves
the function anyway).  ``return``, ``break`` and ``continue`` leaving a ``try`` are
refused at the user's line.
"""
import gast

from .. import syntax as A

_COMPOUND = (gast.If, gast.For, gast.While, gast.With)


def rewrite_tries(body, info, names, ad_name, enclosing, whole=None):
    """``body`` with each ``try`` statement (at any depth outside nested defs)
    rewritten; ``enclosing``: the names local to the function (its parameters and
    what it assigns)."""
    whole = body if whole is None else whole
    out = []
    for s in body:
        if isinstance(s, gast.Try):
            out.extend(_rewrite(s, info, names, ad_name, enclosing, whole))
            continue
        if isinstance(s, _COMPOUND):
            s.body = rewrite_tries(s.body, info, names, ad_name, enclosing, whole)
            if not isinstance(s, gast.With):
                s.orelse = rewrite_tries(s.orelse, info, names, ad_name, enclosing, whole)
        out.append(s)
    return out


def _reads_outside(whole, node):
    """Names read anywhere in ``whole`` but inside ``node``."""
    out = set()
    work = list(whole)
    while work:
        n = work.pop()
        if n is node:
            continue
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
            out.add(n.id)
        work.extend(gast.iter_child_nodes(n))
    return out


def _rewrite(s, info, names, ad, enclosing, whole):
    def inner(block):
        return rewrite_tries(block, info, names, ad, enclosing, whole)
    body, orelse, final = inner(s.body), inner(s.orelse), inner(s.finalbody)
    if not s.handlers:
        return body + orelse + final
    handlers = [(h, inner(h.body)) for h in s.handlers]
    flagged = None
    if any(_returns(b, loops=True) for b in [body] + [b for _, b in handlers]):
        # ``return e`` in the body or a handler: the block sets a flag and the value,
        # skips the rest, and the function returns after the try statement
        flagged = (names.fresh("returned_in_try"), names.fresh("try_value"))
        body = _flag_returns(body, *flagged)
        handlers = [(h, _flag_returns(b, *flagged)) for h, b in handlers]
        enclosing |= set(flagged)
    for block in [body] + [b for _, b in handlers]:
        _refuse_jumps(block, info)
    blocks = [body] + [b for _, b in handlers]
    exc_names = {h.name if isinstance(h.name, str) else getattr(h.name, "id", None)
                 for h, _ in handlers} - {None}
    params, later = list(flagged or ()), None
    for block in blocks:
        needed, maybe = _inputs(block, enclosing)
        for n in needed:
            if n not in params and n not in exc_names:
                params.append(n)
        if maybe:
            later = _reads_outside(whole, s) if later is None else later
            for n, st in maybe:
                if n in later and n in _bound_before(whole, s):
                    # (its value from before the try is what a path that does not assign
                    # it keeps: the blocks take it and give it back)
                    if n not in params:
                        params.append(n)
                elif n in later:
                    raise info.error(st, f"{n} is assigned on some paths of a try/except "
                                         f"block only, and read after it; srcgrad needs it "
                                         f"bound on every path: assign {n} before the try")
    _refuse_partial(body, handlers, enclosing, whole, s, info)
    defs, outputs = [], []
    body_name = names.fresh("try_body")
    defs.append(_def(body_name, -1, [], params, body, s, outputs))
    handler_names = []
    for i, (h, block) in enumerate(handlers):
        name = names.fresh("try_except")
        exc = h.name if isinstance(h.name, str) else getattr(h.name, "id", None)
        exc = exc or names.fresh("exc")
        handler_names.append(name)
        defs.append(_def(name, i, [exc], params, block, s, outputs, skip={exc}))
    types = [h.type if h.type is not None else A.name("BaseException") for h, _ in handlers]
    which, out, both = names.fresh("which"), names.fresh("tried"), names.fresh("try_result")
    call = A.call(A.attr(ad, "try_call"),
                  [gast.Tuple(elts=types, ctx=gast.Load()), A.name(body_name)] +
                  [A.name(n) for n in handler_names] + [A.name(p) for p in params])

    def item(i):
        return gast.Subscript(value=A.name(both), slice=A.const(i), ctx=gast.Load())
    stmts = defs + [A.copy_loc(gast.Assign(targets=[A.store(n)], value=v, type_comment=None), s)
                    for n, v in ((both, call), (which, item(0)), (out, item(1)))]
    # each path binds what its block assigned
    branch = None
    for i in reversed(range(len(blocks))):
        bind = _unpack(outputs[i], out, s)
        if i == 0:
            bind = bind + orelse
        if branch is None:
            branch = bind
            continue
        test = gast.Compare(left=A.name(which), ops=[gast.Eq()], comparators=[A.const(i - 1)])
        branch = [A.copy_loc(gast.If(test=test, body=bind, orelse=branch), s)]
    if flagged is None:
        return stmts + branch + final
    flag, value = flagged
    start = [A.copy_loc(A.assign(flag, A.const(False)), s),
             A.copy_loc(A.assign(value, A.const(None)), s)]
    leave = A.copy_loc(gast.If(test=A.name(flag), body=[A.copy_loc(
        gast.Return(value=A.name(value)), s)], orelse=[]), s)
    return start + stmts + branch + final + [leave]


def _bound_before(whole, s):
    """The names plain assignments among the function's top-level statements before
    ``s`` bind (``s`` a top-level try statement; nothing otherwise)."""
    if not any(st is s for st in whole):
        return set()
    out = set()
    for st in whole:
        if st is s:
            return out
        if isinstance(st, (gast.Assign, gast.AnnAssign, gast.AugAssign)):
            out |= A.names_stored(st)
    return out


def _returns(block, loops=False):
    """Does ``block`` return, outside nested defs (and outside loops unless
    ``loops``)?"""
    for st in block:
        if isinstance(st, gast.Return):
            return True
        compound = (gast.If, gast.With, gast.Try) + ((gast.For, gast.While) if loops else ())
        if isinstance(st, compound):
            subs = [st.body, getattr(st, "orelse", []), getattr(st, "finalbody", [])] + \
                [h.body for h in getattr(st, "handlers", [])]
            if any(_returns(b, loops) for b in subs):
                return True
    return False


def _flag_returns(block, flag, value, in_loop=False):
    """``block`` with each ``return e`` (outside nested defs) made ``value = e; flag =
    True`` (then ``break`` inside a loop), and what follows a statement that may
    return run only if it did not (inside a loop: ``if flag: break`` after it)."""
    out = []
    for i, st in enumerate(block):
        if isinstance(st, gast.Return):
            out += [A.copy_loc(A.assign(value, st.value if st.value is not None
                                        else A.const(None)), st),
                    A.copy_loc(A.assign(flag, A.const(True)), st)]
            if in_loop:
                out.append(A.copy_loc(gast.Break(), st))
            return out                   # (the rest of the block never runs)
        if isinstance(st, gast.If) and (_returns(st.body, True) or _returns(st.orelse, True)):
            st.body = _flag_returns(st.body, flag, value, in_loop) or \
                [A.copy_loc(gast.Pass(), st)]
            st.orelse = _flag_returns(st.orelse, flag, value, in_loop)
        elif isinstance(st, (gast.For, gast.While)) and _returns(st.body, True):
            # (a return leaves the loop by ``break``, which skips its ``else`` as the
            # return did)
            st.body = _flag_returns(st.body, flag, value, True)
        else:
            out.append(st)
            continue
        out.append(st)
        rest = _flag_returns(block[i + 1:], flag, value, in_loop)
        if in_loop:
            out.append(A.copy_loc(gast.If(test=A.name(flag), body=[
                A.copy_loc(gast.Break(), st)], orelse=[]), st))
            out += rest
        elif rest:
            guard = A.copy_loc(gast.If(test=gast.UnaryOp(op=gast.Not(),
                                                         operand=A.name(flag)),
                                       body=rest, orelse=[]), st)
            guard.srcgrad_after_return = True
            out.append(guard)
        return out
    return out


def _refuse_partial(body, handlers, enclosing, whole, s, info):
    """An exception after the body assigned a name leaves that assignment done in
    Python, but not in the body's function: refused where a handler, or what follows
    the try on a handler's path, could see it."""
    early = {n for st in body[:-1] for n in
             (A.names_stored(st) if not isinstance(st, gast.FunctionDef) else {st.name})}
    if not early:
        return
    later = _reads_outside(whole, s)
    for _, block in handlers:
        needed, _ = _inputs(block, enclosing)
        sure = {n for st in block if isinstance(st, (gast.Assign, gast.AugAssign,
                                                    gast.AnnAssign, gast.FunctionDef))
                for n in (A.names_stored(st) if not isinstance(st, gast.FunctionDef)
                          else {st.name})}
        seen = (set(needed) | (later - sure)) & early
        if seen:
            n = sorted(seen)[0]
            raise info.error(s, f"{n} is assigned in the try block before a statement that "
                                f"may raise, and the except block (or what follows it) reads "
                                f"it; srcgrad runs the try block as one step. Assign {n} "
                                f"before the try, or in the try's last statement")


def _inputs(block, enclosing):
    """(the function's names a block reads before it assigns them, [(name, stmt)] of
    those it assigns on some paths only)."""
    assigned, needed, maybe = set(), [], []
    for st in block:
        if isinstance(st, gast.FunctionDef):
            reads = A.names_read(st) - A.names_stored(st.body)
        elif isinstance(st, gast.For):
            # (the loop's target is bound before its body reads it)
            inner, _ = _inputs(st.body, enclosing | A.names_stored(st.target))
            reads = A.names_read(st.iter) | (set(inner) - A.names_stored(st.target)) | \
                A.names_read(st.orelse)
        else:
            reads = A.names_read(st)
        for n in sorted(reads):
            if n in enclosing and n not in assigned and n not in needed:
                needed.append(n)
        stored = A.names_stored(st) if not isinstance(st, gast.FunctionDef) else {st.name}
        if isinstance(st, (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.FunctionDef)):
            assigned |= stored                # bound whenever the block gets past it
        elif getattr(st, "srcgrad_after_return", False):
            # what runs unless the block returned: bound on every path that goes on
            # after the try (the others return there; _def binds these to None first)
            inner_needed, inner_maybe = _inputs(st.body, enclosing)
            needed += [n for n in inner_needed if n not in assigned and n not in needed]
            unsure = {n for n, _ in inner_maybe}
            assigned |= stored - unsure
            maybe += [(n, x) for n, x in inner_maybe if n not in assigned]
        else:
            # (an ``if`` whose branches all bind a name binds it: a nested try's paths)
            sure = _sure([st])
            assigned |= sure
            maybe += [(n, st) for n in sorted(stored - sure) if n not in assigned]
    maybe = [(n, st) for n, st in maybe if n not in assigned and n not in needed]
    return needed, maybe


def _sure(block):
    """The names ``block`` binds on every path that gets to its end: plain
    assignments, and what every branch of an ``if`` binds (a loop may not run)."""
    out = set()
    for st in block:
        if isinstance(st, (gast.Assign, gast.AugAssign, gast.AnnAssign)):
            out |= A.names_stored(st)
        elif isinstance(st, gast.FunctionDef):
            out.add(st.name)
        elif isinstance(st, gast.If):
            out |= _sure(st.body) & _sure(st.orelse)
        elif isinstance(st, gast.With):
            out |= _sure(st.body)
    return out


def _def(name, which, first, params, block, like, outputs, skip=()):
    needed, maybe = _inputs(block, set(params))
    unsure = {n for n, _ in maybe if n not in params}
    assigned = sorted({n for st in block for n in
                       (A.names_stored(st) if not isinstance(st, gast.FunctionDef)
                        else {st.name}) if n not in skip and n not in unsure})
    outputs.append(assigned)
    late = sorted({n for st in block if getattr(st, "srcgrad_after_return", False)
                   for n in A.names_stored(st.body)} & set(assigned) - set(params))
    if late:        # (a return skipped them: the value is never read after the try)
        block = [A.copy_loc(A.assign(n, A.const(None)), like) for n in late] + block
    values = gast.Tuple(elts=[A.name(n) for n in assigned], ctx=gast.Load())
    ret = gast.Return(value=gast.Tuple(elts=[A.const(which), values], ctx=gast.Load()))
    args = gast.arguments(posonlyargs=[], args=[gast.Name(id=p, ctx=gast.Param(),
                                                           annotation=None, type_comment=None)
                                                for p in list(first) + list(params)],
                          vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                          defaults=[])
    fdef = gast.FunctionDef(name=name, args=args, body=list(block) + [A.copy_loc(ret, like)],
                            decorator_list=[], returns=None, type_comment=None)
    if "type_params" in gast.FunctionDef._fields:
        fdef.type_params = []
    return A.copy_loc(fdef, like)


def _unpack(assigned, out, like):
    if not assigned:
        return [A.copy_loc(gast.Pass(), like)]
    target = gast.Tuple(elts=[A.store(n) for n in assigned], ctx=gast.Store())
    return [A.copy_loc(gast.Assign(targets=[target], value=A.name(out), type_comment=None),
                       like)]


def _refuse_jumps(block, info, loops=0):
    for st in block:
        if isinstance(st, gast.FunctionDef):
            continue
        if isinstance(st, gast.Return) or (loops == 0 and isinstance(st, (gast.Break,
                                                                         gast.Continue))):
            word = type(st).__name__.lower()
            raise info.error(st, f"srcgrad does not support {word} leaving a try/except in "
                                 f"a differentiated function; set a flag in the try and "
                                 f"act on it after the try statement")
        inner = 1 if isinstance(st, (gast.For, gast.While)) else 0
        for field in ("body", "orelse", "handlers", "finalbody"):
            sub = getattr(st, field, None)
            if isinstance(sub, list):
                blocks = [h.body for h in sub] if field == "handlers" else [sub]
                for b in blocks:
                    _refuse_jumps(b, info, loops + inner)
