"""Objects built inside a differentiated function, differentiated again in forward mode:
``sg.jvp`` of ``sg.jvp`` (and ``sg.grad`` of ``sg.jvp``, ``sg.jvp`` of ``sg.grad``) of a
function that builds a plain-class instance and a dataclass in its body and reads their
attributes and methods, to the third order; and the first-order tangent of such an object when only some of
the arguments it is built from have one (its other fields' tangents are zeros that index
as the fields do).

Expected values: autograd's Hessian of the same function written without objects, and
central differences of srcgrad's own first derivative (itself checked against
differences of the function).
"""
from dataclasses import dataclass

import numpy as np
import pytest

import srcgrad as sg

autograd = pytest.importorskip("autograd")
anp = autograd.numpy


class Layer:
    def __init__(self, W, b, scale=1.5):
        self.W = W
        self.b = b
        self.scale = scale
        self.k = 2

    def __call__(self, x):
        return np.tanh(self.scale * (x @ self.W) + self.b)


@dataclass
class Gauss:
    mu: float
    log_s: float

    def logp(self, x):
        return -0.5 * ((x - self.mu) / np.exp(self.log_s)) ** 2 - self.log_s


def net(x, W, b):
    layer = Layer(W, b=b)
    g = Gauss(mu=x[0], log_s=0.1 * x[1])
    return np.sum(layer(x) ** 2) + g.logp(x[1]) + layer.b[0] * g.mu


def net_autograd(x, W, b):
    h = anp.tanh(1.5 * anp.dot(x, W) + b)
    mu, log_s = x[0], 0.1 * x[1]
    return anp.sum(h ** 2) + (-0.5 * ((x[1] - mu) / anp.exp(log_s)) ** 2 - log_s) + b[0] * mu


_rs = np.random.RandomState(0)
X, W, B = _rs.randn(3), _rs.randn(3, 3), _rs.randn(3)
U, V = _rs.randn(3), _rs.randn(3)


def along_u(x):
    return sg.jvp(lambda y: net(y, W, B), (x,), (U,))[1]


def grad_along_u(x):
    return np.sum(sg.grad(net, wrt=0)(x, W, B) * U)


def along_ones_of_w(w):
    return sg.jvp(lambda m: net(X, m, B), (w,), (np.ones_like(w),))[1]


def central(fn, x, v, h=1e-5):
    return (fn(x + h * v) - fn(x - h * v)) / (2 * h)


def test_first_order_tangent_when_one_argument_of_the_object_has_none():
    """Layer(W, b) with a tangent for W only: layer.b[0]'s tangent is a zero that
    indexes (a TypeError from the tangent code before: 'float' is not subscriptable)."""
    ones = np.ones_like(W)
    got = sg.jvp(lambda m: net(X, m, B), (W,), (ones,))[1]
    expected = np.sum(autograd.grad(net_autograd, 1)(X, W, B) * ones)
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    np.testing.assert_allclose(got, central(lambda m: net(X, m, B), W, ones), rtol=1e-7)


def test_jvp_of_jvp_through_objects_built_inside():
    hess = autograd.hessian(net_autograd)(X, W, B)
    value, got = sg.jvp(along_u, (X,), (V,))
    np.testing.assert_allclose(value, U @ autograd.grad(net_autograd)(X, W, B), rtol=1e-12)
    np.testing.assert_allclose(got, V @ hess @ U, rtol=1e-10)
    np.testing.assert_allclose(got, central(along_u, X, V), rtol=1e-6)


def test_jvp_of_jvp_along_the_matrix_the_object_holds():
    dw = 0.3 * W
    got = sg.jvp(along_ones_of_w, (W,), (dw,))[1]
    hess = autograd.hessian(net_autograd, 1)(X, W, B)
    np.testing.assert_allclose(got, np.einsum("ijkl,ij,kl", hess, dw, np.ones_like(W)),
                               rtol=1e-10)
    np.testing.assert_allclose(got, central(along_ones_of_w, W, dw), rtol=1e-6)


def test_grad_of_jvp_and_jvp_of_grad_through_objects_built_inside():
    hess = autograd.hessian(net_autograd)(X, W, B)
    np.testing.assert_allclose(sg.grad(along_u)(X), hess @ U, rtol=1e-10)
    np.testing.assert_allclose(sg.jvp(grad_along_u, (X,), (V,))[1], V @ hess @ U, rtol=1e-10)


def _along_v(x):
    return sg.jvp(along_u, (x,), (V,))[1]


def test_third_order_through_an_object_built_inside():
    """jvp of jvp of jvp, and hvp of a grad, through objects built inside: the object's
    two linear maps (built_pieces_grad, built_tangent) have rules (refused before,
    naming them)."""
    third = autograd.jacobian(autograd.hessian(net_autograd))(X, W, B)
    got = sg.jvp(_along_v, (X,), (U,))[1]
    np.testing.assert_allclose(got, np.einsum("ijk,i,j,k", third, U, V, U), rtol=1e-9)
    np.testing.assert_allclose(got, central(_along_v, X, U), rtol=1e-6)
    np.testing.assert_allclose(sg.hvp(grad_along_u)(X, v=V), np.einsum("ijk,j,k", third, V, U),
                               rtol=1e-9)
