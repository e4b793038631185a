"""srcgrad bugs found by the idiom fuzzer (tests/test_fuzz_idioms.py), minimized by hand.

Each test is a small program srcgrad got wrong, checked against the truth: the
function's own value, a gradient worked out by hand (in the comment) and central
finite differences of the function, and the input's dtype.  Programs that alias
arrays may instead be refused (a located UnsupportedSyntaxError is correct).

The ones srcgrad still gets wrong are strict xfails: when a fix makes one pass, the
test fails -- remove its marker, and delete the matching feature lines from
``KNOWN_BROKEN`` in tests/test_fuzz_idioms.py so that the fuzzer generates the idiom
again.  The others were found by the fuzzer on e95c7f4 and fixed while it was being
written (6cfdec1: dict()/list+list/np functions of lists/nested-def defaults;
3d679a6: np.rollaxis seen as a view).
"""
import copy

import numpy as np
import pytest

import srcgrad as sg
from gradcheck_util import numeric_grad

X1 = np.array([0.3, -0.7, 1.2])
X2 = np.array([[0.3, -0.7, 1.2], [0.5, 0.1, -0.4]])


def check(f, args, expected=None, rtol=1e-6, atol=1e-8):
    """value_and_grad of f (every argument) against f itself, finite differences and
    ``expected`` (the hand-worked gradients, one per argument); inputs unchanged."""
    orig = copy.deepcopy(args)
    value, grads = sg.value_and_grad(f)(*args)
    for a, o in zip(args, orig):
        assert np.array_equal(a, o), "an input changed"
    assert np.allclose(value, f(*copy.deepcopy(args)), rtol=1e-12, atol=0), \
        f"value {value!r} != f(*args) {f(*copy.deepcopy(args))!r}"
    if len(args) == 1:
        grads = (grads,)
    for i, (a, g) in enumerate(zip(args, grads)):
        assert isinstance(g, np.ndarray) if isinstance(a, np.ndarray) else True, \
            f"gradient of argument {i} is a {type(g).__name__}"
        assert np.shape(g) == np.shape(a), f"gradient shape {np.shape(g)} != {np.shape(a)}"
        a64 = [b.astype(np.float64) if isinstance(b, np.ndarray) else b for b in args]
        fd = numeric_grad(f, copy.deepcopy(a64), i)
        assert np.allclose(g, fd, rtol=max(rtol, 1e-5), atol=max(atol, 1e-6)), \
            f"argument {i}: srcgrad {np.ravel(g)}, finite differences {np.ravel(fd)}"
        if expected is not None:
            assert np.allclose(g, expected[i], rtol=rtol, atol=atol), \
                f"argument {i}: srcgrad {np.ravel(g)}, by hand {np.ravel(expected[i])}"


def check_or_refuse(f, args, expected=None):
    """check(), or a refusal located in this file (aliasing srcgrad does not follow)."""
    try:
        sg.value_and_grad(f)(*copy.deepcopy(args))
    except (sg.UnsupportedSyntaxError, sg.NonDifferentiableError) as e:
        assert __file__ in str(e) or getattr(e, "filename", None) == __file__, str(e)
        return
    check(f, args, expected)


# np.mean of a Python list of arrays along axis 0: mean(x, 3x) = 2x, d/dx sum = 2.
# srcgrad gave twice the gradient (4.0) for 1-D x; a gradient of the wrong shape (3,) for
# 2-D x.  (fuzz seed 1426, 219)
@pytest.mark.parametrize("x", [X1, X2], ids=["1d", "2d"])
def test_np_mean_of_list_axis0(x):
    def f(x):
        return np.sum(np.mean([x, x * 3.0], axis=0))
    check(f, [x.copy()], [np.full(x.shape, 2.0)])


