"""Tapes for a loop's records that are Python floats (compiler/modes/float_tapes.py).

``float_tape(*assumed)`` is the stack one loop's float records go onto: an
``array('d')`` (eight bytes a value, the floats unboxed) when every value in
``assumed`` is a Python ``float`` (what the compiler's proof that the records are
floats assumes), else a list (the objects themselves, as the main stack holds them).
Both are used through ``append`` and ``pop`` alone.
"""
from array import array as FloatTape


def float_tape(*assumed):
    for v in assumed:
        if type(v) is not float:
            return []
    return FloatTape("d")
