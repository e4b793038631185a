"""Issue 2 (and 3): the compiler's public API, wrt semantics, names, errors, caching.

Gradients are checked against float64 central finite differences (gradcheck_util).
"""
import importlib
import inspect
import linecache
import re
import math
import sys
import traceback

import numpy
import numpy as np
import pytest

import srcgrad as sg
import srcgrad.compiler.driver as transform
import clash_module
from gradcheck_util import assert_close, check_grads, numeric_grad, same_values, deep_copy

HERE = __file__
rng = np.random.default_rng(7)


def line_of(func, text):
    """The line number (in this file) of the first line of ``func`` containing ``text``."""
    lines, first = inspect.getsourcelines(func)
    for i, line in enumerate(lines):
        if text in line:
            return first + i
    raise AssertionError(f"{text!r} not in {func.__name__}")


# =========================================================================================
# API forms
# =========================================================================================

X_SEED = np.array([[1., 2.], [3., 4.]])


@sg.grad(wrt=("w1", "w2"))
def seed_loss(x, w1, w2):
    l1 = x * w1
    l2 = l1 + w2
    return l2.mean()


def plain_loss(x, w1, w2):
    l1 = x * w1
    l2 = l1 + w2
    return l2.mean()


@sg.grad
def bare_decorated(x, w):
    return np.sum(np.tanh(x @ w) ** 2)


def test_quickstart_seed_numbers():
    dw1, dw2 = seed_loss(X_SEED, 2.0, 3.0)
    assert dw1 == pytest.approx(2.5) and dw2 == pytest.approx(1.0)
    assert np.ndim(dw1) == 0 and np.ndim(dw2) == 0
    assert "def " in seed_loss.source and "dw1" in seed_loss.source


def test_bare_decorator_means_all_float_arguments():
    x, w = rng.normal(size=(2, 3)), rng.normal(size=(3, 4))
    dx, dw = bare_decorated(x, w)
    assert_close(dx, numeric_grad(_bare, (x, w), 0), "dx")
    assert_close(dw, numeric_grad(_bare, (x, w), 1), "dw")


def _bare(x, w):
    return np.sum(np.tanh(x @ w) ** 2)


def test_grad_call_form_and_decorator_with_wrt_agree():
    g1 = sg.grad(plain_loss, wrt=("w1", "w2"))(X_SEED, 2.0, 3.0)
    g2 = seed_loss(X_SEED, 2.0, 3.0)
    assert g1 == g2


def test_value_and_grad():
    vg = sg.value_and_grad(plain_loss, wrt=(1, 2))
    value, (dw1, dw2) = vg(X_SEED, 2.0, 3.0)
    assert value == plain_loss(X_SEED, 2.0, 3.0)
    assert (dw1, dw2) == pytest.approx((2.5, 1.0))
    value, dx = sg.value_and_grad(plain_loss, wrt=0)(X_SEED, 2.0, 3.0)
    assert value == plain_loss(X_SEED, 2.0, 3.0)
    assert_close(dx, numeric_grad(plain_loss, (X_SEED, 2.0, 3.0), 0))
    assert "def " in vg.source


def nonscalar_out(x, W):
    return np.tanh(x @ W) * 2.0


def two_outputs(x, w):
    return x * w, np.sum(np.sin(x) * w)


def test_vjp_nonscalar_output_with_user_cotangent():
    x, W = rng.normal(size=(2, 3)), rng.normal(size=(3, 4))
    ct = rng.normal(size=(2, 4))
    out, vjp_fn = sg.vjp(nonscalar_out, x, W)
    assert np.array_equal(out, nonscalar_out(x, W))
    dx, dW = vjp_fn(ct)

    def scalarized(x, W):
        return np.sum(nonscalar_out(x, W) * ct)
    assert_close(dx, numeric_grad(scalarized, (x, W), 0), "dx")
    assert_close(dW, numeric_grad(scalarized, (x, W), 1), "dW")
    out, vjp_fn = sg.vjp(nonscalar_out, x, W, wrt="W")
    assert_close(vjp_fn(ct), numeric_grad(scalarized, (x, W), 1), "dW alone")
    assert "def " in vjp_fn.source


def test_vjp_tuple_output_takes_tuple_cotangent():
    x, w = rng.normal(size=3), 0.7
    (a, b), vjp_fn = sg.vjp(two_outputs, x, w)
    ea, eb = two_outputs(x, w)
    assert np.array_equal(a, ea) and b == eb
    ca, cb = rng.normal(size=3), 1.3
    dx, dw = vjp_fn((ca, cb))

    def scalarized(x, w):
        p, q = two_outputs(x, w)
        return np.sum(p * ca) + q * cb
    assert_close(dx, numeric_grad(scalarized, (x, w), 0), "dx")
    assert_close(dw, numeric_grad(scalarized, (x, w), 1), "dw")
    assert np.ndim(dw) == 0


