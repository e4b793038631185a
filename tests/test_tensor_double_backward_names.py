"""create_graph=True through one-node backward formulas, against real torch (float64)."""
import numpy as np
import pytest

import srcgrad as sg

torch = pytest.importorskip("torch")


def _run(lib, f, xs, w):
    x = lib.tensor(xs, dtype=lib.float64, requires_grad=True)
    wt = lib.tensor(w, dtype=lib.float64)
    g, = lib.autograd.grad(f(lib, x, wt), x, create_graph=True)
    h, = lib.autograd.grad((g * wt).sum(), x)
    return np.array(g.tolist()), np.array(h.tolist())


CASES = {
    "tanh": lambda L, x, w: L.tanh(x * w).sum(),
    "mse": lambda L, x, w: L.nn.functional.mse_loss(x.tanh(), w),
    "log_softmax": lambda L, x, w: (L.nn.functional.log_softmax(x * x, 1) * w).sum(),
    "self_attention": lambda L, x, w: (L.nn.functional.scaled_dot_product_attention(x, x, x)
                                       * w).sum(),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_second_derivative_matches_torch(name):
    xs = [[0.3, -0.7], [1.2, 0.4], [-1.1, 0.9]]
    w = [[1.5, 0.5], [-2.0, 0.1], [0.7, -0.3]]
    g1, h1 = _run(sg, CASES[name], xs, w)
    g2, h2 = _run(torch, CASES[name], xs, w)
    np.testing.assert_allclose(g1, g2, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(h1, h2, rtol=1e-12, atol=1e-12)


def test_backward_node_names_match_torch():
    for lib in (sg, torch):
        x = lib.tensor([0.3, -0.7], dtype=lib.float64, requires_grad=True)
        g, = lib.autograd.grad(lib.tanh(x).sum(), x, create_graph=True)
        assert type(g.grad_fn).__name__ == "TanhBackwardBackward0"
        y = lib.tensor([[0.3, -0.7], [0.2, 0.1]], dtype=lib.float64, requires_grad=True)
        g, = lib.autograd.grad((y @ y).sum(), y, create_graph=True)
        names = {type(n).__name__ for n, _ in g.grad_fn.next_functions if n is not None}
        assert not any(n.startswith("ad.") for n in names), names
