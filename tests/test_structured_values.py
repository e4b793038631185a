"""Gradients through fields of namedtuples and dataclasses (``p.w``), in both modes.

The gradient of a structured argument has its type (a namedtuple of the same class,
a dataclass instance of the same class with zeros where nothing flowed), as JAX's
pytrees do.  Every value is checked against central differences in float64; an
attribute of anything else is refused with an error that names it.
"""
import collections
import dataclasses
import typing

import numpy as np
import pytest

import srcgrad as sg

Layer = collections.namedtuple("Layer", "W b")


@dataclasses.dataclass(frozen=True)
class Params:
    w: np.ndarray
    scale: float
    steps: int = 2


@dataclasses.dataclass
class Mutable:
    a: np.ndarray
    b: np.ndarray


# -- finite differences over structured values ----------------------------------------

def _is_dc(x):
    return dataclasses.is_dataclass(x) and not isinstance(x, type)


def _leaves(x):
    if _is_dc(x):
        return [v for f in dataclasses.fields(x) for v in _leaves(getattr(x, f.name))]
    if isinstance(x, (list, tuple)):
        return [v for e in x for v in _leaves(e)]
    if isinstance(x, float) or (isinstance(x, np.ndarray) and x.dtype.kind == "f"):
        return [x]
    return []


def _build(x, it):
    if _is_dc(x):
        return dataclasses.replace(x, **{f.name: _build(getattr(x, f.name), it)
                                         for f in dataclasses.fields(x)})
    if isinstance(x, (list, tuple)):
        items = [_build(e, it) for e in x]
        return type(x)._make(items) if hasattr(type(x), "_make") else type(x)(items)
    if isinstance(x, float) or (isinstance(x, np.ndarray) and x.dtype.kind == "f"):
        return next(it)
    return x


def numeric(f, args, i, eps=1e-6):
    """Central differences of scalar ``f(*args)`` w.r.t. argument ``i``, in its structure
    (integer fields get 0.0)."""
    base = _leaves(args[i])
    grads = []
    for k, leaf in enumerate(base):
        g = np.zeros(np.shape(leaf))
        for idx in np.ndindex(*np.shape(leaf)):
            vals = []
            for s in (eps, -eps):
                new = [np.array(v, dtype=float) if np.ndim(v) else float(v) for v in base]
                if np.ndim(leaf):
                    new[k][idx] += s
                else:
                    new[k] += s
                a = list(args)
                a[i] = _build(args[i], iter(new))
                vals.append(float(f(*a)))
            g[idx] = (vals[0] - vals[1]) / (2 * eps)
        grads.append(g if np.ndim(leaf) else float(g))
    return _build_grad(args[i], iter(grads))


def _build_grad(x, it):
    if _is_dc(x):
        return dataclasses.replace(x, **{f.name: _build_grad(getattr(x, f.name), it)
                                         for f in dataclasses.fields(x)})
    if isinstance(x, (list, tuple)):
        items = [_build_grad(e, it) for e in x]
        return type(x)._make(items) if hasattr(type(x), "_make") else type(x)(items)
    if isinstance(x, float) or (isinstance(x, np.ndarray) and x.dtype.kind == "f"):
        return next(it)
    return 0.0


def assert_same_structure_close(got, want, where="grad"):
    if _is_dc(want) or isinstance(want, (list, tuple)):
        assert type(got) is type(want), \
            f"{where}: {type(got).__name__} != {type(want).__name__}"
    if _is_dc(want):
        for f in dataclasses.fields(want):
            assert_same_structure_close(getattr(got, f.name), getattr(want, f.name),
                                        f"{where}.{f.name}")
    elif isinstance(want, (list, tuple)):
        assert len(got) == len(want), where
        for k, (u, v) in enumerate(zip(got, want)):
            assert_same_structure_close(u, v, f"{where}[{k}]")
    else:
        np.testing.assert_allclose(np.asarray(got, float), np.asarray(want, float),
                                   rtol=1e-5, atol=1e-7, err_msg=where)


