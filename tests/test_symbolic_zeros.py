"""Symbolic zeros through branch joins: a value computed on a path that does not reach
the result gets no gradient, even where its derivative there is NaN or infinite.

An adjoint that only one path of an ``if`` gives a value is None on the other path, and
the adjoint code that reads it runs only if it is not (``if ds is not None:``).  Before,
the other path made zeros, and the adjoint of ``s = np.sqrt(v)`` at ``v < 0`` computed
``0 / (2 * nan)``: a NaN gradient where finite differences, autograd, JAX and PyTorch
give 0.  Checked in reverse and forward mode, by hvp, and by grad of grad, against
central differences and autograd (which never visits a value that does not reach the
result).
"""
import math
import warnings

import numpy as np
import pytest

import srcgrad as sg

try:
    import autograd
    import autograd.numpy as anp
except ImportError:       # pragma: no cover - autograd is a test extra
    autograd = anp = None


def sqrt_skipped_by_continue(xs, lib=np):
    total = 0.0
    for v in xs:
        s = lib.sqrt(v)
        if v < 0:
            continue
        total = total + s * v
    return total


def sqrt_on_the_other_branch(x, lib=np):
    r = lib.sqrt(x)
    if x > 0:
        out = r * x
    else:
        out = 2.0 * x
    return out


def arcsin_outside_its_domain(x, lib=np):
    a = lib.arcsin(x)
    b = lib.sin(x)
    if abs(x) <= 1.0:
        b = b + a
    return b * x


def _roots(a, b, c, lib=np):
    root = lib.sqrt(b * b - 4.0 * a * c)
    return (-b - root) / (2.0 * a), (-b + root) / (2.0 * a)


def roots_of_a_callee_not_used(a, b, c, lib=np):
    t1, t2 = _roots(a, b, c, lib)
    if b * b - 4.0 * a * c < 0:
        return a * b
    return t1 * t2 + t2


def list_only_one_branch_reads(xs, lib=np):
    total = 0.0
    for i in range(len(xs)):
        s = lib.sqrt(xs[i])
        if xs[i] > 0:
            total = total + s
        else:
            total = total + 0.5 * xs[i]
    return total


def _fd(f, args, i, h=1e-6):
    a = np.array(args[i], dtype=np.float64)
    g = np.zeros_like(a)
    for k in np.ndindex(a.shape):
        up, dn = a.copy(), a.copy()
        up[k] += h
        dn[k] -= h
        hi = list(args)
        lo = list(args)
        hi[i] = up if a.shape else float(up)
        lo[i] = dn if a.shape else float(dn)
        g[k] = (f(*hi) - f(*lo)) / (2 * h)
    return g


CASES = [
    ("sqrt_skipped_by_continue", sqrt_skipped_by_continue, [np.array([1.0, -2.0, 3.0])]),
    ("sqrt_on_the_other_branch (not taken)", sqrt_on_the_other_branch, [-1.5]),
    ("sqrt_on_the_other_branch (taken)", sqrt_on_the_other_branch, [2.5]),
    ("arcsin_outside_its_domain", arcsin_outside_its_domain, [1.7]),
    ("arcsin_inside_its_domain", arcsin_outside_its_domain, [0.3]),
    ("roots_of_a_callee_not_used", roots_of_a_callee_not_used, [1.0, 0.5, 2.0]),
    ("roots_of_a_callee_used", roots_of_a_callee_not_used, [1.0, 3.0, 2.0]),
    ("list_only_one_branch_reads", list_only_one_branch_reads,
     [np.array([0.4, -1.0, 2.0, -0.3])]),
]


def _quiet(fn, *a, **k):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return fn(*a, **k)


