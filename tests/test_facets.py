"""Every facet the table declares, checked against NumPy's real behaviour.

One parametrized test per facet runs over the whole table: every rule with its sample
calls from ``tests/test_rules.py`` (``SAMPLES``), and the no-gradient and declared
entries with the samples below.

* ``view_of``: the result shares memory with that argument on some sample; a rule that
  declares no view never shares memory with any argument on any sample (a forgotten
  facet fails here instead of giving a wrong gradient);
* ``linear_in``: f(a x + b y) == a f(x) + b f(y), the other arguments held fixed;
* ``elementwise``: the result has the broadcast shape and permuting the (broadcast)
  inputs permutes the output;
* ``reduction``: the result's shape is that of ``np.sum`` over the same axes;
* ``shape_only``: new values of the argument (same shape and dtype) change nothing;
* ``in_place``: the argument changes, the others do not;
* dtypes: every gradient (reverse) and tangent (forward) of a float32 / float64
  input is float32 / float64.
"""
import dataclasses
import copy
import math

import numpy as np
import pytest

from srcgrad.runtime import records
import srcgrad as sg  # noqa: F401  (registers everything)
from srcgrad import rules
from srcgrad.rules import ALL_AXES, ALL_PARAMS

import test_rules as tr

A, S, CASES = tr.A, tr.S, tr.CASES


def arrays(x):
    """The ndarrays in a (nested) value."""
    if isinstance(x, np.ndarray):
        return [x]
    if isinstance(x, (list, tuple)):
        return [a for v in x for a in arrays(v)]
    if isinstance(x, dict):
        return [a for v in x.values() for a in arrays(v)]
    return []


def bound(rule, sample):
    b = rule.signature.bind(*sample.args, **sample.kwargs)
    b.apply_defaults()
    return b


def fresh(sample):
    return copy.deepcopy(sample.args), copy.deepcopy(sample.kwargs)


def shares(out, arg):
    return any(np.shares_memory(o, a) for o in arrays(out) for a in arrays(arg))


# ---------------------------------------------------------------------------------------
# view_of
# ---------------------------------------------------------------------------------------
# kernels that generated code calls (``ad.*``) may return their cotangent argument as is
# (``unbroadcast(t, x)`` when the shapes agree): generated code owns those values, and
# its in-place updates are on values it created.  The check covers user-facing rules.
USER_CASES = [(r, s) for r, s in CASES if not r.name.startswith("ad.")]


@pytest.mark.parametrize("rule,sample", USER_CASES,
                         ids=[f"{r.name}-{i}" for i, (r, s) in enumerate(USER_CASES)])
def test_no_undeclared_view(rule, sample):
    args, kwargs = fresh(sample)
    s = S(*args, **kwargs)
    out = tr.call(rule, args, kwargs)
    b = bound(rule, s)
    viewed = rule.facets.view_of
    for p, v in b.arguments.items():
        if p != viewed:
            assert not shares(out, v), f"{rule.name} returns memory of {p!r}: declare view_of"


VIEW_RULES = sorted({r.name: r for r, s in CASES if r.facets.view_of}.values(),
                    key=lambda r: r.name)


@pytest.mark.parametrize("rule", VIEW_RULES, ids=[r.name for r in VIEW_RULES])
def test_declared_view_shares_memory(rule):
    seen = False
    for sample in tr.SAMPLES[rule.name] + EXTRA_SAMPLES.get(rule.name, []):
        args, kwargs = fresh(sample)
        out = tr.call(rule, args, kwargs)
        seen |= shares(out, bound(rule, S(*args, **kwargs)).arguments[rule.facets.view_of])
    assert seen, f"{rule.name} declares view_of but never shares memory on its samples"


def test_rollaxis_view_is_seen_by_the_alias_check():
    """np.rollaxis returns a view: writing into it changes x (the gradient of
    sum(x * x) is then 0 in the entries overwritten).  srcgrad must not compute it as
    if y were a copy (that gave 2 * x everywhere)."""
    def f(x):
        y = np.rollaxis(x, 1)
        y[0] = 5.0
        return np.sum(x * x)

    x = np.ones((2, 3))
    try:
        g = sg.grad(f)(x)
    except sg.UnsupportedSyntaxError as e:
        assert "rollaxis" in str(e)
        return
    expected = 2 * x
    expected[:, 0] = 0.0
    np.testing.assert_allclose(g, expected)


