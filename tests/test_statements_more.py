"""More of the Python people write, differentiated: imports inside a function, any
``with`` block, starred targets and literals, ``f(*args, **kwargs)`` (decorators that
forward their arguments), ``zip(*pairs)``, ``rs.randn(*shape)``.

Checked in float64 against central differences in reverse and forward mode.
"""
import functools

import numpy as np
import pytest

import srcgrad as sg

EPS = 1e-6
X = np.array([0.3, -0.7, 1.1])
RS = np.random.RandomState(0)


def fd_grad(f, x):
    out = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = EPS
        out[i] = (f(x + e) - f(x - e)) / (2 * EPS)
    return out


def import_inside(x):
    import math as m
    from numpy import tanh
    import numpy.linalg
    return np.sum(tanh(x) * m.pi) + numpy.linalg.norm(x)


def import_in_a_helper(x):
    def h(t):
        from math import e
        return t * e
    return np.sum(h(x))


def errstate_block(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.log(np.abs(x)) * x
    return np.sum(y)


def with_as(x):
    with np.errstate(all="ignore") as state:
        z = np.sin(x) * (1.0 if state is not None else 2.0)
    return np.sum(z)


def star_target(x):
    a, *rest = x
    return a * np.sum(np.array(rest))


def star_in_the_middle(x):
    first, *mid, last = [x, x * 2.0, x * 3.0, x * 4.0]
    return np.sum(first * last + mid[0] * mid[1])


def star_literal(x):
    xs = [x, x * 2.0]
    return np.sum(sum([*xs, x * 3.0, *xs])) + np.sum((*xs, x)[2])


def takes_varargs(*args):
    return args[0] * 2.0 + args[1]


def takes_kwargs(**kwargs):
    return kwargs["a"] * kwargs["b"]


def star_call(x):
    xs = [x, x * x]
    return np.sum(takes_varargs(*xs))


def double_star_call(x):
    d = {"a": x, "b": 3.0}
    return np.sum(takes_kwargs(**d)) + np.sum(takes_kwargs(a=x, **{"b": x}))


def forwarding(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


@forwarding
def decorated(a, b=1.0):
    return np.sin(a) * b


def calls_a_decorated_function(x):
    return np.sum(decorated(x, b=2.0) + decorated(x * x))


def unzip(x):
    pairs = [(x[0], x[1]), (x[1], x[2]), (x[2], x[0])]
    a, b = zip(*pairs)
    return sum(a) * sum(b)


def random_shape(x):
    noise = RS.randn(*x.shape)
    return np.sum(x * x) + 0.0 * np.sum(noise)


CASES = [import_inside, import_in_a_helper, errstate_block, with_as, star_target,
         star_in_the_middle, star_literal, star_call, double_star_call,
         calls_a_decorated_function, unzip, random_shape]


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_reverse_matches_central_differences(f):
    np.testing.assert_allclose(sg.grad(f)(X.copy()), fd_grad(f, X), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_forward_matches_central_differences(f):
    v = np.array([0.5, -1.0, 2.0])
    _, tangent = sg.jvp(f, (X.copy(),), (v,))
    assert tangent == pytest.approx(float(fd_grad(f, X) @ v), rel=1e-6, abs=1e-8)


def test_with_block_leaves_the_state_as_it_found_it():
    before = np.geterr()
    sg.grad(errstate_block)(X)
    assert np.geterr() == before


def returns_inside_with(x):
    with np.errstate(all="ignore"):
        return np.sum(x)


def test_return_inside_a_with_block_is_refused_where_it_is_written():
    with pytest.raises(sg.UnsupportedSyntaxError, match="with") as e:
        sg.grad(returns_inside_with)(X)
    assert e.value.filename == __file__


def em_q_detached(components, data):
    # EM's Q function: responsibilities held fixed (sg.detach), zip(*...) into arrays
    logits, means, log_stds = map(np.array, zip(*components))
    log_w = logits - np.log(np.sum(np.exp(logits)))
    log_joint = log_w - 0.5 * ((data[:, None] - means) / np.exp(log_stds)) ** 2 - log_stds
    joint = np.exp(log_joint)
    resp = sg.detach(joint / np.sum(joint, axis=1, keepdims=True))
    return -np.sum(resp * log_joint)


def test_detached_responsibilities_are_held_fixed():
    comps = [(0.2, -1.0, 0.1), (-0.3, 1.5, -0.2)]
    data = np.array([-1.2, 0.3, 1.1, 2.0])
    g = sg.grad(em_q_detached, wrt=0)(comps, data)
    # the reference: the same function with the responsibilities computed once, at comps
    logits, means, log_stds = map(np.array, zip(*comps))

    def q(flat, resp):
        lg, mu, ls = flat[:2], flat[2:4], flat[4:]
        log_joint = (lg - np.log(np.sum(np.exp(lg))) -
                     0.5 * ((data[:, None] - mu) / np.exp(ls)) ** 2 - ls)
        return -np.sum(resp * log_joint)
    flat = np.concatenate([logits, means, log_stds])
    lj = (logits - np.log(np.sum(np.exp(logits))) -
          0.5 * ((data[:, None] - means) / np.exp(log_stds)) ** 2 - log_stds)
    resp = np.exp(lj) / np.sum(np.exp(lj), axis=1, keepdims=True)
    fd = fd_grad(lambda v: q(v, resp), flat)
    got = np.array([[g[k][j] for k in range(2)] for j in range(3)]).ravel()
    np.testing.assert_allclose(got, fd, rtol=1e-6, atol=1e-9)


# -- getattr(obj, "name") with a constant name is the attribute read obj.name ----------
class _GetattrParams:
    def __init__(self, w, b):
        self.w, self.b = w, b


def _reads_by_getattr(p, x):
    return np.sum(np.tanh(x @ getattr(p, "w") + getattr(p, "b")))


def test_getattr_with_a_constant_name_is_an_attribute_read():
    # (refused before: "builtins.getattr has no derivative rule")
    p = _GetattrParams(np.array([0.5, -0.2]), 0.3)
    x = np.linspace(-1.0, 1.0, 6).reshape(3, 2)
    g = sg.grad(_reads_by_getattr, wrt=0)(p, x)
    eps = 1e-6
    for name in ("w", "b"):
        v = np.asarray(getattr(p, name), dtype=float)
        num = np.zeros(v.shape)
        for i in np.ndindex(v.shape):
            up, dn = v.copy(), v.copy()
            up[i] += eps
            dn[i] -= eps
            num[i] = (_reads_by_getattr(_GetattrParams(**{**vars(p), name: up if v.shape else float(up)}), x) -
                      _reads_by_getattr(_GetattrParams(**{**vars(p), name: dn if v.shape else float(dn)}), x)) / (2 * eps)
        np.testing.assert_allclose(getattr(g, name), num, rtol=1e-6)
