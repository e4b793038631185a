"""User code written against the array API (``xp.tanh``, ``xp.sum``) differentiates with
NumPy's rules, computing in ``array_api_strict`` on its default device and on a second
device, with the gradients NumPy gives (themselves checked against central differences)."""
import numpy as np
import pytest

import srcgrad as sg

xp = pytest.importorskip("array_api_strict")

RS = np.random.RandomState(1)
WN = RS.randn(4, 3)
XN = RS.randn(6, 4)
DEVICES = [None, xp.Device("device1")]


def net(W, X):
    h = xp.tanh(X @ W)
    s = xp.sum(h * h, axis=1)
    return xp.mean(xp.exp(-s)) + xp.max(h) + xp.std(h) + xp.sum(xp.sin(W) ** 2)


def net_np(W, X):
    h = np.tanh(X @ W)
    s = np.sum(h * h, axis=1)
    return np.mean(np.exp(-s)) + np.max(h) + np.std(h) + np.sum(np.sin(W) ** 2)


def softmax_ce(W, X):
    z = X @ W
    z = z - xp.max(z, axis=1, keepdims=True)
    logp = z - xp.log(xp.sum(xp.exp(z), axis=1, keepdims=True))
    return -xp.mean(logp[:, 0])


def softmax_ce_np(W, X):
    z = X @ W
    z = z - np.max(z, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.mean(logp[:, 0])


def branchy(W, X):
    total = 0.0
    for i in range(3):
        if xp.sum(W) > 0:
            total = total + xp.mean(xp.abs(X @ W))
        else:
            total = total + xp.mean((X @ W) ** 2)
        W = W * 0.5
    return total


def branchy_np(W, X):
    total = 0.0
    for i in range(3):
        if np.sum(W) > 0:
            total = total + np.mean(np.abs(X @ W))
        else:
            total = total + np.mean((X @ W) ** 2)
        W = W * 0.5
    return total


def central(f, w, eps=1e-6):
    out = np.zeros_like(w)
    for i in np.ndindex(w.shape):
        e = np.zeros_like(w)
        e[i] = eps
        out[i] = (f(w + e) - f(w - e)) / (2 * eps)
    return out


def host(a):
    return np.asarray(a.to_device(xp.Device("CPU_DEVICE")))


@pytest.mark.parametrize("device", DEVICES, ids=["default", "device1"])
@pytest.mark.parametrize("f, fn", [(net, net_np), (softmax_ce, softmax_ce_np),
                                   (branchy, branchy_np)], ids=["net", "softmax", "branches"])
def test_gradient_equals_numpy(f, fn, device):
    W, X = xp.asarray(WN, device=device), xp.asarray(XN, device=device)
    g = sg.grad(f, argnums=0)(W, X)
    assert isinstance(g, type(W)) and g.device == W.device and g.dtype == xp.float64
    gn = sg.grad(fn, argnums=0)(WN, XN)
    assert np.allclose(gn, central(lambda w: fn(w, XN), WN), atol=1e-6)
    assert np.allclose(host(g), gn, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("device", DEVICES, ids=["default", "device1"])
def test_float32_stays_float32(device):
    W = xp.asarray(WN, dtype=xp.float32, device=device)
    X = xp.asarray(XN, dtype=xp.float32, device=device)
    for f in (net, softmax_ce):
        g = sg.grad(f, argnums=0)(W, X)
        assert g.dtype == xp.float32 and g.device == W.device


def test_forward_mode_equals_numpy():
    W, X = xp.asarray(WN), xp.asarray(XN)
    v = RS.randn(*WN.shape)
    _, t = sg.jvp(lambda W: softmax_ce(W, X), (W,), (xp.asarray(v),))
    _, tn = sg.jvp(lambda W: softmax_ce_np(W, XN), (WN,), (v,))
    assert np.allclose(host(t), tn)
