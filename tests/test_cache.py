"""The cache of generated code (compiler/cache.py): correct and bounded.

Everything the generated code baked in is in the key or checked at the next call
(a redefined helper, and a helper of a helper); closure variables and globals are
read live; a new lambda per loop trip reuses one entry; the cache stays under its
limit; builds are locked per function.  Every gradient is checked in float64
against central finite differences.
"""
import threading

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.compiler import cache, driver
from srcgrad.compiler.modes import forward
from gradcheck_util import assert_close, numeric_grad

X = np.array([0.3, -0.7, 1.1])


def fd(f, x=X):
    return numeric_grad(f, (x,), 0)


# -- a helper redefined after the first call (the notebook habit) ----------------

def helper(x):
    return np.sin(x)


def helper_redefined(x):
    return np.cos(x) * x


def inner(x):
    return np.exp(x)


def inner_redefined(x):
    return x * x * x


def middle(x):
    return inner(x) * 2.0


def uses_helper(x):
    return np.sum(helper(x) * x)


def uses_middle(x):
    return np.sum(middle(x))


@pytest.fixture
def restore_globals():
    saved = dict(helper=helper, inner=inner)
    yield
    globals().update(saved)


def test_redefined_helper_changes_value_and_gradient(restore_globals):
    vg = sg.value_and_grad(uses_helper)
    v1, g1 = vg(X)
    assert_close(v1, uses_helper(X))
    assert_close(g1, fd(uses_helper))
    globals()["helper"] = helper_redefined
    v2, g2 = vg(X)
    assert_close(v2, np.sum(np.cos(X) * X * X))
    assert_close(g2, fd(uses_helper))
    assert not np.allclose(g1, g2)
    # a new transformation of the same function sees the new helper too
    assert_close(sg.grad(uses_helper)(X), fd(uses_helper))


def test_redefined_helper_of_a_helper(restore_globals):
    g = sg.grad(uses_middle)
    assert_close(g(X), fd(uses_middle))
    globals()["inner"] = inner_redefined
    assert_close(g(X), fd(uses_middle))
    assert_close(g(X), 6.0 * X * X)
    out, tangent = sg.jvp(uses_middle, (X,), (np.ones(3),))      # forward mode too
    assert_close(tangent, np.sum(6.0 * X * X))


# -- closures and globals are read live ------------------------------------------

def make_scaled():
    scale = 2.0

    def f(x):
        return np.sum(np.sin(x) * scale)

    def set_scale(v):
        nonlocal scale
        scale = v
    return f, set_scale


def test_nonlocal_rebinding_is_seen():
    f, set_scale = make_scaled()
    g = sg.grad(f)
    assert_close(g(X), fd(f))
    set_scale(-3.5)
    assert_close(g(X), -3.5 * np.cos(X))
    assert_close(g(X), fd(f))
    vg = sg.value_and_grad(f)
    assert_close(vg(X)[0], f(X))
    out, tangent = sg.jvp(f, (X,), (np.ones(3),))
    assert_close(tangent, np.sum(-3.5 * np.cos(X)))


OFFSET = 0.5
POWER = 2.0


def uses_globals(x):
    return np.sum((x + OFFSET) ** POWER)


def test_global_rebinding_is_seen():
    global OFFSET, POWER
    g = sg.grad(uses_globals)
    try:
        assert_close(g(X), fd(uses_globals))
        OFFSET, POWER = -1.5, 3.0
        assert_close(g(X), 3.0 * (X - 1.5) ** 2)
        assert_close(g(X), fd(uses_globals))
    finally:
        OFFSET, POWER = 0.5, 2.0


def test_closures_of_one_code_share_an_entry_and_keep_their_values():
    fs = [make_scaled()[0] for _ in range(3)]
    for k, f in enumerate(fs):
        f.__closure__[0].cell_contents = float(k + 1)   # each closure its own scale
    before = len(driver._CACHE)
    for k, f in enumerate(fs):
        assert_close(sg.grad(f)(X), (k + 1) * np.cos(X))
    assert len(driver._CACHE) - before <= 1


# -- bounded ---------------------------------------------------------------------

def test_ten_thousand_lambdas_keep_the_cache_bounded():
    before = len(driver._CACHE)
    for i in range(10000):
        k = float(i % 7)
        g = sg.grad(lambda x: x * x * k)       # a new function object each trip
        if i % 1000 == 0:
            assert_close(g(1.5), 3.0 * k)
        else:
            g(1.5)
        assert len(driver._CACHE) <= cache.CACHE_LIMIT
    assert len(driver._CACHE) - before <= 1     # one code, one entry


def test_least_recently_used_entries_go(monkeypatch):
    monkeypatch.setattr(cache, "CACHE_LIMIT", 3)
    fns = [lambda x: x * 2.0, lambda x: x * 3.0, lambda x: x * 4.0, lambda x: x * 5.0,
           lambda x: x * 6.0]
    for k, f in enumerate(fns):
        assert_close(sg.grad(f)(1.0), k + 2.0)
        assert len(driver._CACHE) <= 3
    assert_close(sg.grad(fns[0])(1.0), 2.0)      # rebuilt after it went
    assert len(driver._CACHE) <= 3
    monkeypatch.setattr(cache, "CACHE_LIMIT", 256)


# -- locked per function ---------------------------------------------------------

def slow_one(x):
    return np.sum(np.tanh(x) * x)


def quick_one(x):
    return np.sum(np.exp(x))


