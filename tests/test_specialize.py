"""Code specialized to a call's argument shapes gives the general code's results, bit for bit.

``sg.grad`` specializes the code of a call to its arguments' shapes where the shapes
prove an un-broadcast a no-op (compiler/optimize/shapes.py); ``specialize=False``
keeps one code for every shape.  Checked here: both give identical gradients (values,
dtypes, types) over many shapes, broadcasting ones included, scalars, 0-d arrays and
float32; both agree with central differences; a new shape signature compiles again
instead of reusing code specialized to another; a name holding two shapes keeps its
un-broadcast.
"""
import numpy as np
import pytest

import srcgrad as sg

from srcgrad.api.specialized import LIMIT

from gradcheck_util import assert_close, numeric_grad

rng = np.random.default_rng(13)


def A(*shape, dtype=np.float64):
    return np.asarray(rng.standard_normal(shape), dtype=dtype)


def add_tanh(x, y):
    return np.sum(np.tanh(x + y) * x)


def softmax_ce(W, b, x, t):
    z = x @ W + b
    z = z - np.max(z, axis=1, keepdims=True)
    p = np.exp(z) / np.sum(np.exp(z), axis=1, keepdims=True)
    return -np.sum(t * np.log(p)) / x.shape[0]


def rnn(W, b, xs, h0):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(h @ W + xs[t] + b)
    return np.sum(h * h)


def grows(x, y):
    for i in range(2):
        x = x * y + x        # x (3,) and y (2, 3): x is (2, 3) from the first trip
    return np.sum(x * x)


def two_shapes(x, c):
    s = 0.0
    for i in range(2):
        if i == 0:
            v = c * 2.0      # (3,)
        else:
            v = x * 2.0      # (1,): v + c un-broadcasts to v on this trip only
        s = s + np.sum(np.sin(v + c))
    return s


def scalars(x, a):
    return np.sum(x * a + a * a) * a


def complex_mix(x, z):
    return np.real(np.sum(x * z * x))


def keepdims_sub(x, y):
    m = np.mean(x, axis=0, keepdims=True)
    return np.sum((x - m) * y)


CASES = [
    (add_tanh, (A(3, 4), A(3, 4))),
    (add_tanh, (A(3, 1), A(1, 4))),
    (add_tanh, (A(3, 4), A(4))),
    (add_tanh, (A(4), A(3, 4))),
    (add_tanh, (A(), A(3))),                       # 0-d arrays
    (add_tanh, (A(2, 3), np.float64(0.7))),        # a NumPy scalar
    (add_tanh, (A(2, 3), 0.7)),                    # a Python float
    (add_tanh, (A(3, 4, dtype=np.float32), A(3, 4, dtype=np.float32))),
    (add_tanh, (A(3, 4, dtype=np.float32), A(1, 4))),
    (softmax_ce, (A(5, 3), A(3), A(4, 5), np.eye(3)[[0, 2, 1, 1]])),
    (softmax_ce, (A(5, 3), A(1, 3), A(4, 5), np.eye(3)[[0, 2, 1, 1]])),
    (softmax_ce, (A(5, 3, dtype=np.float32), A(3, dtype=np.float32),
                  A(4, 5, dtype=np.float32), np.eye(3, dtype=np.float32)[[0, 2, 1, 1]])),
    (rnn, (A(3, 3) * 0.5, A(3), A(4, 2, 3), A(2, 3))),
    (rnn, (A(3, 3) * 0.5, A(1, 3), A(4, 2, 3), A(1, 3))),     # h broadcasts up to (2, 3)
    (grows, (A(3), A(2, 3))),
    (two_shapes, (A(1), A(3))),
    (scalars, (A(3, 2), 1.3)),
    (scalars, (A(), 1.3)),
    (complex_mix, (A(3), A(3) + 1j * A(3))),
    (complex_mix, (A(3), A(2, 3) + 1j * A(2, 3))),
    (keepdims_sub, (A(4, 3), A(4, 3))),
    (keepdims_sub, (A(4, 3), A(3))),
]
IDS = [f"{f.__name__}-{i}" for i, (f, _) in enumerate(CASES)]


def float_positions(args):
    return tuple(i for i, a in enumerate(args) if np.asarray(a).dtype.kind == "f")


