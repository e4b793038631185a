"""Tapes for a loop's records that are Python floats (compiler/modes/float_tapes.py).

``float_tape(steps, *assumed)`` is the stack one loop's float records go onto: an
``array('d')`` (eight bytes a value, the floats unboxed) when the loop runs at least
``MIN_TRIPS`` trips and every value in ``assumed`` is a Python ``float`` (what the
compiler's proof that the records are floats assumes), else a list (the objects
themselves, as the main stack holds them).  Both are used through ``append`` and
``pop`` alone.

Why a minimum: an ``array('d')`` keeps a quarter of a list's memory (8 bytes a value
against a pointer and a boxed float, 32), but its ``append`` and ``pop`` convert each
value and cost about 60% more than a list's.  Below ``MIN_TRIPS`` trips the records
are small and the time matters more; above it, the memory.
"""
from array import array as FloatTape

MIN_TRIPS = 2048


def float_tape(steps, *assumed):
    if len(steps) < MIN_TRIPS:
        return []
    for v in assumed:
        if type(v) is not float:
            return []
    return FloatTape("d")
