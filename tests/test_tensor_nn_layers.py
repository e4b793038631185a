"""Convolution, pooling, batch norm and recurrent layers: values and gradients (input,
weights, biases) against PyTorch (the oracle; skipped when it is not installed) with
the same weights, and against central finite differences in float64."""
import numpy as np
import pytest

import srcgrad as sg
import srcgrad.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

RNG = np.random.default_rng(7)


def _compare(f_torch, f_ours, *arrays, tol=1e-10):
    """Same inputs to both; a random output cotangent; values and every input's gradient."""
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    ss = [sg.tensor(a, requires_grad=True) for a in arrays]
    out_t, out_s = f_torch(*ts), f_ours(*ss)
    if isinstance(out_t, tuple):
        out_t, out_s = out_t[0], out_s[0]
    assert tuple(out_t.shape) == tuple(out_s.shape)
    assert out_t.grad_fn.name() == out_s.grad_fn.name()
    np.testing.assert_allclose(out_s.detach().numpy(), out_t.detach().numpy(), atol=tol)
    g = RNG.standard_normal(tuple(out_t.shape))
    out_t.backward(torch.tensor(g))
    out_s.backward(sg.tensor(g))
    for a, b in zip(ts, ss):
        np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), atol=tol)


def _finite_differences(f, arrays, eps=1e-6, tol=1e-6):
    """srcgrad's gradient of sum(f(...) * w) against central differences, for each input."""
    ss = [sg.tensor(a, requires_grad=True) for a in arrays]
    out = f(*ss)
    w = RNG.standard_normal(tuple(out.shape))
    (out * sg.tensor(w)).sum().backward()
    for k, a in enumerate(arrays):
        num = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            plus, minus = [x.copy() for x in arrays], [x.copy() for x in arrays]
            plus[k][idx] += eps
            minus[k][idx] -= eps
            fp = (f(*[sg.tensor(x) for x in plus]).detach().numpy() * w).sum()
            fm = (f(*[sg.tensor(x) for x in minus]).detach().numpy() * w).sum()
            num[idx] = (fp - fm) / (2 * eps)
        np.testing.assert_allclose(ss[k].grad.numpy(), num, atol=tol, rtol=tol)


X2 = RNG.standard_normal((2, 4, 6, 5))
CONV2D = [dict(), dict(stride=2), dict(padding=1), dict(padding="same"), dict(padding="valid"),
          dict(dilation=2, padding=(1, 2)), dict(groups=2), dict(stride=(2, 1), groups=4),
          dict(padding="same", dilation=(2, 1))]


@pytest.mark.parametrize("kw", CONV2D, ids=str)
def test_conv2d_matches_pytorch(kw):
    g = kw.get("groups", 1)
    w = RNG.standard_normal((4, 4 // g, 3, 2))
    b = RNG.standard_normal(4)
    _compare(lambda x, w, b: TF.conv2d(x, w, b, **kw), lambda x, w, b: F.conv2d(x, w, b, **kw),
             X2, w, b)


@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=2), dict(padding="same",
                                                                        dilation=2)], ids=str)
def test_conv1d_matches_pytorch(kw):
    x, w = RNG.standard_normal((2, 4, 9)), RNG.standard_normal((6, 4, 4))
    _compare(lambda x, w: TF.conv1d(x, w, **kw), lambda x, w: F.conv1d(x, w, **kw), x, w)
    _compare(lambda x, w: TF.conv1d(x, w, **kw), lambda x, w: F.conv1d(x, w, **kw), x[0], w)


