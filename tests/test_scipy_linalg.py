"""scipy.linalg in differentiated code: whole functions (a Gaussian-process marginal
likelihood, a matrix-function chain), gradients and Hessians against central
differences and autograd, float32 kept, and the refusals (never a silent zero).

The rules one by one are checked in tests/test_rules.py (tests/samples_scipy_linalg.py)
and to second order in tests/test_second_order_rules.py.
"""
import numpy as np
import pytest

sl = pytest.importorskip("scipy.linalg")
from scipy.linalg import cho_factor, cho_solve, solve_triangular  # noqa: E402

import srcgrad as sg  # noqa: E402

try:
    import autograd
    import autograd.numpy as anp
    import autograd.scipy.linalg as asl
except ImportError:          # the comparison with autograd is optional
    autograd = None

_rng = np.random.default_rng(5)
X = _rng.uniform(-1, 1, (6, 2))
Y = np.sin(X[:, 0]) + 0.3 * X[:, 1]


def gp_nll(theta):
    """Negative log marginal likelihood of a GP with a squared-exponential kernel."""
    d = X[:, None, :] - X[None, :, :]
    k = theta[0] ** 2 * np.exp(-0.5 * np.sum(d * d, axis=-1) / theta[1] ** 2)
    k = k + (theta[2] ** 2 + 1e-6) * np.eye(len(Y))
    c, low = cho_factor(k, lower=True)
    alpha = cho_solve((c, low), Y)
    logdet = 2.0 * np.sum(np.log(np.diag(c)))
    return 0.5 * Y @ alpha + 0.5 * logdet


def gp_nll_triangular(theta):
    d = X[:, None, :] - X[None, :, :]
    k = theta[0] ** 2 * np.exp(-0.5 * np.sum(d * d, axis=-1) / theta[1] ** 2)
    k = k + (theta[2] ** 2 + 1e-6) * np.eye(len(Y))
    low = sl.cholesky(k, lower=True)
    z = solve_triangular(low, Y, lower=True)
    return 0.5 * z @ z + np.sum(np.log(np.diag(low)))


def matrix_chain(a):
    e = sl.expm(0.3 * a)
    s = sl.sqrtm(e @ e.T + np.eye(3))
    lg = sl.logm(s)
    return np.sum(lg * a) + sl.det(s) + np.sum(sl.inv(s + np.eye(3)))


def lu_chain(a, b):
    lu = sl.lu_factor(a)
    x = sl.lu_solve(lu, b)
    y = sl.solve(a, b, assume_a="gen", transposed=True)
    return np.sum(x * y) + np.sum(sl.toeplitz(b[:, 0], b[:, 1]) ** 2) + \
        np.sum(sl.circulant(b[:, 0]) * a)


def decompositions(a):
    w, v = sl.eigh(a @ a.T + 3 * np.eye(3))
    u, s, vt = sl.svd(a, full_matrices=False)
    q, r = sl.qr(a, mode="economic")
    blocks = sl.block_diag(a, s, 2.0)
    return np.sum(w ** 2) + np.sum(np.abs(v[0] * v[1])) + np.sum(s ** 3) + np.sum(r ** 2) \
        + np.sum(np.abs(u[0] * vt[1])) + np.sum(blocks ** 2) + np.sum(np.abs(q[:, 0] * q[:, 1]))


THETA = np.array([1.2, 0.7, 0.3])
A3 = _rng.uniform(-1, 1, (3, 3)) + 2.5 * np.eye(3)
B32 = _rng.uniform(-1, 1, (3, 2))

CASES = [
    pytest.param(gp_nll, (THETA,), 0, id="gp_cho_factor"),
    pytest.param(gp_nll_triangular, (THETA,), 0, id="gp_solve_triangular"),
    pytest.param(matrix_chain, (0.5 * A3,), 0, id="expm_sqrtm_logm"),
    pytest.param(lu_chain, (A3, B32), 0, id="lu_chain_a"),
    pytest.param(lu_chain, (A3, B32), 1, id="lu_chain_b"),
    pytest.param(decompositions, (A3,), 0, id="eigh_svd_qr"),
]


def _central(f, args, i, eps=1e-6):
    x = args[i]
    out = np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        e = np.zeros_like(x)
        e[idx] = eps
        hi = list(args)
        lo = list(args)
        hi[i], lo[i] = x + e, x - e
        out[idx] = (f(*hi) - f(*lo)) / (2 * eps)
    return out