# every declared view reaches the alias check: a write into the base while the view is
# still used is refused, whatever kind of parameter the view is of (``*arys`` too)
def _viewing_sample(rule):
    """(args, kwargs, i): a sample whose result shares memory with its positional
    array argument i, bound to ``view_of`` (an item of it for ``*arys``); or None."""
    positional = []                     # the parameter each positional argument binds
    for p in rule.signature.parameters.values():
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL):
            positional.append(p)
    for sample in tr.SAMPLES[rule.name] + EXTRA_SAMPLES.get(rule.name, []):
        args, kwargs = fresh(sample)
        out = tr.call(rule, args, kwargs)
        for i, a in enumerate(args):
            p = positional[min(i, len(positional) - 1)]
            if i >= len(positional) and p.kind is not p.VAR_POSITIONAL:
                continue
            if p.name == rule.facets.view_of and isinstance(a, np.ndarray) and shares(out, a):
                return args, kwargs, i
    return None


def _call_source(rule, args, kwargs):
    """Source of ``y = <the rule's call>``: array arguments as parameters a0, a1..."""
    text = [f"a{j}" if isinstance(a, np.ndarray) else repr(a) for j, a in enumerate(args)]
    text += [f"{k}={v!r}" for k, v in kwargs.items()]
    if rule.name == "getitem":
        return f"y = a0[{text[1]}]"
    if rule.name.startswith("np.ndarray."):
        attr = rule.name[len("np.ndarray."):]
        if not callable(rule.func):
            return f"y = a0.{attr}"
        return f"y = a0.{attr}({', '.join(text[1:])})"
    return f"y = {rule.name}({', '.join(text)})"


def _load(tmp_path, name, source):
    import importlib.util
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.f, str(path)


def _write_then_read(call, args, i):
    params = ", ".join(f"a{j}" for j, a in enumerate(args) if isinstance(a, np.ndarray))
    return (f"import numpy as np\n\n\ndef f({params}):\n    {call}\n"
            f"    a{i}[...] = 0.0\n    return y\n")


def _refused(f, args, path):
    arrays_in = [a for a in args if isinstance(a, np.ndarray)]
    try:
        sg.vjp(f, *copy.deepcopy(arrays_in))
    except sg.UnsupportedSyntaxError as e:
        assert e.filename == path, str(e)
        return True
    return False


VIEW_USER_RULES = [r for r in VIEW_RULES if not r.name.startswith("ad.")]


@pytest.mark.parametrize("rule", VIEW_USER_RULES, ids=[r.name for r in VIEW_USER_RULES])
def test_declared_view_is_seen_by_the_alias_check(rule, tmp_path):
    found = _viewing_sample(rule)
    assert found is not None, f"{rule.name}: no sample returns a view of an array argument"
    args, kwargs, i = found
    source = _write_then_read(_call_source(rule, args, kwargs), args, i)
    f, path = _load(tmp_path, "view_" + rule.name.replace(".", "_"), source)
    assert _refused(f, args, path), f"{rule.name}: a write into its base is not refused\n{source}"


@pytest.mark.parametrize("call", ["y = np.sin(a0)", "y = a0 * 1.0", "y = np.copy(a0)"])
def test_a_copy_is_not_refused_by_the_alias_check(call, tmp_path):
    """The check above can fail: a result that is not a view may be written through."""
    args = [A(3)]
    f, path = _load(tmp_path, "copy_" + str(abs(hash(call))), _write_then_read(call, args, 0))
    assert not _refused(f, args, path)


# ---------------------------------------------------------------------------------------
# linear_in
# ---------------------------------------------------------------------------------------
def combine(a, x, b, y):
    """a x + b y, laid out in memory as x is (``np.ravel(x, order="K")`` reads the layout).
    A dict combines key by key; None (no value) and strings (a dict's keys in a list
    of them) are structure, kept."""
    if isinstance(x, str) or x is None or (y is None and isinstance(x, int)):
        assert y is None or y == x, (x, y)
        return x                                # (an integer field: structure too)
    if isinstance(x, dict):
        assert set(x) == set(y), (x, y)
        return {k: combine(a, x[k], b, y[k]) for k in x}
    if tr._is_dc(x):
        return tr._dc_replace(x, **{k: combine(a, u, b, getattr(y, k))
                                         for k, u in tr._dc_fields(x).items()})
    if isinstance(x, (list, tuple)):
        return tr._seq(x, [combine(a, u, b, v) for u, v in zip(x, y)])
    if isinstance(x, np.ndarray):
        out = np.empty_like(x)
        out[...] = a * x + b * y
        return out
    return a * x + b * y