@pytest.mark.parametrize("name, f, args", CASES, ids=[c[0] for c in CASES])
def test_reverse_forward_and_autograd(name, f, args):
    for i in range(len(args)):
        got = np.asarray(_quiet(sg.grad(f, wrt=i), *args), dtype=np.float64)
        expected = _quiet(_fd, f, args, i)
        assert np.all(np.isfinite(got)), f"{name}: {got}"
        assert got.shape == np.shape(args[i])
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-8)
        if np.ndim(args[i]) == 0:
            tangents = tuple(1.0 if j == i else 0.0 for j in range(len(args)))
            _, dout = _quiet(sg.jvp, f, tuple(args), tangents)
            np.testing.assert_allclose(dout, expected, rtol=1e-6, atol=1e-8)
        if autograd is not None:
            theirs = _quiet(autograd.grad(lambda *a: f(*a, lib=anp), i), *args)
            np.testing.assert_allclose(got, theirs, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name, f, args", CASES, ids=[c[0] for c in CASES])
def test_second_order(name, f, args):
    i = 0
    g = sg.grad(f, wrt=i)
    v = np.linspace(0.5, 1.5, np.size(args[0])).reshape(np.shape(args[0]))
    v = v if np.ndim(args[0]) else 1.0
    hv = np.asarray(_quiet(sg.hvp(f, wrt=i), *args, v=v), dtype=np.float64)
    h = 1e-5
    up = [args[0] + h * v] + list(args[1:])
    dn = [args[0] - h * v] + list(args[1:])
    expected = (np.asarray(_quiet(g, *up)) - np.asarray(_quiet(g, *dn))) / (2 * h)
    assert np.all(np.isfinite(hv)), f"{name}: {hv}"
    np.testing.assert_allclose(hv, expected, rtol=1e-5, atol=1e-6)

    def directional(x):
        return np.sum(g(x, *args[1:]) * v)
    gg = np.asarray(_quiet(sg.grad(directional), args[0]), dtype=np.float64)
    np.testing.assert_allclose(gg, expected, rtol=1e-5, atol=1e-6)
    if autograd is not None:
        ag = autograd.grad(lambda x: anp.sum(autograd.grad(
            lambda y: f(y, *args[1:], lib=anp))(x) * v))
        np.testing.assert_allclose(gg, _quiet(ag, args[0]), rtol=1e-9, atol=1e-12)


def test_the_untaken_path_gives_none_not_zeros():
    """The generated code says so: the path that does not use ``r`` sets its adjoint to
    None, and the adjoint of ``r = np.sqrt(x)`` runs only if it is not None."""
    code = sg.source(sqrt_on_the_other_branch)
    assert "dr = None" in code
    assert "if dr is not None:" in code
    assert math.isfinite(_quiet(sg.grad(sqrt_on_the_other_branch), -4.0))


def item_written_then_one_branch(x, w):
    x = x.copy()
    x[0] = w                 # its adjoint reads dx[0]
    v = x[1] * 2.0           # dx gets a term that does not depend on x or w
    if w > 10.0:
        out = np.sum(x * x)
    else:
        out = w * 3.0        # dx is None on this path
    return out + v


@pytest.mark.parametrize("w", [1.0, 11.0])
def test_hvp_where_a_none_adjoint_gets_a_constant_term(w):
    """forward over reverse: the tangent of a None adjoint is 0.0; the sum that starts
    from it has the shape of its other term (add_grads' forward rule: fill_like), which
    ``dx[0]`` then reads (it raised TypeError: 'float' object is not subscriptable;
    fuzz seeds 95089, 95313)."""
    x = np.array([0.5, -1.0, 2.0])
    g = sg.grad(item_written_then_one_branch, wrt=1)
    h = 1e-5
    expected = (g(x, w + h) - g(x, w - h)) / (2 * h)
    np.testing.assert_allclose(sg.hvp(item_written_then_one_branch, wrt=1)(x, w, v=1.0),
                               expected, rtol=1e-6, atol=1e-8)
    expected_x = [(sg.grad(item_written_then_one_branch, wrt=0)(x + h * e, w) -
                   sg.grad(item_written_then_one_branch, wrt=0)(x - h * e, w)) / (2 * h)
                  for e in np.eye(3)]
    np.testing.assert_allclose(
        sg.hvp(item_written_then_one_branch, wrt=0)(x, w, v=np.ones(3)),
        np.sum(expected_x, axis=0), rtol=1e-6, atol=1e-8)