@pytest.mark.parametrize("f,args,i", CASES)
def test_gradient_matches_differences(f, args, i):
    g = sg.grad(f, wrt=i)(*args)
    np.testing.assert_allclose(g, _central(f, args, i), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f,args,i", CASES)
def test_forward_matches_reverse(f, args, i):
    t = np.cos(np.arange(args[i].size)).reshape(args[i].shape)
    tangents = tuple(t if j == i else None for j in range(len(args)))
    _, dout = sg.jvp(f, args, tangents)
    g = sg.grad(f, wrt=i)(*args)
    assert dout == pytest.approx(np.sum(g * t), rel=1e-9, abs=1e-11)


@pytest.mark.parametrize("f,args,i", CASES)
def test_hessian_vector_matches_differences_of_the_gradient(f, args, i):
    v = np.sin(np.arange(args[i].size) + 1.0).reshape(args[i].shape)
    g = sg.grad(f, wrt=i)
    eps = 1e-5
    hi, lo = list(args), list(args)
    hi[i], lo[i] = args[i] + eps * v, args[i] - eps * v
    fd = (g(*hi) - g(*lo)) / (2 * eps)
    hv = sg.hvp(f, wrt=i)(*args, v=v)
    np.testing.assert_allclose(hv, fd, rtol=1e-5, atol=1e-7)


@pytest.mark.skipif(autograd is None, reason="autograd is not installed")
def test_gp_gradient_and_hessian_match_autograd():
    def theirs(theta):
        d = X[:, None, :] - X[None, :, :]
        k = theta[0] ** 2 * anp.exp(-0.5 * anp.sum(d * d, axis=-1) / theta[1] ** 2)
        k = k + (theta[2] ** 2 + 1e-6) * anp.eye(len(Y))
        low = anp.linalg.cholesky(k)           # (autograd has no scipy.linalg.cholesky vjp)
        z = asl.solve_triangular(low, Y, lower=True)
        return 0.5 * anp.dot(z, z) + anp.sum(anp.log(anp.diag(low)))
    np.testing.assert_allclose(sg.grad(gp_nll_triangular)(THETA), autograd.grad(theirs)(THETA),
                               rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(sg.grad(gp_nll)(THETA), autograd.grad(theirs)(THETA),
                               rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(sg.hessian(gp_nll)(THETA), autograd.hessian(theirs)(THETA),
                               rtol=1e-7, atol=1e-10)


def nearly_singular_cholesky(a):
    return np.sum(np.sin(sl.cholesky(a @ a.T + 1e-4 * np.eye(3), lower=True)))


def test_cholesky_of_a_nearly_singular_matrix():
    q, _ = np.linalg.qr(_rng.uniform(-1, 1, (3, 3)))
    a = q @ np.diag([1e-2, 1.0, 1.5])
    g = sg.grad(nearly_singular_cholesky)(a)
    np.testing.assert_allclose(g, _central(nearly_singular_cholesky, (a,), 0, eps=1e-8),
                               rtol=1e-4, atol=1e-6)


def test_float32_stays_float32():
    g = sg.grad(gp_nll)(THETA.astype(np.float32))
    assert g.dtype == np.float32
    g = sg.grad(matrix_chain)((0.5 * A3).astype(np.float32))
    assert g.dtype == np.float32


def toeplitz_batch(c):
    return np.sum(sl.toeplitz(c))


def qr_pivoting(a):
    q, r, p = sl.qr(a, pivoting=True)
    return np.sum(r)


def eigh_generalized(a):
    return np.sum(sl.eigh(a, np.eye(3), eigvals_only=True))


def solve_banded_kind(a):
    return np.sum(sl.solve(a, np.ones(3), assume_a="tridiagonal"))


@pytest.mark.parametrize("f,x,match", [
    (toeplitz_batch, np.ones((2, 3)), "1-D input only"),
    (qr_pivoting, A3, "pivoting"),
    (eigh_generalized, A3 @ A3.T, "generalized"),
    (solve_banded_kind, A3, "tridiagonal"),
])
def test_unsupported_calls_are_refused(f, x, match):
    with pytest.raises(sg.NonDifferentiableError, match=match):
        sg.grad(f)(x)


# -- the principal square root of a real matrix with negative eigenvalues is complex --
NEG = np.array([[-1.5, 0.4, 0.2], [0.4, 1.2, -0.3], [0.2, -0.3, -0.8]])   # eigenvalues -+
U3, V3, D3 = (_rng.normal(size=(3, 3)) for _ in range(3))


def complex_root(a):
    s = sl.sqrtm(0.5 * (a + a.T))
    return np.sum(np.real(s) * U3) + np.sum(np.imag(s) * V3)


def test_complex_square_root_to_second_order():
    assert np.iscomplexobj(sl.sqrtm(NEG)) and np.min(np.linalg.eigvalsh(NEG)) < 0
    along = lambda f, a, e: (f(a + e * D3) - f(a - e * D3)) / (2 * e)   # noqa: E731
    g = sg.grad(complex_root)(NEG)
    assert g.dtype == np.float64
    np.testing.assert_allclose(np.sum(g * D3), along(complex_root, NEG, 1e-6), rtol=1e-6)
    np.testing.assert_allclose(sg.jvp(complex_root, (NEG,), (D3,))[1],
                               along(complex_root, NEG, 1e-6), rtol=1e-6)

    def slope(a):
        return np.sum(sg.grad(complex_root)(a) * D3)
    # (the block identity on a matrix with negative eigenvalues gave 1e13 here)
    np.testing.assert_allclose(np.sum(sg.grad(slope)(NEG) * D3), along(slope, NEG, 1e-5),
                               rtol=1e-5)
    np.testing.assert_allclose(sg.jvp(slope, (NEG,), (D3,))[1], along(slope, NEG, 1e-5),
                               rtol=1e-5)