def test_vjp_twice_with_different_cotangents():
    x, W = rng.normal(size=(2, 3)), rng.normal(size=(3, 4))
    _, vjp_fn = sg.vjp(nonscalar_out, x, W, wrt=0)
    c1, c2 = rng.normal(size=(2, 4)), rng.normal(size=(2, 4))
    g1, g2, g12 = vjp_fn(c1), vjp_fn(c2), vjp_fn(c1 + c2)
    assert np.allclose(g1 + g2, g12)


def test_source_function_and_attribute():
    src = sg.source(plain_loss, wrt=("w1", "w2"))
    assert isinstance(src, str) and src.startswith("def ")
    compile(src, "<check>", "exec")            # valid Python
    g = sg.grad(plain_loss, wrt=("w1", "w2"))
    g(X_SEED, 2.0, 3.0)
    assert "dw1" in g.source and "dw2" in g.source
    assert "plain_loss" in g.source           # the docstring names the function
    # a comment points at the user's source line
    assert f"line {line_of(plain_loss, 'l2 = l1 + w2')}: l2 = l1 + w2" in g.source


def test_grad_of_non_scalar_raises_pytorch_error():
    # PyTorch's words, then the output's shape and what to use instead
    with pytest.raises(RuntimeError, match=r"^grad can be implicitly created only for scalar "
                                           r"outputs: nonscalar_out returned an output of "
                                           r"shape \(2, 4\)\. .*sg\.jacobian.*sg\.vjp.*has_aux"):
        sg.grad(nonscalar_out)(np.ones((2, 3)), np.ones((3, 4)))


# =========================================================================================
# wrt
# =========================================================================================

def three(a, b, c):
    return np.sum(a * b) * c + np.sum(b ** 2)


A3, B3, C3 = rng.normal(size=(2, 3)), rng.normal(size=3), 0.8


def _fd3(i):
    return numeric_grad(three, (A3, B3, C3), i)


@pytest.mark.parametrize("wrt, expected", [
    (0, 0), (1, 1), (2, 2), (-1, 2), (-3, 0), ("a", 0), ("b", 1), ("c", 2),
    ((0,), (0,)), (("b",), (1,)), ((0, 2), (0, 2)), (("c", "a"), (2, 0)),
    ((1, "c"), (1, 2)), ((-1, 0), (2, 0)),
])
def test_wrt_forms(wrt, expected):
    got = sg.grad(three, wrt=wrt)(A3, B3, C3)
    if isinstance(expected, int):
        assert not isinstance(got, tuple)
        assert_close(got, _fd3(expected))
    else:
        assert isinstance(got, tuple) and len(got) == len(expected)
        for g, i in zip(got, expected):
            assert_close(g, _fd3(i))


def test_wrt_none_selects_floating_arguments():
    got = sg.grad(three)(A3, B3, C3)
    assert isinstance(got, tuple) and len(got) == 3
    for g, i in zip(got, range(3)):
        assert_close(g, _fd3(i))


def int_and_float(x, n, k, w):
    return np.sum(x * n) * k * w


def test_wrt_none_skips_integers_and_single_leaf_is_not_a_tuple():
    x = rng.normal(size=3)
    got = sg.grad(int_and_float)(x, 3, 2, np.int64(4))
    assert not isinstance(got, tuple)
    assert_close(got, np.full(3, 24.0))
    got = sg.grad(int_and_float)(x, 3, 2, 0.5)       # x and w are float
    assert isinstance(got, tuple) and len(got) == 2
    assert_close(got[0], np.full(3, 3.0))
    assert_close(got[1], np.sum(x * 3) * 2)


def test_wrt_errors():
    with pytest.raises(ValueError):
        sg.grad(three, wrt=3)(A3, B3, C3)
    with pytest.raises(ValueError):
        sg.grad(three, wrt="z")(A3, B3, C3)
    with pytest.raises(TypeError):
        sg.grad(three, wrt=1.5)(A3, B3, C3)


def test_keyword_call():
    got = sg.grad(three, wrt="b")(A3, c=C3, b=B3)
    assert_close(got, _fd3(1))


def scalar_args(a, b):
    return a * a * b + math.sin(b)