# (function, input shape, weight shape, bias, keywords): weights of conv_transpose are
# (in, out / groups, *kernel)
CONV3D_AND_TRANSPOSED = [
    ("conv3d", (2, 4, 5, 6, 4), (6, 2, 2, 3, 2), True, dict(stride=(1, 2, 1), padding=1,
                                                            groups=2)),
    ("conv3d", (4, 5, 5, 5), (3, 4, 3, 3, 3), False, dict(dilation=2, padding=2)),
    ("conv_transpose1d", (2, 3, 7), (3, 4, 3), True, dict(stride=2, padding=1,
                                                          output_padding=1)),
    ("conv_transpose1d", (3, 7), (3, 2, 4), False, dict(stride=3, padding=4, dilation=2)),
    ("conv_transpose2d", (2, 4, 5, 6), (4, 3, 3, 2), True,
     dict(stride=(2, 1), padding=(1, 0), groups=2, output_padding=(1, 0))),
    ("conv_transpose2d", (1, 2, 4, 4), (2, 5, 3, 3), True, dict(stride=2, dilation=2,
                                                                padding=3, output_padding=1)),
    ("conv_transpose3d", (2, 2, 3, 4, 3), (2, 3, 2, 3, 2), True,
     dict(stride=(2, 1, 3), padding=(0, 1, 1), output_padding=(1, 0, 2))),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name, xs, ws, bias, kw", CONV3D_AND_TRANSPOSED,
                         ids=lambda v: v if isinstance(v, str) else None)
def test_conv3d_and_conv_transpose_match_pytorch(name, xs, ws, bias, kw, dtype):
    x, w = RNG.standard_normal(xs).astype(dtype), RNG.standard_normal(ws).astype(dtype)
    arrays = [x, w]
    if bias:
        out_channels = ws[1] * kw.get("groups", 1) if "transpose" in name else ws[0]
        arrays.append(RNG.standard_normal(out_channels).astype(dtype))
    _compare(lambda *a: getattr(TF, name)(*a, **kw), lambda *a: getattr(F, name)(*a, **kw),
             *arrays, tol=1e-10 if dtype == "float64" else 2e-4)


def test_conv3d_and_conv_transpose_finite_differences():
    _finite_differences(lambda x, w, b: F.conv_transpose2d(x, w, b, stride=(2, 1), padding=1,
                                                           output_padding=(1, 0), groups=2),
                        [RNG.standard_normal((1, 2, 3, 3)), RNG.standard_normal((2, 2, 2, 3)),
                         RNG.standard_normal(4)])
    _finite_differences(lambda x, w: F.conv_transpose1d(x, w, stride=3, dilation=2, padding=2),
                        [RNG.standard_normal((2, 2, 3)), RNG.standard_normal((2, 1, 3))])
    _finite_differences(lambda x, w: F.conv3d(x, w, stride=(1, 2, 1), padding=(0, 1, 1)),
                        [RNG.standard_normal((1, 2, 3, 3, 2)),
                         RNG.standard_normal((2, 2, 2, 2, 2))])


def test_conv_transpose_modules_match_pytorch():
    """Default initialisation from the seeded stream, repr, output_size, and an output."""
    for kw in (dict(in_channels=4, out_channels=6, kernel_size=(3, 2), stride=(2, 1),
                    padding=(1, 0), groups=2, output_padding=(1, 0)),
               dict(in_channels=2, out_channels=1, kernel_size=3, stride=2, bias=False)):
        torch.manual_seed(3)
        sg.manual_seed(3)
        mt, ms = torch.nn.ConvTranspose2d(**kw), sg.nn.ConvTranspose2d(**kw)
        assert repr(mt) == repr(ms)
        for (nt, pt), (ns, ps) in zip(mt.named_parameters(), ms.named_parameters()):
            assert nt == ns
            np.testing.assert_array_equal(ps.detach().numpy(), pt.detach().numpy())
        x = RNG.standard_normal((2, kw["in_channels"], 4, 5)).astype(np.float32)
        yt, ys = mt(torch.tensor(x)), ms(sg.tensor(x))
        np.testing.assert_allclose(ys.detach().numpy(), yt.detach().numpy(), atol=1e-5)
        size = [2, 1, 10, 12] if kw["stride"] == 2 else None
        if size:
            assert tuple(ms(sg.tensor(x), output_size=size).shape) == \
                tuple(mt(torch.tensor(x), output_size=size).shape)


