"""Derivatives of derivatives through objects built inside the differentiated function
(``layer = Dense(W, b)``), and through array namespaces passed as arguments.

The constructor's record is data: the routes from the new object's arrays to the
arguments that are those arrays, and two linear maps between their gradients
(``construct_back`` and its transpose ``construct_push``), each with a rule; so grad of
grad, hvp and hessian follow the object.  Checked against central differences of
srcgrad's gradient (itself checked against differences) and against autograd.
"""
import numpy as np
import pytest

import srcgrad as sg

try:
    import autograd
    import autograd.numpy as anp
except ImportError:       # pragma: no cover - autograd is a test extra
    autograd = anp = None


class Dense:
    def __init__(self, W, b, scale=1.0):
        self.W = W
        self.b = b
        self.scale = scale

    def __call__(self, x):
        return np.tanh(x @ self.W + self.b) * self.scale

    def forward(self, x):
        return self(x)


class Pair:
    def __init__(self, a, b):
        self.a = a
        self.b = b


def mlp_loss(W, b, x):
    layer = Dense(W, b)
    return np.sum(layer.forward(x) ** 2)


def fields_only(a, b, x):
    p = Pair(a, b)
    return (p.a * x + p.b) ** 2 * p.a


def two_objects(W, b, x):
    first = Dense(W, b)
    second = Dense(W.T, b, scale=0.5)
    return np.sum(second(first(x)) ** 2)


class Scaled(Dense):
    """A property read by a method (on self) and by the caller (on the object)."""

    @property
    def gain(self):
        return np.sum(self.W ** 2) + np.tanh(self.b[0])

    def __call__(self, x):
        return np.tanh(x @ self.W + self.b) * self.gain


def property_in_a_method(W, b, x):
    layer = Scaled(W, b)
    return np.sum(layer(x) ** 2)


def property_of_a_built_object(W, b, x):
    layer = Scaled(W, b)
    return np.sum(layer.forward(x)) * layer.gain


def _fd_of_grad(g, args, i, v, h=1e-5):
    up, dn = list(args), list(args)
    up[i] = args[i] + h * v
    dn[i] = args[i] - h * v
    return (np.asarray(g(*up)) - np.asarray(g(*dn))) / (2 * h)


RNG = np.random.default_rng(3)
W = RNG.normal(size=(2, 2)) * 0.5
B = RNG.normal(size=2) * 0.3
X = RNG.normal(size=(3, 2))

CASES = [("mlp_loss", mlp_loss, (W, B, X)), ("fields_only", fields_only, (0.7, 1.3, 0.4)),
         ("two_objects", two_objects, (W, B, X)),
         # (a second derivative through a property was refused before)
         ("property_in_a_method", property_in_a_method, (W, B, X)),
         ("property_of_a_built_object", property_of_a_built_object, (W, B, X))]


@pytest.mark.parametrize("name, f, args", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("i", [0, 1])
def test_hvp_and_grad_of_grad(name, f, args, i):
    v = RNG.normal(size=np.shape(args[i])) if np.ndim(args[i]) else 1.0
    g = sg.grad(f, wrt=i)
    expected = _fd_of_grad(g, args, i, v)
    np.testing.assert_allclose(sg.hvp(f, wrt=i)(*args, v=v), expected, rtol=1e-6, atol=1e-8)
    before, after = args[:i], args[i + 1:]
    rr = sg.grad(lambda y: np.sum(g(*before, y, *after) * v))(args[i])
    np.testing.assert_allclose(rr, expected, rtol=1e-6, atol=1e-8)
    # the cross derivative: d/d(the other argument) of the gradient along v
    j = 1 - i
    u = RNG.normal(size=np.shape(args[j])) if np.ndim(args[j]) else 1.0

    def directional(a0, a1, x):
        return np.sum(g(a0, a1, x) * v)
    cross = sg.grad(directional, wrt=j)(*args)
    h = 1e-5
    up, dn = list(args), list(args)
    up[j] = args[j] + h * u
    dn[j] = args[j] - h * u
    expected_cross = (directional(*up) - directional(*dn)) / (2 * h)
    np.testing.assert_allclose(np.sum(cross * u), expected_cross, rtol=1e-6, atol=1e-8)


@pytest.mark.skipif(autograd is None, reason="autograd is not installed")
def test_hessian_against_autograd():
    def twin(W):
        layer_W, layer_b = W, B
        return anp.sum(anp.tanh(anp.dot(X, layer_W) + layer_b) ** 2)
    got = sg.hessian(lambda W: mlp_loss(W, B, X))(W)
    np.testing.assert_allclose(got, autograd.hessian(twin)(W), rtol=1e-9, atol=1e-12)


# -- a namespace passed as an argument ------------------------------------------------------
def with_a_namespace(x, xp=np):
    return xp.sum(xp.tanh(x) ** 2)


def with_a_namespace_passed(x, lib):
    return lib.mean(lib.exp(x))


def with_a_namespace_bound(x):
    xp = np
    return xp.sum(xp.tanh(x) ** 2)


def test_a_namespace_argument_is_a_module_not_an_array():
    """``xp.sum(y)`` of ``xp=np`` is NumPy's sum, not the method ``y.sum`` of an array
    named xp (np has np.shape, so it looked like one: a zero gradient, silently)."""
    x = np.array([0.3, -0.5, 1.1])
    t = np.tanh(x)
    np.testing.assert_allclose(sg.grad(with_a_namespace)(x), 2 * t * (1 - t ** 2))
    np.testing.assert_allclose(sg.grad(with_a_namespace_passed, wrt=0)(x, np), np.exp(x) / 3)
    np.testing.assert_allclose(sg.grad(with_a_namespace_bound)(x), 2 * t * (1 - t ** 2))
    _, dout = sg.jvp(with_a_namespace, (x,), (np.ones(3),))
    np.testing.assert_allclose(dout, np.sum(2 * t * (1 - t ** 2)))