def test_float_arguments_get_float_gradients():
    for a, b in [(0.3, 1.2), (np.float64(0.3), np.float64(1.2))]:
        da, db = sg.grad(scalar_args)(a, b)
        assert np.ndim(da) == 0 and np.ndim(db) == 0
        assert da == pytest.approx(2 * 0.3 * 1.2) and db == pytest.approx(0.09 + math.cos(1.2))


def test_float32_gradients_stay_float32():
    x = rng.normal(size=(2, 2)).astype(np.float32)
    g = sg.grad(plain_loss, wrt=0)(x, 2.0, 3.0)
    assert g.dtype == np.float32


def dict_params(p, x):
    return np.sum(np.tanh(x @ p["w"] + p["b"]) ** 2) * p["s"]


def list_params(ws, x):
    return np.sum((x @ ws[0]) @ ws[1])


def tuple_params(ab, x):
    return np.sum(ab[0] * x) + np.sum(ab[1] ** 2)


def test_container_arguments_get_same_structure():
    p = {"w": rng.normal(size=(3, 2)), "b": rng.normal(size=2), "s": 1.5}
    x = rng.normal(size=(4, 3))
    check_grads(dict_params, (p, x))
    g = sg.grad(dict_params, wrt="p")(p, x)
    assert isinstance(g, dict) and list(g) == ["w", "b", "s"]
    check_grads(list_params, ([rng.normal(size=(3, 3)), rng.normal(size=(3, 2))], x))
    check_grads(tuple_params, ((rng.normal(size=3), rng.normal(size=2)), rng.normal(size=3)))


# =========================================================================================
# names: clashes, reassignment, repeated use, constants
# =========================================================================================

def clash_adjoint_names(x, dx):
    ad = x * dx
    stack = ad + 1.0
    result = 0.0
    cond = 0.0
    trips = 0
    for i in range(3):
        if np.sum(stack) > -100:
            result = result + np.sum(stack * ad)
            stack = stack * 0.5
        trips = trips + 1
    ddx = result * cond + result
    return ddx * trips


def clash_np_local(x):
    np = 2.0                               # noqa: F811  (a user's own 'np')
    y = numpy.sin(x) * np
    dy = numpy.exp(y)
    return numpy.sum(dy * x)


def clash_math_and_sg(x):
    math = 3.0                             # noqa: F811
    sg = x * math                          # noqa: F811
    _stack = sg * sg
    return numpy.sum(numpy.log1p(_stack))


@pytest.mark.parametrize("f, args", [
    (clash_adjoint_names, (rng.normal(size=3), rng.normal(size=3))),
    (clash_np_local, (rng.normal(size=3),)),
    (clash_math_and_sg, (rng.normal(size=3),)),
    (clash_module.uses_onp, (rng.normal(size=3), rng.normal(size=3))),
], ids=["dx-ad-stack-result", "np-local", "math-sg-_stack", "np-global-not-numpy"])
def test_name_clashes(f, args):
    check_grads(f, args)


def test_generated_code_keeps_user_names_and_avoids_clashes():
    g = sg.grad(clash_adjoint_names, wrt="x")
    g(rng.normal(size=3), rng.normal(size=3))
    src = g.source
    # the adjoint of the user's 'dx' cannot be called 'dx' (the parameter) ...
    assert "def grad_clash_adjoint_names(x, dx):" in src
    # ... and the helper modules are not the user's 'ad' / 'stack'
    assert "ad = x * dx" in src
    assert clash_module.np == "not numpy" and clash_module.ad is None
    assert clash_module.stack == []


def reassign(a, b, c):
    t = a * b
    t = t + c
    t = t * t
    return np.sum(t)


def repeated_use(x):
    y = x * x * x + x
    z = y * x + np.sin(y) * y
    return np.sum(z + x)


def constants(x):
    y = 2.0 * x + 3.0
    z = y * 0 + np.pi
    return np.sum(y * z) + 7.0


def constant_output(x, w):
    return 3.0


def zero_times(x):
    return np.sum(x * 0)


def unused_argument(x, w):
    return np.sum(x * x)


@pytest.mark.parametrize("f, args", [
    (reassign, (rng.normal(size=3), rng.normal(size=3), rng.normal(size=3))),
    (repeated_use, (rng.normal(size=(2, 2)),)),
    (constants, (rng.normal(size=3),)),
    (zero_times, (rng.normal(size=(2, 3)),)),
    (unused_argument, (rng.normal(size=3), rng.normal(size=(2, 2)))),
])
def test_straight_line(f, args):
    check_grads(f, args)


def test_constant_output_gives_zero_gradients_of_the_right_shape():
    x, w = rng.normal(size=(2, 3)), 0.5
    dx, dw = sg.grad(constant_output)(x, w)
    assert isinstance(dx, np.ndarray) and dx.shape == (2, 3) and not dx.any()
    assert np.ndim(dw) == 0 and dw == 0
    dx = sg.grad(zero_times)(x)
    assert isinstance(dx, np.ndarray) and dx.shape == (2, 3) and not dx.any()


