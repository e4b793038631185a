"""sigmoid, gelu, softplus, silu, mish and logsigmoid record ONE node each, named as
PyTorch names it, with an edge to the input; the values the node saves keep PyTorch's
in-place checks (sigmoid saves its result, the others their input), and the first and
second derivatives match central differences and, when it is installed, torch."""
import numpy as np
import pytest

import srcgrad as sg

try:
    import torch
except ImportError:          # pragma: no cover - torch is installed in the test venv
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")

ACTS = {
    "sigmoid": (lambda L, x: L.sigmoid(x), "SigmoidBackward0", "result"),
    "gelu": (lambda L, x: L.nn.functional.gelu(x), "GeluBackward0", "input"),
    "gelu_tanh": (lambda L, x: L.nn.functional.gelu(x, approximate="tanh"), "GeluBackward0",
                  "input"),
    "softplus": (lambda L, x: L.nn.functional.softplus(x, beta=2.0, threshold=3.0),
                 "SoftplusBackward0", "input"),
    "silu": (lambda L, x: L.nn.functional.silu(x), "SiluBackward0", "input"),
    "mish": (lambda L, x: L.nn.functional.mish(x), "MishBackward0", "input"),
    "logsigmoid": (lambda L, x: L.nn.functional.logsigmoid(x), "LogSigmoidBackward0", "input"),
}
XS = [0.3, -1.2, 2.0, 0.05, 1.7, -3.1]
W = [1.0, 2.0, -0.5, 0.7, 1.3, -1.1]


def _derivatives(L, f):
    x = L.tensor(XS, dtype=L.float64, requires_grad=True)
    w = L.tensor(W, dtype=L.float64)
    y = f(L, x)
    g, = L.autograd.grad((y * w).sum(), x, create_graph=True)
    h, = L.autograd.grad((g * w).sum(), x)
    return np.array(y.tolist()), np.array(g.tolist()), np.array(h.tolist())


def _inplace(L, f, which):
    """backward after changing the node's result or its input in place: the message, or
    None and the gradient."""
    x = L.tensor(XS, dtype=L.float64, requires_grad=True)
    xi = x * 1
    y = f(L, xi)
    (y if which == "result" else xi).add_(1)
    try:
        y.sum().backward()
    except RuntimeError as e:
        return str(e), None
    return None, np.array(x.grad.tolist())


def _value(f, xs):
    return np.array(f(sg, sg.tensor(xs, dtype=sg.float64)).tolist())


@pytest.mark.parametrize("act", ACTS)
def test_one_node_named_as_pytorch(act):
    f, name, _ = ACTS[act]
    x = sg.tensor(XS, dtype=sg.float64, requires_grad=True)
    node = f(sg, x).grad_fn
    assert type(node).__name__ == name and node.name() == name
    (nxt, k), = node.next_functions
    assert nxt is x.grad_fn or type(nxt).__name__ == "AccumulateGrad"
    assert k == 0 and nxt.variable is x


@pytest.mark.parametrize("act", ACTS)
def test_saved_value_changed_in_place_raises(act):
    f, name, saved = ACTS[act]
    msg, _ = _inplace(sg, f, saved)
    assert msg is not None, "backward ran after a saved value changed in place"
    assert "modified by an inplace operation" in msg
    assert "is at version 1; expected version 0 instead" in msg
    if saved == "result":
        assert "[torch.DoubleTensor [6]], which is output 0 of Sigmoid," in msg
    else:                       # the input, named by its grad_fn now (add_'s)
        assert "[torch.DoubleTensor [6]], which is output 0 of Add," in msg


