"""User code written against the array API (``xp.tanh``, ``xp.sum``) differentiates with
NumPy's rules, computing in ``array_api_strict`` on its default device and on a second
device, with the gradients NumPy gives (themselves checked against central differences)."""
import numpy as np
import pytest

import srcgrad as sg

xp = pytest.importorskip("array_api_strict")

RS = np.random.RandomState(1)
WN = RS.randn(4, 3)
XN = RS.randn(6, 4)
DEVICES = [None, xp.Device("device1")]


def net(W, X):
    h = xp.tanh(X @ W)
    s = xp.sum(h * h, axis=1)
    return xp.mean(xp.exp(-s)) + xp.max(h) + xp.std(h) + xp.sum(xp.sin(W) ** 2)


def net_np(W, X):
    h = np.tanh(X @ W)
    s = np.sum(h * h, axis=1)
    return np.mean(np.exp(-s)) + np.max(h) + np.std(h) + np.sum(np.sin(W) ** 2)


def softmax_ce(W, X):
    z = X @ W
    z = z - xp.max(z, axis=1, keepdims=True)
    logp = z - xp.log(xp.sum(xp.exp(z), axis=1, keepdims=True))
    return -xp.mean(logp[:, 0])


def softmax_ce_np(W, X):
    z = X @ W
    z = z - np.max(z, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.mean(logp[:, 0])


def branchy(W, X):
    total = 0.0
    for i in range(3):
        if xp.sum(W) > 0:
            total = total + xp.mean(xp.abs(X @ W))
        else:
            total = total + xp.mean((X @ W) ** 2)
        W = W * 0.5
    return total


def branchy_np(W, X):
    total = 0.0
    for i in range(3):
        if np.sum(W) > 0:
            total = total + np.mean(np.abs(X @ W))
        else:
            total = total + np.mean((X @ W) ** 2)
        W = W * 0.5
    return total


def central(f, w, eps=1e-6):
    out = np.zeros_like(w)
    for i in np.ndindex(w.shape):
        e = np.zeros_like(w)
        e[i] = eps
        out[i] = (f(w + e) - f(w - e)) / (2 * eps)
    return out


def host(a):
    return np.asarray(a.to_device(xp.Device("CPU_DEVICE")))


@pytest.mark.parametrize("device", DEVICES, ids=["default", "device1"])
@pytest.mark.parametrize("f, fn", [(net, net_np), (softmax_ce, softmax_ce_np),
                                   (branchy, branchy_np)], ids=["net", "softmax", "branches"])
def test_gradient_equals_numpy(f, fn, device):
    W, X = xp.asarray(WN, device=device), xp.asarray(XN, device=device)
    g = sg.grad(f, argnums=0)(W, X)
    assert isinstance(g, type(W)) and g.device == W.device and g.dtype == xp.float64
    gn = sg.grad(fn, argnums=0)(WN, XN)
    assert np.allclose(gn, central(lambda w: fn(w, XN), WN), atol=1e-6)
    assert np.allclose(host(g), gn, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("device", DEVICES, ids=["default", "device1"])
def test_float32_stays_float32(device):
    W = xp.asarray(WN, dtype=xp.float32, device=device)
    X = xp.asarray(XN, dtype=xp.float32, device=device)
    for f in (net, softmax_ce):
        g = sg.grad(f, argnums=0)(W, X)
        assert g.dtype == xp.float32 and g.device == W.device


def test_forward_mode_equals_numpy():
    W, X = xp.asarray(WN), xp.asarray(XN)
    v = RS.randn(*WN.shape)
    _, t = sg.jvp(lambda W: softmax_ce(W, X), (W,), (xp.asarray(v),))
    _, tn = sg.jvp(lambda W: softmax_ce_np(W, XN), (WN,), (v,))
    assert np.allclose(host(t), tn)


# -- the rule table on array_api_strict -------------------------------------------------
# every rule that an array-API name reaches (rules/numpy/array_api.py), on the sample
# calls of tests/test_rules.py: the gradient of <w, f(args)> through the strict
# namespace equals NumPy's, on both devices (NumPy's is checked against differences)

def _table_cases():
    import test_rules as T
    from srcgrad.rules.numpy.array_api import ALIASES, LINALG_NAMES
    cases = []
    for name, target in sorted(ALIASES.items()):
        rule = rules_lookup(target)
        if rule is None:
            continue
        mod = xp.linalg if name in LINALG_NAMES and not hasattr(xp, name) else xp
        fn = getattr(mod, name, None)
        if fn is None:
            continue
        for i, s in enumerate(T.SAMPLES.get(rule.name, [])):
            if len(s.args) <= 3 and not any(isinstance(v, np.ndarray) for v in s.kwargs.values()):
                params = list(rule.signature.parameters)
                wrt = tuple(j for j, a in enumerate(s.args)
                            if isinstance(a, np.ndarray) and a.dtype.kind == "f" and
                            params[j] in rule.vjp and (s.wrt is None or params[j] in s.wrt))
                case = f"{name}-{i}"
                for device, dev_id in zip(DEVICES, ("default", "device1")):
                    why = NOT_YET.get(case) or NOT_YET.get(f"{case}@{dev_id}")
                    loud = (AttributeError, TypeError, ValueError, RuntimeError,
                            NotImplementedError)
                    marks = [pytest.mark.xfail(raises=loud, strict=True, reason=why)] \
                        if why else []
                    cases.append(pytest.param(name, fn, target, s, wrt, device,
                                              id=f"{case}-{dev_id}", marks=marks))
    return cases


# what does not run on array_api_strict yet, each a loud error (never a wrong value)
_PAD = "diff/repeat adjoints pad with np.pad (no array-API counterpart)"
_BOOL = "np.zeros(..., dtype=bool) inside the kernel: Python's bool is no array-API dtype"
NOT_YET = {
    "asarray-0": "np.asarray's rule reads dtype.kind",
    **{f"clip-{i}": _BOOL for i in range(5)},
    "copysign-4": "a Python float operand reaches an array-API function",
    "cross-0": "np.cross has no array-API counterpart", "cross-1": "np.cross: none",
    "cumulative_prod-2@device1": "an index array built on the default device",
    "cumulative_prod-3@device1": "an index array built on the default device",
    "cumulative_prod-5@device1": "an index array built on the default device",
    "cumulative_sum-2@device1": "an index array built on the default device",
    "cumulative_sum-3@device1": "an index array built on the default device",
    "diff-0": _PAD, "diff-1": _PAD, "diff-2": _PAD, "repeat-5": _PAD,
    "eigvalsh-0": "np.linalg.eigh(a, UPLO): the standard's eigh takes no UPLO",
    "eigvalsh-2": "np.linalg.eigh(a, UPLO): the standard's eigh takes no UPLO",
    "linspace-2": "integer arithmetic in the linspace adjoint",
    "permute_dims-1": "the transpose adjoint reads axes as an array",
    "permute_dims-2": "the transpose adjoint reads axes as an array",
    "sort-0": "np.put_along_axis: no array-API scatter", "sort-2": "np.put_along_axis",
    "sort-4": "np.put_along_axis: no array-API scatter",
    "take_along_axis-0": "scatter-add along an axis: only 1-D first-axis indices",
    "take_along_axis-1": "scatter-add along an axis: only 1-D first-axis indices",
    **{f"tensordot-{i}": "the tensordot adjoint uses np.einsum" for i in range(4)},
}


def rules_lookup(f):
    from srcgrad import rules
    return rules.lookup(f)


def _strict(v, device):
    if isinstance(v, np.ndarray):
        return xp.asarray(v, device=device)
    if isinstance(v, (list, tuple)) and v and all(isinstance(e, np.ndarray) for e in v):
        return type(v)(xp.asarray(e, device=device) for e in v)
    return v


def _loss(fn, total, n, kw, w):
    """<w, fn(a, ...)> as a function of the n positional arguments."""
    if n == 1:
        def f(a):
            return total(fn(a, **kw) * w)
    elif n == 2:
        def f(a, b):
            return total(fn(a, b, **kw) * w)
    else:
        def f(a, b, c):
            return total(fn(a, b, c, **kw) * w)
    return f


@pytest.mark.parametrize("name, fn, target, s, wrt, device", _table_cases())
def test_rule_table_on_array_api_strict(name, fn, target, s, wrt, device):
    args = [_strict(a, device) for a in s.args]
    try:
        out = fn(*args, **s.kwargs)
    except (TypeError, ValueError, AttributeError) as e:   # the standard's signature differs
        pytest.skip(f"array_api_strict.{name} does not take this call: {e}")
    if not hasattr(out, "shape") or not xp.isdtype(out.dtype, "real floating"):
        pytest.skip("not a floating array result")
    wn = RS.randn(*out.shape) if out.shape else np.float64(RS.randn())
    outn = target(*s.args, **s.kwargs)
    assert np.allclose(host(out), outn)
    if not wrt:
        pytest.skip("no differentiable floating array argument")
    g = sg.grad(_loss(fn, xp.sum, len(args), s.kwargs, xp.asarray(wn, device=device)),
                argnums=wrt)(*args)
    fnp = _loss(target, np.sum, len(args), s.kwargs, wn)
    gn = sg.grad(fnp, argnums=wrt)(*s.args)
    g, gn = (g, gn) if isinstance(g, tuple) else ((g,), (gn,))
    for i, a, b in zip(wrt, g, gn):
        assert a.device == args[i].device and a.dtype == args[i].dtype
        assert np.allclose(host(a), b, rtol=1e-9, atol=1e-11)

        def along(v, i=i):
            xs = list(s.args)
            xs[i] = v
            return fnp(*xs)
        assert np.allclose(b, central(along, s.args[i]), rtol=1e-5, atol=1e-6)


def halve_while(x, t):
    steps = 0
    while xp.sum(x * x) > t and steps < 10:
        x = xp.sin(x) * 0.5
        steps = steps + 1
    return xp.sum(x ** 3)


def halve_while_np(x, t):
    steps = 0
    while np.sum(x * x) > t and steps < 10:
        x = np.sin(x) * 0.5
        steps = steps + 1
    return np.sum(x ** 3)


@pytest.mark.parametrize("device", DEVICES, ids=["default", "device1"])
def test_while_loop_equals_numpy(device):
    xn = RS.randn(5) + 1.0
    g = sg.grad(halve_while, argnums=0)(xp.asarray(xn, device=device), 0.01)
    gn = sg.grad(halve_while_np, argnums=0)(xn, 0.01)
    assert np.allclose(gn, central(lambda v: halve_while_np(v, 0.01), xn), atol=1e-6)
    assert g.device == xp.asarray(xn, device=device).device
    assert np.allclose(host(g), gn, rtol=1e-10, atol=1e-12)
