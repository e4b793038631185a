"""Derivatives of derivatives through calls resolved at run time (compiler/nested.py).

A call whose callee is a value (a parameter, an item of a list of layers, a closure, a
partial, ``sg.grad(f)`` of a function value, a recursive call) is resolved when it
runs; generated code that makes such a call, differentiated again, differentiates
what the call computes.  Each case: second derivatives (reverse over reverse, forward
over reverse, the Hessian) against central differences of srcgrad's first derivative,
which is itself checked against differences of the function, and against autograd
where it runs the same code.
"""
import functools

import numpy as np
import pytest

import srcgrad as sg
from gradcheck_util import assert_close, numeric_grad

try:
    import autograd
    import autograd.numpy as anp
except ImportError:       # pragma: no cover - autograd is a test dependency
    autograd = None

RS = np.random.RandomState(7)
X = RS.randn(3)
W = RS.randn(3, 3)
V = RS.randn(3)


def apply(f, a):
    return f(a)


def through_function_values(x):
    return np.sum(apply(np.tanh, x) ** 2) + np.sum(apply(lambda v: v ** 3, x))


class Layer:
    def __init__(self, W):
        self.W = W

    def forward(self, h):
        return np.tanh(self.W @ h)


LAYERS = [Layer(W), Layer(W.T)]


def through_methods_in_a_list(x):
    h = x
    for layer in LAYERS:
        h = layer.forward(h)
    return np.sum(h ** 2)


def through_starred_calls(x):
    parts = (x, x + 1.0)
    return np.sum(np.multiply(*parts)) + np.sum(apply(np.sin, x))


def through_partials(x):
    cube = functools.partial(np.power, 3.0)
    total = functools.partial(np.sum, axis=0)
    return np.sum(apply(cube, x)) + np.sum(apply(total, np.outer(x, x)) ** 2)


def through_closures_of_a_factory(x):
    def make(k):
        def f(v):
            return np.sin(k * v)
        return f
    return sum(np.sum(f(x)) for f in [make(1.0), make(2.0)])


def closure_over_the_input(x):
    def f(v):
        return np.sin(x * v)
    return np.sum(f(V)) + np.sum(apply(lambda v: f(v) * x, V))


def scan(step, h, xs):
    for xi in xs:
        h = step(h, xi)
    return h


def rnn_by_scan(w):
    def step(h, xi):
        return np.tanh(w * h + xi)
    return np.sum(scan(step, np.zeros(3), [V, 2 * V]))


def grad_inside(x):
    d1 = sg.grad(lambda v: np.sum(np.tanh(v)))
    d2 = sg.grad(lambda v: np.sum(d1(v)))
    return np.sum(d2(x) ** 2)


def ufunc_derivative(x):
    dsin = sg.grad(np.sin)
    return sum(dsin(float(v)) for v in x) + np.sum(np.sin(x))


def defs_made_in_a_loop(x):
    # each run of the def makes a function of the same code with a default of its own
    fs = []
    for p in [x, np.sin(x)]:
        def h(v, p=p):
            return np.sum(p * v)
        fs.append(h)
    return (fs[0](V) + fs[1](2 * V)) ** 2


def partials_made_in_a_comprehension(x):
    fs = [functools.partial(lambda p, v, scale=1.0: np.sum(p * v) * scale, p)
          for p in [x, np.sin(x)]]
    return sum(f(v, scale=0.5) for f, v in zip(fs, [V, 2 * V])) ** 2


def jvp_of_a_lambda_inside(x):
    _, tangent = sg.jvp(lambda u: np.sin(u) * u, (x,), (V,))
    return np.sum(tangent ** 2)


def jvp_of_a_closure_inside(x):
    def f(u):
        return np.tanh(u * V)
    out, tangent = sg.jvp(f, (x,), (x * 0.5,))
    return np.sum(tangent * out)


CASES = [jvp_of_a_lambda_inside, jvp_of_a_closure_inside, defs_made_in_a_loop, partials_made_in_a_comprehension, through_function_values, through_methods_in_a_list, through_starred_calls,
         through_partials, through_closures_of_a_factory, closure_over_the_input,
         rnn_by_scan, grad_inside, ufunc_derivative]