def assert_close(u, v, what):
    u = tr._dc_fields(u) if tr._is_dc(u) else u      # a dataclass's gradient: its fields
    v = tr._dc_fields(v) if tr._is_dc(v) else v
    if isinstance(u, dict) or isinstance(v, dict):
        assert isinstance(u, dict) and isinstance(v, dict), what
        for k in {**u, **v}:
            assert_close(u.get(k, 0.0), v.get(k, 0.0), what)
        return
    if isinstance(u, str) or isinstance(v, str):
        assert u == v, what
        return
    if isinstance(u, (list, tuple)):
        assert len(u) == len(v), what
        for p, q in zip(u, v):
            assert_close(p, q, what)
        return
    np.testing.assert_allclose(np.asarray(u, dtype=float), np.asarray(v, dtype=float),
                               rtol=1e-9, atol=1e-12, err_msg=what)


def _floats(rule, sample, params):
    b = bound(rule, sample).arguments
    return tuple(p for p in params if p in b and tr._has_float(b[p]))


# linear_in: jointly (all the listed parameters scaled together); bilinear_in: one at a time
LINEAR_CASES = [(r, s, _floats(r, s, r.facets.linear_in)) for r, s in CASES
                if _floats(r, s, r.facets.linear_in)] + \
               [(r, s, (p,)) for r, s in CASES for p in _floats(r, s, r.facets.bilinear_in)]


@pytest.mark.parametrize("rule,sample,params", LINEAR_CASES,
                         ids=[f"{r.name}-{'+'.join(p)}-{i}"
                              for i, (r, s, p) in enumerate(LINEAR_CASES)])
def test_linear(rule, sample, params):
    rng = np.random.default_rng(3)
    b = bound(rule, sample).arguments
    xs = {p: b[p] for p in params}
    ys = {p: combine(0.0, x, 1.0, tr.random_like(x, rng)) for p, x in xs.items()}

    def f(values):
        args, kwargs = sample.args, sample.kwargs
        for p, v in values.items():
            args, kwargs = tr.replaced(rule, args, kwargs, p, v)
        return tr.call(rule, copy.deepcopy(args), copy.deepcopy(kwargs))
    lhs = f({p: combine(0.7, xs[p], -1.3, ys[p]) for p in params})
    rhs = combine(0.7, f(xs), -1.3, f(ys))
    assert_close(lhs, rhs, f"{rule.name} is not linear in {params}")


# ---------------------------------------------------------------------------------------
# elementwise
# ---------------------------------------------------------------------------------------
ELEMENTWISE_CASES = [(r, s) for r, s in CASES if r.facets.elementwise]


@pytest.mark.parametrize("rule,sample", ELEMENTWISE_CASES,
                         ids=[f"{r.name}-{i}" for i, (r, s) in enumerate(ELEMENTWISE_CASES)])
def test_elementwise(rule, sample):
    b = bound(rule, sample)
    given = {p: v for p, v in b.arguments.items() if isinstance(v, np.ndarray)}
    out = np.asarray(tr.call(rule, *fresh(sample)))
    shape = np.broadcast_shapes(*[v.shape for v in given.values()]) if given else ()
    assert out.shape == shape, f"{rule.name}: shape {out.shape}, broadcast shape {shape}"
    if not shape:
        return
    perm = np.random.default_rng(4).permutation(int(np.prod(shape)))
    moved = {p: np.broadcast_to(v, shape).reshape(-1)[perm] for p, v in given.items()}
    args, kwargs = sample.args, sample.kwargs
    for p, v in moved.items():
        args, kwargs = tr.replaced(rule, args, kwargs, p, v)
    np.testing.assert_array_equal(np.asarray(tr.call(rule, args, kwargs)), out.reshape(-1)[perm])


# ---------------------------------------------------------------------------------------
# reduction
# ---------------------------------------------------------------------------------------
REDUCTION_CASES = [(r, s) for r, s in CASES if r.facets.reduction]


@pytest.mark.parametrize("rule,sample", REDUCTION_CASES,
                         ids=[f"{r.name}-{i}" for i, (r, s) in enumerate(REDUCTION_CASES)])
