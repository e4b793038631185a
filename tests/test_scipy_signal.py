"""scipy.signal convolutions in differentiated code: a 2-D filter loss through convolve,
correlate and fftconvolve (modes full / same / valid), gradient and Hessian-vector
product vs central differences, autograd's convolve, float32 kept, refusals.

The rules one by one: tests/test_rules.py (tests/samples_scipy_signal.py) and
tests/test_second_order_rules.py.
"""
import numpy as np
import pytest

ss = pytest.importorskip("scipy.signal")
from scipy.signal import fftconvolve  # noqa: E402

import srcgrad as sg  # noqa: E402

try:
    import autograd
    import autograd.numpy as anp
    import autograd.scipy.signal as asig
except ImportError:          # the comparison with autograd is optional
    autograd = None

_rng = np.random.default_rng(9)
IMAGE = _rng.uniform(-1, 1, (6, 5))
TARGET = _rng.uniform(-1, 1, (6, 5))


def filter_loss(k):
    y = ss.convolve(IMAGE, k, mode="same")
    z = ss.correlate(np.tanh(y), k, mode="valid")
    w = fftconvolve(z, k * k, mode="full")
    return np.sum((y - TARGET) ** 2) + np.sum(np.sin(z)) + np.sum(w ** 2)


def signal_loss(x):
    return np.sum(ss.convolve(x, np.array([0.5, -1.0, 2.0]), "full") ** 3) + \
        np.sum(ss.correlate(x, x, "same") ** 2)


FIR = np.array([0.5, 0.3, -0.2])
POLES = np.array([1.2, -0.4, 0.1])
SIGNALS = _rng.uniform(-1, 1, (2, 9))


def lfilter_x(x):
    return np.sum(ss.lfilter(FIR, POLES, x) ** 3) + np.sum(np.sin(ss.lfilter(FIR, 1.0, x, 0)))


def lfilter_coefficients(c):
    y = ss.lfilter(c[:3], np.concatenate(([1.0], c[3:])), SIGNALS, axis=-1)
    return np.sum(np.tanh(y)) + np.sum(ss.lfilter(c[3:], c[:2], y[0]) ** 2)


K = _rng.uniform(-1, 1, (3, 2))
X = _rng.uniform(-1, 1, 7)


def _central(f, x, eps=1e-6):
    out = np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        e = np.zeros_like(x)
        e[idx] = eps
        out[idx] = (f(x + e) - f(x - e)) / (2 * eps)
    return out


@pytest.mark.parametrize("f,x", [(filter_loss, K), (signal_loss, X), (lfilter_x, SIGNALS),
                                 (lfilter_coefficients, np.array([0.5, 0.3, -0.2, -0.4, 0.1]))],
                         ids=["2d", "1d", "lfilter_x", "lfilter_b_a"])
def test_gradient_and_hessian_vector(f, x):
    g = sg.grad(f)
    np.testing.assert_allclose(g(x), _central(f, x), rtol=1e-6, atol=1e-8)
    v = np.cos(np.arange(x.size)).reshape(x.shape)
    fd = (g(x + 1e-5 * v) - g(x - 1e-5 * v)) / 2e-5
    np.testing.assert_allclose(sg.hvp(f)(x, v=v), fd, rtol=1e-5, atol=1e-7)
    _, vjp = sg.vjp(g, x)
    np.testing.assert_allclose(vjp(v), fd, rtol=1e-5, atol=1e-7)


@pytest.mark.skipif(autograd is None, reason="autograd is not installed")
def test_convolve_matches_autograd():
    def ours(k):
        return np.sum(np.sin(ss.convolve(IMAGE, k, mode="valid")))

    def theirs(k):
        return anp.sum(anp.sin(asig.convolve(IMAGE, k, mode="valid")))
    np.testing.assert_allclose(sg.grad(ours)(K), autograd.grad(theirs)(K), rtol=1e-10,
                               atol=1e-12)


