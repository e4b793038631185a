"""scipy.integrate.odeint in differentiated code: gradients with respect to the initial
state, the time points and the parameters (``args=``) by the adjoint ODE method, the
user's dynamics differentiated by srcgrad; second derivatives (the adjoint kernel
differentiated again); forward over forward and reverse over forward (the sensitivity
equations differentiated again), and a third derivative; against central differences,
the forward mode and autograd's odeint.

Rule by rule: tests/test_rules.py (tests/samples_scipy_integrate.py).
"""
import numpy as np
import pytest

pytest.importorskip("scipy.integrate")
from scipy.integrate import odeint  # noqa: E402

import srcgrad as sg  # noqa: E402

try:
    import autograd
    import autograd.numpy as anp
    from autograd.builtins import tuple as autograd_tuple
    from autograd.scipy.integrate import odeint as autograd_odeint
except ImportError:          # the comparison with autograd is optional
    autograd = None

TOL = dict(rtol=1e-11, atol=1e-11)
T = np.linspace(0.0, 1.5, 5)
DATA = np.array([[1.0, 0.5], [0.9, 0.7], [0.7, 0.8], [0.6, 0.75], [0.55, 0.7]])


def predator_prey(y, t, theta):
    prey, pred = y[0], y[1]
    return np.array([theta[0] * prey - theta[1] * prey * pred,
                     -theta[2] * pred + theta[3] * prey * pred])


def fit_loss(theta, y0, t):
    ys = odeint(predator_prey, y0, t, args=(theta,), rtol=1e-11, atol=1e-11)
    return np.sum((ys - DATA) ** 2) + 0.1 * np.sum(ys[-1] ** 3)


THETA = np.array([1.0, 0.6, 0.9, 0.4])
Y0 = np.array([1.0, 0.5])


def _central(f, args, i, eps=1e-6):
    x = args[i]
    out = np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        e = np.zeros_like(x)
        e[idx] = eps
        hi, lo = list(args), list(args)
        hi[i], lo[i] = x + e, x - e
        out[idx] = (f(*hi) - f(*lo)) / (2 * eps)
    return out


