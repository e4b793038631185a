"""Higher derivatives and the operators built on the two modes (issue 5): jacobian,
hessian, hvp, gradcheck, and composition of transformations (grad of grad, jvp of grad,
grad of a function that calls sg.jvp, third derivatives).

Second derivatives are checked against central finite differences of the first (the
gradient srcgrad computes, itself checked in tests/test_control_flow.py), on the
control-flow table of functions.
"""
import copy

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import srcgrad as sg
from srcgrad import rules, runtime
from srcgrad.rules import registry as table
import test_control_flow as cf
from gradcheck_util import float_params, is_float_leaf

_rng = np.random.default_rng(11)


def random_like(x):
    if isinstance(x, dict):
        return {k: random_like(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(random_like(v) for v in x)
    if not is_float_leaf(x):
        return None
    return _rng.normal(size=np.shape(x)) if isinstance(x, np.ndarray) else float(_rng.normal())


def axpy(a, t, x):
    if isinstance(x, dict):
        return {k: axpy(a, t[k], x[k]) for k in x}
    if isinstance(x, (list, tuple)):
        return type(x)(axpy(a, ti, xi) for ti, xi in zip(t, x))
    if t is None:
        return x
    return type(x)(x + a * t) if isinstance(x, float) else x + a * t


def flat(g):
    """A gradient (any structure) as one float vector."""
    if isinstance(g, dict):
        return np.concatenate([flat(g[k]) for k in sorted(g)]) if g else np.zeros(0)
    if isinstance(g, (list, tuple)):
        return np.concatenate([flat(v) for v in g]) if g else np.zeros(0)
    if g is None:
        return np.zeros(0)
    return np.ravel(np.asarray(g, dtype=float))


# -- second derivatives on the control-flow table --------------------------------------------

SECOND_CASES = [pytest.param(f, args, wrt, id=ident) for f, args, wrt, ident, rtol, atol, ref,
                xfail in cf.CASES if not xfail and not ref]


def _hessian_fd(f, args, i, v, eps=1e-5):
    """Central differences of srcgrad's gradient along ``v``: H v."""
    g = sg.grad(f, wrt=i)

    def at(a):
        new = copy.deepcopy(list(args))
        new[i] = axpy(a, v, new[i])
        return flat(g(*new))
    return (at(eps) - at(-eps)) / (2 * eps)


@pytest.mark.parametrize("f, args, wrt", SECOND_CASES)
def test_second_derivatives_through_control_flow(f, args, wrt):
    i = (float_params(f, args) if wrt is None else
         ([wrt] if isinstance(wrt, int) else list(wrt)))[0]
    v = random_like(args[i])
    fd = _hessian_fd(f, args, i, v)
    tol = dict(rtol=1e-4, atol=1e-6 * max(1.0, float(np.max(np.abs(fd))) if fd.size else 1.0))
    # forward over reverse: jvp of the generated gradient
    np.testing.assert_allclose(flat(sg.hvp(f, wrt=i)(*copy.deepcopy(args), v=v)), fd, **tol,
                               err_msg="forward over reverse (hvp)")
    # reverse over reverse: vjp of the generated gradient (H is symmetric)
    if isinstance(args[i], (float, np.ndarray)):
        g = sg.grad(f, wrt=i)
        # (where the gradient undoes an item update of a list or dict, ad.restore_item,
        # reverse mode refused it; it is an item write again, with its own record)
        _, vjp_fn = sg.vjp(g, *copy.deepcopy(args), wrt=i)
        np.testing.assert_allclose(flat(vjp_fn(v)), fd, **tol, err_msg="reverse over reverse")


# -- grad of grad, third derivatives -------------------------------------------------------------

def sin_cube(x):
    return np.sin(x) * x ** 3


def d3_sin_cube(x):
    return -np.cos(x) * x ** 3 - 9 * np.sin(x) * x ** 2 + 18 * np.cos(x) * x + 6 * np.sin(x)


def loop_poly(x):
    y = x
    for i in range(3):
        if y > 0:
            y = y * x + np.sin(y)
        else:
            y = y - x * x
    return y


@pytest.mark.parametrize("x", [0.4, -1.3, 2.0])
def test_third_derivative_of_a_scalar_function(x):
    d1, d2, d3 = sg.grad(sin_cube), sg.grad(sg.grad(sin_cube)), \
        sg.grad(sg.grad(sg.grad(sin_cube)))
    assert d1(x) == pytest.approx(np.cos(x) * x ** 3 + 3 * np.sin(x) * x ** 2, rel=1e-12)
    assert d2(x) == pytest.approx(-np.sin(x) * x ** 3 + 6 * np.cos(x) * x ** 2
                                  + 6 * np.sin(x) * x, rel=1e-12)
    assert d3(x) == pytest.approx(d3_sin_cube(x), rel=1e-12)
    eps = 1e-5
    d4 = sg.grad(d3)(x)
    assert d4 == pytest.approx((d3(x + eps) - d3(x - eps)) / (2 * eps), rel=1e-6)


@pytest.mark.parametrize("x", [0.7, 1.4])
def test_grad_of_grad_through_loops_and_branches(x):
    d2 = sg.grad(sg.grad(loop_poly))
    d1 = sg.grad(loop_poly)
    eps = 1e-6
    assert d2(x) == pytest.approx((d1(x + eps) - d1(x - eps)) / (2 * eps), rel=1e-6)
    d3 = sg.grad(d2)
    assert d3(x) == pytest.approx((d2(x + eps) - d2(x - eps)) / (2 * eps), rel=1e-5)


def test_grad_of_grad_source_is_generated_code():
    src = sg.grad(sg.grad(sin_cube)).source
    assert src.startswith("def grad_grad_sin_cube(x):")
    assert "ad.seed" in src


def mlp_loss(w1, w2, x, y):
    h = np.tanh(x @ w1)
    out = h @ w2
    return np.mean((out - y) ** 2)


def test_jvp_of_grad_is_forward_over_reverse():
    w1, w2 = _rng.normal(size=(3, 4)), _rng.normal(size=(4, 2))
    x, y = _rng.normal(size=(5, 3)), _rng.normal(size=(5, 2))
    v = _rng.normal(size=(3, 4))
    g = sg.grad(mlp_loss, wrt=0)
    out, dout = sg.jvp(g, (w1, w2, x, y), (v, None, None, None))
    np.testing.assert_allclose(out, g(w1, w2, x, y), rtol=1e-12)
    eps = 1e-6
    fd = (g(w1 + eps * v, w2, x, y) - g(w1 - eps * v, w2, x, y)) / (2 * eps)
    np.testing.assert_allclose(dout, fd, rtol=1e-6, atol=1e-9)


V = np.array([0.5, -1.0, 2.0])


def wavy(x):
    return np.sum(np.sin(x) * x)


def jvp_inside(x):
    out, t = sg.jvp(wavy, (x,), (V,))
    return out * t + np.sum(x ** 2)


def test_grad_of_a_function_that_calls_jvp():
    x = np.array([0.3, -0.8, 1.1])
    g = sg.grad(jvp_inside)(x)
    eps = 1e-6
    fd = np.array([(jvp_inside(x + eps * e) - jvp_inside(x - eps * e)) / (2 * eps)
                   for e in np.eye(3)])
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-9)
    assert "jvp_of_wavy_fwd" in sg.grad(jvp_inside).source


# -- hvp and hessian -------------------------------------------------------------------------

def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def two_args(a, b):
    return np.sum(np.exp(a) * b[0] ** 2) + np.sum(a * a) * np.sum(b ** 3)


def test_hessian_of_rosenbrock():
    x = np.array([0.3, -0.2, 1.1, 0.7])
    H = sg.hessian(rosenbrock)(x)
    expect = np.zeros((4, 4))
    for i in range(3):
        expect[i, i] += 1200 * x[i] ** 2 - 400 * x[i + 1] + 2
        expect[i + 1, i + 1] += 200
        expect[i, i + 1] = expect[i + 1, i] = -400 * x[i]
    np.testing.assert_allclose(H, expect, rtol=1e-12)


def test_hessian_blocks_for_several_arguments():
    a, b = _rng.normal(size=3), _rng.normal(size=2)
    H = sg.hessian(two_args, wrt=(0, 1))(a, b)
    assert [[blk.shape for blk in row] for row in H] == [[(3, 3), (3, 2)], [(2, 3), (2, 2)]]
    np.testing.assert_allclose(H[0][1], H[1][0].T, rtol=1e-12)
    eps = 1e-6
    g = sg.grad(two_args, wrt=0)
    fd = np.stack([(g(a, b + eps * e) - g(a, b - eps * e)) / (2 * eps) for e in np.eye(2)], -1)
    np.testing.assert_allclose(H[0][1], fd, rtol=1e-6)


floats = st.floats(-1.5, 1.5, allow_nan=False, allow_infinity=False)


@settings(max_examples=20, deadline=None)
@given(hnp.arrays(np.float64, 4, elements=floats), hnp.arrays(np.float64, 4, elements=floats))
def test_hvp_equals_hessian_times_v(x, v):
    Hv = sg.hvp(rosenbrock)(x, v=v)
    np.testing.assert_allclose(Hv, sg.hessian(rosenbrock)(x) @ v, rtol=1e-10, atol=1e-8)


def test_hvp_for_several_arguments():
    a, b = _rng.normal(size=3), _rng.normal(size=2)
    va, vb = _rng.normal(size=3), _rng.normal(size=2)
    ha, hb = sg.hvp(two_args, wrt=(0, 1))(a, b, v=(va, vb))
    H = sg.hessian(two_args, wrt=(0, 1))(a, b)
    np.testing.assert_allclose(ha, H[0][0] @ va + H[0][1] @ vb, rtol=1e-10)
    np.testing.assert_allclose(hb, H[1][0] @ va + H[1][1] @ vb, rtol=1e-10)


# -- Jacobians --------------------------------------------------------------------------------

def stretch(x, w):
    """R^3 x R^(3x2) -> R^(4x2): not square."""
    h = np.tanh(x[:, None] * w)
    return np.concatenate([h, np.sum(h, axis=0, keepdims=True) ** 2], axis=0)


def pair(x):
    return np.sin(x[:2]) * x[2], np.sum(x ** 3)


def _fd_jacobian(f, args, i, eps=1e-6):
    x = args[i]
    cols = []
    for idx in np.ndindex(*np.shape(x)):
        e = np.zeros(np.shape(x))
        e[idx] = eps
        hi = list(args)
        lo = list(args)
        hi[i], lo[i] = x + e, x - e
        cols.append((np.asarray(f(*hi)) - np.asarray(f(*lo))) / (2 * eps))
    out = np.asarray(f(*args))
    return np.stack(cols, axis=-1).reshape(out.shape + np.shape(x))


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_jacobian_of_a_non_square_map(mode):
    x, w = _rng.normal(size=3), _rng.normal(size=(3, 2))
    Jx, Jw = sg.jacobian(stretch, wrt=(0, 1), mode=mode)(x, w)
    assert Jx.shape == (4, 2, 3) and Jw.shape == (4, 2, 3, 2)
    np.testing.assert_allclose(Jx, _fd_jacobian(stretch, (x, w), 0), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(Jw, _fd_jacobian(stretch, (x, w), 1), rtol=1e-6, atol=1e-9)
    J = sg.jacobian(stretch, wrt=1, mode=mode)(x, w)
    np.testing.assert_allclose(J, Jw, rtol=1e-12)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_jacobian_of_a_tuple_output(mode):
    x = np.array([0.2, -0.4, 0.9])
    Ja, Jb = sg.jacobian(pair, mode=mode)(x)
    assert Ja.shape == (2, 3) and Jb.shape == (3,)
    np.testing.assert_allclose(Ja, np.array([[np.cos(.2) * .9, 0, np.sin(.2)],
                                             [0, np.cos(-.4) * .9, np.sin(-.4)]]), rtol=1e-12)
    np.testing.assert_allclose(Jb, 3 * x ** 2, rtol=1e-12)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_jacobian_through_setitem_and_loops(mode):
    f, args = next((c[0], c[1]) for c in cf.CASES if c[3] == "setitem_in_loop")
    i = float_params(f, args)[0]
    J = sg.jacobian(f, wrt=i, mode=mode)(*copy.deepcopy(args))
    np.testing.assert_allclose(J, sg.grad(f, wrt=i)(*copy.deepcopy(args)), rtol=1e-12)


def test_jacobian_of_scalar_function_of_scalar():
    J = sg.jacobian(sin_cube)(0.5)
    assert np.shape(J) == () and J == pytest.approx(np.cos(.5) * .125 + 3 * np.sin(.5) * .25)


# -- gradcheck ---------------------------------------------------------------------------------

def my_op(x, y):
    return x * np.sin(y)


def _my_op_adjoint(g, ans, x, y):
    return g * np.sin(y), g * x * np.cos(y) * 1.5      # deliberately wrong for y


def _my_op_tangent(ans, x, y, dx, dy):
    return dx * np.sin(y) + x * np.cos(y) * dy


def uses_my_op(x, y):
    return np.sum(my_op(x, y) ** 2)


@pytest.fixture
def wrong_adjoint():
    """my_op's (wrong) adjoint and (right) tangent, registered for the test only: the
    table is global, and tests/test_rules.py checks every rule in it."""
    sg.adjoint(my_op)(_my_op_adjoint)
    sg.tangent(my_op)(_my_op_tangent)
    yield
    table._RULES.pop(id(my_op), None)


def test_gradcheck_catches_a_wrong_user_adjoint(wrong_adjoint):
    x, y = np.array([0.3, -0.2]), np.array([0.5, 1.2])
    with pytest.raises(sg.GradcheckError, match=r"d\(output\) / dy\[0\] \(input 'y', argument "
                                                r"1\): reverse mode gives .* finite "
                                                r"differences give .*forward mode gives"):
        sg.gradcheck(uses_my_op, x, y)
    assert sg.gradcheck(uses_my_op, x, y, raise_exception=False) is False
    assert sg.gradcheck(uses_my_op, x, y, wrt=0)          # the adjoint for x is right
    assert sg.gradcheck(uses_my_op, x, y, modes=("forward",))


def test_gradcheck_passes_and_promotes_to_float64():
    x = np.array([0.2, -0.4, 0.9], dtype=np.float32)
    w = np.ones((3, 2), dtype=np.float32)
    assert sg.gradcheck(stretch, x, w)
    assert sg.gradcheck(pair, x)


def test_gradcheck_names_the_element_of_a_non_scalar_output(wrong_adjoint):
    def wrong_second_column(x):
        return np.stack([x * 2.0, my_op(x, x)])
    with pytest.raises(sg.GradcheckError, match=r"d\(output\)\[1, 0\] / dx\[0\]"):
        sg.gradcheck(wrong_second_column, np.array([0.3, 0.6]))


# -- generated code is transformable: every runtime helper differentiates -----------------

def test_every_runtime_helper_has_a_rule():
    """Generated code calls the runtime helpers and the rule kernels (``ad``, the
    namespace built by srcgrad.rules); transforming it again (grad of grad) needs a
    rule for each runtime helper, or a no-gradient entry."""
    missing = []
    ad = rules.namespace()
    for name in ad.__all__:
        fn = getattr(ad, name)
        if getattr(fn, "__module__", "") != "srcgrad.runtime" or name.startswith("_"):
            continue
        if name in ("restore_item",):      # an item write, which reverse mode follows
            continue                       # as one (modes/adjoint.py, bwd_restore)
        if getattr(fn, "__srcgrad_resolved_when_run__", False):
            # ad.try_call, ad.call_with_self: generated code reaches them through the
            # calls resolved at run time (compiler/dynamic.py), whose second derivative
            # is a located error (tests/test_recursion.py, test_objects.py)
            continue
        if rules.lookup(fn) is None and not rules.is_nograd(fn):
            missing.append(name)
    assert not missing, f"runtime helpers without a rule (rules/runtime_rules.py): {missing}"
