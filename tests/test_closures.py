"""Function values that hold values with gradients: closures and lambdas defined in
the differentiated function or returned by a factory, passed to other functions,
kept in lists.  Their own gradient is a dict, by name, of what they hold (free names
and the defaults a call used: compiler/dynamic.py); it flows back to the def
(adjoint.bwd_def, forward.def_).  Checked against central finite differences."""
import numpy as np
import pytest

import srcgrad as sg
from gradcheck_util import fd_of as fd

RNG = np.random.default_rng(3)


def scan(f, init, xs):
    carry = init
    ys = []
    for x in xs:
        carry, y = f(carry, x)
        ys.append(y)
    return carry, np.stack(ys)


def rnn(W, U, xs):
    def step(h, x):
        h = np.tanh(x @ W + h @ U)
        return h, np.sum(h)
    h, ys = scan(step, np.zeros(3), xs)
    return np.sum(ys ** 2) + np.sum(h)


def make_rbf(lengthscale, variance):
    def kernel(A, B):
        d2 = np.sum(A ** 2, 1)[:, None] + np.sum(B ** 2, 1)[None, :] - 2 * A @ B.T
        return variance * np.exp(-0.5 * d2 / lengthscale ** 2)
    return kernel


def factory_inside(log_ls, log_sf, X):
    k = make_rbf(np.exp(log_ls), np.exp(2 * log_sf))
    return np.sum(k(X, X) @ X)


def lambdas_with_defaults(x, c0, c1):
    terms = [lambda t, c=c: c * np.sin(t) for c in (c0, c1)]
    return np.sum(sum(term(x) for term in terms))


def apply_twice(f, a):
    return f(f(a))


def closure_of_closure(x, w):
    inner = lambda t: t * w          # noqa: E731
    outer = lambda t: inner(t) + w   # noqa: E731
    return np.sum(apply_twice(outer, x))


CASES = [
    (rnn, (RNG.normal(size=(2, 3)) * 0.5, RNG.normal(size=(3, 3)) * 0.5, RNG.normal(size=(4, 2)))),
    (factory_inside, (0.1, -0.2, RNG.normal(size=(4, 2)))),
    (lambdas_with_defaults, (RNG.normal(size=3), 0.7, -1.3)),
    (closure_of_closure, (RNG.normal(size=3), RNG.normal(size=3))),
]


