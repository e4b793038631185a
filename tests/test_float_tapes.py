"""Float tapes (compiler/modes/float_tapes.py): a loop's Python-float records kept in
an ``array('d')`` instead of a list of float objects.

Each gradient is checked bit for bit against the same code compiled with the tapes
off (the main stack holding the objects), and against central differences; the
memory kept per step is measured with tracemalloc (no timing here).
"""
import tracemalloc

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.compiler import driver
from srcgrad.compiler.modes import records


def central(f, x, eps=1e-6):
    return (f(x + eps) - f(x - eps)) / (2 * eps)


def euler(x, a, b):
    dt = 0.01
    for i in range(100):
        x = x + dt * (a * x - b * x * x)
    return x


def long_euler(x, a, b):
    dt = 0.0001
    for i in range(10000):
        x = x + dt * (a * x - b * x * x)
    return x


def accumulate(x, w):
    acc = 0.0
    for i in range(30):
        acc = acc + w * x / (i + 1.0)
        x = x * 0.97 - 0.01 * i
    return acc * x


def big_counter(x, k):
    for i in range(70):
        k = k * 3 + 1          # an int past 2**53: a float tape would round it
        x = x * (1.0 + (k % 7) * 0.01)
    return x


def nested(x, a):
    for i in range(5):
        y = x * a
        for j in range(3):
            y = y * 0.9 + a
        x = x + 0.1 * y
    return x


def no_trips(x, a, n):
    for i in range(n):
        x = x * a + 0.5
    return x * x


def skips(x, a):
    for i in range(40):
        if i % 3 == 0:
            continue        # some trips save nothing: the shared tape, appended
        x = x * a + 0.1
    return x


def offset(x, a):
    for i in range(2, 40):  # trips not numbered from 0: the shared tape, appended
        x = x * a + 0.01
    return x


def counter_read(x, a, n):
    y = 0.0
    for i in range(n):      # each slot written at i, the counter also read
        y = y + x * i
        x = x * a - 0.01
    return x * y


CASES = [(euler, (0.5, 1.0, 0.3)), (accumulate, (0.7, 1.3)), (big_counter, (0.3, 7)),
         (nested, (0.4, 0.8)), (no_trips, (0.4, 0.8, 0)), (no_trips, (0.4, 0.8, 6)),
         (skips, (0.5, 0.9)), (offset, (0.5, 0.9)), (counter_read, (0.5, 0.9, 25))]


@pytest.fixture(autouse=True)
def every_loop_long(monkeypatch):
    """Tapes for loops of any length here (runtime/tapes.py's MIN_TRIPS: 0), so that
    the short loops below run through the array."""
    from srcgrad.runtime import tapes
    monkeypatch.setattr(tapes, "MIN_TRIPS", 0)


def _without_tapes(monkeypatch):
    driver._CACHE.clear()
    monkeypatch.setattr(records.ForwardSweep, "float_tapes", lambda self, loop, depth: None)


