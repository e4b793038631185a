"""Second derivatives of every rule of the table, checked against finite differences.

For each rule and each of its first samples in tests/test_rules.py, and each
differentiable float parameter ``x``, a probe function is generated::

    def probe(x):
        r = FUNC(<the sample's other arguments>, x, ...)
        return np.sum(W0 * r * r)          # (each float item of a tuple result)

and its Hessian-vector product along a random ``v`` is computed two ways, forward over
reverse (``sg.hvp``) and reverse over reverse (``sg.vjp`` of ``sg.grad``), both checked
against central differences of srcgrad's gradient (itself checked rule by rule in
tests/test_rules.py).  The squared result makes the probe non-linear, so the
derivative kernels a rule's gradient calls are differentiated too.
"""
import copy
import linecache
import types
import warnings

import numpy as np
import pytest

import srcgrad as sg
import srcgrad.rules as rules
import test_rules as tr

SAMPLES_PER_RULE = 3

# rules whose second derivative is not a function near the sample (kinks, ties, jumps
# in the integer arguments): the first derivative is piecewise constant or undefined
NOT_TWICE_DIFFERENTIABLE = {
    "np.maximum", "np.minimum", "np.fmax", "np.fmin", "np.absolute", "np.fabs",
    "np.clip", "np.ndarray.clip", "np.sign", "max", "min", "abs", "np.copysign",
    "np.max", "np.min", "np.amax", "np.amin", "np.ptp", "np.ndarray.max", "np.ndarray.min",
    "np.nanmax", "np.nanmin", "np.median", "np.nanmedian", "np.sort", "np.partition",
    "np.remainder", "np.fmod", "operator.mod", "np.ndarray.sort",
}


# second derivatives srcgrad does not have yet, each a located error today (strict: a
# fix makes the test fail until the entry is removed)
KNOWN_GAPS = {
    "np.select-2-choicelist": "a choicelist mixing an array and a Python float",
}


def _leaf_paths(ans, path=()):
    """Index paths of the float leaves of a (nested tuple / list) result."""
    if isinstance(ans, (list, tuple)):
        out = []
        for i, v in enumerate(ans):
            out += _leaf_paths(v, path + (i,))
        return out
    if tr._is_float_leaf(ans):
        return [path]
    return []


def _split(a, glob, k):
    """(the differentiated value, its spelling in the probe): a tuple like ``(c, lower)``
    or ``(lu, piv)`` is built in the probe around its one float item ``x``."""
    if isinstance(a, tuple) and a and tr._is_float_leaf(a[0]) and \
            not any(tr._has_float(v) for v in a[1:]):
        items = ["x"]
        for j, v in enumerate(a[1:]):
            glob[f"T{k}_{j}"] = v
            items.append(f"T{k}_{j}")
        return a[0], "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    return a, "x"


def _probe(rule, sample, param):
    """(probe function, x) for ``rule``'s sample, differentiated in ``param``."""
    args, kwargs = list(sample.args), dict(sample.kwargs)
    names = list(rule.signature.parameters)
    kind = rule.signature.parameters[param].kind
    glob = {"np": np, "FUNC": rule.func}
    parts = []
    x = None
    i = names.index(param)
    for k, a in enumerate(args):
        if x is None and ((kind == kind.VAR_POSITIONAL and k >= i and tr._has_float(a))
                          or (kind != kind.VAR_POSITIONAL and k == i)):
            x, text = _split(a, glob, k)
            parts.append(text)
        else:
            glob[f"C{k}"] = a
            parts.append(f"C{k}")
    for k, a in kwargs.items():
        if k == param and x is None:
            x = a
            parts.append(f"{k}=x")
        else:
            glob[f"K_{k}"] = a
            parts.append(f"{k}=K_{k}")
    if x is None:
        return None, None
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        ans = rule.func(*args, **kwargs)
    paths = _leaf_paths(ans)
    if not paths:
        return None, None
    if any(dt != np.float64 for dt in tr._dtypes(ans)):
        return None, None           # a cast to float32: not checkable against float64 steps
    rng = np.random.default_rng(3)
    terms = []
    for j, path in enumerate(paths):
        leaf = ans
        for p in path:
            leaf = leaf[p]
        glob[f"W{j}"] = rng.normal(size=np.shape(leaf))
        item = "r" + "".join(f"[{p}]" for p in path)
        terms.append(f"np.sum(W{j} * {item} * {item})")
    call = f"FUNC({', '.join(parts)})"
    if rule.name.startswith("np.ndarray.") and parts and parts[0] == "x":
        call = f"x.{rule.name.split('.')[-1]}({', '.join(parts[1:])})"     # as written
    src = (f"def probe(x):\n    r = {call}\n"
           f"    return {' + '.join(terms)}\n")
    filename = f"<second order probe {rule.name} {id(sample)} {param}>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    exec(compile(src, filename, "exec"), glob)
    return glob["probe"], x


