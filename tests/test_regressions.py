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


# A dict literal whose adjoint lacks a key (nobody read it): ``dd['b']`` was a KeyError.
@case(np.array([0.3, -0.2]), np.array([1.5, 0.5]))
def dict_literal_key_not_read(x, w):
    d = {'a': x, 'b': w * 2.0, 'c': 0.1}
    v = d['a']
    return np.sum(v ** 2)


@case(np.array([0.3, -0.2]), np.array([1.5, 0.5]))
def dict_call_key_not_read(x, w):
    d = dict(a=x, b=w)
    return np.sum(d['b'] * x)


@case(np.array([0.3, -0.2]), np.array([1.5, 0.5]))
def dict_setitem_key_not_read(x, w):
    d = {'a': x}
    d['z'] = w * 3.0
    d['a'] = x * 2.0
    return np.sum(d['a'] * w)


# ``y[[2, 2]] = v``: NumPy keeps the last write; each written item of v got the
# gradient (``take`` of a repeated index counts it twice).
@case(np.array([0.1, 0.2, 0.3]), 0.7)
def setitem_repeated_index_scalar(x, a):
    y = x * 1.0
    y[[2, 2]] = a
    return np.mean(np.sin(y)) + np.sin(a)


@case(np.array([0.1, 0.2, 0.3]), np.array([0.5, -0.4, 0.9]))
def setitem_repeated_index_vector(x, v):
    y = x * 1.0
    y[[0, 2, 0]] = v
    return np.sum(np.sin(y) * x)


@case(np.array([0.1, 0.2, 0.3]), np.array([0.5, -0.4, 0.9]))
def setitem_repeated_index_augmented(x, v):
    y = x * 1.0
    y[[0, 2, 0]] += v
    return np.sum(np.sin(y) * x)


@case(np.array([0.1, 0.2, 0.3]), np.array([[0.5, -0.4], [0.9, 0.1]]))
def setitem_repeated_rows(x, v):
    y = np.zeros((3, 2)) + x[:, None]
    y[[0, 0], :] = v
    return np.sum(np.sin(y) * 2.0)


# Dead-code elimination removed ``dw = zeros_like(w)`` but kept ``dw += ...`` (an
# AugAssign did not count as a read of dw): UnboundLocalError for grad(wrt="x").
@case(np.array([0.1, 0.2, 0.3]), np.array([0.5, -0.4, 0.9]), wrt=[0])
@case(np.array([0.1, 0.2, 0.3]), np.array([0.5, -0.4, 0.9]))
def dead_adjoint_augmented_in_loop(x, w):
    for i in range(2):
        return 2.0 * np.sum(w ** 2)
    w[:2] = x


# ``s += v`` on a NumPy scalar rebinds s (immutable): a list holding the old s is fine.
@case(np.array([0.1, 0.2, 0.3]))
def augassign_scalar_then_append(x):
    s = 0.0
    hist = []
    for i in range(3):
        s += x[i]
        hist.append(s)
    return np.sum(np.stack(hist) ** 2)


# ``y[i] = y``: the value's adjoint was added to dy before dy[i] was zeroed (lost).
@case(np.array([0.1, 0.2]))
@case(np.array([[0.1, 0.2], [0.3, 0.5]]))
def setitem_self_slice(w):
    y = np.copy(w)
    y[:2] = y
    return np.sum(np.sin(y))


@case(np.array([0.1, 0.2]))
@case(np.array([[0.1, 0.2], [0.3, 0.5]]))
def setitem_self_fancy(w):
    y = np.copy(w)
    y[[1, 0]] = y
    return np.sum(np.sin(y) * w)


# A float parameter rebound to an array kept the kind "float": ``w * x`` then skipped
# un-broadcasting w's gradient (shape (3,) for a float), and ``x += v`` on the new
# array was not seen as an in-place change (a wrong value through an alias).
@case(0.3, 0.4, np.array([0.1, 0.2, 0.3]))
def float_param_rebound_to_array(x, w, a):
    x = np.copy(a)
    v1 = x / (1.0 + w * x * (w * x))
    return np.sum(v1) + np.sum(np.tanh(x) * x)


