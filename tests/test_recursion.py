"""Recursive functions: self-recursion, mutual recursion, depth decided by the data.

A call that reaches the derivative being built is made to the derivative resolved
when the call runs (built by then); each case is checked in both modes against
central differences and against autograd, which traces recursion natively.
"""
import re

import numpy as np
import pytest

import srcgrad as sg
from gradcheck_util import numeric_grad, assert_close

try:
    import autograd
    import autograd.numpy as anp
except ImportError:       # pragma: no cover - autograd is a test dependency
    autograd = None


def power(x, n):
    if n == 0:
        return 1.0
    return x * power(x, n - 1)


def horner(coeffs, x):
    if len(coeffs) == 1:
        return coeffs[0]
    return coeffs[0] + x * horner(coeffs[1:], x)


def horner_loss(coeffs, x):
    return np.sum(horner(coeffs, x))


def ping(x, n):
    if n == 0:
        return x
    return pong(x * 1.5, n - 1)


def pong(x, n):
    if n == 0:
        return np.sum(x)
    return ping(np.sin(x), n - 1)


def halve_until_small(x):
    """Depth decided by the data: recurse while the norm is large."""
    if np.sqrt(np.sum(x * x)) < 1.0:
        return np.sum(x ** 3)
    return 2.0 * halve_until_small(x * 0.5)


def tree_sum(tree, w):
    if isinstance(tree, dict):
        return sum(tree_sum(v, w) for v in tree.values())
    if isinstance(tree, list):
        total = 0.0
        for v in tree:
            total = total + tree_sum(v, w)
        return total
    return np.sum(np.tanh(tree * w))


def tree_map(f, tree):
    if isinstance(tree, dict):
        return {k: tree_map(f, v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return type(tree)(tree_map(f, v) for v in tree)     # list / tuple through a value
    return f(tree)


def mapped_tree(tree, w):
    out = tree_map(lambda a: np.sum(np.sin(a * w) ** 2), tree)
    return sum(out["a"]) + out["b"]


X = np.array([0.3, -0.2, 0.5])
TREE = {"a": [np.array([0.1, 0.2]), np.array([0.3, -0.4])], "b": np.array([0.5, 0.6])}
CASES = [
    ("self", power, (0.7, 4), (0,)),
    ("slices", horner_loss, (np.array([0.5, -1.0, 2.0, 0.3]), X), (0, 1)),
    ("mutual", ping, (X, 3), (0,)),
    ("data_depth", halve_until_small, (np.array([3.0, -2.5, 1.5]),), (0,)),
    ("tree", tree_sum, (TREE, 0.8), (0, 1)),
    ("tree_map", mapped_tree, ({"a": (np.array([0.1, 0.2]), np.array([0.7])),
                                "b": np.array([0.5, 0.6])}, 0.8), (0,)),
]


@pytest.mark.parametrize("name, f, args, wrt", CASES, ids=[c[0] for c in CASES])
def test_reverse_mode(name, f, args, wrt):
    got = sg.grad(f, wrt=wrt if len(wrt) > 1 else wrt[0])(*args)
    for k, i in enumerate(wrt):
        assert_close(got[k] if len(wrt) > 1 else got, numeric_grad(f, args, i),
                     f"d{name}/d{i}")


@pytest.mark.parametrize("name, f, args, wrt", CASES, ids=[c[0] for c in CASES])
def test_forward_mode_agrees_with_reverse(name, f, args, wrt):
    i = wrt[-1]
    x = args[i]
    if isinstance(x, dict):
        pytest.skip("a dict argument: its tangent is checked by the reverse case")
    rng = np.random.default_rng(3)
    t = rng.standard_normal(np.shape(x)) if np.ndim(x) else 0.9
    tangents = tuple(t if j == i else _zeros(a) for j, a in enumerate(args))
    _, dout = sg.jvp(f, args, tangents)
    g = sg.grad(f, wrt=i)(*args)
    np.testing.assert_allclose(dout, np.sum(np.asarray(g) * t), rtol=1e-7, atol=1e-10)


def _zeros(a):
    if isinstance(a, dict):
        return {k: _zeros(v) for k, v in a.items()}
    if isinstance(a, list):
        return [_zeros(v) for v in a]
    return np.zeros_like(a) if isinstance(a, np.ndarray) else 0.0


@pytest.mark.skipif(autograd is None, reason="autograd not installed")
def test_against_autograd():
    def ag_power(x, n):
        return 1.0 if n == 0 else x * ag_power(x, n - 1)

    def ag_ping(x, n):
        return x if n == 0 else ag_pong(x * 1.5, n - 1)

    def ag_pong(x, n):
        return anp.sum(x) if n == 0 else ag_ping(anp.sin(x), n - 1)
    np.testing.assert_allclose(sg.grad(power, wrt=0)(0.7, 4), autograd.grad(ag_power)(0.7, 4))
    np.testing.assert_allclose(sg.grad(ping, wrt=0)(X, 3), autograd.grad(ag_ping)(X, 3))


def test_a_recursive_function_reads_as_a_call_of_itself():
    src = sg.source(power, wrt=0)
    # (power_fwd1: power_fwd names the function being built)
    assert re.search(r"power_fwd\d*\(x, sub\)", src) and re.search(r"power_bwd\d*\(", src)


def test_second_and_third_order_follow_the_recursion():
    # the recursive call is resolved when it runs; its derivative is again a call
    # resolved when it runs (compiler/nested.py), to any order
    d2 = sg.grad(sg.grad(power, wrt=0), wrt=0)
    np.testing.assert_allclose(d2(0.7, 3), 6 * 0.7, rtol=1e-12)
    d3 = sg.grad(d2, wrt=0)
    np.testing.assert_allclose(d3(0.7, 4), 24 * 0.7, rtol=1e-12)
    np.testing.assert_allclose(d3(0.7, 4), numeric_grad(lambda x: d2(x, 4), (0.7,), 0), rtol=1e-6)


def test_hessian_of_mutual_recursion_against_autograd_and_differences():
    h = sg.hessian(ping, wrt=0)(X, 3)
    g = sg.grad(ping, wrt=0)
    rows = [numeric_grad(lambda x, i=i: g(x, 3)[i], (X,), 0) for i in range(X.size)]
    assert_close(h, np.array(rows), rtol=1e-6, atol=1e-8)  # (symmetric: rows = columns)
    if autograd is not None:
        def ag_ping(x, n):
            return x if n == 0 else ag_pong(x * 1.5, n - 1)

        def ag_pong(x, n):
            return anp.sum(x) if n == 0 else ag_ping(anp.sin(x), n - 1)
        assert_close(h, autograd.hessian(ag_ping)(X, 3), rtol=1e-10)
