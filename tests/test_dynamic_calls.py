"""Calls whose callee is known only at run time (compiler/dynamic.py): function-valued
parameters and defaults, lists and dicts of functions, factories' closures, methods
of objects held in lists, callable objects, functools.partial, sg.grad called inside.

Checked in float64 against central differences in reverse and forward mode; the
refusals (a function value holding something that carries a gradient) are checked
to be located errors, never a silently dropped gradient.
"""
import functools

import numpy as np
import pytest

import srcgrad as sg

EPS = 1e-6
X = np.array([0.3, -0.7, 1.1])


def fd_grad(f, x):
    out = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = EPS
        out[i] = (f(x + e) - f(x - e)) / (2 * EPS)
    return out


# -- callees ---------------------------------------------------------------------------

def apply(f, a):
    return f(a)


def apply_twice(f, a):
    return f(f(a))


def cube(t):
    return t ** 3


def star(*args):
    return args[0] * 2.0 + args[1]


def scale(a, s=2.0):
    return a * s


def layer(x, W, nonlinearity=np.tanh):
    return nonlinearity(x * W)


def make_loss(data):
    def loss(w):
        return np.sum((w * data - 1.0) ** 2)
    return loss


def make_pair(c):
    def inner(t):
        return np.sin(t) * c

    def outer(t):
        return inner(t) + t * t     # a closure calling a closure
    return outer


class Dense:
    def __init__(self, W):
        self.W = W

    def forward(self, x):
        return np.tanh(x * self.W)


class Square:
    def __call__(self, t):
        return t * t


ACTIVATIONS = {"tanh": np.tanh, "cube": cube}


# -- differentiated functions ----------------------------------------------------------

def ufunc_parameter(x):
    return np.sum(apply(np.tanh, x))


def user_function_parameter(x):
    return np.sum(apply(cube, x) + apply_twice(np.sin, x))


def default_nonlinearity(x):
    return np.sum(layer(x, 2.0)) + np.sum(layer(x, 0.5, nonlinearity=np.sin))


def list_of_functions(x):
    fs = [np.sin, np.cos, cube]
    total = 0.0
    for f in fs:
        total = total + np.sum(f(x))
    return total


def dict_of_functions(x):
    return np.sum(ACTIVATIONS["tanh"](x) * ACTIVATIONS["cube"](x))


def factory_closure(x):
    return make_loss(np.array([1.0, 2.0, 3.0]))(x)


def two_factory_closures(x):
    a = make_loss(np.array([1.0, 2.0, 3.0]))
    b = make_loss(np.array([-1.0, 0.5, 4.0]))
    return a(x) + 2.0 * b(x)


def closure_over_closure(x):
    return np.sum(make_pair(3.0)(x))


def loop_variable_closures(x):
    fs = []
    for k in range(1, 4):
        def f(t, k=k):
            return t * k
        fs.append(f)
    return np.sum(fs[2](x) * fs[0](x))


def methods_of_objects_in_a_list(x):
    layers = [Dense(2.0), Dense(np.array([0.5, -1.0, 1.5]))]
    for lyr in layers:
        x = lyr.forward(x)
    return np.sum(x)


def callable_object(x):
    sq = Square()
    return np.sum(apply(sq, x))


def partial_of_user_function(x):
    triple = functools.partial(scale, s=3.0)
    return np.sum(apply(triple, x))


def varargs_callee_through_a_parameter(x):
    return np.sum(apply(functools.partial(star, 1.0), x))


def grad_called_inside(x):
    g = sg.grad(lambda t: np.sum(np.sin(t) * t))
    return np.sum(g(x) * x)


def dynamic_call_in_a_loop(x):
    fs = [np.sin, np.tanh]
    h = x
    for i in range(4):
        h = fs[i % 2](h) + 0.5 * h
    return np.sum(h)


