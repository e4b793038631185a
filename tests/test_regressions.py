"""Compiler bugs found by the random-program fuzzer (tests/test_fuzz.py), minimized.

Each function is a minimized program that srcgrad once got wrong; the comment over
it says what went wrong.  Every case is checked against central finite differences
(every differentiable argument alone, by position and by name, and all together),
``value_and_grad``'s value against the function's, and the inputs for changes.
"""
import math

import numpy as np
import pytest

import srcgrad as sg
from gradcheck_util import check_grads, deep_copy, same_values

CASES = []


def case(*args, wrt=None, rtol=1e-5, atol=1e-6):
    def deco(f):
        n = len([c for c in CASES if c[0] is f])
        CASES.append((f, args, wrt, rtol, atol, f.__name__ if n == 0 else f"{f.__name__}-{n}"))
        return f
    return deco


# A parameter rebound to a value of another shape: its (zero) gradient was
# ``zeros_like`` of the NEW value, so it had the wrong shape.
@case(np.array([0.1, 0.2, 0.3]), np.array([1.0, -2.0, 0.5, 0.7]))
def rebound_param_other_shape(x, a):
    x = a * 2.0
    return np.sum(x * x)


@case(np.array([0.1, 0.2, 0.3]), np.array([1.0, -2.0, 0.5, 0.7]))
@case(np.array([0.9, 0.8, 0.7]), np.array([1.0, -2.0, 0.5, 0.7]))
def rebound_param_in_branch(x, a):
    if np.mean(x) < 0.5:
        x = a
    else:
        x = a * 2.0
    return np.sum(x * x)


@case(np.array([0.1, 0.2, 0.3]), np.array([1.0, -2.0, 0.5, 0.7]))
def rebound_param_ifexp(x, a):
    x = a if np.mean(x) < 0.5 else np.copy(a)
    return np.sum(x * x)


# Builtin max/min of several arguments: the ``*args`` parameter of the rule is bound
# to a Python tuple, which activity analysis did not look into: zero gradients.
@case(1.3, 0.7)
@case(-0.6, 0.9)
def builtin_max_min_args(x, y):
    return abs(x) * max(x, y) + min(x, y, 0.1) ** 2


@case(1.3)
@case(-1.3)
def builtin_max_same_name(x):
    y = max(x, 0.5 * x)
    z = max(y, y)
    return z * 3.0


@case(0.4)
def builtin_min_in_list(x):
    v = math.sqrt(x * x + 1.0)
    lst = [min(v, math.exp(math.tanh(v)))]
    return -1.5 * np.mean(np.sin(np.array(lst)))


@pytest.mark.parametrize("f,args,wrt,rtol,atol", [c[:5] for c in CASES],
                         ids=[c[5] for c in CASES])
def test_regression(f, args, wrt, rtol, atol):
    before = deep_copy(args)
    check_grads(f, args, wrt, rtol=rtol, atol=atol)
    value, _ = sg.value_and_grad(f)(*args)
    assert same_values(args, before)
    expected = f(*deep_copy(args))
    assert np.array_equal(np.asarray(value), np.asarray(expected)), (value, expected)