def test_a_slow_compile_does_not_block_another_function(monkeypatch):
    release, started = threading.Event(), threading.Event()
    real_build = driver._build

    def build(func, *args):
        if func is slow_one:
            started.set()
            assert release.wait(30)
        return real_build(func, *args)
    monkeypatch.setattr(driver, "_build", build)
    results = {}
    slow = threading.Thread(target=lambda: results.update(slow=sg.grad(slow_one)(X)))
    slow.start()
    assert started.wait(30)
    quick = threading.Thread(target=lambda: results.update(quick=sg.grad(quick_one)(X)))
    quick.start()
    quick.join(30)
    finished_while_slow_was_building = not quick.is_alive() and "slow" not in results
    release.set()
    slow.join(30)
    assert finished_while_slow_was_building
    assert_close(results["quick"], fd(quick_one))
    assert_close(results["slow"], fd(slow_one))


def same_for_both(x):
    return np.sum(np.sin(x) ** 2)


def test_two_threads_build_one_function_once(monkeypatch):
    calls, gate = [], threading.Barrier(2)
    real_build = driver._build

    def build(func, *args):
        calls.append(func)
        return real_build(func, *args)
    monkeypatch.setattr(driver, "_build", build)
    out = [None, None]

    def run(i):
        gate.wait(10)
        out[i] = sg.grad(same_for_both)(X)
    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert calls.count(same_for_both) == 1
    for g in out:
        assert_close(g, fd(same_for_both))


def recursive(x, n):
    if n == 0:
        return x
    return recursive(x, n - 1) * 2.0


def test_recursion_builds_once_and_never_waits_on_itself():
    # the build of recursive's derivative meets a call of that derivative: the call is
    # resolved when it runs (the build is done by then), in any thread, without a lock
    # held on the way
    assert sg.grad(recursive, wrt=0)(1.0, 3) == 8.0
    out = []
    threads = [threading.Thread(target=lambda: out.append(sg.grad(recursive, wrt=0)(1.0, 4)))
               for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert out == [16.0, 16.0, 16.0]


def test_forward_cache_is_bounded_too():
    assert isinstance(forward._CACHE, cache.BuildCache)
    before = len(forward._CACHE)
    for i in range(300):
        c = float(i)
        sg.jvp(lambda x: x * c, (1.0,), (1.0,))
    assert len(forward._CACHE) - before <= 1


# -- the cyclic collector is paused during a build, and only then -----------------

def _gc_probe(x):
    return np.sum(np.sin(x) * x)


def _gc_probe_bad(x):
    with open(x) as fh:
        return fh


def test_a_build_pauses_the_cyclic_collector_and_restores_it(monkeypatch):
    import gc
    seen = []
    real = driver._build

    def spying(*a, **k):
        seen.append(gc.isenabled())
        return real(*a, **k)
    monkeypatch.setattr(driver, "_build", spying)
    assert gc.isenabled()
    sg.grad(_gc_probe)(np.ones(3))
    assert seen == [False] and gc.isenabled()
    with pytest.raises(sg.UnsupportedSyntaxError):   # a failing build restores it too
        sg.grad(_gc_probe_bad)(np.ones(3))
    assert gc.isenabled()
    gc.disable()                                     # the user's choice is kept
    try:
        sg.grad(_gc_probe, wrt=0)(np.ones(3))
        sg.jvp(_gc_probe, (np.ones(3),), (np.ones(3),))
        assert not gc.isenabled()
    finally:
        gc.enable()


# -- closures of one code over other functions: an entry each --------------------

def _make_term(f):
    return lambda x: np.sum(f(x) * x)


def _apply(f, x):
    return f(x)


def test_closures_of_one_code_over_other_functions_are_built_once_each(monkeypatch):
    """``_make_term(np.sin)`` and ``_make_term(np.tanh)`` share their code; their cells
    hold other functions, so each needs generated code of its own.  With one entry per
    key, each call rebuilt the other's code (a derivative of a derivative makes such
    closures: the fourth derivative rebuilt six functions on every call)."""
    sin_term, tanh_term = _make_term(np.sin), _make_term(np.tanh)

    def both(x):            # (called as values: compiled when the call happens)
        return _apply(sin_term, x) + _apply(tanh_term, x) * _apply(sin_term, x)
    builds = []
    real = driver.cached_build

    def counted(c, key, func, build, err):
        return real(c, key, func, lambda: builds.append(func) or build(), err)
    monkeypatch.setattr(driver, "cached_build", counted)
    g = sg.grad(both)
    assert_close(g(X), fd(both))
    assert_close(g(X), fd(both))
    first = len(builds)
    for _ in range(3):
        assert_close(g(X), fd(both))
    assert first > 0 and len(builds) == first


def test_fourth_derivative_reuses_its_code(monkeypatch):
    def f(x):
        return np.sum(np.sin(x) * x ** 2)
    v = np.array([0.5, -0.2, 0.3])
    fn = f
    for _ in range(3):
        fn = (lambda g: (lambda x: np.sum(g(x) * v)))(sg.grad(fn))
    g4 = sg.grad(fn)
    builds = []
    real = driver.cached_build

    def counted(c, key, func, build, err):
        return real(c, key, func, lambda: builds.append(func) or build(), err)
    g4(X)
    g4(X)
    monkeypatch.setattr(driver, "cached_build", counted)
    got = g4(X)
    assert builds == []
    # the fourth derivative of sum(sin(x) x^2) along v, three times, then the gradient
    assert_close(got, fd(fn), rtol=1e-4, atol=1e-5)
