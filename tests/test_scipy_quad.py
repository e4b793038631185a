"""scipy.integrate.quad in differentiated code: the limits (f(b), -f(a)) and the
parameters given in args= (the integral of the integrand's partial), reverse, forward and
second order against central differences; a closure over a differentiated value is
refused.  Also logsumexp(return_sign=True) with tangents in both a and b (the two
tangent terms were concatenated as tuples: a wrong forward derivative, no error)."""
import numpy as np
import pytest

import srcgrad as sg

pytest.importorskip("scipy.integrate")
from scipy.integrate import quad  # noqa: E402
from scipy.special import logsumexp  # noqa: E402


def integrand(x, k, c):
    return np.exp(-k * x * x) * np.sin(c * x + 0.3)


def loss(a, b, k, c):
    y, err = quad(integrand, a, b, args=(k, c), epsabs=1e-13, epsrel=1e-13)
    return y * y + y


ARGS = (0.2, 1.7, 0.8, 1.3)
H = 1e-5


def fd(f, args, i):
    p, m = list(args), list(args)
    p[i] += H
    m[i] -= H
    return (f(*p) - f(*m)) / (2 * H)


@pytest.mark.parametrize("i", range(4), ids=["a", "b", "k", "c"])
def test_reverse_and_forward(i):
    assert sg.grad(loss, wrt=i)(*ARGS) == pytest.approx(fd(loss, ARGS, i), rel=1e-7)
    t = tuple(1.0 if j == i else 0.0 for j in range(4))
    assert sg.jvp(loss, ARGS, t)[1] == pytest.approx(fd(loss, ARGS, i), rel=1e-7)


def test_forward_along_every_input_at_once():
    t = (0.3, -0.5, 0.7, 1.1)
    moved = lambda e: [x + e * d for x, d in zip(ARGS, t)]  # noqa: E731
    want = (loss(*moved(H)) - loss(*moved(-H))) / (2 * H)
    assert sg.jvp(loss, ARGS, t)[1] == pytest.approx(want, rel=1e-7)


@pytest.mark.parametrize("i", range(4), ids=["a", "b", "k", "c"])
def test_second_order(i):
    def g(a, b, k, c):
        return sg.grad(loss, wrt=i)(a, b, k, c)
    got = sg.grad(g, wrt=(0, 1, 2, 3))(*ARGS)
    np.testing.assert_allclose(got, [fd(g, ARGS, j) for j in range(4)], rtol=1e-5, atol=1e-7)


def closure_loss(k):
    return quad(lambda x: np.exp(-k * x), 0.0, 1.0)[0]


def test_closure_over_a_differentiated_value_is_refused():
    with pytest.raises(sg.NonDifferentiableError, match="args="):
        sg.grad(closure_loss)(0.7)
    with pytest.raises(sg.NonDifferentiableError, match="args="):
        sg.jvp(closure_loss, (0.7,), (1.0,))


def signed_lse(a, b):
    r, s = logsumexp(a, b=b, return_sign=True)
    return r * s


def test_logsumexp_pair_forward_with_both_tangents():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=3), rng.uniform(0.5, 1.0, 3)
    da, db = rng.normal(size=3), rng.normal(size=3)
    want = (signed_lse(a + 1e-6 * da, b + 1e-6 * db) -
            signed_lse(a - 1e-6 * da, b - 1e-6 * db)) / 2e-6
    assert sg.jvp(signed_lse, (a, b), (da, db))[1] == pytest.approx(want, rel=1e-6)
