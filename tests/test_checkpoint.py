"""``max_memory=``: loops checkpointed to a budget (compiler/lower/checkpoint.py,
rules/checkpoint.py, runtime/revolve.py).  Gradients are compared bit for bit with the
plain loop's and with finite differences; memory by tracemalloc peaks, never wall time."""
import functools
import re
import tracemalloc

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.rules import checkpoint
from srcgrad.runtime import revolve


# -- the schedule ------------------------------------------------------------------

@functools.lru_cache(None)
def brute_force(n, s):
    """The fewest advances over every schedule (each split point tried)."""
    if n <= 1:
        return 0
    if s <= 1:
        return n * (n - 1) // 2
    return min(m + brute_force(n - m, s - 1) + brute_force(m, s) for m in range(1, n))


@pytest.mark.parametrize("s", [1, 2, 3, 4, 5])
def test_schedule_is_optimal_and_binomial(s):
    for n in range(1, 60):
        assert revolve.advances(n, s) == brute_force(n, s) == revolve.least_advances(n, s)


def test_repetitions_bound_the_steps_by_the_binomial():
    for s in range(1, 6):
        for n in range(1, 200):
            r = revolve.repetitions(n, s)
            assert revolve.beta(s, r - 1) < n <= revolve.beta(s, r)


# -- an RNN ------------------------------------------------------------------------

def rnn(W, U, xs, h0):
    h = h0
    for t in range(xs.shape[0]):
        a = W @ h + U @ xs[t]
        h = np.tanh(a)
    return np.sum(h * h)


def rnn_case(H, n, seed=0):
    r = np.random.default_rng(seed)
    return (r.normal(size=(H, H)) / np.sqrt(H), r.normal(size=(H, 3)),
            r.normal(size=(n, 3)), r.normal(size=H))


def peak(fn, *args):
    fn(*args)                                   # compiled before measuring
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    out = fn(*args)
    top = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return top, out


def finite_differences(f, args, i, eps=1e-6):
    x = args[i]
    g = np.zeros_like(x)
    for j in np.ndindex(x.shape):
        up, down = [a.copy() for a in args], [a.copy() for a in args]
        up[i][j] += eps
        down[i][j] -= eps
        g[j] = (f(*up) - f(*down)) / (2 * eps)
    return g


@pytest.mark.parametrize("budget", [10 ** 9, 20000, 8000, 4000])
def test_rnn_gradient_bit_for_bit(budget):
    args = rnn_case(8, 60)
    plain = sg.grad(rnn, wrt=(0, 1, 2, 3))(*args)
    saved = sg.grad(rnn, wrt=(0, 1, 2, 3), max_memory=budget)(*args)
    for a, b in zip(plain, saved):
        assert a.dtype == b.dtype and np.array_equal(a, b)


def test_rnn_gradient_against_finite_differences():
    args = rnn_case(4, 30, seed=1)
    grads = sg.grad(rnn, wrt=(0, 1, 3), max_memory=3000)(*args)
    assert checkpoint.LAST["kind"] == "revolve"
    for g, i in zip(grads, (0, 1, 3)):
        np.testing.assert_allclose(g, finite_differences(rnn, list(args), i), rtol=1e-6,
                                   atol=1e-8)


