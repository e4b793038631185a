"""Transformations nested in transformations, at the API level: Jacobians of Jacobians
(and Hessians of functions that call ``sg.jacobian``), derivatives of high order through
a call resolved at run time, and a user's ``functools.wraps`` decorator with
``*args, **kwargs`` around a loss.

Expected values come from central finite differences of the inner result (itself
checked against differences of the function) and from autograd (and JAX where it is
installed); never from srcgrad.
"""
import functools
import math

import numpy as np
import pytest

import srcgrad as sg

autograd = pytest.importorskip("autograd")
anp = autograd.numpy

X = np.array([0.3, -0.5, 0.8])
W = np.arange(6.0).reshape(2, 3) / 7 - 0.3


def central(fn, args, i, h=1e-5):
    """Central differences of ``fn`` w.r.t. argument ``i``: shape out.shape + x.shape."""
    x = np.asarray(args[i], dtype=float)
    cols = []
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = h
        e = e.reshape(x.shape)
        hi, lo = list(args), list(args)
        hi[i], lo[i] = x + e, x - e
        if np.ndim(args[i]) == 0:
            hi[i], lo[i] = float(hi[i]), float(lo[i])
        cols.append((np.asarray(fn(*hi), float) - np.asarray(fn(*lo), float)) / (2 * h))
    out = np.stack(cols, axis=-1)
    return out.reshape(np.shape(cols[0]) + x.shape)


# -- Jacobians of Jacobians -----------------------------------------------------------

def field(x, W):
    return np.tanh(W @ x) * x[0]


def field_autograd(x, W):
    return anp.tanh(W @ x) * x[0]


def cubic(x):
    return np.sin(x) * np.sum(x ** 2)


def cubic_autograd(x):
    return anp.sin(x) * anp.sum(x ** 2)


