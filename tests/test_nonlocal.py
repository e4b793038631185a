"""``nonlocal`` in a ``def`` inside the differentiated function: its calls are inlined
(compiler/lower/inline.py) and read and write the enclosing function's own variable,
as Python does.  Checked in reverse, forward and second order against central finite
differences.  A closure with nonlocal writes called as a value (made by a factory,
returned and called) and ``nonlocal`` in the differentiated function itself are
located refusals."""
import numpy as np
import pytest

import srcgrad as sg
from gradcheck_util import check_modes, fd_of as fd


def accumulate_in_map(x):
    total = 0.0

    def add(v):
        nonlocal total
        total = total + v
        return v
    ys = list(map(add, x))
    return total * ys[0]


def two_deep(x):
    acc = x[0]

    def outer(v):
        def inner(u):
            nonlocal acc          # the differentiated function's acc (outer has none)
            acc = acc * u
        inner(v)
        inner(v + 1.0)
        return acc
    r = outer(x[1])
    return r + acc


def middle_scope(x):
    def outer(v):
        acc = v                   # inner's nonlocal is this one, not a global or x's
        def inner(u):
            nonlocal acc
            acc = acc * u
        inner(x[2])
        inner(x[0])
        return acc
    return outer(x[1]) * outer(x[2])


def loops_inside_and_def_in_loop(x):
    s = 0.0
    for i in range(3):
        def bump(k):
            nonlocal s
            for j in range(k):
                s = s + np.sin(x[j]) * i
        bump(i + 1)
    return s


def rebinds_a_parameter(x):
    def scale(c):
        nonlocal x
        x = x * c
    scale(2.0)
    scale(x[0])
    return np.sum(x ** 2)


def conditional_write(x):
    best = x[0]

    def consider(v):
        nonlocal best
        if v > best:
            best = v
    for v in x:
        consider(v * v)
    return best


def array_state_and_history(x):
    hist = []
    state = np.zeros(2)

    def step(v):
        nonlocal state
        state = np.tanh(state + v)
        hist.append(state)
        return state.sum()
    out = 0.0
    for v in x:
        out = out + step(v)
    return out + np.sum(hist[0] * hist[-1])


def counter_in_sort_key(x):
    calls = 0

    def key(v):
        nonlocal calls
        calls += 1
        return -v
    ys = sorted(x, key=key)
    return ys[0] * calls


def called_from_another_def_in_a_comprehension(x):
    s = 1.0

    def bump(v):
        nonlocal s
        s = s * v

    def use(v):
        bump(v)
        return v * s
    ys = [use(v) for v in x]
    return sum(ys) + s


def counter_scales_each_call(x):
    count = 0

    def step(v):
        nonlocal count
        count += 1
        return np.sin(v) * count
    return step(x[0]) + step(x[1]) * step(x[2])


CASES = [accumulate_in_map, two_deep, middle_scope, loops_inside_and_def_in_loop,
         rebinds_a_parameter, conditional_write, array_state_and_history,
         counter_in_sort_key, called_from_another_def_in_a_comprehension,
         counter_scales_each_call]
X = np.array([0.7, 1.3, 0.4])
V = np.array([0.3, -0.2, 0.5])


@pytest.mark.parametrize("mode", ["reverse", "forward", "second"])
@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_against_differences(f, mode):
    check_modes(f, X, V, mode)


def test_vjp_split_form():
    y, pullback = sg.vjp(counter_scales_each_call, X)
    assert y == pytest.approx(counter_scales_each_call(X))
    np.testing.assert_allclose(pullback(2.0), 2.0 * fd(counter_scales_each_call, X),
                               rtol=1e-6)


def make_accumulator():
    total = 0.0

    def add(v):
        nonlocal total
        total = total + v
        return total
    return add


def factory_closure_called(x):
    acc = make_accumulator()
    s = 0.0
    for xi in x:
        s = acc(xi ** 2)
    return s


def returned_then_called(x):
    n = 1.0

    def mk():
        def inc(v):
            nonlocal n
            n = n + v
            return n
        return inc
    f = mk()
    return f(x[0]) * f(x[1])


def local_accumulator(x):
    def mk():
        total = 0.0

        def add(v):
            nonlocal total
            total = total + v
            return total
        return add
    acc = mk()
    s = 0.0
    for xi in x:
        s = acc(np.sin(xi) * xi)
    return s * x[0]


def two_accumulators(x):
    def mk(k):
        total = x[0]

        def add(v):
            nonlocal total
            total = total * k + v
            return total
        return add
    a = mk(2.0)
    b = mk(3.0)
    a(x[1])
    b(x[2])
    return a(x[0]) * b(x[1])


