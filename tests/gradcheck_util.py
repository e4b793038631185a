"""Float64 central finite differences, and a checker that compares srcgrad to them.

``numeric_grad(f, args, i)`` differentiates ``f(*args)`` (a scalar) with respect to
argument ``i``, which may be a Python float, a numpy float scalar, a float array of
any shape, or a dict / list / tuple (nested) of those; the result has the same
structure (floats for floats, arrays of the same shape for arrays).

``check_grads(f, args, wrt)`` compares ``sg.grad(f, wrt=...)`` to it for every
argument of ``wrt`` alone (by position AND by name) and for all of them together,
and checks that no call changed the inputs.
"""
import copy
import inspect
import numbers

import numpy as np

import srcgrad as sg

EPS = 1e-6
RTOL = 1e-5
ATOL = 1e-6


# -- structures ------------------------------------------------------------------

def leaves(x, path=()):
    """[(path, value)] of the differentiable leaves of a nested container."""
    if isinstance(x, dict):
        return [lf for k in x for lf in leaves(x[k], path + (k,))]
    if isinstance(x, (list, tuple)):
        return [lf for i, v in enumerate(x) for lf in leaves(v, path + (i,))]
    return [(path, x)]


def replace(x, path, value):
    """A copy of container ``x`` with the leaf at ``path`` replaced (x itself untouched)."""
    if not path:
        return value
    k, rest = path[0], path[1:]
    if isinstance(x, dict):
        out = dict(x)
        out[k] = replace(x[k], rest, value)
        return out
    out = list(x)
    out[k] = replace(x[k], rest, value)
    return tuple(out) if isinstance(x, tuple) else out


def get(x, path):
    for k in path:
        x = x[k]
    return x


def is_float_leaf(v):
    if isinstance(v, bool):
        return False
    if isinstance(v, (float, np.floating)):
        return True
    return isinstance(v, np.ndarray) and v.dtype.kind == "f"


def deep_copy(x):
    return copy.deepcopy(x)


