"""Forward over forward (``sg.jvp`` of ``sg.jvp``) and reverse over forward (``sg.grad``
of ``sg.jvp``) through the rules whose forward kernel is a function srcgrad differentiates
again (einsum, quantile w.r.t. q, ptp, pad's constant, gradient, circulant, eigh), against
central differences of the first tangent.

The rule table's second-order test (tests/test_second_order_rules.py) checks forward over
reverse and reverse over reverse; this one the two orders that start forward.
"""
import numpy as np
import pytest

import srcgrad as sg

sl = pytest.importorskip("scipy.linalg")

A = np.array([[1.0, 0.4, 0.2], [0.3, 1.5, 0.1], [0.2, 0.1, 2.0]])
X = np.array([0.3, 1.2, 2.1, 0.7])


def f_einsum(a):
    return np.sum(np.einsum("ij,jk->ik", a, a) ** 2)


def f_gradient(a):
    return np.sum(np.gradient(a ** 2) ** 2)


def f_pad(a):
    return np.sum(np.pad(a ** 2, 1, constant_values=0.5) ** 2)


def f_pad_constant(a):
    return np.sum(np.pad(X, 1, constant_values=a[0] ** 2) ** 3)


def f_quantile_q(q):
    return np.sum(np.quantile(np.array([1.0, 4.0, 2.0, 7.0]), q) ** 3)


def f_ptp(a):
    return np.ptp(a ** 2) ** 2


def f_circulant(c):
    return np.sum(sl.circulant(c ** 2) ** 2)


def f_eigh(a):
    return np.sum(sl.eigh(a @ a.T)[0] ** 3)


CASES = [(f_einsum, A), (f_gradient, X), (f_pad, X), (f_pad_constant, np.array([0.8])),
         (f_quantile_q, np.array([0.3, 0.55])), (f_ptp, X), (f_circulant, X), (f_eigh, A)]


@pytest.mark.parametrize("f,x", CASES, ids=[f.__name__ for f, _ in CASES])
def test_jvp_of_jvp_and_grad_of_jvp_match_differences(f, x):
    v = np.cos(np.arange(x.size)).reshape(x.shape)
    w = np.sin(np.arange(x.size) + 1.0).reshape(x.shape)

    def tangent(a):
        return sg.jvp(f, (a,), (v,))[1]
    fd = (tangent(x + 1e-5 * w) - tangent(x - 1e-5 * w)) / 2e-5
    assert sg.jvp(tangent, (x,), (w,))[1] == pytest.approx(fd, rel=1e-6, abs=1e-8)
    assert np.sum(sg.grad(tangent)(x) * w) == pytest.approx(fd, rel=1e-6, abs=1e-8)