def _cases():
    out = []
    for rule in rules.all_rules():
        if rule.user or rule.name.startswith("ad.") or rule.name in NOT_TWICE_DIFFERENTIABLE:
            continue
        if isinstance(rule.func, types.GetSetDescriptorType):
            continue
        for k, sample in enumerate(tr.SAMPLES.get(rule.name, [])[:SAMPLES_PER_RULE]):
            bound = rule.signature.bind(*sample.args, **sample.kwargs)
            for p in rule.diff_params:
                if p in bound.arguments and tr._has_float(bound.arguments[p]) and \
                        (sample.wrt is None or p in sample.wrt):
                    ident = f"{rule.name}-{k}-{p}"
                    gap = KNOWN_GAPS.get(ident) or KNOWN_GAPS.get(rule.name)
                    marks = [pytest.mark.xfail(reason=gap, strict=True)] if gap else []
                    out.append(pytest.param(rule, sample, p, id=ident, marks=marks))
    return out


def check_second_order(rule, sample, param):
    probe, x = _probe(rule, sample, param)
    if probe is None:
        pytest.skip("no float argument or result")
    rng = np.random.default_rng(7)
    v = tr.random_like(x, rng)
    g = sg.grad(probe)
    x0, v0 = tr.flatten(x), tr.flatten(v)
    eps = 1e-5

    def grad_at(a):
        return tr.flatten(g(tr.unflatten(x, x0 + a * v0)))
    with np.errstate(all="ignore"):
        fd = (grad_at(eps) - grad_at(-eps)) / (2 * eps)
    tol = dict(rtol=1e-4, atol=1e-5 * max(1.0, float(np.max(np.abs(fd))) if fd.size else 1.0))
    fwd = tr.flatten(sg.hvp(probe)(copy.deepcopy(x), v=v))
    np.testing.assert_allclose(fwd, fd, **tol, err_msg="forward over reverse")
    _, vjp_fn = sg.vjp(g, copy.deepcopy(x))
    rev = tr.flatten(vjp_fn(v))
    np.testing.assert_allclose(rev, fd, **tol, err_msg="reverse over reverse")


@pytest.mark.parametrize("rule,sample,param", _cases())
def test_second_order(rule, sample, param):
    check_second_order(rule, sample, param)


# -- third derivatives: the kernels differentiated twice ---------------------------------
_W = np.random.default_rng(4).normal(size=(3, 3))
_a = np.array([0.3, -0.5, 0.8])


def third_outer(s): return np.sum(np.outer(s * _a, np.sin(s * _a)) ** 2)
def third_dot(s): return np.sum(np.dot(_W, s * _a) ** 4)
def third_tensordot(s): return np.sum(np.tensordot(np.outer(s * _a, _a), _W, 2) ** 3)
def third_cholesky(s): return np.sum(np.linalg.cholesky(np.outer(s * _a, _a) + np.outer(_a, s * _a)
                                                        + 3 * np.eye(3)) ** 3)
def third_svd(s): return np.sum(np.linalg.svd(_W + s * np.outer(_a, _a), compute_uv=False) ** 3)
def third_eigh(s): return np.sum(np.linalg.eigh(_W + _W.T + s * np.outer(_a, _a))[1][0] ** 2)
def third_solve(s): return np.sum(np.linalg.solve(_W + 3 * np.eye(3) + s * np.outer(_a, _a), _a) ** 2)
def third_qr(s): return np.sum(np.linalg.qr(_W + s * np.outer(_a, _a))[1] ** 3)
def third_slogdet(s): return np.linalg.slogdet(_W + 3 * np.eye(3) + s * np.outer(_a, _a))[1] ** 2


# (reverse over reverse over reverse through eigh and qr was wrong: a tuple adjoint was
# added with +, a concatenation; it is added item by item now)
THIRD = [third_outer, third_dot, third_tensordot, third_cholesky, third_svd, third_solve,
         third_slogdet, third_eigh, third_qr]


@pytest.mark.parametrize("f", THIRD, ids=lambda f: getattr(f, "__name__", "f"))
def test_third_derivative(f):
    d2, d3 = sg.grad(sg.grad(f)), sg.grad(sg.grad(sg.grad(f)))
    eps = 1e-5
    fd = (d2(0.7 + eps) - d2(0.7 - eps)) / (2 * eps)
    assert d3(0.7) == pytest.approx(fd, rel=1e-5, abs=1e-7)


@pytest.mark.parametrize("f", [third_eigh, third_qr], ids=lambda f: f.__name__)
def test_third_derivative_forward_over_reverse_over_reverse(f):
    d2 = sg.grad(sg.grad(f))
    eps = 1e-5
    fd = (d2(0.7 + eps) - d2(0.7 - eps)) / (2 * eps)
    assert sg.jvp(d2, (0.7,), (1.0,))[1] == pytest.approx(fd, rel=1e-5, abs=1e-7)