CASES = [ufunc_parameter, user_function_parameter, default_nonlinearity, list_of_functions,
         dict_of_functions, factory_closure, two_factory_closures, closure_over_closure,
         loop_variable_closures, methods_of_objects_in_a_list, callable_object,
         partial_of_user_function, varargs_callee_through_a_parameter, grad_called_inside,
         dynamic_call_in_a_loop]


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_reverse_matches_central_differences(f):
    np.testing.assert_allclose(sg.grad(f)(X.copy()), fd_grad(f, X), rtol=1e-6, atol=1e-8)


FORWARD = [c for c in CASES if c is not grad_called_inside]


@pytest.mark.parametrize("f", FORWARD, ids=[f.__name__ for f in FORWARD])
def test_forward_matches_central_differences(f):
    v = np.array([0.5, -1.0, 2.0])
    value, tangent = sg.jvp(f, (X.copy(),), (v,))
    assert value == pytest.approx(f(X), rel=1e-12)
    assert tangent == pytest.approx(float(fd_grad(f, X) @ v), rel=1e-6, abs=1e-8)


def test_closures_from_one_factory_keep_their_own_data():
    # one code object, two closures: each call reads its own cells
    a = make_loss(np.array([1.0, 2.0, 3.0]))
    b = make_loss(np.array([-1.0, 0.5, 4.0]))
    np.testing.assert_allclose(sg.grad(a)(X), fd_grad(a, X), rtol=1e-6)
    np.testing.assert_allclose(sg.grad(b)(X), fd_grad(b, X), rtol=1e-6)


# -- refusals: a function value that holds what carries a gradient -----------------------

def closure_captures_input(x):
    w = x * 2.0
    return np.sum(apply(lambda t: t * w, x))


def closure_captures_input_called_without_arguments_that_vary(x):
    w = x * 2.0
    f = lambda t: t * w  # noqa: E731
    fs = [f]
    return np.sum(fs[0](3.0))


def partial_holds_input(x):
    g = functools.partial(np.multiply, x)
    return np.sum(apply(g, 3.0))


def method_of_a_varying_object(x):
    y = x * 2.0
    return np.sum(y.choose([0, 1, 2], mode="clip"))


@pytest.mark.parametrize("f", [closure_captures_input,
                               closure_captures_input_called_without_arguments_that_vary,
                               partial_holds_input])
def test_closures_holding_values_with_gradients_give_them_their_gradients(f):
    # (tests/test_closures.py tests function values in depth)
    np.testing.assert_allclose(sg.grad(f)(X.copy()), fd_grad(f, X), rtol=1e-6)


@pytest.mark.parametrize("f", [method_of_a_varying_object])
def test_function_values_holding_gradients_are_refused(f):
    with pytest.raises(sg.NonDifferentiableError, match=r"line \d+|\.py:\d+"):
        sg.grad(f)(X.copy())


def unknown_callee(x):
    return np.sum(apply(np.frompyfunc(lambda t: t, 1, 1), x))


def test_a_callee_without_rule_or_source_names_the_call_site():
    with pytest.raises(sg.NonDifferentiableError, match=r"test_dynamic_calls.py:\d+"):
        sg.grad(unknown_callee)(X.copy())


def test_generated_code_calls_the_callee_it_was_given():
    src = sg.source(user_function_parameter)
    assert "call_forward(" in src or "apply_fwd" in src
    inner = sg.source(apply, wrt="a")
    assert "call_forward(f, (0,)" in inner and "call_backward(" in inner


# -- functools.partial binding differentiated values: a def whose defaults hold them --

def _term(params, x, scale=1.0):
    return np.sum(params * x) * scale


DATA = [np.array([1.0, 2.0, 0.5]), np.array([3.0, 4.0, -1.0])]


def partial_in_map(params):
    return sum(map(functools.partial(_term, params), DATA)) ** 2


def partial_by_keyword(params):
    g = functools.partial(_term, params=params, scale=2.0)
    return sum(g(x=x) for x in DATA) ** 2


def partials_in_a_list(params):
    fs = [functools.partial(_term, p) for p in [params, np.sin(params)]]
    return sum(f(x, scale=0.5) for f, x in zip(fs, DATA)) ** 2


def partial_keyword_overridden(params):
    g = functools.partial(_term, scale=params[0])
    return g(params, DATA[0], scale=3.0) * g(params, DATA[1])


