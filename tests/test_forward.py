"""Forward mode (issue 5): ``sg.jvp`` by source transformation, checked through the compiler.

The rule table itself (every rule's forward template against finite differences, and
reverse against forward, ``<g, J t> == <J^T g, t>``) is checked rule by rule in
tests/test_rules.py.  Here the forward *transformation* is checked: on every function
of the control-flow table of tests/test_control_flow.py (loops, branches, while, calls,
containers, setitem, early returns), ``sg.jvp`` must match central finite differences
along a random tangent, and agree with reverse mode (``<grad f, t>``) to 1e-10.
"""
import copy
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import srcgrad as sg
from srcgrad.rules import registry as table
import test_control_flow as cf
from gradcheck_util import float_params, is_float_leaf

_rng = np.random.default_rng(5)


# -- structures: tangents of containers have the same structure -----------------------

def random_like(x):
    """A random tangent with the structure of ``x`` (None for non-float leaves)."""
    if isinstance(x, dict):
        return {k: random_like(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(random_like(v) for v in x)
    if not is_float_leaf(x):
        return None
    return _rng.normal(size=np.shape(x)) if isinstance(x, np.ndarray) else float(_rng.normal())


def axpy(a, t, x):
    """``x + a * t`` leaf by leaf (t None: x unchanged)."""
    if isinstance(x, dict):
        return {k: axpy(a, t[k], x[k]) for k in x}
    if isinstance(x, (list, tuple)):
        return type(x)(axpy(a, ti, xi) for ti, xi in zip(t, x))
    if t is None:
        return x
    return type(x)(x + a * t) if isinstance(x, float) else x + a * t


def inner(a, b):
    if isinstance(a, dict):
        return sum(inner(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return sum(inner(x, y) for x, y in zip(a, b))
    if a is None or b is None:
        return 0.0
    return float(np.sum(np.asarray(a, dtype=float) * np.asarray(b, dtype=float)))


def directional_fd(f, args, tangents, eps=1e-6):
    plus = [axpy(eps, t, a) if t is not None else a for a, t in zip(args, tangents)]
    minus = [axpy(-eps, t, a) if t is not None else a for a, t in zip(args, tangents)]
    return (np.asarray(f(*plus), dtype=float) - np.asarray(f(*minus), dtype=float)) / (2 * eps)


# -- the control-flow table, in forward mode ---------------------------------------------

FORWARD_CASES = [pytest.param(f, args, wrt, ref, id=ident)
                 for f, args, wrt, ident, rtol, atol, ref, xfail in cf.CASES if not xfail]


@pytest.mark.parametrize("f, args, wrt, ref", FORWARD_CASES)
def test_jvp_through_control_flow(f, args, wrt, ref):
    wrt = float_params(f, args) if wrt is None else ([wrt] if isinstance(wrt, int) else list(wrt))
    tangents = [random_like(a) if i in wrt else None for i, a in enumerate(args)]
    fresh = lambda: copy.deepcopy(args)  # noqa: E731  (some functions update their inputs)
    out, dout = sg.jvp(f, fresh(), tangents)
    assert np.allclose(out, f(*fresh()), rtol=1e-12, atol=1e-12)
    # against finite differences (of the function with stopped values frozen, if any)
    fd = directional_fd(ref(*fresh()) if ref else f, fresh(), tangents)
    scale = max(1.0, float(np.max(np.abs(fd))))
    np.testing.assert_allclose(dout, fd, rtol=1e-5, atol=1e-6 * scale,
                               err_msg=f"forward mode vs finite differences\n"
                                       f"{sg.source(f, wrt=tuple(wrt), mode='forward')}")
    # against reverse mode: <grad f, t> (the two transformations agree to rounding)
    grads = sg.grad(f, wrt=tuple(wrt))(*fresh())
    expect = sum(inner(g, tangents[i]) for g, i in zip(grads, wrt))
    assert abs(float(dout) - expect) <= 1e-10 * max(1.0, abs(expect)), (float(dout), expect)


# -- generated code ----------------------------------------------------------------------

def ode(x, a, b):
    dt = 0.01
    for i in range(100):
        x = x + dt * (a * x - b * x * x)
    return x


def test_forward_source_is_readable():
    src = sg.source(ode, wrt=0, mode="forward")
    assert src.startswith("def jvp_ode(x, a, b, *, dx):")
    assert "# line" in src and "x = x + dt * (a * x - b * x * x)" in src
    assert "dx = dx + dmul3" in src          # the user's names, d<name> for tangents
    assert "da" not in src and "db" not in src and "ddt" not in src   # no tangent: no code
    jvp_fn = sg.source(ode, wrt=(0, 1), mode="forward")
    assert "*, dx, da)" in jvp_fn


def test_ode_matches_reverse_for_every_argument():
    args = (0.5, 1.0, 0.3)
    for i in range(3):
        t = [None] * 3
        t[i] = 1.0
        _, d = sg.jvp(ode, args, t)
        assert d == pytest.approx(sg.grad(ode, wrt=i)(*args), rel=1e-12)


def overwrite_both(x, y):
    y = x ** y          # pow's tangent reads the old y and the result
    x = np.sin(x)       # sin's tangent reads the old x
    z = np.tanh(x)      # tanh's tangent reads the result
    return np.sum(z * y)


def test_tangent_reads_old_value_and_result():
    x, y = _rng.uniform(0.5, 1.5, 4), _rng.uniform(0.5, 1.5, 4)
    tx, ty = _rng.normal(size=4), _rng.normal(size=4)
    _, d = sg.jvp(overwrite_both, (x, y), (tx, ty))
    assert d == pytest.approx(float(directional_fd(overwrite_both, (x, y), (tx, ty))), rel=1e-6)
    assert "y_in = y" in sg.source(overwrite_both, mode="forward")


def clashes(x, dx, ad, np_):
    """Uses the names forward mode would like: dx, ad."""
    y = x * dx + ad
    return np.sum(y * np_)


def test_generated_names_never_clash_with_users():
    x, dx, ad, np_ = _rng.normal(size=3), _rng.normal(size=3), 0.5, _rng.normal(size=3)
    t = _rng.normal(size=3)
    _, d = sg.jvp(clashes, (x, dx, ad, np_), (t, None, None, None))
    assert d == pytest.approx(float(np.sum(t * dx * np_)), rel=1e-12)


def setitem_on_input(x, v):
    x[0] = v * 2.0
    y = x * 1.0
    y[1:] = y[1:] * v
    return np.sum(y ** 2)


def test_setitem_never_writes_into_callers_arrays():
    x, v = _rng.normal(size=4), 0.7
    tx = _rng.normal(size=4)
    x0, tx0 = x.copy(), tx.copy()
    _, d = sg.jvp(setitem_on_input, (x, v), (tx, 1.0))
    assert np.array_equal(x, x0) and np.array_equal(tx, tx0)
    fd = directional_fd(setitem_on_input, (x0.copy(), v), (tx0, 1.0))
    assert d == pytest.approx(float(fd), rel=1e-6)


def build_containers(x, p):
    hs = []
    h = x
    for i in range(3):
        h = np.tanh(h * p["w"] + p["b"])
        hs.append(h)
    pair = (hs[0], hs[-1])
    last = hs.pop()
    d = {"first": pair[0], "last": last, "const": 2.0}
    return [d["first"] * d["const"], d["last"], hs]


def test_tangents_of_containers_have_their_structure():
    x = _rng.normal(size=3)
    p = {"w": _rng.normal(size=3), "b": 0.3}
    tp = {"w": _rng.normal(size=3), "b": 0.5}
    out, dout = sg.jvp(build_containers, (x, p), (None, tp))
    assert isinstance(dout, list) and len(dout) == 3 and isinstance(dout[2], list)
    assert len(dout[2]) == len(out[2]) == 2
    eps = 1e-6
    plus = build_containers(x, axpy(eps, tp, p))
    minus = build_containers(x, axpy(-eps, tp, p))
    for got, hi, lo in [(dout[0], plus[0], minus[0]), (dout[1], plus[1], minus[1]),
                        (dout[2][0], plus[2][0], minus[2][0]),
                        (dout[2][1], plus[2][1], minus[2][1])]:
        np.testing.assert_allclose(got, (hi - lo) / (2 * eps), rtol=1e-6, atol=1e-9)


def helper(a, b, scale=1.0):
    return np.sin(a) * b * scale


def calls_helper(x, w):
    y = helper(x, w, scale=2.0)
    z = helper(y, 3.0)
    return np.sum(z) + helper(1.0, x[0])


def test_calls_transform_the_callee():
    x, w = _rng.normal(size=3), _rng.normal(size=3)
    tx = _rng.normal(size=3)
    _, d = sg.jvp(calls_helper, (x, w), (tx, None))
    assert d == pytest.approx(float(directional_fd(calls_helper, (x, w), (tx, None))), rel=1e-6)
    src = sg.source(calls_helper, wrt=0, mode="forward")
    assert "helper_jvp(x, w, scale=2.0, da=dx)" in src


def frozen(x):
    with sg.no_grad():
        s = np.sum(x * x)
    return x * s


def test_no_grad_block_has_no_tangent():
    x, t = _rng.normal(size=3), _rng.normal(size=3)
    _, d = sg.jvp(frozen, (x,), (t,))
    np.testing.assert_allclose(d, t * np.sum(x * x), rtol=1e-12)


# -- errors ------------------------------------------------------------------------------

def opaque(x):
    return x * 2


@pytest.fixture
def registered():
    """Register rules for the test only (the table is global: tests/test_rules.py checks
    every rule in it)."""
    funcs = []

    def register(func, define):
        funcs.append(func)
        define()
    yield register
    for f in funcs:
        table._RULES.pop(id(f), None)


def only_reverse(x):
    return x * 3.0


def uses_only_reverse(x):
    return only_reverse(x) + 1.0


def test_a_rule_without_a_forward_template_is_an_error(registered):
    registered(only_reverse, lambda: sg.rules.defrule(only_reverse, "x", vjp=dict(x="g * 3.0")))
    with pytest.raises(sg.NonDifferentiableError, match=r"only_reverse.*forward-mode.*'x'.*"
                                                         r"sg\.tangent"):
        sg.jvp(uses_only_reverse, (1.0,), (1.0,))


def calls_builtin_without_rule(x):
    return np.sum(np.frexp(x)[0])


def test_a_function_without_rule_is_an_error():
    with pytest.raises(sg.NonDifferentiableError, match="frexp"):
        sg.jvp(calls_builtin_without_rule, (np.ones(3),), (np.ones(3),))


def test_jvp_checks_its_tangents():
    with pytest.raises(ValueError, match="shape"):
        sg.jvp(opaque, (np.ones(3),), (np.ones(4),))
    with pytest.raises(ValueError, match="primals"):
        sg.jvp(opaque, (np.ones(3),), (np.ones(3), np.ones(3)))


# -- user tangents -------------------------------------------------------------------------

def scaled_sin(x, a):
    return a * np.sin(x)


def _scaled_sin_tangent(ans, x, a, dx, da):
    return a * np.cos(x) * dx + np.sin(x) * da


def uses_scaled_sin(x, a):
    return np.sum(scaled_sin(x, a) ** 2)


def test_user_tangent_is_inlined(registered):
    registered(scaled_sin, lambda: sg.tangent(scaled_sin)(_scaled_sin_tangent))
    x, t = _rng.normal(size=3), _rng.normal(size=3)
    _, d = sg.jvp(uses_scaled_sin, (x, 0.7), (t, 0.3))
    assert d == pytest.approx(float(directional_fd(uses_scaled_sin, (x, 0.7), (t, 0.3))),
                              rel=1e-6)
    assert "_tangent_" in sg.source(uses_scaled_sin, mode="forward")


# -- random inputs ------------------------------------------------------------------------

def softmax_xent(z, y):
    e = np.exp(z - np.max(z, axis=1, keepdims=True))
    p = e / np.sum(e, axis=1, keepdims=True)
    return -np.mean(np.sum(y * np.log(p), axis=1))


def gated(x, w):
    h = x @ w
    out = 0.0
    for i in range(h.shape[0]):
        if h[i].sum() > 0:
            out = out + np.sum(np.tanh(h[i]) ** 2)
        else:
            out = out - np.sum(h[i] * x[i, :2])
    return out


floats = st.floats(-2, 2, allow_nan=False, allow_infinity=False)


@settings(max_examples=25, deadline=None)
@given(hnp.arrays(np.float64, (3, 4), elements=floats),
       hnp.arrays(np.float64, (3, 4), elements=floats))
def test_softmax_jvp_agrees_with_reverse(z, t):
    y = np.eye(4)[[0, 2, 3]]
    _, d = sg.jvp(softmax_xent, (z, y), (t, None))
    expect = float(np.sum(sg.grad(softmax_xent, wrt=0)(z, y) * t))
    assert d == pytest.approx(expect, rel=1e-10, abs=1e-12)


@settings(max_examples=25, deadline=None)
@given(hnp.arrays(np.float64, (4, 3), elements=floats),
       hnp.arrays(np.float64, (3, 2), elements=floats),
       hnp.arrays(np.float64, (3, 2), elements=floats))
def test_branchy_jvp_agrees_with_reverse(x, w, t):
    _, d = sg.jvp(gated, (x, w), (None, t))
    expect = float(np.sum(sg.grad(gated, wrt=1)(x, w) * t))
    assert d == pytest.approx(expect, rel=1e-10, abs=1e-12)


def test_math_module_in_forward_mode():
    _, d = sg.jvp(math_poly, (0.3, 1.7), (1.0, 0.0))
    assert d == pytest.approx(math.cos(0.3) * 1.7 + 2 * 0.3, rel=1e-12)


def math_poly(x, y):
    return math.sin(x) * y + x ** 2
