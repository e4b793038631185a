"""Fused nodes (log_softmax, nll_loss, cross_entropy): the graph PyTorch records, the values
and gradients of real torch, float64 central finite differences, and double backward."""
import numpy as np
import pytest

import srcgrad as sg
import srcgrad.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

CASES = [
    dict(),
    dict(reduction="sum"),
    dict(reduction="none"),
    dict(weight=True),
    dict(weight=True, reduction="sum"),
    dict(weight=True, reduction="none"),
    dict(ignore_index=1),
    dict(ignore_index=1, weight=True),
    dict(label_smoothing=0.2),
    dict(label_smoothing=0.2, weight=True, ignore_index=2),
]
SHAPES = [((5, 4), (5,)), ((3, 4, 2), (3, 2)), ((4,), ())]


def _data(shape, tshape, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    c = shape[1] if len(shape) > 1 else shape[0]
    t = rng.integers(0, c, size=tshape)
    if tshape:
        t.flat[0] = 1                 # some targets hit ignore_index=1
    else:
        t = np.array(3)               # one row, not ignored (every row ignored: tested below)
    w = rng.uniform(0.5, 2.0, size=c)
    return x, t, w


def _kwargs(case, w, lib):
    kw = dict(case)
    if kw.pop("weight", False):
        kw["weight"] = lib.tensor(w)
    return kw


def _sg_loss(x, t, w, case):
    return F.cross_entropy(x, sg.tensor(t), **_kwargs(case, w, sg))


@pytest.mark.parametrize("shape,tshape", SHAPES)
@pytest.mark.parametrize("case", CASES, ids=str)
def test_cross_entropy_matches_torch(shape, tshape, case):
    x, t, w = _data(shape, tshape)
    for dtype in ("float32", "float64"):
        xs = sg.tensor(x.astype(dtype), requires_grad=True)
        xt = torch.tensor(x.astype(dtype), requires_grad=True)
        ls = _sg_loss(xs, t, w.astype(dtype), case)
        lt = TF.cross_entropy(xt, torch.tensor(t), **_kwargs(case, w.astype(dtype), torch))
        tol = 1e-6 if dtype == "float32" else 1e-12
        np.testing.assert_allclose(ls.detach().numpy(), lt.detach().numpy(), rtol=tol, atol=tol)
        g = np.random.default_rng(1).standard_normal(tuple(lt.shape)).astype(dtype)
        ls.backward(sg.tensor(g))
        lt.backward(torch.tensor(g))
        np.testing.assert_allclose(xs.grad.numpy(), xt.grad.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("shape,tshape", SHAPES)
@pytest.mark.parametrize("case", CASES, ids=str)
def test_cross_entropy_finite_differences(shape, tshape, case):
    x, t, w = _data(shape, tshape, seed=2)
    g = np.random.default_rng(3).standard_normal(
        _sg_loss(sg.tensor(x), t, w, case).shape)

    def f(a):
        return float((_sg_loss(sg.tensor(a), t, w, case).numpy() * g).sum())

    xs = sg.tensor(x, requires_grad=True)
    _sg_loss(xs, t, w, case).backward(sg.tensor(g))
    eps, fd = 1e-6, np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        fd[i] = (f(x + d) - f(x - d)) / (2 * eps)
    np.testing.assert_allclose(xs.grad.numpy(), fd, rtol=1e-6, atol=1e-8)


def test_graph_is_torchs():
    x, t, _ = _data((5, 4), (5,))
    xs = sg.tensor(x, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    for ls, lt in [(F.cross_entropy(xs, sg.tensor(t)), TF.cross_entropy(xt, torch.tensor(t))),
                   (F.nll_loss(F.log_softmax(xs, 1), sg.tensor(t)),
                    TF.nll_loss(TF.log_softmax(xt, 1), torch.tensor(t)))]:
        def names(fn):
            return [None if n is None else type(n).__name__ for n, _ in fn.next_functions]
        assert ls.grad_fn.name() == lt.grad_fn.name()
        assert names(ls.grad_fn) == names(lt.grad_fn)
        inner_s, inner_t = ls.grad_fn.next_functions[0][0], lt.grad_fn.next_functions[0][0]
        assert inner_s.name() == inner_t.name()
        assert [n.name() for n, _ in inner_s.next_functions] == \
            [n.name() for n, _ in inner_t.next_functions]


@pytest.mark.parametrize("case", [dict(), dict(reduction="none"), dict(weight=True),
                                  dict(label_smoothing=0.1)], ids=str)
def test_double_backward_matches_torch(case):
    x, t, w = _data((4, 3), (4,), seed=4)
    v = np.random.default_rng(5).standard_normal(x.shape)
    xs = sg.tensor(x, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    ls = _sg_loss(xs, t, w, case).sum()
    lt = TF.cross_entropy(xt, torch.tensor(t), **_kwargs(case, w, torch)).sum()
    (gs,) = sg.autograd.grad(ls, xs, create_graph=True)
    (gt,) = torch.autograd.grad(lt, xt, create_graph=True)
    (gs * sg.tensor(v)).sum().backward()
    (gt * torch.tensor(v)).sum().backward()
    np.testing.assert_allclose(gs.detach().numpy(), gt.detach().numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(xs.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_log_softmax_finite_differences_and_hvp():
    x = np.random.default_rng(6).standard_normal((3, 5))
    g = np.random.default_rng(7).standard_normal((3, 5))
    for dim in (0, 1, -1):
        xs = sg.tensor(x, requires_grad=True)
        out = xs.log_softmax(dim)
        assert out.grad_fn.name() == "LogSoftmaxBackward0"
        (gs,) = sg.autograd.grad(out, xs, sg.tensor(g), create_graph=True)
        eps, fd = 1e-6, np.zeros_like(x)
        for i in np.ndindex(x.shape):
            d = np.zeros_like(x)
            d[i] = eps
            f = [float((sg.tensor(a).log_softmax(dim).numpy() * g).sum()) for a in
                 (x + d, x - d)]
            fd[i] = (f[0] - f[1]) / (2 * eps)
        np.testing.assert_allclose(gs.detach().numpy(), fd, rtol=1e-6, atol=1e-8)
        # second derivative against torch
        xt = torch.tensor(x, requires_grad=True)
        (gt,) = torch.autograd.grad(xt.log_softmax(dim), xt, torch.tensor(g), create_graph=True)
        (hs,) = sg.autograd.grad((gs ** 2).sum(), xs)
        (ht,) = torch.autograd.grad((gt ** 2).sum(), xt)
        np.testing.assert_allclose(hs.numpy(), ht.numpy(), rtol=1e-10, atol=1e-12)


def test_second_backward_and_in_place_change_raise():
    x, t, _ = _data((5, 4), (5,))
    xs = sg.tensor(x, requires_grad=True)
    loss = F.cross_entropy(xs, sg.tensor(t))
    loss.backward()
    with pytest.raises(RuntimeError, match="second time"):
        loss.backward()
    out = sg.tensor(x, requires_grad=True).log_softmax(1)
    out.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def _linear_data(seed=8):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((5, 3)), rng.standard_normal((4, 3)), rng.standard_normal(4)


@pytest.mark.parametrize("needs", [(True, True, True), (False, True, True), (True, False, False),
                                   (False, False, True)], ids=str)
def test_linear_matches_torch_and_finite_differences(needs):
    x, w, b = _linear_data()
    g = np.random.default_rng(9).standard_normal((5, 4))
    ss = [sg.tensor(a, requires_grad=n) for a, n in zip((x, w, b), needs)]
    ts = [torch.tensor(a, requires_grad=n) for a, n in zip((x, w, b), needs)]
    ys, yt = F.linear(*ss), TF.linear(*ts)
    assert ys.grad_fn.name() == yt.grad_fn.name() == "AddmmBackward0"
    assert [None if n is None else n.name() for n, _ in ys.grad_fn.next_functions] == \
        [None if n is None else n.name() for n, _ in yt.grad_fn.next_functions]
    np.testing.assert_allclose(ys.detach().numpy(), yt.detach().numpy(), rtol=1e-13)
    ys.backward(sg.tensor(g))
    yt.backward(torch.tensor(g))
    for k, (s, t) in enumerate(zip(ss, ts)):
        if not needs[k]:
            assert s.grad is None
            continue
        np.testing.assert_allclose(s.grad.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-14)
        base, eps, fd = (x, w, b)[k], 1e-6, np.zeros_like((x, w, b)[k])
        for i in np.ndindex(base.shape):
            d = np.zeros_like(base)
            d[i] = eps
            f = []
            for sign in (1, -1):
                args = [sg.tensor(a) for a in (x, w, b)]
                args[k] = sg.tensor(base + sign * d)
                f.append(float((F.linear(*args).numpy() * g).sum()))
            fd[i] = (f[0] - f[1]) / (2 * eps)
        np.testing.assert_allclose(s.grad.numpy(), fd, rtol=1e-6, atol=1e-8)


def test_linear_double_backward_matches_torch():
    x, w, b = _linear_data(10)
    ss = [sg.tensor(a, requires_grad=True) for a in (x, w, b)]
    ts = [torch.tensor(a, requires_grad=True) for a in (x, w, b)]
    gs = sg.autograd.grad((F.linear(*ss).tanh() ** 2).sum(), ss, create_graph=True)
    gt = torch.autograd.grad((TF.linear(*ts).tanh() ** 2).sum(), ts, create_graph=True)
    sum((a ** 2).sum() for a in gs).backward()
    sum((a ** 2).sum() for a in gt).backward()
    for s, t in zip(ss, ts):
        np.testing.assert_allclose(s.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linear_weight_gradient_has_the_weights_layout(dtype):
    """A Linear weight's .grad is C-contiguous, as the weight and as torch's .grad (it is
    computed in the weight's layout, not copied from a transpose), with torch's values."""
    x, w, b = (a.astype(dtype) for a in _linear_data(14))
    ls, lt = sg.nn.Linear(3, 4), torch.nn.Linear(3, 4)
    for lib, m in ((sg, ls), (torch, lt)):
        with lib.no_grad():
            m.weight.copy_(lib.tensor(w))
            m.bias.copy_(lib.tensor(b))
        m.to(getattr(lib, dtype))
    (ls(sg.tensor(x)) ** 2).sum().backward()
    (lt(torch.tensor(x)) ** 2).sum().backward()
    for ps, pt in ((ls.weight, lt.weight), (ls.bias, lt.bias)):
        assert ps.grad.is_contiguous() and pt.grad.is_contiguous()
        assert ps.grad.stride() == pt.grad.stride()
        np.testing.assert_allclose(ps.grad.numpy(), pt.grad.numpy(),
                                   rtol=1e-5 if dtype == "float32" else 1e-12)


def test_linear_weight_changed_in_place_raises():
    x, w, b = _linear_data(11)
    ws = sg.tensor(w, requires_grad=True)
    y = F.linear(sg.tensor(x, requires_grad=True), ws, sg.tensor(b, requires_grad=True))
    with sg.no_grad():
        ws.mul_(2.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_every_target_ignored_matches_torch(reduction):
    x, _, _ = _data((3, 4), (3,), seed=12)
    t = np.array([1, 1, 1])
    xs = sg.tensor(x, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    ls = F.cross_entropy(xs, sg.tensor(t), ignore_index=1, reduction=reduction)
    lt = TF.cross_entropy(xt, torch.tensor(t), ignore_index=1, reduction=reduction)
    np.testing.assert_array_equal(ls.detach().numpy(), lt.detach().numpy())
    ls.sum().backward()
    lt.sum().backward()
    np.testing.assert_array_equal(xs.grad.numpy(), xt.grad.numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fused_value_is_the_composed_operations_value(dtype):
    """The fused node's value, bit for bit, is the one the composed operations print
    (computed with grad mode off, where nothing is fused)."""
    from srcgrad.tensor.nn.functional import _nll_loss
    rng = np.random.default_rng(13)
    for n, c in [(1, 2), (7, 10), (64, 10), (257, 37), (40000, 3)]:
        x = sg.tensor((rng.standard_normal((n, c)) * 3).astype(dtype), requires_grad=True)
        t = sg.tensor(rng.integers(0, c, n))
        for reduction in ("mean", "sum", "none"):
            fused = F.cross_entropy(x, t, reduction=reduction)
            assert fused.grad_fn.name() == "NllLossBackward0"
            with sg.no_grad():
                composed = _nll_loss(x.log_softmax(1), t, None, -100, reduction)
            assert fused.dtype == composed.dtype and fused.shape == composed.shape
            assert fused.detach().numpy().tobytes() == composed.numpy().tobytes()


# -- relu: one ReluBackward0 node, PyTorch's values at -0.0 and NaN ---------------------------

_RELU_EDGES = [-0.0, float("nan"), -1.5, 2.0, 0.0, -np.inf, np.inf, 1e-45, -1e-45]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_relu_matches_torch_bit_for_bit(dtype):
    """Values (signs of zeros and NaN included), gradients, the saved result and the
    double-backward node, against real torch."""
    rng = np.random.default_rng(15)
    x = np.concatenate([np.array(_RELU_EDGES), rng.standard_normal(200)]).astype(dtype)
    g = rng.standard_normal(x.shape).astype(dtype)
    xs, xt = sg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ys, yt = xs.relu(), xt.relu()
    assert ys.grad_fn.name() == yt.grad_fn.name() == "ReluBackward0"
    assert ys.detach().numpy().tobytes() == yt.detach().numpy().tobytes()
    assert ys.grad_fn._saved_result.detach().numpy().tobytes() == \
        yt.grad_fn._saved_result.detach().numpy().tobytes()
    ys.backward(sg.tensor(g))
    yt.backward(torch.tensor(g))
    assert xs.grad.numpy().tobytes() == xt.grad.numpy().tobytes()
    # double backward: the gradient's node and the second derivative (through the square)
    xs, xt = sg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    hs, = sg.autograd.grad((xs.relu() ** 2).sum(), xs, create_graph=True)
    ht, = torch.autograd.grad((xt.relu() ** 2).sum(), xt, create_graph=True)
    assert hs.grad_fn.name() == ht.grad_fn.name() == "ThresholdBackwardBackward0"
    np.testing.assert_array_equal(hs.detach().numpy(), ht.detach().numpy())
    hs.sum().backward()
    ht.sum().backward()
    np.testing.assert_array_equal(xs.grad.numpy(), xt.grad.numpy())
    with sg.no_grad():               # evaluation: the same values, no node
        assert sg.relu(sg.tensor(x)).numpy().tobytes() == yt.detach().numpy().tobytes()


def test_relu_gradient_finite_differences_and_in_place_checks():
    rng = np.random.default_rng(16)
    x = rng.standard_normal((4, 5))
    x[np.abs(x) < 1e-3] = 0.5                      # away from the kink
    w = rng.standard_normal((4, 5))
    xs = sg.tensor(x, requires_grad=True)
    (F.relu(xs) * sg.tensor(w)).sum().backward()
    fd = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = 1e-6
        fd[i] = ((np.maximum(x + d, 0) * w).sum() - (np.maximum(x - d, 0) * w).sum()) / 2e-6
    np.testing.assert_allclose(xs.grad.numpy(), fd, rtol=1e-7, atol=1e-9)
    y = sg.tensor(x, requires_grad=True).relu()
    y.add_(1.0)                                    # the saved result changed in place
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    y = sg.tensor(x, requires_grad=True).relu()
    y.sum().backward()
    with pytest.raises(RuntimeError, match="second time"):
        y.grad_fn._saved_result


@pytest.mark.parametrize("a", [np.float64(-2.0), np.float64(3.0), np.float32(-0.0),
                               np.array([[1.0, -2.0], [3.0, -4.0]]).T], ids=repr)
def test_relu_of_0d_and_strided_tensors_matches_torch(a):
    xs, xt = sg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    ys, yt = xs.relu(), xt.relu()
    assert type(ys.detach().numpy()) is np.ndarray and tuple(ys.shape) == tuple(yt.shape)
    assert ys.detach().numpy().tobytes() == yt.detach().numpy().tobytes()
    ys.sum().backward()
    yt.sum().backward()
    np.testing.assert_array_equal(xs.grad.numpy(), xt.grad.numpy())


@pytest.mark.parametrize("shape", [(3,), (4, 3), (5, 4, 3)], ids=str)
@pytest.mark.parametrize("bias", [True, False])
def test_linear_node_names_values_and_gradients_match_torch(shape, bias):
    rng = np.random.default_rng(17)
    x, w, b = rng.standard_normal(shape), rng.standard_normal((2, 3)), rng.standard_normal(2)
    ss = [sg.tensor(a, requires_grad=True) for a in (x, w, b)]
    ts = [torch.tensor(a, requires_grad=True) for a in (x, w, b)]
    ys = F.linear(ss[0], ss[1], ss[2] if bias else None)
    yt = TF.linear(ts[0], ts[1], ts[2] if bias else None)
    assert ys.grad_fn.name() == yt.grad_fn.name()
    np.testing.assert_allclose(ys.detach().numpy(), yt.detach().numpy(), rtol=1e-13)
    (ys ** 2).sum().backward()
    (yt ** 2).sum().backward()
    for s, t in zip(ss, ts):
        if t.grad is not None:
            np.testing.assert_allclose(s.grad.numpy(), t.grad.numpy(), rtol=1e-12)


def test_log_softmax_of_a_0d_tensor_matches_torch():
    xs, xt = sg.tensor(1.5, requires_grad=True), torch.tensor(1.5, requires_grad=True)
    ys, yt = xs.log_softmax(0), xt.log_softmax(0)
    assert repr(ys) == repr(yt).replace("torch.", "")
    ys.backward()
    yt.backward()
    assert xs.grad.item() == xt.grad.item()


# -- mse_loss -----------------------------------------------------------------------------------

@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("needs", [(True, False), (True, True)], ids=str)
def test_mse_loss_node_and_gradients_match_torch(reduction, needs):
    rng = np.random.default_rng(11)
    x, y = rng.standard_normal((6, 5)), rng.standard_normal((6, 5))
    g = rng.standard_normal((6, 5)) if reduction == "none" else np.array(1.7)
    for dtype in (np.float32, np.float64):
        xs, ys = (sg.tensor(a.astype(dtype), requires_grad=n) for a, n in zip((x, y), needs))
        xt, yt = (torch.tensor(a.astype(dtype), requires_grad=n) for a, n in zip((x, y), needs))
        ls, lt = F.mse_loss(xs, ys, reduction=reduction), TF.mse_loss(xt, yt, reduction=reduction)
        assert ls.grad_fn.name() == lt.grad_fn.name() == "MseLossBackward0"
        assert [None if n is None else n.name() for n, _ in ls.grad_fn.next_functions] == \
            [None if n is None else n.name() for n, _ in lt.grad_fn.next_functions]
        ls.backward(sg.tensor(g.astype(dtype)))
        lt.backward(torch.tensor(g.astype(dtype)))
        np.testing.assert_array_equal(ls.detach().numpy(), lt.detach().numpy())
        # PyTorch's order of operations: float32 gradients bit for bit
        np.testing.assert_array_equal(xs.grad.numpy(), xt.grad.numpy())
        if needs[1]:
            np.testing.assert_array_equal(ys.grad.numpy(), yt.grad.numpy())
    # float64 against central finite differences
    eps, fd = 1e-6, np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        f = [float((F.mse_loss(sg.tensor(a), sg.tensor(y), reduction=reduction).numpy()
                    * g).sum()) for a in (x + d, x - d)]
        fd[i] = (f[0] - f[1]) / (2 * eps)
    np.testing.assert_allclose(xs.grad.numpy(), fd, rtol=1e-6, atol=1e-8)


def test_mse_loss_integer_target_and_double_backward_match_torch():
    rng = np.random.default_rng(12)
    x, t = rng.standard_normal((3, 4)), rng.integers(0, 5, (3, 4))
    xs, xt = sg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ls, lt = F.mse_loss(xs * xs, sg.tensor(t)), TF.mse_loss(xt * xt, torch.tensor(t))
    assert [None if n is None else n.name() for n, _ in ls.grad_fn.next_functions] == \
        [None if n is None else n.name() for n, _ in lt.grad_fn.next_functions] == \
        ["MulBackward0", None]
    (gs,) = sg.autograd.grad(ls, xs, create_graph=True)
    (gt,) = torch.autograd.grad(lt, xt, create_graph=True)
    np.testing.assert_allclose(gs.detach().numpy(), gt.detach().numpy(), rtol=1e-13)
    (hs,) = sg.autograd.grad((gs ** 2).sum(), xs)
    (ht,) = torch.autograd.grad((gt ** 2).sum(), xt)
    np.testing.assert_allclose(hs.numpy(), ht.numpy(), rtol=1e-12)
