"""sg.memory_report: what the forward sweep keeps for the backward sweep, by line.

Each test computes the kept values independently with NumPy (the activations a
hand-written backward pass needs) and checks the report's values, bytes and lines
against them, and the total against tracemalloc's count of what the forward sweep
really left allocated.
"""
import inspect
import os
import subprocess
import sys
import tracemalloc

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.compiler.driver import reverse_function

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def line_of(func, text):
    """The file line of ``func`` whose source contains ``text``."""
    lines, first = inspect.getsourcelines(func)
    found = [first + i for i, s in enumerate(lines) if text in s]
    assert len(found) == 1, (text, found)
    return found[0]


def straight(x, w):
    y = np.tanh(x * w)
    return np.sum(y * y)


def rnn(W, xs, h0):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(h @ W + xs[t])
    return np.sum(h)


def mlp(W1, b1, W2, x, onehot):
    h = np.tanh(x @ W1 + b1)
    z = h @ W2
    p = np.exp(z) / np.sum(np.exp(z), axis=1, keepdims=True)
    return -np.sum(onehot * np.log(p))


def scalar_loop(x, a):
    for i in range(200):
        x = x + 0.01 * np.sin(a * x)
    return x


def arrays(entries):
    return [e for e in entries if e.how != "argument" and
            any(isinstance(v, np.ndarray) for v in e.values)]


def traced_kept(func, wrt, *args):
    """Bytes the forward sweep leaves allocated (what it returns to the backward sweep),
    by tracemalloc, and the arguments' kinds as sg.grad compiles them."""
    from srcgrad.api.gradients import _kind
    names = list(inspect.signature(func).parameters)
    fwd, _ = reverse_function(func, wrt, "split", {n: _kind(v) for n, v in zip(names, args)})
    fwd(*args)                       # (warm: nothing allocated once only is counted)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    out = fwd(*args)
    kept = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    del out
    return kept


def test_straight_line_keeps_the_tanh_output_at_its_line():
    x = np.linspace(-1, 1, 50)
    report = sg.memory_report(straight, x, 0.7, wrt="w")
    y = np.tanh(x * 0.7)
    tanh_line = line_of(straight, "y = np.tanh")
    kept = [e for e in report.entries if e.line == tanh_line]
    assert kept, str(report)
    assert any(np.array_equal(v, y) for e in kept for v in e.values), str(report)
    for e in arrays(report.entries):
        assert e.bytes == e.values[0].nbytes == x.nbytes
    x_entry = [e for e in report.entries if e.name == "x"]
    assert all(e.how == "argument" and e.bytes == 0 for e in x_entry)
    assert report.total_bytes == sum(e.bytes for e in report.entries) + report.overhead_bytes
    assert "y = np.tanh(x * w)" in str(report)


@pytest.mark.parametrize("trips", [10, 40])
def test_loop_pushes_scale_with_the_trip_count(trips):
    rng = np.random.default_rng(0)
    B, H = 4, 16
    W = rng.standard_normal((H, H)) * 0.3
    xs = rng.standard_normal((trips, B, H))
    h0 = rng.standard_normal((B, H))
    report = sg.memory_report(rnn, W, xs, h0, wrt="W")
    hs = [h0]                          # the hidden states, by hand
    for t in range(trips):
        hs.append(np.tanh(hs[-1] @ W + xs[t]))
    line = line_of(rnn, "h = np.tanh")
    pushed = [e for e in report.entries if e.how == "pushed" and e.line == line]
    states = [e for e in pushed if any(v is not None and np.shape(v) == (B, H) and
                                       np.allclose(v, hs[1]) for v in e.values)]
    assert len(states) == 1, str(report)
    e = states[0]
    assert e.count == trips
    for v, h in zip(e.values, hs[:-1]):
        np.testing.assert_allclose(v, h, rtol=1e-12)
    # the first push keeps h0, the caller's: the others are new arrays
    assert e.bytes == (trips - 1) * hs[1].nbytes
    assert e.per_iteration == pytest.approx(e.bytes / trips)


def test_loop_bytes_grow_linearly_with_trips():
    rng = np.random.default_rng(1)
    W = rng.standard_normal((8, 8)) * 0.3
    totals = []
    for trips in (20, 40, 80):
        xs = rng.standard_normal((trips, 2, 8))
        totals.append(sg.memory_report(rnn, W, xs, np.zeros((2, 8)), wrt=0).total_bytes)
    # per extra trip the same bytes: the differences are equal (to a list's growth step)
    d1, d2 = totals[1] - totals[0], (totals[2] - totals[1]) / 2
    assert d1 > 20 * 2 * 8 * 8          # at least one hidden state (2 x 8 floats) per trip
    assert d2 == pytest.approx(d1, rel=0.05)


