"""``np.r_[...]`` / ``np.c_[...]`` and the ranges inside them, end to end.

Each function joins differentiated arrays with constants, numbers and ranges; its value
must be NumPy's own (the function run plainly), and its gradient, forward derivative
and second derivative must match central differences (and autograd, which also
differentiates ``np.r_`` / ``np.c_``).  The directives that build an ``np.matrix`` are
refused at the user's line.
"""
import numpy as np
import pytest
from numpy import r_

import srcgrad as sg
from gradcheck_util import fd_of as _central_differences

try:
    import autograd
    import autograd.numpy as anp
except ImportError:          # the comparison with autograd is optional
    autograd = None

_rng = np.random.default_rng(11)
C32 = _rng.uniform(-1, 1, (3, 2))
C10 = _rng.uniform(-1, 1, 10)
W = {n: _rng.uniform(-1, 1, 64) for n in range(4)}


def _w(out, k=0):
    return W[k][:out.size].reshape(out.shape)


def r_one(x):
    b = np.r_[x]
    return np.sum(np.sin(b) * _w(b))


def r_two(x):
    b = np.r_[x, x]
    return np.sum(np.sin(b) * _w(b))


def r_node_and_const(x):
    b = np.r_[x, C32, x]
    return np.sum(np.tanh(b) * _w(b))


def r_range(x):
    b = np.r_[x, C10, 1:10, 0:1:4j]
    return np.sum(np.sin(b) * _w(b))


def r_numbers(x):
    b = np.r_[x[0], 2.0, x ** 2, np.float64(0.5)]
    return np.sum(np.cos(b) * _w(b))


def c_columns(x):
    b = np.c_[x, C32, x[:, 0]]
    return np.sum(np.sin(b) * _w(b, 1))


def c_of_vectors(x):
    b = np.c_[x, np.sin(x), 0:3]
    return np.sum(b * b * _w(b, 2))


def r_directive_rows(x):
    b = np.r_["0,2", x[:3], x[1:4]]
    return np.sum(np.sin(b) * _w(b, 3))


def r_directive_transposed(x):
    b = np.r_["1,2,0", x[:3], C32]
    return np.sum(np.sin(b) * _w(b, 3))


def r_imported_name(x):
    b = r_[x, -x]
    return np.sum(np.sin(b) * _w(b))


CASES = [(r_one, (3, 2)), (r_two, (3, 2)), (r_node_and_const, (3, 2)), (r_range, (10,)),
         (r_numbers, (3,)), (c_columns, (3, 2)), (c_of_vectors, (3,)),
         (r_directive_rows, (4,)), (r_directive_transposed, (4,)), (r_imported_name, (5,))]




@pytest.mark.parametrize("f, shape", CASES, ids=[f.__name__ for f, _ in CASES])
def test_join_by_index_expression_to_second_order(f, shape):
    x = _rng.uniform(-1, 1, shape)
    value, g = sg.value_and_grad(f)(x)
    assert value == f(x)                                   # NumPy's own join
    np.testing.assert_allclose(g, _central_differences(f, x), rtol=1e-6, atol=1e-9)
    t = np.cos(np.arange(x.size)).reshape(shape)
    _, dout = sg.jvp(f, (x,), (t,))
    np.testing.assert_allclose(dout, (f(x + 1e-6 * t) - f(x - 1e-6 * t)) / 2e-6, rtol=1e-6,
                               atol=1e-9)
    gr = sg.grad(f)
    fd2 = (gr(x + 1e-5 * t) - gr(x - 1e-5 * t)) / 2e-5
    np.testing.assert_allclose(sg.hvp(f)(x, v=t), fd2, rtol=1e-5, atol=1e-8)


def _autograd_version(f):
    # the same function on autograd's NumPy (its r_ / c_ differentiate too)
    src = {"r_two": lambda x: anp.sum(anp.sin(anp.r_[x, x]) * _w(np.r_[x, x])),
           "c_columns": lambda x: anp.sum(anp.sin(anp.c_[x, C32, x[:, 0]]) *
                                          _w(np.zeros((3, 5)), 1)),
           "r_node_and_const": lambda x: anp.sum(anp.tanh(anp.r_[x, C32, x]) *
                                                 _w(np.zeros((9, 2))))}
    return src[f.__name__]


@pytest.mark.skipif(autograd is None, reason="autograd is not installed")
@pytest.mark.parametrize("f", [r_two, c_columns, r_node_and_const])
def test_join_by_index_expression_matches_autograd(f):
    x = _rng.uniform(-1, 1, (3, 2))
    np.testing.assert_allclose(sg.grad(f)(x), autograd.grad(_autograd_version(f))(x),
                               rtol=1e-12)


def arange_from(x):
    return np.sum(np.sin(np.arange(x, 4.0, 0.5)))


def arange_step(s):
    return np.sum(np.arange(0.25, 3.0, s) ** 2)


def linspace_range(x):
    return np.sum(np.sin(np.r_[x:2.0:5j]))


@pytest.mark.parametrize("f, x", [(arange_from, 0.3), (arange_step, 0.7), (linspace_range, 0.4)])
def test_ranges_carry_the_gradient_of_their_start_and_step(f, x):
    # entry k of arange(start, stop, step) is start + k * step (the length stays fixed
    # at start +- eps); a silent zero here would be a wrong gradient
    fd = (f(x + 1e-6) - f(x - 1e-6)) / 2e-6
    assert abs(fd) > 0.1
    np.testing.assert_allclose(sg.grad(f)(x), fd, rtol=1e-6)
    np.testing.assert_allclose(sg.jvp(f, (x,), (1.0,))[1], fd, rtol=1e-6)
    gr = sg.grad(f)
    np.testing.assert_allclose(sg.grad(gr)(x), (gr(x + 1e-5) - gr(x - 1e-5)) / 2e-5, rtol=1e-5)


def matrix_rows(x):
    return np.sum(np.r_["r", x, x])


def matrix_string(x):
    return np.sum(np.r_["1 2; 3 4"] * x)


@pytest.mark.parametrize("f", [matrix_rows, matrix_string])
def test_matrix_directives_are_refused_at_the_line(f):
    with pytest.raises(sg.UnsupportedSyntaxError) as info:
        sg.grad(f)(np.ones(2))
    message = str(info.value)
    assert "np.matrix" in message and "np.concatenate" in message
    assert "test_rules_index_builders.py" in message and "np.r_[" in message


def test_arange_start_on_the_array_api():
    xp = pytest.importorskip("array_api_strict")

    def f(x):
        return xp.sum(xp.sin(xp.arange(x[0], 4.0, 0.5)))
    x = np.array([0.3])
    expected = _central_differences(lambda v: np.sum(np.sin(np.arange(v[0], 4.0, 0.5))), x)
    np.testing.assert_allclose(np.asarray(sg.grad(f)(xp.asarray(x))), expected, rtol=1e-6)