@pytest.mark.parametrize("outer", ["reverse", "forward"])
@pytest.mark.parametrize("inner", ["reverse", "forward"])
def test_jacobian_of_jacobian(inner, outer):
    got = sg.jacobian(sg.jacobian(cubic, mode=inner), mode=outer)(X)
    expected = autograd.jacobian(autograd.jacobian(cubic_autograd))(X)
    assert got.shape == (3, 3, 3)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)
    # and central differences of the inner Jacobian, itself checked against f's
    inner_jac = sg.jacobian(cubic, mode=inner)
    np.testing.assert_allclose(inner_jac(X), central(cubic, [X], 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got, central(inner_jac, [X], 0), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("inner", ["reverse", "forward"])
def test_jacobian_of_jacobian_mixed_arguments(inner):
    """d/dW of the Jacobian w.r.t. x (by name), and a tuple wrt outside."""
    jx = sg.jacobian(field, wrt="x", mode=inner)
    got = sg.jacobian(jx, wrt=1)(X, W)
    expected = autograd.jacobian(autograd.jacobian(field_autograd, 0), 1)(X, W)
    assert got.shape == (2, 3, 2, 3)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got, central(jx, [X, W], 1), rtol=1e-6, atol=1e-8)
    both = sg.jacobian(jx, wrt=(0, 1))(X, W)
    np.testing.assert_allclose(both[0], autograd.jacobian(autograd.jacobian(
        field_autograd, 0), 0)(X, W), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(both[1], expected, rtol=1e-10, atol=1e-12)


def test_jacobian_of_a_tuple_wrt_jacobian():
    def flat_jac(x, W):
        return np.concatenate([np.ravel(j) for j in sg.jacobian(field, wrt=(0, 1))(x, W)])

    def flat_jac_autograd(x, W):
        return anp.concatenate([anp.ravel(autograd.jacobian(field_autograd, 0)(x, W)),
                                anp.ravel(autograd.jacobian(field_autograd, 1)(x, W))])
    got = sg.jacobian(flat_jac)(X, W)
    np.testing.assert_allclose(got, autograd.jacobian(flat_jac_autograd)(X, W),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got, central(flat_jac, [X, W], 0), rtol=1e-6, atol=1e-8)


def bent(x):
    return np.tanh(x * x[0]) + x


def bent_autograd(x):
    return anp.tanh(x * x[0]) + x


@pytest.mark.parametrize("modes", [
    (a, b, c) for a in ("reverse", "forward") for b in ("reverse", "forward")
    for c in ("reverse", "forward")], ids="-".join)
def test_third_order_jacobians(modes):
    """sg.jacobian three times, in every order of the two modes (innermost first)."""
    x = np.array([0.3, -0.5])
    g = bent
    for m in modes:
        g = sg.jacobian(g, mode=m)
    expected = autograd.jacobian(autograd.jacobian(autograd.jacobian(bent_autograd)))(x)
    got = g(x)
    assert got.shape == (2, 2, 2, 2)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("inner", ["reverse", "forward"])
def test_hessian_of_a_function_that_calls_jacobian(inner):
    def penalty(x, W):
        return np.sum(sg.jacobian(field, mode=inner)(x, W) ** 2)

    def penalty_autograd(x, W):
        return anp.sum(autograd.jacobian(field_autograd)(x, W) ** 2)
    got = sg.hessian(penalty)(X, W)
    np.testing.assert_allclose(got, autograd.hessian(penalty_autograd)(X, W),
                               rtol=1e-10, atol=1e-12)
    grad_x = sg.grad(penalty, wrt=0)
    np.testing.assert_allclose(grad_x(X, W), central(penalty, [X, W], 0), rtol=1e-6,
                               atol=1e-8)
    np.testing.assert_allclose(got, central(grad_x, [X, W], 0), rtol=1e-6, atol=1e-7)
    # d/dW of the gradient penalty (reverse over the Jacobian's code)
    got_w = sg.grad(penalty, wrt=1)(X, W)
    np.testing.assert_allclose(got_w, autograd.grad(penalty_autograd, 1)(X, W),
                               rtol=1e-10, atol=1e-12)


def test_jacobian_of_hessian_and_jvp_of_jacobian():
    def energy(x):
        return np.sum(cubic(x))
    got = sg.jacobian(sg.hessian(energy))(X)
    expected = autograd.jacobian(autograd.hessian(lambda x: anp.sum(cubic_autograd(x))))(X)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)
    v = np.array([1.0, -2.0, 0.5])
    _, tangent = sg.jvp(sg.jacobian(cubic), (X,), (v,))
    np.testing.assert_allclose(tangent, np.tensordot(
        autograd.jacobian(autograd.jacobian(cubic_autograd))(X), v, axes=1),
        rtol=1e-10, atol=1e-12)


def test_jacobian_of_jacobian_of_a_python_float():
    got = sg.jacobian(sg.jacobian(lambda t: np.sin(t) * t ** 2))(0.7)
    exact = (2 - 0.7 ** 2) * math.sin(0.7) + 4 * 0.7 * math.cos(0.7)
    np.testing.assert_allclose(got, exact, rtol=1e-12)


def test_jacobian_of_jacobian_against_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy

    def field_jax(x, W):
        return jnp.tanh(W @ x) * x[0]
    got = sg.jacobian(sg.jacobian(field, mode="forward"))(X, W)
    np.testing.assert_allclose(got, np.asarray(jax.jacfwd(jax.jacrev(field_jax))(X, W)),
                               rtol=1e-10, atol=1e-12)


def columns(x):
    """A comprehension inside a loop: its backward sweep pops the comprehension's list."""
    jacs = []
    for p in range(2):
        cols = [np.sin(x * e) * x[p] for e in np.eye(3)]
        jacs.append(np.stack(cols, axis=-1))
    return jacs[0] + jacs[1]


def columns_autograd(x):
    jacs = []
    for p in range(2):
        jacs.append(anp.stack([anp.sin(x * e) * x[p] for e in np.eye(3)], axis=-1))
    return jacs[0] + jacs[1]


def test_a_pullback_called_for_several_cotangents():
    """sg.vjp's pullback, called again: the backward sweep pops the record of a
    comprehension; each call works on its own (the second raised IndexError)."""
    _, pullback = sg.vjp(columns, X)
    theirs, _ = autograd.make_vjp(columns_autograd)(X)
    for e in (np.eye(3), np.arange(9.0).reshape(3, 3), np.eye(3)):
        np.testing.assert_allclose(pullback(e), theirs(e), rtol=1e-12, atol=1e-14)


def chain_energy(q, k=1.3):
    e = 0.0
    for i in range(len(q) - 1):
        e = e + 0.5 * k * (q[i + 1] - q[i] - 1.0) ** 2 + np.cos(q[i])
    return e


def chain_energy_autograd(q, k=1.3):
    e = 0.0
    for i in range(len(q) - 1):
        e = e + 0.5 * k * (q[i + 1] - q[i] - 1.0) ** 2 + anp.cos(q[i])
    return e


Q = np.array([0.0, 1.1, 1.9, 3.2])


@pytest.mark.parametrize("k", [None, 0.7])
def test_jacobian_of_hessian_of_a_function_with_a_default(k):
    """f(q, k=1.3): the default passed on as f's own (or the value given)."""
    args = (Q,) if k is None else (Q, k)
    got = sg.jacobian(sg.hessian(chain_energy))(*args)
    expected = autograd.jacobian(autograd.hessian(chain_energy_autograd))(*args)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)
    hess = sg.hessian(chain_energy)
    np.testing.assert_allclose(got, central(hess, list(args), 0), rtol=1e-6, atol=1e-7)