# =========================================================================================
# broadcasting in every binary operation
# =========================================================================================

def bc_add(x, y):
    return np.sum(np.sin(x + y))


def bc_sub(x, y):
    return np.sum(np.sin(x - y))


def bc_mul(x, y):
    return np.sum(np.sin(x * y))


def bc_div(x, y):
    return np.sum(np.sin(x / y))


def bc_pow(x, y):
    return np.sum(x ** y)


def bc_matmul(x, y):
    return np.sum(np.tanh(x @ y))


def bc_np_funcs(x, y):
    return np.sum(np.maximum(x, y) * np.minimum(x, y) + np.arctan2(x, y) +
                  np.hypot(x, y) + np.logaddexp(x, y))


SHAPE_PAIRS = [((3, 1), (1, 4)), ((4,), (3, 4)), ((3, 4), (4,)), ((2, 1, 3), (4, 1)),
               ((), (2, 3)), ((2, 3), ()), ((1,), (3, 1)), ((2, 3), (2, 3))]


def _arr(shape, positive=False):
    if positive:
        v = rng.uniform(0.5, 1.5, size=shape)
    else:
        v = rng.normal(size=shape)
    return float(v) if shape == () else v


@pytest.mark.parametrize("f", [bc_add, bc_sub, bc_mul, bc_div, bc_pow, bc_np_funcs])
@pytest.mark.parametrize("shapes", SHAPE_PAIRS, ids=str)
def test_broadcasting_elementwise(f, shapes):
    positive = f in (bc_div, bc_pow, bc_np_funcs)
    check_grads(f, (_arr(shapes[0], positive), _arr(shapes[1], positive)), by_name=False)


@pytest.mark.parametrize("shapes", [
    ((3,), (3,)), ((3,), (3, 4)), ((2, 3), (3,)), ((2, 3), (3, 4)),
    ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)), ((5, 2, 3), (5, 3, 4)),
    ((2, 1, 2, 3), (4, 3, 2)), ((1, 2, 3), (5, 3, 2)), ((4, 3), (2, 1, 3, 2)),
], ids=str)
def test_broadcasting_matmul(shapes):
    check_grads(bc_matmul, (_arr(shapes[0]), _arr(shapes[1])), by_name=False)


def softmax_ce(W, X, Y):
    z = X @ W
    p = np.exp(z) / np.sum(np.exp(z), axis=1, keepdims=True)
    return -np.sum(Y * np.log(p)) / X.shape[0]


def test_softmax_written_with_division():
    X, W = rng.normal(size=(5, 3)), rng.normal(size=(3, 4)) * 0.3
    Y = np.eye(4)[[0, 3, 1, 1, 2]]
    check_grads(softmax_ce, (W, X, Y), wrt=(0, 1))


# =========================================================================================
# errors
# =========================================================================================

def uses_try(x):
    try:
        y = x * 2
    except ValueError:
        y = x
    return np.sum(y)


def uses_yield(x):
    yield np.sum(x)


def uses_global(x):
    def setter():           # (a global write in the differentiated function itself
        global _SOME_GLOBAL  # works: tests/test_nonlocal.py)
        _SOME_GLOBAL = 1.0
    setter()
    return np.sum(x)


def uses_class(x):
    class Box:
        pass
    return np.sum(x)


def uses_lambda(x):
    sq = lambda v: v * v  # noqa: E731
    return np.sum(sq(x))


def uses_comprehension(x):
    return sum([np.sum(v * v) for v in x])


def uses_generator(x):
    return sum(np.sum(v * v) for v in x)


def uses_nested_async(x):
    async def later():
        return 1
    return np.sum(x)


async def is_async(x):
    return np.sum(x)


def uses_walrus(x):
    if (n := np.sum(x)) > 0:
        return n
    return -n


UNSUPPORTED = [
    (uses_yield, "yield np.sum", "yield"),
    (uses_global, "global _SOME_GLOBAL", "global"),
    (uses_class, "class Box", "class"),
    (uses_nested_async, "async def later", "async"),
    (is_async, "async def is_async", "async"),
]

# once refused, now lowered to statements (lower/desugar.py): checked against central
# differences (the derivative of sum(v * v) is 2 v; of |sum(x)|, sign(sum(x)))
DESUGARED = [uses_lambda, uses_comprehension, uses_generator, uses_walrus, uses_try]


