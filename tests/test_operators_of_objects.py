"""Arithmetic operators of the user's classes (``__add__``, ``__mul__``, ``__rmul__``,
``__neg__``...) on objects in differentiated code are calls of those methods,
differentiated like any callee (lower/expressions.operator_method).  They were run as
written and differentiated as array arithmetic: a WRONG gradient with no error for an
operator that is not linear (an "add" that multiplies).  Where the code cannot know the
operand is such an object (read from a field or an item, or a value a user function
returned), in a module that names classes with operator methods, the operator is found
when it runs (ad.operator_for); elsewhere the operand is checked when it runs and an
object refused, never differentiated as an array's."""
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


_ELSEWHERE = """
def from_a_helper_elsewhere(x):
    r = make(x) * 3.0
    return r.total()
"""


def test_an_object_whose_class_the_module_does_not_name_is_refused_at_its_line():
    """Code in a module that names no class with operator methods keeps operators as
    operators, with a check where an operand may be an object: refused, never
    differentiated as an array's product."""
    space = {"make": make, "np": np}
    exec(compile(_ELSEWHERE, "elsewhere_module.py", "exec"), space)
    import linecache
    linecache.cache["elsewhere_module.py"] = (len(_ELSEWHERE), None,
                                              _ELSEWHERE.splitlines(True),
                                              "elsewhere_module.py")
    with pytest.raises(sg.NonDifferentiableError) as e:
        sg.grad(space["from_a_helper_elsewhere"])(X)
    assert "differentiate * on a P object" in str(e.value) and \
        "elsewhere_module.py:3" in str(e.value)


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


def fields_of_a_parameter(h, x):
    return (h.p * x[0] + 2.0 * h.q).total() + np.sum(x * x)


def negated_item_in_a_loop(x):
    ps = [P(x), P(x * x)]
    acc = 0.0
    for p in ps:
        acc = acc + (-(p * 1.5)).total()
    return acc


@pytest.mark.parametrize("mode", ["reverse", "forward", "second"])
@pytest.mark.parametrize("f", [fields_added, items_added, from_a_helper,
                               negated_item_in_a_loop], ids=lambda f: f.__name__)
def test_an_object_read_from_a_field_an_item_or_a_helper_calls_its_methods(f, mode):
    """(WRONG before these were refused, no error: [3, 3] for a gradient of [1.2, 2.4];
    then refused: 'srcgrad cannot tell that it calls the class's operator method'.)
    The module names classes with operator methods, so an operand whose type the code
    cannot know calls what its value's class defines: ad.operator_for, when it runs."""
    check_modes(f, X, V, mode)


def test_fields_of_a_parameter_object_call_their_methods():
    h = Holder(P(np.array([0.4, -0.3])), P(np.array([1.1, 0.2])))
    g = sg.grad(fields_of_a_parameter, wrt=1)(h, X)
    np.testing.assert_allclose(g, fd(lambda z: fields_of_a_parameter(h, z), X), rtol=1e-6)
    gh = sg.grad(fields_of_a_parameter, wrt=0)(h, X)
    np.testing.assert_allclose(
        gh.p.a, fd(lambda a: fields_of_a_parameter(Holder(P(a), h.q), X), h.p.a), rtol=1e-6)
    np.testing.assert_allclose(
        gh.q.a, fd(lambda a: fields_of_a_parameter(Holder(h.p, P(a)), X), h.q.a), rtol=1e-6)


def test_a_plain_number_read_from_an_item_still_differentiates():
    def f(x):
        d = {"w": x * 2.0, "k": 3.0}
        return np.sum(d["w"] * d["k"] - x[0] ** d["k"])
    np.testing.assert_allclose(sg.grad(f)(X), fd(f, X), rtol=1e-6)
    for mode in ("forward", "second"):
        check_modes(f, X, V, mode)


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
