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
import bisect

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
    index = None            # (made at the block's first copy: where each name is read)
    dropped = set()
    for i, s in enumerate(stmts):
        for f in _fields(s):
            _block(getattr(s, f), stores, loads, scoped)
        copy = _copy(s)
        if copy is None:
            continue
        if index is None:
            index = _Index(stmts)
        if _propagate(stmts, i, copy, stores, loads, scoped, index):
            dropped.add(i)
    if dropped:
        stmts[:] = [s for k, s in enumerate(stmts) if k not in dropped]


class _Index:
    """The names of each statement of a block, and the statements that load and store
    each name, in order: a copy's reads are found without walking the statements
    between them again (linear in the block, not quadratic).  Statements after a copy
    have their inner blocks visited later (_block's order), so the index holds them as
    they are when a copy before them reads them."""

    def __init__(self, stmts):
        self.names = [[n for n in A.walk(s) if type(n) is gast.Name] for s in stmts]
        self.loads, self.stores = {}, {}
        for j, names in enumerate(self.names):
            for n in names:
                at = (self.loads if type(n.ctx) is gast.Load else self.stores).setdefault(
                    n.id, [])
                if not at or at[-1] != j:
                    at.append(j)

    def count(self, j, a):
        return sum(1 for n in self.names[j] if n.id == a and type(n.ctx) is gast.Load)

    def rename(self, js, a, b):
        for j in js:
            for n in self.names[j]:
                if n.id == a:
                    n.id = b
        mine = set(js)
        self.loads[a] = [j for j in self.loads.get(a, []) if j not in mine]
        at = self.loads.setdefault(b, [])
        for j in js:
            k = bisect.bisect_left(at, j)
            if k == len(at) or at[k] != j:
                at.insert(k, j)


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


def _propagate(stmts, i, copy, stores, loads, scoped, index):
    a, b = copy
    if stores.get(a) != 1 or a in scoped or b in scoped:
        return False
    total = loads.get(a, 0)
    if total == 0:
        return False        # (dead: dead-code elimination's to drop)
    reads, last, used = 0, None, []
    at = index.loads.get(a, [])
    for j in at[bisect.bisect_right(at, i):]:
        reads += index.count(j, a)
        last = j
        used.append(j)
        if reads == total:
            break
    if reads != total:
        return False        # (a read elsewhere: before the copy, or in another block)
    at = index.stores.get(b, [])
    for j in at[bisect.bisect_right(at, i):]:
        if j > last:
            break
        s = stmts[j]
        if j < last or type(s) not in (gast.Assign, gast.AugAssign):
            return False
        # (the last reader's target: stored after its value is computed)
        if any(type(n) is gast.Name and n.id == b and type(n.ctx) is not gast.Load
               for n in A.walk(s.value)):
            return False
    index.rename(used, a, b)
    loads[b] = loads.get(b, 0) + total - 1
    loads[a] = 0
    stores[a] = 0
    return True
