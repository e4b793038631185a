"""``for v in obj`` over an object of the user's class (its ``__iter__`` or
``__getitem__``/``__len__``): each item's gradient goes to the field that holds it.

Before, the loop's gradient (a list, one entry per item) was handed back as the
object's gradient, which has its fields' form: ``__iter__`` gave a silent 0.0
(right: 3.1648 at 0.7 for ``x + x*x + sin x``), ``__getitem__`` raised a TypeError
and forward mode a KeyError.
"""
import numpy as np
import pytest

import srcgrad as sg


class Bag:                      # __iter__ over a list field
    def __init__(self, xs):
        self.xs = xs

    def __iter__(self):
        return iter(self.xs)


class Indexed:                  # the sequence protocol
    def __init__(self, xs):
        self.xs = xs

    def __getitem__(self, i):
        return self.xs[i]

    def __len__(self):
        return len(self.xs)


class Pair:                     # a generator __iter__ over plain fields
    def __init__(self, a, b):
        self.a, self.b = a, b

    def __iter__(self):
        yield self.a
        yield self.b
        yield self.a


class Computed:                 # yields values it computes: no field holds them
    def __init__(self, a):
        self.a = a

    def __iter__(self):
        yield self.a * 2.0


def bag_sum(x):
    s = Bag([x, x * x, np.sin(x)])
    t = 0.0
    for v in s:
        t = t + v
    return t


def indexed_products(x):
    s = Indexed((x, np.cos(x) * x))
    t = 1.0
    for v in s:
        t = t * v
    return t + s[1]


def pair_weighted(x):
    p = Pair(np.exp(x), x ** 3)
    t = 0.0
    for k, v in enumerate(p):
        t = t + (k + 1.0) * v
    return t


def arrays_in_a_bag(w):
    s = Bag([w * 2.0, np.tanh(w)])
    total = 0.0
    for v in s:
        total = total + np.sum(v * v)
    return total


def comprehension_over_bag(x):
    s = Bag([x, x * 3.0])
    return sum([v * v for v in s])


PROGRAMS = [bag_sum, indexed_products, pair_weighted, comprehension_over_bag]


def fd(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_reverse_and_forward(f):
    x = 0.7
    want = fd(f, x)
    assert sg.grad(f)(x) == pytest.approx(want, rel=1e-7)
    _, tangent = sg.jvp(f, (x,), (1.0,))
    assert tangent == pytest.approx(want, rel=1e-7)


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_second_and_third_order(f):
    x = 0.7
    g1, g2 = sg.grad(f), sg.grad(sg.grad(f))
    assert g2(x) == pytest.approx(fd(g1, x), rel=1e-6)
    assert sg.grad(g2)(x) == pytest.approx(fd(g2, x), rel=1e-5)
    _, t2 = sg.jvp(g1, (x,), (1.0,))
    assert t2 == pytest.approx(fd(g1, x), rel=1e-6)


def test_arrays_against_differences():
    rng = np.random.default_rng(3)
    w = rng.normal(size=(3, 2))
    g = sg.grad(arrays_in_a_bag)(w)
    num = np.zeros_like(w)
    for i in np.ndindex(w.shape):
        e = np.zeros_like(w)
        e[i] = 1e-6
        num[i] = (arrays_in_a_bag(w + e) - arrays_in_a_bag(w - e)) / 2e-6
    np.testing.assert_allclose(g, num, rtol=1e-6, atol=1e-8)


def test_object_parameter_gets_its_fields_gradient():
    def f(bag):
        t = 0.0
        for v in bag:
            t = t + v * v
        return t
    g = sg.grad(f)(Bag([1.5, -2.0]))
    xs = g.xs if hasattr(g, "xs") else g["xs"]
    np.testing.assert_allclose(np.asarray(xs, float), [3.0, -4.0])


def test_computed_items_are_refused():
    def f(x):
        t = 0.0
        for v in Computed(x):
            t = t + v
        return t
    with pytest.raises(sg.NonDifferentiableError, match="Computed"):
        sg.grad(f)(0.7)


def test_inputs_untouched():
    xs = [0.3, 0.4]
    bag = Bag(xs)

    def f(b):
        t = 0.0
        for v in b:
            t = t + v * 3.0
        return t
    sg.grad(f)(bag)
    assert bag.xs is xs and xs == [0.3, 0.4]


# enumerate / zip / reversed of a dict iterate over its keys; the loop read d[i]
# (the value at key i) instead: gradients 4.4, 4.27, 4.27 where 1.0 is right
def enumerate_dict(x):
    d = {1: x, 0: x * x}
    t = 0.0
    for i, k in enumerate(d):
        t = t + k * (i + 1.0)
    return t + d[1]


def zip_dict(x):
    d = {1: x, 0: x * x}
    t = 0.0
    for k, v in zip(d, [x, 2 * x]):
        t = t + k * v
    return t


def reversed_dict(x):
    d = {1: x, 0: x * x}
    t = 0.0
    for k in reversed(d):
        t = t * 2.0 + k
    return t * x


def enumerate_bag(x):
    t = 0.0
    for i, v in enumerate(Bag([x, np.sin(x)])):
        t = t + (i + 1.0) * v
    return t


@pytest.mark.parametrize("f", [enumerate_dict, zip_dict, reversed_dict, enumerate_bag],
                         ids=lambda f: f.__name__)
def test_builtins_over_dicts_and_objects(f):
    x = 0.7
    want = fd(f, x)
    assert sg.grad(f)(x) == pytest.approx(want, rel=1e-7)
    _, tangent = sg.jvp(f, (x,), (1.0,))
    assert tangent == pytest.approx(want, rel=1e-7)
    assert sg.grad(sg.grad(f))(x) == pytest.approx(fd(sg.grad(f), x), rel=1e-5, abs=1e-8)


def _weighted_by_position(x):
    s = 0.0
    for i, v in enumerate([x[0], np.sin(x[1])]):
        s = s + v * (i + 1)
    return s


def test_enumerate_index_is_not_checked_as_an_operand():
    """enumerate's index is an int: no ``ad.numeric_operand(i, '+')`` before ``i + 1``
    (the item still is checked where it may be an object)."""
    src = sg.source(_weighted_by_position)
    assert "numeric_operand(i," not in src
    x = np.array([0.3, 0.5])
    np.testing.assert_allclose(sg.grad(_weighted_by_position)(x), [1.0, 2 * np.cos(0.5)])