def test_rnn_against_torch():
    torch = pytest.importorskip("torch")
    args = rnn_case(6, 40, seed=2)
    grads = sg.grad(rnn, wrt=(0, 1), max_memory=3000)(*args)
    W, U, xs, h0 = [torch.tensor(a, requires_grad=True) for a in args]
    h = h0
    for t in range(xs.shape[0]):
        h = torch.tanh(W @ h + U @ xs[t])
    (h * h).sum().backward()
    np.testing.assert_allclose(grads[0], W.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(grads[1], U.grad.numpy(), rtol=1e-12)


def test_rnn_memory_under_the_budget_and_recomputation_as_the_theory_says():
    args = rnn_case(32, 1000)
    wrt = (0, 1, 3)
    plain_peak, plain = peak(sg.grad(rnn, wrt=wrt), *args)
    # what does not grow with the loop: the cotangents, one step's records
    fixed, _ = peak(sg.grad(rnn, wrt=wrt), *(args[:2] + (args[2][:1], args[3])))
    budget = plain_peak // 20
    saved_peak, saved = peak(sg.grad(rnn, wrt=wrt, max_memory=budget), *args)
    for a, b in zip(plain, saved):
        assert np.array_equal(a, b)
    # beside the budget, a step's adjoint holds up to three arrays per gradient (the
    # running total, the step's contribution, their sum)
    grads = sum(g.nbytes for g in saved)
    assert saved_peak - fixed <= budget + 3 * grads
    assert plain_peak - fixed > 8 * (saved_peak - fixed)
    last = checkpoint.LAST
    n, s = last["steps"], last["snapshots"]
    assert last["kind"] == "revolve" and n == 1000
    # every step runs once in the forward sweep and once with records in the reverse
    # (the first also with records, to measure them); the other runs are the schedule's
    assert last["recorded"] == n + 1
    spine = 0
    p, left = 0, s
    while n - p >= 2 and left >= 2:
        p, left = p + revolve.split(n - p, left), left - 1
    spine = p
    assert last["advanced"] + spine == revolve.least_advances(n, s)
    assert (n + last["advanced"] + last["recorded"]) / n <= 4


def test_budget_below_one_step_is_an_error_naming_the_loop():
    with pytest.raises(MemoryError, match=r"test_checkpoint.py:\d+: max_memory=10 bytes"):
        sg.grad(rnn, wrt=0, max_memory=10)(*rnn_case(4, 10))


def test_value_and_grad_and_vjp():
    args = rnn_case(5, 25)
    v0, g0 = sg.value_and_grad(rnn, wrt=0)(*args)
    v1, g1 = sg.value_and_grad(rnn, wrt=0, max_memory=2500)(*args)
    assert v0 == v1 and np.array_equal(g0, g1)
    out0, back0 = sg.vjp(rnn, *args, wrt=(0, 3))
    out1, back1 = sg.vjp(rnn, *args, wrt=(0, 3), max_memory=2500)
    assert out0 == out1
    for a, b in zip(back0(1.5), back1(1.5)):
        assert np.array_equal(a, b)


def test_one_compiled_derivative_serves_every_budget_apart_from_the_plain_one():
    args = rnn_case(4, 12)
    plain = sg.grad(rnn, wrt=0)
    plain(*args)
    a, b = sg.grad(rnn, wrt=0, max_memory=2000), sg.grad(rnn, wrt=0, max_memory=10 ** 6)
    a(*args), b(*args)
    assert "checkpointed_for" in a.source and "checkpointed_for" not in plain.source
    assert a._last.__code__ is b._last.__code__


# -- an ODE loop: a while loop of unknown length, scalar state -----------------------

def euler(k, y0, t_end):
    y = y0
    t = 0.0
    dt = 0.01
    while t < t_end:
        y = y + dt * (-k * y + np.sin(t) * y * y)
        t = t + dt
    return y


@pytest.mark.parametrize("budget", [10 ** 6, 4000, 1500, 900])
def test_ode_while_loop_bit_for_bit(budget):
    plain = sg.grad(euler, wrt=(0, 1))(0.7, 0.5, 3.0)
    saved = sg.grad(euler, wrt=(0, 1), max_memory=budget)(0.7, 0.5, 3.0)
    assert plain == saved
    # (all 300 trips' records fit in a megabyte: kept, nothing computed again)
    assert checkpoint.LAST["kind"] == ("records" if budget == 10 ** 6 else "online")
    eps = 1e-6
    fd = (euler(0.7 + eps, 0.5, 3.0) - euler(0.7 - eps, 0.5, 3.0)) / (2 * eps)
    assert abs(saved[0] - fd) < 1e-6 * max(1.0, abs(fd))


def test_ode_while_loop_memory():
    t_end = 20.0       # 2000 steps
    plain_peak, plain = peak(sg.grad(euler, wrt=(0, 1)), 0.7, 0.5, t_end)
    fixed, _ = peak(sg.grad(euler, wrt=(0, 1)), 0.7, 0.5, 0.005)
    budget = plain_peak // 20
    saved_peak, saved = peak(sg.grad(euler, wrt=(0, 1), max_memory=budget), 0.7, 0.5, t_end)
    assert plain == saved
    assert saved_peak - fixed <= budget
    assert plain_peak - fixed > 8 * (saved_peak - fixed)
    assert checkpoint.LAST["steps"] == 2000


# -- loops that cannot be checkpointed: refused at their line -------------------------

def with_break(x):
    s = 0.0
    for i in range(10):
        s = s + x * i
        if s > 5.0:
            break
    return s


def with_append(x):
    out = []
    s = x
    for i in range(3):
        s = s * x
        out.append(s)
    return out[-1]


def over_a_list(xs):
    s = 0.0
    for x in xs:
        s = s + x
    return s


@pytest.mark.parametrize("f, arg, what", [
    (with_break, 1.0, "'break'"), (with_append, 1.0, "writes into 'out'"),
    (over_a_list, [1.0, 2.0], "range"),
])
def test_refused_at_the_users_line(f, arg, what):
    with pytest.raises(sg.UnsupportedSyntaxError) as e:
        sg.grad(f, max_memory=10 ** 6)(arg)
    assert what in str(e.value) and "test_checkpoint.py" in str(e.value)
    assert sg.grad(f)(arg) is not None          # without max_memory, as before


# -- more shapes of loops ---------------------------------------------------------------

def two_loops_nested_and_counted(w, xs):
    s = 0.0
    count = 0
    for i in range(xs.shape[0]):
        row = 0.0
        for j in range(xs.shape[1]):
            row = row + np.sin(w * xs[i, j])
        if row > 0:
            s = s + row * w
            count = count + 1
        else:
            s = s - row
    p = s
    for k in range(4):
        p = p * w + k
    return p + count


def test_nested_and_sequential_loops_with_an_integer_carried():
    xs = np.random.default_rng(3).normal(size=(30, 5))
    plain = sg.grad(two_loops_nested_and_counted, wrt=0)(0.8, xs)
    saved = sg.grad(two_loops_nested_and_counted, wrt=0, max_memory=1500)(0.8, xs)
    assert plain == saved
    src = sg.source(two_loops_nested_and_counted, wrt=0, max_memory=1500)
    assert len(re.findall(r"^ +\w+ = checkpointed_for\(", src, re.M)) == 2
    eps = 1e-6
    fd = (two_loops_nested_and_counted(0.8 + eps, xs) -
          two_loops_nested_and_counted(0.8 - eps, xs)) / (2 * eps)
    assert abs(saved - fd) < 1e-6 * max(1.0, abs(fd))


def test_forward_mode_has_no_budget():
    with pytest.raises(TypeError, match="max_memory"):
        sg.jvp(rnn, rnn_case(2, 3), rnn_case(2, 3), max_memory=100)


def growing(x):
    hs = x
    for i in range(40):
        hs = np.concatenate([hs, np.sin(hs[-1:] * x[0])])
    return np.sum(hs)


def test_carried_values_that_grow_past_the_budget_are_an_error():
    x = np.array([0.3, 0.5])
    assert np.isclose(sg.grad(growing, max_memory=10 ** 6)(x), sg.grad(growing)(x)).all()
    with pytest.raises(MemoryError, match="grow from trip to trip"):
        sg.grad(growing, max_memory=3000)(x)


def in_a_branch_with_aux(w, n, flag):
    s = w
    if flag:
        for i in range(n):
            s = np.sin(s) * w + 0.1
    return np.sum(s), n


def test_loop_inside_a_branch_and_has_aux():
    w = np.array([0.4, 0.7, 1.1])
    plain = sg.grad(in_a_branch_with_aux, wrt=0, has_aux=True)(w, 50, True)
    saved = sg.grad(in_a_branch_with_aux, wrt=0, has_aux=True, max_memory=2000)(w, 50, True)
    assert np.array_equal(plain[0], saved[0]) and plain[1] == saved[1] == 50
    assert checkpoint.LAST["kind"] == "revolve"


def test_records_that_outgrow_the_budget_fall_back_to_snapshots():
    x = np.array([0.3, 0.5])
    # the first step's records and state (952 bytes) times 40 fit in 44,000 bytes; the
    # later, longer ones do not (50,560 in all)
    saved = sg.grad(growing, max_memory=44000)(x)
    assert checkpoint.LAST["kind"] == "revolve"
    assert checkpoint.LAST["recorded"] > 40 + 1         # (the steps recorded before)
    assert np.array_equal(saved, sg.grad(growing)(x))


# -- the rewrite itself (compiler/lower/checkpoint.py): what a loop carries and reads ----

def carries_two_reads_three(x, w, n):
    h, c = x, 0.0
    tmp = 1.0
    for i in range(n):
        tmp = h * w            # assigned before read: a temporary, not carried
        c = c + tmp
        h = np.sin(tmp)
    return c + h * w


def while_reads_its_test(y, limit):
    t = 0.0
    while t < limit:
        y = y * 0.9 + t
        t = t + 0.25
    return y


@pytest.mark.parametrize("f, line", [
    (carries_two_reads_three,
     "c, h, w = checkpointed_for(carries_two_reads_three_loop_line{}, range(n), (c, h), "
     "(w,), max_memory)"),
    (while_reads_its_test,
     "y, t = checkpointed_while(while_reads_its_test_loop_line{}_test, "
     "while_reads_its_test_loop_line{}, (y, t), (limit,), max_memory)"),
])
def test_rewrite_carries_and_reads(f, line):
    import inspect
    import linecache
    from srcgrad.compiler.lower.checkpoint import checkpointed
    src, first = inspect.getsourcelines(f)
    loop = first + next(i for i, s in enumerate(src) if s.lstrip().startswith(("for", "while")))
    g = checkpointed(f, 10 ** 6)
    text = linecache.getlines(g.__code__.co_filename)
    assert text[loop - 1].strip() == line.format(loop, loop)       # on the loop's own line
    # the statements before the loop on their lines too (as ast.unparse writes them)
    import ast
    same = [ast.dump(ast.parse(a.strip())) == ast.dump(ast.parse(b.strip()))
            for a, b in zip(text[first:loop - 1], src[1:loop - first])]
    assert same and all(same)


class Model:
    def __init__(self, n):
        self.n = n

    def loss(self, w, x):
        s = x
        for i in range(self.n):
            s = np.cos(s * w)
        return s


def test_bound_method_and_derivative_of_derivative():
    m = Model(30)
    assert sg.grad(m.loss, wrt=0)(0.7, 0.3) == sg.grad(m.loss, wrt=0, max_memory=1500)(0.7, 0.3)
    with pytest.raises(TypeError, match="max_memory"):
        sg.grad(sg.grad(m.loss), max_memory=1000)


def make_lstm_like(scale):
    def loss(params, xs):
        state = (np.zeros(3), np.zeros(3))
        for t in range(xs.shape[0]):
            h, c = state
            gate = np.tanh(params["W"] @ h + xs[t] * scale)
            c = c * 0.5 + gate
            state = (np.tanh(c) * params["b"], c)
        return np.sum(state[0] ** 2) + np.sum(state[1])
    return loss


def test_closure_container_carry_and_dict_reads():
    r = np.random.default_rng(5)
    params = {"W": r.normal(size=(3, 3)) * 0.5, "b": r.normal(size=3)}
    xs = r.normal(size=(40, 3))
    loss = make_lstm_like(0.7)
    plain = sg.grad(loss, wrt=0)(params, xs)
    saved = sg.grad(loss, wrt=0, max_memory=4000)(params, xs)
    assert checkpoint.LAST["kind"] == "revolve"
    for k in params:
        assert np.array_equal(plain[k], saved[k])
    eps = 1e-6
    up = dict(params, W=params["W"].copy())
    up["W"][1, 2] += eps
    down = dict(params, W=params["W"].copy())
    down["W"][1, 2] -= eps
    assert abs(saved["W"][1, 2] - (loss(up, xs) - loss(down, xs)) / (2 * eps)) < 1e-6