def test_conv_gradients_match_finite_differences():
    x, w, b = RNG.standard_normal((1, 2, 4, 4)), RNG.standard_normal((2, 1, 2, 3)), \
        RNG.standard_normal(2)
    _finite_differences(lambda x, w, b: F.conv2d(x, w, b, stride=(1, 2), padding=1, groups=2),
                        [x, w, b])
    _finite_differences(lambda x, w: F.conv1d(x, w, padding="same", dilation=2),
                        [RNG.standard_normal((2, 2, 5)), RNG.standard_normal((3, 2, 2))])


POOL = [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
        dict(kernel_size=3, stride=2, ceil_mode=True), dict(kernel_size=(2, 3), stride=1)]


@pytest.mark.parametrize("kw", POOL, ids=str)
def test_pooling_matches_pytorch(kw):
    _compare(lambda x: TF.max_pool2d(x, **kw), lambda x: F.max_pool2d(x, **kw), X2)
    _compare(lambda x: TF.avg_pool2d(x, **kw), lambda x: F.avg_pool2d(x, **kw), X2)
    _compare(lambda x: TF.avg_pool2d(x, count_include_pad=False, **kw),
             lambda x: F.avg_pool2d(x, count_include_pad=False, **kw), X2)


def test_max_pool_ties_indices_and_dilation():
    x = np.array([[[[1., 3., 3., 0.], [3., 1., 2., 2.], [0., 0., 0., 0.], [5., 5., 1., 5.]]]])
    for kw in [dict(kernel_size=2), dict(kernel_size=2, stride=1), dict(kernel_size=3,
               stride=1, padding=1), dict(kernel_size=2, stride=1, dilation=2)]:
        _compare(lambda x: TF.max_pool2d(x, **kw), lambda x: F.max_pool2d(x, **kw), x)
        _, it = TF.max_pool2d(torch.tensor(x), return_indices=True, **kw)
        _, is_ = F.max_pool2d(sg.tensor(x), return_indices=True, **kw)
        np.testing.assert_array_equal(is_.numpy(), it.numpy())
    s = RNG.standard_normal((2, 3, 8))
    _compare(lambda x: TF.max_pool1d(x, 3, 2, 1), lambda x: F.max_pool1d(x, 3, 2, 1), s)
    _compare(lambda x: TF.avg_pool1d(x, 3, 2, 1), lambda x: F.avg_pool1d(x, 3, 2, 1), s)


@pytest.mark.parametrize("size", [1, (3, 4), (2, None), 5, (4, 1)], ids=str)
def test_adaptive_avg_pool_matches_pytorch(size):
    _compare(lambda x: TF.adaptive_avg_pool2d(x, size), lambda x: F.adaptive_avg_pool2d(x, size),
             X2)


def test_pooling_gradients_match_finite_differences():
    x = RNG.permutation(32).reshape(1, 2, 4, 4) / 7.0     # distinct values: max is smooth
    _finite_differences(lambda x: F.max_pool2d(x, 3, 1, 1), [x])
    _finite_differences(lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True), [x])
    _finite_differences(lambda x: F.adaptive_avg_pool2d(x, (3, 2)), [x])


def test_batch_norm_matches_pytorch_and_updates_running_stats():
    w, b = RNG.standard_normal(4), RNG.standard_normal(4)
    rm_t, rv_t = torch.zeros(4, dtype=torch.float64), torch.ones(4, dtype=torch.float64)
    rm_s, rv_s = sg.zeros(4, dtype=sg.float64), sg.ones(4, dtype=sg.float64)
    _compare(lambda x, w, b: TF.batch_norm(x, rm_t, rv_t, w, b, True, 0.3),
             lambda x, w, b: F.batch_norm(x, rm_s, rv_s, w, b, True, 0.3), X2, w, b)
    np.testing.assert_allclose(rm_s.numpy(), rm_t.numpy(), atol=1e-12)
    np.testing.assert_allclose(rv_s.numpy(), rv_t.numpy(), atol=1e-12)
    _compare(lambda x, w, b: TF.batch_norm(x, rm_t, rv_t, w, b, False),
             lambda x, w, b: F.batch_norm(x, rm_s, rv_s, w, b, False), X2, w, b)
    _finite_differences(lambda x, w: F.batch_norm(x, None, None, w, None, True),
                        [RNG.standard_normal((3, 2, 2)), RNG.standard_normal(2)])


