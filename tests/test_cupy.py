"""The generated code on CuPy arrays (skipped where CuPy or a GPU is missing).

The same generated source runs on both backends: numpy functions dispatch to
cupy through NEP 13/18, and the runtime helpers use only *_like constructors.
"""
import numpy as np
import pytest

cp = pytest.importorskip("cupy")
try:
    cp.cuda.runtime.getDeviceCount()
except Exception:  # pragma: no cover - no GPU
    pytest.skip("no CUDA device", allow_module_level=True)

import srcgrad as sg  # noqa: E402


def mlp_loss(W1, b1, W2, b2, x, onehot):
    h = np.tanh(x @ W1 + b1)
    z = h @ W2 + b2
    z = z - np.max(z, axis=1, keepdims=True)
    p = np.exp(z) / np.sum(np.exp(z), axis=1, keepdims=True)
    return -np.sum(onehot * np.log(p)) / x.shape[0]


def rnn_loss(W, U, b, xs, h0):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(h @ W + xs[t] @ U + b)
    return np.sum(h * h)


def _args(rng):
    W1 = rng.standard_normal((20, 16)) / 4
    b1 = rng.standard_normal(16)
    W2 = rng.standard_normal((16, 5)) / 4
    b2 = rng.standard_normal(5)
    x = rng.standard_normal((8, 20))
    onehot = np.eye(5)[rng.integers(0, 5, 8)]
    return W1, b1, W2, b2, x, onehot


@pytest.mark.parametrize("f,make", [
    (mlp_loss, _args),
    (rnn_loss, lambda rng: (rng.standard_normal((6, 6)) / 3, rng.standard_normal((4, 6)) / 3,
                            rng.standard_normal(6), rng.standard_normal((5, 3, 4)),
                            np.zeros((3, 6)))),
])
def test_same_gradients_on_gpu(f, make):
    args = make(np.random.default_rng(0))
    g = sg.grad(f, wrt=(0, 1, 2))
    cpu = g(*args)
    gpu = g(*[cp.asarray(a) for a in args])
    for c, d in zip(cpu, gpu):
        assert isinstance(d, cp.ndarray)
        np.testing.assert_allclose(c, cp.asnumpy(d), rtol=1e-10, atol=1e-12)