def alias_of_a_writer(x):
    s = x[0]

    def inc(v):
        nonlocal s
        s = s * v
        return s
    g = inc
    g(x[1])
    g(x[2])
    return s + x[0]


@pytest.mark.parametrize("mode", ["reverse", "forward", "second"])
@pytest.mark.parametrize("f", [returned_then_called, local_accumulator, two_accumulators,
                               alias_of_a_writer], ids=lambda f: f.__name__)
def test_a_local_closure_called_through_a_name(f, mode):
    """(Refused before: 'the value of g() is not used'.)  ``g = inc`` and ``f = mk()``
    of local defs: a call of the name is a call of that def, inlined, so what it writes
    to ``nonlocal`` names is followed; each ``mk()`` call has cells of its own."""
    check_modes(f, X, V, mode)


@pytest.mark.parametrize("f", [factory_closure_called], ids=lambda f: f.__name__)
def test_closure_called_as_a_value_is_refused_at_its_line(f):
    with pytest.raises((sg.UnsupportedSyntaxError, sg.NonDifferentiableError)) as e:
        sg.grad(f)(X)
    assert "test_nonlocal.py" in str(e.value) and "nonlocal" in str(e.value)


def make_counted_loss(X):
    n_calls = 0
    last = None

    def loss(w):
        nonlocal n_calls, last
        n_calls += 1
        r = np.sum(np.tanh(X @ w) ** 2)
        last = r
        return r

    def seen():
        return n_calls, last
    return loss, seen


XM = np.arange(6.0).reshape(3, 2) / 5
W = np.array([0.5, -0.3])


def test_nonlocal_in_the_differentiated_function_writes_its_cell_each_call():
    loss, seen = make_counted_loss(XM)
    expected = fd(loss, W)
    start = seen()[0]
    g = sg.grad(loss)
    np.testing.assert_allclose(g(W), expected, rtol=1e-6)
    assert seen()[0] == start + 1
    assert seen()[1] == pytest.approx(np.sum(np.tanh(XM @ W) ** 2))
    expected2 = fd(loss, W * 2)
    np.testing.assert_allclose(g(W * 2), expected2, rtol=1e-6)
    count, last = seen()
    assert last == pytest.approx(np.sum(np.tanh(XM @ (W * 2)) ** 2))
    value, grad = sg.value_and_grad(loss)(W)
    y, pullback = sg.vjp(loss, W)
    np.testing.assert_allclose(pullback(1.0), expected, rtol=1e-6)
    y, t = sg.jvp(loss, (W,), (np.ones(2),))
    assert t == pytest.approx(expected.sum(), rel=1e-6)
    assert seen()[0] == count + 3               # one forward pass per call, as Python
    h = sg.hvp(loss)(W, v=np.ones(2))
    np.testing.assert_allclose(h, fd(lambda z: sg.grad(loss)(z).sum(), W), rtol=1e-5)


def test_a_second_closure_of_the_same_factory_writes_its_own_cell():
    loss_a, seen_a = make_counted_loss(XM)
    loss_b, seen_b = make_counted_loss(XM * 2)
    sg.grad(loss_a)(W)
    sg.grad(loss_b)(W)
    sg.grad(loss_b)(W)
    assert seen_a()[0] == 1 and seen_b()[0] == 2
    assert seen_b()[1] == pytest.approx(np.sum(np.tanh(2 * XM @ W) ** 2))


EVALS = 0


def counted_global(w):
    global EVALS
    EVALS = EVALS + 1
    return np.sum(np.sin(w) * EVALS)


def test_global_write_in_the_differentiated_function():
    global EVALS
    EVALS = 0
    g = sg.grad(counted_global)(W)
    np.testing.assert_allclose(g, np.cos(W) * 1)
    assert EVALS == 1
    sg.grad(counted_global)(W)
    assert EVALS == 2


def calls_a_global_writer(w):
    a = counted_global(w)
    return a * EVALS


def calls_a_nonlocal_writer(w, f):
    return f(w) * 2.0


@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_a_writer_called_from_differentiated_code_is_refused(mode):
    loss, _ = make_counted_loss(XM)
    for f, args in [(calls_a_global_writer, (W,)), (calls_a_nonlocal_writer, (W, loss))]:
        with pytest.raises((sg.UnsupportedSyntaxError, sg.NonDifferentiableError)) as e:
            if mode == "grad":
                sg.grad(f)(*args)
            else:
                sg.jvp(lambda w: f(w, *args[1:]), (W,), (W,))
        assert "test_nonlocal.py" in str(e.value)
        assert "global" in str(e.value) or "nonlocal" in str(e.value)
