"""np.linalg.svd / eigh / eig / cholesky / qr / pinv and the spectral norms of complex
matrices, end to end.

A complex matrix's singular and eigenvectors come with free phases (LAPACK picks them),
so only losses that do not read the phases have a derivative: ``np.abs(u)``, the values,
``u * s @ vh``, projectors ``v @ conj(v).T``.  Each such loss is checked in float64 against
central differences along a random complex direction (reverse: ``Re sum(dz * grad)``, the
pairing of srcgrad's and autograd's convention; forward: the jvp), to second order
(reverse over reverse and forward over reverse), and against torch, whose gradient is the
conjugate of this one.  A loss that reads the phases is refused by the reverse sweep.
cholesky and qr leave no phase free (their factors' diagonals are real), so any loss of
them differentiates.
"""
import numpy as np
import pytest

import srcgrad as sg

try:
    import torch
except ImportError:          # the comparison with torch is optional
    torch = None

_rng = np.random.default_rng(5)


def _cz(*shape):
    return _rng.normal(size=shape) + 1j * _rng.normal(size=shape)


W = {k: _rng.normal(size=64) for k in range(4)}


def _w(x, k):
    return W[k][:x.size].reshape(x.shape)


def svd_vectors(z):
    u, s, vh = np.linalg.svd(z, full_matrices=False)
    return np.sum(np.abs(u) * _w(u, 0)) + np.sum(s * _w(s, 1)) + np.sum(np.abs(vh) * _w(vh, 2))


def svd_values(z):
    return np.sum(np.linalg.svd(z, compute_uv=False) * _w(np.zeros(3), 1))


def svd_values_of_the_full_form(z):
    s = np.linalg.svd(z)[1]                       # full_matrices=True, only s used
    return np.sum(s ** 2 * _w(s, 2))


def svd_low_rank(z):
    u, s, vh = np.linalg.svd(z, full_matrices=False)
    approx = (u[:, :2] * s[:2]) @ vh[:2, :]
    return np.sum(np.real(approx) * _w(approx, 3)) + np.sum(np.imag(approx) ** 2)


def eigh_lower(z):
    w, v = np.linalg.eigh(z)
    return np.sum(w * _w(w, 0)) + np.sum(np.abs(v) * _w(v, 1))


def eigh_upper_projector(z):
    w, v = np.linalg.eigh(z, "U")
    p = v[:, :2] @ np.conj(v[:, :2]).T
    return np.sum(np.real(p) * _w(p, 2)) + np.sum(np.imag(p) * _w(p, 3)) + np.sum(w ** 2)


def eig_vectors(z):
    w, v = np.linalg.eig(z)
    return np.sum(np.real(w) * _w(w, 0)) + np.sum(np.imag(w) * _w(w, 1)) + \
        np.sum(np.abs(v) * _w(v, 2))


def eig_of_real(x):
    w, v = np.linalg.eig(x)                        # complex pairs of a real matrix
    return np.sum(np.abs(w) * _w(w, 0)) + np.sum(np.abs(v) * _w(v, 3))


def spectral_norms(z):
    return np.linalg.norm(z, "nuc") + np.linalg.norm(z, 2) ** 2 + np.linalg.norm(z, -2)


def nuclear_axes(z):
    return np.sum(np.linalg.norm(z, "nuc", axis=(0, 2)) * _w(np.zeros(4), 0))


def cholesky_lower(z):
    c = np.linalg.cholesky(z)                     # reads the lower triangle, Re of the diagonal
    return np.sum(np.real(c) * _w(c, 0)) + np.sum(np.imag(c) * _w(c, 1))


def cholesky_upper(z):
    c = np.linalg.cholesky(z, upper=True)
    return np.sum(np.real(c) * _w(c, 2)) + np.sum(np.imag(c) ** 2 * _w(c, 1))


def qr_reduced(z):
    q, r = np.linalg.qr(z)
    return (np.sum(np.real(q) * _w(q, 0)) + np.sum(np.imag(q) * _w(q, 1)) +
            np.sum(np.real(r) * _w(r, 2)) + np.sum(np.imag(r) * _w(r, 3)))


def qr_r_only(z):
    r = np.linalg.qr(z, mode="r")
    return np.sum(np.abs(r) ** 2 * _w(r, 0)) + np.sum(np.imag(r) * _w(r, 1))


def qr_complete_square(z):
    q, r = np.linalg.qr(z, mode="complete")
    return np.sum(np.real(q) * _w(q, 0)) + np.sum(np.real(r) * _w(r, 2))


def pinv_loss(z):
    p = np.linalg.pinv(z)
    return np.sum(np.real(p) * _w(p, 0)) + np.sum(np.imag(p) ** 2 * _w(p, 1))


def pinv_hermitian(z):                            # reads the lower triangle (eigh)
    p = np.linalg.pinv(z, hermitian=True)
    return np.sum(np.real(p) * _w(p, 2)) + np.sum(np.imag(p) * _w(p, 3))


def _hpd(n):
    z = _cz(n, n)
    return z @ np.conj(z).T + n * np.eye(n)


CASES = [(svd_vectors, _cz(3, 5)), (svd_vectors, _cz(5, 3)), (svd_vectors, _cz(4, 4)),
         (svd_values, _cz(5, 3)), (svd_values_of_the_full_form, _cz(4, 4)),
         (svd_low_rank, _cz(4, 3)), (eigh_lower, _cz(4, 4)), (eigh_upper_projector, _cz(4, 4)),
         (eig_vectors, _cz(4, 4)), (eig_of_real, _rng.normal(size=(5, 5))),
         (spectral_norms, _cz(4, 3)), (nuclear_axes, _cz(3, 4, 2)),
         (cholesky_lower, _hpd(4)), (cholesky_upper, _hpd(4)), (qr_reduced, _cz(5, 3)),
         (qr_reduced, _cz(4, 4)), (qr_r_only, _cz(6, 4)), (qr_complete_square, _cz(3, 3)),
         (pinv_loss, _cz(5, 3)), (pinv_loss, _cz(3, 5)), (pinv_hermitian, _hpd(3))]