@pytest.mark.parametrize("i", [0, 1, 2], ids=["args", "y0", "t"])
def test_gradient_matches_differences(i):
    args = (THETA, Y0, T)
    g = sg.grad(fit_loss, wrt=i)(*args)
    np.testing.assert_allclose(g, _central(fit_loss, args, i), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("i", [0, 1, 2], ids=["args", "y0", "t"])
def test_forward_matches_reverse(i):
    args = (THETA, Y0, T)
    v = np.cos(np.arange(args[i].size) + 0.5)
    _, dout = sg.jvp(fit_loss, args, tuple(v if j == i else None for j in range(3)))
    g = sg.grad(fit_loss, wrt=i)(*args)
    assert dout == pytest.approx(g @ v, rel=1e-6, abs=1e-9)


@pytest.mark.skipif(autograd is None, reason="autograd is not installed")
def test_matches_autograd_odeint():
    def dynamics(y, t, theta):
        prey, pred = y[0], y[1]
        return anp.array([theta[0] * prey - theta[1] * prey * pred,
                          -theta[2] * pred + theta[3] * prey * pred])

    def theirs(theta, y0):
        ys = autograd_odeint(dynamics, y0, T, autograd_tuple((theta,)), **TOL)
        return anp.sum((ys - DATA) ** 2) + 0.1 * anp.sum(ys[-1] ** 3)
    for i in (0, 1):
        ours = sg.grad(fit_loss, wrt=i)(THETA, Y0, T)
        np.testing.assert_allclose(ours, autograd.grad(theirs, i)(THETA, Y0), rtol=1e-6,
                                   atol=1e-8)
        np.testing.assert_allclose(sg.hessian(fit_loss, wrt=i)(THETA, Y0, T),
                                   autograd.hessian(theirs, i)(THETA, Y0), rtol=1e-6, atol=1e-8)


def full_output_loss(y0):
    ys, info = odeint(predator_prey, y0, T, args=(THETA,), full_output=1)
    return np.sum(ys)


def closure_decay(k):
    ys = odeint(lambda y, t: -k * y, np.array([1.0]), np.array([0.0, 1.0]))
    return ys[-1, 0]


def args_decay(k):
    ys = odeint(lambda y, t, rate: -rate * y, np.array([1.0]), np.array([0.0, 1.0]), args=(k,))
    return ys[-1, 0]


def test_refusals_are_located():
    with pytest.raises(sg.NonDifferentiableError, match="full_output"):
        sg.grad(full_output_loss)(Y0)
    # (a zero gradient before, no error: the closure's k was not seen)
    with pytest.raises(sg.NonDifferentiableError, match="args="):
        sg.grad(closure_decay)(1.5)
    with pytest.raises(sg.NonDifferentiableError, match="args="):
        sg.jvp(closure_decay, (1.5,), (1.0,))
    # the way out the message names
    assert sg.grad(args_decay)(1.5) == pytest.approx(-np.exp(-1.5), rel=1e-6)


@pytest.mark.parametrize("i", [0, 1, 2], ids=["args", "y0", "t"])
def test_second_derivatives_match_differences_of_the_gradient(i):
    # forward over reverse and reverse over reverse: the adjoint kernel differentiated
    args = (THETA, Y0, T)
    v = np.cos(np.arange(args[i].size) + 0.5)
    v = v - v[0] if i == 2 else v            # (t[0] fixed, so the time points stay ordered)
    g = sg.grad(fit_loss, wrt=i)

    def moved(eps):
        return tuple(a + eps * v if j == i else a for j, a in enumerate(args))
    fd = (g(*moved(1e-6)) - g(*moved(-1e-6))) / 2e-6
    np.testing.assert_allclose(sg.hvp(fit_loss, wrt=i)(*args, v=v), fd, rtol=1e-5, atol=1e-6)
    _, back = sg.vjp(g, *args, wrt=i)
    np.testing.assert_allclose(back(v), fd, rtol=1e-5, atol=1e-6)


# -- forward over forward, reverse over forward: the sensitivity equations differentiated --

def _moved(args, i, v, eps):
    return tuple(a + eps * v if j == i else a for j, a in enumerate(args))


def _vector(args, i, shift):
    v = np.cos(np.arange(np.size(args[i])) + 0.5 + shift)
    return v - v[0] if i == 2 else v         # (t[0] fixed: the time points stay ordered)


@pytest.mark.parametrize("outer", [0, 1, 2], ids=["outer-args", "outer-y0", "outer-t"])
@pytest.mark.parametrize("inner", [0, 1, 2], ids=["inner-args", "inner-y0", "inner-t"])
def test_jvp_of_jvp_and_grad_of_jvp_match_differences(inner, outer):
    args = (THETA, Y0, T)
    v, w = _vector(args, inner, 0.0), _vector(args, outer, 1.0)

    def tangent(theta, y0, t):
        return sg.jvp(fit_loss, (theta, y0, t), tuple(v if j == inner else None
                                                      for j in range(3)))[1]
    fd = (tangent(*_moved(args, outer, w, 1e-6)) -
          tangent(*_moved(args, outer, w, -1e-6))) / 2e-6
    _, ff = sg.jvp(tangent, args, tuple(w if j == outer else None for j in range(3)))
    assert ff == pytest.approx(fd, rel=1e-6, abs=1e-7)
    rf = sg.grad(tangent, wrt=outer)(*args)
    assert rf @ w == pytest.approx(fd, rel=1e-6, abs=1e-7)


def _scaled(y, t, k):
    return -k * y * y + np.sin(t)


def _tfirst(t, y, k, n):
    return k * y * (1.0 - y) + 0.1 * n * t


def scalar_loss(k, y0):
    ys = odeint(_scaled, y0, T, args=(k,), rtol=1e-11, atol=1e-11)
    return np.sum(ys ** 2)


def tfirst_loss(k, y0):
    ys = odeint(_tfirst, y0, T, args=(k, 2), tfirst=True, rtol=1e-11, atol=1e-11)
    return np.sum(np.sin(ys))


@pytest.mark.parametrize("loss", [scalar_loss, tfirst_loss])
def test_jvp_of_jvp_scalar_parameters_and_tfirst(loss):
    # a Python float parameter, an int one beside it, tfirst=True; against differences
    # of the tangent and against the Hessian (forward over reverse)
    k, y0 = 0.7, np.array([0.3, 0.6])
    dy0 = np.array([0.4, -0.2])

    def tangent(k, y0):
        return sg.jvp(loss, (k, y0), (None, dy0))[1]
    _, ff = sg.jvp(tangent, (k, y0), (1.0, None))
    fd = (tangent(k + 1e-6, y0) - tangent(k - 1e-6, y0)) / 2e-6
    assert ff == pytest.approx(fd, rel=1e-6, abs=1e-8)
    h = sg.hessian(loss, wrt=(0, 1))(k, y0)
    assert ff == pytest.approx(float(np.asarray(h[1][0]) @ dy0), rel=1e-6, abs=1e-8)
    assert sg.grad(tangent, wrt=0)(k, y0) == pytest.approx(fd, rel=1e-6, abs=1e-8)


def test_third_order_forward():
    # jvp of jvp of jvp: the sensitivity equations of the sensitivity equations, again
    def d1(k):
        return sg.jvp(scalar_loss, (k, np.array([0.3, 0.6])), (1.0, None))[1]

    def d2(k):
        return sg.jvp(d1, (k,), (1.0,))[1]
    fd = (d2(0.7 + 1e-4) - d2(0.7 - 1e-4)) / 2e-4
    assert sg.jvp(d2, (0.7,), (1.0,))[1] == pytest.approx(fd, rel=1e-5, abs=1e-7)
