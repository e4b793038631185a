"""Tapes for a loop's records that are Python floats (compiler/modes/float_tapes.py).

``float_tape(steps, *assumed)`` is the stack one loop's float records go onto: an
``array('d')`` (eight bytes a value, the floats unboxed) when the loop runs at least
``MIN_TRIPS`` trips and every value in ``assumed`` is a Python ``float`` (what the
compiler's proof that the records are floats assumes), else a list (the objects
themselves, as the main stack holds them).  Both are used through ``append`` and
``pop`` alone.

``filled_tape(steps, *assumed)`` is the tape of one record a trip of a loop whose
trips the compiler numbers ``0, 1, ...`` (``for i in range(stop)``, each trip saving
the value once): it holds ``len(steps)`` slots from the start, allocated once at
their exact size (no growth, no spare room: 8 bytes a trip), that the forward sweep
writes by the loop's counter (``tape[i] = x``) and the adjoint sweep reads back by
the same counter, in reverse (``x = tape[i]``).  Same choice of array or list.

Why a minimum: an ``array('d')`` keeps a quarter of a list's memory (8 bytes a value
against a pointer and a boxed float, 32), but its ``append`` and ``pop`` convert each
value and cost about 60% more than a list's.  Below ``MIN_TRIPS`` trips the records
are small and the time matters more; above it, the memory.
"""
from array import array as FloatTape

MIN_TRIPS = 2048


def _unboxed(steps, assumed):
    if len(steps) < MIN_TRIPS:
        return False
    for v in assumed:
        if type(v) is not float:
            return False
    return True


def filled_tape(steps, *assumed):
    n = len(steps)
    if not _unboxed(steps, assumed):
        return [0.0] * n
    return FloatTape("d", [0.0]) * n       # (a repeat: allocated once, at its size)


def float_tape(steps, *assumed):
    if len(steps) < MIN_TRIPS:
        return []
    for v in assumed:
        if type(v) is not float:
            return []
    return FloatTape("d")
