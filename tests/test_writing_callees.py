"""A user function that changes its arguments in place (a memo dict, a list it appends
to, an array it fills), called where the caller goes on using them: the call returns
the changed arguments too (runtime.writing) and the caller's names are rebound to them
(lower/statements.writing_call), so gradients flow through what the callee stored.
Refused before ("changes its argument in place ... still used after the call").
Checked in reverse, forward and second order against central finite differences."""
import numpy as np
import pytest

import srcgrad as sg
from gradcheck_util import check_modes, fd_of as fd


def weighted_fib(n, a, b, memo):
    if n in memo:
        return memo[n]
    memo[n] = a * weighted_fib(n - 1, a, b, memo) + b * weighted_fib(n - 2, a, b, memo)
    return memo[n]


def memoized(x):
    return weighted_fib(7, x[0], x[1], {0: 1.0, 1: x[2]})


def fib_sin(n, a, memo):
    if n < 2:
        return a
    if n not in memo:
        memo[n] = fib_sin(n - 1, a, memo) * np.sin(a) + fib_sin(n - 2, a, memo)
    return memo[n]


def memo_starts_empty(x):
    memo = {}
    y = fib_sin(5, x[0], memo)
    return y + memo[3] * x[1] + len(memo) * x[2]


def collect(out, v):
    out.append(np.tanh(v))


def appends_through_a_helper(x):
    acc = []
    for xi in x:
        collect(acc, xi * 2.0)
    collect(out=acc, v=x[0] * x[1])
    return sum(acc) * acc[0]


def set_row(A, i, v):
    A[i] = v * 2.0


def fills_an_array(x):
    A = np.zeros((3, 2))
    for i in range(3):
        set_row(A, i, np.array([x[i], x[i] ** 2]))
    return np.sum(A @ np.array([1.0, -0.5]) * x)


def tally(counts, key, v):
    counts[key] = counts.get(key, 0.0) + v


def counts_in_a_dict(x):
    counts = {}
    for i, xi in enumerate(x):
        tally(counts, i % 2, xi ** 2)
    return counts[0] * counts[1]


def is_even(n, x, seen):
    seen.append(x)
    return x if n == 0 else is_odd(n - 1, np.sin(x), seen)


def is_odd(n, x, seen):
    seen.append(x * 2.0)
    return x if n == 0 else is_even(n - 1, np.cos(x), seen)


def mutual_with_a_list(x):
    seen = []
    r = is_even(4, x[0], seen)
    return r + sum(seen) * x[1]


CASES = [memoized, memo_starts_empty, appends_through_a_helper, fills_an_array,
         counts_in_a_dict, mutual_with_a_list]
X = np.array([0.6, 0.3, 0.8])
V = np.array([0.2, -0.4, 0.7])


@pytest.mark.parametrize("mode", ["reverse", "forward", "second"])
@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_against_differences(f, mode):
    check_modes(f, X, V, mode)


def test_grad_of_grad():
    def directional(z):
        return sg.grad(memoized)(z) @ V
    np.testing.assert_allclose(sg.grad(directional)(X), fd(directional, X), rtol=1e-5,
                               atol=1e-6)


def test_the_callers_objects_keep_their_values():
    memo = {0: 1.0, 1: 2.0}

    def f(x):
        return weighted_fib(4, x[0], x[1], memo)
    got = sg.grad(f)(X)
    assert memo == {0: 1.0, 1: 2.0}
    np.testing.assert_allclose(got, fd(lambda z: weighted_fib(4, z[0], z[1], dict(memo)), X),
                               rtol=1e-6)
    data = np.array([3.0, 1.0, 2.0])

    def g(w, d):
        y = np.sum(np.sin(w) * d)
        d.sort()
        return y + np.sum(d * w)
    dd = data.copy()
    got = sg.grad(g, wrt=0)(X, dd)
    np.testing.assert_array_equal(dd, data)
    np.testing.assert_allclose(got, np.cos(X) * data + np.sort(data))


def another_name_sees_the_old_dict(x):
    memo = {0: 1.0, 1: x[0]}
    old = memo
    weighted_fib(4, x[1], x[2], memo)
    return old[4] * x[0]


def test_another_name_for_the_changed_object_is_refused():
    with pytest.raises(sg.UnsupportedSyntaxError) as e:
        sg.grad(another_name_sees_the_old_dict)(X)
    assert "test_writing_callees.py" in str(e.value)