@case(0.3, 0.4, np.array([0.1, 0.2, 0.3]))
def float_param_rebound_logaddexp(x, w, a):
    w = np.logaddexp(a, 0.5)
    x = np.sinh(np.tanh(a))
    return np.sum(x / (2.0 + np.cos(w))) + np.sum(2.0 * w ** 2)


# ``for row in x: ... x = ...``: Python iterates over the array the loop started
# with; srcgrad indexed the new x.
@case(np.array([[0.1, 0.2], [0.3, 0.4]]))
def loop_over_rebound_array(x):
    s = 0.0
    for row in x:
        x = x * 2.0
        s = s + np.sum(row * x)
    return s


@case(np.array([[0.1, 0.2], [0.3, 0.4]]), np.array([0.5, -0.3]))
def loop_enumerate_rebound(x, w):
    s = 0.0
    for i, row in enumerate(x):
        x = np.tanh(x) + w
        s = s + np.sum(row * x) * i
    return s


@case(np.array([1.0, -0.6]), np.array([0.5, -0.3]))
def loop_zip_rebound(x, w):
    s = 0.0
    for a, b in zip(x, w):
        x = x * b
        w = w + a
        s = s + np.sum(a * b * x)
    return s


# ``a, b = x * 2, y; a += 1``: a is a fresh array (no alias), not a refusal.
@case(np.array([0.1, 0.2]), np.array([0.5, -0.4]))
def unpack_fresh_then_augassign(x, y):
    a, b = x * 2.0, y * 3.0
    a += 1.0
    return np.sum(a * b)


# Dead-code elimination emptied an ``if`` body down to its comment line: the generated
# code did not compile (IndentationError) for grad(wrt="x").
@case(np.array(-0.63695677), 0.48509329845731824, wrt=[0])
@case(np.array(-0.63695677), 0.48509329845731824)
def dead_branch_leaves_comment(x, w):
    if x < 0.1:
        w *= math.tanh(abs(w) ** 1.5)
        v8 = np.log1p((abs(w) - w) * (abs(w) - w))
        v9 = np.arctan2(v8, 1.5)
    else:
        pass
    v14 = max(math.exp(math.tanh(float(np.mean(x + w)))), w)
    v15 = np.where(np.sign(v9) * 0.5 > 0.0, np.sign(v9) * 0.5, 0.1 * (np.sign(v9) * 0.5))
    v17 = v14
    v8 -= v14
    return 0.5 * v15 ** 2 + -1.5 * v17 ** 2 + 2.0 * np.sin(v9)


# Common-subexpression elimination reused ``np.sum(x)`` computed before ``x[0:] = v``
# changed x in place: a wrong value and gradient.
@case(np.array([0.1, 0.2, 0.3]))
def cse_across_setitem(x):
    v1 = x
    x = np.cumsum(x)
    y2 = np.copy(v1)
    y2[[0, 0]] = np.sum(x)
    x[0:] = np.maximum(abs(y2) ** 1.5, 0.1) - x
    return np.mean(np.sin(y2)) + -1.5 * np.sum(v1 ** 2) + 0.5 * np.sum(x)


@case(np.array([0.1, 0.2, 0.3]))
def cse_across_append(x):
    lst = [x * 2.0]
    a = np.stack(lst)
    lst.append(x * 3.0)
    b = np.stack(lst)
    return np.sum(a) + np.sum(b ** 2)


# Fuzz seed 2559: an adjoint made in the loop (zeros before it) was added into in place on
# every trip, though the body rebinds it to a kernel's value (a read-only broadcast of
# ``sum(axis=0, keepdims=True)``'s adjoint): "output array is read-only" in generated code.
@case(np.array([[0.3, -0.2], [0.7, 0.1]]))
def loop_adjoint_rebound_by_a_kernel(x):
    v3 = x * 1.0
    lst8 = [v3]
    for i9 in range(2):
        v3 = np.clip(x, -0.8, 0.8) - v3.sum(axis=0, keepdims=True)
        lst8.append(np.hypot(v3, 1.0))
    v15 = sum(lst8)
    return np.sum(v15)


@pytest.mark.parametrize("f,args,wrt,rtol,atol", [c[:5] for c in CASES],
                         ids=[c[5] for c in CASES])