@pytest.mark.parametrize("f", DESUGARED, ids=[f.__name__ for f in DESUGARED])
def test_desugared_constructs_differentiate(f):
    x = np.array([0.3, -1.2, 0.8])
    g = sg.grad(f)(x)
    eps = 1e-6
    fd = np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(3)])
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("f, text, word", UNSUPPORTED, ids=[u[0].__name__ for u in UNSUPPORTED])
def test_unsupported_syntax_is_located(f, text, word):
    with pytest.raises(sg.UnsupportedSyntaxError) as info:
        sg.grad(f)(np.ones(3))
    e = info.value
    assert isinstance(e, SyntaxError)
    assert word in str(e)
    assert e.filename == HERE
    assert e.lineno == line_of(f, text)
    source_line = linecache.getline(HERE, e.lineno)
    assert e.offset == len(source_line) - len(source_line.lstrip()) + 1
    assert e.text.strip() == source_line.strip()
    assert HERE in str(e) and f"line {e.lineno}" in str(e)


def calls_c_function(x):
    y = np.sin(x)
    return np.sum(np.frompyfunc(math.sin, 1, 1)(y).astype(float))


def calls_ufunc_method(x):
    return np.add.reduce(x * x)


def calls_masked_r_(x):
    return np.sum(np.ma.mr_[x, x] ** 2)      # (np.r_ has a rule: the masked join has none)


def calls_builtin_without_rule(x):
    return np.sum(x) + math.gamma(np.sum(x * x) + 3.0)


@pytest.mark.parametrize("f, name", [
    (calls_ufunc_method, "reduce"), (calls_masked_r_, "np.ma.mr_"), (calls_builtin_without_rule, "math.gamma"),
])
def test_no_rule_no_source_raises_nondifferentiable(f, name):
    with pytest.raises(sg.NonDifferentiableError) as info:
        sg.grad(f)(rng.normal(size=3))
    msg = str(info.value)
    assert name in msg
    assert HERE in msg
    assert "sg.adjoint" in msg          # how to register a rule


def out_argument(x):
    y = np.zeros(3)
    np.multiply(x, x, out=y)
    return np.sum(y)


def out_argument_assigned(x):
    y = np.zeros(3)
    z = np.exp(x, out=y)
    return np.sum(z * y)


def ufunc_at(x):
    y = np.zeros(3)
    np.add.at(y, [0, 0, 2], x)
    return np.sum(y * y)


def inplace_method(x):
    y = x * 1.0
    y.sort()
    return np.sum(y * np.arange(3.0))


@pytest.mark.parametrize("f, text", [
    (out_argument, "np.multiply(x, x, out=y)"), (out_argument_assigned, "out=y"),
    (ufunc_at, "np.add.at"), (inplace_method, "y.sort()"),
])
def test_in_place_numpy_calls_are_rejected_not_silently_zero(f, text):
    with pytest.raises((sg.UnsupportedSyntaxError, sg.NonDifferentiableError)) as info:
        sg.grad(f)(rng.normal(size=3))
    msg = str(info.value)
    assert HERE in msg and f"line {line_of(f, text)}" in msg


def test_lambdas_are_transformed_from_their_file():
    """A lambda's source is found in its file's AST (by line, parameters and column)."""
    assert sg.grad(lambda x: x * 2.0)(1.5) == 2.0
    double, cube = (lambda x: x * 2.0), (lambda x: x * x * x)   # two on one line
    assert sg.grad(double)(1.5) == 2.0 and sg.grad(cube)(2.0) == 12.0
    x = np.array([0.5, -1.0])
    np.testing.assert_allclose(sg.grad(lambda v: np.sum(np.sin(v) * v))(x),
                               np.cos(x) * x + np.sin(x), rtol=1e-12)
    assert "def grad_lambda_(a, b):" in sg.source(lambda a, b: a * b, wrt=0)
    assert sg.grad(sg.grad(lambda t: t ** 3))(2.0) == 12.0
    ns = {}
    exec("f = lambda x: x * 2\n", ns)
    with pytest.raises(TypeError, match="lambda"):
        sg.grad(ns["f"])(1.0)


def test_callables_that_are_not_defs_differentiate_or_raise():
    # a ufunc, a math function: transformed through a small def that calls them
    assert sg.grad(np.sin)(0.5) == pytest.approx(math.cos(0.5), rel=1e-14)
    assert sg.grad(math.sin)(0.5) == pytest.approx(math.cos(0.5), rel=1e-14)
    out, vjp_fn = sg.vjp(np.sin, 0.5)
    assert vjp_fn(1.0) == pytest.approx(math.cos(0.5), rel=1e-14)
    for no_gradient in (len, np.add.reduce):
        with pytest.raises((TypeError, sg.NonDifferentiableError)):
            sg.grad(no_gradient)(1.0)
    ns = {}
    exec("def made_by_exec(x):\n    return x * 2\n", ns)
    with pytest.raises(TypeError, match="cannot read the source of made_by_exec"):
        sg.grad(ns["made_by_exec"])(1.0)