@pytest.mark.parametrize("act", [a for a in ACTS if ACTS[a][2] == "input"])
def test_result_changed_in_place_keeps_the_gradient(act):
    """PyTorch's node saves the input: changing the result does not change the gradient."""
    f = ACTS[act][0]
    msg, grad = _inplace(sg, f, "result")
    assert msg is None
    eps = 1e-6
    xs = np.array(XS)
    fd = (_value(f, xs + eps) - _value(f, xs - eps)) / (2 * eps)
    np.testing.assert_allclose(grad, fd, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("act", ACTS)
def test_derivatives_against_central_differences(act):
    f = ACTS[act][0]
    y, g, h = _derivatives(sg, f)
    xs, w, eps = np.array(XS), np.array(W), 1e-5
    np.testing.assert_allclose(y, _value(f, xs), rtol=0, atol=0)

    def grad_at(v):
        x = sg.tensor(v, dtype=sg.float64, requires_grad=True)
        (f(sg, x) * sg.tensor(W, dtype=sg.float64)).sum().backward()
        return np.array(x.grad.tolist())
    fd1 = (_value(f, xs + eps) - _value(f, xs - eps)) / (2 * eps) * w
    np.testing.assert_allclose(g, fd1, rtol=1e-7, atol=1e-9)
    fd2 = (grad_at(xs + eps) - grad_at(xs - eps)) / (2 * eps) * w
    np.testing.assert_allclose(h, fd2, rtol=1e-6, atol=1e-8)


@needs_torch
@pytest.mark.parametrize("act", ACTS)
def test_against_torch(act):
    f, _, saved = ACTS[act]
    for ours, theirs in zip(_derivatives(sg, f), _derivatives(torch, f)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-14, atol=1e-15)
    x, xt = (L.tensor(XS, dtype=L.float64, requires_grad=True) for L in (sg, torch))
    names = [[type(n).__name__ if n is not None else None for n, _ in f(L, v).grad_fn
              .next_functions] for L, v in ((sg, x), (torch, xt))]
    assert names[0] == names[1]
    for which in ("result", "input"):
        (m1, g1), (m2, g2) = _inplace(sg, f, which), _inplace(torch, f, which)
        assert m1 == m2
        if g2 is not None:
            np.testing.assert_allclose(g1, g2, rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_logsigmoid_exact_at_large_arguments(dtype):
    """min(x, 0) - log1p(exp(-|x|)), PyTorch's formula: -softplus(-x) lost the
    log1p(exp(-30)) of logsigmoid(-30) in float64 (-30.0 for -30.000000000000092)."""
    xs = [-800.0, -30.0, 0.0, 30.0, 800.0]
    x = sg.tensor(xs, dtype=getattr(sg, dtype), requires_grad=True)
    y = sg.nn.functional.logsigmoid(x)
    y.sum().backward()
    np_dt = getattr(np, dtype)
    a = np.array(xs, dtype=np_dt)
    want = np.minimum(a, 0) - np.log1p(np.exp(-np.abs(a)))
    np.testing.assert_array_equal(np.array(y.tolist(), dtype=np_dt), want)
    # d/dx = 1 / (1 + exp(x)), computed in float64 then rounded
    with np.errstate(over="ignore"):
        want_g = (1 / (1 + np.exp(np.array(xs)))).astype(np_dt)
    tol = 2 * np.finfo(np_dt).eps
    np.testing.assert_allclose(np.array(x.grad.tolist(), dtype=np_dt), want_g, rtol=tol, atol=0)
    if torch is not None:
        t = torch.tensor(xs, dtype=getattr(torch, dtype), requires_grad=True)
        yt = torch.nn.functional.logsigmoid(t)
        yt.sum().backward()
        np.testing.assert_array_equal(np.array(y.tolist(), dtype=np_dt),
                                      np.array(yt.tolist(), dtype=np_dt))
        np.testing.assert_allclose(np.array(x.grad.tolist(), dtype=np_dt),
                                   np.array(t.grad.tolist(), dtype=np_dt), rtol=tol, atol=0)


@pytest.mark.parametrize("act", ["sigmoid", "logsigmoid"])
def test_without_scipy_special(act, monkeypatch):
    """Without SciPy (or for another device's arrays) sigmoid and logsigmoid are chains of
    NumPy operations whose last node is named as PyTorch's: the same derivatives, and
    sigmoid's result still checked (its last node, reciprocal's, saves it)."""
    import sys
    for mod in ("srcgrad.tensor.arithmetic", "srcgrad.tensor.nn.functional"):
        monkeypatch.setattr(sys.modules[mod], "scipy_special", lambda t: None)
    f, name, saved = ACTS[act]
    x = sg.tensor(XS, dtype=sg.float64, requires_grad=True)
    assert f(sg, x).grad_fn.name() == name
    y, g, h = _derivatives(sg, f)
    xs, w, eps = np.array(XS), np.array(W), 1e-5

    def grad_at(v):
        x = sg.tensor(v, dtype=sg.float64, requires_grad=True)
        (f(sg, x) * sg.tensor(W, dtype=sg.float64)).sum().backward()
        return np.array(x.grad.tolist())
    fd1 = (_value(f, xs + eps) - _value(f, xs - eps)) / (2 * eps) * w
    np.testing.assert_allclose(g, fd1, rtol=1e-7, atol=1e-9)
    fd2 = (grad_at(xs + eps) - grad_at(xs - eps)) / (2 * eps) * w
    np.testing.assert_allclose(h, fd2, rtol=1e-6, atol=1e-8)
    if saved == "result":
        msg, _ = _inplace(sg, f, "result")
        assert msg is not None and "which is output 0 of Sigmoid, is at version 1" in msg
