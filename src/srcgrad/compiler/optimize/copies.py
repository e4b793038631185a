"""Copy propagation on generated code: a name that only copies another is read as it.

The adjoint of ``y = x`` (and of each operand of ``+``) is a copy of a cotangent:
``dmul3 = dx``, ``dmatmul = dadd``.  Inside a loop each copy is a store and a load
on every trip; this pass reads the original instead and drops the copy::

    dmul3 = dx                          dsub = dx * dt
    dsub = dmul3 * dt           ->      dx = dx + dsub * mul1
    dx = dx + dsub * mul1

Guarantee: ``a = b`` (two plain names) is dropped, and every read of ``a`` reads
``b``, only when all of these hold, so each read sees the same object as before:

* ``a`` is stored by that statement alone in the whole function (no other
  assignment, augmented assignment, loop target, ``del`` or parameter of that name);
* every read of ``a`` is in a statement after the copy in the same block;
* ``b`` is not stored from the copy up to the last statement reading ``a``,
  except as the target of that last statement when it is a plain or augmented
  assignment (its value is computed before the store);
* neither name appears in a nested function, lambda or comprehension (which could
  read it later, or bind it itself), nor in a ``global``/``nonlocal`` statement.
"""
import gast

from .. import syntax as A

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ListComp,
           gast.SetComp, gast.DictComp, gast.GeneratorExp, gast.Global, gast.Nonlocal)


def propagate_copies(body, params=()):
    """``body`` (a generated function's statements) with copies read through (see the
    module docstring); the same list object, changed in place."""
    stores, loads, scoped = {}, {}, set()
    for n in A.walk(body):
        t = type(n)
        if t is gast.Name:
            if type(n.ctx) is gast.Load:
                loads[n.id] = loads.get(n.id, 0) + 1
            else:
                stores[n.id] = stores.get(n.id, 0) + 1
        elif t in _SCOPES:
            if t in (gast.Global, gast.Nonlocal):
                scoped.update(n.names)
            else:
                scoped.update(m.id for m in A.walk(n) if type(m) is gast.Name)
    scoped.update(params)
    _block(body, stores, loads, scoped)
    return body


def _block(stmts, stores, loads, scoped):
    i = 0
    while i < len(stmts):
        s = stmts[i]
        for f in _fields(s):
            _block(getattr(s, f), stores, loads, scoped)
        copy = _copy(s)
        if copy is not None and _propagate(stmts, i, copy, stores, loads, scoped):
            del stmts[i]
            continue
        i += 1


def _fields(s):
    fields = [f for f in ("body", "orelse", "finalbody") if type(getattr(s, f, None)) is list]
    if type(s) is gast.FunctionDef:
        return []       # (another function: its names are its own)
    return fields


def _copy(s):
    if type(s) is gast.Assign and len(s.targets) == 1 and \
            type(s.targets[0]) is gast.Name and type(s.value) is gast.Name and \
            s.targets[0].id != s.value.id:
        return s.targets[0].id, s.value.id
    return None


def _propagate(stmts, i, copy, stores, loads, scoped):
    a, b = copy
    if stores.get(a) != 1 or a in scoped or b in scoped:
        return False
    total = loads.get(a, 0)
    if total == 0:
        return False        # (dead: dead-code elimination's to drop)
    reads, last = 0, None
    for j in range(i + 1, len(stmts)):
        k = sum(1 for n in A.walk(stmts[j]) if type(n) is gast.Name and n.id == a)
        if k:
            reads += k
            last = j
            if reads == total:
                break
    if reads != total:
        return False        # (a read elsewhere: before the copy, or in another block)
    for j in range(i + 1, last + 1):
        s = stmts[j]
        if j == last and type(s) in (gast.Assign, gast.AugAssign):
            part = s.value      # (the target is stored after the value is computed)
        else:
            part = s
        if any(type(n) is gast.Name and n.id == b and type(n.ctx) is not gast.Load
               for n in A.walk(part)):
            return False
    for j in range(i + 1, last + 1):
        for n in A.walk(stmts[j]):
            if type(n) is gast.Name and n.id == a:
                n.id = b
    loads[b] = loads.get(b, 0) + total - 1
    loads[a] = 0
    stores[a] = 0
    return True
