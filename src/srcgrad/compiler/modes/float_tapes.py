"""Float tapes: a loop's Python-float records kept unboxed, eight bytes each.

A loop that saves a Python float each trip would keep a list of float objects (a
pointer and a boxed float: 32 bytes each).  Where this module proves that every value
a name records is a Python ``float``, the forward sweep pushes it onto the loop's
tape, an ``array('d')`` (runtime/tapes.py: for a loop of at least ``MIN_TRIPS`` trips,
where the memory matters more than the array's slower ``append``), and the adjoint
sweep pops it from there:

    tape = ad.float_tape(range(10000), a, b, x)    # (the trips; the floats assumed)
    for i in range(10000):
        tape.append(x)                  # was: stack.append(x)
        x = x + dt * (a * x - b * x * x)
    ...
    for i in reversed(range(10000)):
        x = tape.pop()                  # was: x = stack.pop()

When the loop numbers its trips ``0, 1, ...`` (``for i in range(stop)``, ``i``
stored by nothing else, no ``break`` or ``continue``), each taped assignment, run
once a trip, gets a tape of its own, allocated once at its exact size (8 bytes a
trip, no growth: runtime/tapes.py ``filled_tape``) and written by the counter:

    tape = ad.filled_tape(range(10000), a, b, x)
    for i in range(10000):
        tape[i] = x                     # every slot written, in order
    ...
    for i in reversed(range(10000)):
        x = tape[i]                     # the slot of the same trip, read back

Each appended tape is a stack of its own: the adjoint sweep pops in the reverse
order of the forward sweep's pushes, so the pops of one tape mirror its pushes as
those of the main stack do.  A filled tape is read by the reversed loop's counter,
the trip's own number (an index costs less than a pop, and leaves the tape as it
is for a backward sweep run again).  Generated code differentiated again sees a list's ``append`` and
``pop`` (the tape's rule declares it a container; its zeros are a list).

Guarantees:

* A name is taped only if every assignment to it in the function is Python scalar
  arithmetic whose result is a ``float`` whenever its operands are floats, ints or
  float literals (``+ - * / % //``, unary ``-``/``+``, ``** int-literal``, a copy),
  no other statement stores it, and each float parameter the proof leans on is a
  Python ``float`` when the loop starts: ``ad.float_tape`` checks them and returns a
  list otherwise (the same code then saves the objects themselves).  An ``int``,
  ``bool``, ``complex`` or NumPy scalar therefore never passes through the tape, and
  a restored value is bit for bit the saved one.
* Only loops ``for ... in range(...)`` at the function's top level, without
  ``break``; only saves made directly in the loop's body.
* A taped name that no statement before the loop assigns starts the loop holding
  ``0.0`` instead of ``None``: the value its first trip saves is restored after the
  adjoint sweep's last trip, where nothing reads it (no statement before the loop
  could read a name that only the loop defines).
"""
import gast

from .. import syntax as A

_FLOAT_OPS = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Mod, gast.FloorDiv)


def range_counters(body):
    """The names only a ``for n in range(...)`` stores (Python ints on every trip)."""
    stores, counters = {}, set()
    for n in gast.walk(gast.Module(body=body, type_ignores=[])):
        if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)):
            stores[n.id] = stores.get(n.id, 0) + 1
        if isinstance(n, gast.For) and isinstance(n.target, gast.Name) and \
                isinstance(n.iter, gast.Call) and isinstance(n.iter.func, gast.Name) and \
                n.iter.func.id == "range":
            counters.add(n.target.id)
    return {c for c in counters if stores.get(c) == 1}


def exact_floats(body, params, kinds, ints=()):
    """``(floats, assumed)``: the names of ``body`` (a function's top-level statements)
    that hold a Python float wherever they hold a value, provided the parameters in
    ``assumed`` are Python floats (only those the proof reads: an int trip count
    ``n`` is none of them); ``ints``: names known to hold Python ints."""
    values = {}     # name -> the values assigned to it
    stores = {}     # name -> how many times anything stores it
    for n in gast.walk(gast.Module(body=body, type_ignores=[])):
        if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)):
            stores[n.id] = stores.get(n.id, 0) + 1
    for s in A.statements(body):
        if isinstance(s, gast.Assign) and len(s.targets) == 1 and \
                isinstance(s.targets[0], gast.Name):
            values.setdefault(s.targets[0].id, []).append(s.value)
    floats = {n for n, vs in values.items()
              if kinds.get(n) == "float" and stores.get(n) == len(vs)}
    floats |= {p for p in params if kinds.get(p) == "float" and
               stores.get(p, 0) == len(values.get(p, ()))}
    ints = set(ints)
    changed = True
    while changed:
        changed = False
        for n in list(floats):
            if not all(_float_result(v, floats, ints) for v in values.get(n, ())):
                floats.discard(n)
                changed = True
    # the parameters the proof leans on: those an operand of a float's value, and
    # those assigned (a record of one saves the value it came in with); a parameter
    # only ``range(n)`` reads (an int trip count) is not among them
    leaned = {m.id for n in floats for v in values.get(n, ()) for m in gast.walk(v)
              if isinstance(m, gast.Name)} | set(values)
    return floats, sorted(p for p in params if p in floats and p in leaned)


def _real(e, floats, ints):
    if isinstance(e, gast.Name):
        return e.id in floats or e.id in ints
    return isinstance(e, gast.Constant) and type(e.value) in (int, float)


def _float_operand(e, floats):
    if isinstance(e, gast.Name):
        return e.id in floats
    return isinstance(e, gast.Constant) and type(e.value) is float


def _float_result(v, floats, ints):
    """Is ``v`` a Python float whenever the names in ``floats`` hold floats and those
    in ``ints`` ints?"""
    if isinstance(v, (gast.Name, gast.Constant)):
        return _float_operand(v, floats)
    if isinstance(v, gast.UnaryOp):
        return isinstance(v.op, (gast.USub, gast.UAdd)) and _float_operand(v.operand, floats)
    if isinstance(v, gast.BinOp):
        left, right = v.left, v.right
        if isinstance(v.op, gast.Pow):
            return _float_operand(left, floats) and isinstance(right, gast.Constant) and \
                type(right.value) is int
        if not isinstance(v.op, _FLOAT_OPS):
            return False
        if not (_real(left, floats, ints) and _real(right, floats, ints)):
            return False
        return isinstance(v.op, gast.Div) or _float_operand(left, floats) or \
            _float_operand(right, floats)
    return False


def trip_counter(loop, counters):
    """The name that holds the number of the trip (``0, 1, ...``) in ``loop``, when each
    of its direct statements runs once a trip: ``for i in range(stop)`` with ``i``
    among ``counters`` (stored by that loop alone) and no ``break`` or ``continue``
    anywhere in its body; else None."""
    it = loop.iter
    if not (isinstance(loop.target, gast.Name) and loop.target.id in counters and
            isinstance(it, gast.Call) and len(it.args) == 1 and not it.keywords and
            not isinstance(it.args[0], gast.Starred)):
        return None
    for s in loop.body:
        for n in gast.walk(s):
            if isinstance(n, (gast.Break, gast.Continue, gast.Return, gast.Yield,
                              gast.YieldFrom, gast.Try)):
                return None
    return loop.target.id


def assigned_before(body, loop, name):
    """Does a top-level statement of ``body`` before ``loop`` assign ``name``?"""
    for s in body:
        if s is loop:
            return False
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and \
                s.targets[0].id == name:
            return True
    return False