# np.sum / np.mean of a Python list or tuple of scalars: srcgrad raises
# (TypeError "'float' object is not subscriptable", IndexError).  (seeds 855, 975, 985)
@pytest.mark.parametrize("form", ["sum_scalars", "sum_consts", "mean_tuple"])
def test_np_sum_of_scalar_list(form):
    if form == "sum_scalars":
        def f(x):        # sum(x) + sum(x^2): 1 + 2x
            return np.sum([np.sum(x), np.sum(x * x)])
        expected = 1.0 + 2.0 * X1
    elif form == "sum_consts":
        def f(x):        # 1 + a^2 + 2 with a = sum(x): 2a
            a = np.sum(x)
            return np.sum([1, a * a, 2])
        expected = np.full(3, 2.0 * np.sum(X1))
    else:
        def f(x):        # (sum(x) + 0.5) / 2: 1/2
            return np.mean((np.sum(x), 0.5))
        expected = np.full(3, 0.5)
    check(f, [X1.copy()], [expected])


# dict(...) from a list of (key, value) pairs: sum(x * x^2) = sum(x^3), gradient 3x^2.
# srcgrad on e95c7f4: zero gradient.  (seeds 4, 836, 1129)
@pytest.mark.parametrize("form", ["pairs", "pairs_and_keyword"])
def test_dict_from_pairs(form):
    if form == "pairs":
        def f(x):
            d = dict([("a", x), ("b", x * x)])
            return np.sum(d["a"] * d["b"])
    else:
        def f(x):
            d = dict([("a", x)], b=x * x)
            return np.sum(d["a"] * d["b"])
    check(f, [X1.copy()], [3.0 * X1 ** 2])


# dict(...) of a mapping (a dict display, another dict, with keywords): gradient 3x^2.
# srcgrad on e95c7f4: zero gradient.  (seeds 1283, 94, 316)
@pytest.mark.parametrize("form", ["display", "copy", "display_and_keyword"])
def test_dict_from_mapping(form):
    if form == "display":
        def f(x):
            d = dict({"a": x, "b": x * x})
            return np.sum(d["a"] * d["b"])
    elif form == "copy":
        def f(x):
            d0 = {"a": x, "b": x * x}
            d = dict(d0)
            return np.sum(d["a"] * d["b"])
    else:
        def f(x):
            d = dict({"a": x}, b=x * x)
            return np.sum(d["a"] * d["b"])
    check(f, [X1.copy()], [3.0 * X1 ** 2])


# [x] * 2 holds x twice: sum(x * x), gradient 2x.  srcgrad on e95c7f4: x (half).  (seeds 114, 8)
def test_list_repeat():
    def f(x):
        l = [x] * 2
        return np.sum(l[0] * l[1])
    check(f, [X1.copy()], [2.0 * X1])


# list += [v] extends the list: sum(sin(x) * x), gradient cos(x) x + sin(x).
# srcgrad on e95c7f4: a wrong gradient (and a gradient of the wrong shape when the entries'
# shapes differ, seed 780).  (seeds 1269, 1211)
def test_list_iadd():
    def f(x):
        l = [np.sin(x)]
        l += [x]
        return np.sum(l[0] * l[1])
    check(f, [X1.copy()], [np.cos(X1) * X1 + np.sin(X1)])


# list concatenation [a] + [b, c], iterated: 1.5 a + 2.5 b + 3.5 c with a = sum(x^2),
# b = sum(x), c = sum(x) / 4: gradient 3x + 2.5 + 0.875.  srcgrad on e95c7f4: wrong gradient
# (and ValueError / TypeError in other programs).  (seeds 3226, 2959, 2526)
def test_list_concatenation():
    def f(x):
        l = [np.sum(x * x)] + [np.sum(x), np.sum(x) * 0.25]
        acc = 0.0
        for i, p in enumerate(l, start=1):
            acc = acc + (i + 0.5) * p
        return acc
    check(f, [X1.copy()], [3.0 * X1 + 2.5 + 0.875])


# tuple concatenation (h,) + (e,): sum(x[0] * 2x) = 2 x0 sum(x): gradient 2 x0 + [2 sum(x), 0, 0].
# srcgrad on e95c7f4: ValueError (inhomogeneous shape); with (x,) + (np.ones(3),): TypeError.
# (seeds 9, 116, 128)
@pytest.mark.parametrize("form", ["scalar_and_array", "array_and_constant"])
def test_tuple_concatenation(form):
    if form == "scalar_and_array":
        def f(x):
            t = (x[0],) + (x * 2.0,)
            return np.sum(t[0] * t[1])
        expected = np.full(3, 2.0 * X1[0])
        expected[0] += 2.0 * np.sum(X1)
    else:
        def f(x):        # sum(x * x * 1): 2x
            t = (x * x,) + (np.ones(3),)
            return np.sum(t[0] * t[1])
        expected = 2.0 * X1
    check(f, [X1.copy()], [expected])


