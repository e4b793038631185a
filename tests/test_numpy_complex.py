"""Complex values on the way to a real result: abs / real / imag / angle / conj of complex
intermediates and numpy.fft round trips, in both modes and to second order, against
central differences, autograd and torch.

Rule by rule: tests/test_rules.py (tests/samples_numpy_spectral.py).
"""
import numpy as np
import pytest

import srcgrad as sg

try:
    import autograd
    import autograd.numpy as anp
except ImportError:          # the comparison with autograd is optional
    autograd = None
try:
    import torch
except ImportError:
    torch = None

X = np.array([0.7, -1.2, 0.4, 2.0, -0.3, 0.9])
KERNEL = np.array([1.0, 0.5j, -0.25, 0.1 - 0.2j, 0.3, 1j])


def scaled_abs(x):
    return np.sum(np.abs(x * (1 + 2j)) ** 3)


def parts(x):
    z = x * (0.5 - 1.5j) + 1j * x ** 2
    return np.sum(np.real(z) * np.imag(z)) + np.sum(np.angle(z + 0.1)) + np.sum(np.conj(z).imag)


def filtered(x):
    return np.sum(np.abs(np.fft.ifft(np.fft.fft(x) * KERNEL)) ** 2)


def spectrum_power(x):
    f = np.fft.rfft(x * x, n=8, norm="ortho")
    return np.sum(np.real(f * np.conj(f))) + np.sum(np.fft.irfft(f * (1 + 0.5j), n=6) ** 3)


def image(x):
    m = np.reshape(x, (2, 3))
    f = np.fft.fftshift(np.fft.fft2(m * m))
    return np.sum(np.abs(np.fft.ifftn(f * np.fft.ifftshift(f))))


def attribute_parts(x):
    z = np.fft.fft(np.sin(x))
    return np.sum(z.real ** 2 - z.imag) + np.sum(z.conj().imag ** 2)


FUNCTIONS = [scaled_abs, parts, filtered, spectrum_power, image, attribute_parts]


def _central(f, x, eps=1e-6):
    out = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = eps
        out[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return out


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_gradient_and_tangent_match_differences(f):
    fd = _central(f, X)
    g = sg.grad(f)(X)
    assert g.dtype == np.float64
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-7)
    v = np.cos(np.arange(X.size) + 0.3)
    _, t = sg.jvp(f, (X,), (v,))
    assert np.isrealobj(t)
    assert t == pytest.approx(fd @ v, rel=1e-6, abs=1e-7)


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_second_order_matches_differences_of_the_gradient(f):
    v = np.cos(np.arange(X.size) + 0.3)
    g = sg.grad(f)
    fd = (g(X + 1e-6 * v) - g(X - 1e-6 * v)) / 2e-6
    h = sg.hvp(f)(X, v=v)
    assert np.isrealobj(h)
    np.testing.assert_allclose(h, fd, rtol=1e-5, atol=1e-6)
    _, back = sg.vjp(g, X)
    np.testing.assert_allclose(back(v), fd, rtol=1e-5, atol=1e-6)



@pytest.mark.skipif(autograd is None, reason="autograd is not installed")
def test_matches_autograd():
    def theirs(x):
        return anp.sum(anp.abs(anp.fft.ifft(anp.fft.fft(x) * KERNEL)) ** 2) + \
            anp.sum(anp.abs(x * (1 + 2j)) ** 3)
    ours = sg.grad(filtered)(X) + sg.grad(scaled_abs)(X)
    assert np.isrealobj(ours)
    np.testing.assert_allclose(ours, autograd.grad(theirs)(X), rtol=1e-10, atol=1e-12)


@pytest.mark.skipif(torch is None, reason="torch is not installed")
def test_matches_torch():
    def theirs(x):
        f = torch.fft.rfft(x * x, n=8, norm="ortho")
        return torch.sum(torch.real(f * torch.conj(f))) + \
            torch.sum(torch.fft.irfft(f * (1 + 0.5j), n=6) ** 3)
    x = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    theirs(x).backward()
    np.testing.assert_allclose(sg.grad(spectrum_power)(X), x.grad.numpy(), rtol=1e-10,
                               atol=1e-12)


def test_complex_argument_gradient_is_autograds():
    # a complex parameter: the gradient is d/dRe - i d/dIm (the convention of autograd
    # and JAX); checked on both parts by differences
    def f(z):
        return np.sum(np.abs(np.fft.fft(z)) ** 2 * np.array([1.0, 2.0, 0.5]))
    z = np.array([0.3 + 0.2j, -0.5 + 1j, 0.8 - 0.1j])
    g = sg.grad(f)(z)
    d_re = _central(lambda r: f(r + 1j * z.imag), z.real)
    d_im = _central(lambda i: f(z.real + 1j * i), z.imag)
    np.testing.assert_allclose(g, d_re - 1j * d_im, rtol=1e-6, atol=1e-7)


# -- a Python complex scalar as the argument: the gradient d/dRe - i d/dIm, complex ------

