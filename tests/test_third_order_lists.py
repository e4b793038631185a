"""Third derivatives through a list that is appended to, then read by ``min`` / ``max``.

The backward sweep of such code packs ``(l5,)`` into a tuple for ``select_grad`` and
later pops ``l5`` in place.  When that sweep is differentiated again, its forward
replays the pop on a list that the tuple in its record holds, and its reverse sweep,
which works on copies of what it changes, restored the copy while the tuple still
held the popped original: the third derivative raised ``IndexError`` or "max/min: the
result is none of the arguments".  The unpacking of a backward sweep now copies the
tuples, lists and dicts that may hold such a list together with it (``ad.copies``
rebuilds them around the copy).
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad import runtime as rt

X = np.array([0.3, -0.7, 1.1])
V = np.array([0.5, 0.2, -0.4])


def _fd(fn, x, h=1e-5):
    return np.array([(fn(x + h * e) - fn(x - h * e)) / (2 * h) for e in np.eye(len(x))])


def _third(f):
    """(grad of <H v, v>, by srcgrad three times; its central differences)."""
    def hv(x):
        return np.sum(sg.grad(f)(x) * V)

    def vhv(x):
        return np.sum(sg.grad(hv)(x) * V)
    return sg.grad(vhv)(X), _fd(vhv, X)


def min_of_appended(x):
    l5 = [x[0], np.sum(x)]
    l5.append(np.mean(x))
    v4 = min(l5)
    return np.sin(v4) * np.sum(x ** 2)


def max_of_appended_twice(x):
    items = [np.sin(x[1])]
    items.append(x[0] * x[2])
    items.append(np.cos(x[2]))
    top = max(items)
    return top * np.exp(x[0]) + np.sum(x ** 3)


def min_then_index(x):
    vals = [x[2] ** 2]
    vals.append(np.tanh(x[0]))
    m = min(vals)
    return m * vals[0] + np.sin(np.sum(x))


@pytest.mark.parametrize("f", [min_of_appended, max_of_appended_twice, min_then_index])
def test_third_order_through_an_appended_list(f):
    got, fd = _third(f)
    np.testing.assert_allclose(got, fd, rtol=1e-5, atol=1e-6)
    assert np.any(np.abs(fd) > 1e-3)     # (a derivative that is not zero everywhere)


@pytest.mark.parametrize("seed", [135, 174, 200, 332, 347, 357, 376])
def test_third_order_fuzz_programs(seed):
    from test_fuzz_idioms import run_seed_third_order
    out = run_seed_third_order(seed)
    assert out.status != "fail", f"seed {seed}: {out.detail}\n{out.program.source}"


def test_copies_rebuild_the_tuples_that_hold_a_copied_list():
    a, b = [1.0, 2.0], [3.0]
    seq = (a, 5.0)
    rec = (seq, b, "k")
    ca, cseq, crec, cb = rt.copies(a, seq, rec, b)
    assert ca == a and ca is not a
    assert cseq[0] is ca and cseq[1] == 5.0
    assert crec[0] is cseq and crec[1] is cb and crec[2] == "k"
    ca.pop()
    assert a == [1.0, 2.0] and seq[0] is a     # (the originals are untouched)


def test_copies_keep_sharing_and_leave_unrelated_tuples_alone():
    a = [1.0]
    t = (2.0, 3.0)
    ca, ca2, ct = rt.copies(a, a, t)
    assert ca is ca2 and ca is not a
    assert ct is t
    holder = [a, 4.0]
    ca, cholder = rt.copies(a, holder)
    assert cholder[0] is ca and cholder is not holder and holder[0] is a
    d = {"k": a}
    ca, cd = rt.copies(a, d)
    assert cd["k"] is ca and d["k"] is a
