"""NumPy functions added with the second-order work, in differentiated code: np.linalg.eig
(real matrices, real distinct eigenvalues), np.gradient, np.std / np.nanstd of constant
data (gradient 0, not NaN), np.trapezoid (w.r.t. the values and the sample points);
against central differences and autograd; refusals.

Rule by rule: tests/test_rules.py (tests/samples_numpy_kernels.py) and
tests/test_second_order_rules.py.
"""
import numpy as np
import pytest

import srcgrad as sg

try:
    import autograd
    import autograd.numpy as anp
except ImportError:          # the comparison with autograd is optional
    autograd = None

_rng = np.random.default_rng(21)
V = _rng.uniform(-1, 1, (3, 3)) + 2 * np.eye(3)
A = V @ np.diag([1.0, 2.0, 3.5]) @ np.linalg.inv(V)


def eig_loss(a):
    w, v = np.linalg.eig(a)
    return np.sum(w ** 2) + np.sum((v[0] * v[1]) ** 2)


def gradient_loss(f):
    gx, gy = np.gradient(f, 0.5, 2.0, edge_order=2)
    return np.sum(np.sin(gx) * gy) + np.sum(np.gradient(f[0]) ** 2)


def std_loss(x):
    return np.std(x) + np.nanstd(x, axis=0).sum() + x.std(axis=1).sum()


T_X = np.cumsum(_rng.uniform(0.1, 1.0, 5))      # uneven sample points


def trapezoid_y(y):
    return np.sum(np.trapezoid(np.sin(y), T_X) ** 2) + np.sum(np.trapezoid(y * y, dx=0.3, axis=0))


def trapezoid_x(x):
    return np.sum(np.trapezoid(np.cos(x) * x, x) ** 2)


def _central(f, x, eps=1e-6):
    out = np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        e = np.zeros_like(x)
        e[idx] = eps
        out[idx] = (f(x + e) - f(x - e)) / (2 * eps)
    return out


@pytest.mark.parametrize("f,x", [(eig_loss, A), (gradient_loss, _rng.uniform(-1, 1, (4, 5))),
                                 (trapezoid_y, _rng.uniform(-1, 1, (3, 5))),
                                 (trapezoid_x, np.sort(_rng.uniform(-1, 2, (2, 6)), axis=1))],
                         ids=["eig", "gradient", "trapezoid_y", "trapezoid_x"])
def test_first_and_second_derivatives(f, x):
    g = sg.grad(f)
    np.testing.assert_allclose(g(x), _central(f, x), rtol=1e-6, atol=1e-8)
    v = np.cos(np.arange(x.size)).reshape(x.shape)
    fd = (g(x + 1e-5 * v) - g(x - 1e-5 * v)) / 2e-5
    np.testing.assert_allclose(sg.hvp(f)(x, v=v), fd, rtol=1e-5, atol=1e-7)


@pytest.mark.skipif(autograd is None, reason="autograd is not installed")
def test_eig_matches_autograd():
    def theirs(a):
        w, v = anp.linalg.eig(a)
        return anp.sum(anp.real(w) ** 2) + anp.sum(anp.real(v[0] * v[1]) ** 2)
    np.testing.assert_allclose(sg.grad(eig_loss)(A), autograd.grad(theirs)(A), rtol=1e-8,
                               atol=1e-10)


def test_std_of_constant_data_has_zero_gradient():
    x = np.full((3, 4), 1.5)
    g = sg.grad(std_loss)(x)
    assert np.all(np.isfinite(g))
    np.testing.assert_allclose(g, _central(std_loss, x), atol=1e-8)
    np.testing.assert_array_equal(g, np.zeros_like(x))
    _, t = sg.jvp(std_loss, (x,), (np.cos(np.arange(12.0)).reshape(3, 4),))
    assert t == 0.0


def gradient_spacing(h):
    return np.sum(np.gradient(np.arange(5.0) ** 2, h))


# (complex spectra of real matrices differentiate: tests/test_rules_complex_decompositions.py)
def test_refusals():
    with pytest.raises(sg.NonDifferentiableError, match="spacing"):
        sg.grad(gradient_spacing)(0.5)
