"""A data-dependent while loop: double y until its norm reaches 1000."""
import numpy as np

import srcgrad as sg


def doubling(x, v):
    y = x * 2
    while np.linalg.norm(y) < 1000:
        y = y * 2
    return np.sum(y * v)


if __name__ == "__main__":
    x = np.array([-0.8, 1.1, 0.75])
    v = np.array([0.1, 1.0, 0.0001])
    print(sg.source(doubling, wrt="x"))
    print("dx =", sg.grad(doubling, wrt="x")(x, v))   # v * 2**k, as y.backward(v) gives in PyTorch
