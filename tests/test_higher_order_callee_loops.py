"""Third and fourth derivatives through a callee whose loop calls a function.

Each reverse pass differentiates the generated code of the pass before it, so a
callee's split form at order k holds lists (the loop's stack, a list a generator
builds) in the record its forward sweep returns.  A backward sweep that pushed back
onto such a list, or popped a list it took back from a stack, changed the object the
record held, and the next order read it changed: ``grad`` three times of
``w(y) = b(y)``, with ``b`` looping over ``t = q(x)``, gave 0.0 (right: 24 y for
``q = a**4``); a sum of lambdas over a list gave -1.1408 for 3.0354; a generator's sum
raised IndexError at fourth order.  The values here are the derivatives written out.
"""
import math

import numpy as np
import pytest

import srcgrad as sg

X = 1.3


def nth(f, k):
    for _ in range(k):
        f = sg.grad(f)
    return f


# body, its third and fourth derivatives
BODIES = {
    "a**4": (lambda a: a ** 4, lambda x: 24 * x, lambda x: 24.0),
    "a**3": (lambda a: a ** 3, lambda x: 6.0, lambda x: 0.0),
    "sin": (lambda a: np.sin(a), lambda x: -math.cos(x), lambda x: math.sin(x)),
    "a*a*a": (lambda a: a * a * a, lambda x: 6.0, lambda x: 0.0),
    "sin(a)*a": (lambda a: np.sin(a) * a,
                 lambda x: -3 * math.sin(x) - x * math.cos(x),
                 lambda x: -4 * math.cos(x) + x * math.sin(x)),
}


def program(body, trips, accumulate):
    def q(a):
        return body(a)

    def b(x):
        t = 0.0
        for _ in range(trips):
            t = t + q(x) if accumulate else q(x)
        return t

    def w(y):
        return b(y)
    return w


@pytest.mark.parametrize("name", sorted(BODIES))
@pytest.mark.parametrize("trips", [1, 2])
@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("order", [3, 4])
def test_wrapped_callee_loop_calling(name, trips, accumulate, order):
    body, d3, d4 = BODIES[name]
    times = trips if accumulate else 1
    want = times * (d3 if order == 3 else d4)(X)
    got = nth(program(body, trips, accumulate), order)(X)
    assert got == pytest.approx(want, rel=1e-10, abs=1e-10)


FS = [lambda a: np.sin(a) * a, lambda a: a ** 3, lambda a: np.exp(-a)]


def loop_of_lambdas(x):
    t = 0.0
    for f in FS:
        t = t + f(x)
    return t


def sum_of_generator(x):
    return sum(f(x) for f in FS)


def third(x):
    return -3 * math.sin(x) - x * math.cos(x) + 6 - math.exp(-x)


def fourth(x):
    return -4 * math.cos(x) + x * math.sin(x) + math.exp(-x)


@pytest.mark.parametrize("h", [loop_of_lambdas, sum_of_generator])
def test_lambdas_from_a_list_through_a_wrapper(h):
    w = lambda y: h(y)  # noqa: E731
    assert nth(w, 3)(0.7) == pytest.approx(third(0.7), rel=1e-10)
    assert nth(w, 4)(0.7) == pytest.approx(fourth(0.7), rel=1e-10)


def test_fourth_order_against_differences_of_the_third():
    w = program(BODIES["sin(a)*a"][0], 2, True)
    g3, g4 = nth(w, 3), nth(w, 4)
    h = 1e-5
    fd = (g3(X + h) - g3(X - h)) / (2 * h)
    assert g4(X) == pytest.approx(fd, rel=1e-6)


def test_split_backward_runs_twice_the_same():
    def f(x):
        t = 0.0
        for i in range(3):
            lst = []
            for j in range(2):
                lst.append(x * (i + j + 1.0))
            t = t + sum(lst) * x
        return t
    _, vjp = sg.vjp(f, 1.5)
    first, second = vjp(1.0), vjp(1.0)
    assert first == second
    assert np.asarray(first).item() == pytest.approx(45.0)