def test_reduction_shape(rule, sample):
    b = bound(rule, sample)
    first = next(iter(b.arguments.values()))
    out = np.asarray(tr.call(rule, *fresh(sample)))
    if rule.facets.reduction == ALL_AXES:
        assert out.shape == ()
        return
    axis = b.arguments[rule.facets.reduction]
    keep = bool(b.arguments.get("keepdims", False))
    expected = np.sum(np.zeros(np.shape(first)), axis=axis, keepdims=keep).shape
    assert out.shape == expected


def test_full_reductions_are_declared():
    """The reductions the compiler seeds with 1.0 (a scalar whatever the input)."""
    for f in (np.sum, np.mean, np.prod, np.max, np.min, np.var, np.std, np.nansum,
              np.ndarray.sum, np.ndarray.mean, np.ndarray.max):
        assert rules.lookup(f).facets.reduction == "axis", f
    assert rules.lookup(np.vdot).facets.reduction == ALL_AXES
    assert rules.lookup(np.linalg.det).facets.reduction is None     # a stack gives a vector


# ---------------------------------------------------------------------------------------
# shape_only (rules, no-gradient functions), in_place, and their samples
# ---------------------------------------------------------------------------------------
EXTRA_SAMPLES = {      # display name -> samples beyond test_rules.py (entries without a rule)
    "np.zeros_like": [S(A(3, 4))], "np.ones_like": [S(A(2))], "np.empty_like": [S(A(2, 2))],
    "np.shape": [S(A(3, 4))], "np.ndim": [S(A(3))], "np.size": [S(A(3, 2))],
    "np.result_type": [S(A(3), A(2))], "np.isscalar": [S(A(3))],
    "np.iscomplexobj": [S(A(3))], "np.isrealobj": [S(A(3))],
    "len": [S(A(4))], "isinstance": [S(A(2), np.ndarray)], "type": [S(A(2))],
    "hasattr": [S(A(2), "shape")],
    "ad.zeros_like": [S(A(3))], "ad.zeros_tangent": [S(A(3))], "ad.ones_like_grad": [S(A(3))],
    "ad.shape_of": [S(A(2, 3))],
    "np.copyto": [S(np.zeros(3), A(3))], "np.put": [S(np.zeros(4), [0, 2], A(2))],
    "np.place": [S(np.zeros(4), np.array([True, False, True, False]), A(2))],
    "np.putmask": [S(np.zeros(3), np.array([True, False, True]), A(3))],
    "np.fill_diagonal": [S(np.zeros((3, 3)), 2.5)],
    "np.put_along_axis": [S(np.zeros((2, 3)), np.array([[0], [2]]), A(2, 1), 1)],
    "np.ndarray.view": [S(A(3, 2))], "np.float32": [S(A(3).astype(np.float32))], "np.ndarray.real": [S(A(3))], "np.ndarray.imag": [S(A(3) + 1j * A(3))],
}
DECLARED = {name: (f, sig, fc) for f, name, sig, fc in rules.all_declared()}


def _entry_cases(pred):
    out = []
    for f, name, sig, fc in rules.all_declared():
        if not pred(fc):
            continue
        rule = rules.lookup(f)
        samples = tr.SAMPLES.get(name, []) if rule is not None else []
        out += [(name, s) for s in samples + EXTRA_SAMPLES.get(name, [])]
    return out


def _invoke(name, args, kwargs):
    f = DECLARED[name][0]
    if hasattr(f, "__get__") and not callable(f):      # an attribute: x.real
        return f.__get__(args[0])
    rule = rules.lookup(f)
    return tr.call(rule, args, kwargs) if rule is not None else f(*args, **kwargs)


def _params(name, args, kwargs):
    sig = DECLARED[name][1]
    if sig is None:                      # a no-gradient entry: positions only
        return {i: v for i, v in enumerate(args)}
    b = sig.bind(*args, **kwargs)
    return dict(b.arguments)


def test_every_shape_only_and_in_place_entry_has_samples():
    missing = [name for f, name, sig, fc in rules.all_declared()
               if (fc.shape_only or fc.in_place or (fc.view_of and rules.lookup(f) is None))
               and not tr.SAMPLES.get(name) and not EXTRA_SAMPLES.get(name)]
    assert not missing, f"declared facets without samples: {missing}"


def _equal(u, v):
    if isinstance(u, (list, tuple)):
        return len(u) == len(v) and all(_equal(p, q) for p, q in zip(u, v))
    if isinstance(u, np.ndarray) or isinstance(v, np.ndarray):
        return np.shape(u) == np.shape(v) and np.asarray(u).dtype == np.asarray(v).dtype and \
            (u.size == 0 or np.array_equal(u, v, equal_nan=True) or u.dtype.kind == "f")
    return u == v or (isinstance(u, float) and math.isnan(u) and math.isnan(v))


