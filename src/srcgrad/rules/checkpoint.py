"""Loops checkpointed to a memory budget: the primitives that ``max_memory=`` turns a
function's loops into (``compiler/lower/checkpoint.py``), and their reverse rule.

``checkpointed_for(step, steps, carry, reads, budget)`` runs ``carry = step(t, *carry,
*reads)[:len(carry)]`` for each ``t`` of ``steps``; ``checkpointed_while(cond, step,
carry, reads, budget)`` while ``cond(*carry, *reads)`` holds.  ``step`` returns the new
carry followed by ``reads`` unchanged, so that its adjoint adds each step's cotangent of a
read into the running total in the order the plain loop's adjoint does: the gradient is
the same, bit for bit.

The forward sweep runs the steps without records, except the first (run in ``step``'s
split form to measure its records), and keeps snapshots of the carry:

* a ``for`` loop whose records all fit in the budget keeps them (no recomputation);
* otherwise it keeps snapshots where the binomial schedule puts them
  (:mod:`srcgrad.runtime.revolve`), as many as the budget holds beside one step's records;
* a ``while`` loop, whose length is known only at its end, keeps its records while they
  fit, then snapshots at a stride that doubles whenever half the snapshots are in use
  (every other one dropped).

The reverse sweep recomputes each segment from its snapshot, runs each step once more in
split form and its adjoint at once, from the last step to the first.  Peak memory: the
snapshots, one step's records and the cotangents.
"""
import copy
import inspect
import sys

import numpy as np

from .. import runtime
from ..runtime import revolve
from .namespace import add_kernels
from .registry import defrule

__all__ = ["checkpoint_grad", "checkpoint_jvp"]

# what the last reverse sweep did: steps run without records (in the forward sweep and
# again in the reverse sweep), steps run with records, snapshots allowed by the budget
LAST = {}


class _Carry(tuple):
    """The loop's last carry and the reads it passes through; ``tape`` holds what its
    reverse sweep needs."""

    def __new__(cls, tape, state):
        out = super().__new__(cls, tuple(state) + tuple(tape.reads[i] for i in tape.through))
        out.tape = tape
        return out

    def __deepcopy__(self, memo):
        # (a pullback called again works on a deep copy of its record: sg.vjp)
        out = tuple.__new__(_Carry, [copy.deepcopy(v, memo) for v in self])
        out.tape = copy.deepcopy(self.tape, memo)
        return out


def _bytes(v, shared=frozenset()):
    """Bytes a value holds, as memory tracing counts them (arrays: data and header),
    leaving out the objects whose ids are in ``shared`` (held anyway: the reads)."""
    if id(v) in shared:
        return 0
    if isinstance(v, np.ndarray):
        return v.nbytes + 112 if v.base is None else 112
    if isinstance(v, (list, tuple)):
        return sys.getsizeof(v) + sum(_bytes(x, shared) for x in v)
    if isinstance(v, dict):
        return sys.getsizeof(v) + sum(_bytes(x, shared) for x in v.values())
    return sys.getsizeof(v)


def _differentiable(v):
    if isinstance(v, bool):
        return False
    if isinstance(v, (float, complex, np.floating, np.complexfloating)):
        return True
    if isinstance(v, np.ndarray) or hasattr(v, "__array_namespace__"):
        return getattr(v, "dtype", None) is not None and v.dtype.kind in "fc"
    if isinstance(v, (list, tuple)):
        return any(_differentiable(x) for x in v)
    if isinstance(v, dict):
        return any(_differentiable(x) for x in v.values())
    return False


def _inert_reads(step, k, inert, unassigned):
    """Positions of the reads that are parameters not differentiated (and not assigned)."""
    names = list(inspect.signature(step).parameters)[1 + k:]
    return frozenset(i for i, (n, u) in enumerate(zip(names, unassigned)) if u and n in inert)


class BudgetError(MemoryError):
    """``max_memory`` is smaller than one step of a loop needs."""