def _close_values(got, want, where):
    """Like assert_same_structure_close, but float leaves may be numpy scalars."""
    if _is_dc(want) or isinstance(want, (list, tuple)):
        assert type(got) is type(want), f"{where}: {type(got).__name__}"
        pairs = ([(getattr(got, f.name), getattr(want, f.name)) for f in
                  dataclasses.fields(want)] if _is_dc(want) else list(zip(got, want)))
        for k, (u, v) in enumerate(pairs):
            _close_values(u, v, f"{where}/{k}")
    else:
        np.testing.assert_allclose(np.asarray(got, float), np.asarray(want, float),
                                   rtol=1e-5, atol=1e-7, err_msg=where)


def _tangent_dot(grad, tangent):
    return sum(float(np.sum(np.asarray(g) * np.asarray(t)))
               for g, t in zip(_leaves(grad), _leaves(tangent)))


# -- the programs ---------------------------------------------------------------------

def mlp(layers, x):
    """A list of namedtuple layers: the everyday way to hold parameters."""
    h = x
    for layer in layers:
        h = np.tanh(h @ layer.W + layer.b)
    return np.sum(h ** 2)


def apply_layer(layer, h):
    return np.tanh(h @ layer.W + layer.b)


def mlp_with_helper(layers, x):
    h = x
    for layer in layers:
        h = apply_layer(layer, h)
    return np.sum(h * h)


def scaled(p, x):
    """A frozen dataclass with an integer setting (its gradient: zeros there)."""
    s = 0.0
    for i in range(p.steps):
        s = s + np.sum(np.sin(p.w * x) ** (i + 1)) * p.scale
    return s


def unpacked_and_read(layer, x):
    W, b = layer                  # a namedtuple read both as a tuple and by field
    return np.sum(x @ W * layer.b) + np.sum(b)


def mutable_fields(m, x):
    a = m.a
    return np.sum(a * x) + np.sum(m.b * m.a)


def rng_layer(shape_in, shape_out, seed):
    r = np.random.default_rng(seed)
    return Layer(r.standard_normal((shape_in, shape_out)) * 0.5, r.standard_normal(shape_out))


LAYERS = [rng_layer(3, 4, 0), rng_layer(4, 2, 1)]
X = np.random.default_rng(2).standard_normal((5, 3))
PARAMS = Params(np.array([0.3, -0.4, 0.5]), 1.5)
CASES = [(mlp, (LAYERS, X)), (mlp_with_helper, (LAYERS, X)),
         (scaled, (PARAMS, np.array([0.7, 0.2, -0.1]))),
         (unpacked_and_read, (LAYERS[0], X)),
         (mutable_fields, (Mutable(np.array([1.0, 2.0]), np.array([0.5, -1.5])),
                           np.array([0.3, 0.4])))]


