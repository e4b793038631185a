"""Arithmetic operators of the user's classes (``__add__``, ``__mul__``, ``__rmul__``,
``__neg__``...) on objects in differentiated code are calls of those methods,
differentiated like any callee (lower/expressions.operator_method).  They were run as
written and differentiated as array arithmetic: a WRONG gradient with no error for an
operator that is not linear (an "add" that multiplies).  Where the code cannot know the
operand is such an object (a value a user function returned), it is checked when it
runs and refused, never differentiated as an array's."""
import numpy as np
import pytest

import srcgrad as sg
from gradcheck_util import check_modes, fd_of as fd


class P:
    def __init__(self, a):
        self.a = a

    def __add__(self, o):
        return P(self.a * o.a)                 # "add" is a product

    def __mul__(self, s):
        return P(np.sin(self.a) * s)

    def __rmul__(self, s):
        return P(np.cos(self.a) * s)

    def __neg__(self):
        return P(self.a ** 3)

    def total(self):
        return np.sum(self.a)


def built_then_added(x):
    return (P(x) + P(x * 2.0)).total()


def scaled(x):
    return (P(x) * 3.0).total()


def reflected_and_negated(x):
    p = P(x)
    q = 2.0 * p
    return (-q).total() if False else (-p).total() + q.total()


def parameters_are_objects(p, x):
    r = p + P(x)
    return (r * 2.0).total()


def augmented(x):
    acc = P(x)
    for k in range(2):
        acc += P(x + k)
    return acc.total()


def make(a):
    return P(a)


def from_a_helper(x):
    r = make(x) * 3.0
    return r.total()


X = np.array([0.3, 0.6])
V = np.array([0.5, -1.0])


@pytest.mark.parametrize("f", [built_then_added, scaled, reflected_and_negated, augmented],
                         ids=lambda f: f.__name__)
def test_operators_are_the_class_methods(f):
    expected = fd(f, X)
    np.testing.assert_allclose(sg.grad(f)(X), expected, rtol=1e-6, atol=1e-9)
    y, t = sg.jvp(f, (X,), (V,))
    assert t == pytest.approx(expected @ V, rel=1e-6)
    np.testing.assert_allclose(sg.hvp(f)(X, v=V), fd(lambda z: sg.grad(f)(z) @ V, X),
                               rtol=1e-5, atol=1e-7)


def test_a_parameter_object():
    p = P(np.array([1.2, -0.4]))
    g = sg.grad(parameters_are_objects, wrt=1)(p, X)
    np.testing.assert_allclose(g, fd(lambda z: parameters_are_objects(p, z), X), rtol=1e-6)
    gp = sg.grad(parameters_are_objects, wrt=0)(p, X)
    np.testing.assert_allclose(gp.a, fd(lambda z: parameters_are_objects(P(z), X), p.a),
                               rtol=1e-6)


def test_an_object_a_helper_returned_is_refused_at_its_line():
    with pytest.raises(sg.NonDifferentiableError) as e:
        sg.grad(from_a_helper)(X)
    assert "differentiate * on" in str(e.value) and "test_operators_of_objects.py" in str(e.value)


class Holder:
    def __init__(self, p, q):
        self.p, self.q = p, q


def fields_added(x):
    h = Holder(P(x), P(2.0 * x))
    return (h.p + h.q).total()


def items_added(x):
    ps = [P(x), P(2.0 * x)]
    return (ps[0] + ps[1]).total()


def accumulated_over_a_list(x):
    acc = P(x)
    for p in [P(2.0 * x), P(3.0 * x)]:
        acc = acc + p
    return acc.total()


def test_an_accumulator_built_by_the_class():
    f = accumulated_over_a_list
    np.testing.assert_allclose(sg.grad(f)(X), fd(f, X), rtol=1e-6)


@pytest.mark.parametrize("f", [fields_added, items_added], ids=lambda f: f.__name__)
def test_an_object_read_from_a_field_or_an_item_is_refused(f):
    # (WRONG before, no error: [3, 3] for a gradient of [1.2, 2.4])
    with pytest.raises(sg.NonDifferentiableError) as e:
        sg.grad(f)(X)
    assert "differentiate + on" in str(e.value) and "test_operators_of_objects.py" in str(e.value)


class Seq:
    def __init__(self, items):
        self.items = items

    def __getitem__(self, i):
        return self.items[i] * 2.0

    def __len__(self):
        return len(self.items)


def items_of_a_built_sequence(x):
    s = Seq([x, x ** 2, np.sin(x)])
    return sum(np.sum(s[i]) for i in range(len(s)))


def item_of_a_parameter(s, x):
    return np.sum(s[1] * x)


def test_an_item_of_an_object_is_its_getitem():
    # (a crash before: the adjoint stored into the object, "'Seq' object does not
    # support item assignment")
    for mode in ("reverse", "forward", "second"):
        check_modes(items_of_a_built_sequence, X, V, mode)
    s = Seq([X, X ** 2])
    np.testing.assert_allclose(sg.grad(item_of_a_parameter, wrt=1)(s, X), 2.0 * X ** 2,
                               rtol=1e-12)
    g = sg.grad(item_of_a_parameter, wrt=0)(s, X)
    np.testing.assert_allclose(g.items[1], 2.0 * X, rtol=1e-12)
    np.testing.assert_allclose(g.items[0], 0.0)