def test_float32_stays_float32():
    assert sg.grad(filter_loss)(K.astype(np.float32)).dtype == np.float32


def fft_axes(x):
    return np.sum(fftconvolve(x, x, axes=0))


def test_lfilter_with_initial_conditions_is_refused():
    def with_zi(x):
        y, _ = ss.lfilter(FIR, POLES, x, zi=np.zeros(2))
        return np.sum(y ** 2)
    with pytest.raises(sg.NonDifferentiableError, match="zi"):
        sg.grad(with_zi)(X)
    with pytest.raises(sg.NonDifferentiableError, match="zi"):
        sg.jvp(with_zi, (X,), (np.ones_like(X),))


def test_fftconvolve_axes_is_refused():
    with pytest.raises(sg.NonDifferentiableError, match="axes"):
        sg.grad(fft_axes)(K)


_W = _rng.normal(size=16)


def _complex_loss(y):
    return np.sum(np.real(y) * np.resize(_W, np.shape(y))) + np.sum(np.imag(y) ** 2)


def _cz(n):
    return _rng.normal(size=n) + 1j * _rng.normal(size=n)


@pytest.mark.parametrize("func", [ss.convolve, ss.correlate, fftconvolve],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_complex_inputs_to_second_order(func, mode):
    """Complex signals (correlate conjugates its second input): reverse (paired as
    Re sum(dz * grad)), forward and forward-over-reverse against central differences
    along complex directions, for each input."""
    x, k = _cz(7), _cz(3)
    for f, z in [(lambda u: _complex_loss(func(u, k, mode=mode)), x),
                 (lambda u: _complex_loss(func(x, u, mode=mode)), k)]:
        dz, eps = _cz(z.size), 1e-6
        fd = (f(z + eps * dz) - f(z - eps * dz)) / (2 * eps)
        gr = sg.grad(f)
        np.testing.assert_allclose(np.real(np.sum(dz * gr(z))), fd, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(sg.jvp(f, (z,), (dz,))[1], fd, rtol=1e-6, atol=1e-8)
        fd2 = (gr(z + 1e-5 * dz) - gr(z - 1e-5 * dz)) / 2e-5
        np.testing.assert_allclose(sg.jvp(gr, (z,), (dz,))[1], fd2, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("func", [ss.convolve2d, ss.correlate2d], ids=lambda f: f.__name__)
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("complex_", [False, True], ids=["real", "complex"])
def test_2d_functions_to_second_order(func, mode, complex_):
    """convolve2d / correlate2d (correlate2d's 'same' window is not correlate's) against
    central differences, each input, real and complex, forward over reverse too."""
    def draw(*shape):
        x = _rng.normal(size=shape)
        return x + 1j * _rng.normal(size=shape) if complex_ else x
    a, b = draw(5, 4), draw(2, 3)
    for f, z in [(lambda u: _complex_loss(func(u, b, mode=mode)), a),
                 (lambda u: _complex_loss(func(a, u, mode)), b)]:
        dz, eps = draw(*z.shape), 1e-6
        fd = (f(z + eps * dz) - f(z - eps * dz)) / (2 * eps)
        gr = sg.grad(f)
        np.testing.assert_allclose(np.real(np.sum(dz * gr(z))), fd, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(sg.jvp(f, (z,), (dz,))[1], fd, rtol=1e-6, atol=1e-8)
        fd2 = (gr(z + 1e-5 * dz) - gr(z - 1e-5 * dz)) / 2e-5
        np.testing.assert_allclose(sg.jvp(gr, (z,), (dz,))[1], fd2, rtol=1e-5, atol=1e-7)


def test_2d_boundaries_other_than_zero_fill_are_refused():
    for kw in (dict(boundary="wrap"), dict(boundary="symm"), dict(fillvalue=1.0)):
        with pytest.raises(sg.NonDifferentiableError, match="fillvalue=0 only"):
            sg.grad(lambda u: np.sum(ss.convolve2d(u, np.ones((2, 2)), "same", **kw)))(IMAGE)
