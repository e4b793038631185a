"""Rule fixes seen only end to end (the gradient's structure, a convention at a boundary),
through sg.grad / sg.jvp / second order, against central differences and autograd.

Rule by rule the same functions are in tests/test_rules.py's samples; what the table test
cannot see is checked here: the type and shape of the gradient the user gets, and a
derivative at a point where a naive formula raises or gives NaN.
"""
import numpy as np
import pytest

import srcgrad as sg

try:
    import autograd
    import autograd.numpy as anp
except ImportError:          # the comparison with autograd is optional
    autograd = None

_rng = np.random.default_rng(7)


def _central(f, x, eps=1e-6):
    x = np.asarray(x, dtype=float)
    out = np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        e = np.zeros_like(x)
        e[idx] = eps
        out[idx] = (f(x + e) - f(x - e)) / (2 * eps)
    return out


def _check_all_orders(f, x, rtol=1e-6):
    """Reverse, forward and forward-over-reverse against central differences."""
    g = sg.grad(f)(x)
    assert isinstance(g, np.ndarray) and g.shape == x.shape, (type(g), np.shape(g))
    np.testing.assert_allclose(g, _central(f, x), rtol=rtol, atol=1e-8)
    t = np.cos(np.arange(x.size)).reshape(x.shape)
    _, dout = sg.jvp(f, (x,), (t,))
    fd = (f(x + 1e-6 * t) - f(x - 1e-6 * t)) / 2e-6
    np.testing.assert_allclose(dout, fd, rtol=rtol, atol=1e-8)
    gr = sg.grad(f)
    fd2 = (gr(x + 1e-5 * t) - gr(x - 1e-5 * t)) / 2e-5
    np.testing.assert_allclose(sg.hvp(f)(x, v=t), fd2, rtol=1e-5, atol=1e-7)


# -- a join given one array: NumPy joins its rows; the gradient is one array ------------
W = {n: _rng.uniform(-1, 1, 12) for n in range(3)}


def vstack_1d(x):
    return np.sum(np.sin(np.vstack(x)) * W[0][:3].reshape(3, 1))


def vstack_2d(x):
    return np.sum(np.sin(np.vstack(x)) * W[0][:6].reshape(2, 3))


def hstack_2d(x):
    return np.sum(np.sin(np.hstack(x)) * W[1][:6])


def column_stack_1d(x):
    return np.sum(np.sin(np.column_stack(x)) * W[2][:3])


def concatenate_3d(x):
    return np.sum(np.sin(np.concatenate(x, axis=1)) * W[1][:8].reshape(2, 4))


def stack_axis1(x):
    return np.sum(np.sin(np.stack(x, axis=1)) * W[2][:6].reshape(2, 3))


JOINS = [(vstack_1d, (3,)), (vstack_2d, (2, 3)), (hstack_2d, (2, 3)),
         (column_stack_1d, (3,)), (concatenate_3d, (2, 2, 2)), (stack_axis1, (3, 2))]


@pytest.mark.parametrize("f,shape", JOINS, ids=[f.__name__ for f, _ in JOINS])
def test_join_of_one_array_has_an_array_gradient(f, shape):
    _check_all_orders(f, _rng.uniform(-1, 1, shape))


@pytest.mark.skipif(autograd is None, reason="autograd is not installed")
def test_join_of_one_array_matches_autograd():
    x = _rng.uniform(-1, 1, (2, 3))
    theirs = autograd.grad(lambda x: anp.sum(anp.sin(anp.vstack(x)) * W[0][:6].reshape(2, 3)))
    np.testing.assert_allclose(sg.grad(vstack_2d)(x), theirs(x), rtol=1e-12)


# -- x ** 0: its derivative is 0 everywhere, x == 0 included (autograd, JAX) ------------
def power_zero(x):
    return np.power(x, 0.0)


def pow_operator_zero(x):
    return x ** 0.0


def power_array_exponent(x):
    return np.sum(np.power(x, np.array([0.0, 2.0, 0.0])))