def test_regression(f, args, wrt, rtol, atol):
    before = deep_copy(args)
    check_grads(f, args, wrt, rtol=rtol, atol=atol)
    value, _ = sg.value_and_grad(f)(*args)
    assert same_values(args, before)
    expected = f(*deep_copy(args))
    assert np.array_equal(np.asarray(value), np.asarray(expected)), (value, expected)


# -- aliasing: srcgrad must refuse, with its located error (it computed gradients as
# if the container / the other name held a copy) -------------------------------------
def alias_tuple(x):
    y = x * 1.0
    t = (x, y)
    y[0] = 3.0
    return np.sum(t[1] * x)


def alias_list(x):
    y = x * 1.0
    lst = [y]
    y[0] = 3.0
    return np.sum(lst[0] * x)


def alias_append(x):
    y = x * 1.0
    lst = []
    lst.append(y)
    y[0] = 3.0
    return np.sum(lst[0] * x)


def alias_dict(x):
    y = x * 1.0
    d = {'a': y}
    y[0] = 3.0
    return np.sum(d['a'] * x)


def alias_augassign(x):
    y = x * 1.0
    z = y
    z += 1.0
    return np.sum(y * x)


def alias_augassign_other(x):
    y = x * 1.0
    z = y
    y *= x
    return np.sum(z * x)


def alias_augassign_param(x):
    z = x
    z += 1.0
    return np.sum(z * x)


def alias_float_param_rebound(x, w):
    v1 = np.maximum(x, 0.1)
    w = v1
    w += x
    return np.sum(v1 ** 2)


def alias_augassign_appended_array(x):
    s = np.zeros(2)
    hist = []
    for i in range(3):
        s += x[i]
        hist.append(s)
    return np.sum(np.stack(hist) ** 2)


# Fuzz seed 11275: after ``v2, x = x, v2`` x IS w (the tuple's item as it was when the
# tuple was made); the alias check read v2 after its rebinding and saw x's old array, so
# ``x *= 0.5`` halved w unseen: value and gradient both wrong, no error.
def alias_swap_unpacking(x, w):
    v2 = w
    v2, x = x, v2
    x *= 0.5
    return np.sum(np.tanh(w) * w)


@pytest.mark.parametrize("f", [alias_tuple, alias_list, alias_append, alias_dict,
                               alias_augassign, alias_augassign_other, alias_augassign_param,
                               alias_augassign_appended_array, alias_float_param_rebound,
                               alias_swap_unpacking])
def test_alias_refused(f):
    x = np.array([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]]) if f is alias_augassign_appended_array \
        else np.array([0.1, 0.2, 0.3])
    args = (x.copy(), 0.5) if f is alias_float_param_rebound else \
        (x.copy(), np.array([0.5, -0.2, 0.4])) if f is alias_swap_unpacking else (x.copy(),)
    with pytest.raises(sg.UnsupportedSyntaxError) as e:
        sg.grad(f)(*args)
    assert __file__.rstrip("c") in str(e.value)


def test_alias_scalar_augassign_accepted():
    """``t = s; s += 1`` rebinds s when it is a float or a NumPy scalar: no refusal."""
    def f(x):
        s = np.sum(x)
        t = s
        s += 1.0
        return s * t
    x = np.array([0.1, 0.2, 0.3])
    np.testing.assert_allclose(sg.grad(f)(x), 2 * np.sum(x) + 1.0)


def test_regression_second_order():
    """The adjoint helpers added for these fixes differentiate again (hvp)."""
    x, v = np.array([0.1, 0.2, 0.3]), np.array([0.5, -0.4, 0.9])
    for f in (setitem_repeated_index_vector, dict_literal_key_not_read):
        args = (x, v)
        h = sg.hvp(f, wrt=0)(*args, v=np.ones(3))
        eps = 1e-5
        g = lambda a: sg.grad(f, wrt=0)(a, v)  # noqa: E731
        fd = (g(x + eps) - g(x - eps)) / (2 * eps)
        np.testing.assert_allclose(h, fd, rtol=1e-5, atol=1e-6)


# -- second order (forward over reverse) of generated code --------------------------------
def hvp_append_then_sum(x):
    lst = [np.sign(x) * 0.5]
    lst.append(x)
    v = sum(lst)
    return np.sum(np.tanh(v) * v)