def bumpy(x):
    return np.sin(x[0]) * np.exp(x[1]) + x[2] ** 3 * x[0]


def bumpy_autograd(x):
    return anp.sin(x[0]) * anp.exp(x[1]) + x[2] ** 3 * x[0]


def test_gradient_of_a_laplacian_made_of_hvps():
    """sg.hvp called inside a differentiated function (third order): the Laplacian as
    the sum of e_i . H e_i, differentiated."""
    def laplacian(x):
        return sum(sg.hvp(bumpy)(x, v=e)[i] for i, e in enumerate(np.eye(3)))

    def laplacian_autograd(x):
        return anp.trace(autograd.hessian(bumpy_autograd)(x))
    np.testing.assert_allclose(laplacian(X), laplacian_autograd(X), rtol=1e-12)
    got = sg.grad(laplacian)(X)
    np.testing.assert_allclose(got, autograd.grad(laplacian_autograd)(X), rtol=1e-10,
                               atol=1e-12)
    np.testing.assert_allclose(got, central(laplacian, [X], 0), rtol=1e-6, atol=1e-8)
    jac = sg.jacobian(lambda x: sg.hvp(bumpy)(x, v=np.ones(3)))(X)
    np.testing.assert_allclose(jac, autograd.jacobian(
        lambda x: autograd.hessian(bumpy_autograd)(x) @ np.ones(3))(X), rtol=1e-10,
        atol=1e-12)


def test_a_jacobian_with_no_code_form_is_refused_when_transformed_again():
    class Model:
        def cubes(self, x):
            return x ** 3
    jac = sg.jacobian(Model().cubes)
    np.testing.assert_allclose(jac(X), np.diag(3 * X ** 2), rtol=1e-12)
    with pytest.raises(sg.NonDifferentiableError, match="sg.jacobian of .*cubes again"):
        sg.grad(lambda x: np.sum(jac(x)))(X)
    with pytest.raises(sg.NonDifferentiableError, match="sg.jacobian of .*cubes again"):
        sg.jacobian(jac)(X)


# -- Jacobians with respect to containers --------------------------------------------

_P = [(np.arange(6.0).reshape(2, 3) / 5 - 0.4, np.array([0.1, -0.2, 0.3])),
      (np.array([[0.5], [-0.3], [0.8]]), np.array([0.05]))]
_XS = np.array([[0.2, -0.1], [0.7, 0.4], [-0.5, 0.9], [0.3, 0.3]])


def mlp(params, x):
    for W, b in params:
        x = np.tanh(x @ W + b)
    return x[:, 0]