@pytest.mark.parametrize("f, args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_gradients_through_function_values(f, args):
    wrt = tuple(range(len(args) - 1)) if f is not lambdas_with_defaults else (0, 1, 2)
    grads = sg.grad(f, wrt=wrt)(*args)
    for i, g in zip(wrt, grads):
        def fun(v, i=i):
            a = list(args)
            a[i] = v
            return f(*a)
        np.testing.assert_allclose(g, fd(fun, args[i]), rtol=1e-5, atol=1e-7)
    tangents = tuple(np.ones_like(a) if i in wrt else np.zeros_like(a)
                     for i, a in enumerate(args))
    tangents = tuple(float(t) if isinstance(a, float) else t for t, a in zip(tangents, args))
    _, dout = sg.jvp(f, args, tangents)
    np.testing.assert_allclose(dout, sum(np.sum(g) for g in grads), rtol=1e-5, atol=1e-7)


def late_binding(x):
    fs = []
    for k in range(3):
        w = x * k
        fs.append(lambda t: t * w)       # every lambda sees the last w, as in Python
    return np.sum(apply_twice(fs[0], x))


def reassigned_after(x):
    w = x * 2.0
    f = lambda t: t * w                  # noqa: E731
    w = x * 3.0                          # f sees this w when it runs
    return np.sum(apply_twice(f, x))


@pytest.mark.parametrize("f", [late_binding, reassigned_after])
def test_a_free_name_with_several_values_is_refused_at_the_def(f):
    with pytest.raises(sg.UnsupportedSyntaxError, match=r"(?s)assigned more than once.*test_closures\.py"):
        sg.grad(f)(np.ones(3))


def reassigned_and_called_after(x):
    w = x * 2.0
    f = lambda t: t * w                  # noqa: E731
    y = apply_twice(f, x)
    w = x * 3.0
    return np.sum(y) + np.sum(apply_twice(f, x))      # f sees w = 3x here


def held_in_a_list_and_called_after(x):
    w = x * 2.0
    fs = [lambda t: t * w]
    y = apply_twice(fs[0], x)
    w = np.sin(w)
    g = fs[0]
    return np.sum(y) + np.sum(g(x))


@pytest.mark.parametrize("f", [reassigned_and_called_after, held_in_a_list_and_called_after])
def test_a_free_name_assigned_before_a_later_call_is_refused(f):
    with pytest.raises(sg.UnsupportedSyntaxError, match=r"(?s)assigned more than once.*test_closures\.py"):
        sg.grad(f)(np.ones(3))


class Affine:
    def __init__(self, W, b):
        self.W, self.b = W, b

    def forward(self, h):
        return np.tanh(h * self.W) + self.b


def rebound_after_the_last_call(x):
    m = Affine(x * 0.5, np.sum(x))
    w = np.cos(x)

    def step(h):
        return m.forward(h) * w
    y = apply_twice(step, np.sin(x))
    m.b = m.b * 0.25 + np.mean(y)        # after step's last call: it saw the first m
    w = w * 2.0
    return np.sum(np.sin(y)) + np.sum(m.forward(w))


def assigned_before_the_def(x):
    m = Affine(np.tanh(x), np.mean(x))
    m.W += x * 2.0                       # m has two values, both before the def

    def step(h):
        return m.forward(h) * 0.5 + h
    y = apply_twice(step, np.cos(x))
    return np.sum(np.sin(y)) + np.sum(m.W)


@pytest.mark.parametrize("f", [rebound_after_the_last_call, assigned_before_the_def])
def test_a_free_name_assigned_after_the_last_call_is_differentiated(f):
    """A free name may change once the function value is no longer called: the calls
    saw one value.  (At second order, the generated code's backward sweep restores such
    names after the def: gradients are not function values, so it is accepted too.)"""
    x = np.array([0.3, -0.4, 0.8])
    np.testing.assert_allclose(sg.grad(f)(x), fd(f, x), rtol=1e-6, atol=1e-8)
    v = np.array([1.0, -0.5, 0.25])
    hv = sg.hvp(f)(x, v=v)
    np.testing.assert_allclose(hv, fd(lambda t: sg.grad(f)(t) @ v, x), rtol=1e-5, atol=1e-7)
    gg = sg.grad(lambda t: np.sum(np.sin(sg.grad(f)(t))))(x)
    np.testing.assert_allclose(gg, fd(lambda t: np.sum(np.sin(sg.grad(f)(t))), x),
                               rtol=1e-5, atol=1e-7)


# -- srcgrad inside differentiated code, of a closure -------------------------------------------

def value_and_grad_inside(w, X, y):
    loss = lambda v: np.mean((X @ v - y) ** 2)      # noqa: E731 (over X and y)
    value, g = sg.value_and_grad(loss)(w)
    return value + np.dot(g, g)


def one_inner_step(w, X, y, lr):
    def loss(v):
        return np.mean(np.tanh(X @ v - y) ** 2)
    adapted = w - lr * sg.grad(loss)(w)
    return loss(adapted)


@pytest.mark.parametrize("f, args", [
    (value_and_grad_inside, (RNG.normal(size=3), RNG.normal(size=(5, 3)), RNG.normal(size=5))),
    (one_inner_step, (RNG.normal(size=3), RNG.normal(size=(5, 3)), RNG.normal(size=5), 0.3)),
], ids=["value_and_grad", "maml"])
def test_a_derivative_of_a_closure_taken_inside_is_differentiated_again(f, args):
    wrt = tuple(range(len(args)))
    grads = sg.grad(f, wrt=wrt)(*args)
    for i, g in zip(wrt, grads):
        def fun(v, i=i):
            a = list(args)
            a[i] = v
            return f(*a)
        np.testing.assert_allclose(g, fd(fun, args[i]), rtol=1e-5, atol=1e-7)


# -- two closures of the same name from different factories, one calling the other:
# the generated ``loss_fwd`` called itself (a wrong value and gradient, no error)

def _make_inner():
    def loss(params):
        return np.sum(np.sin(params))
    return loss


def _make_outer():
    inner = _make_inner()

    def loss(params):
        if np.sum(params) > 1.0:
            return inner(params * 0.1) + np.sum(params ** 2)
        return np.sum(params ** 2)
    return loss


_SAME_NAME = _make_outer()


def test_a_closure_calling_another_of_the_same_name():
    p = np.array([0.9, 0.8])
    value, g = sg.value_and_grad(lambda q: -_SAME_NAME(q))(p)
    np.testing.assert_allclose(value, -_SAME_NAME(p), rtol=1e-12)
    np.testing.assert_allclose(g, -(0.1 * np.cos(0.1 * p) + 2 * p), rtol=1e-12)
    np.testing.assert_allclose(sg.grad(_SAME_NAME)(p), 0.1 * np.cos(0.1 * p) + 2 * p,
                               rtol=1e-12)


# -- a local def called with unpacked arguments (f(*xs), f(**kw)) -------------------------

def _star_tuple(x, y):
    def base(*a):
        return np.sum(a[0] * a[1] ** 2)
    pair = (x, y)
    return base(*pair)


def _star_forwarding(x, y):
    def base(a, b=2.0):
        return np.sum(a * b ** 2)

    def wrapped(*args):
        return base(*args)
    return wrapped(x, y)


def _kwargs_forwarding(x, y):
    def base(a, b, *, scale=1.0):
        return scale * np.sum(a * b ** 2)

    def wrapped(*args, **kwargs):
        return base(*args, **kwargs)
    return wrapped(x, y) + wrapped(x, y, scale=0.5) + base(*[x], y) + base(x, **{"b": y})


@pytest.mark.parametrize("f, factor", [(_star_tuple, 1.0), (_star_forwarding, 1.0),
                                       (_kwargs_forwarding, 3.5)])
def test_local_def_called_with_unpacked_arguments(f, factor):
    """A local def called as base(*pair), base(*args, **kwargs): bound when it runs
    (a ZERO gradient before, no error, for base(*pair) of def base(*a); refusals naming
    a missing argument or 'keyword argument None', and generated code that did not
    compile, for the others)."""
    x, y = np.array([0.3, -0.2]), np.array([1.0, 2.0])
    np.testing.assert_allclose(f(x, y), factor * np.sum(x * y ** 2))
    gx, gy = sg.grad(f)(x, y)
    np.testing.assert_allclose(gx, factor * y ** 2, rtol=1e-12)
    np.testing.assert_allclose(gy, factor * 2 * x * y, rtol=1e-12)
    np.testing.assert_allclose(gx, fd(lambda v: f(v, y), x), rtol=1e-6)
    _, t = sg.jvp(f, (x, y), (y, x))
    np.testing.assert_allclose(t, np.sum(gx * y) + np.sum(gy * x), rtol=1e-12)
    v = np.array([0.5, -1.0])
    np.testing.assert_allclose(sg.hvp(f, wrt=1)(x, y, v=v), factor * 2 * x * v, rtol=1e-12)


# -- a local factory called in a loop: each call its own scope -----------------------------

def _factory_in_a_comprehension(x):
    def make(k):
        return lambda v: v ** (k + 1)
    fs = [make(k) for k in range(3)]
    return fs[0](x) + 2.0 * fs[2](x)


def _factory_def_in_a_loop(x):
    def make(c):
        def scaled(v):
            return np.sin(c * v)
        return scaled
    fs = []
    for c in (0.5, 1.5):
        fs.append(make(c))
    return fs[0](x) * fs[1](x)


@pytest.mark.parametrize("f, value, deriv", [
    (_factory_in_a_comprehension, lambda x: x + 2 * x ** 3, lambda x: 1 + 6 * x ** 2),
    (_factory_def_in_a_loop, lambda x: np.sin(0.5 * x) * np.sin(1.5 * x),
     lambda x: 0.5 * np.cos(0.5 * x) * np.sin(1.5 * x) + 1.5 * np.sin(0.5 * x) * np.cos(1.5 * x)),
])
def test_local_factory_called_in_a_loop_gives_each_closure_its_own_value(f, value, deriv):
    """make(k) called on each trip returns a closure over that trip's k (WRONG value and
    gradient before, no error: inlined, every closure read the one renamed variable the
    last trip left, fs[0](0.5) was 0.125 for 0.5)."""
    x = 0.5
    assert np.isclose(f(x), value(x))
    v, g = sg.value_and_grad(f)(x)
    np.testing.assert_allclose([v, g], [value(x), deriv(x)], rtol=1e-12)
    np.testing.assert_allclose(g, fd(f, x), rtol=1e-6)
    np.testing.assert_allclose(sg.jvp(f, (x,), (1.0,))[1], deriv(x), rtol=1e-12)
    np.testing.assert_allclose(sg.grad(sg.grad(f))(x), fd(lambda t: deriv(t), x), rtol=1e-6)