# list(x) / tuple(x) of an array: its rows.  sum over rows then squared: with
# s = x[0] + x[1] (a row), sum(s * s) has gradient 2s in each row.  srcgrad: the
# gradient was a Python list; with the rows multiplied, the backward pass multiplied
# that list by a float: TypeError "can't multiply sequence by non-int of type
# 'float'".  (seeds 1317, 45, 182, 304)
@pytest.mark.parametrize("fn", ["list", "tuple"])
@pytest.mark.parametrize("use", ["sum_rows", "multiply_rows"])
def test_list_of_array_rows(fn, use):
    conv = list if fn == "list" else tuple
    if use == "sum_rows":
        def f(x):
            rows = conv(x)
            s = sum(rows)
            return np.sum(s * s)
        s = X2[0] + X2[1]
        expected = np.stack([2.0 * s, 2.0 * s])
    else:
        def f(x):        # sum(x0 * x1 / 4): gradient [x1, x0] / 4
            rows = conv(x * 0.5)
            return np.sum(rows[0] * rows[1])
        expected = np.stack([X2[1], X2[0]]) * 0.25
    check(f, [X2.copy()], [expected])


# np.atleast_1d / np.atleast_2d return a view (the array itself when it has enough
# dimensions): writing through it changes the base.  b = x; y *= 2 doubles b:
# sum((2x)^2) = 4 sum(x^2), gradient 8x; b += 1 seen through y: sum((x + 1)^2),
# gradient 2(x + 1).  srcgrad on 47a91a2: neither refused nor followed the write
# (wrong value and gradient): the alias check read the ``*arys`` items as one node
# and saw no view; now it refuses.  (seeds 1271, 1060, 1101)
@pytest.mark.parametrize("fn", ["atleast_1d", "atleast_2d", "atleast_3d"])
def test_atleast_nd_is_a_view(fn):
    atleast = getattr(np, fn)

    def write_view(x):
        b = x * 1.0
        y = atleast(b)
        y *= 2.0
        return np.sum(b * b)

    def write_base(x):
        b = x * 1.0
        y = atleast(b)
        b += 1.0
        return np.sum(y * y)
    check_or_refuse(write_view, [X1.copy()], [8.0 * X1])
    check_or_refuse(write_base, [X1.copy()], [2.0 * (X1 + 1.0)])


# np.rollaxis returns a view: b += 1 seen through it: sum((x + 1)^2), gradient
# 2(x + 1).  srcgrad on e95c7f4: neither refused nor followed the write (value
# sum(x^2), gradient 2x); now it refuses.  Writes through the view: seeds 2243, 2640.
# (seeds 2287, 2766)
def test_rollaxis_view_write():
    def f(x):
        b = x * 1.0
        y = np.rollaxis(b, 1)
        b += 1.0
        return np.sum(y * y)
    check_or_refuse(f, [X2.copy()], [2.0 * (X2 + 1.0)])


# A view of a parameter (np.asarray(x), x.T) written in place, the parameter read
# afterwards: srcgrad refused this (correctly) in general, but not when ``x * x``
# appeared in the function before the read: then it computed as if x were unchanged
# (on 47a91a2 the second ``x * x`` reused the first, see the test above); now it refuses.
# a1: y = x + sum(x^2) (x itself changed), f = sum(y^2): gradient 2y + 2 sum(y) 2x.
# a3: x += 1 through x.T, f = sum((x + 1)^2): gradient 2(x + 1).  (seeds 3170, 5964)
@pytest.mark.parametrize("form", ["asarray", "transpose"])
def test_view_of_parameter_written(form):
    if form == "asarray":
        def f(x):
            y = np.asarray(x)
            y += np.sum(x * x)
            return np.sum(x * x)
        y = X2 + np.sum(X2 * X2)
        expected = 2.0 * y + 2.0 * np.sum(y) * 2.0 * X2
    else:
        def f(x):
            v = np.vstack([x * 0.5, x * x])
            y = x.T
            y += 1.0
            return np.sum(x * x) + 0.0 * np.sum(v)
        expected = 2.0 * (X2 + 1.0)
    check_or_refuse(f, [X2.copy()], [expected])