@pytest.mark.parametrize("f, args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_reverse_mode_keeps_the_type_and_matches_differences(f, args):
    got = sg.grad(f, wrt=0)(*args)
    assert_same_structure_close(got, numeric(f, args, 0))
    # and with the other argument: both at once
    both = sg.grad(f, wrt=(0, 1))(*args)
    _close_values(both[1], numeric(f, args, 1), "grad wrt the data")


@pytest.mark.parametrize("f, args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_forward_mode_matches_the_reverse_gradient(f, args):
    rng = np.random.default_rng(5)
    tangent = _build(args[0], iter([rng.standard_normal(np.shape(v)) if np.ndim(v) else
                                    float(rng.standard_normal()) for v in _leaves(args[0])]))
    zeros = np.zeros_like(args[1])
    _, dout = sg.jvp(f, args, (tangent, zeros))
    grad = numeric(f, args, 0)
    np.testing.assert_allclose(dout, _tangent_dot(grad, tangent), rtol=1e-5, atol=1e-7)


def test_second_order_through_a_field():
    def db(layer, x):
        return np.sum(sg.grad(unpacked_and_read, wrt=0)(layer, x).b ** 2)

    layer = LAYERS[0]
    got = sg.grad(db, wrt=0)(layer, X)
    assert isinstance(got, Layer)
    assert_same_structure_close(got, numeric(db, (layer, X), 0))


def test_the_inputs_are_not_changed():
    before = (PARAMS.w.copy(), PARAMS.scale)
    sg.grad(scaled, wrt=0)(PARAMS, np.array([0.7, 0.2, -0.1]))
    assert np.array_equal(PARAMS.w, before[0]) and PARAMS.scale == before[1]


class Plain:
    def __init__(self, w):
        self.w = w


def plain_object(p, x):
    return np.sum(p.w * x)


def array_attribute(x):
    return np.sum(x.flat[0] * x)


def test_an_object_of_a_user_class_is_a_record_with_a_gradient_of_its_class():
    # (objects are tested in depth in test_objects.py)
    g = sg.grad(plain_object, wrt=0)(Plain(np.ones(2)), np.array([2.0, 3.0]))
    assert type(g) is Plain
    np.testing.assert_allclose(g.w, [2.0, 3.0])
    g = sg.grad(plain_in_a_list, wrt=0)([Plain(np.ones(2))], np.array([2.0, 3.0]))
    assert type(g[0]) is Plain
    np.testing.assert_allclose(g[0].w, [2.0, 3.0])


def test_an_installed_library_s_object_is_refused_by_name():
    import types
    with pytest.raises(sg.NonDifferentiableError, match=r"p is a SimpleNamespace object"):
        sg.grad(plain_object, wrt=0)(types.SimpleNamespace(w=np.ones(2)), np.ones(2))
    with pytest.raises(sg.NonDifferentiableError, match=r"test_structured_values\.py"):
        sg.jvp(plain_object, (types.SimpleNamespace(w=np.ones(2)), np.ones(2)),
               (types.SimpleNamespace(w=np.ones(2)), np.ones(2)))
    # held in a list: refused where the gradient reaches the field
    with pytest.raises(sg.NonDifferentiableError, match=r"attribute \.w of a SimpleNamespace"):
        sg.grad(plain_in_a_list, wrt=0)([types.SimpleNamespace(w=np.ones(2))], np.ones(2))


def plain_in_a_list(objs, x):
    return np.sum(objs[0].w * x)


def test_an_array_attribute_without_a_rule_is_refused():
    with pytest.raises(sg.NonDifferentiableError, match=r"attribute \.flat of an array"):
        sg.grad(array_attribute)(np.array([1.0, 2.0]))


def config_read(x, cfg):
    return np.sum(x * cfg.w)


def test_a_field_of_an_object_that_carries_no_gradient_is_read_as_it_is():
    # the object is not differentiated: nothing flows into it, nothing is refused
    got = sg.grad(config_read, wrt=0)(np.array([1.0, 2.0]), Plain(np.array([3.0, 4.0])))
    np.testing.assert_allclose(got, [3.0, 4.0])


def test_the_generated_code_reads_the_field_as_written():
    src = sg.source(apply_layer, wrt=0)
    assert "layer.W" in src and "ad.field_grad(" in src


State = collections.namedtuple("State", "h c")


class Carry(typing.NamedTuple):
    h: np.ndarray
    scale: float = 2.0


def built_inside(x, w):
    """Namedtuples built from differentiated values: positional, keyword, default."""
    s = State(np.tanh(x * w), c=x + 1.0)
    t = Carry(s.h * s.c)
    for _ in range(2):
        t = Carry(np.sin(t.h) * w, scale=t.scale * 0.5)
    return np.sum(t.h * t.scale) + np.sum(s[1] ** 2)


def test_namedtuples_built_inside_in_both_modes():
    x, w = np.array([0.3, -0.5]), np.array([1.5, 0.7])
    got = sg.grad(built_inside, wrt=(0, 1))(x, w)
    for i in (0, 1):
        _close_values(got[i], numeric(built_inside, (x, w), i), f"d/d{i}")
    t = np.array([0.2, -1.0])
    _, dout = sg.jvp(built_inside, (x, w), (t, np.zeros(2)))
    np.testing.assert_allclose(dout, np.sum(got[0] * t), rtol=1e-7)


def test_a_namedtuple_with_a_bad_keyword_is_a_located_error():
    def bad(x):
        return np.sum(State(x, d=x).h)
    with pytest.raises(sg.UnsupportedSyntaxError, match="unexpected or repeated argument 'd'"):
        sg.grad(bad)(np.ones(2))