def hvp_append_then_array(x, w):
    lst = [w * 2.0]
    lst.append((1.0 + x * x) ** w)
    v8 = np.array(lst)
    return np.sum(v8 ** 2)


def hvp_row_augassign_2d(x, w):
    v3 = np.max(x)
    y4 = w.copy()
    y4[0] *= v3
    y4 -= v3
    return np.sum(np.cos(y4))


def hvp_einsum(x, w):
    a = np.einsum('ij,ij->', x, w * x)
    return np.sin(a) + np.sum(np.tanh(np.einsum('ij,kj->ik', x, w)))


@pytest.mark.parametrize("f", [hvp_append_then_sum, hvp_append_then_array,
                               hvp_row_augassign_2d, hvp_einsum])
def test_hvp_regression(f):
    """``seq_sum_grad(dt, lst) + zeros_like(dlst)`` concatenated two lists (the zero
    term of a helper's container argument), and ``einsum_grad(...) + ...`` two tuples;
    a tangent viewed by ``dr = dY[0]`` was then written in place (``dY[0] = t``),
    changing dr, which the reverse sweep being differentiated reads again after
    restoring Y[0]."""
    rng = np.random.default_rng(66)
    x, w, v = rng.normal(size=(2, 3)), rng.normal(size=(2, 3)), rng.normal(size=(2, 3))
    args = (x, w) if f is not hvp_append_then_sum else (x,)
    h = sg.hvp(f, wrt=0)(*args, v=v)
    g = sg.grad(f, wrt=0)
    eps = 1e-6
    fd = (g(x + eps * v, *args[1:]) - g(x - eps * v, *args[1:])) / (2 * eps)
    np.testing.assert_allclose(h, fd, rtol=1e-5, atol=1e-6)


def swap_without_alias(x, w):
    a, b = x * 1.0, w * 1.0
    a, b = b, a
    b *= 0.5            # b is x * 1.0's array: nobody else sees it
    return np.sum(a * np.sin(b))


def test_swap_without_alias_is_differentiated():
    x, w = np.array([0.3, -0.4, 0.8]), np.array([0.5, -0.2, 0.4])
    check_grads(swap_without_alias, (x, w), None)


# -- fuzz seed 60195: a callee that changes, in place, an alias of a parameter ---------------
# (``v = x; h(w, v)`` with h doing ``p += ...``): the call's value unused, it ran as
# written and changed the caller's x; the parameter is now copied first

def _adds_in_place(p0, p1):
    p1 += max(p0, 0.75)
    return np.logaddexp(p1, 0.5)


def changes_an_alias_of_its_argument(x, w):
    v = x
    _adds_in_place(w, v)                 # its value unused: it runs as written
    return 0.5 * np.sin(w)


def test_an_alias_of_a_parameter_changed_by_a_callee_leaves_the_argument_alone():
    x = np.array([0.3, 0.5])
    before = x.copy()
    value, (gx, gw) = sg.value_and_grad(changes_an_alias_of_its_argument)(x, 0.2)
    np.testing.assert_array_equal(x, before)
    assert gw == pytest.approx(0.5 * np.cos(0.2))


# -- x += v keeps x's dtype (the object fuzzer's seeds 4881, 6581): a float32 array plus a
# float64 value stays float32 in Python (in place); srcgrad's value was float64

def augmented_float32(x, p):
    w = np.sin(x)
    w += x * np.tanh(p)                  # x * tanh(p): float64 (p a Python float)
    return np.sum(w)


def test_an_augmented_assignment_keeps_the_arrays_dtype():
    x = np.array([0.3, -0.5, 0.8], dtype=np.float32)
    value, (gx, gp) = sg.value_and_grad(augmented_float32)(x, 0.7)
    expected = augmented_float32(x.copy(), 0.7)
    assert value.dtype == np.float32 and value == expected
    assert gx.dtype == np.float32
    _, t = sg.jvp(augmented_float32, (x, 0.7), (np.ones(3, dtype=np.float32), 0.0))
    np.testing.assert_allclose(t, np.sum(np.cos(x) + np.tanh(0.7)), rtol=1e-5)