# The same expression before and after a write through a view: the second is not the
# first (b changed).  f1: b[1] = 5 through y, value sum(x^2) + x0^2 + 25 + x2^2,
# gradient 2x + 2x with the entry 1 written: [4x0, 2x1, 4x2].  f2: b += 1 through
# b.T: sum(x^2) + sum((x + 1)^2), gradient 2x + 2(x + 1).  srcgrad on 47a91a2: the
# second np.sum(b * b) reused the first (silently wrong value and gradient), so the
# later read of b that the alias check looks for was gone.
@pytest.mark.parametrize("form", ["setitem", "iadd"])
def test_repeated_expression_after_write_through_view(form):
    if form == "setitem":
        def f(x):
            b = x * 1.0
            c = np.sum(b * b)
            y = b[1:]
            y[0] = 5.0
            return c + np.sum(b * b)
        expected = np.array([4.0, 2.0, 4.0]) * X1
    else:
        def f(x):
            b = x * 1.0
            c = np.sum(b * b)
            y = b.T
            y += 1.0
            return c + np.sum(b * b)
        expected = 2.0 * X1 + 2.0 * (X1 + 1.0)
    check_or_refuse(f, [X1.copy()], [expected])


# ``d[k] += v`` on an array held by a dict or list changes that array in place: b
# (the same array) sees it.  b = x; b += 1 through d["k"] / lst[0]: sum((x + 1)^2),
# gradient 2(x + 1).  srcgrad on 47a91a2: computed d["k"] as a new array (b unchanged:
# value sum(x^2), gradient 2x).  Items that are Python numbers, or not shared, are fine.
@pytest.mark.parametrize("form", ["dict", "list"])
def test_container_item_augmented_in_place(form):
    if form == "dict":
        def f(x):
            b = x * 1.0
            d = {"k": b}
            d["k"] += 1.0
            return np.sum(b * b)
    else:
        def f(x):
            b = x * 1.0
            lst = [b, x]
            lst[0] += 1.0
            return np.sum(b * b)
    check_or_refuse(f, [X1.copy()], [2.0 * (X1 + 1.0)])


def test_container_item_augmented_not_shared():
    def f(x):          # sum((x + 1) * 2x) + sum(x^2): gradient 4x + 2 + 2x
        acc = {"s": 0.0}
        acc["s"] += np.sum(x * x)
        lst = [x * 1.0, x * 2.0]
        lst[0] += 1.0
        return np.sum(lst[0] * lst[1]) + acc["s"]
    check(f, [X1.copy()], [6.0 * X1 + 2.0])


def _bump(a):
    a += 1.0
    return np.sum(a)


def _set_first(a):
    t = a.reshape(-1)
    t[0] = 3.0
    return np.sum(t)


def _calls_set_first(a):
    return _set_first(a) * 2.0


def _bump_copy(a):
    a = a.copy()
    a += 1.0
    return np.sum(a)


