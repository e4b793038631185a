"""scipy.linalg's Cholesky family in differentiated code: the shortcut the adjoint of
``cholesky`` takes for the cotangent a ``cho_solve`` with its factor sent it (and for a
log-determinant read from the factor's diagonal), checked against central differences,
the general formula (notes off) and to second order; the paths taken; the notes' bound;
``np.linalg.slogdet``'s adjoint by the Cholesky factor of a symmetric positive definite
matrix.
"""
import numpy as np
import pytest

sl = pytest.importorskip("scipy.linalg")

import srcgrad as sg  # noqa: E402
import srcgrad.rules.numpy.decompositions as decompositions  # noqa: E402
from srcgrad.rules import registry  # noqa: E402
from gradcheck_util import numeric_grad  # noqa: E402

registry.load_all()
from srcgrad.rules.scipy import cholesky  # noqa: E402

_rng = np.random.default_rng(11)
D2 = np.sum((lambda x: (x[:, None] - x[None]) ** 2)(_rng.uniform(-2, 2, (7, 2))), axis=-1)
Y = _rng.normal(size=7)
Y2 = _rng.normal(size=(7, 2))
THETA = np.array([0.2, -0.1, -1.0])


def kernel(theta):
    return (np.exp(2 * theta[1] - 0.5 * D2 / np.exp(2 * theta[0]))
            + np.exp(2 * theta[2]) * np.eye(len(Y)))


def gp_slogdet(theta):
    k = kernel(theta)
    low = sl.cholesky(k, lower=True)
    alpha = sl.cho_solve((low, True), Y)
    return 0.5 * Y @ alpha + 0.5 * np.linalg.slogdet(k)[1]


def gp_upper(theta):
    k = kernel(theta)
    up = sl.cholesky(k)
    alpha = sl.cho_solve((up, False), Y)
    return 0.5 * Y @ alpha + np.sum(np.log(np.diag(up)))


def gp_factor(theta):
    k = kernel(theta)
    low = sl.cholesky(k, lower=True)
    alpha = sl.cho_solve((low, True), Y)
    return 0.5 * Y @ alpha + np.sum(np.log(np.diag(low)))


def gp_cho_factor(theta):
    c, lower = sl.cho_factor(kernel(theta), lower=True)
    alpha = sl.cho_solve((c, lower), Y2)
    return np.sum(Y2 * alpha) + 2.0 * np.sum(np.log(np.diag(c)))


def two_solves(theta):
    low = sl.cholesky(kernel(theta), lower=True)
    a = sl.cho_solve((low, True), Y)
    b = sl.cho_solve((low, True), np.cos(Y))
    return 3.0 * np.sum(a * np.sin(Y)) + np.sum(b ** 2) + np.sum(low ** 2)


def weighted_logdet(theta):
    low = sl.cholesky(kernel(theta), lower=True)
    alpha = sl.cho_solve((low, True), Y)
    return Y @ alpha + np.sum(np.arange(1.0, 8.0) * np.log(np.diag(low)))


def changed_between(theta):
    """The factor changed in place between two solves (the first one's note is stale)."""
    low = sl.cholesky(kernel(theta), lower=True)
    a = sl.cho_solve((low, True), Y)
    low[1, 1] = low[1, 1] * 1.5
    b = sl.cho_solve((low, True), Y)
    return np.sum(a * b) + np.sum(np.log(np.diag(low)))


def scaled_in_place(theta):
    low = sl.cholesky(kernel(theta), lower=True)
    low *= 1.2
    alpha = sl.cho_solve((low, True), Y)
    return np.sum(alpha * Y) + np.sum(np.log(np.diag(low)))


CASES = [gp_slogdet, gp_upper, gp_factor, gp_cho_factor, two_solves, weighted_logdet,
         changed_between, scaled_in_place]
# the functions whose whole cotangent of the factor takes the shortcut
SHORTCUT = [gp_slogdet, gp_upper, gp_factor, gp_cho_factor]


@pytest.fixture
def notes_off(monkeypatch):
    """The general formula only: no solve leaves a note."""
    monkeypatch.setattr(cholesky, "_MAX_NOTES", 0)


# the notes' two forms: with the solve's own cotangent, and with u and x only (a large
# matrix: the adjoint computes the cotangent again)
NOTE_FORMS = {"kept": 1 << 27, "recomputed": 0}