@pytest.mark.parametrize("f", [power_zero, pow_operator_zero])
def test_power_of_zero_exponent_at_zero(f):
    assert sg.grad(f)(0.0) == 0.0
    assert sg.grad(sg.grad(f))(0.0) == 0.0
    assert sg.jvp(f, (0.0,), (1.0,))[1] == 0.0
    assert (f(1e-6) - f(-1e-6)) / 2e-6 == 0.0          # central differences agree


def test_power_with_zero_entries_in_the_exponent():
    x = np.array([0.0, 0.7, 0.0])
    g = sg.grad(power_array_exponent)(x)
    np.testing.assert_allclose(g, _central(power_array_exponent, x), atol=1e-8)
    np.testing.assert_array_equal(g, [0.0, 1.4, 0.0])
    _check_all_orders(power_array_exponent, np.array([0.5, 0.7, 1.5]))
    if autograd is not None:
        theirs = autograd.grad(lambda x: anp.sum(anp.power(x, anp.array([0.0, 2.0, 0.0]))))
        np.testing.assert_allclose(g, theirs(x), rtol=1e-12)


def powers_of_x(x):
    return np.sum(np.power(x, np.array([0.0, 1.0, 2.0, 3.0])))


def pow_of_both(x, y):
    return np.sum(x ** y)


def test_power_at_zero_to_the_third_order():
    # at x == 0 the k-th derivative of sum(x ** [0, 1, 2, 3]) is k! in entry k: x ** 0
    # stays constant and x ** 1 linear at every order (each entry of x is its own term,
    # so the gradient of the previous order's sum is the next order)
    x = np.zeros(4)
    g1 = sg.grad(powers_of_x)

    def sum_g1(x):
        return np.sum(g1(x))
    g2 = sg.grad(sum_g1)

    def sum_g2(x):
        return np.sum(g2(x))
    g3 = sg.grad(sum_g2)
    np.testing.assert_allclose(g1(x), _central(powers_of_x, x), atol=1e-8)
    np.testing.assert_allclose(g2(x), _central(sum_g1, x), atol=1e-6)
    np.testing.assert_allclose(g3(x), _central(sum_g2, x), atol=1e-5)
    np.testing.assert_array_equal(g3(x), [0.0, 0.0, 0.0, 6.0])
    _, t = sg.jvp(g1, (x,), (np.ones(4),))
    np.testing.assert_allclose(t, _central(sum_g1, x), atol=1e-6)