def test_mlp_saved_bytes_are_the_activations_nbytes():
    rng = np.random.default_rng(2)
    n, d, hidden, k = 32, 20, 64, 10
    W1 = rng.standard_normal((d, hidden)) / np.sqrt(d)
    b1 = np.zeros(hidden)
    W2 = rng.standard_normal((hidden, k)) / np.sqrt(hidden)
    x = rng.standard_normal((n, d))
    onehot = np.eye(k)[rng.integers(0, k, n)]
    report = sg.memory_report(mlp, W1, b1, W2, x, onehot, wrt=(0, 1, 2))
    # every intermediate of the forward pass, by hand
    a = x @ W1
    h = np.tanh(a + b1)
    z = h @ W2
    e = np.exp(z)
    s = np.sum(e, axis=1, keepdims=True)
    p = e / s
    lg = np.log(p)
    hand = [a, a + b1, h, z, e, s, p, lg, onehot * lg]
    kept = arrays(report.entries)
    names = {k.name for k in kept}
    assert "h" in names and "p" in names, str(report)     # what tanh and log read back
    total = 0
    for k_ in kept:
        v = k_.values[0]
        match = [m for m in hand if m.shape == v.shape and np.allclose(m, v, rtol=1e-12)]
        assert match, (k_.name, str(report))
        assert k_.bytes == match[0].nbytes
        total += match[0].nbytes
    assert sum(k_.bytes for k_ in kept) == total
    small = report.total_bytes - total       # scalars, shapes, the record list's slots
    assert 0 <= small < 512, str(report)
    # tracemalloc sees the same bytes left allocated by the forward sweep
    traced = traced_kept(mlp, ("W1", "b1", "W2"), W1, b1, W2, x, onehot)
    assert abs(traced - report.total_bytes) < 0.05 * report.total_bytes + 1024, \
        (traced, report.total_bytes)
    assert report.total_bytes >= h.nbytes + p.nbytes


def test_scalar_loop_bytes_match_tracemalloc():
    report = sg.memory_report(scalar_loop, 0.3, 1.2, wrt="x")
    pushed = [e for e in report.entries if e.how == "pushed"]
    assert pushed and all(e.count == 200 for e in pushed), str(report)
    assert all(e.per_iteration <= 32 for e in pushed)     # a float: 24 bytes, or shared
    traced = traced_kept(scalar_loop, ("x",), 0.3, 1.2)
    assert abs(traced - report.total_bytes) < 0.1 * report.total_bytes + 512, \
        (traced, report.total_bytes)


def test_show_saved_with_args_prints_bytes_as_comments():
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    r = subprocess.run([sys.executable, "-m", "srcgrad", "show",
                        os.path.join(ROOT, "examples", "rnn.py") + ":rnn_loss", "--wrt",
                        "W,U,b", "--saved", "--args",
                        "(np.eye(8), np.ones((4, 8)), np.zeros(8), np.ones((5, 3, 4)), "
                        "np.zeros((3, 8)))"], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    tail = r.stdout.split("# saved for the backward sweep of rnn_loss (wrt W, U, b):")[1]
    assert "pushed x5" in tail and "float64 (3, 8)" in tail
    # 4 new hidden states (3 x 8 float64) pushed, the first is h0
    assert "768 B" in tail
    compile(r.stdout, "<shown>", "exec")
    bad = subprocess.run([sys.executable, "-m", "srcgrad", "show",
                          os.path.join(ROOT, "examples", "rnn.py") + ":rnn_loss", "--saved",
                          "--args", "(undefined_name,)"], capture_output=True, text=True,
                         env=env)
    assert bad.returncode == 1 and "NameError" in bad.stderr


def long_loop_from_two(x, a, b):
    for i in range(2, 10002):       # trips not numbered from 0: one appended float tape
        x = x + 0.0001 * (a * x - b * x * x)
    return x


def long_loop(x, a, b, n):
    for i in range(n):              # n an int: filled tapes, one slot a trip
        x = x + 0.0001 * (a * x - b * x * x)
    return x


@pytest.mark.parametrize("func, args", [(long_loop_from_two, (0.5, 1.0, 0.3)),
                                        (long_loop, (0.5, 1.0, 0.3, 10000))],
                         ids=["appended tape", "filled tapes"])
def test_float_tapes_are_reported_as_eight_bytes_a_push_and_their_spare_room(func, args):
    """A loop's float records are doubles in an ``array('d')``: 8 bytes a push, and
    the appended tape's spare room (it grows by about 1/16) is in overhead_bytes, so
    the total is what tracemalloc sees the forward sweep keep (within 2%)."""
    report = sg.memory_report(func, *args, wrt=("x", "a", "b"))
    pushed = [e for e in report.entries if e.how == "pushed"]
    assert pushed and all(e.count == 10000 and e.per_iteration == 8.0 for e in pushed), \
        str(report)
    traced = traced_kept(func, ("x", "a", "b"), *args)
    assert abs(traced - report.total_bytes) < 0.02 * traced, (traced, report.total_bytes)