IDS = [f"{f.__name__}-{'x'.join(map(str, z.shape))}" for f, z in CASES]


def _direction(z):
    return _cz(*z.shape) if np.iscomplexobj(z) else _rng.normal(size=z.shape)


def _along(f, z, dz, eps=1e-6):
    return (f(z + eps * dz) - f(z - eps * dz)) / (2 * eps)


@pytest.mark.parametrize("f, z", CASES, ids=IDS)
def test_phase_invariant_losses_to_second_order(f, z):
    dz = _direction(z)
    g = sg.grad(f)(z)
    assert g.shape == z.shape and np.iscomplexobj(g) == np.iscomplexobj(z)
    fd = _along(f, z, dz)
    np.testing.assert_allclose(np.real(np.sum(dz * g)), fd, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(sg.jvp(f, (z,), (dz,))[1], fd, rtol=1e-6, atol=1e-8)
    # second order: the directional derivative of the gradient, two ways
    gr = sg.grad(f)
    fd2 = _along(gr, z, dz, eps=1e-5)
    np.testing.assert_allclose(sg.jvp(gr, (z,), (dz,))[1], fd2, rtol=1e-5, atol=1e-7)
    dz2 = _direction(z)

    def slope(z):
        return np.real(np.sum(gr(z) * dz2))
    np.testing.assert_allclose(np.real(np.sum(dz * sg.grad(slope)(z))), _along(slope, z, dz,
                               eps=1e-5), rtol=1e-5, atol=1e-7)


def _torch_loss(name, z):
    t = torch
    if name == "svd_vectors":
        u, s, vh = t.linalg.svd(z, full_matrices=False)
        return (t.sum(u.abs() * t.tensor(_w(u.detach().numpy(), 0))) +
                t.sum(s * t.tensor(_w(s.detach().numpy(), 1))) +
                t.sum(vh.abs() * t.tensor(_w(vh.detach().numpy(), 2))))
    if name == "eigh_lower":
        # NumPy reads the lower triangle (and the diagonal's real part): built here, so
        # that torch differentiates the same function of z
        low = t.tril(z, -1)
        w, v = t.linalg.eigh(low + low.conj().T + t.diag(t.diagonal(z).real).to(z.dtype))
        return t.sum(w * t.tensor(_w(w.detach().numpy(), 0))) + \
            t.sum(v.abs() * t.tensor(_w(v.detach().numpy(), 1)))
    if name.startswith("cholesky"):
        # what NumPy reads (as for eigh): one triangle, the real part of the diagonal
        upper = name == "cholesky_upper"
        part = t.triu(z, 1) if upper else t.tril(z, -1)
        herm = part + part.conj().T + t.diag(t.diagonal(z).real).to(z.dtype)
        c = t.linalg.cholesky(herm, upper=upper)
        if not upper:
            return t.sum(c.real * t.tensor(_w(c.detach().numpy(), 0))) + \
                t.sum(c.imag * t.tensor(_w(c.detach().numpy(), 1)))
        return t.sum(c.real * t.tensor(_w(c.detach().numpy(), 2))) + \
            t.sum(c.imag ** 2 * t.tensor(_w(c.detach().numpy(), 1)))
    if name == "qr_reduced":
        q, r = t.linalg.qr(z)
        return (t.sum(q.real * t.tensor(_w(q.detach().numpy(), 0))) +
                t.sum(q.imag * t.tensor(_w(q.detach().numpy(), 1))) +
                t.sum(r.real * t.tensor(_w(r.detach().numpy(), 2))) +
                t.sum(r.imag * t.tensor(_w(r.detach().numpy(), 3))))
    w, v = t.linalg.eig(z)                          # eig_vectors
    return (t.sum(w.real * t.tensor(_w(w.detach().numpy(), 0))) +
            t.sum(w.imag * t.tensor(_w(w.detach().numpy(), 1))) +
            t.sum(v.abs() * t.tensor(_w(v.detach().numpy(), 2))))


@pytest.mark.skipif(torch is None, reason="torch is not installed")
@pytest.mark.parametrize("f, z", CASES[:2] + [c for c in CASES if c[0] in (
    eigh_lower, eig_vectors, cholesky_lower, cholesky_upper, qr_reduced)],
                         ids=lambda v: getattr(v, "__name__", "z"))
def test_matches_torch(f, z):
    zt = torch.tensor(z, requires_grad=True)
    _torch_loss(f.__name__, zt).backward()
    np.testing.assert_allclose(sg.grad(f)(z), np.conj(zt.grad.numpy()), rtol=1e-8, atol=1e-10)


def svd_phase(z):
    return np.sum(np.real(np.linalg.svd(z)[0]))


def eigh_phase(z):
    return np.sum(np.imag(np.linalg.eigh(z)[1]))


def eig_phase(z):
    return np.sum(np.real(np.linalg.eig(z)[1][0]))


@pytest.mark.parametrize("f", [svd_phase, eigh_phase, eig_phase])
def test_a_loss_that_reads_the_phases_is_refused(f):
    with pytest.raises(sg.NonDifferentiableError, match="phases"):
        sg.grad(f)(_cz(4, 4))