PY_COMPLEX = [lambda z: np.abs(z), lambda z: np.real(np.sin(z)), lambda z: np.angle(z),
              lambda z: np.abs(np.exp(z) * z), lambda z: np.imag(z ** 2 + 2.0 * z)]


@pytest.mark.parametrize("k", range(len(PY_COMPLEX)))
def test_a_python_complex_argument(k):
    f, z, e = PY_COMPLEX[k], 1.1 + 1.2j, 1e-6
    g = sg.grad(f)(z)
    assert isinstance(g, complex)
    d_re = (f(z + e) - f(z - e)) / (2 * e)
    d_im = (f(z + 1j * e) - f(z - 1j * e)) / (2 * e)
    np.testing.assert_allclose([g.real, g.imag], [d_re, -d_im], rtol=1e-6, atol=1e-9)
    _, t = sg.jvp(f, (z,), (1j,))
    np.testing.assert_allclose(t, d_im, rtol=1e-6, atol=1e-9)
    if autograd is not None:
        a = {0: anp.abs, 2: anp.angle}.get(k)
        if a is not None:
            np.testing.assert_allclose(g, autograd.grad(a)(z), rtol=1e-12)


def test_the_gradient_of_a_complex_argument_is_complex_where_it_is_real():
    g = sg.grad(lambda x: np.sum(np.real(x)))(1j)
    assert isinstance(g, complex) and g == 1


_rng = np.random.default_rng(12)
_W = _rng.normal(size=16)


def _cz(*shape):
    return _rng.normal(size=shape) + 1j * _rng.normal(size=shape)


def _loss(y):
    return np.sum(np.real(y) * np.resize(_W, np.shape(y))) + np.sum(np.imag(y) ** 2)


V, K = _cz(5), _cz(3)
SIGNALS = [(lambda a: _loss(np.convolve(a, K, "same")), V), (lambda b: _loss(np.convolve(V, b)), K),
           (lambda a: _loss(np.correlate(a, K)), V),      # correlate conjugates its second input
           (lambda b: _loss(np.correlate(V, b, "full")), K),
           (lambda b: _loss(np.correlate(b, V, "same")), K)]


def _along(f, z, dz, eps=1e-6):
    return (f(z + eps * dz) - f(z - eps * dz)) / (2 * eps)


@pytest.mark.parametrize("k", range(len(SIGNALS)))
def test_complex_convolve_and_correlate_to_second_order(k):
    f, z = SIGNALS[k]
    dz = _cz(*z.shape)
    gr = sg.grad(f)
    np.testing.assert_allclose(np.real(np.sum(dz * gr(z))), _along(f, z, dz), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(sg.jvp(f, (z,), (dz,))[1], _along(f, z, dz), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(sg.jvp(gr, (z,), (dz,))[1], _along(gr, z, dz, 1e-5),
                               rtol=1e-5, atol=1e-7)


def signed_logdet(a):
    sign, logabs = np.linalg.slogdet(a)
    return 2 * np.real(sign) + np.imag(sign) ** 2 + logabs


def test_the_sign_of_a_complex_determinant_differentiates():
    """sign = det / |det| of a complex matrix turns with Im tr(a^-1 da) (it was given a
    zero derivative); its second derivative is refused in reverse mode."""
    a, dz = _cz(3, 3), _cz(3, 3)
    fd = _along(signed_logdet, a, dz)
    np.testing.assert_allclose(np.real(np.sum(dz * sg.grad(signed_logdet)(a))), fd, rtol=1e-6)
    np.testing.assert_allclose(sg.jvp(signed_logdet, (a,), (dz,))[1], fd, rtol=1e-6)

    def slope(u):
        return sg.jvp(signed_logdet, (u,), (dz,))[1]
    np.testing.assert_allclose(sg.jvp(slope, (a,), (dz,))[1], _along(slope, a, dz, 1e-5), rtol=1e-5)
    with pytest.raises(sg.NonDifferentiableError, match="sign"):
        sg.jvp(sg.grad(signed_logdet), (a,), (dz,))


@pytest.mark.skipif(not hasattr(np, "vecmat"), reason="NumPy < 2.2")
@pytest.mark.parametrize("k", range(3))
def test_vecdot_and_vecmat_of_complex_arguments(k):
    """They conjugate their first argument: forward mode is right (against central
    differences); reverse mode refuses complex operands."""
    x, a = _cz(3), _cz(3, 3)
    f, z = [(lambda u: _loss(np.vecdot(u, x)), x), (lambda u: _loss(np.vecdot(x, u)), x),
            (lambda u: _loss(np.vecmat(u, a)), x)][k]
    dz = _cz(*z.shape)
    np.testing.assert_allclose(sg.jvp(f, (z,), (dz,))[1], _along(f, z, dz), rtol=1e-6, atol=1e-8)
    with pytest.raises(sg.NonDifferentiableError, match="conjugates"):
        sg.grad(f)(z)
