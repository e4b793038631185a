"""Generator functions a differentiated function iterates over: differentiated as the
list of what they yield (computed eagerly), in both modes."""
import numpy as np
import pytest

import srcgrad as sg
from gradcheck_util import numeric_grad, assert_close


def batches(X, size):
    for i in range(0, len(X), size):
        yield X[i:i + size]


def batch_loss(w, X):
    total = 0.0
    for Xb in batches(X, 2):
        total = total + np.sum(np.tanh(Xb @ w) ** 2)
    return total


def layers(params):
    for W, b in params:
        yield W, b


def chained(params):
    yield from layers(params[:1])
    yield params[1]


def mlp(params, x):
    h = x
    for W, b in chained(params):
        h = np.tanh(h @ W + b)
    return np.sum(h)


def until_small(x):
    while True:
        if np.sum(x * x) < 0.1:
            return
        yield x
        x = x * 0.5


def shrink_sum(x):
    return np.sum(sum(until_small(x)))


def nested_generator(x):
    def powers(v, n):
        p = v
        for _ in range(n):
            yield p
            p = p * v
    return np.sum(list(powers(x, 3))[2] + sum(powers(x, 2)))


R = np.random.default_rng(0)
X = R.standard_normal((5, 3))
W = R.standard_normal(3)
PARAMS = [(R.standard_normal((3, 4)) * 0.5, R.standard_normal(4)),
          (R.standard_normal((4, 2)) * 0.5, R.standard_normal(2))]
CASES = [(batch_loss, (W, X), 0), (mlp, (PARAMS, X[:2]), 0),
         (shrink_sum, (np.array([0.9, -0.7]),), 0), (nested_generator, (np.array([0.5, 1.2]),), 0)]


@pytest.mark.parametrize("f, args, i", CASES, ids=[c[0].__name__ for c in CASES])
def test_reverse_mode(f, args, i):
    assert_close(sg.grad(f, wrt=i)(*args), numeric_grad(f, args, i))


@pytest.mark.parametrize("f, args, i", CASES[:1] + CASES[2:],
                         ids=[c[0].__name__ for c in CASES[:1] + CASES[2:]])
def test_forward_mode(f, args, i):
    t = np.linspace(0.3, 1.0, np.size(args[i])).reshape(np.shape(args[i]))
    tangents = tuple(t if j == i else np.zeros_like(a) for j, a in enumerate(args))
    _, dout = sg.jvp(f, args, tangents)
    np.testing.assert_allclose(dout, np.sum(sg.grad(f, wrt=i)(*args) * t), rtol=1e-8)


def forever(x):
    while True:
        yield x


def endless(x):
    for v in forever(x):
        return np.sum(v)


def test_an_endless_generator_is_refused_at_its_line():
    with pytest.raises(sg.UnsupportedSyntaxError, match="never ends") as e:
        sg.grad(endless)(np.ones(2))
    assert "test_generators.py" in str(e.value)


def coroutine(x):
    got = yield x
    yield got


def uses_coroutine(x):
    return np.sum(sum(coroutine(x)))


def test_yield_as_a_value_is_refused():
    with pytest.raises(sg.UnsupportedSyntaxError, match="yield"):
        sg.grad(uses_coroutine)(np.ones(2))


def test_a_generator_function_itself_is_refused_at_its_yield():
    for transform in (lambda: sg.grad(forever)(np.ones(2)),
                      lambda: sg.jvp(forever, (np.ones(2),), (np.ones(2),))):
        with pytest.raises(sg.UnsupportedSyntaxError, match="generator function") as e:
            transform()
        assert e.value.lineno == forever.__code__.co_firstlineno + 2


def reversed_sequences(x, W):
    hs = [np.tanh(x * k) for k in (1.0, 2.0, 3.0)]
    back = list(reversed(hs))
    rows = [r for r in reversed(W)]                # an array's rows, last first
    return np.sum(np.stack(back) * np.stack(rows)) + np.sum(tuple(reversed((x, 2 * x)))[0])


def test_reversed_as_a_value_in_both_modes():
    x, W = np.array([0.3, -0.4]), np.arange(6.0).reshape(3, 2) / 5
    got = sg.grad(reversed_sequences, wrt=(0, 1))(x, W)
    for i in (0, 1):
        assert_close(got[i], numeric_grad(reversed_sequences, (x, W), i))
    t = np.array([0.5, 1.5])
    _, dout = sg.jvp(reversed_sequences, (x, W), (t, np.zeros_like(W)))
    np.testing.assert_allclose(dout, np.sum(got[0] * t), rtol=1e-8)
