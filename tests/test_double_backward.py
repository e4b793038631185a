"""Double backward: ``create_graph=True`` records the backward pass, to any order.

Each function is written once and run with srcgrad and with PyTorch (the oracle,
skipped when not installed): the gradient, the Hessian (rows by a second
``autograd.grad``) and a third derivative must agree with PyTorch's, and the
Hessian with central finite differences of srcgrad's own first gradient, in float64.
"""
import numpy as np
import pytest

import srcgrad as sg

torch = pytest.importorskip("torch")

X = [0.5, -1.2, 2.0]
W = [[0.3, -0.7, 1.1], [0.9, 0.2, -0.4]]
B = [0.1, -0.2]

FUNCTIONS = {
    "sin": lambda t, x: x.sin().sum(),
    "exp_mul": lambda t, x: (t.exp(x) * x).sum(),
    "tanh_pow": lambda t, x: t.tanh(x).pow(2).sum(),
    "sigmoid_prod": lambda t, x: t.sigmoid(x).prod(),
    "log": lambda t, x: (x * x + 1).log().sum(),
    "reciprocal": lambda t, x: (1 / (x * x + 1)).sum(),
    "sqrt": lambda t, x: (x * x + 1).sqrt().sum(),
    "mlp": lambda t, x: t.tanh(t.tensor(W, dtype=t.float64) @ x + t.tensor(B, dtype=t.float64)).sum(),
    "cube_mean": lambda t, x: (x ** 3).mean(),
    "softmax": lambda t, x: (t.softmax(x, 0) * t.arange(3.0, dtype=t.float64)).sum(),
    "log_softmax": lambda t, x: t.log_softmax(x, 0)[1],
    "norm": lambda t, x: x.norm(),
    "slices": lambda t, x: (x[1:] * x[:-1]).sum(),
    "cat": lambda t, x: t.cat([x, x * x]).pow(2).sum(),
    "broadcast": lambda t, x: (x.reshape(3, 1) * x).sum() ** 2,
    "max": lambda t, x: x.max() * x.sum(),
    "where": lambda t, x: t.where(x > 0, x ** 2, x ** 3).sum(),
    "var": lambda t, x: x.var(),
    "outer": lambda t, x: t.outer(x, x).sum() ** 2,
    "expand_sum": lambda t, x: (x.unsqueeze(0).expand(2, 3) ** 2).sum(0).sum(),
    "pow_tensor": lambda t, x: (x.abs() + 1).pow(x).sum(),
    "logsumexp": lambda t, x: x.reshape(1, 3).logsumexp(1).sum() * x[0],
    "abs": lambda t, x: x.abs().sum(),                  # g = sgn(x) requires grad
    "abs_sign": lambda t, x: (x.abs() * x.sign() * x).sum(),
    "prod": lambda t, x: x.prod(),
    "prod_dim": lambda t, x: (x.reshape(1, 3) * x.reshape(3, 1)).prod(1).sum(),
}


def _derivatives(lib, f):
    x = lib.tensor(X, dtype=lib.float64, requires_grad=True)
    g, = lib.autograd.grad(f(lib, x), x, create_graph=True)
    rows = [lib.autograd.grad(g[i], x, retain_graph=True, create_graph=True)[0]
            for i in range(3)]
    total = sum(r.sum() for r in rows)
    third = None
    if total.requires_grad:       # (a constant Hessian has no graph, in PyTorch too)
        third, = lib.autograd.grad(total, x, allow_unused=True)
    # (force: PyTorch's zero second derivatives are ZeroTensors)
    third = np.zeros(3) if third is None else third.detach().numpy(force=True)
    return (g.detach().numpy(), np.stack([r.detach().numpy(force=True) for r in rows]), third,
            total.requires_grad)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_higher_derivatives_match_pytorch(name):
    f = FUNCTIONS[name]
    ours, theirs = _derivatives(sg, f), _derivatives(torch, f)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_hessian_matches_finite_differences(name):
    f = FUNCTIONS[name]

    def gradient(values):
        x = sg.tensor(values, dtype=sg.float64, requires_grad=True)
        return sg.autograd.grad(f(sg, x), x)[0].numpy()

    x = sg.tensor(X, dtype=sg.float64, requires_grad=True)
    g, = sg.autograd.grad(f(sg, x), x, create_graph=True)
    hessian = np.stack([sg.autograd.grad(g[i], x, retain_graph=True)[0].numpy()
                        for i in range(3)])
    eps = 1e-6
    fd = np.stack([(gradient(np.add(X, eps * e)) - gradient(np.subtract(X, eps * e))) / (2 * eps)
                   for e in np.eye(3)])
    np.testing.assert_allclose(hessian, fd, rtol=1e-5, atol=1e-6)


