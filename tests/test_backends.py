"""The backend seam: ``ad.array_ns`` picks the arguments' namespace (NumPy itself for
NumPy arrays and numbers), and array-API names (``xp.tanh``) resolve to NumPy's rules."""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad import rules
from srcgrad.runtime import array_ns


def test_numpy_and_numbers_compute_in_numpy():
    assert array_ns(np.ones(2), 1.0, 3, [np.ones(1)], {"a": 2.0}, None) is np
    assert array_ns() is np


def test_generated_code_binds_the_namespace_once():
    def f(x):
        return np.sum(np.tanh(x))
    src = sg.source(f)
    assert src.count("ad.array_ns(x)") == 1
    x = np.linspace(-1, 1, 5)
    assert np.allclose(sg.grad(f)(x), 1 - np.tanh(x) ** 2)


def test_array_api_names_resolve_to_numpy_rules():
    xs = pytest.importorskip("array_api_strict")
    assert rules.lookup(xs.tanh) is rules.lookup(np.tanh) is not None
    assert rules.lookup(xs.sum) is rules.lookup(np.sum)
    assert rules.lookup(xs.acos) is rules.lookup(np.arccos)
    assert rules.lookup(xs.concat) is rules.lookup(np.concatenate)
    assert rules.is_nograd(xs.argmax)
    # a function of a library that is no array library is not matched by its name
    assert rules.lookup(lambda x: x) is None


def test_compat_namespaces_resolve():
    compat = pytest.importorskip("array_api_compat")
    import array_api_compat.numpy as cnp
    assert rules.lookup(cnp.tanh) is rules.lookup(np.tanh)
    assert compat.array_namespace(np.ones(1)) is cnp


def test_compat_dask_namespace_user_code():
    pytest.importorskip("dask.array")
    import array_api_compat.dask.array as xp
    import dask.array as da
    assert rules.lookup(xp.tanh) is rules.lookup(np.tanh)

    def f(w, X):
        return xp.mean(xp.tanh(X @ w) ** 2)

    def fn(w, X):
        return np.mean(np.tanh(X @ w) ** 2)
    r = np.random.RandomState(0)
    w, X = r.randn(3), r.randn(40, 3)
    g = sg.grad(f, argnums=0)(w, da.from_array(X, chunks=10))
    gn = sg.grad(fn, argnums=0)(w, X)
    eps = 1e-6
    fd = np.array([(fn(w + eps * e, X) - fn(w - eps * e, X)) / (2 * eps) for e in np.eye(3)])
    assert np.allclose(gn, fd, atol=1e-7)
    assert isinstance(g, da.Array) and np.allclose(g.compute(), gn)


def test_no_numpy_function_on_array_api_arrays():
    xs = pytest.importorskip("array_api_strict")
    from srcgrad.runtime.backends import ArrayAPINamespace
    ns = array_ns(xs.asarray([1.0]))
    assert isinstance(ns, ArrayAPINamespace)
    with pytest.raises(AttributeError, match="no counterpart"):
        ns.nanpercentile      # would copy device arrays to the host