class _Tape:
    """A loop's step, its reads, its snapshots, and how many steps each kind ran."""

    def __init__(self, step, reads, budget, site):
        self.step, self.reads, self.budget, self.site = step, tuple(reads), budget, site
        self.split_forms = {}
        self.advanced = 0        # steps run without records after the first sweep
        self.recorded = 0        # steps run with records
        self.grads = None

    # -- the step, plain and split ------------------------------------------------
    def advance(self, state, t):
        return tuple(self.step(t, *state, *self.reads)[:len(state)])

    def split(self, t, state):
        from ..compiler import dynamic
        from ..compiler.analysis.kinds import argument_kind
        args = (t,) + tuple(state) + self.reads
        kinds = tuple(argument_kind(v) for v in args)
        k = len(state)
        key = (kinds, tuple(_differentiable(v) and (i < 1 + k or i - 1 - k not in self.inert)
                            for i, v in enumerate(args)))
        hit = self.split_forms.get(key)
        if hit is None:
            names = list(inspect.signature(self.step).parameters)
            wrt = tuple(n for n, v, d in zip(names, args, key[1]) if d and n != names[0])
            fwd, bwd = dynamic.BUILD["reverse"](self.step, wrt, "split",
                                                dict(zip(names, kinds)))
            hit = self.split_forms[key] = (fwd, bwd, [names.index(w) - 1 for w in wrt])
        self.recorded += 1
        fwd, bwd, where = hit
        value, saved = fwd(*args)
        return value, saved, bwd, where

    def measure(self, t, state):
        """Run the first step with records: its new carry, and bytes of its records."""
        value, saved, _, _ = self.split(t, state)
        return tuple(value[:len(state)]), self.record_bytes(saved, state)

    def record_bytes(self, saved, state):
        return _bytes(saved, frozenset(map(id, self.reads + tuple(state))))

    def back(self, t, state, dc, dr, saved=None):
        """The adjoint of one step: the cotangents before it."""
        if saved is None:
            value, saved, bwd, where = self.split(t, state)
        else:
            value, (saved, bwd, where) = None, saved
        k = len(state)
        seeds = []
        for i, v in enumerate(tuple(state) + self.reads):
            d = dc[i] if i < k else dr[i - k]
            if d is None and _differentiable(v) and (i < k or i - k not in self.inert):
                d = runtime.zeros_like(state[i] if i < k else v)
            seeds.append(d)
        grads = bwd(saved, tuple(seeds))
        grads = grads if isinstance(grads, tuple) else (grads,)
        dc, dr = [None] * k, list(dr)
        for i, d in zip(where, grads):
            if i < k:
                dc[i] = d
            else:
                dr[i - k] = d
        return dc, dr


def _site_budget(step, budget):
    """(bytes, "file:line", the parameters not differentiated, which reads are
    parameters never assigned, which reads the call returns after the carry).
    ``budget`` is ``(bytes, parameters not differentiated)``: data, read live by the
    compiled derivative (one derivative serves every budget)."""
    site, unassigned, through = step.__srcgrad_loop__
    limit, inert = budget
    return limit, site, inert, unassigned, through


def _too_small(site, budget, needed):
    return BudgetError(f"{site}: max_memory={budget} bytes is less than one step of this loop "
                       f"needs in its reverse sweep ({needed} bytes of records and one "
                       f"snapshot); raise max_memory to at least {needed}")


def _grows(site, budget):
    return BudgetError(f"{site}: max_memory={budget} bytes: the values this loop carries grow "
                       f"from trip to trip, and its snapshots no longer fit; raise max_memory, "
                       f"or carry values of a fixed size")


def _keep_records(tape, state, value, first, records):
    """Every step's records (the first step's given): the last carry, or None (and
    nothing kept) if they outgrow the budget."""
    tape.kind = "records"
    tape.saved, tape.states = [first], [state]
    state = tuple(value[:len(state)])
    for t in tape.steps[1:]:
        value, saved, bwd, where = tape.split(t, state)
        records += tape.record_bytes(saved, state) + _bytes(state)
        if records > tape.budget:
            tape.saved = tape.states = None
            return None
        tape.saved.append((saved, bwd, where))
        tape.states.append(state)
        state = tuple(value[:len(state)])
    return state