def _along_leaf(params, i, k, h):
    out = [(W.copy(), b.copy()) for W, b in params]
    leaf = out[i][k]
    leaf += h
    return out


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_jacobian_with_respect_to_a_list_of_tuples(mode):
    """The neural-tangent-kernel Jacobian: one Jacobian per parameter array, in the
    parameters' structure, each out.shape + leaf.shape, checked by central differences
    (and against jax.jacrev where JAX is installed)."""
    J = sg.jacobian(mlp, mode=mode)(_P, _XS)
    assert isinstance(J, list) and all(isinstance(t, tuple) and len(t) == 2 for t in J)
    for i, (W, b) in enumerate(_P):
        for k, leaf in enumerate((W, b)):
            assert J[i][k].shape == (4,) + leaf.shape
            fd = np.zeros((4,) + leaf.shape)
            for idx in np.ndindex(*leaf.shape):
                e = np.zeros(leaf.shape)
                e[idx] = 1e-6
                fd[(slice(None),) + idx] = (mlp(_along_leaf(_P, i, k, e), _XS) -
                                            mlp(_along_leaf(_P, i, k, -e), _XS)) / 2e-6
            np.testing.assert_allclose(J[i][k], fd, rtol=1e-6, atol=1e-9)
    ntk = sum(np.tensordot(J[i][k], J[i][k], axes=(list(range(1, J[i][k].ndim)),) * 2)
              for i in range(2) for k in range(2))
    assert ntk.shape == (4, 4)
    try:
        import jax
    except ImportError:
        return
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy

    def mlp_jax(params, x):
        for W, b in params:
            x = jnp.tanh(x @ W + b)
        return x[:, 0]
    theirs = jax.jacrev(mlp_jax)(_P, _XS)
    for i in range(2):
        for k in range(2):
            np.testing.assert_allclose(J[i][k], theirs[i][k], rtol=1e-10, atol=1e-12)


def test_hessian_with_respect_to_a_dict():
    """A dict of dicts of blocks, as jax.hessian gives; checked against autograd's
    Hessian of the same function of one flat vector."""
    def energy(p):
        return np.sum(np.sin(p["a"]) * p["b"] ** 2)

    def flat_energy(v):
        return anp.sum(anp.sin(v[:3]) * v[3:] ** 2)
    p = {"a": np.array([0.3, -0.5, 0.8]), "b": np.array([1.1, 0.4, -0.7])}
    H = sg.hessian(energy)(p)
    full = autograd.hessian(flat_energy)(np.concatenate([p["a"], p["b"]]))
    parts = {"a": slice(0, 3), "b": slice(3, 6)}
    assert set(H) == {"a", "b"} and all(set(H[k]) == {"a", "b"} for k in H)
    for r, rows in parts.items():
        for c, cols in parts.items():
            np.testing.assert_allclose(H[r][c], full[rows, cols], rtol=1e-12, atol=1e-14)


def test_jacobian_of_jacobian_keeps_float32():
    x = X.astype(np.float32)
    got = sg.jacobian(sg.jacobian(cubic))(x)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, sg.jacobian(sg.jacobian(cubic))(X), rtol=1e-5,
                               atol=1e-6)


# -- a gradient taken inside with a one-name tuple wrt ---------------------------------

def sines(x):
    return np.sum(np.sin(x))


