"""The guard of a cached call to shape-specialized code (api/cached_call.py).

The guard compares every array's shape and dtype with the recorded ones in one
tuple comparison and, only when that fails, checks them one by one (a dtype equal
but not the same object, another dtype of the same kind).  Checked here: a new
shape at any one position, an array reshaped in place and a new dtype kind never
run the code specialized to the old ones (each call's gradients equal the general
code's, ``specialize=False``, and central differences); what the one-by-one checks
accept still gives the general code's gradients.
"""
import numpy as np
import pytest

import srcgrad as sg

from gradcheck_util import assert_close, numeric_grad

rng = np.random.default_rng(2026)


def A(*shape, dtype=np.float64):
    return np.asarray(rng.standard_normal(shape), dtype=dtype)


def three(x, y, z):
    return np.sum(np.tanh(x + y) * z)


def assert_identical(got, want):
    assert type(got) is type(want) and len(got) == len(want)
    for u, v in zip(got, want):
        assert type(u) is type(v) and u.dtype == v.dtype and u.shape == v.shape
        np.testing.assert_array_equal(u, v)


def _specialized_and_cached(args):
    g = sg.grad(three, wrt=(0, 1))
    g(*args)
    g(*args)                         # (the second call runs the guard)
    assert "Specialized" in g.source and "unbroadcast" not in g.source
    return g


# each position on its own takes a shape of the same dtype that broadcasts: the
# code for (3, 4) everywhere would give gradients of the wrong shape or values
@pytest.mark.parametrize("pos, shape", [(0, (4,)), (0, (1, 4)), (1, (3, 1)), (1, (4,)),
                                        (2, (2, 3, 4)), (2, (4,))])
def test_a_new_shape_at_any_position_never_runs_the_old_code(pos, shape):
    base = (A(3, 4), A(3, 4), A(3, 4))
    g = _specialized_and_cached(base)
    general = sg.grad(three, wrt=(0, 1), specialize=False)
    args = list(base)
    args[pos] = A(*shape)
    got = g(*args)
    assert [d.shape for d in got] == [args[0].shape, args[1].shape]
    assert_identical(got, general(*args))
    for i in (0, 1):
        assert_close(got[i], numeric_grad(three, tuple(args), i), f"three d/d{'xy'[i]}")
    assert_identical(g(*base), general(*base))          # (and back)


@pytest.mark.parametrize("pos", [0, 1, 2])
def test_an_array_reshaped_in_place_is_seen(pos):
    """The same array objects, one of them given another shape with ``.shape =``."""
    args = (A(3, 4), A(3, 4), A(3, 4))
    g = _specialized_and_cached(args)
    general = sg.grad(three, wrt=(0, 1), specialize=False)
    args[pos].shape = (1, 3, 4)
    got = g(*args)
    assert [d.shape for d in got] == [args[0].shape, args[1].shape]
    assert_identical(got, general(*args))


def test_a_new_dtype_kind_of_an_argument_not_differentiated_is_seen():
    """z complex: ``tanh(x + y) * z`` is complex, and its real part is what x and y's
    gradients take (np.real in the function); real code would keep the product."""
    def f(x, y, z):
        return np.real(np.sum(np.tanh(x + y) * z))
    g = sg.grad(f, wrt=(0, 1))
    general = sg.grad(f, wrt=(0, 1), specialize=False)
    x, y, z = A(3), A(3), A(3)
    g(x, y, z)
    g(x, y, z)
    zc = z + 1j * A(3)
    got = g(x, y, zc)
    assert_identical(got, general(x, y, zc))
    assert got[0].dtype == np.float64
    np.testing.assert_allclose(got[0], np.real(zc) / np.cosh(x + y) ** 2, rtol=1e-13)


def test_what_the_checks_one_by_one_accept_gives_the_general_codes_gradients():
    """A dtype equal to the recorded one but another object (with metadata), and a
    float32 argument not differentiated where a float64 was (same kind): the one
    tuple comparison fails, the checks one by one pass, the code is the same."""
    base = (A(3, 4), A(3, 4), A(3, 4))
    g = _specialized_and_cached(base)
    code = g._last
    general = sg.grad(three, wrt=(0, 1), specialize=False)
    tagged = np.dtype(np.float64, metadata={"unit": "m"})
    assert tagged == np.float64 and tagged is not np.dtype(np.float64)
    x = A(3, 4).view(tagged)
    for args in [(x, A(3, 4), A(3, 4)), (A(3, 4), A(3, 4), A(3, 4, dtype=np.float32))]:
        got = g(*args)
        assert g._last is code
        assert_identical(got, general(*args))
        for i in (0, 1):
            assert_close(got[i], numeric_grad(three, args, i), "three")


def test_the_guard_compares_every_array_it_was_specialized_on():
    """Its one comparison names each array's shape and each dtype, and the checks
    one by one each array's shape (the text a traceback through it would show)."""
    from srcgrad.api import cached_call
    g = _specialized_and_cached((A(3, 4), A(3, 4), A(3, 4)))
    hit, = g._by_types.values()
    text = cached_call.guard_source(hit)
    fast = next(line for line in text.splitlines() if "!= K" in line)
    for i in range(3):
        assert f"a{i}.shape" in fast and f"a{i}.shape != S{i}" in text
    assert "d0" in fast and "d1" in fast and "a2.dtype" in fast
    assert "a2.dtype.kind != 'f'" in text
    assert hit.seen == ((3, 4),) * 3 + (np.dtype(np.float64),) * 3
