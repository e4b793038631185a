"""scipy.linalg of complex matrices: solves (every structure, transposed and conjugate
transposed), factorizations and structured constructors, end to end.

srcgrad's convention pairs a cotangent with a tangent as ``Re sum(g * t)``, so the adjoint
of a linear map is its plain transpose (a solve with ``A^H`` has the adjoint solve with
``conj(A)``).  Each loss is real, of a complex input; it is checked in float64 against
central differences along a random complex direction (reverse: ``Re sum(dz * grad)``;
forward: the jvp), and its second derivative (forward over reverse) against central
differences of the gradient.  Where torch has the function, the gradient is also
compared with torch's, which is the conjugate of this one.
"""
import numpy as np
import pytest

sl = pytest.importorskip("scipy.linalg")

import srcgrad as sg  # noqa: E402

try:
    import torch
except ImportError:          # the comparison with torch is optional
    torch = None

_rng = np.random.default_rng(11)


def _cz(*shape):
    return _rng.normal(size=shape) + 1j * _rng.normal(size=shape)


N = 4
_Z = _cz(N, N)
A = _Z + 3 * np.eye(N)                                # general
H = _Z @ np.conj(_Z).T + N * np.eye(N)                # Hermitian positive definite
S = _Z + _Z.T + 6 * np.eye(N)                         # complex symmetric
B = _cz(N, 2)
W = _rng.normal(size=(N, N))


def _loss(x):
    """A real function of a complex result that reads both its parts."""
    return np.sum(np.real(x) * W[:, :x.shape[1]]) + np.sum(np.imag(x) ** 2)


def solve_b(b):
    return _loss(sl.solve(A, b))


def solve_a(a):
    return _loss(sl.solve(a, B))


def solve_pos_a(a):
    return _loss(sl.solve(a, B, assume_a="pos"))


def solve_her_upper_a(a):
    return _loss(sl.solve(a, B, assume_a="her", lower=False))


def solve_sym_a(a):                   # complex symmetric: a^T = a, no conjugate
    return _loss(sl.solve(a, B, assume_a="sym"))


def triangular_a(a):
    return _loss(sl.solve_triangular(a, B, lower=True))


def triangular_conj_transposed_a(a):
    return _loss(sl.solve_triangular(a, B, trans=2, lower=True))


def triangular_conj_transposed_b(b):
    return _loss(sl.solve_triangular(A, b, trans="C"))


def lu_conj_transposed_a(a):
    return _loss(sl.lu_solve(sl.lu_factor(a), B, trans=2))


def lu_conj_transposed_b(b):
    return _loss(sl.lu_solve(sl.lu_factor(A), b, trans=2))


def cho_solve_b(b):
    return _loss(sl.cho_solve(sl.cho_factor(H), b))


def cho_solve_lower_a(a):
    return _loss(sl.cho_solve(sl.cho_factor(a, lower=True), B))


def cho_solve_upper_a(a):
    return _loss(sl.cho_solve(sl.cho_factor(a), B))


def cholesky_upper(a):
    return _loss(sl.cholesky(a))


def toeplitz_hermitian(a):            # r=None: the first row is conj(c)
    return _loss(sl.toeplitz(a[:, 0]))


def toeplitz_circulant(a):
    return _loss(sl.toeplitz(a[:, 0], a[0])) + _loss(sl.circulant(a[:, 1]))


def values_and_pinv(a):
    return (np.sum(sl.svdvals(a) * np.arange(N)) + np.sum(sl.eigvalsh(a @ np.conj(a).T) ** 2)
            + _loss(sl.pinv(a[:, :3]).T))


def hankel(a):                        # no conjugate, unlike toeplitz(c)
    return _loss(sl.hankel(a[:, 0], a[1]))


CASES = [(solve_b, B), (solve_a, A), (solve_pos_a, H), (solve_her_upper_a, H),
         (solve_sym_a, S), (triangular_a, A), (triangular_conj_transposed_a, A),
         (triangular_conj_transposed_b, B), (lu_conj_transposed_a, A),
         (lu_conj_transposed_b, B), (cho_solve_b, B), (cho_solve_lower_a, H),
         (cho_solve_upper_a, H), (cholesky_upper, H), (toeplitz_hermitian, A),
         (toeplitz_circulant, A), (values_and_pinv, A), (hankel, A)]


def _along(f, z, dz, eps=1e-6):
    return (f(z + eps * dz) - f(z - eps * dz)) / (2 * eps)


@pytest.mark.parametrize("f, z", CASES, ids=[f.__name__ for f, _ in CASES])
def test_complex_losses_to_second_order(f, z):
    dz = _cz(*z.shape)
    g = sg.grad(f)(z)
    assert g.shape == z.shape and np.iscomplexobj(g)
    fd = _along(f, z, dz)
    np.testing.assert_allclose(np.real(np.sum(dz * g)), fd, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(sg.jvp(f, (z,), (dz,))[1], fd, rtol=1e-6, atol=1e-8)
    gr = sg.grad(f)
    np.testing.assert_allclose(sg.jvp(gr, (z,), (dz,))[1], _along(gr, z, dz, eps=1e-5),
                               rtol=1e-5, atol=1e-7)


@pytest.mark.skipif(torch is None, reason="torch is not installed")
def test_solves_match_torch():
    def torch_loss(a, b):
        x = torch.linalg.solve(a, b) + torch.linalg.solve_triangular(
            torch.tril(a).mH, b, upper=True)
        return torch.sum(x.real * torch.tensor(W[:, :2])) + torch.sum(x.imag ** 2)

    def loss(a, b):
        x = sl.solve(a, b) + sl.solve_triangular(a, b, trans="C", lower=True)
        return _loss(x)
    at, bt = torch.tensor(A, requires_grad=True), torch.tensor(B, requires_grad=True)
    torch_loss(at, bt).backward()
    ga, gb = sg.grad(loss, wrt=("a", "b"))(A, B)
    np.testing.assert_allclose(ga, np.conj(at.grad.numpy()), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(gb, np.conj(bt.grad.numpy()), rtol=1e-8, atol=1e-10)