def recursive(x, n):
    if n == 0:
        return np.sum(x)
    return recursive(x * 2.0, n - 1)


def test_recursion_is_differentiated():
    # d/dx sum(x * 2**n) = 2**n (tests/test_recursion.py has the general cases)
    np.testing.assert_allclose(sg.grad(recursive, wrt=0)(np.ones(2), 2), [4.0, 4.0])


# -- aliasing ------------------------------------------------------------------------------

def alias_name(x, v):
    y = x
    y[0] = v
    return np.sum(x * y)


def alias_local(x, v):
    a = x * 1.0
    b = a
    b[1] = v
    return np.sum(a * x)


def alias_slice_view(x, v):
    y = x * 1.0
    z = y[1:]
    z[0] = v
    return np.sum(y * x)


def alias_reshape(x, v):
    y = x * 1.0
    z = y.reshape(3, 1)
    z[0, 0] = v
    return np.sum(y * x)


def alias_np_reshape(x, v):
    y = x * 1.0
    z = np.reshape(y, (3, 1))
    z[0, 0] = v
    return np.sum(y * x)


def alias_row(X, v):
    Y = X * 1.0
    r = Y[0]
    r[1] = v
    return np.sum(Y * X)


def alias_loop_row(X, v):
    Y = X * 1.0
    for row in Y:
        row[0] = v
    return np.sum(Y * X)


def alias_container_element(x, v):
    y = x * 1.0
    d = {"a": y}
    z = d["a"]
    z[0] = v
    return np.sum(y * x)


def alias_chained_subscript(X, v):
    Y = X * 1.0
    Y[0][1] = v
    return np.sum(Y * X)


def alias_chained_container(x, v):
    y = x * 1.0
    d = {"a": y}
    d["a"][0] = v
    return np.sum(y * x)


def _identity(a):
    return a


def alias_through_call(x, v):
    y = x * 1.0
    z = _identity(y)
    z[0] = v
    return np.sum(y * x)


def alias_unpacking(x, v):
    y = x * 1.0
    a, b = y, y
    a[0] = v
    return np.sum(b * x)


ALIASES = [
    (alias_name, "y = x", (3,)), (alias_local, "b = a", (3,)),
    (alias_slice_view, "z = y[1:]", (3,)), (alias_reshape, "z = y.reshape", (3,)),
    (alias_np_reshape, "z = np.reshape", (3,)), (alias_row, "r = Y[0]", (2, 3)),
    (alias_loop_row, "for row in Y", (2, 3)), (alias_container_element, 'z = d["a"]', (3,)),
    (alias_chained_subscript, "Y[0][1] = v", (2, 3)),
    (alias_chained_container, 'd["a"][0] = v', (3,)),
    (alias_through_call, "z = _identity(y)", (3,)), (alias_unpacking, "a, b = y, y", (3,)),
]


@pytest.mark.parametrize("f, text, shape", ALIASES, ids=[a[0].__name__ for a in ALIASES])
def test_aliasing_is_rejected_with_a_located_error(f, text, shape):
    x = rng.normal(size=shape)
    keep = x.copy()
    with pytest.raises(sg.UnsupportedSyntaxError) as info:
        sg.grad(f)(x, 0.5)
    e = info.value
    assert e.filename == HERE and e.lineno == line_of(f, text)
    assert np.array_equal(x, keep)


def read_row_then_write(X, v):
    Y = X * 1.0
    z = Y[0]
    Y[0, 1] = v
    return np.sum(z * X[0])


def test_view_read_before_in_place_write():
    # a row read by int index from a 2-D array is a view (for a 1-D array, a scalar
    # copy): srcgrad checks at run time (ad.alias_guard) and refuses, located
    with pytest.raises(sg.UnsupportedSyntaxError) as info:
        check_grads(read_row_then_write, (rng.normal(size=(2, 3)), 0.5))
    assert info.value.filename == HERE and \
        info.value.lineno == line_of(read_row_then_write, "z = Y[0]")


def scalar_read_then_write(x, v):
    y = x * 1.0
    old = y[0]
    y[0] = v * old
    return np.sum(y * x) + old


def test_scalar_read_then_in_place_write_is_fine():
    check_grads(scalar_read_then_write, (rng.normal(size=3), 0.5))