SHAPE_CASES = _entry_cases(lambda fc: fc.shape_only)


@pytest.mark.parametrize("name,sample", SHAPE_CASES,
                         ids=[f"{n}-{i}" for i, (n, s) in enumerate(SHAPE_CASES)])
def test_shape_only(name, sample):
    fc = DECLARED[name][2]
    rng = np.random.default_rng(5)
    args, kwargs = fresh(sample)
    out = _invoke(name, args, kwargs)
    params = _params(name, args, kwargs)
    for p, v in params.items():
        if not (fc.shape_only == ALL_PARAMS or p in fc.shape_only) or \
                not isinstance(v, np.ndarray):
            continue
        new = (rng.uniform(-5, 5, v.shape) + 7.0).astype(v.dtype)
        args2, kwargs2 = fresh(sample)
        if isinstance(p, int):
            args2 = args2[:p] + (new,) + args2[p + 1:]
        else:
            rule = rules.lookup(DECLARED[name][0])
            args2, kwargs2 = tr.replaced(rule, args2, kwargs2, p, new)
        out2 = _invoke(name, args2, kwargs2)
        if isinstance(out, np.ndarray) and out.dtype.kind == "f" and name.endswith("empty_like"):
            assert out2.shape == out.shape and out2.dtype == out.dtype
            continue
        assert _equal(out, out2) and (not isinstance(out, np.ndarray) or
                                      np.array_equal(out, out2)), \
            f"{name} reads the values of {p!r}"


IN_PLACE_CASES = _entry_cases(lambda fc: fc.in_place)


@pytest.mark.parametrize("name,sample", IN_PLACE_CASES,
                         ids=[f"{n}-{i}" for i, (n, s) in enumerate(IN_PLACE_CASES)])
def test_in_place(name, sample):
    fc = DECLARED[name][2]
    args, kwargs = fresh(sample)
    before = copy.deepcopy(_params(name, args, kwargs))
    _invoke(name, args, kwargs)
    after = _params(name, args, kwargs)
    for p, v in after.items():
        changed = not np.array_equal(np.asarray(v), np.asarray(before[p]))
        assert changed == (p == fc.in_place), f"{name}: {p!r} changed: {changed}"
    assert rules.in_place_target(DECLARED[name][0]) == fc.in_place


def test_ufunc_at_writes_its_first_argument():
    assert rules.writes_first_argument(np.add.at) and rules.writes_first_argument(np.copyto)
    assert not rules.writes_first_argument(np.add)


VIEW_DECLARED = _entry_cases(lambda fc: fc.view_of)


@pytest.mark.parametrize("name,sample", VIEW_DECLARED,
                         ids=[f"{n}-{i}" for i, (n, s) in enumerate(VIEW_DECLARED)])
def test_declared_entries_views(name, sample):
    """Entries without a rule (x.view(), x.real) really are views."""
    if rules.lookup(DECLARED[name][0]) is not None:
        return                                       # rules: test_declared_view_shares_memory
    args, kwargs = fresh(sample)
    out = _invoke(name, args, kwargs)
    assert shares(out, _params(name, args, kwargs)[DECLARED[name][2].view_of])


def test_view_methods():
    for m in ("reshape", "ravel", "T", "transpose", "swapaxes", "squeeze", "diagonal",
              "view", "real", "imag"):
        assert rules.method_view(m), m
    for m in ("flatten", "copy", "sum", "astype"):
        assert not rules.method_view(m), m