def assert_identical(a, b):
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, tuple):
        assert len(a) == len(b)
        for u, v in zip(a, b):
            assert_identical(u, v)
        return
    if isinstance(a, (np.ndarray, np.generic)):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)      # (NaN at the same places too)
        assert np.array_equal(np.signbit(a), np.signbit(b))
    else:
        assert a == b or (a != a and b != b)


@pytest.mark.parametrize("f,args", CASES, ids=IDS)
def test_specialized_is_general_bit_for_bit(f, args):
    wrt = float_positions(args)
    for mode in (sg.grad, sg.value_and_grad):
        general = mode(f, wrt=wrt, specialize=False)(*args)
        special = mode(f, wrt=wrt)
        for _ in range(3):       # the first call, then the cached call through its guard
            assert_identical(special(*args), general)


@pytest.mark.parametrize("f,args", [c for c in CASES if "complex" not in c[0].__name__],
                         ids=[i for c, i in zip(CASES, IDS) if "complex" not in i])
def test_specialized_against_central_differences(f, args):
    if any(np.asarray(a).dtype != np.float64 for a in args if not isinstance(a, float)):
        pytest.skip("central differences in float64 only")
    wrt = float_positions(args)
    got = sg.grad(f, wrt=wrt)(*args)
    for i, g in zip(wrt, got):
        if isinstance(args[i], np.ndarray):
            g = np.asarray(g)    # (a 0-d argument's gradient is a NumPy scalar, as before)
        assert_close(g, numeric_grad(f, args, i), f"{f.__name__} d/d arg {i}")


def test_the_shapes_drop_unbroadcasts_and_records():
    """Equal shapes: no un-broadcast of the operands and, in a loop, no shape records."""
    x, y = A(3, 4), A(3, 4)
    g = sg.grad(add_tanh, wrt=(0, 1))
    g(x, y)
    assert "Specialized to these argument shapes" in g.source and "(3, 4)" in g.source
    assert "unbroadcast" not in g.source
    assert "unbroadcast" in sg.grad(add_tanh, wrt=(0, 1), specialize=False).source
    r = sg.grad(rnn, wrt=(0, 1))
    args = (A(3, 3), A(3), A(4, 2, 3), A(2, 3))
    r(*args)
    general = sg.grad(rnn, wrt=(0, 1), specialize=False)
    general(*args)
    assert "shape_of" in general.source and "shape_of" not in r.source
    assert r.source.count("unbroadcast") < general.source.count("unbroadcast")


def test_a_new_shape_compiles_again():
    """Code specialized to (3, 4) + (3, 4) is never run for (3, 1) + (1, 4): its
    gradients would have the wrong shapes (no sum over the broadcast axes)."""
    g = sg.grad(add_tanh, wrt=(0, 1))
    general = sg.grad(add_tanh, wrt=(0, 1), specialize=False)
    calls = [(A(3, 4), A(3, 4)), (A(3, 1), A(1, 4)), (A(3, 4), A(4)), (A(3, 4), A(3, 4))]
    for _ in range(2):
        for args in calls:
            got = g(*args)
            assert [d.shape for d in got] == [a.shape for a in args]
            assert_identical(got, general(*args))
            shown = ", ".join(f"{n} {a.shape}" for n, a in zip("xy", args))
            assert shown in " ".join(g.source.split()) or "Specialized" not in g.source


def test_a_name_holding_two_shapes_keeps_its_unbroadcast():
    x, y = A(3), A(2, 3)
    g = sg.grad(grows, wrt=(0, 1))
    got = g(x, y)
    assert got[0].shape == (3,)
    assert_close(got[0], numeric_grad(grows, (x, y), 0), "grows d/dx")
    assert "ad.unbroadcast(" in g.source


def test_off_switch_and_the_limit_of_versions():
    g = sg.grad(add_tanh, wrt=(0, 1), specialize=False)
    g(A(3, 4), A(3, 4))
    assert "Specialized" not in g.source and "unbroadcast" in g.source
    h = sg.grad(add_tanh, wrt=(0, 1))
    general = sg.grad(add_tanh, wrt=(0, 1), specialize=False)
    for n in range(1, LIMIT + 4):
        args = (A(n, 2), A(n, 2))
        assert_identical(h(*args), general(*args))
    assert all(len(v) <= LIMIT for v in h._shapes.seen.values())
    assert "Specialized" not in h.source      # past the limit: the general code