# -- inputs are never modified ---------------------------------------------------------------

def mutates_its_inputs(x, p, lst, v):
    x[0] = v
    x += 1.0
    p["w"] *= 2.0
    p["new"] = x * v
    lst.append(x * 3.0)
    lst[0] = lst[0] * v
    return np.sum(x * p["w"]) + np.sum(p["new"]) + np.sum(lst[0] + lst[-1])


def test_inputs_are_never_modified():
    x = rng.normal(size=3)
    p = {"w": rng.normal(size=3)}
    lst = [rng.normal(size=3)]
    args = (x, p, lst, 0.7)
    before = deep_copy(args)
    for fn in (sg.grad(mutates_its_inputs, wrt=(0, 1, 2, 3)),
               sg.value_and_grad(mutates_its_inputs, wrt=(0, 3))):
        fn(*args)
        assert same_values(args, before)
    out, vjp_fn = sg.vjp(mutates_its_inputs, *args)
    vjp_fn(1.0)
    assert same_values(args, before)
    assert out == pytest.approx(mutates_its_inputs(*deep_copy(before)))
    check_grads(mutates_its_inputs, args, wrt=(0, 1, 3))


# =========================================================================================
# caching, linecache
# =========================================================================================

def cached_fn(x, w):
    return np.sum(np.sin(x * w))


def test_compiled_function_is_cached(monkeypatch):
    calls = []
    real = transform._build

    def counting(*a, **k):
        calls.append(a[0])
        return real(*a, **k)
    monkeypatch.setattr(transform, "_build", counting)
    x, w = rng.normal(size=3), rng.normal(size=3)
    g = sg.grad(cached_fn, wrt=1)
    first = g(x, w)
    n = len(calls)
    second = g(x, w)
    third = sg.grad(cached_fn, wrt=1)(x * 2, w)       # a new wrapper, same function
    assert len(calls) == n, "a second call recompiled"
    assert np.array_equal(first, second)
    assert not np.array_equal(first, third)