def test_power_mixed_derivative_at_a_zero_exponent():
    # d/dy d/dx x ** y = x ** (y - 1) (1 + y log x): 1 / x at y == 0 (a zero-exponent fix
    # that edits the exponent, such as x ** where(y == 0, 1, y - 1), gives x instead)
    x, y = np.array([0.5, 2.0, 1.5]), np.array([0.0, 0.0, 1.0])
    gx = sg.grad(pow_of_both, wrt=0)
    mixed = sg.jacobian(gx, wrt=1)(x, y)
    fd = np.stack([_central(lambda y: gx(x, y)[i], y) for i in range(3)])
    np.testing.assert_allclose(mixed, fd, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(np.diag(mixed)[:2], 1 / x[:2], rtol=1e-12)
    hx = sg.hessian(pow_of_both, wrt=(0, 1))(x, y)
    np.testing.assert_allclose(hx[0][1], mixed.T, rtol=1e-10)


def test_power_of_zero_exponent_on_the_array_api():
    xp = pytest.importorskip("array_api_strict")

    def f(x):
        return xp.sum(x ** 0.0 + x ** 2.0)
    x = xp.asarray([0.0, 0.5, -1.0])
    g = np.asarray(sg.grad(f)(x))
    np.testing.assert_allclose(g, _central(lambda v: np.sum(v ** 0.0 + v ** 2.0),
                                           np.array([0.0, 0.5, -1.0])), atol=1e-8)
    h = np.asarray(sg.grad(lambda x: xp.sum(sg.grad(f)(x)))(x))
    np.testing.assert_allclose(h, [2.0, 2.0, 2.0], rtol=1e-12)


# -- an integer cast of a differentiated value is an index: no gradient, at every order --
def make_cast_loss(weights):
    def rows_loss(w):
        rows = np.int64(w[:, -1])          # the last column holds row numbers
        return np.sum(np.sin(w[:, :-1][rows]) * weights)

    def loss(w):                           # (a callee held by a closure: its split form)
        return rows_loss(w)
    return loss


def test_integer_cast_second_order():
    cast_loss = make_cast_loss(W[1][:3])
    w = _rng.uniform(-1, 1, (4, 4))
    w[:, -1] = [1.5, 0.5, 3.5, 2.5]    # (away from the integers: the cast is constant near w)
    g = sg.grad(cast_loss)(w)
    np.testing.assert_allclose(g, _central(cast_loss, w), rtol=1e-6, atol=1e-8)
    t = np.cos(np.arange(16.0)).reshape(4, 4)
    gr = sg.grad(cast_loss)
    second = sg.grad(lambda w: np.sum(sg.grad(cast_loss)(w) * t))(w)
    np.testing.assert_allclose(second, _central(lambda w: np.sum(gr(w) * t), w), rtol=1e-5,
                               atol=1e-7)


# -- complex inputs: right (the gradient d/dRe - i d/dIm) or refused, never a wrong number
_Z = _rng.uniform(-1, 1, (3, 3)) + 1j * _rng.uniform(-1, 1, (3, 3))
_DZ = _rng.uniform(-1, 1, (3, 3)) + 1j * _rng.uniform(-1, 1, (3, 3))


def _complex_directional(f, z, dz, eps=1e-6):
    """(reverse, forward, central difference) of a real f along dz at complex z."""
    g = sg.grad(f)(z)
    _, t = sg.jvp(f, (z,), (dz,))
    return float(np.real(np.sum(g * dz))), t, (f(z + eps * dz) - f(z - eps * dz)) / (2 * eps)


def vdot_loss(z):
    return np.real(np.vdot(z, z @ W[0][:9].reshape(3, 3)))


def logabsdet(z):
    return np.linalg.slogdet(z)[1]


def norms(z):
    return np.linalg.norm(z) + np.sum(np.linalg.norm(z, 3, axis=0) ** 2) + \
        np.linalg.norm(z, 1) + np.sum(np.linalg.norm(z, np.inf, axis=1))


def variances(z):
    return np.var(z) + np.sum(np.std(z, axis=1) ** 3) + np.sum(np.var(z, axis=0, ddof=1))


@pytest.mark.parametrize("f", [vdot_loss, logabsdet, norms, variances])
def test_complex_input_against_central_differences(f):
    rev, fwd, fd = _complex_directional(f, _Z, _DZ)
    np.testing.assert_allclose([rev, fwd], [fd, fd], rtol=1e-6, atol=1e-9)


@pytest.mark.skipif(autograd is None, reason="autograd is not installed")
def test_complex_vdot_matches_autograd():
    u = W[0][:9].reshape(3, 3)
    # (autograd has no vdot rule: the same sum, written out)
    theirs = autograd.grad(lambda z: anp.real(anp.sum(anp.conj(z) * anp.dot(z, u))))
    np.testing.assert_allclose(sg.grad(vdot_loss)(_Z), theirs(_Z), rtol=1e-12)


@pytest.mark.parametrize("norms", [norms, variances])
def test_complex_norms_second_order(norms):
    gr = sg.grad(norms)
    fd = (np.real(np.sum(gr(_Z + 1e-5 * _DZ) * _DZ)) -
          np.real(np.sum(gr(_Z - 1e-5 * _DZ) * _DZ))) / 2e-5
    second = sg.grad(lambda z: np.real(np.sum(sg.grad(norms)(z) * _DZ)))(_Z)
    np.testing.assert_allclose(np.real(np.sum(second * _DZ)), fd, rtol=1e-6)
    if autograd is not None and norms.__name__ == "norms":  # (autograd: no matrix 1-norm
        # derivative, NaN for the inf one)
        theirs = autograd.grad(lambda z: anp.linalg.norm(z) + anp.sum(anp.linalg.norm(
            z, 3, axis=0) ** 2))
        mine = sg.grad(lambda z: np.linalg.norm(z) + np.sum(np.linalg.norm(z, 3, axis=0) ** 2))
        np.testing.assert_allclose(mine(_Z), theirs(_Z), rtol=1e-10)


# (complex svd, eigh, eig, qr, cholesky and the spectral norms:
# tests/test_rules_complex_decompositions.py)
REAL_ONLY = {
    "nanvar": (lambda z: np.nanvar(z), _Z),
}


@pytest.mark.parametrize("name", sorted(REAL_ONLY))
def test_complex_input_of_a_real_only_rule_is_refused(name):
    f, z = REAL_ONLY[name]
    with pytest.raises(sg.NonDifferentiableError, match="real"):
        sg.grad(f)(z)
    with pytest.raises(sg.NonDifferentiableError, match="real"):
        sg.jvp(f, (z,), (_DZ,))
    real = np.real(z)                              # (real input: unchanged, and right)
    g = sg.grad(f)(real)
    np.testing.assert_allclose(g, _central(f, real), rtol=1e-5, atol=1e-7)


# -- the n-D real FFTs ------------------------------------------------------------------
def rfftn_loss(x):
    return np.sum(np.abs(np.fft.rfftn(x, s=(4, 6), axes=(0, 2))) ** 2 * 0.1) + \
        np.sum(np.real(np.fft.rfft2(x)[0]) * W[0][:3].reshape(3, 1))


def irfftn_loss(x):
    return np.sum(np.sin(np.fft.irfftn(np.fft.rfftn(x) * 1.5)) * W[1][:1]) + \
        np.sum(np.fft.irfft2(np.fft.rfft2(x), s=(3, 4)) ** 2)


@pytest.mark.parametrize("f", [rfftn_loss, irfftn_loss])
def test_real_nd_fft(f):
    _check_all_orders(f, _rng.uniform(-1, 1, (3, 3, 4)))


@pytest.mark.skipif(autograd is None, reason="autograd is not installed")
def test_real_nd_fft_matches_autograd():
    x = _rng.uniform(-1, 1, (4, 4))
    theirs = autograd.grad(lambda x: anp.sum(anp.real(anp.fft.rfft2(x)) * anp.arange(12.0)
                                             .reshape(4, 3)) + anp.sum(anp.fft.irfftn(
                                                 anp.fft.rfftn(x)) ** 3))
    mine = sg.grad(lambda x: np.sum(np.real(np.fft.rfft2(x)) * np.arange(12.0).reshape(4, 3))
                   + np.sum(np.fft.irfftn(np.fft.rfftn(x)) ** 3))
    np.testing.assert_allclose(mine(x), theirs(x), rtol=1e-10)


# -- scipy.stats.multivariate_normal: a singular cov (allow_singular), the entropy's mean --
st = pytest.importorskip("scipy.stats")
_SING = np.diag([1.0, 1.0, 0.0, 0.0])
_MEAN = np.array([0.3, -0.2, 0.0, 0.0])


def singular_logpdf(x, mean):
    x = np.concatenate([x[:2], mean[2:]])        # (x stays on the support)
    return st.multivariate_normal.logpdf(x, mean, _SING, allow_singular=True)


def singular_pdf(x, mean):
    x = np.concatenate([x[:2], mean[2:]])
    return st.multivariate_normal.pdf(x, mean, _SING, allow_singular=True)


@pytest.mark.parametrize("f", [singular_logpdf, singular_pdf])
def test_mvn_singular_cov(f):
    x = np.array([0.5, 0.1, 0.0, 0.0])
    gx, gm = sg.grad(f, wrt=(0, 1))(x, _MEAN)
    np.testing.assert_allclose(gx, _central(lambda x: f(x, _MEAN), x), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(gm, _central(lambda m: f(x, m), _MEAN), rtol=1e-6, atol=1e-9)
    # cov: along the changes that keep its range (off it the density changes dimension)
    dc = np.zeros((4, 4))
    dc[:2, :2] = [[0.3, 0.1], [0.1, -0.2]]
    of_cov = lambda c: st.multivariate_normal.logpdf(x, _MEAN, c, allow_singular=True)  # noqa
    fd = (of_cov(_SING + 1e-6 * dc) - of_cov(_SING - 1e-6 * dc)) / 2e-6
    np.testing.assert_allclose(np.sum(sg.grad(of_cov)(_SING) * dc), fd, rtol=1e-6)


def test_mvn_entropy_mean_has_zero_gradient():
    cov = np.array([[2.0, 0.3], [0.3, 1.0]])
    entropy = lambda mean, cov: st.multivariate_normal.entropy(mean, cov)  # noqa: E731
    gm, gc = sg.grad(entropy, wrt=(0, 1))(np.array([1.0, -2.0]), cov)
    np.testing.assert_array_equal(gm, np.zeros(2))
    np.testing.assert_allclose(gc, _central(lambda c: st.multivariate_normal.entropy(None, c),
                                            cov), rtol=1e-6)


# -- scipy.linalg.solve_sylvester and solve_banded (autograd has both) ------------------
@pytest.mark.skipif(autograd is None, reason="autograd is not installed")
def test_sylvester_and_banded_match_autograd():
    import autograd.scipy.linalg as asl
    sl = pytest.importorskip("scipy.linalg")
    a, b, q = (_rng.uniform(-1, 1, (3, 3)) + 3 * np.eye(3) for _ in range(3))
    mine = sg.grad(lambda a, b, q: np.sum(np.sin(sl.solve_sylvester(a, b, q))), wrt=(0, 1, 2))
    theirs = autograd.grad(lambda a, b, q: anp.sum(anp.sin(asl.solve_sylvester(a, b, q))),
                           (0, 1, 2))
    for m, t in zip(mine(a, b, q), theirs(a, b, q)):
        np.testing.assert_allclose(m, t, rtol=1e-10)
    ab = _rng.uniform(-1, 1, (3, 5))
    ab[1] += 3.0
    rhs = _rng.uniform(-1, 1, 5)
    mine = sg.grad(lambda ab, r: np.sum(np.sin(sl.solve_banded((1, 1), ab, r))), wrt=(0, 1))
    theirs = autograd.grad(lambda ab, r: anp.sum(anp.sin(asl.solve_banded((1, 1), ab, r))),
                           (0, 1))
    for m, t in zip(mine(ab, rhs), theirs(ab, rhs)):
        np.testing.assert_allclose(m, t, rtol=1e-10, atol=1e-12)


# -- np.real_if_close: the real part where the imaginary parts are negligible ------------
def real_if_close_loss(x):
    z = np.fft.ifft(np.fft.fft(x))            # complex, imaginary parts ~1e-17
    return np.sum(np.sin(np.real_if_close(z)) * W[2][:4])


def test_real_if_close_of_a_round_trip():
    x = _rng.uniform(-1, 1, 4)
    assert not np.iscomplexobj(np.real_if_close(np.fft.ifft(np.fft.fft(x))))
    _check_all_orders(real_if_close_loss, x)


# -- a Python complex scalar argument: the gradient d/dRe - i d/dIm, as for complex arrays --
def _wirtinger_central(f, z, eps=1e-6):
    return ((f(z + eps) - f(z - eps)) - 1j * (f(z + 1j * eps) - f(z - 1j * eps))) / (2 * eps)


COMPLEX_SCALAR = [lambda z: np.real(np.sin(z)), lambda z: np.abs(z), lambda z: np.angle(z),
                  lambda z: np.real(z * z + np.exp(z)), lambda z: np.imag(np.log(z) * z)]


@pytest.mark.parametrize("i", range(len(COMPLEX_SCALAR)))
def test_python_complex_scalar_argument(i):
    f, z = COMPLEX_SCALAR[i], 0.4 + 0.3j
    g = sg.grad(f, wrt=0)(z)
    np.testing.assert_allclose(g, _wirtinger_central(f, z), rtol=1e-7)
    _, t = sg.jvp(f, (z,), (0.3 - 0.2j,))
    np.testing.assert_allclose(t, (f(z + 1e-6 * (0.3 - 0.2j)) - f(z - 1e-6 * (0.3 - 0.2j)))
                               / 2e-6, rtol=1e-7)
    if autograd is not None:
        theirs = [lambda z: anp.real(anp.sin(z)), lambda z: anp.abs(z), lambda z: anp.angle(z),
                  lambda z: anp.real(z * z + anp.exp(z)), lambda z: anp.imag(anp.log(z) * z)][i]
        np.testing.assert_allclose(g, autograd.grad(theirs)(z), rtol=1e-10)
