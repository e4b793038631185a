"""A first example, as a NumPy function: loss = mean(x * w1 + w2)."""
import numpy as np

import srcgrad as sg


@sg.grad(wrt=("w1", "w2"))
def loss(x, w1, w2):
    l1 = x * w1
    l2 = l1 + w2
    return l2.mean()


if __name__ == "__main__":
    x = np.array([[1., 2.], [3., 4.]])
    dw1, dw2 = loss(x, 2.0, 3.0)
    print(loss.source)
    print("dw1 =", dw1, " dw2 =", dw2)   # 2.5 1.0