@pytest.mark.parametrize("form", NOTE_FORMS)
@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_gradient_matches_differences_and_the_general_formula(f, form, monkeypatch):
    monkeypatch.setattr(cholesky, "_NOTE_BYTES", NOTE_FORMS[form])
    g = sg.grad(f)(THETA)
    np.testing.assert_allclose(g, numeric_grad(f, (THETA,), 0, 1e-6), rtol=1e-6, atol=1e-8)
    monkeypatch.setattr(cholesky, "_MAX_NOTES", 0)
    np.testing.assert_allclose(g, sg.grad(f)(THETA), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_second_order_matches_differences_of_the_gradient(f):
    v = np.array([0.3, -0.7, 0.5])
    g = sg.grad(f)
    eps = 1e-5
    fd = (g(THETA + eps * v) - g(THETA - eps * v)) / (2 * eps)
    np.testing.assert_allclose(sg.hvp(f)(THETA, v=v), fd, rtol=1e-5, atol=1e-7)
    rr = sg.grad(lambda th: np.sum(sg.grad(f)(th) * v))(THETA)
    np.testing.assert_allclose(rr, fd, rtol=1e-5, atol=1e-7)


def _counting(monkeypatch, module, name):
    calls = []
    real = getattr(module, name)

    def counted(*args, **kwargs):
        calls.append(name)
        return real(*args, **kwargs)
    monkeypatch.setattr(module, name, counted)
    return calls


@pytest.mark.parametrize("form", NOTE_FORMS)
@pytest.mark.parametrize("f", SHORTCUT, ids=lambda f: f.__name__)
def test_the_shortcut_is_taken_and_leaves_no_note(f, form, monkeypatch):
    monkeypatch.setattr(cholesky, "_NOTE_BYTES", NOTE_FORMS[form])
    grad = sg.grad(f)
    grad(THETA)                                     # (compiled before counting)
    cholesky._NOTES.clear()
    general = _counting(monkeypatch, cholesky, "_formula")
    grad(THETA)
    assert general == []                            # no triangular solves of n x n
    assert cholesky._NOTES == []


def test_the_general_formula_without_notes(notes_off, monkeypatch):
    general = _counting(monkeypatch, cholesky, "_formula")
    sg.grad(gp_factor)(THETA)
    assert general == ["_formula"]


def test_notes_of_a_factor_nobody_takes_stay_bounded(monkeypatch):
    low = np.linalg.cholesky(kernel(THETA))
    monkeypatch.setattr(cholesky, "_NOTE_BYTES", 3 * 2 * low.nbytes)

    def solve_only(c):
        return np.sum(sl.cho_solve((c, True), Y) ** 2)
    grad = sg.grad(solve_only)
    for _ in range(10):
        g = grad(low)
    assert len(cholesky._NOTES) == cholesky._MAX_NOTES
    copies = [n for n in cholesky._NOTES if n[4] is not None]
    assert sum(n[4].nbytes + n[5].nbytes for n in copies) <= 3 * 2 * low.nbytes
    np.testing.assert_allclose(g, sg.grad(solve_only)(low), rtol=1e-12)


def test_float32_is_kept():
    g = sg.grad(gp_factor)(THETA.astype(np.float32))
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, sg.grad(gp_factor)(THETA), rtol=2e-3, atol=1e-4)


def _spd(n):
    a = _rng.normal(size=(n, n))
    return a @ a.T + n * np.eye(n)


@pytest.mark.parametrize("kind", ["spd", "symmetric indefinite", "general"])
def test_slogdet_adjoint_is_the_inverse_transpose(kind, monkeypatch):
    a = {"spd": _spd(5), "symmetric indefinite": _spd(5) - 12 * np.eye(5),
         "general": _spd(5) + np.triu(_rng.normal(size=(5, 5)), 1)}[kind]
    inverses = _counting(monkeypatch, decompositions, "_spd_inverse")
    g = sg.grad(lambda m: 1.5 * np.linalg.slogdet(m)[1])(a)
    np.testing.assert_allclose(g, 1.5 * np.linalg.inv(a).T, rtol=1e-10, atol=1e-13)
    assert inverses == ["_spd_inverse"]


def test_slogdet_of_an_spd_matrix_inverts_it_by_its_factor(monkeypatch):
    a = _spd(6)

    def no_inv(m):
        raise AssertionError("inverted as a general matrix")
    grad = sg.grad(lambda m: np.linalg.slogdet(m)[1])
    monkeypatch.setattr(np.linalg, "inv", no_inv)
    g = grad(a)
    monkeypatch.undo()
    np.testing.assert_allclose(g, np.linalg.inv(a), rtol=1e-10, atol=1e-13)
