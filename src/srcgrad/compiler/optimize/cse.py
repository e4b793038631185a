"""Common-subexpression elimination on lowered code: a pure right-hand side computed
again, with the same operands unchanged in between, reuses the first result."""
import gast

from .. import syntax as A
from ..source import MISSING, resolve


def _pure_rhs(v, func):
    """An operator, or a call of a function in the rule table (pure), on atoms."""
    from ... import rules
    if isinstance(v, gast.BinOp):
        return A.is_simple(v.left) and A.is_simple(v.right)
    if isinstance(v, gast.UnaryOp):
        return A.is_simple(v.operand)
    if isinstance(v, gast.Call) and isinstance(v.func, (gast.Name, gast.Attribute)):
        e = v.func
        while isinstance(e, gast.Attribute):
            e = e.value
        obj = resolve(v.func, func)
        if obj is MISSING or rules.lookup(obj) is None:
            return False
        return all(A.is_simple(a) or A.is_literal(a) for a in v.args) and \
            all(A.is_simple(k.value) or A.is_literal(k.value) for k in v.keywords)
    return False


def eliminate_common_subexpressions(stmts, func, locals_=None):
    """``a = np.exp(z); ...; b = np.exp(z)`` computes exp once: the second becomes ``a``.

    Only within straight-line code, only pure operations on unchanged operands;
    a compiler temporary that repeats an earlier value is removed and renamed.
    """
    if locals_ is None:
        locals_ = A.names_stored(stmts)
    seen = {}            # rhs (its structure key) -> name holding it
    reads = {}           # rhs -> the names it reads
    deps = {}            # name -> the sources in ``seen`` that read it or are held by it
    rename = {}
    out = []

    def forget(stored):
        # what depended on a stored name is stale (per name, not a scan of ``seen``)
        for n in stored:
            for k in deps.pop(n, ()):
                if k in seen and (seen[k] == n or n in reads[k]):
                    del seen[k]

    for s in stmts:
        if rename:
            A.rename_loads(s, rename)
        if isinstance(s, (gast.If, gast.For, gast.While)):
            for field in ("body", "orelse"):
                block = getattr(s, field, None)
                if block:
                    setattr(s, field, eliminate_common_subexpressions(block, func, locals_))
            seen.clear()
            deps.clear()
            out.append(s)
            continue
        pure = isinstance(s, gast.Assign) and _pure_rhs(s.value, func)
        if _may_write_memory(s, func, pure):
            # ``y[i] = v``, ``y += v``, ``np.copyto(y, v)``, a user function: the change
            # is seen through every view of y, and views are not tracked here
            seen.clear()
            deps.clear()
        stored = A.names_stored([s]) | _changed_in_place(s)
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and \
                not getattr(s, "srcgrad_nograd", False) and \
                pure and not (A.names_read(s.value) & {s.targets[0].id}):
            key = A.structure_key(s.value)
            reads.setdefault(key, A.names_read(s.value))
            tgt = s.targets[0].id
            if key in seen and seen[key] != tgt:
                if getattr(s, "srcgrad_temp", False):
                    rename[tgt] = seen[key]
                    continue
                s.value = A.name(seen[key])
            else:
                forget(stored)
                seen[key] = tgt
                for n in reads[key] | {tgt}:
                    deps.setdefault(n, set()).add(key)
                out.append(s)
                continue
        # anything stored here invalidates what depended on it
        forget(stored)
        out.append(s)
    return out


def _may_write_memory(s, func, pure):
    """A statement that may change an array in place: a store into an item or slice,
    an augmented assignment of a name (in place on an array), a call statement, or a
    call that is not a pure rule (it may write into its arguments)."""
    if isinstance(s, gast.Expr):
        return True
    if not isinstance(s, gast.Assign):
        return False
    if getattr(s, "srcgrad_inplace", False) or \
            any(isinstance(t, gast.Subscript) for t in s.targets):
        return True
    return isinstance(s.value, gast.Call) and not pure


def _changed_in_place(s):
    """Names a statement may change without rebinding them: ``y[i] = v`` changes y
    (``np.sum(y)`` computed before is not ``np.sum(y)`` after), and a call statement
    (``lst.append(v)``, ``np.add.at(y, i, v)``) may change what it is given."""
    out = set()
    if isinstance(s, gast.Assign):
        for t in s.targets:
            for n in gast.walk(t):
                if isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name):
                    out.add(n.value.id)
    elif isinstance(s, gast.Expr):
        out |= A.names_read(s.value)
    return out


def _reads(src):
    return A.names_read(A.parse_expr(src))