def _differences_of_grad(f, x):
    g = sg.grad(f)
    assert_close(g(x), numeric_grad(f, (x,), 0), "first order")
    return np.array([numeric_grad(lambda y, i=i: g(y)[i], (x,), 0) for i in range(x.size)])


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_hessian_hvp_and_grad_of_grad(f):
    expected = _differences_of_grad(f, X)
    assert_close(sg.hessian(f)(X), expected, "hessian", rtol=1e-5, atol=1e-7)
    assert_close(sg.hvp(f)(X, v=V), expected @ V, "hvp", rtol=1e-5, atol=1e-7)
    # reverse over reverse: d/dx of <grad f(x), x> = H x + grad f(x)
    gg = sg.grad(lambda y: np.sum(sg.grad(f)(y) * y))(X)
    assert_close(gg, expected @ X + sg.grad(f)(X), "grad of grad", rtol=1e-5, atol=1e-7)


def test_third_order_against_autograd():
    def f(x):
        d1 = sg.grad(lambda v: np.sum(np.sin(v) * v))
        d2 = sg.grad(lambda v: np.sum(d1(v) ** 2))
        return np.sum(sg.grad(lambda v: np.sum(d2(v) * v))(x))
    got = sg.grad(f)(X)
    assert_close(got, numeric_grad(f, (X,), 0), rtol=1e-6)
    if autograd is not None:
        def ag(x):
            d1 = autograd.grad(lambda v: anp.sum(anp.sin(v) * v))
            d2 = autograd.grad(lambda v: anp.sum(d1(v) ** 2))
            return anp.sum(autograd.grad(lambda v: anp.sum(d2(v) * v))(x))
        assert_close(got, autograd.grad(ag)(X), rtol=1e-10)


def test_objects_built_inside_differentiate_again():
    """(refused at second order until the constructor's record was data with rules)"""
    def f(w):
        h = Layer(w.reshape(3, 3)).forward(X)
        return np.sum(h ** 2)
    g = sg.grad(f)(W.ravel())         # first order
    assert_close(g, numeric_grad(f, (W.ravel(),), 0))
    assert_close(sg.hessian(f)(W.ravel()), _differences_of_grad(f, W.ravel()), "hessian",
                 rtol=1e-5, atol=1e-7)


# -- second order through branches: a cotangent zeroed where the branches meet --------

def branch_power(a, b):
    if a >= 0:
        a = a ** b
    else:
        a = (-a) ** b
    return a


def inner(a, b):
    return a * b


def branch_calls(a, b):
    if a > b:
        o = inner(a, b)
    else:
        o = inner(b, a)
    return o


@pytest.mark.parametrize("a", [0.3, -0.3])
def test_second_order_of_a_branch_that_names_a_value_only_one_side_sets(a):
    d2 = sg.grad(sg.grad(branch_power, wrt=0), wrt=0)(a, 3.0)
    np.testing.assert_allclose(d2, 6 * abs(a), rtol=1e-12)     # (-a) ** 3 below 0
    d1 = sg.grad(branch_power, wrt=0)
    np.testing.assert_allclose(d2, numeric_grad(lambda x: d1(x, 3.0), (a,), 0), rtol=1e-6)


@pytest.mark.parametrize("a", [2.0, 0.5])
def test_second_order_of_branches_that_call_a_function(a):
    d = sg.grad(branch_calls, wrt=0)
    np.testing.assert_allclose(sg.grad(d, wrt=0)(a, 1.0), 0.0)
    np.testing.assert_allclose(sg.grad(d, wrt=1)(a, 1.0), 1.0)


# -- sg.vjp inside differentiated code: autograd's elementwise_grad, spelled with vjp --

def _egrad(f):
    return lambda v: sg.vjp(f, v)[1](np.ones_like(v))


def _logistic_tanh(x):
    return (1.0 - np.exp(-x)) / (1.0 + np.exp(-x))


