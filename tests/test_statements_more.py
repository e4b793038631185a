"""More of the Python people write, differentiated: imports inside a function, any
``with`` block, starred targets and literals, ``f(*args, **kwargs)`` (decorators that
forward their arguments), ``zip(*pairs)``, ``rs.randn(*shape)``.

Checked in float64 against central differences in reverse and forward mode.
"""
import functools

import numpy as np
import pytest

import srcgrad as sg

EPS = 1e-6
X = np.array([0.3, -0.7, 1.1])
RS = np.random.RandomState(0)


def fd_grad(f, x):
    out = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = EPS
        out[i] = (f(x + e) - f(x - e)) / (2 * EPS)
    return out


def import_inside(x):
    import math as m
    from numpy import tanh
    import numpy.linalg
    return np.sum(tanh(x) * m.pi) + numpy.linalg.norm(x)


def import_in_a_helper(x):
    def h(t):
        from math import e
        return t * e
    return np.sum(h(x))


def errstate_block(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.log(np.abs(x)) * x
    return np.sum(y)


def with_as(x):
    with np.errstate(all="ignore") as state:
        z = np.sin(x) * (1.0 if state is not None else 2.0)
    return np.sum(z)


def star_target(x):
    a, *rest = x
    return a * np.sum(np.array(rest))


def star_in_the_middle(x):
    first, *mid, last = [x, x * 2.0, x * 3.0, x * 4.0]
    return np.sum(first * last + mid[0] * mid[1])


def star_literal(x):
    xs = [x, x * 2.0]
    return np.sum(sum([*xs, x * 3.0, *xs])) + np.sum((*xs, x)[2])


def takes_varargs(*args):
    return args[0] * 2.0 + args[1]


def takes_kwargs(**kwargs):
    return kwargs["a"] * kwargs["b"]


def star_call(x):
    xs = [x, x * x]
    return np.sum(takes_varargs(*xs))


def double_star_call(x):
    d = {"a": x, "b": 3.0}
    return np.sum(takes_kwargs(**d)) + np.sum(takes_kwargs(a=x, **{"b": x}))


def forwarding(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


@forwarding
def decorated(a, b=1.0):
    return np.sin(a) * b


def calls_a_decorated_function(x):
    return np.sum(decorated(x, b=2.0) + decorated(x * x))


def unzip(x):
    pairs = [(x[0], x[1]), (x[1], x[2]), (x[2], x[0])]
    a, b = zip(*pairs)
    return sum(a) * sum(b)


def random_shape(x):
    noise = RS.randn(*x.shape)
    return np.sum(x * x) + 0.0 * np.sum(noise)


CASES = [import_inside, import_in_a_helper, errstate_block, with_as, star_target,
         star_in_the_middle, star_literal, star_call, double_star_call,
         calls_a_decorated_function, unzip, random_shape]


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_reverse_matches_central_differences(f):
    np.testing.assert_allclose(sg.grad(f)(X.copy()), fd_grad(f, X), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_forward_matches_central_differences(f):
    v = np.array([0.5, -1.0, 2.0])
    _, tangent = sg.jvp(f, (X.copy(),), (v,))
    assert tangent == pytest.approx(float(fd_grad(f, X) @ v), rel=1e-6, abs=1e-8)


def test_with_block_leaves_the_state_as_it_found_it():
    before = np.geterr()
    sg.grad(errstate_block)(X)
    assert np.geterr() == before


def returns_inside_with(x):
    with np.errstate(all="ignore"):
        return np.sum(x)


def test_return_inside_a_with_block_is_refused_where_it_is_written():
    with pytest.raises(sg.UnsupportedSyntaxError, match="with") as e:
        sg.grad(returns_inside_with)(X)
    assert e.value.filename == __file__
