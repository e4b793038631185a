"""Binomial checkpointing schedules (revolve) and an online schedule for loops of unknown
length.

Reversing ``n`` steps of a loop needs each step's state at the moment its adjoint runs.
Keeping all ``n`` states costs ``n`` snapshots; keeping ``s`` of them (the loop's first
state among them) costs recomputation instead.  With ``beta(s, r) = C(s + r, s)``, the
least number of steps advanced without records, over all schedules, is

    T(n, s) = r * n - beta(s + 1, r - 1),   where beta(s, r - 1) < n <= beta(s, r)

(Griewank and Walther's binomial bound; ``r`` is the most times any one step runs).
:func:`split` gives the first step of an optimal schedule: from a snapshot at the start
of ``n`` steps with ``s`` snapshots, advance ``split(n, s)`` steps and keep a snapshot
there; reverse the ``n - split`` steps after it with ``s - 1`` snapshots, then the first
``split`` steps with ``s``.  Every step also runs once with records, just before its
adjoint.  ``tests/test_checkpoint.py`` checks :func:`advances` against a brute-force
search and against the formula.
"""
from math import comb

__all__ = []


def beta(s, r):
    """``C(s + r, s)``: the most steps ``s`` snapshots reverse with each step run at
    most ``r`` times (0 for ``r < 0``)."""
    return comb(s + r, s) if r >= 0 else 0


def repetitions(n, s):
    """The least ``r`` with ``n <= beta(s, r)``."""
    r = 0
    while beta(s, r) < n:
        r += 1
    return r


def least_advances(n, s):
    """``T(n, s)``: the fewest steps advanced without records by any schedule that
    reverses ``n`` steps with ``s >= 1`` snapshots (the first state counted)."""
    if n <= 1:
        return 0
    r = repetitions(n, s)
    return r * n - beta(s + 1, r - 1)


def split(n, s):
    """How many steps to advance before the next snapshot, for ``n >= 2`` steps from a
    snapshot with ``s >= 2`` snapshots in all: the smallest optimal one (the largest
    part left for the inner reversal)."""
    r = repetitions(n, s)
    return max(1, beta(s, r - 2), n - beta(s - 1, r))


def advances(n, s):
    """Steps advanced without records by the schedule :func:`split` makes (equal to
    :func:`least_advances`; counted by walking the schedule, for the tests)."""
    total = 0
    stack = [(n, s)]
    while stack:
        n, s = stack.pop()
        if n <= 1:
            continue
        if s <= 1:
            total += n * (n - 1) // 2
            continue
        m = split(n, s)
        total += m
        stack.append((n - m, s - 1))
        stack.append((m, s))
    return total
