"""Sample calls of the checkpointed-loop primitives (tests/test_rules.py reads them): the
steps are module-level functions, as ``max_memory=`` makes them
(compiler/lower/checkpoint.py), with the facts it attaches to them."""
import numpy as np

from srcgrad.rules import checkpoint   # registers the primitives' rules

__all__ = ["checkpoint"]


def rnn_step(t, h, W, xs):
    h = np.tanh(W @ h + xs[t])
    return (h, W, xs)


def matrix_step(t, H, W, xs):
    H = np.tanh(W @ H + xs[t])
    return (H, W, xs)


def decay_step(trip, y, s, k):
    y = y - 0.1 * k * y * y
    s = s + 0.1
    return (y, s, k)


def decay_test(y, s, k):
    return s < 0.45


def shrink_step(trip, y, k):
    y = y - 0.2 * k * y
    return (y, k)


def shrink_test(y, k):
    return np.sum(y) > 1.0


# (file:line, which reads are parameters never assigned, which reads come out after)
rnn_step.__srcgrad_loop__ = ("samples_checkpoint.py:11", (True, True), ())
matrix_step.__srcgrad_loop__ = ("samples_checkpoint.py:16", (True, True), (0,))
decay_step.__srcgrad_loop__ = ("samples_checkpoint.py:21", (True,), ())
shrink_step.__srcgrad_loop__ = ("samples_checkpoint.py:31", (True,), (0,))


def add_samples(SAMPLES, *, S, A, P, M, B):
    # all records kept; snapshots and recomputation; W read after the loop too
    SAMPLES["ad.checkpointed_for"] = [
        S(rnn_step, range(4), (A(3),), (0.5 * A(3, 3), A(4, 3)), (10 ** 6, frozenset())),
        S(rnn_step, range(5), (A(3),), (0.5 * A(3, 3), A(5, 3)), (1200, frozenset())),
        S(matrix_step, range(3), (A(3, 3),), (0.5 * A(3, 3), A(3, 3)), (10 ** 6, frozenset()))]
    SAMPLES["ad.checkpointed_while"] = [
        S(decay_test, decay_step, (P(), 0.0), (P(),), (10 ** 6, frozenset())),
        S(decay_test, decay_step, (P(), 0.0), (P(),), (1000, frozenset())),   # snapshots
        S(shrink_test, shrink_step, (np.array([1.0, 0.9, 0.7]),), (np.array([0.5, 0.8, 0.3]),),
          (10 ** 6, frozenset()))]
