"""The cached call of sg.grad (api/cached_call.py): a call with argument types seen
before skips binding, kinds and wrt checks, and still gives what the full path gives.

No timing here (tools/bench.py overhead measures it): these tests check that the
short path is taken and that everything it skips is still decided correctly when
what the generated code was specialized on changes.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.api import gradients


def central(f, x, eps=1e-6):
    """Central finite differences of a scalar f at a float or an array x."""
    if isinstance(x, float):
        return (f(x + eps) - f(x - eps)) / (2 * eps)
    g = np.zeros_like(x, dtype=float)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x, dtype=float)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


def shaper(v):
    return v * v


def loss(x, w):
    return np.sum(np.sin(x) * shaper(w))


def poly(x, a):
    return np.sum(a * x * x * x)


def vector_out(x):
    return x * 2.0


def counting_full_path(monkeypatch):
    """How many times calls took the full path (``Transformed.compiled``)."""
    calls = []
    real = gradients.Transformed.compiled

    def compiled(self, bound, leaves=None):
        calls.append(1)
        return real(self, bound, leaves)
    monkeypatch.setattr(gradients.Transformed, "compiled", compiled)
    return calls


def test_a_second_call_with_the_same_types_skips_the_full_path(monkeypatch):
    calls = counting_full_path(monkeypatch)
    g = sg.grad(loss, wrt=(0, 1))
    x, w = np.linspace(0.1, 0.9, 4), 1.3
    first = g(x, w)
    second = g(x * 2, w + 1.0)        # same types, other values and the same shapes
    third = g(np.ones((2, 3)), 0.5)   # another shape: not something the code depends on
    assert len(calls) == 1
    for (dx, dw), (xv, wv) in zip((first, second, third),
                                  ((x, w), (x * 2, w + 1.0), (np.ones((2, 3)), 0.5))):
        np.testing.assert_allclose(dx, np.cos(xv) * wv * wv, rtol=1e-12)
        np.testing.assert_allclose(dw, central(lambda v: loss(xv, v), wv), rtol=1e-6)


def test_new_argument_kinds_take_the_full_path_and_are_right(monkeypatch):
    calls = counting_full_path(monkeypatch)
    g = sg.grad(poly, wrt=0)
    assert g(2.0, 3.0) == pytest.approx(central(lambda v: poly(v, 3.0), 2.0), rel=1e-6)
    x = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(g(x, 3.0), 9.0 * x * x, rtol=1e-12)   # a float, then an array
    assert len(calls) == 2 and len(g._by_types) == 2
    np.testing.assert_allclose(g(x, 3.0), 9.0 * x * x, rtol=1e-12)
    assert g(2.0, 3.0) == pytest.approx(36.0)
    assert len(calls) == 2


def test_an_integer_array_in_wrt_is_still_refused():
    g = sg.grad(poly, wrt=0)
    g(np.array([1.0, 2.0]), 2.0)
    with pytest.raises(TypeError, match="not floating-point"):
        g(np.array([1, 2]), 2.0)       # the same type (ndarray), another dtype kind


def test_wrt_none_follows_each_calls_dtypes():
    g = sg.grad(poly)                 # every floating-point argument
    x = np.array([1.0, 2.0])
    dx, da = g(x, np.array(2.0))
    np.testing.assert_allclose(dx, 6.0 * x * x)
    np.testing.assert_allclose(da, central(lambda v: np.sum(poly(x, v)), 2.0), rtol=1e-6)
    # the same types, but a is an integer array now: only x is differentiated
    np.testing.assert_allclose(g(x, np.array(2)), 6.0 * x * x)


def test_a_float32_input_keeps_its_dtype_on_every_call():
    g = sg.grad(loss, wrt=0)
    x = np.linspace(0.1, 0.9, 3).astype(np.float32)
    for _ in range(3):
        dx = g(x, 1.5)
        assert dx.dtype == np.float32
        np.testing.assert_allclose(dx, np.cos(x.astype(float)) * 2.25, rtol=1e-6)


def test_a_helper_redefined_after_the_first_call_is_seen(monkeypatch):
    g = sg.grad(loss, wrt=1)
    x = np.linspace(0.1, 0.9, 3)
    assert g(x, 2.0) == pytest.approx(np.sum(np.sin(x)) * 4.0)
    g(x, 2.0)
    monkeypatch.setitem(loss.__globals__, "shaper", lambda v: v * v * v)
    assert g(x, 2.0) == pytest.approx(np.sum(np.sin(x)) * 12.0)     # d/dw w**3 = 3 w**2


def test_new_code_for_the_same_function_is_seen(monkeypatch):
    def f(x):
        return x * x

    def h(x):
        return x * x * x
    g = sg.grad(f)
    assert g(3.0) == pytest.approx(6.0)
    assert g(3.0) == pytest.approx(6.0)
    monkeypatch.setattr(f, "__code__", h.__code__)
    assert g(3.0) == pytest.approx(27.0)


def test_a_closure_rebinding_its_helper_is_seen():
    def make():
        scale = np.sin

        def f(x):
            return np.sum(scale(x))

        def rebind():
            nonlocal scale
            scale = np.cos
        return f, rebind
    f, rebind = make()
    g = sg.grad(f)
    x = np.array([0.3, 0.7])
    np.testing.assert_allclose(g(x), np.cos(x))
    np.testing.assert_allclose(g(x), np.cos(x))
    rebind()
    np.testing.assert_allclose(g(x), -np.sin(x))


def test_errors_on_the_short_path_read_as_on_the_full_path():
    g = sg.grad(vector_out)
    messages = []
    for _ in range(2):
        with pytest.raises(RuntimeError) as e:
            g(np.ones(3))
        messages.append(str(e.value))
    assert messages[0] == messages[1] and "scalar outputs" in messages[0]


def test_value_and_grad_and_single_tuples_on_the_short_path():
    vg = sg.value_and_grad(poly, wrt=(0,))
    for _ in range(2):
        value, grads = vg(2.0, 3.0)
        assert value == pytest.approx(24.0)
        assert isinstance(grads, tuple) and len(grads) == 1
        assert grads[0] == pytest.approx(central(lambda v: poly(v, 3.0), 2.0), rel=1e-6)


def test_keywords_and_tensors_take_the_full_path():
    g = sg.grad(poly, wrt="x")
    assert g(x=2.0, a=3.0) == pytest.approx(36.0)
    assert g(x=2.0, a=3.0) == pytest.approx(36.0)
    assert not g._by_types             # keyword calls are not recorded
    t = sg.tensor(np.array([1.0, 2.0]), requires_grad=True)
    for _ in range(2):
        np.testing.assert_allclose(g(t, 3.0).detach().numpy(), 9.0 * np.array([1.0, 4.0]))
    assert not g._by_types


def _names_by_dis(code, out):
    """The global names of ``code`` as ``dis`` reads them (the reference)."""
    import dis
    import types
    ops = {"LOAD_GLOBAL", "STORE_GLOBAL", "DELETE_GLOBAL", "LOAD_NAME", "STORE_NAME",
           "DELETE_NAME", "LOAD_FROM_DICT_OR_GLOBALS"}
    for ins in dis.get_instructions(code):
        if ins.opname in ops:
            out.add(ins.argval)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            _names_by_dis(c, out)
    return out


def test_dependencies_are_the_global_names_dis_reads(tmp_path):
    """The per-call check looks at the globals a function's bytecode loads, read by a
    small scanner (cache._code_names): the same names as ``dis``, with attribute
    names left out, also past 256 names (EXTENDED_ARG) and in nested code."""
    import importlib.util
    import inspect
    from srcgrad.compiler import cache, driver
    many = "\n".join(f"g{i} = {i}.0" for i in range(300))
    body = " + ".join(f"g{i}" for i in range(300))
    path = tmp_path / "many_globals.py"
    path.write_text(f"import numpy as np\n{many}\n\n\ndef f(x):\n"
                    f"    h = [np.sin(v) for v in x]\n    return np.exp(x) * ({body}) + len(h)\n")
    spec = importlib.util.spec_from_file_location("many_globals", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    functions = [mod.f, loss, poly, shaper] + [
        v for m in (gradients, cache, driver) for v in vars(m).values() if inspect.isfunction(v)]
    for fn in functions:
        assert cache._code_names(fn.__code__, set()) == _names_by_dis(fn.__code__, set()), fn
    names = cache._code_names(mod.f.__code__, set())
    assert {"np", "g0", "g299", "len"} <= names and "exp" not in names and "sin" not in names


# -- the guard: the cached call's checks as one generated function -----------------

SCALE = 2.0


def squash(v):
    return np.tanh(v)


def scaled(x, w):
    return np.sum(SCALE * squash(x * w))


def _guard_of(g):
    """The guard the last call of ``g`` installed (after two calls with one signature)."""
    from srcgrad.api import cached_call
    assert g._hot is not g._lookup, "no guard installed"
    assert g._hot.__code__.co_filename.startswith("<srcgrad cached call #")
    return g._hot, cached_call.MISS


def test_the_guard_answers_like_the_full_path_and_refuses_what_it_does_not_know():
    g = sg.grad(scaled, wrt=(0, 1))
    x, w = np.linspace(-1.0, 1.0, 5), np.array([0.3, -0.2, 0.5, 0.1, 0.7])
    first = g(x, w)
    second = g(x, w)                     # through the guard
    guard, miss = _guard_of(g)
    for a, b in zip(first, second):
        assert type(a) is type(b) and a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(second[0], central(lambda v: scaled(v, w), x), rtol=1e-6)
    np.testing.assert_allclose(second[1], central(lambda v: scaled(x, v), w), rtol=1e-6)
    assert guard((x, w)) is not miss
    assert guard((x,)) is miss                                  # another arity
    assert guard((x, 0.5)) is miss                              # another type
    assert guard((x.astype(np.float32), w)) is miss             # another dtype
    assert guard((x, w.astype(np.int64))) is miss


def test_a_global_rebound_is_read_live_or_sends_the_call_down_the_full_path(monkeypatch):
    g = sg.grad(scaled, wrt=0)
    x, w = np.linspace(-1.0, 1.0, 4), np.full(4, 0.5)
    g(x, w)
    g(x, w)
    guard, miss = _guard_of(g)
    monkeypatch.setitem(scaled.__globals__, "SCALE", 3.0)       # data: read live
    assert guard((x, w)) is not miss
    np.testing.assert_allclose(g(x, w), central(lambda v: scaled(v, w), x), rtol=1e-6)
    monkeypatch.setitem(scaled.__globals__, "squash", np.sin)    # a function replaced
    assert guard((x, w)) is miss
    np.testing.assert_allclose(g(x, w), 3.0 * np.cos(x * w) * w, rtol=1e-12)


def test_alternating_signatures_keep_their_hits_and_their_results():
    g = sg.grad(poly, wrt=0)
    x = np.array([1.0, -2.0, 0.5])
    x32 = x.astype(np.float32)
    for _ in range(3):       # float, array, float32 array: each call's own hit or path
        assert g(2.0, 3.0) == pytest.approx(36.0)
        np.testing.assert_allclose(g(x, 3.0), 9.0 * x * x, rtol=1e-12)
        d32 = g(x32, 3.0)
        assert d32.dtype == np.float32
        np.testing.assert_allclose(d32, 9.0 * x * x, rtol=1e-6)
    from srcgrad.api import cached_call
    before = len(cached_call._CODES)
    for _ in range(5):       # (one guard text per shape of hit: no new code per call)
        g(x, 3.0)
        g(x32, 3.0)
    assert len(cached_call._CODES) == before


def zero_dim(x):
    return x * x * 3.0


def test_a_gradient_of_another_type_is_cast_on_the_guarded_path_too():
    g = sg.grad(zero_dim, wrt=0)
    x = np.array(1.5)                    # 0-d: the generated code may give a NumPy scalar
    first, second = g(x), g(x)
    assert type(first) is type(second) and first.dtype == second.dtype == x.dtype
    assert float(second) == pytest.approx(central(lambda v: float(zero_dim(v)), 1.5), rel=1e-6)
    x32 = np.linspace(0.1, 0.9, 3).astype(np.float32)
    f32 = sg.grad(lambda v: np.sum(v * np.float64(2.0)), wrt=0)   # float64 inside
    for _ in range(3):
        d = f32(x32)
        assert d.dtype == np.float32
        np.testing.assert_allclose(d, 2.0)


def test_an_error_through_the_guard_shows_the_guards_line():
    import traceback

    def bad(x, i):
        return np.sum(x[i] * x)
    g = sg.grad(bad, wrt=0)
    g(np.ones(3), 1)
    g(np.ones(3), 1)
    _guard_of(g)
    with pytest.raises(IndexError) as e:
        g(np.ones(3), 7)
    frames = traceback.extract_tb(e.value.__traceback__)
    guard = [f for f in frames if f.filename.startswith("<srcgrad cached call")]
    assert guard and guard[0].line == "out = fn(a0, a1)"
    assert any(f.filename.startswith("<srcgrad grad of") and "x[i]" in f.line for f in frames)


def test_the_first_call_builds_the_guard_the_second_one_runs():
    """A second call compiles nothing (a caller measuring its memory or time sees
    only the generated code and the guard's comparisons)."""
    import tracemalloc
    g = sg.grad(poly, wrt=0)
    x = np.array([1.0, -2.0, 0.5])
    g(x, 3.0)
    tracemalloc.start()
    np.testing.assert_allclose(g(x, 3.0), 9.0 * x * x, rtol=1e-12)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    _guard_of(g)
    assert peak < 10_000        # (compiling a guard allocates some 70 kB)


def test_with_wrt_none_the_guard_compares_the_differentiated_arrays_dtypes():
    """wrt=None: each floating-point array is differentiated.  The guard compares
    their exact dtypes (so a gradient of that dtype is returned as it is) and the
    kind of every other array (an integer array becoming a float one is
    differentiated from then on)."""
    g = sg.grad(poly)
    x, a = np.array([1.0, -2.0, 0.5]), np.array([3, 1, 2])
    first, second = g(x, a), g(x, a)
    guard, miss = _guard_of(g)
    for d in (first, second):
        assert type(d) is np.ndarray and d.dtype == x.dtype
        np.testing.assert_allclose(d, central(lambda v: poly(v, a), x), rtol=1e-6)
    assert guard((x, a)) is not miss
    assert guard((x.astype(np.float32), a)) is miss              # another float dtype
    assert guard((x, a.astype(np.float64))) is miss              # a differentiated too now
    assert guard((x, a.astype(np.int32))) is not miss            # an integer still
    dx, da = g(x, a.astype(np.float64))
    np.testing.assert_allclose(da, central(lambda v: poly(x, v), a.astype(np.float64)),
                               rtol=1e-6)
    d32 = g(x.astype(np.float32), a)
    assert d32.dtype == np.float32
    np.testing.assert_allclose(d32, 3.0 * a * x * x, rtol=1e-6)