@pytest.mark.parametrize("f", [partial_in_map, partial_by_keyword, partials_in_a_list,
                               partial_keyword_overridden])
def test_partials_binding_differentiated_values(f):
    p = X[:3].copy()
    np.testing.assert_allclose(sg.grad(f)(p), fd_grad(f, p), rtol=1e-6)
    _, t = sg.jvp(f, (p,), (np.ones(3),))
    np.testing.assert_allclose(t, fd_grad(f, p) @ np.ones(3), rtol=1e-6)
    g = sg.grad(f)
    hess = np.array([fd_grad(lambda q, i=i: g(q)[i], p) for i in range(3)])
    np.testing.assert_allclose(sg.hessian(f)(p), hess, rtol=1e-5, atol=1e-8)


# -- a call resolved at run time passes any keyword: ``f=``, ``wrt=``, ``site=`` are the
# callee's, not the run-time call's own (they collided: "got multiple values")

def _weighted(x, f=1.0, wrt=2.0, site=3.0, tangents=4.0):
    return np.sum(x * f + x * wrt * site + tangents * x ** 2)


def keywords_named_like_the_call_machinery(x):
    g = _weighted
    return g(x, f=x[0], wrt=0.5, site=x[1], tangents=2.0)


def test_keywords_named_like_the_call_machinery():
    np.testing.assert_allclose(sg.grad(keywords_named_like_the_call_machinery)(X.copy()),
                               fd_grad(keywords_named_like_the_call_machinery, X), rtol=1e-6)
    _, t = sg.jvp(keywords_named_like_the_call_machinery, (X.copy(),), (np.ones(3),))
    np.testing.assert_allclose(t, fd_grad(keywords_named_like_the_call_machinery, X).sum(),
                               rtol=1e-6)


# -- an array unpacked into a call: its gradient is an array ----------------------------

def _pair_energy(a, b):
    return np.sum(np.sin(a) * b ** 2)


def _unpacked_rows(M, fn=_pair_energy):
    a, b = zip(*M)
    return a[0] * b[1] + fn(*M.T) + fn(*M[:2])


def _zipped_rows(M):
    a, b = zip(*M)
    return a[0] * b[1]


def _called_on_columns(M, fn=_pair_energy):
    return fn(*M.T)


def _unpacked_rows_by_hand(M):
    return M[0, 0] * M[1, 1] + np.sum(np.sin(M[:, 0]) * M[:, 1] ** 2) + \
        np.sum(np.sin(M[0]) * M[1] ** 2)


def test_gradient_of_an_array_unpacked_in_a_call_is_an_array():
    """zip(*M), fn(*M.T) with M an array: the gradient of M is an array of M's shape
    (it was a tuple of the rows' gradients, right values of the wrong type)."""
    M = np.array([[0.3, -0.7], [1.1, 0.4], [-0.2, 0.9]])
    for f in (_zipped_rows, _called_on_columns):
        g = sg.grad(f)(M)
        assert type(g) is np.ndarray and g.shape == M.shape, f.__name__
    g = sg.grad(_unpacked_rows)(M)
    assert type(g) is np.ndarray and g.shape == M.shape
    flat = lambda m: _unpacked_rows_by_hand(m.reshape(M.shape))     # noqa: E731
    np.testing.assert_allclose(g, fd_grad(flat, M.ravel()).reshape(M.shape), rtol=1e-6,
                               atol=1e-8)
    v = np.cos(M)
    hv = sg.hvp(_unpacked_rows)(M, v=v)
    assert type(hv) is np.ndarray and hv.shape == M.shape
    expected = fd_grad(lambda m: np.sum(sg.grad(_unpacked_rows_by_hand)(m.reshape(M.shape)) *
                                        v), M.ravel()).reshape(M.shape)
    np.testing.assert_allclose(hv, expected, rtol=1e-6, atol=1e-8)
    _, t = sg.jvp(_unpacked_rows, (M,), (v,))
    np.testing.assert_allclose(t, np.sum(g * v), rtol=1e-12)