def test_batch_norm_modules_track_like_pytorch():
    for momentum in (0.1, None):
        ours = sg.nn.BatchNorm2d(4, momentum=momentum, dtype=sg.float64)
        theirs = torch.nn.BatchNorm2d(4, momentum=momentum, dtype=torch.float64)
        for k in range(3):
            x = X2 * (k + 1) + k
            ours(sg.tensor(x))
            theirs(torch.tensor(x))
        for name in ("running_mean", "running_var", "num_batches_tracked"):
            np.testing.assert_allclose(getattr(ours, name).numpy(),
                                       getattr(theirs, name).numpy(), atol=1e-12)
        ours.eval()
        theirs.eval()
        np.testing.assert_allclose(ours(sg.tensor(X2)).detach().numpy(),
                                   theirs(torch.tensor(X2)).detach().numpy(), atol=1e-12)
        assert repr(ours) == repr(theirs)


def _same_weights(ours, theirs):
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    with torch.no_grad(), sg.no_grad():
        for p, q in zip(ours.parameters(), theirs.parameters()):
            assert tuple(p.shape) == tuple(q.shape)
            p.copy_(sg.tensor(q.detach().numpy()))


def _flat(out):
    items = out if isinstance(out, tuple) else (out,)
    return [a for e in items for a in (e if isinstance(e, tuple) else (e,))]


RECURRENT = [(cls, kw) for cls in ("RNN", "LSTM", "GRU")
             for kw in (dict(), dict(num_layers=2), dict(batch_first=True),
                        dict(bidirectional=True), dict(bias=False),
                        dict(num_layers=2, bidirectional=True, batch_first=True))]


@pytest.mark.parametrize("cls,kw", RECURRENT, ids=str)
def test_recurrent_layers_match_pytorch(cls, kw):
    theirs = getattr(torch.nn, cls)(3, 4, dtype=torch.float64, **kw)
    ours = getattr(sg.nn, cls)(3, 4, dtype=sg.float64, **kw)
    _same_weights(ours, theirs)
    assert repr(ours) == repr(theirs)
    x = RNG.standard_normal((5, 2, 3))
    xt, xs = torch.tensor(x, requires_grad=True), sg.tensor(x, requires_grad=True)
    ft, fs = _flat(theirs(xt)), _flat(ours(xs))
    ws = [RNG.standard_normal(tuple(a.shape)) for a in ft]
    sum((a * torch.tensor(w)).sum() for a, w in zip(ft, ws)).backward()
    sum((a * sg.tensor(w)).sum() for a, w in zip(fs, ws)).backward()
    for a, b in zip(ft, fs):
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), atol=1e-12)
    np.testing.assert_allclose(xs.grad.numpy(), xt.grad.numpy(), atol=1e-12)
    for p, q in zip(ours.parameters(), theirs.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), atol=1e-12)


