"""grad_fn names and next_functions of activations against real torch 2.13 (float64):
one node with an edge to the input, as PyTorch records it; values and gradients equal."""
import numpy as np
import pytest

import srcgrad as sg

torch = pytest.importorskip("torch")

OPS = {
    "sigmoid": lambda L, x: x.sigmoid(),
    "gelu": lambda L, x: L.nn.functional.gelu(x),
    "gelu_tanh": lambda L, x: L.nn.functional.gelu(x, approximate="tanh"),
    "softplus": lambda L, x: L.nn.functional.softplus(x),
    "silu": lambda L, x: L.nn.functional.silu(x),
    "mish": lambda L, x: L.nn.functional.mish(x),
    "logsigmoid": lambda L, x: L.nn.functional.logsigmoid(x),
}
XS = [[0.3, -0.7, 2.1], [1.2, 0.4, -25.0]]


def _run(lib, name):
    x = lib.tensor(XS, dtype=lib.float64, requires_grad=True)
    y = OPS[name](lib, x)
    node = y.grad_fn
    nexts = [type(n).__name__ if n is not None else None for n, _ in node.next_functions]
    g, = lib.autograd.grad(y.sum(), x, create_graph=True)
    h, = lib.autograd.grad((g * g).sum(), x)
    return (type(node).__name__, node.name(), nexts,
            np.array(y.tolist()), np.array(g.tolist()), np.array(h.tolist()))


@pytest.mark.parametrize("name", sorted(OPS))
def test_node_and_gradients_match_torch(name):
    mine, theirs = _run(sg, name), _run(torch, name)
    assert mine[:3] == theirs[:3]
    for a, b in zip(mine[3:], theirs[3:]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
