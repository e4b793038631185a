"""A 2-layer MLP with a softmax cross-entropy loss, differentiated w.r.t. its params dict."""
import numpy as np

import srcgrad as sg


def mlp_loss(params, x, labels):
    h = np.tanh(x @ params["W1"] + params["b1"])
    z = h @ params["W2"] + params["b2"]
    z = z - np.max(z, axis=1, keepdims=True)
    p = np.exp(z) / np.sum(np.exp(z), axis=1, keepdims=True)
    n = x.shape[0]
    return -np.sum(np.log(p[np.arange(n), labels])) / n


def init(rng, d_in=20, hidden=64, classes=10):
    return {"W1": rng.standard_normal((d_in, hidden)) / np.sqrt(d_in), "b1": np.zeros(hidden),
            "W2": rng.standard_normal((hidden, classes)) / np.sqrt(hidden),
            "b2": np.zeros(classes)}


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    params = init(rng)
    x = rng.standard_normal((32, 20))
    labels = rng.integers(0, 10, size=32)
    grad = sg.grad(mlp_loss, wrt="params")
    print(sg.source(mlp_loss, wrt="params"))
    for step in range(5):
        g = grad(params, x, labels)
        params = {k: params[k] - 0.5 * g[k] for k in params}
        print(f"step {step}: loss {mlp_loss(params, x, labels):.4f}")