def checkpointed_for(step, steps, carry, reads, budget):
    """``for t in steps: carry = step(t, *carry, *reads)[:len(carry)]``, keeping what
    the reverse sweep needs within ``budget = (bytes, "file:line")``."""
    limit, site, inert, unassigned, through = _site_budget(step, budget)
    tape = _Tape(step, reads, limit, site)
    tape.inert = _inert_reads(step, len(carry), inert, unassigned)
    tape.through = through
    steps = steps if isinstance(steps, range) else list(steps)
    tape.steps, tape.n = steps, len(steps)
    state = tuple(carry)
    tape.first = state
    if not steps:
        tape.kind = "empty"
        out = _Carry(tape, state)
        return out
    n = len(steps)
    value, saved, bwd, where = tape.split(steps[0], state)
    records = tape.record_bytes(saved, state)
    snapshot = max(_bytes(tuple(value[:len(state)])), 1)   # (a state after a step)
    if n * (records + snapshot) <= limit:   # every step's records fit: keep them
        last = _keep_records(tape, state, value, (saved, bwd, where),
                             records + _bytes(state))
        if last is not None:
            return _Carry(tape, last)
        # (they grew past the budget: snapshots after all, from the first state)
        value, saved, bwd, where = tape.split(steps[0], state)
    del saved
    if limit < records + snapshot:
        raise _too_small(site, limit, records + snapshot)
    tape.kind = "revolve"
    total = 1 + int((limit - records) // snapshot)      # the first state and the others
    tape.snapshots_allowed = total
    spine = [(0, state, total)]
    position, current = 1, tuple(value[:len(state)])
    p, s, used = 0, total, 0
    while n - p >= 2 and s >= 2:
        target = p + revolve.split(n - p, s)
        while position < target:
            current = tape.advance(current, steps[position])
            position += 1
        p, s = target, s - 1
        spine.append((p, current, s))
        used += _bytes(current)
        if used > limit - records:
            raise _grows(site, limit)
    while position < n:
        current = tape.advance(current, steps[position])
        position += 1
    tape.spine = spine
    out = _Carry(tape, current)
    return out


def checkpointed_while(cond, step, carry, reads, budget):
    """``while cond(*carry, *reads): carry = step(k, *carry, *reads)[:len(carry)]``
    (``k`` counts the trips): every trip's records while they fit in the budget, then
    snapshots at a stride that doubles as they fill it."""
    limit, site, inert, unassigned, through = _site_budget(step, budget)
    tape = _Tape(step, reads, limit, site)
    tape.inert = _inert_reads(step, len(carry), inert, unassigned)
    tape.through = through
    state = tuple(carry)
    tape.first = state
    kept, states, used, first = [], [], 0, None
    k = 0
    while cond(*state, *reads):
        value, saved, bwd, where = tape.split(k, state)
        records = tape.record_bytes(saved, state)
        first = records if first is None else first
        used += records + _bytes(state)
        if used > limit:
            del saved
            return _online(tape, cond, states, state, value, k, first)
        kept.append((saved, bwd, where))
        states.append(state)
        state = tuple(value[:len(state)])
        k += 1
    tape.kind, tape.saved, tape.states = "records", kept, states
    tape.n, tape.steps = k, range(k)
    return _Carry(tape, state)


def _online(tape, cond, states, state, value, k, records):
    """Go on from trip ``k`` (run, its value given) with snapshots instead of records:
    of the states before ``k``, every ``stride``-th one is kept."""
    limit, reads = tape.budget, tape.reads
    tape.kind = "online"
    after = tuple(value[:len(state)])
    snapshot = max(_bytes(after), 1)
    if limit < records + 2 * snapshot:
        raise _too_small(tape.site, limit, records + 2 * snapshot)
    total = int((limit - records) // snapshot)
    tape.snapshots_allowed = tape.total = total
    stride = 1
    while -(-(k + 1) // stride) > max(1, total // 2):
        stride *= 2
    snapshots = [(i, states[i]) for i in range(0, k, stride)]
    if k % stride == 0:
        snapshots.append((k, state))
    del states
    state, k = after, k + 1
    while cond(*state, *reads):
        if k % stride == 0:
            snapshots.append((k, state))
            if sum(_bytes(st) for _, st in snapshots[1:]) > limit - records:
                raise _grows(tape.site, limit)
            if len(snapshots) > max(1, total // 2):
                stride *= 2
                snapshots = [e for e in snapshots if e[0] % stride == 0]
        state = tape.advance(state, k)
        k += 1
    tape.n, tape.steps = k, range(k)
    tape.spine = [(p, st, None) for p, st in snapshots]
    return _Carry(tape, state)


def _reverse_segment(tape, lo, hi, state, s, cot):
    """The adjoint of steps ``lo`` to ``hi - 1`` from the snapshot ``state`` at ``lo``,
    with ``s`` snapshots (that one counted)."""
    steps = tape.steps
    if hi - lo == 1:
        cot[:] = tape.back(steps[lo], state, *cot)
        return
    if s <= 1:
        for j in range(hi - 1, lo - 1, -1):
            current = state
            for i in range(lo, j):
                current = tape.advance(current, steps[i])
                tape.advanced += 1
            cot[:] = tape.back(steps[j], current, *cot)
        return
    m = revolve.split(hi - lo, s)
    current = state
    for i in range(lo, lo + m):
        current = tape.advance(current, steps[i])
        tape.advanced += 1
    _reverse_segment(tape, lo + m, hi, current, s - 1, cot)
    del current
    _reverse_segment(tape, lo, lo + m, state, s, cot)


def _respine(tape):
    """The snapshots of the first sweep, computed again from the loop's first carry."""
    positions = tape.positions
    spine, state, at = [], tape.first, 0
    for p, s in positions:
        while at < p:
            state = tape.advance(state, tape.steps[at])
            at += 1
        spine.append((p, state, s))
    return spine


def _reverse(tape, g):
    """(cotangent of the first carry, cotangents of the reads)."""
    k = len(tape.first)
    dc = [None if g is None else g[i] for i in range(k)]
    dr = [runtime.zeros_like(r) if _differentiable(r) and i not in tape.inert else None
          for i, r in enumerate(tape.reads)]
    for j, i in enumerate(tape.through):            # cotangents from after the loop
        if g is not None and g[k + j] is not None and dr[i] is not None:
            dr[i] = g[k + j]
    cot = [dc, dr]
    if tape.kind == "records":
        for j in range(tape.n - 1, -1, -1):
            cot[:] = tape.back(tape.steps[j], tape.states[j], *cot, saved=tape.saved[j])
    elif tape.kind in ("revolve", "online"):
        spine, tape.spine = tape.spine, None        # (released as the sweep goes)
        if spine is None:                           # a second sweep: the snapshots again
            spine = _respine(tape)
        tape.positions = [(p, s) for p, _, s in spine]
        end = tape.n
        while spine:
            p, state, s = spine.pop()
            if s is None:               # online: this snapshot and the free slots
                s = tape.total - len(spine)
            _reverse_segment(tape, p, end, state, s, cot)
            end = p
    dc, dr = cot
    LAST.clear()
    LAST.update(steps=tape.n, advanced=tape.advanced, recorded=tape.recorded,
                kind=tape.kind, snapshots=getattr(tape, "snapshots_allowed", None))
    return tuple(dc), tuple(dr)


def checkpoint_grad(g, ans, which):
    """The cotangent of the loop's first carry (``which="carry"``) or of its reads
    (``"reads"``): one reverse sweep serves both."""
    tape = ans.tape
    if tape.grads is None or tape.grads[0] is not g:
        tape.grads = (g, _reverse(tape, g))
    dc, dr = tape.grads[1]
    return dc if which == "carry" else dr


def checkpoint_jvp(ans, step, carry, reads, dcarry=None, dreads=None):
    """Forward mode: the tangent of the loop's result along ``dcarry`` and ``dreads``
    (the steps run again with :func:`srcgrad.jvp`; forward mode keeps nothing, so the
    budget plays no part)."""
    from ..compiler import dynamic
    tape = ans.tape
    k = len(carry)
    state = tuple(carry)
    dstate = tuple(dcarry) if dcarry is not None else (None,) * k
    dr = tuple(dreads) if dreads is not None else (None,) * len(reads)
    dr = tuple(d if _differentiable(r) else None for r, d in zip(reads, dr))
    for t in tape.steps:
        args = (t,) + state + tuple(reads)
        wrt = tuple(i for i, (v, d) in enumerate(zip(args, (None,) + dstate + dr), 0)
                    if d is not None and _differentiable(v))
        tangents = tuple(((None,) + dstate + dr)[i] for i in wrt)
        if not wrt:
            state = tuple(step(*args)[:k])
            continue
        out, dout = dynamic.call_jvp(step, wrt, tape.site, tangents, *args)
        state, dstate = tuple(out[:k]), tuple(dout[:k])
    full = tuple(runtime.zeros_like(v) if d is None else d
                 for v, d in zip(tuple(state) + tuple(reads), tuple(dstate) + dr))
    return full[:k] + tuple(full[k + i] for i in tape.through)


_VJP = dict(carry="checkpoint_grad(g, ans, 'carry')", reads="checkpoint_grad(g, ans, 'reads')")
_JVP = dict(carry="checkpoint_jvp(ans, step, carry, reads, dcarry=dcarry)",
            reads="checkpoint_jvp(ans, step, carry, reads, dreads=dreads)")
# (the result holds the reads the code after the loop reads again: a view of them)
defrule(checkpointed_for, "step, steps, carry, reads, budget", name="ad.checkpointed_for",
        sequence=("carry", "reads"), view_of="reads", vjp=_VJP, jvp=_JVP)
defrule(checkpointed_while, "cond, step, carry, reads, budget",
        name="ad.checkpointed_while", sequence=("carry", "reads"), view_of="reads", vjp=_VJP,
        jvp=_JVP)
add_kernels(sys.modules[__name__])