def test_redefining_a_function_recompiles(tmp_path, monkeypatch):
    mod = tmp_path / "redefined_mod.py"
    mod.write_text("import numpy as np\n\ndef f(x):\n    return np.sum(x * x)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    m = importlib.import_module("redefined_mod")
    x = np.array([1.0, 2.0])
    assert np.allclose(sg.grad(m.f)(x), 2 * x)
    mod.write_text("import numpy as np\n\ndef f(x):\n    return np.sum(x * x * x)\n")
    linecache.checkcache(str(mod))
    importlib.invalidate_caches()
    m = importlib.reload(m)
    assert np.allclose(sg.grad(m.f)(x), 3 * x * x)
    sys.modules.pop("redefined_mod", None)


def fails_in_generated_code(x, i):
    y = np.tanh(x)
    z = y[i] * 2.0
    return z * x[0]


def test_traceback_shows_generated_lines():
    g = sg.grad(fails_in_generated_code, wrt=0)
    with pytest.raises(IndexError) as info:
        g(np.ones(3), 7)
    frames = traceback.extract_tb(info.value.__traceback__)
    gen = [fr for fr in frames if fr.filename.startswith("<srcgrad")]
    assert gen, [fr.filename for fr in frames]
    fr = gen[-1]
    assert fr.line and "[i]" in fr.line            # linecache knows the generated line
    assert fr.line.strip() in g.source
    text = "".join(traceback.format_exception(info.value))
    assert fr.line.strip() in text


# =========================================================================================
# readability guarantees that are cheap to check
# =========================================================================================

def dead_code_candidate(x, w, c):
    unused = np.exp(c) * 3.0
    k = np.sum(c * c)
    return np.sum(x * w) + k


def test_only_needed_adjoints_are_generated():
    g = sg.grad(dead_code_candidate, wrt="w")
    g(rng.normal(size=3), rng.normal(size=3), rng.normal(size=3))
    src = g.source
    assert "dw" in src
    for name in ("dx", "dc", "dk", "dunused", "stack"):   # activity analysis, no loop
        assert not re.search(rf"\b{name}\b", src), (name, src)


# =========================================================================================
# the reverse sweep records only what it needs; split form is reusable
# =========================================================================================

def ode_loop(x, a, b):
    dt = 0.01
    for i in range(50):
        x = x + dt * (a * x - b * x * x)
    return x


def counted_while(x, n):
    i = 0
    while i < n:
        x = np.sin(x) * 1.5
        i += 1
    return np.sum(x)


def test_loops_save_only_what_the_adjoint_reads():
    g = sg.grad(ode_loop)
    g(0.5, 1.0, 0.3)
    pushed = re.findall(r"\.append\((.*)\)", g.source)
    for never in ("i", "dt", "a", "b"):          # loop counter, constants, inputs never saved
        assert never not in pushed, (never, g.source)
    assert len(pushed) <= 2, g.source             # at most x and b * x per step
    g = sg.grad(counted_while, wrt=0)
    g(np.ones(2), 4)
    pushed = re.findall(r"\.append\((.*)\)", g.source)
    assert "i" not in pushed and "n" not in pushed, g.source


def loop_result(x, w):
    s = 0.0
    for i in range(3):
        s = s + np.sum(x * w) * s + 1.0
    return s


def test_value_and_grad_returns_the_final_value_of_a_restored_variable():
    x, w = rng.normal(size=3), rng.normal(size=3)
    value, grads = sg.value_and_grad(loop_result)(x, w)
    assert value == loop_result(x, w)
    check_grads(loop_result, (x, w))


def setitem_output(x, v):
    y = x * 1.0
    for i in range(2):
        y[i] = y[i + 1] * v
    return y


def test_vjp_fn_is_reusable_and_leaves_the_output_alone():
    x = rng.normal(size=3)
    out, vjp_fn = sg.vjp(setitem_output, x, 0.7)
    kept = out.copy()
    ct = rng.normal(size=3)
    first = vjp_fn(ct)
    second = vjp_fn(ct)
    assert np.array_equal(out, kept)
    assert np.array_equal(out, setitem_output(x, 0.7))
    assert same_values(first, second)

    def scalarized(x, v):
        return np.sum(setitem_output(x, v) * ct)
    assert_close(first[0], numeric_grad(scalarized, (x, 0.7), 0))
    assert_close(first[1], numeric_grad(scalarized, (x, 0.7), 1))


def test_grad_of_tensors_follows_requires_grad():
    """wrt=None with Tensors: the leaves are the arguments that require grad."""
    def f(x, w):
        return (x * w).sum()
    x = sg.tensor([1., 2.], requires_grad=True)
    w = sg.tensor([3., 4.])
    g = sg.grad(f)(x, w)
    assert type(g).__name__ == "Tensor" and g.tolist() == [3.0, 4.0]
    value, g2 = sg.value_and_grad(f)(x, w)
    assert value.item() == 11.0 and g2.tolist() == [3.0, 4.0]
    out, vjp_fn = sg.vjp(f, x, w)
    assert vjp_fn(1.0).tolist() == [3.0, 4.0]


class _Layer:
    def __init__(self, s):
        self.s = s

    def __call__(self, x):
        return np.tanh(x * self.s)

    def apply(self, x):
        return np.tanh(x * self.s)

    def loss(self, x, w):
        return np.sum(np.tanh(x * self.s) * w)


_LAYER = _Layer(2.0)


def _uses_layer(x):
    return np.sum(_LAYER.apply(x) + _LAYER(x))


def test_methods_and_callable_objects_are_transformed():
    x = np.array([0.1, -0.2, 0.3])
    expected = 2 * 2 * (1 - np.tanh(2 * x) ** 2)
    np.testing.assert_allclose(sg.grad(_uses_layer)(x), expected, rtol=1e-12)
    # a bound method as the differentiated function: self is passed along, wrt counts from x
    w = np.array([1.0, 2.0, 3.0])
    g = sg.grad(_LAYER.loss, wrt=1)(x, w)
    np.testing.assert_allclose(g, np.tanh(2 * x), rtol=1e-12)
    gx = sg.grad(_LAYER.loss, wrt="x")(x, w)
    np.testing.assert_allclose(gx, w * 2 * (1 - np.tanh(2 * x) ** 2), rtol=1e-12)


def test_argnum_and_argnums_spell_wrt():
    def f(x, y):
        return x * y * y
    assert sg.grad(f, argnum=1)(2.0, 3.0) == 12.0
    assert sg.grad(f, argnums=(0, 1))(2.0, 3.0) == (9.0, 12.0)


def test_tensor_spellings_stop_gradients_on_arrays_too():
    """x.data / x.detach() / x.numpy() inside transformed code: no gradient, and on a
    NumPy array they are the array itself (not its memory buffer, not an AttributeError)."""
    def f(x):
        y = x.data * 2 + x.detach() * 3 + sg.detach(x) * 4 + x.numpy()
        return np.sum(y * x) + x.sum().item()
    x = np.array([1., 2.])
    np.testing.assert_allclose(sg.grad(f)(x), 10 * x)
    t = sg.tensor([1., 2.], requires_grad=True)
    assert sg.grad(f)(t).tolist() == [10.0, 20.0]
