"""Calls through the API: Python float arguments in the higher-order API, *args and
**kwargs passed on to the generated code."""
import numpy as np

import srcgrad as sg
from gradcheck_util import numeric_grad


def f(x, w):
    return np.sum(np.sin(x * w))


X = np.array([0.1, 0.2, 0.3])


def test_forward_jacobian_with_respect_to_a_float():
    jac = sg.jacobian(f, wrt=1, mode="forward")(X, 2.0)
    assert np.shape(jac) == ()
    assert np.isclose(jac, numeric_grad(f, (X, 2.0), 1), rtol=1e-6)


def test_gradcheck_with_a_float_argument():
    assert sg.gradcheck(f, X, 2.0)
    assert sg.gradcheck(f, X, 2.0, wrt=1)


def product(*xs):
    return np.sum(xs[0] * xs[1])


def scaled(a, *rest, scale=2.0, **extra):
    return np.sum(a * rest[0]) * scale + extra["c"]


def test_star_args_and_keywords_reach_the_generated_code():
    y = X * 3
    g = sg.grad(product, wrt=0)(X, y)
    assert isinstance(g, tuple) and np.allclose(g[0], y) and np.allclose(g[1], X)
    ga = sg.grad(scaled, wrt="a")(X, y, scale=3.0, c=1.0)
    assert np.allclose(ga, numeric_grad(lambda a: scaled(a, y, scale=3.0, c=1.0), (X,), 0))
    gs = sg.grad(scaled, wrt="scale")(X, y, scale=3.0, c=1.0)
    assert np.isclose(gs, numeric_grad(lambda s: scaled(X, y, scale=s, c=1.0), (3.0,), 0))
    value, (g_a, g_s) = sg.value_and_grad(scaled, wrt=("a", "scale"))(X, y, scale=3.0, c=1.0)
    assert np.isclose(value, scaled(X, y, scale=3.0, c=1.0)) and np.allclose(g_a, ga)
    out, vjp_fn = sg.vjp(scaled, X, y, scale=3.0, c=1.0, wrt="a")
    assert np.allclose(vjp_fn(1.0), ga)


# -- wrt=None: the floating-point arguments the call passes, not defaults it leaves ------

def _with_guess(a, guess=10.0):
    return a * 2.0 + guess * a


def test_wrt_none_does_not_count_a_default_the_call_did_not_pass():
    assert sg.grad(_with_guess)(2.0) == 12.0                 # d/da only (autograd, JAX)
    assert sg.grad(_with_guess)(2.0, 3.0) == (5.0, 2.0)      # both passed
    assert sg.grad(_with_guess)(2.0, guess=3.0) == (5.0, 2.0)
    assert sg.grad(sg.grad(_with_guess))(2.0) == 0.0