# ---------------------------------------------------------------------------------------
# dtypes: every gradient has its input's dtype
# ---------------------------------------------------------------------------------------
def _cast(x, dt):
    if tr._is_dc(x):
        return tr._dc_replace(x, **{k: _cast(v, dt) for k, v in tr._dc_fields(x).items()})
    if isinstance(x, dict):
        return {k: _cast(v, dt) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return tr._seq(x, [_cast(v, dt) for v in x])
    if isinstance(x, np.ndarray) and x.dtype.kind == "f":
        return x.astype(dt)
    return x


# by definition they compute in float64 (np.float64(x), np.float_power)
_FLOAT64_BY_DEFINITION = {"np.float64", "np.float_power"}
DTYPE_CASES = [(r, s, dt) for r, s in CASES for dt in (np.float32, np.float64)
               if r.name not in _FLOAT64_BY_DEFINITION and not r.name.startswith("math.")
               and tr._dtypes(_cast(s.args, dt))]


@pytest.mark.parametrize("rule,sample,dt", DTYPE_CASES,
                         ids=[f"{r.name}-{d.__name__}-{i}"
                              for i, (r, s, d) in enumerate(DTYPE_CASES)])
def test_gradient_dtype(rule, sample, dt):
    dt = np.dtype(dt)
    args = _cast(sample.args, dt)
    kwargs = {k: _cast(v, dt) for k, v in sample.kwargs.items()}
    ans = tr.call(rule, args, kwargs)
    if not tr._dtypes(ans) <= {dt}:
        return                                  # the primal itself promotes (a float64 scalar)
    b = rule.signature.bind(*args, **kwargs)
    given = set(b.arguments)
    b.apply_defaults()
    rng = np.random.default_rng(2)
    g = _cast(tr.random_like(ans, rng), dt)
    for k, p in enumerate(rule.diff_params):
        x = b.arguments[p]
        if p not in given or tr._dtypes(x) != {dt} or (sample.wrt and p not in sample.wrt):
            continue
        needs = [j == k for j in range(len(rule.diff_params))]
        grads = rule.vjp_function()(g, ans, *b.args, **b.kwargs, needs=needs)
        assert tr._dtypes(grads[k]) <= {dt}, f"reverse {rule.name} wrt {p}: {tr._dtypes(grads[k])}"
        t = _cast(tr.random_like(x, rng), dt)
        out = rule.jvp_function()(ans, *b.args, **b.kwargs, **{"d" + p: t})
        assert tr._dtypes(out) <= {dt}, f"forward {rule.name} wrt {p}: {tr._dtypes(out)}"


# ---------------------------------------------------------------------------------------
# sequence: the parameter is differentiated item by item (a list in, a list of gradients out)
# ---------------------------------------------------------------------------------------
SEQUENCE_RULES = [r for r in rules.all_rules() if r.facets.sequence]
SEQUENCE_CASES = [(r, s, p) for r, s in CASES for p in r.facets.sequence
                  if isinstance(bound(r, s).arguments.get(p), (list, tuple))]


def test_sequence_rules_have_list_samples():
    covered = {r.name for r, _, _ in SEQUENCE_CASES}
    assert SEQUENCE_RULES and all(r.name in covered for r in SEQUENCE_RULES), \
        sorted(r.name for r in SEQUENCE_RULES if r.name not in covered)


@pytest.mark.parametrize("rule,sample,param", SEQUENCE_CASES,
                         ids=[f"{r.name}-{p}-{i}" for i, (r, s, p) in enumerate(SEQUENCE_CASES)])
def test_sequence_gradient_is_per_item(rule, sample, param):
    b = bound(rule, sample).arguments
    items = b[param]
    ans = tr.call(rule, copy.deepcopy(sample.args), copy.deepcopy(sample.kwargs))
    g = np.ones_like(np.asarray(ans, dtype=float))
    needs = [p == param for p in rule.diff_params]
    grads = rule.vjp_function()(g, ans, *copy.deepcopy(sample.args), **copy.deepcopy(sample.kwargs),
                                needs=needs)
    gp = grads[rule.diff_params.index(param)]
    # one gradient per item, each of its item's shape
    assert len(gp) == len(items)
    for gi, xi in zip(gp, items):
        assert np.shape(gi) == np.shape(xi)


# ---------------------------------------------------------------------------------------
# container: the result is a Python list, tuple or dict on every sample
# ---------------------------------------------------------------------------------------
CONTAINER_CASES = [(r, s) for r, s in CASES if r.facets.container]


def test_container_rules_have_samples():
    declared = {r.name for r in rules.all_rules() if r.facets.container}
    assert declared and declared <= {r.name for r, _ in CONTAINER_CASES}, declared


@pytest.mark.parametrize("rule,sample", CONTAINER_CASES,
                         ids=[f"{r.name}-{i}" for i, (r, s) in enumerate(CONTAINER_CASES)])
def test_container(rule, sample):
    out = tr.call(rule, *fresh(sample))
    # (a structured value, whose tangents add field by field: a container, or a record
    # where the rule copies one, as ad.replaced does a dataclass)
    assert isinstance(out, (list, tuple, dict)) or records.is_record(out), \
        f"{rule.name} returned a {type(out).__name__}"
