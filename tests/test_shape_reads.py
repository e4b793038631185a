"""compiler/optimize/shape_reads.py: a shape-only read of an elementwise result reads
its operand instead, so that a forward value only the shape of which the adjoint
needs is not computed.  Each gradient is checked against PyTorch and central
differences, each rewrite (or its absence) on the generated code."""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.rules.numpy.elementwise import logistic as logistic_kernel

torch = pytest.importorskip("torch")


def central(f, x, eps=1e-6):
    x = np.asarray(x, dtype=float)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


def code(g):
    """The generated statements of ``g`` (no comments: they quote the user's line)."""
    return "\n".join(line for line in g.source.splitlines()
                     if not line.strip().startswith(("#", '"""')))


def logistic_loss(w, X, y):
    return np.mean(np.logaddexp(0.0, -y * (X @ w)))


def sin_sum(x, a):
    return np.sum(np.sin(x * a))


def rebound(x):
    s = np.sin(x)
    x = x * 3.0                 # x is bound twice: s's shape is not read from it
    return np.sum(s) + np.sum(x)


def strong_scalar(x, c):
    return np.sum(np.multiply(x, c))     # c may be a NumPy float64: not a literal


rng = np.random.default_rng(5)
X = rng.standard_normal((40, 6))
Y = np.where(rng.standard_normal(40) > 0, 1.0, -1.0)
W = rng.standard_normal(6) * 0.3


def test_a_gradient_alone_does_not_compute_the_loss_it_only_needs_the_shape_of():
    g = sg.grad(logistic_loss, wrt=0)
    got = g(W, X, Y)
    assert "logaddexp(" not in code(g)
    np.testing.assert_allclose(got, central(lambda u: logistic_loss(u, X, Y), W), rtol=1e-6)
    tw = torch.tensor(W, requires_grad=True)
    m = -torch.tensor(Y) * (torch.tensor(X) @ tw)
    torch.logaddexp(torch.zeros(()), m).mean().backward()
    np.testing.assert_allclose(got, tw.grad.numpy(), rtol=1e-12)


def test_value_and_grad_still_gives_the_value():
    (value, grad) = sg.value_and_grad(logistic_loss, wrt=0)(W, X, Y)
    assert value == pytest.approx(logistic_loss(W, X, Y), rel=1e-14)
    np.testing.assert_allclose(grad, sg.grad(logistic_loss, wrt=0)(W, X, Y), rtol=1e-14)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dtypes_are_kept(dtype):
    args = (W.astype(dtype), X.astype(dtype), Y.astype(dtype))
    got = sg.grad(logistic_loss, wrt=0)(*args)
    assert got.dtype == dtype
    want = sg.grad(logistic_loss, wrt=0)(W, X, Y)
    np.testing.assert_allclose(got, want, rtol=1e-4 if dtype is np.float32 else 1e-12)


def test_a_zero_dimensional_operand():
    x = np.array(0.4)
    g = sg.grad(sin_sum, wrt=(0, 1))
    dx, da = g(x, 1.7)
    assert np.ndim(dx) == 0 and float(dx) == pytest.approx(1.7 * np.cos(0.4 * 1.7), rel=1e-12)
    assert da == pytest.approx(0.4 * np.cos(0.4 * 1.7), rel=1e-12)
    assert "np.sin(" not in code(g)


def test_no_rewrite_when_the_operand_is_bound_twice():
    x = rng.standard_normal(4)
    g = sg.grad(rebound)
    assert "np.sin(" in code(g)
    np.testing.assert_allclose(g(x), central(rebound, x), rtol=1e-6)


def test_no_rewrite_through_a_scalar_that_is_not_a_literal():
    x = rng.standard_normal(4).astype(np.float32)
    g = sg.grad(strong_scalar, wrt=0)
    for c in (0.5, np.float64(0.5)):
        got = g(x, c)
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, np.full(4, 0.5), rtol=1e-6)
    assert "sum_grad(dresult, multiply" in code(g)      # (not x's shape and dtype)


def test_logistic_kernel_is_exact_in_its_tails():
    d = np.array([-800.0, -40.0, -3.0, 0.0, 2.5, 40.0, 800.0])
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        got = logistic_kernel(d)
    want = torch.sigmoid(torch.tensor(d)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=0)
    for v in (-800.0, -3.0, 0.0, 2.5, 800.0):
        assert logistic_kernel(v) == pytest.approx(float(torch.sigmoid(torch.tensor(v, dtype=torch.float64))),
                                                   rel=1e-14, abs=0)
    assert logistic_kernel(np.float32(3.0)).dtype == np.float32


def test_only_ufuncs_that_keep_every_floating_type_qualify():
    from srcgrad.compiler.optimize.shape_reads import _keeps_type
    for u in (np.logaddexp, np.sin, np.exp, np.power, np.arctan2):
        assert _keeps_type(u), u
        for dt in (np.float16, np.float32, np.float64):
            args = [np.ones(2, dt)] * u.nin
            assert u(*args).dtype == dt
    for u in (np.float_power, np.absolute, np.greater, np.ldexp, np.frexp, np.sinc):
        assert not _keeps_type(u), u
    assert np.float_power(np.ones(2, np.float32), 2.0).dtype == np.float64


def float_power_mean(x):
    return np.mean(np.float_power(x, 2.0))


def test_float_power_of_float32_is_not_redirected():
    x = rng.standard_normal(5).astype(np.float32)
    g = sg.grad(float_power_mean)
    assert "float_power(" in code(g)
    np.testing.assert_allclose(g(x), 2.0 * x.astype(np.float64) / 5, rtol=1e-6)


# -- shape records in loops: ad.shape_of for numbers and arrays ----------------------

def broadcast_rnn(W, b, xs, h0, c):
    h = h0
    for t in range(xs.shape[0]):
        a = h @ W
        s = a + xs[t] * c      # a: only its shape is read by the adjoint (un-broadcast)
        h = np.tanh(s + b)
    return np.sum(h * h)


def test_a_loops_shape_records_use_shape_of_and_match_torch():
    rng = np.random.default_rng(3)
    W, b = rng.standard_normal((4, 4)) * 0.5, rng.standard_normal(4)
    xs, h0 = rng.standard_normal((5, 3, 4)), rng.standard_normal((3, 4))
    # (code for every shape: specialized to these shapes, the records are gone)
    g = sg.grad(broadcast_rnn, wrt=(0, 1, 4), specialize=False)
    dW, db, dc = g(W, b, xs, h0, 0.7)
    src = code(g)
    assert "ad.shape_of(a)" in src and "np.shape(" not in src
    special = sg.grad(broadcast_rnn, wrt=(0, 1, 4))
    for u, v in zip(special(W, b, xs, h0, 0.7), (dW, db, dc)):
        np.testing.assert_array_equal(u, v)
    assert "shape_of" not in code(special)
    tW, tb, tc = (torch.tensor(v, dtype=torch.float64, requires_grad=True)
                  for v in (W, b, 0.7))
    h = torch.tensor(h0)
    for t in range(xs.shape[0]):
        h = torch.tanh(h @ tW + torch.tensor(xs[t]) * tc + tb)
    (h * h).sum().backward()
    np.testing.assert_allclose(dW, tW.grad.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(db, tb.grad.numpy(), rtol=1e-12, atol=1e-12)
    assert dc == pytest.approx(float(tc.grad), rel=1e-12)
    np.testing.assert_allclose(db, central(lambda v: broadcast_rnn(W, v, xs, h0, 0.7), b),
                               rtol=1e-6, atol=1e-8)