# A user function that changes its argument in place changes the caller's array:
# b += 1 inside _bump: sum(x + 1) + sum((x + 1)^2), gradient 1 + 2(x + 1).
# srcgrad on 47a91a2 differentiated the callee on a copy and went on with the old b
# (value sum(x + 1) + sum(x^2)).  Also through a view in the callee, through a callee
# of the callee, and for a parameter of f itself.
@pytest.mark.parametrize("form", ["iadd", "view", "nested", "param", "statement"])
def test_callee_changes_its_argument(form):
    if form == "iadd":
        def f(x):
            b = x * 1.0
            s = _bump(b)
            return s + np.sum(b * b)
        expected = 1.0 + 2.0 * (X1 + 1.0)
    elif form == "view":
        def f(x):      # b[0] = 3: sum(3, x1, x2) + 9 + x1^2 + x2^2
            b = x * 1.0
            s = _set_first(b)
            return s + np.sum(b * b)
        expected = np.array([0.0, 1.0, 1.0]) + np.array([0.0, 2.0, 2.0]) * X1
    elif form == "nested":
        def f(x):
            b = x * 1.0
            s = _calls_set_first(b)
            return s + np.sum(b * b)
        expected = np.array([0.0, 2.0, 2.0]) + np.array([0.0, 2.0, 2.0]) * X1
    elif form == "param":
        def f(x):
            s = _bump(x)
            return s + np.sum(x * x)
        expected = 1.0 + 2.0 * (X1 + 1.0)
    else:
        def f(x):
            b = x * 1.0
            _set_first(b)
            return np.sum(b * b)
        expected = np.array([0.0, 2.0, 2.0]) * X1
    check_or_refuse(f, [X1.copy()], [expected])


def test_callee_that_copies_or_gets_a_number_is_followed():
    def f(x, p):       # sum(x + 1) + p * (p + 1) + sum(x^2): gradients 1 + 2x, 2p + 1
        s = _bump_copy(x) + p * _bump(p)
        return s + np.sum(x * x)
    check(f, [X1.copy(), 0.5], [1.0 + 2.0 * X1, 2.0])

    def g(x, p):       # a name bound later in the loop may hold the result (fuzz seed 627)
        for i in range(2):
            lst = [_bump(p)]
            lst.append(p * x)
        return np.sum(lst[0] * lst[1])     # (p + 1) p sum(x): gradients (p + 1) p, (2p + 1) sum(x)
    check(g, [X1.copy(), 0.5], [np.full(3, 0.75), 2.0 * np.sum(X1)])


# A parameter given to a user function that changes it in place is copied first, also
# when srcgrad calls the function as it is (no gradient flows through it): the
# caller's array is never changed.  sum(x (y + 1)): gradient y + 1; jvp along (1, 1):
# sum(y + 1) + sum(x).  srcgrad on 47a91a2: y came back changed (y + 1).
def test_callee_never_changes_the_callers_array():
    def f(x, y):
        s = _bump_array(y)
        return np.sum(x * s)
    x, y = X1.copy(), X1[::-1].copy()
    g = sg.grad(f, wrt=0)(x, y)
    assert np.array_equal(y, X1[::-1]), "y changed"
    assert np.allclose(g, X1[::-1] + 1.0)
    out, t = sg.jvp(f, (x, y), (np.ones(3), np.ones(3)))
    assert np.array_equal(y, X1[::-1]), "y changed"
    assert np.isclose(t, np.sum(X1[::-1] + 1.0) + np.sum(X1))


def _bump_array(a):
    a += 1.0
    return a


# A nested def's default is evaluated when the def runs: k is 2x, whatever c is
# later.  sum(g(1) + g(1, k=c)) = sum(2x + 3x): gradient 5.  srcgrad on e95c7f4: uses the later
# value of c for the default (wrong value 6 sum(x), gradient 6).  (seeds 15, 418)
def test_nested_def_default_bound_at_def():
    def f(x):
        c = x * 2.0

        def g(t, k=c):
            return t * k
        c = x * 3.0
        return np.sum(g(1.0) + g(1.0, k=c))
    check(f, [X1.copy()], [np.full(3, 5.0)])


# float32 in, float32 gradient out, also when the program computes in float64 on the
# way (np.tanh(p) of a Python float is a NumPy float64, which promotes x * it).
# sum(x tanh(p)): gradient tanh(p), of dtype float32.  srcgrad on e95c7f4: a float64 gradient.
# (seeds 426, 1113)
def test_float32_gradient_dtype_after_promotion():
    def f(x, p):
        return np.sum(x * np.tanh(p))
    x = X1.astype(np.float32)
    g = sg.grad(f, wrt=0)(x.copy(), 0.3)
    assert np.allclose(g, np.tanh(0.3), rtol=1e-6)
    assert g.dtype == np.float32, f"gradient dtype {g.dtype}"
