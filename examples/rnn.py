"""A tanh RNN over a sequence, written with a Python for loop."""
import numpy as np

import srcgrad as sg


def rnn_loss(W, U, b, xs, h0):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(h @ W + xs[t] @ U + b)
    return np.sum(h * h)


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    H, D, T, B = 8, 4, 5, 3
    W = rng.standard_normal((H, H)) * 0.3
    U = rng.standard_normal((D, H)) * 0.3
    b = np.zeros(H)
    xs = rng.standard_normal((T, B, D))
    h0 = np.zeros((B, H))
    print(sg.source(rnn_loss, wrt=("W", "U", "b")))
    dW, dU, db = sg.grad(rnn_loss, wrt=("W", "U", "b"))(W, U, b, xs, h0)
    print("|dW| =", np.linalg.norm(dW), " |dU| =", np.linalg.norm(dU), " |db| =", np.linalg.norm(db))
