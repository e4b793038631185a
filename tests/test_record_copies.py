"""Copies of namedtuples and dataclasses with fields changed, and their plain forms:
``p._replace(b=v)``, ``P._make(xs)``, ``p._asdict()``, ``dataclasses.replace``,
``dataclasses.asdict`` / ``astuple`` (nested records too).  Their gradients keep the
value's structure (rules/python/attributes.py); refused before ("has no derivative
rule").  Checked in reverse, forward and second order against central differences.

Also: a dataclass whose ``__post_init__`` computes an attribute from its fields,
built inside differentiated code, used to give a zero gradient for what flowed
through that attribute; it is refused now, at the user's line."""
import collections
import dataclasses

import numpy as np
import pytest

import srcgrad as sg
from gradcheck_util import check_modes

Pair = collections.namedtuple("Pair", "w b")


@dataclasses.dataclass
class Layer:
    W: np.ndarray
    b: np.ndarray


@dataclasses.dataclass(frozen=True)
class Model:
    first: Layer
    scale: float
    name: str = "m"


@dataclasses.dataclass
class Checked:
    lo: float
    hi: float

    def __post_init__(self):
        assert self.lo <= self.hi + 100.0       # (checks only: the copy is a copy)


@dataclasses.dataclass
class Derived:
    w: float
    b: float

    def __post_init__(self):
        self.s = self.w * self.b


def nt_replace(x):
    p = Pair(x[0], np.sin(x[1]))
    q = p._replace(b=x[2] * p.b, w=p.w ** 2)
    return q.w * q.b + p.b


def nt_make(x):
    p = Pair._make([x[0] * x[1], np.exp(x[2])])
    return p.w / p.b


def nt_make_generator(x):
    p = Pair._make(x[i] * x[i + 1] for i in range(2))
    return p.w * p.b


def nt_asdict(x):
    d = Pair(x[0], x[1] * x[2])._asdict()
    return sum(v * v for v in d.values()) + d["w"] * d["b"]


def nt_asdict_loop(x):
    p = Pair(x[:2], x[1:])
    total = 0.0
    for k, v in p._asdict().items():
        total = total + np.sum(np.tanh(v)) * (2.0 if k == "w" else 0.5)
    return total


def dc_replace(x):
    layer = Layer(x[:2], x[2])
    other = dataclasses.replace(layer, b=np.cos(layer.b))
    return np.sum(other.W ** 2) * other.b + layer.b


def dc_replace_frozen_nested(x):
    m = Model(Layer(x[:2], x[2]), 1.5)
    m2 = dataclasses.replace(m, scale=x[0] * m.scale)
    return m2.scale * np.sum(m2.first.W) + m2.first.b


def dc_replace_checked(x):
    c = Checked(x[0], x[1])
    c2 = dataclasses.replace(c, hi=c.hi * x[2])
    return c2.lo * c2.hi


def dc_asdict_nested(x):
    m = Model(Layer(x[:2], x[2] * x[0]), 2.0)
    d = dataclasses.asdict(m)
    return np.sum(d["first"]["W"] ** 3) * d["scale"] + d["first"]["b"]


def dc_astuple_nested(x):
    m = Model(Layer(x[1:], x[0]), 0.5)
    (W, b), scale, name = dataclasses.astuple(m)
    return np.prod(W) + b * scale * len(name)


CASES = [nt_replace, nt_make, nt_make_generator, nt_asdict, nt_asdict_loop, dc_replace,
         dc_replace_frozen_nested, dc_replace_checked, dc_asdict_nested, dc_astuple_nested]
X = np.array([0.7, -1.2, 0.45])
V = np.array([0.3, 0.8, -0.5])


@pytest.mark.parametrize("mode", ["reverse", "forward", "second"])
@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_copies(f, mode):
    check_modes(f, X.copy(), V, mode)


def replace_param(p, x):
    q = p._replace(w=p.w * x)
    return q.w * q.b + p.w


def replace_dataclass_param(layer, x):
    other = dataclasses.replace(layer, W=layer.W * x)
    return np.sum(other.W * other.b) + np.sum(layer.W)


def test_gradient_of_a_namedtuple_parameter_is_one():
    g, dx = sg.grad(replace_param, wrt=(0, 1))(Pair(1.5, 2.0), 0.7)
    assert type(g) is Pair
    # d/dw (w x b + w) = x b + 1; d/db = w x; d/dx = w b
    assert g.w == pytest.approx(0.7 * 2.0 + 1.0) and g.b == pytest.approx(1.5 * 0.7)
    assert dx == pytest.approx(1.5 * 2.0)


def test_gradient_of_a_dataclass_parameter_is_one():
    layer = Layer(np.array([1.0, -2.0]), np.array([0.5, 3.0]))
    g, dx = sg.grad(replace_dataclass_param, wrt=(0, 1))(layer, 0.7)
    assert type(g) is Layer
    np.testing.assert_allclose(g.W, 0.7 * layer.b + 1.0)
    np.testing.assert_allclose(g.b, 0.7 * layer.W)
    assert dx == pytest.approx(np.sum(layer.W * layer.b))
    np.testing.assert_array_equal(layer.W, [1.0, -2.0])       # the user's object kept


def replace_recomputed(x):
    d = Derived(x[0], 2.0)
    e = dataclasses.replace(d, w=x[1])
    return e.s


def built_with_post_init(x):
    d = Derived(x[0], 2.0)
    return d.s * x[1]


@pytest.mark.parametrize("f", [replace_recomputed, built_with_post_init],
                         ids=lambda f: f.__name__)
def test_a_field_computed_by_post_init_is_refused_not_dropped(f):
    # (built_with_post_init's gradient was [0, 1.4]: the 2 * x[1] through d.s dropped)
    with pytest.raises(sg.NonDifferentiableError, match=r"\.s"):
        sg.grad(f)(X.copy())


class Own:
    def __init__(self, v):
        self.v = v

    def _replace(self, v):
        return Own(self.v + v)


def own_replace(x):
    o = Own(x[0])
    return o._replace(v=x[1] * 2.0).v * x[2]


def test_a_class_with_its_own_replace_keeps_it():
    check_modes(own_replace, X.copy(), V, "reverse")
