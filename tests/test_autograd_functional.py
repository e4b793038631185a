"""torch.autograd.functional, forward_ad and gradcheck: the same calls with srcgrad and
with PyTorch (the oracle; skipped when not installed) give the same results, and the
Jacobians agree with central finite differences in float64."""
import numpy as np
import pytest

import srcgrad as sg

torch = pytest.importorskip("torch")

X = [0.5, -1.0, 2.0]
Y = [1.0, 0.3, -0.4]


def f_vec(lib, x):
    return (x * x).sin() * x.sum()


def f_two(lib, x, y):
    return x.exp() * y.sum(), (x * y).tanh()


def f_scalar(lib, x):
    return (x ** 2 * x.sin()).sum() + x.prod()


def _t(lib, values):
    return lib.tensor(values, dtype=lib.float64)


def _np(out):
    if isinstance(out, tuple):
        return tuple(_np(o) for o in out)
    return out.detach().numpy()


def _same(a, b):
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    else:
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


CALLS = {
    "jacobian": lambda lib, F: F.jacobian(lambda x: f_vec(lib, x), _t(lib, X)),
    "jacobian_tuple": lambda lib, F: F.jacobian(lambda x, y: f_two(lib, x, y),
                                                (_t(lib, X), _t(lib, Y))),
    "hessian": lambda lib, F: F.hessian(lambda x: f_scalar(lib, x), _t(lib, X)),
    "hessian_tuple": lambda lib, F: F.hessian(lambda x, y: (x * y.exp()).sum(),
                                              (_t(lib, X), _t(lib, Y))),
    "vjp": lambda lib, F: F.vjp(lambda x: f_vec(lib, x), _t(lib, X), _t(lib, Y)),
    "jvp": lambda lib, F: F.jvp(lambda x: f_vec(lib, x), _t(lib, X), _t(lib, Y)),
    "jvp_tuple": lambda lib, F: F.jvp(lambda x, y: f_two(lib, x, y), (_t(lib, X), _t(lib, Y)),
                                      (_t(lib, Y), _t(lib, X))),
    "hvp": lambda lib, F: F.hvp(lambda x: f_scalar(lib, x), _t(lib, X), _t(lib, Y)),
    "vhp": lambda lib, F: F.vhp(lambda x: f_scalar(lib, x), _t(lib, X), _t(lib, Y)),
    "constant": lambda lib, F: F.jacobian(lambda x: lib.ones(2, dtype=lib.float64), _t(lib, X)),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_functional_matches_pytorch(name):
    ours = CALLS[name](sg, sg.autograd.functional)
    theirs = CALLS[name](torch, torch.autograd.functional)
    _same(_np(ours), _np(theirs))


def test_jacobian_and_hessian_match_finite_differences():
    def vec(values):
        return f_vec(sg, _t(sg, values)).numpy()

    def grad(values):
        x = _t(sg, values).requires_grad_()
        return sg.autograd.grad(f_scalar(sg, x), x)[0].numpy()

    eps = 1e-6
    for fn, got in [(vec, sg.autograd.functional.jacobian(lambda x: f_vec(sg, x), _t(sg, X))),
                    (grad, sg.autograd.functional.hessian(lambda x: f_scalar(sg, x),
                                                          _t(sg, X)))]:
        fd = np.stack([(fn(np.add(X, eps * e)) - fn(np.subtract(X, eps * e))) / (2 * eps)
                       for e in np.eye(3)], axis=-1)
        np.testing.assert_allclose(got.numpy(), fd, rtol=1e-6, atol=1e-8)


def test_create_graph_keeps_the_graph():
    x = _t(sg, X).requires_grad_()
    j = sg.autograd.functional.jacobian(lambda x: x.tanh(), x, create_graph=True)
    assert j.requires_grad
    assert not sg.autograd.functional.jacobian(lambda x: x.tanh(), x).requires_grad


def test_strict_mode_errors_as_pytorch():
    for lib in (sg, torch):
        with pytest.raises(RuntimeError, match="does not require gradients"):
            lib.autograd.functional.jacobian(lambda x: lib.ones(2), _t(lib, X), strict=True)
        with pytest.raises(RuntimeError, match="v can only be None"):
            lib.autograd.functional.vjp(lambda x: x * 2, _t(lib, X))


FORWARD = {
    "matmul": lambda lib, d: lib.tensor([[1., 2., 0.], [3., -1., 0.5]], dtype=lib.float64) @ d,
    "exp_div": lambda lib, d: d.exp() / d.sum(),
    "tanh_pow": lambda lib, d: lib.tanh(d) ** 3,
    "softmax": lambda lib, d: d.softmax(0),
    "max": lambda lib, d: d.max(),
    "cat": lambda lib, d: lib.cat([d, d * 2]),
    "broadcast": lambda lib, d: d[1] * d.reshape(3, 1),
    "mlp": lambda lib, d: lib.sigmoid(d.sin() * d.cos() + d ** 2).sum(),
}


def _tangent(lib, f):
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        d = fw.make_dual(_t(lib, X), _t(lib, Y))
        return fw.unpack_dual(f(lib, d)).tangent.numpy()


@pytest.mark.parametrize("name", sorted(FORWARD))
def test_forward_ad_tangents_match_pytorch_and_finite_differences(name):
    f = FORWARD[name]
    ours = _tangent(sg, f)
    np.testing.assert_allclose(ours, _tangent(torch, f), rtol=1e-10, atol=1e-12)
    eps = 1e-6
    hi = f(sg, _t(sg, np.add(X, eps * np.array(Y)))).numpy()
    lo = f(sg, _t(sg, np.subtract(X, eps * np.array(Y)))).numpy()
    np.testing.assert_allclose(ours, (hi - lo) / (2 * eps), rtol=1e-6, atol=1e-8)


def test_tangents_end_with_the_level():
    fw = sg.autograd.forward_ad
    with fw.dual_level():
        d = fw.make_dual(_t(sg, X), _t(sg, Y))
        y = d * 2
    assert fw.unpack_dual(y).tangent is None and "tangent" not in repr(d)
    with pytest.raises(RuntimeError, match="no level exists"):
        fw.make_dual(_t(sg, X), _t(sg, Y))


def test_gradcheck_finds_a_wrong_backward():
    class Wrong(sg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 3

    x = _t(sg, X).requires_grad_()
    assert sg.autograd.gradcheck(lambda x: (x ** 2).sin(), x)
    assert sg.autograd.gradgradcheck(lambda x: (x ** 2).sin() * x.sum(), x)
    with pytest.raises(sg.autograd.GradcheckError, match="Jacobian mismatch for output 0"):
        sg.autograd.gradcheck(Wrong.apply, x)
    assert sg.autograd.gradcheck(Wrong.apply, x, raise_exception=False) is False
    with pytest.warns(UserWarning, match="not a double precision"):
        sg.autograd.gradcheck(lambda x: x * 2, sg.tensor([1.0, 2.0], requires_grad=True),
                              atol=1e-2, eps=1e-3)