def test_code_no_shape_changes_is_shared():
    """No un-broadcast that shapes decide (an array times a literal needs none): the
    general code serves every shape."""
    def f(x):
        return np.sum(np.sin(x) * 3.0)
    g = sg.grad(f, wrt=0)
    general = sg.grad(f, wrt=0, specialize=False)
    for args in [(A(3, 1),), (A(3, 4),), (A(2),)]:
        assert_identical((g(*args),), (general(*args),))
        assert "Specialized" not in g.source


def test_an_unbroadcast_the_shapes_call_for_is_written_out_as_its_sums():
    """(3, 1) + (1, 4): each operand's adjoint is the sum over the axis it was
    broadcast along, written as ``.sum(axis=..., keepdims=True)`` of the cotangent
    (the kernel's own operations: bit for bit the general code's gradients); leading
    axes added are summed away, a Python scalar's adjoint is the full sum."""
    def f(x, y, s):
        return np.sum(np.tanh(x + y) * s)
    g = sg.grad(f, wrt=(0, 1, 2))
    general = sg.grad(f, wrt=(0, 1, 2), specialize=False)
    for args in [(A(3, 1), A(1, 4), 0.7), (A(2, 3, 1), A(4), 1.3), (A(5, 1, 2), A(3, 1), -2.0)]:
        got = g(*args)
        assert_identical(got, general(*args))
        for i in range(3):
            assert_close(got[i], numeric_grad(f, args, i), f"d/d{'xys'[i]}")
        assert "unbroadcast(" not in g.source and ".sum(axis=" in g.source
    assert "dadd.sum(axis=(0, 2), keepdims=True).reshape((3, 1))" in g.source


def test_a_new_dtype_kind_compiles_again():
    """A real ``t`` proves ``t * sin(x)`` real; a complex ``t`` of the same shape does
    not (the un-broadcast then takes the real part): the guard sees the kind."""
    def f(x, t):
        return np.real(np.sum(t * np.sin(x)))
    g = sg.grad(f, wrt=0)
    general = sg.grad(f, wrt=0, specialize=False)
    x, t = A(3), A(3)
    assert_identical(g(x, t), general(x, t))
    real_code = g._last
    tc = t + 1j * A(3)
    assert_identical(g(x, tc), general(x, tc))
    assert g._last is not real_code
    assert_identical(g(x, t), general(x, t))     # (the general code may serve it now)
    np.testing.assert_allclose(g(x, tc), np.real(tc) * np.cos(x), rtol=1e-14)


def test_source_shows_the_code_a_call_runs():
    x, y = A(3, 4), A(3, 4)
    general = sg.source(add_tanh, wrt=(0, 1))
    special = sg.source(add_tanh, wrt=(0, 1), args=(x, y))
    assert "Specialized" not in general and "unbroadcast" in general
    assert "Specialized to these argument shapes" in special and "unbroadcast" not in special
    g = sg.grad(add_tanh, wrt=(0, 1))
    g(x, y)
    assert g.source == special
    other = sg.source(add_tanh, wrt=(0, 1), args=(A(3, 1), A(1, 4)))
    assert "x (3, 1), y (1, 4)" in " ".join(other.split())
    # (x + y's sums, written out)
    assert "unbroadcast(" not in other and "dadd.sum(axis=0, keepdims=True)" in other


def listed(x, y):
    items = [x]
    n = len(items)                  # (a no-gradient call, run as written, reads x)
    z = x * y
    return np.sum(z) + n


def test_an_array_code_run_as_written_may_reach_keeps_its_unbroadcast():
    """x is in a list a no-gradient call reads: its shape is not a fact, so x * y's
    un-broadcasts stay; with the list kept to itself, they go."""
    x, y = A(3), A(3)
    g = sg.grad(listed, wrt=(0, 1))
    assert_identical(g(x, y), sg.grad(listed, wrt=(0, 1), specialize=False)(x, y))
    assert "ad.unbroadcast(dz * y, x)" in g.source

    def unlisted(x, y):
        items = [x]
        z = x * y
        return np.sum(z) + np.sum(items[0])
    g = sg.grad(unlisted, wrt=(0, 1))
    g(x, y)
    assert "ad.unbroadcast(dz * y, x)" not in g.source
