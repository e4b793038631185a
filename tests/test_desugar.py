"""Comprehensions, generator expressions, lambdas, map/filter/reduce, key= and := in
differentiated code (lowered to statements by compiler/lower/desugar.py).

Each function is checked in float64 against central differences, in reverse mode,
forward mode and (where it is smooth) second order, and against autograd where it
runs the same program.  The lowering itself is checked to keep Python's semantics:
comprehension variables do not leak, branches and short-circuit operands run only
on their path, evaluation is left to right.
"""
import functools
import types

import numpy as np
import pytest

import srcgrad as sg

try:
    import autograd
    import autograd.numpy as anp
except ImportError:      # autograd is an oracle for some tests only
    autograd = None

EPS = 1e-6


def fd_grad(f, x):
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = EPS
        out[i] = (f(x + e) - f(x - e)) / (2 * EPS)
    return out


def params_list(x):
    return [(x[:2], x[2]), (x[1:3] * 2.0, x[0])]


# -- the functions (autograd runs them with ``np`` bound to autograd.numpy) ---------------

def listcomp(x):
    return np.sum(np.stack([xi * np.sin(xi) for xi in x]))


def listcomp_if(x):
    return sum([xi ** 2 for xi in x if xi > 0])


def genexpr_in_sum(x):
    return sum(np.exp(xi) for xi in x)


def nested(x):
    return np.sum(np.array([[a * b for a in x] for b in x]))


def two_generators(x):
    return sum(a * b for a in x for b in x if a < b)


def comprehension_over_zip(x):
    return sum(a * b for a, b in zip(x, x[::-1]))


def comprehension_over_enumerate(x):
    return sum(i * v for i, v in enumerate(x))


def list_of_pairs(x):
    total = 0.0
    for W, b in [(x, 1.0), (x * 2.0, 0.5)]:
        total = total + np.sum(np.tanh(W * b))
    return total


def layer_params(x):
    h = x[:2]
    for W, b in params_list(x):
        h = np.tanh(h * W + b)
    return np.sum(h)


def dict_comprehension(x):
    d = {k: x[i] * (i + 1.0) for i, k in enumerate("abc")}
    return d["a"] + d["b"] * d["c"]


def set_of_sizes(x):
    sizes = {len(x) for _ in range(2)}
    return np.sum(x) * len(sizes)


def lambda_assigned(x):
    sq = lambda t: t * t  # noqa: E731
    return np.sum(sq(x) + sq(2.0 * x))


def lambda_in_map(x):
    return sum(map(lambda t: t ** 3, x))


def map_named(x):
    return np.sum(np.array(list(map(np.sin, x))))


def map_two_sequences(x):
    return sum(map(lambda a, b: a * b, x, x[::-1]))


def filter_lambda(x):
    return sum(filter(lambda t: t > 0, x))


def reduce_product(x):
    return functools.reduce(lambda a, b: a * b, x)


def reduce_with_start(x):
    return functools.reduce(lambda acc, t: acc + np.sin(t), x, 1.5)


def sorted_by_key(x):
    s = sorted(x, key=lambda t: -t)
    return s[0] * 3.0 + s[-1]


def max_by_key(x):
    return max(x, key=lambda t: (t - 0.5) ** 2) * 2.0


def min_by_key(x):
    return min(list(x), key=abs) ** 2


def walrus_in_if(x):
    if (s := np.sum(x * x)) > 1.0:
        return s * 2.0
    return s


def comprehension_in_one_branch(x):
    # the comprehension runs only when its branch is taken
    return sum([t * t for t in x]) if x[0] > 0 else np.sum(x)


def comprehension_after_and(x):
    ok = len(x) > 1 and sum([t for t in x]) > -100.0
    return np.sum(x * x) if ok else 0.0


def lambda_closes_over_local(x):
    w = x * 2.0
    f = lambda t: t * w  # noqa: E731
    return np.sum(f(x))


def comprehension_in_helper_def(x):
    def norms(rows):
        return [np.sum(r * r) for r in rows]
    return sum(norms([x, x * 3.0]))


CASES = [listcomp, listcomp_if, genexpr_in_sum, nested, two_generators,
         comprehension_over_zip, comprehension_over_enumerate, list_of_pairs, layer_params,
         dict_comprehension, set_of_sizes, lambda_assigned, lambda_in_map, map_named,
         map_two_sequences, filter_lambda, reduce_product, reduce_with_start, sorted_by_key,
         max_by_key, min_by_key, walrus_in_if, comprehension_in_one_branch,
         comprehension_after_and, lambda_closes_over_local, comprehension_in_helper_def]

X = np.array([0.3, -0.7, 1.1])
POINTS = [X, np.array([-0.4, 0.9, 0.2])]