def test_a_one_name_tuple_wrt_inside_differentiated_code_is_a_tuple():
    """sg.grad(g, wrt=(0,)) returns a 1-tuple; inside a differentiated function too
    (it returned the bare gradient there, so that [0] read its first element: a WRONG
    gradient with the right value)."""
    def first(x):
        return np.sum(sg.grad(sines, wrt=(0,))(x)[0] * x)

    def first_vg(x):
        value, grads = sg.value_and_grad(sines, wrt=("x",))(x)
        return value * np.sum(grads[0] * x)

    def first_autograd(x):
        return anp.sum(anp.cos(x) * x)

    def first_vg_autograd(x):
        return anp.sum(anp.sin(x)) * anp.sum(anp.cos(x) * x)
    x = np.array([0.3, -0.5])
    assert isinstance(sg.grad(sines, wrt=(0,))(x), tuple)
    np.testing.assert_allclose(first(x), first_autograd(x), rtol=1e-12)
    for f, theirs in ((first, first_autograd), (first_vg, first_vg_autograd)):
        got = sg.grad(f)(x)
        np.testing.assert_allclose(got, autograd.grad(theirs)(x), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(got, central(f, [x], 0), rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(sg.hvp(f)(x, v=x), autograd.hessian(theirs)(x) @ x,
                                   rtol=1e-10, atol=1e-12)


def test_a_one_name_tuple_wrt_keeps_its_tuple_through_jvp_and_hvp():
    """Forward mode of sg.grad(g, wrt=(0,)) (so sg.hvp(g, wrt=(0,)) too) has the
    gradient's structure, a 1-tuple (its tangent was the bare array)."""
    def g(x, y):
        return np.sum(np.sin(x) * y ** 2)
    x, y = np.array([0.3, -0.5]), np.array([1.2, 0.7])
    hx = np.diag(-np.sin(x) * y ** 2)               # d2g/dx2
    out, tangent = sg.jvp(sg.grad(g, wrt=(0,)), (x, y), (x, None))
    assert isinstance(out, tuple) and isinstance(tangent, tuple) and len(tangent) == 1
    np.testing.assert_allclose(out[0], np.cos(x) * y ** 2, rtol=1e-12)
    np.testing.assert_allclose(tangent[0], hx @ x, rtol=1e-12)
    got = sg.hvp(g, wrt=(0,))(x, y, v=(x,))
    assert isinstance(got, tuple) and len(got) == 1
    np.testing.assert_allclose(got[0], hx @ x, rtol=1e-12)
    np.testing.assert_allclose(sg.hvp(g, wrt=0)(x, y, v=x), hx @ x, rtol=1e-12)

    def inside(x):
        return np.sum(sg.hvp(g, wrt=(0,))(x, y, v=(x,))[0])
    np.testing.assert_allclose(inside(x), np.sum(hx @ x), rtol=1e-12)
    np.testing.assert_allclose(sg.grad(inside)(x), -(np.cos(x) * x + np.sin(x)) * y ** 2,
                               rtol=1e-12)


# -- high order through a call resolved at run time -----------------------------------

def sine_times(a, b):
    return np.sin(a) * b


def starred_call(x, fn=sine_times):
    args = [x, 2.0 * x]
    return fn(*args)


def test_fourth_derivative_through_a_starred_call_of_a_function_value():
    """The reverse sweep of a starred call reads its loop's saved steps item by item
    when it is differentiated again: the zeros of those steps must be indexable (this
    crashed from the fourth order, and the sixth of autograd's tanh example)."""
    g = starred_call
    a = (lambda x: anp.sin(x) * 2.0 * x)
    for _ in range(4):
        g, a = sg.grad(g), autograd.grad(a)
    # d^4/dx^4 of 2x sin x = 2 (x sin x - 4 cos x)
    exact = 2 * (0.7 * math.sin(0.7) - 4 * math.cos(0.7))
    np.testing.assert_allclose(g(0.7), exact, rtol=1e-10)
    np.testing.assert_allclose(g(0.7), a(0.7), rtol=1e-10)


# -- a user's decorator with *args, **kwargs -------------------------------------------

def with_l2(lam):
    def deco(f):
        @functools.wraps(f)
        def wrapped(w, *args, **kwargs):
            return f(w, *args, **kwargs) + lam * np.sum(w ** 2)
        return wrapped
    return deco


@with_l2(0.3)
def logistic(w, X, y):
    return np.sum(np.logaddexp(0.0, -y * (X @ w)))


def logistic_autograd(w, X, y):
    return anp.sum(anp.logaddexp(0.0, -y * anp.dot(X, w))) + 0.3 * anp.sum(w ** 2)


_rs = np.random.RandomState(3)
WV, XS, YS = _rs.randn(3), _rs.randn(5, 3), np.sign(_rs.randn(5))


@pytest.mark.parametrize("wrt", [None, (0, 1, 2), ("w", "X", "y")])
def test_decorated_loss_gradients_count_the_arguments_passed(wrt):
    got = sg.grad(logistic, wrt=wrt)(WV, XS, YS)
    assert isinstance(got, tuple) and len(got) == 3
    for i, g in enumerate(got):
        assert np.shape(g) == np.shape((WV, XS, YS)[i])
        np.testing.assert_allclose(g, autograd.grad(logistic_autograd, i)(WV, XS, YS),
                                   rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(g, central(logistic, [WV, XS, YS], i), rtol=1e-6,
                                   atol=1e-8)


def test_decorated_loss_single_position_hessian_and_jvp():
    g = sg.grad(logistic, wrt=1)(WV, XS, YS)
    np.testing.assert_allclose(g, autograd.grad(logistic_autograd, 1)(WV, XS, YS),
                               rtol=1e-10, atol=1e-12)
    h = sg.hessian(logistic)(WV, XS, YS)
    np.testing.assert_allclose(h, autograd.hessian(logistic_autograd)(WV, XS, YS),
                               rtol=1e-10, atol=1e-12)
    v = np.array([0.5, -1.0, 2.0])
    _, t = sg.jvp(logistic, (WV, XS, YS), (v, None, None))
    np.testing.assert_allclose(t, autograd.grad(logistic_autograd)(WV, XS, YS) @ v,
                               rtol=1e-10)



# -- closures over the differentiated value, pullbacks called again -------------------

@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_jacobian_of_a_closure_over_the_differentiated_value(mode):
    """sg.jacobian of a lambda that holds W, differentiated w.r.t. W (a Jacobian
    penalty): the Jacobian's code takes the lambda as an argument, and the gradient of
    what it holds is the Jacobian's own (was a refusal)."""
    W = np.arange(9.0).reshape(3, 3) / 10 - 0.4

    def squared_norm(W):
        return np.sum(sg.jacobian(lambda x: np.tanh(W @ x), mode=mode)(X) ** 2)

    def squared_norm_autograd(W):
        return anp.sum(autograd.jacobian(lambda x: anp.tanh(anp.dot(W, x)))(X) ** 2)
    expected = autograd.grad(squared_norm_autograd)(W)
    np.testing.assert_allclose(expected, central(squared_norm_autograd, [W], 0),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(sg.grad(squared_norm)(W), expected, rtol=1e-10, atol=1e-12)


def test_gradient_through_hvp_of_a_closure_over_the_differentiated_value():
    """sg.hvp of a lambda holding a, differentiated w.r.t. a (third order)."""
    x, v = np.array([0.3, -0.5, 0.8]), np.array([1.0, -2.0, 0.5])

    def curvature(a):
        return np.sum(sg.hvp(lambda y: np.sum(np.sin(a * y) * y))(x, v=v) ** 2)

    def curvature_autograd(a):
        hess = autograd.hessian(lambda y: anp.sum(anp.sin(a * y) * y))(x)
        return anp.sum(anp.dot(hess, v) ** 2)
    a = np.array([0.7, 1.3, -0.4])
    expected = autograd.grad(curvature_autograd)(a)
    np.testing.assert_allclose(expected, central(curvature_autograd, [a], 0), rtol=1e-6,
                               atol=1e-8)
    np.testing.assert_allclose(curvature(a), curvature_autograd(a), rtol=1e-12)
    np.testing.assert_allclose(sg.grad(curvature)(a), expected, rtol=1e-10, atol=1e-12)


def test_gradient_through_vjp_of_a_closure_over_the_differentiated_value():
    W = np.arange(9.0).reshape(3, 3) / 10 - 0.4
    e = np.array([1.0, 2.0, 3.0])

    def pulled(W):
        _, pullback = sg.vjp(lambda x: np.tanh(W @ x), X)
        return np.sum(pullback(e) ** 2)

    def pulled_autograd(W):
        pullback, _ = autograd.make_vjp(lambda x: anp.tanh(anp.dot(W, x)))(X)
        return anp.sum(pullback(e) ** 2)
    expected = autograd.grad(pulled_autograd)(W)
    np.testing.assert_allclose(expected, central(pulled_autograd, [W], 0), rtol=1e-6,
                               atol=1e-8)
    np.testing.assert_allclose(sg.grad(pulled)(W), expected, rtol=1e-10, atol=1e-12)
    # and its Hessian-vector product (reverse over reverse over reverse)
    v = np.ones((3, 3))
    np.testing.assert_allclose(sg.hvp(pulled)(W, v=v),
                               np.tensordot(autograd.hessian(pulled_autograd)(W), v, 2),
                               rtol=1e-9, atol=1e-11)


def test_gradient_through_jvp_of_a_closure_over_the_differentiated_value():
    """sg.jvp of a lambda holding W inside sg.grad w.r.t. W: the forward-mode code takes
    what the lambda holds as arguments (was KeyError 0)."""
    W = np.arange(9.0).reshape(3, 3) / 10 - 0.4
    e = np.array([1.0, 2.0, 3.0])

    def pushed(W):
        _, t = sg.jvp(lambda x: np.tanh(W @ x), (X,), (e,))
        return np.sum(t ** 2)

    def pushed_autograd(W):
        return anp.sum(autograd.make_jvp(lambda x: anp.tanh(anp.dot(W, x)))(X)(e)[1] ** 2)
    expected = autograd.grad(pushed_autograd)(W)
    np.testing.assert_allclose(expected, central(pushed_autograd, [W], 0), rtol=1e-6,
                               atol=1e-8)
    np.testing.assert_allclose(sg.grad(pushed)(W), expected, rtol=1e-10, atol=1e-12)


def test_gradient_through_grad_of_a_closure_calling_a_closure():
    """sg.grad(lambda x: f(x)) with f a closure over W (or a partial binding W),
    differentiated w.r.t. W: the generated code holds f's split form, not f, so it is
    differentiated as sg.vjp of the lambda taken as an argument, whose gradient is by
    the lambda's own names (the gradient w.r.t. W was ZERO, silently)."""
    W = np.arange(9.0).reshape(3, 3) / 10 - 0.4

    def penalty(W):
        f = lambda x: np.sum(np.tanh(W @ x))     # noqa: E731
        return np.sum(sg.grad(lambda x: f(x))(X) ** 2)

    def penalty_partial(W):
        f = functools.partial(lambda W, x: np.sum(np.tanh(W @ x)), W)
        return np.sum(sg.grad(lambda x: f(x))(X) ** 2)

    def penalty_autograd(W):
        return anp.sum(autograd.grad(lambda x: anp.sum(anp.tanh(anp.dot(W, x))))(X) ** 2)
    expected = autograd.grad(penalty_autograd)(W)
    np.testing.assert_allclose(expected, central(penalty_autograd, [W], 0), rtol=1e-6,
                               atol=1e-8)
    assert np.max(np.abs(expected)) > 0.1
    for fn in (penalty, penalty_partial):
        np.testing.assert_allclose(fn(W), penalty_autograd(W), rtol=1e-12)
        np.testing.assert_allclose(sg.grad(fn)(W), expected, rtol=1e-10, atol=1e-12)


def test_gradient_through_grad_of_two_arguments_calling_a_closure():
    """The same with a lambda of two arguments (both gradients, or one by wrt): the
    call is differentiated as sg.vjp of the lambda taken as an argument, pulled back
    from 1.0 (a located refusal before)."""
    W = np.arange(9.0).reshape(3, 3) / 10 - 0.4

    def penalty(W):
        f = lambda x: np.sum(np.tanh(W @ x))     # noqa: E731
        gx, gc = sg.grad(lambda x, c: f(x) * c)(X, 2.0)
        return np.sum(gx ** 2) + gc * np.sum(gx) + \
            np.sum(sg.grad(lambda x, c: f(x) * c ** 2, wrt=0)(X, 0.5))

    def penalty_autograd(W):
        f = lambda x: anp.sum(anp.tanh(anp.dot(W, x)))     # noqa: E731
        lam = lambda x, c: f(x) * c                         # noqa: E731
        gx, gc = autograd.grad(lam, 0)(X, 2.0), autograd.grad(lam, 1)(X, 2.0)
        return anp.sum(gx ** 2) + gc * anp.sum(gx) + \
            anp.sum(autograd.grad(lambda x, c: f(x) * c ** 2, 0)(X, 0.5))
    expected = autograd.grad(penalty_autograd)(W)
    np.testing.assert_allclose(expected, central(penalty_autograd, [W], 0), rtol=1e-6,
                               atol=1e-8)
    assert np.max(np.abs(expected)) > 0.1
    np.testing.assert_allclose(penalty(W), penalty_autograd(W), rtol=1e-12)
    np.testing.assert_allclose(sg.grad(penalty)(W), expected, rtol=1e-10, atol=1e-12)
    v = np.cos(W)
    hvp_autograd = autograd.grad(lambda w: anp.sum(autograd.grad(penalty_autograd)(w) * v))(W)
    np.testing.assert_allclose(sg.hvp(penalty)(W, v=v), hvp_autograd, rtol=1e-9, atol=1e-11)


def pulled_rows(x):
    return np.sin(x) * x[0]


def test_reverse_over_forward_over_a_pullback_inside():
    """sg.grad of the tangent of a function that calls sg.vjp's pullback: the pullback
    is a closure holding the record, whose tangent is a dict of what it holds (was a
    refusal, then 'tangents of its *args')."""
    u, v = np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 2.0])

    def pulled(x):
        _, pullback = sg.vjp(pulled_rows, x)
        return pullback(u)

    def energy(x):
        _, t = sg.jvp(pulled, (x,), (v,))
        return np.sum(t ** 2)

    def energy_autograd(x):
        J = autograd.jacobian(lambda y: anp.sin(y) * y[0])
        return anp.sum(autograd.make_jvp(lambda y: anp.dot(u, J(y)))(x)(v)[1] ** 2)
    expected = autograd.grad(energy_autograd)(X)
    np.testing.assert_allclose(expected, central(energy_autograd, [X], 0), rtol=1e-6,
                               atol=1e-8)
    np.testing.assert_allclose(energy(X), energy_autograd(X), rtol=1e-12)
    np.testing.assert_allclose(sg.grad(energy)(X), expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(sg.jacobian(sg.grad(energy), mode="forward")(X),
                               autograd.hessian(energy_autograd)(X), rtol=1e-9, atol=1e-11)


def test_gradient_of_a_pullback_called_twice_inside():
    """sg.vjp's pullback called twice inside differentiated code: each call sweeps its
    own copy of the record, whose comprehension's list the backward sweep pops (the
    second raised IndexError); grad and hvp against autograd."""
    E1, E2 = np.arange(9.0).reshape(3, 3), np.eye(3)

    def twice(x):
        _, pullback = sg.vjp(columns, x)
        return np.sum(pullback(E1) * pullback(E2))

    def twice_autograd(x):
        pullback, _ = autograd.make_vjp(columns_autograd)(x)
        return anp.sum(pullback(E1) * pullback(E2))
    expected = autograd.grad(twice_autograd)(X)
    np.testing.assert_allclose(expected, central(twice_autograd, [X], 0), rtol=1e-6,
                               atol=1e-8)
    np.testing.assert_allclose(twice(X), twice_autograd(X), rtol=1e-12)
    np.testing.assert_allclose(sg.grad(twice)(X), expected, rtol=1e-10, atol=1e-12)
    v = np.array([1.0, -0.5, 2.0])
    np.testing.assert_allclose(sg.hvp(twice)(X, v=v), autograd.hessian(twice_autograd)(X) @ v,
                               rtol=1e-9, atol=1e-11)