def test_elementwise_grad_by_vjp_to_third_order():
    x = np.linspace(-3, 3, 7)
    d1, d2, d3 = _egrad(_logistic_tanh), _egrad(_egrad(_logistic_tanh)), \
        _egrad(_egrad(_egrad(_logistic_tanh)))
    e = 1e-5
    np.testing.assert_allclose(d2(x), (d1(x + e) - d1(x - e)) / (2 * e), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(d3(x), (d2(x + e) - d2(x - e)) / (2 * e), rtol=1e-5, atol=1e-8)
    if autograd is not None:
        t = lambda x: (1.0 - anp.exp(-x)) / (1.0 + anp.exp(-x))     # noqa: E731
        eg = autograd.elementwise_grad
        np.testing.assert_allclose(d3(x), eg(eg(eg(t)))(x), rtol=1e-10, atol=1e-12)


def test_vjp_inside_with_keywords_is_refused_by_name():
    def f(x):
        return np.sum(sg.vjp(np.sin, x, wrt=0)[1](np.ones_like(x)))
    with pytest.raises(sg.NonDifferentiableError, match=r"test_nested_calls\.py:\d+: .*"
                                                        r"sg\.vjp\(f, \*args\) without keywords"):
        sg.grad(f)(X)


# -- what the fuzzers found at second order ---------------------------------------------

def sorted_then_indexed(p):
    pair = sorted([p, 2.0 * p])
    return pair[0] * pair[1]            # 2 p ** 2


def _over_keywords(p, **kw):
    acc = p
    for k in kw:
        acc = acc + kw[k] * p
    return acc


def keywords_one_constant(p):
    return _over_keywords(p, s=p, t=0.5)     # p + p ** 2 + 0.5 p


@pytest.mark.parametrize("f,second", [
    (sorted_then_indexed, 4.0),     # (an IndexError until aliased saved lists shared a copy)
    (keywords_one_constant, 2.0)], ids=["sorted_then_indexed", "keywords_one_constant"])
def test_second_order_scalar_cases(f, second):
    # grad of grad: a sparse dict of gradients lacked the constant keyword's key
    np.testing.assert_allclose(sg.grad(lambda q: sg.grad(f)(q))(0.8), second, rtol=1e-12)
    np.testing.assert_allclose(sg.hvp(f)(0.8, v=1.0), second, rtol=1e-12)


def test_jvp_of_a_lambda_calling_sg_grad_to_third_order():
    # sg.jvp of a lambda inside: its generated function was named after "<lambda>"
    fun = lambda x: np.sin(x) * x           # noqa: E731
    d_fun = lambda x: sg.grad(fun)(x)       # noqa: E731
    k = lambda x: sg.jvp(d_fun, (x,), (1.0,))[1]    # noqa: E731  the second derivative
    third = lambda x: -3 * np.sin(x) - x * np.cos(x)    # noqa: E731
    np.testing.assert_allclose(sg.jvp(k, (2.1,), (1.0,))[1], third(2.1), rtol=1e-12)
    np.testing.assert_allclose(sg.grad(k)(2.1), third(2.1), rtol=1e-12)


def test_jvp_of_a_partial_with_star_args():
    total = functools.partial(np.sum, axis=0)
    x, t = RS.randn(2, 3), RS.randn(2, 3)
    out, tangent = sg.jvp(total, (x,), (t,))
    np.testing.assert_allclose(out, x.sum(axis=0))
    np.testing.assert_allclose(tangent, t.sum(axis=0))


# -- a derivative of a derivative through the user's own @sg.adjoint / @sg.tangent ------

def _softplus_sum(x):
    return np.sum(np.log1p(np.exp(x)))


@sg.adjoint(_softplus_sum)
def _softplus_sum_adjoint(g, ans, x):
    return g / (1.0 + np.exp(-x))


@sg.tangent(_softplus_sum)
def _softplus_sum_tangent(ans, x, dx):
    return np.sum(dx / (1.0 + np.exp(-x)))


def through_a_custom_rule(y):
    return _softplus_sum(y ** 2) * np.sum(y)


def test_second_order_through_the_users_own_rule():
    expected = _differences_of_grad(through_a_custom_rule, X)
    assert_close(sg.hessian(through_a_custom_rule)(X), expected, rtol=1e-5, atol=1e-7)
    assert_close(sg.hvp(through_a_custom_rule)(X, v=V), expected @ V, rtol=1e-5, atol=1e-7)
    k = lambda q: sg.jvp(through_a_custom_rule, (q,), (V,))[1]     # noqa: E731
    assert_close(sg.jvp(k, (X,), (V,))[1], V @ expected @ V, rtol=1e-5, atol=1e-7)


def _alias_read_in_a_loop(x):
    items, s = [], 0.0
    for t in range(3):
        items.append(x * (t + 1.0))
        held = items
        box = (items, 1.0)
        s = s + np.sum(held[-1] ** 2) * np.sum(box[0][0]) + max(items[0])
    return s + min(items[-1])


def test_a_list_popped_by_the_reverse_sweep_and_read_through_an_alias_in_a_loop():
    # copying the popped list for a second derivative must not change the first: the
    # alias and the tuple read the list as each trip left it
    x = np.array([0.3, -0.2])
    assert_close(sg.grad(_alias_read_in_a_loop)(x), numeric_grad(_alias_read_in_a_loop, (x,), 0))
    assert_close(sg.hessian(_alias_read_in_a_loop)(x),
                 _differences_of_grad(_alias_read_in_a_loop, x), rtol=1e-5, atol=1e-7)