@pytest.mark.parametrize("x", POINTS, ids=["x0", "x1"])
@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_reverse_matches_central_differences(f, x):
    g = sg.grad(f)(x.copy())
    np.testing.assert_allclose(g, fd_grad(f, x), rtol=1e-6, atol=1e-8)
    assert f(x) == pytest.approx(sg.value_and_grad(f)(x.copy())[0], rel=1e-13)


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_forward_matches_reverse(f):
    v = np.array([0.5, -1.0, 2.0])
    _, tangent = sg.jvp(f, (X.copy(),), (v,))
    assert tangent == pytest.approx(float(np.dot(sg.grad(f)(X.copy()), v)), rel=1e-10,
                                    abs=1e-12)


SMOOTH = [listcomp, genexpr_in_sum, nested, lambda_assigned, lambda_in_map, map_named,
          reduce_product, reduce_with_start, comprehension_in_helper_def,
          lambda_closes_over_local, dict_comprehension]


@pytest.mark.parametrize("f", SMOOTH, ids=[f.__name__ for f in SMOOTH])
def test_second_order_matches_differences_of_the_gradient(f):
    H = sg.hessian(f)(X.copy())
    g = sg.grad(f)
    fd = np.stack([(g(X + EPS * e) - g(X - EPS * e)) / (2 * EPS) for e in np.eye(3)])
    np.testing.assert_allclose(H, fd, rtol=1e-5, atol=1e-7)


AUTOGRAD = [listcomp, genexpr_in_sum, nested, two_generators, lambda_in_map, map_named,
            reduce_product, sorted_by_key, max_by_key, dict_comprehension, layer_params]


@pytest.mark.skipif(autograd is None, reason="autograd is not installed")
@pytest.mark.parametrize("f", AUTOGRAD, ids=[f.__name__ for f in AUTOGRAD])
def test_agrees_with_autograd(f):
    with_anp = types.FunctionType(f.__code__, {**f.__globals__, "np": anp}, f.__name__,
                                  f.__defaults__, f.__closure__)
    expected = autograd.grad(with_anp)(X.copy())
    np.testing.assert_allclose(sg.grad(f)(X.copy()), expected, rtol=1e-12, atol=1e-14)


# -- Python's semantics are kept ----------------------------------------------------------

def variable_does_not_leak(x):
    t = x * 2.0
    ys = [t * 3.0 for t in x]      # this t is the comprehension's own
    return np.sum(t) + sum(ys)


def test_comprehension_variable_does_not_leak():
    np.testing.assert_allclose(sg.grad(variable_does_not_leak)(X), np.full(3, 5.0))


def iterate_outer_name(x):
    x2 = [x for x in [x, x * 2.0]]     # the iterable reads the outer x
    return np.sum(x2[0] + x2[1])


def test_first_iterable_is_evaluated_outside():
    np.testing.assert_allclose(sg.grad(iterate_outer_name)(X), np.full(3, 3.0))


def test_a_branch_not_taken_is_not_run():
    calls = []

    def noting(t):
        calls.append(t)
        return t

    def f(x):
        return np.sum(x) if x[0] > 10 else sum([noting(t) for t in x])
    sg.grad(f)(X)
    assert len(calls) == 3          # the comprehension ran once, in the forward sweep
    calls.clear()

    def g(x):
        return sum([noting(t) for t in x]) if x[0] > 10 else np.sum(x * x)
    np.testing.assert_allclose(sg.grad(g)(X), 2 * X)
    assert calls == []


def in_while_test(x):
    i = 0
    while sum([t for t in x]) > i:
        i = i + 1
    return np.sum(x) * i


def test_comprehension_in_a_while_condition_is_refused():
    with pytest.raises(sg.UnsupportedSyntaxError, match="while") as e:
        sg.grad(in_while_test)(X)
    assert e.value.lineno is not None and __file__ == e.value.filename


def test_generated_code_reads_as_a_loop():
    src = sg.source(listcomp)
    assert "for " in src and ".append(" in src
    lam = sg.source(lambda_assigned)
    assert "def sq(t):" in lam and "sq_t" in lam     # ``sq = lambda t: ...`` is a def sq


# -- sorted(xs) without key: the items are their own keys ---------------------------------

def sorted_pairs(scores, values):
    pairs = sorted(zip(scores, values))
    top = sorted(values, reverse=True)
    return sum(k * v for k, (_, v) in enumerate(pairs)) + top[0] * 2.0


def test_sorted_without_a_key_gives_each_item_its_gradient():
    scores, values = np.array([0.3, -1.0, 2.0, 0.1]), np.array([1.5, -0.5, 0.25, 3.0])
    gs, gv = sg.grad(sorted_pairs)(scores, values)
    eps = 1e-6
    fd = np.array([(sorted_pairs(scores, values + eps * e) - sorted_pairs(scores, values - eps * e))
                   / (2 * eps) for e in np.eye(4)])
    np.testing.assert_allclose(gv, fd, rtol=1e-6)
    np.testing.assert_allclose(gs, 0.0)           # the order carries no gradient