@pytest.mark.parametrize("cls", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cells_match_pytorch_and_finite_differences(cls):
    theirs = getattr(torch.nn, cls)(3, 2, dtype=torch.float64)
    ours = getattr(sg.nn, cls)(3, 2, dtype=sg.float64)
    _same_weights(ours, theirs)
    x, h = RNG.standard_normal((2, 3)), RNG.standard_normal((2, 2))
    if cls == "LSTMCell":
        _compare(lambda x, h: theirs(x, (h, h * 0.5)), lambda x, h: ours(x, (h, h * 0.5)), x, h)
        _finite_differences(lambda x, h: ours(x, (h, h * 0.5))[1], [x, h])
    else:
        _compare(lambda x, h: theirs(x, h), lambda x, h: ours(x, h), x, h)
        _finite_differences(lambda x, h: ours(x, h), [x, h])


def test_layer_reprs_and_parameters_match_pytorch():
    for make in [lambda nn: nn.Conv2d(3, 8, 3), lambda nn: nn.Conv2d(3, 8, (3, 2), 2, 1, 2,
                                                                      bias=False),
                 lambda nn: nn.Conv1d(4, 8, 3, padding="same", groups=2),
                 lambda nn: nn.MaxPool2d((2, 3), stride=1, padding=1, ceil_mode=True),
                 lambda nn: nn.AvgPool2d(3, 2, 1), lambda nn: nn.AvgPool1d(3),
                 lambda nn: nn.AdaptiveAvgPool2d((2, None)), lambda nn: nn.BatchNorm1d(3),
                 lambda nn: nn.BatchNorm2d(4, affine=False), lambda nn: nn.GRU(3, 4, 2,
                                                                               dropout=0.5),
                 lambda nn: nn.RNNCell(3, 4, nonlinearity="relu", bias=False)]:
        ours, theirs = make(sg.nn), make(torch.nn)
        assert repr(ours) == repr(theirs)
        assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == \
            [(n, tuple(p.shape)) for n, p in theirs.named_parameters()]
        assert list(ours.state_dict()) == list(theirs.state_dict())


def test_default_init_bounds():
    """Conv weights: kaiming_uniform(a=sqrt(5)) -> |w| <= 1/sqrt(fan_in); recurrent: 1/sqrt(H)."""
    conv = sg.nn.Conv2d(4, 6, 3)
    bound = 1 / np.sqrt(4 * 9)
    assert np.abs(conv.weight.detach().numpy()).max() <= bound
    assert np.abs(conv.bias.detach().numpy()).max() <= bound
    assert np.abs(conv.weight.detach().numpy()).max() > bound / 2
    lstm = sg.nn.LSTM(3, 16)
    for p in lstm.parameters():
        assert np.abs(p.detach().numpy()).max() <= 0.25


def test_errors_match_pytorch():
    with pytest.raises(ValueError, match="padding='same' is not supported for strided"):
        sg.nn.Conv2d(4, 4, 3, stride=2, padding="same")
    with pytest.raises(RuntimeError, match="to have 12 channels, but got 4 channels"):
        F.conv2d(sg.ones(1, 4, 5, 5), sg.ones(2, 3, 3, 3), groups=4)
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        sg.nn.BatchNorm1d(3)(sg.ones(1, 3))
    with pytest.raises(NotImplementedError, match="padding_mode"):
        sg.nn.Conv2d(2, 2, 3, padding_mode="reflect")


PRELU = [((3,), (1,)), ((2, 3), (3,)), ((2, 3, 4), (3,)), ((2, 3, 4), (1,)), ((), (1,)),
         ((4, 3, 2, 2), ())]


@pytest.mark.parametrize("shapes", PRELU, ids=str)
def test_prelu_matches_pytorch_and_finite_differences(shapes):
    """One slope or one per channel (dimension 1); the slope's gradient too."""
    x = RNG.standard_normal(shapes[0])
    w = RNG.uniform(0.1, 0.5, shapes[1])
    _compare(TF.prelu, F.prelu, x, w)
    _finite_differences(F.prelu, [x, w])


def test_prelu_module_and_errors_as_pytorch():
    ours, theirs = sg.nn.PReLU(3, init=0.1), torch.nn.PReLU(3, init=0.1)
    assert repr(ours) == repr(theirs) == "PReLU(num_parameters=3)"
    assert ours.weight.tolist() == theirs.weight.tolist()
    assert [n for n, _ in ours.named_parameters()] == ["weight"]
    for x, w in [(np.ones((2, 3)), np.ones(2)), (np.ones((2, 3)), np.ones((1, 1))),
                 (np.ones(3), np.ones(3))]:
        with pytest.raises(RuntimeError) as expected:
            TF.prelu(torch.tensor(x), torch.tensor(w))
        with pytest.raises(RuntimeError) as got:
            F.prelu(sg.tensor(x), sg.tensor(w))
        assert str(got.value) == str(expected.value)