def same_values(a, b):
    """Exact equality of two nested structures of arrays / scalars (NaN == NaN)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_values(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same_values(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and a.dtype == b.dtype and \
            bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True
    return bool(a == b)


# -- finite differences -------------------------------------------------------------

def _scalar(v):
    v = np.asarray(v)
    if v.size != 1:
        raise AssertionError(f"the function's output is not a scalar: shape {v.shape}")
    return float(v.reshape(()))


def _leaf_grad(call, leaf, eps):
    """Central differences of ``call(new_leaf)`` with respect to one leaf."""
    if isinstance(leaf, np.ndarray):
        g = np.zeros(leaf.shape, dtype=np.float64)
        for idx in np.ndindex(*leaf.shape):
            xp = leaf.copy()
            xp[idx] += eps
            xm = leaf.copy()
            xm[idx] -= eps
            g[idx] = (_scalar(call(xp)) - _scalar(call(xm))) / (2 * eps)
        return g
    kind = type(leaf)
    return (_scalar(call(kind(leaf + eps))) - _scalar(call(kind(leaf - eps)))) / (2 * eps)


def numeric_grad(f, args, i, eps=EPS, kwargs=None):
    """Central-difference gradient of scalar ``f(*args)`` w.r.t. argument ``i``."""
    kwargs = kwargs or {}
    arg = args[i]
    grads = {}
    for path, leaf in leaves(arg):
        if not is_float_leaf(leaf):
            grads[path] = None
            continue

        def call(new, path=path):
            a = list(deep_copy(args))
            a[i] = replace(deep_copy(arg), path, new)
            return f(*a, **kwargs)
        grads[path] = _leaf_grad(call, leaf, eps)
    return _rebuild(arg, grads)


def _rebuild(x, grads, path=()):
    if isinstance(x, dict):
        return {k: _rebuild(x[k], grads, path + (k,)) for k in x}
    if isinstance(x, (list, tuple)):
        out = [_rebuild(v, grads, path + (j,)) for j, v in enumerate(x)]
        return tuple(out) if isinstance(x, tuple) else out
    return grads[path]


# -- comparison -----------------------------------------------------------------------

def assert_close(got, expected, where="grad", rtol=RTOL, atol=ATOL):
    """``got`` (srcgrad) matches ``expected`` (finite differences) in structure and value."""
    if isinstance(expected, dict):
        assert isinstance(got, dict), f"{where}: expected a dict gradient, got {type(got).__name__}"
        assert set(got) == set(expected), f"{where}: keys {sorted(got)} != {sorted(expected)}"
        for k in expected:
            assert_close(got[k], expected[k], f"{where}[{k!r}]", rtol, atol)
        return
    if isinstance(expected, (list, tuple)):
        assert type(got) is type(expected), \
            f"{where}: expected a {type(expected).__name__} gradient, got {type(got).__name__}"
        assert len(got) == len(expected), f"{where}: length {len(got)} != {len(expected)}"
        for j, (a, b) in enumerate(zip(got, expected)):
            assert_close(a, b, f"{where}[{j}]", rtol, atol)
        return
    if expected is None:
        return  # a non-float leaf (an int array, a string...): no gradient to check
    if isinstance(expected, np.ndarray):
        assert isinstance(got, np.ndarray), \
            f"{where}: expected an array of shape {expected.shape}, got {type(got).__name__} {got!r}"
        assert got.shape == expected.shape, f"{where}: shape {got.shape} != {expected.shape}"
        assert got.dtype.kind == "f", f"{where}: dtype {got.dtype}"
    else:
        assert np.ndim(got) == 0, \
            f"{where}: expected a scalar gradient for a scalar argument, got shape {np.shape(got)}"
        assert isinstance(got, (numbers.Real, np.ndarray, np.generic)) and \
            not isinstance(got, bool), f"{where}: not a number: {got!r}"
    g = np.asarray(got, dtype=np.float64)
    e = np.asarray(expected, dtype=np.float64)
    scale = max(1.0, float(np.max(np.abs(e))) if e.size else 1.0)
    ok = np.allclose(g, e, rtol=rtol, atol=atol * scale)
    if not ok:
        raise AssertionError(f"{where}: srcgrad and finite differences differ\n"
                             f"srcgrad:\n{g!r}\nfinite differences:\n{e!r}")


def float_params(f, args):
    """Positions of the arguments that hold something differentiable."""
    out = []
    for i, a in enumerate(args):
        if any(is_float_leaf(v) for _, v in leaves(a)):
            out.append(i)
    return out


def check_grads(f, args, wrt=None, rtol=RTOL, atol=ATOL, eps=EPS, by_name=True, fd_f=None):
    """Compare ``sg.grad(f, wrt=...)`` with finite differences, for every ``wrt``
    position alone (by int and by name) and for all of them together (a tuple).

    ``wrt``: positions to check (default: every argument with float leaves).
    ``fd_f``: the function finite differences run on, when it is not ``f`` itself
    (for ``f`` that stops gradients: ``fd_f`` freezes the stopped values).
    Also checks that srcgrad never changes the inputs.
    """
    args = tuple(args)
    if wrt is None:
        wrt = float_params(f, args)
    wrt = list(wrt)
    before = deep_copy(args)
    names = list(inspect.signature(f).parameters)
    expected = {i: numeric_grad(fd_f or f, args, i, eps) for i in wrt}
    assert same_values(args, before), "the finite differences changed the inputs (test bug)"
    for i in wrt:
        got = sg.grad(f, wrt=i)(*args)
        assert same_values(args, before), f"sg.grad(wrt={i}) changed its inputs"
        assert_close(got, expected[i], f"{f.__name__} d/d{names[i]} (wrt={i})", rtol, atol)
        if by_name:
            got = sg.grad(f, wrt=names[i])(*args)
            assert_close(got, expected[i], f"{f.__name__} d/d{names[i]} (wrt={names[i]!r})",
                         rtol, atol)
    if len(wrt) > 1:
        got = sg.grad(f, wrt=tuple(wrt))(*args)
        assert isinstance(got, tuple) and len(got) == len(wrt), \
            f"wrt={tuple(wrt)} must give a tuple of {len(wrt)} gradients, got {type(got)}"
        for i, g in zip(wrt, got):
            assert_close(g, expected[i], f"{f.__name__} d/d{names[i]} (wrt={tuple(wrt)})",
                         rtol, atol)
    assert same_values(args, before), "sg.grad changed its inputs"
    return expected


def fd_of(fun, x, eps=EPS):
    """Central differences of scalar ``fun`` at ``x`` (a float, or an array: the same
    shape)."""
    if isinstance(x, float):
        return (fun(x + eps) - fun(x - eps)) / (2 * eps)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[i] += eps
        xm[i] -= eps
        g[i] = (fun(xp) - fun(xm)) / (2 * eps)
    return g


def check_modes(f, x, v, mode):
    """One of ``f``'s checks at array ``x`` along ``v``: ``"reverse"`` (sg.grad against
    central differences, ``x`` unchanged, value_and_grad's value), ``"forward"``
    (sg.jvp's value and tangent) or ``"second"`` (sg.hvp against differences of the
    gradient)."""
    import pytest
    if mode == "reverse":
        x0 = x.copy()
        np.testing.assert_allclose(sg.grad(f)(x), fd_of(f, x0), rtol=1e-6, atol=1e-8)
        np.testing.assert_array_equal(x, x0)
        value, _ = sg.value_and_grad(f)(x)
        assert value == pytest.approx(f(x0))
    elif mode == "forward":
        y, t = sg.jvp(f, (x,), (v,))
        assert y == pytest.approx(f(x))
        assert t == pytest.approx(fd_of(f, x) @ v, rel=1e-6, abs=1e-8)
    else:
        np.testing.assert_allclose(sg.hvp(f)(x, v=v), fd_of(lambda z: sg.grad(f)(z) @ v, x),
                                   rtol=1e-5, atol=1e-6)
