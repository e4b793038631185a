"""itertools over a sequence of differentiated values (combinations, permutations,
combinations_with_replacement, product with repeat=): each item's gradient is the sum
over its copies, in both modes."""
import dataclasses
import itertools

import numpy as np
import pytest

import srcgrad as sg
from gradcheck_util import numeric_grad, assert_close


def pair_energy(points):
    e = 0.0
    for p, q in itertools.combinations(points, 2):
        e = e + 1.0 / np.sqrt(np.sum((p - q) ** 2) + 0.1)
    return e


def ordered_pairs(x):
    return sum(a * b ** 2 for a, b in itertools.permutations(x, 2))


def with_replacement(xs):
    return np.sum(sum(np.sin(a) * b for a, b in itertools.combinations_with_replacement(xs, r=2)))


def grid(x):
    return sum(a - 2.0 * b for a, b in itertools.product(x, repeat=2)) + \
        np.sum(np.stack(list(itertools.permutations(x))) ** 3)


R = np.random.default_rng(1)
CASES = [(pair_energy, (R.standard_normal((4, 2)),)), (ordered_pairs, (np.array([0.5, -1.0, 2.0]),)),
         (with_replacement, ([np.array([0.2, 0.4]), np.array([-0.3, 0.1]), np.array([1.0, 0.0])],)),
         (grid, (np.array([0.7, -0.2, 0.4]),))]


@pytest.mark.parametrize("f, args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_both_modes(f, args):
    g = sg.grad(f)(*args)
    assert_close(g, numeric_grad(f, args, 0))
    x = args[0]
    if isinstance(x, list):
        return                     # (a list's tangent: covered by the rule-table samples)
    t = np.linspace(0.2, 1.0, x.size).reshape(x.shape)
    _, dout = sg.jvp(f, args, (t,))
    np.testing.assert_allclose(dout, np.sum(g * t), rtol=1e-8, atol=1e-12)


@dataclasses.dataclass
class _Scale:                      # eq=True: instances are unhashable
    k: float

    def __call__(self, x):
        return self.k * x


SCALE = _Scale(3.0)


def calls_an_unhashable_object(x):
    return np.sum(SCALE(x) ** 2)


def test_a_call_of_an_unhashable_callable_object_is_lowered():
    # (the lowering looks callees up among itertools' functions by identity)
    np.testing.assert_allclose(sg.grad(calls_an_unhashable_object)(np.array([1.0, 2.0])),
                               [18.0, 36.0])
