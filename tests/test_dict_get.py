"""``d.get(k, default)`` of a dict: the item when the key is there, else the default
(evaluated first either way, as Python does); checked in both modes."""
import numpy as np
import pytest

import srcgrad as sg
from gradcheck_util import numeric_grad, assert_close


def present_and_missing(x):
    d = {"a": x, "c": x * 3.0}
    return np.sum(d.get("a") * 2.0 + d.get("b", np.sin(x)) + d.get("c", x * 100.0))


def from_a_parameter(params, x):
    w = params.get("w")
    b = params.get("b", 0.5)          # missing: the constant default
    scale = params.get("scale", x)    # missing: the default carries the gradient
    return np.sum(np.tanh(w * x + b) * scale)


def key_in_a_loop(x):
    d = {}
    for i in range(3):
        d[i] = x * (i + 1.0)
    total = 0.0
    for i in range(5):
        total = total + np.sum(d.get(i, x * 0.0) ** 2)
    return total


X = np.array([0.3, -0.7])
CASES = [(present_and_missing, (X,)), (from_a_parameter, ({"w": np.array([1.5, -0.5])}, X)),
         (key_in_a_loop, (X,))]


@pytest.mark.parametrize("f, args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_reverse_and_forward(f, args):
    n = len(args)
    got = sg.grad(f, wrt=tuple(range(n)) if n > 1 else 0)(*args)
    for i in range(n):
        assert_close(got[i] if n > 1 else got, numeric_grad(f, args, i), f"d/d{i}")
    t = np.array([0.4, 1.1])
    tangents = tuple({k: np.zeros_like(v) for k, v in a.items()} if isinstance(a, dict)
                     else t for a in args)
    _, dout = sg.jvp(f, args, tangents)
    g = sg.grad(f, wrt=n - 1)(*args)
    np.testing.assert_allclose(dout, np.sum(g * t), rtol=1e-8, atol=1e-12)


class NotADict:
    def get(self, k, default=None):
        return 2.0


def other_get(x, obj):
    return x * obj.get("a", 1.0)


def test_get_of_another_object_is_its_own_method():
    # not known to be a dict: the object's own .get runs (a constant here)
    assert sg.grad(other_get, wrt=0)(1.5, NotADict()) == 2.0


# -- d.pop(k[, default]) on a dict: the item read, then d without it ---------------------

def scaled(x, **kwargs):
    scale = kwargs.get("scale", 1.0)
    shift = kwargs.pop("shift", 0.0)
    rest = kwargs.pop("extra")
    return scale * x + shift + rest * len(kwargs)


def pops(x, s):
    return np.sum(scaled(x, scale=s, shift=np.sin(s), extra=s * x) ** 2)


def pop_seen_through_another_name(x):
    d = {"a": x * 2.0, "b": x}
    e = d
    d.pop("a")
    return np.sum(e["b"]) + len(e)


def test_dict_pop_gives_the_popped_item_its_gradient():
    x, s = np.array([0.3, -0.7, 1.1]), 0.8
    gx, gs = sg.grad(pops)(x, s)
    eps = 1e-6
    fd_s = (pops(x, s + eps) - pops(x, s - eps)) / (2 * eps)
    fd_x = np.array([(pops(x + eps * e, s) - pops(x - eps * e, s)) / (2 * eps)
                     for e in np.eye(3)])
    np.testing.assert_allclose(gx, fd_x, rtol=1e-6)
    np.testing.assert_allclose(gs, fd_s, rtol=1e-6)
    _, t = sg.jvp(pops, (x, s), (np.ones(3), 1.0))
    np.testing.assert_allclose(t, np.sum(fd_x) + fd_s, rtol=1e-6)


def test_dict_pop_seen_through_another_name_is_refused():
    with pytest.raises(sg.UnsupportedSyntaxError, match=r"test_dict_get\.py"):
        sg.grad(pop_seen_through_another_name)(np.ones(3))