def _penalty(lib):
    w = lib.tensor(W, dtype=lib.float64, requires_grad=True)
    x = lib.tensor(X, dtype=lib.float64, requires_grad=True)
    out = lib.tanh(w @ x).pow(2).sum()
    gx, = lib.autograd.grad(out, x, create_graph=True)
    pen = (gx.norm() - 1) ** 2
    pen.backward()
    return pen.item(), w.grad.numpy(), x.grad.numpy()


def test_gradient_penalty_matches_pytorch():
    for a, b in zip(_penalty(sg), _penalty(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-10)


def _hvp(lib):
    x = lib.tensor(X, dtype=lib.float64, requires_grad=True)
    y = (x.sin() * x.pow(2)).sum()
    g, = lib.autograd.grad(y, x, create_graph=True)
    v = lib.tensor([1.0, 0.5, -1.0], dtype=lib.float64)
    hv, = lib.autograd.grad(g, x, grad_outputs=v)
    return hv.numpy()


def test_hessian_vector_product_matches_pytorch():
    np.testing.assert_allclose(_hvp(sg), _hvp(torch), rtol=1e-12)


def _signs(t):
    return np.signbit(t.detach().numpy()).tolist()


def test_zero_higher_derivatives_are_positive_zeros_as_pytorchs():
    """d^3/dw^3 of w ** 2 is +0 (0 * w ** -1 gave -0.0 for w < 0, printed as -0.)."""
    def third(lib):
        w = lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64, requires_grad=True)
        g, = lib.autograd.grad((w ** 2).sum(), w, create_graph=True)
        h, = lib.autograd.grad(g[0], w, create_graph=True)
        return lib.autograd.grad(h.sum(), w)[0]
    assert _signs(third(sg)) == _signs(third(torch)) == [False] * 3


def test_abs_gradients_zero_path_is_a_zero_tensor_as_pytorchs():
    """abs's gradient g * sgn(x) differentiated again: sgn's zero gradient is PyTorch's
    ZeroTensor, replaced by the next gradient to arrive (-0.0 kept), added when later."""
    def hessian_signs(lib, flip):
        x = lib.tensor([0.5, -1.2, 2.0], dtype=lib.float64, requires_grad=True)
        y = (x * x.abs()).sum() if flip else (x.abs() * x).sum()
        g, = lib.autograd.grad(y, x, create_graph=True)
        return [_signs(lib.autograd.grad(g[i], x, retain_graph=True)[0]) for i in range(3)]
    for flip in (False, True):
        assert hessian_signs(sg, flip) == hessian_signs(torch, flip)


def test_materialized_gradients_require_grad_under_create_graph():
    for lib in (sg, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        w = lib.tensor([3.0, 4.0], requires_grad=True)
        gx, = lib.autograd.grad((x / w).sum(), x, create_graph=True)
        h, = lib.autograd.grad(gx.sum(), x, create_graph=True, materialize_grads=True)
        assert h.requires_grad and h.grad_fn is None and h.tolist() == [0.0, 0.0]
        h, = lib.autograd.grad(gx.sum(), x, retain_graph=True, materialize_grads=True)
        assert not h.requires_grad


def test_first_order_results_are_unchanged_without_create_graph():
    x = sg.tensor(X, dtype=sg.float64, requires_grad=True)
    g, = sg.autograd.grad((x ** 3).sum(), x)
    assert not g.requires_grad and g.grad_fn is None
    g2, = sg.autograd.grad((x ** 3).sum(), x, create_graph=True)
    assert g2.requires_grad and g2.grad_fn is not None


def test_backward_create_graph_accumulates_a_differentiable_grad():
    z = sg.tensor(2.0, requires_grad=True)
    with pytest.warns(UserWarning, match="reference cycle"):
        (z ** 3).backward(create_graph=True)
    gz, z.grad = z.grad, None
    assert gz.item() == 12.0 and gz.requires_grad
    gz.backward()
    assert z.grad.item() == 12.0          # d/dz 3 z^2 = 6 z


def test_grad_runs_only_the_part_of_the_graph_it_needs():
    """As PyTorch: an unused input raises before anything is freed."""
    z = sg.tensor(2.0, requires_grad=True)
    a = sg.tensor(1.0, requires_grad=True)
    g, = sg.autograd.grad(z * z, z, create_graph=True)
    with pytest.raises(RuntimeError, match="appears to not have been used"):
        sg.autograd.grad(g, a)
    out = sg.autograd.grad(g, [z, a], allow_unused=True, materialize_grads=True)
    assert [t.item() for t in out] == [2.0, 0.0]


def test_once_differentiable_refuses_a_second_backward():
    class Square(sg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 2

        @staticmethod
        @sg.autograd.function.once_differentiable
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 2 * x

    x = sg.tensor([1.0, 2.0], requires_grad=True)
    v = sg.tensor([1.0, 1.0], requires_grad=True)
    g, = sg.autograd.grad(Square.apply(x), x, grad_outputs=v, create_graph=True)
    with pytest.raises(RuntimeError, match="once_differentiable"):
        g.sum().backward()
