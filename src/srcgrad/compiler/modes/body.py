"""Facts about a normalized body that both modes need: what it changes in place (the
alias check and the parameters to copy), normalize's temporaries, and what a caller
tells a user function it calls about the arguments it passes.
"""
import gast

from .. import syntax as A

def setitem_targets(body, func=None):
    """Names changed in place: ``x[i] = v``, ``lst.append(v)``, and the arguments of
    user functions that change them (``func``: the function the body is from)."""
    from ..analysis.aliasing import callee_written_args
    out = callee_written_args(body, func) if func is not None else set()
    for s in body:
        for n in A.statements(s):
            if isinstance(n, gast.Assign) and isinstance(n.targets[0], gast.Subscript):
                out.add(n.targets[0].value.id)
            elif isinstance(n, gast.Expr) and getattr(n, "srcgrad_op", None) is not None \
                    and n.srcgrad_op.kind in ("append",):
                out.add(n.srcgrad_op.target)
    # ``y = x`` then ``y`` changed in place changes x (a parameter is then copied first:
    # srcgrad never changes its caller's arrays)
    copies = [(n.targets[0].id, n.value.id) for s in body for n in A.statements(s)
              if isinstance(n, gast.Assign) and isinstance(n.targets[0], gast.Name) and
              isinstance(n.value, gast.Name)]
    grown = True
    while grown:
        grown = False
        for t, src in copies:
            if t in out and src not in out:
                out.add(src)
                grown = True
    return out


def check_aliases(body, info, kinds=None, params=()):
    """Reject in-place updates of a value that another name may share (aliasing.py)."""
    from ..analysis import aliasing
    hard = {n.targets[0].value.id for s in body for n in A.statements(s)
            if isinstance(n, gast.Assign) and isinstance(n.targets[0], gast.Subscript) and
            isinstance(n.targets[0].value, gast.Name)}
    # ``x += v`` changes an array in place, unless x is known to be a Python scalar
    # (``kinds`` is None when the code is not specialized on its arguments' kinds: a
    # parameter may then be a float, and ``s = a; s += 1`` is common and right)
    # srcgrad's own generated code writes ``dx += e`` only on adjoints it owns (no alias)
    own_code = getattr(info.func, "__srcgrad_transformable__", False)
    if own_code:
        # generated code (transformed again: hvp, hessian) was checked as the user's
        # code; its record stack holds values that the sweeps restore, and its
        # in-place adjoint updates are on adjoints it owns
        return
    soft = set()
    if kinds is not None:
        soft = {n.targets[0].id for s in body for n in A.statements(s)
                if isinstance(n, gast.Assign) and getattr(n, "srcgrad_inplace", False)
                and kinds.get(n.targets[0].id) != "float"}
    # a call of a user function may change its arguments in place (aliasing.py)
    calls = any(isinstance(n, (gast.Assign, gast.Expr)) and isinstance(n.value, gast.Call)
                for s in body for n in A.statements(s))
    if not hard and not soft and not calls:
        return
    # compiler temporaries are used once, right away: never a live alias
    temps = {n.targets[0].id for s in body for n in A.statements(s)
             if isinstance(n, gast.Assign) and getattr(n, "srcgrad_temp", False) and
             isinstance(n.targets[0], gast.Name)}
    temps |= set(getattr(info.func, "__srcgrad_temps__", ()))
    aliasing.check(body, info, params, hard, soft, temps, getattr(info, "ad_name", "ad"))


def temporaries(body):
    """Names of normalize's temporaries (used once, right away: never an alias)."""
    return frozenset(n.targets[0].id for s in body for n in A.statements(s)
                     if isinstance(n, gast.Assign) and getattr(n, "srcgrad_temp", False))


def callee_kinds(bound, kinds):
    """What the caller knows of the arguments it passes a user function: the
    parameters given a list, tuple or dict (so the callee reads them as such, e.g.
    ``np.mean(lst, axis=0)`` as ``np.mean(np.asarray(lst), axis=0)``)."""
    return {p: "container" for p, a in bound.arguments.items()
            if isinstance(a, gast.Name) and kinds.get(a.id) == "container"}


def changed_in_place(s, func):
    """Names a simple statement changes in place, besides an item it writes (saved item
    by item): the object of an in-place call (``d.sort()``, ``np.copyto(d, v)``) and the
    arguments a user function it calls changes (``func``: the function ``s`` is from)."""
    if not isinstance(s, (gast.Assign, gast.Expr)) or not isinstance(s.value, gast.Call):
        return []
    known = getattr(s, "srcgrad_changes", None)      # (both passes ask, twice each)
    if known is not None:
        return known
    from ..analysis.aliasing import changed_by_callee
    op = getattr(s, "srcgrad_op", None)
    out = []
    if isinstance(s, gast.Expr) and op is not None and op.kind == "mutate" and \
            isinstance(op.target, str):
        out.append(op.target)
    if func is not None:
        out += [n for n in changed_by_callee(s, func) if n not in out]
    s.srcgrad_changes = out
    return out