@pytest.mark.parametrize("f, args", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_gradients_are_bit_for_bit_those_of_the_stack(f, args, monkeypatch):
    wrt = tuple(i for i, a in enumerate(args) if type(a) is float)
    with_tapes = sg.grad(f, wrt=wrt)(*args)
    _without_tapes(monkeypatch)
    without = sg.grad(f, wrt=wrt)(*args)
    assert type(with_tapes) is type(without)
    for u, v in zip(with_tapes, without):
        assert type(u) is type(v) and u == v
    for k, i in enumerate(wrt):
        def fi(v, i=i):
            a = list(args)
            a[i] = v
            return f(*a)
        assert with_tapes[k] == pytest.approx(central(fi, args[i]), rel=1e-6, abs=1e-9)


def test_the_euler_loop_saves_onto_a_float_tape():
    g = sg.grad(euler, wrt=(0, 1, 2))
    g(0.5, 1.0, 0.3)
    src = g.source
    # trips numbered from 0, one save a trip: a tape of its own per saved name, allocated
    # at its size and written by the counter
    assert "x_tape = ad.filled_tape(range(100), a, b, x)" in src and "x_tape[i] = x" in src
    # and read back by the counter of the reversed loop (an index, no pop)
    assert "x = x_tape[i]" in src and ".pop()" not in src
    assert "stack" not in src and ".append(" not in src


def test_a_backward_sweep_run_twice_reads_the_filled_tapes_again():
    """The split form's backward reads its filled tapes by index and leaves them as
    they are: a second vjp_fn call gives the same gradients."""
    out, vjp_fn = sg.vjp(euler, 0.5, 1.0, 0.3)
    first = vjp_fn(1.0)
    assert vjp_fn(1.0) == first
    assert vjp_fn(2.0) == tuple(2.0 * g for g in first)
    want = sg.grad(euler, wrt=(0, 1, 2))(0.5, 1.0, 0.3)
    assert first == pytest.approx(want, rel=1e-15)


def test_trips_not_numbered_from_zero_append_to_one_tape():
    src = _source(offset, (0.5, 0.9))
    assert "ad.float_tape(range(2, 40), a, x)" in src and "tape.append(x)" in src
    assert "filled_tape" not in src
    assert "filled_tape" not in _source(skips, (0.5, 0.9))     # (a trip may save nothing)
    assert "x_tape[i] = x" in _source(counter_read, (0.5, 0.9, 25))


def _source(f, args):
    driver._CACHE.clear()       # (code compiled with the tapes off by a test before)
    g = sg.grad(f, wrt=(0, 1))
    g(*args)
    return g.source


def test_an_int_record_is_never_taped():
    g = sg.grad(big_counter, wrt=0)
    assert "tape.append(k)" not in g.source
    want, k = 1.0, 7
    for _ in range(70):
        k = k * 3 + 1
        want *= 1.0 + (k % 7) * 0.01
    assert g(0.3, 7) == pytest.approx(want, rel=1e-13)


def test_the_tape_is_an_array_of_doubles_only_for_python_floats():
    from array import array
    from srcgrad.runtime import float_tape, tapes
    steps = range(5)
    assert type(float_tape(steps, 1.0, 2.5)) is array
    assert float_tape(steps, 1.0, 2.5).typecode == "d"
    for other in (np.float64(2.0), 2, True, 2.0 + 0j, np.array(2.0)):
        assert float_tape(steps, 1.0, other) == []


def test_a_short_loop_keeps_its_list(monkeypatch):
    """Below MIN_TRIPS trips the list's faster append and pop win over the memory."""
    from srcgrad.runtime import float_tape, tapes
    monkeypatch.setattr(tapes, "MIN_TRIPS", 2048)
    assert float_tape(range(2047), 1.0) == [] and len(float_tape(range(2048), 1.0)) == 0
    assert type(float_tape(range(2048), 1.0)) is not list


@pytest.mark.parametrize("a", [np.float64(1.0), 1, 1.0 + 0.5j], ids=["np.float64", "int",
                                                                     "complex"])
def test_parameters_that_are_not_python_floats_keep_their_objects(a, monkeypatch):
    """ad.float_tape sees a parameter that is not a Python float and gives a list."""
    def run():
        out, vjp_fn = sg.vjp(euler, 0.5, a, 0.3, wrt=0)
        return out, vjp_fn(1.0)
    got = run()
    _without_tapes(monkeypatch)
    want = run()
    assert type(got[0]) is type(want[0]) and got[0] == want[0]
    assert type(got[1]) is type(want[1]) and got[1] == want[1]


def test_second_derivatives_through_a_taped_loop(monkeypatch):
    args = (0.5, 1.0, 0.3)
    h = sg.hessian(euler, wrt=0)(*args)
    gg = sg.grad(sg.grad(euler, wrt=0), wrt=0)(*args)
    hv = sg.hvp(euler, wrt=0)(*args, v=1.0)
    first = sg.grad(euler, wrt=0)
    fd = central(lambda v: first(v, 1.0, 0.3), 0.5)
    for value in (h, gg, hv):
        assert float(np.asarray(value)) == pytest.approx(fd, rel=1e-6)
    _without_tapes(monkeypatch)
    assert sg.grad(sg.grad(euler, wrt=0), wrt=0)(*args) == gg
    assert float(np.asarray(sg.hvp(euler, wrt=0)(*args, v=1.0))) == \
        float(np.asarray(hv))


def _peak(fn):
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    fn()
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return peak


def test_a_long_scalar_loop_keeps_two_doubles_per_step(monkeypatch):
    g = sg.grad(long_euler, wrt=0)
    g(0.5, 1.0, 0.3)
    per_step = _peak(lambda: g(0.5, 1.0, 0.3)) / 10000
    assert per_step <= 16.2             # two unboxed doubles, allocated at their size
    _without_tapes(monkeypatch)
    stack = sg.grad(long_euler, wrt=0)
    stack(0.5, 1.0, 0.3)
    assert _peak(lambda: stack(0.5, 1.0, 0.3)) / 10000 >= 60    # two boxed floats


def test_memory_report_counts_the_tapes_doubles():
    report = sg.memory_report(long_euler, 0.5, 1.0, 0.3, wrt=0)
    pushed = [e for e in report.entries if e.how == "pushed"]
    assert sorted(e.name for e in pushed) == ["mul1", "x"]      # b * x, and x
    assert sum(e.bytes for e in pushed) == 2 * 8 * 10000      # two doubles a trip
    assert report.total_bytes < 2 * 8 * 10000 + 1000         # (and a few values once)


def euler_n(x, a, b, n):
    for i in range(n):
        x = x + 0.0001 * (a * x - b * x * x)
    return x


def test_an_int_trip_count_parameter_keeps_the_tapes(monkeypatch):
    """``n`` (an int) is read by ``range(n)`` only: the proof that the records are
    floats does not lean on it, so the tapes are arrays of doubles (before: the
    runtime check saw an int among the assumed floats and kept boxed floats in
    lists, 64 B a step)."""
    from srcgrad.runtime import tapes
    monkeypatch.setattr(tapes, "MIN_TRIPS", 2048)
    args = (0.5, 1.0, 0.3, 10000)
    g = sg.grad(euler_n, wrt=(0, 1, 2))
    got = g(*args)
    assert _peak(lambda: g(*args)) / 10000 <= 16.2
    report = sg.memory_report(euler_n, *args, wrt=(0, 1, 2))
    pushed = [e for e in report.entries if e.how == "pushed"]
    assert sorted((e.name, e.per_iteration) for e in pushed) == [("mul1", 8.0), ("x", 8.0)]
    assert report.total_bytes < 2 * 8 * 10000 + 1000
    for i in range(3):
        def f(v, i=i):
            a = list(args)
            a[i] = v
            return euler_n(*a)
        assert got[i] == pytest.approx(central(f, args[i]), rel=1e-6)
    _without_tapes(monkeypatch)
    assert sg.grad(euler_n, wrt=(0, 1, 2))(*args) == got      # bit for bit
