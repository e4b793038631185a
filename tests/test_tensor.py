"""The Tensor runtime: PyTorch's autograd semantics (DESIGN.md §1 "Tensor runtime").

Gradients are checked against central finite differences in float64; messages and
printing against PyTorch 2.13's exact text.  ``tests/test_parity.py`` runs whole
scripts against PyTorch's recorded output.
"""
import threading
import warnings

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.api.compiled import CompiledFunctionBackward

# -- gradients against finite differences (float64) -----------------------------------------


def numerical_grad(f, arrays, i, eps=1e-6):
    """d f(*arrays) / d arrays[i] by central differences (f returns a float)."""
    x = arrays[i]
    grad = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        old = x[idx]
        x[idx] = old + eps
        hi = f(*arrays)
        x[idx] = old - eps
        lo = f(*arrays)
        x[idx] = old
        grad[idx] = (hi - lo) / (2 * eps)
    return grad


def check_grads(fn, *shapes, positive=False, seed=0):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s) for s in shapes]
    if positive:
        arrays = [np.abs(a) + 0.5 for a in arrays]
    leaves = [sg.tensor(a, requires_grad=True) for a in arrays]
    out = fn(*leaves)
    assert out.dtype is sg.float64 and out.numel() == 1
    out.backward()

    def value(*arrs):
        with sg.no_grad():
            return fn(*[sg.tensor(a) for a in arrs]).item()

    for i, leaf in enumerate(leaves):
        expected = numerical_grad(value, [a.copy() for a in arrays], i)
        assert leaf.grad is not None, f"no gradient for argument {i}"
        assert leaf.grad.shape == leaf.shape and leaf.grad.dtype is sg.float64
        np.testing.assert_allclose(leaf.grad.numpy(), expected, rtol=1e-5, atol=1e-6)


GRAD_CASES = {
    "add-broadcast": (lambda a, b: (a + b * 2).sum(), [(2, 3), (3,)]),
    "sub-reflected": (lambda a, b: (1 - a - b).pow(2).sum(), [(2, 3), (2, 1)]),
    "mul-div": (lambda a, b: (a * b / (b * b + 1)).sum(), [(2, 3), (1, 3)]),
    "rtruediv": (lambda a: (2 / a).sum(), [(4,)], True),
    "pow-tensor": (lambda a, b: (a ** b).sum(), [(3,), (3,)], True),
    "pow-scalar": (lambda a: (a ** 3 + 2 ** a + a ** 0.5).sum(), [(3,)], True),
    "exp-log": (lambda a: (a.exp() + a.log()).sum(), [(2, 2)], True),
    "tanh-sigmoid": (lambda a: (a.tanh() * a.sigmoid()).sum(), [(5,)]),
    "relu-abs": (lambda a: (a.relu() + a.abs()).sum(), [(6,)]),
    "sqrt-sin-cos": (lambda a: (a.sqrt() + a.sin() * a.cos()).sum(), [(4,)], True),
    "square-rsqrt-reciprocal": (lambda a: (a.square() + a.rsqrt() + a.reciprocal()).sum(),
                                [(3,)], True),
    "sum-dims": (lambda a: (a.sum(0) ** 2).sum() + (a.sum((0, 2), keepdim=True) ** 2).sum(),
                 [(2, 3, 4)]),
    "mean-dims": (lambda a: (a.mean(1) ** 2).sum() + a.mean(-1, keepdim=True).pow(2).sum(),
                  [(3, 4)]),
    "max-min": (lambda a: a.max() + a.min(0).values.sum() + a.max(1, keepdim=True)[0].sum(),
                [(3, 4)]),
    "amax": (lambda a: a.amax(1).sum(), [(3, 4)]),
    "norm-std-var": (lambda a: a.norm() + a.std() + a.var(0).sum() + a.norm(dim=1).sum(),
                     [(3, 4)]),
    "prod-cumsum": (lambda a: a.prod() + a.cumsum(1).pow(2).sum(), [(2, 3)]),
    "shape-ops": (lambda a: (a.reshape(6, 2).t() @ a.view(6, 2)).sum()
                  + (a.transpose(0, 1).permute(1, 0) * a).sum()
                  + a.unsqueeze(0).squeeze(0).flatten().pow(2).sum(), [(3, 4)]),
    "expand": (lambda a: (a.expand(3, 4) * np.arange(12.).reshape(3, 4).tolist()[0][1]).pow(2)
               .sum(), [(1, 4)]),
    "matmul-2d": (lambda a, b: (a @ b).tanh().sum(), [(2, 3), (3, 4)]),
    "matmul-vec": (lambda a, b: (a @ b).pow(2).sum() + (b @ b), [(2, 3), (3,)]),
    "matmul-batched": (lambda a, b: (a @ b).pow(2).sum(), [(2, 2, 3), (3, 2)]),
    "mm-dot": (lambda a, b: a.mm(b).sum() + a[0].dot(b[:, 0]), [(2, 3), (3, 2)]),
    "getitem-basic": (lambda a: (a[0] * a[:, 1].sum() + a[1:, ::2].sum() + a[..., -1].sum()
                                 ).sum(), [(3, 4)]),
    "getitem-fancy-repeats": (lambda a: a[[0, 0, 2]].pow(2).sum()
                              + a[sg.tensor([1, 1]), sg.tensor([0, 0])].sum(), [(3, 4)]),
    "getitem-mask": (lambda a: a[a > 0].pow(2).sum(), [(3, 4)]),
    "setitem": (lambda a, b: _setitem_case(a, b), [(3,), (2,)]),
    "cat-stack": (lambda a, b: (sg.cat([a, b]).pow(2).sum() + sg.stack([a, a * b[0:1]]).sum()),
                  [(2, 3), (1, 3)]),
    "where-clamp-masked": (lambda a: sg.where(a > 0, a * 2, a ** 2).sum()
                           + a.clamp(-0.5, 0.5).sum() + a.masked_fill(a < 0, 0.).sum(), [(7,)]),
    "softmax": (lambda a: (a.softmax(1) * sg.tensor([[1., 2., 3.]], dtype=sg.float64)).sum()
                + a.log_softmax(0).pow(2).sum() + a.logsumexp(1).sum(), [(2, 3)]),
    "inplace-nonleaf": (lambda a, b: _inplace_case(a, b), [(3,), (3,)]),
    "clone-cast": (lambda a: (a.clone() * a.to(sg.float64)).sum(), [(3,)]),
    "split-unbind": (lambda a: sum((p ** 2).sum() * (i + 1) for i, p in enumerate(a.split(1)))
                     + sum(r.sum() * 3 for r in a.unbind(1)), [(3, 2)]),
}


def _setitem_case(a, b):
    h = sg.zeros(2, 3, dtype=sg.float64)
    h[0] = a * 2
    h[1, 1:] = b ** 2
    y = a * 1
    y[0] = b[1]
    return (h * h).sum() + (y ** 3).sum()


def _inplace_case(a, b):
    y = a * 1
    y.add_(b)
    y.mul_(b)
    y += a
    return (y ** 2).sum()


@pytest.mark.parametrize("name", GRAD_CASES)
def test_gradient_matches_finite_differences(name):
    fn, shapes, *positive = GRAD_CASES[name]
    check_grads(fn, *shapes, positive=bool(positive and positive[0]))


# -- leaves, accumulation, non-leaf grads -----------------------------------------------------

def test_seed_example_values():
    inp = sg.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    w1 = sg.tensor(2.0, requires_grad=True)
    w2 = sg.tensor(3.0, requires_grad=True)
    loss = (inp * w1 + w2).mean()
    loss.backward()
    assert repr(w1.grad) == "tensor(2.5000)" and repr(w2.grad) == "tensor(1.)"
    assert repr(inp.grad) == "tensor([[0.5000, 0.5000],\n        [0.5000, 0.5000]])"
    assert loss.grad_fn.name() == "MeanBackward0"


def test_leaves_and_accumulation():
    w = sg.tensor([1., 2.], requires_grad=True)
    assert w.is_leaf and w.grad is None
    for k in range(1, 4):
        (w * w).sum().backward()
        np.testing.assert_allclose(w.grad.numpy(), 2 * k * np.array([1., 2.]))
    g = w.grad
    (w * 3).sum().backward()
    assert w.grad is g, ".grad accumulates in place"
    w.grad = None
    w.sum().backward()
    assert w.grad.tolist() == [1., 1.]
    assert sg.tensor([1.]).is_leaf and (sg.tensor([1.]) * 2).is_leaf


def test_nonleaf_grad_warns_and_retain_grad():
    x = sg.tensor([1., 2.], requires_grad=True)
    y = x * 2
    z = (y * y).sum()
    y.retain_grad()
    z.backward(retain_graph=True)
    assert y.grad.tolist() == [4., 8.]
    with pytest.warns(UserWarning, match="is not a leaf Tensor is being accessed"):
        assert z.grad is None
    z.backward()
    assert y.grad.tolist() == [8., 16.], "retained grads accumulate"


def test_backward_with_gradient_and_errors():
    x = sg.tensor([1., 2., 3.], requires_grad=True)
    with pytest.raises(RuntimeError, match="^grad can be implicitly created only for scalar "
                                           "outputs$"):
        (x * 2).backward()
    (x * 2).backward(sg.tensor([1., 0.1, 0.01]))
    np.testing.assert_allclose(x.grad.numpy(), [2., 0.2, 0.02], rtol=1e-6)
    with pytest.raises(RuntimeError, match=r"Mismatch in shape: grad_output\[0\] has a shape of "
                                           r"torch.Size\(\[2\]\) and output\[0\] has a shape of "
                                           r"torch.Size\(\[3\]\)."):
        (x * 2).backward(sg.ones(2))
    with pytest.raises(RuntimeError, match="^element 0 of tensors does not require grad and "
                                           "does not have a grad_fn$"):
        sg.tensor([1., 2.]).sum().backward()


def test_retain_graph():
    x = sg.tensor([1., 2.], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    with pytest.raises(RuntimeError, match=r"^Trying to backward through the graph a second time"
                                           r" \(or directly access saved tensors after they have"
                                           r" already been freed\)\."):
        y.backward()
    s = (x + 2).sum()       # nothing saved: PyTorch allows a second backward
    s.backward()
    s.backward()


def test_requires_grad_errors():
    with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype "
                                           "can require gradients$"):
        sg.tensor([1, 2], requires_grad=True)
    with pytest.raises(RuntimeError, match="^only Tensors of floating point dtype can require "
                                           "gradients$"):
        sg.tensor([1, 2]).requires_grad_()
    x = sg.tensor([1.], requires_grad=True)
    with pytest.raises(RuntimeError, match="^you can only change requires_grad flags of leaf "
                                           "variables."):
        (x * 2).requires_grad_(False)
    t = sg.tensor([1.])
    assert t.requires_grad_() is t and t.requires_grad


# -- detach, .data, version counters, in-place ----------------------------------------------------

def test_detach_shares_data_and_version_data_does_not():
    x = sg.tensor([1., 2., 3.], requires_grad=True)
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.is_leaf and d.grad_fn is None
    d[0] = 100.
    assert y[0].item() == 100. and y._version == 1 == d._version
    data = y.data
    data.add_(1)
    assert data._version == 1 and y._version == 1
    assert y[1].item() == 5.


def test_modified_saved_tensor_error():
    x = sg.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    a = x + 1
    b = a * a
    a.add_(1)
    msg = ("one of the variables needed for gradient computation has been modified by an "
           "inplace operation: [torch.FloatTensor [2, 2]], which is output 0 of Add, is at "
           "version 1; expected version 0 instead. Hint: enable anomaly detection to find the "
           "operation that failed to compute its gradient, with "
           "torch.autograd.set_detect_anomaly(True, check_nan=False).")
    with pytest.raises(RuntimeError) as e:
        b.sum().backward()
    assert str(e.value) == msg
    c = x.exp()
    c.detach().zero_()          # detach shares the counter: caught
    with pytest.raises(RuntimeError, match="output 0 of Exp, is at version 1"):
        c.sum().backward()
    c = x.exp()
    c.data.zero_()              # .data does not: silently uses the new values
    c.sum().backward()
    assert x.grad.tolist() == [[0., 0.], [0., 0.]]


def test_shape_only_uses_are_not_checked():
    x = sg.tensor([1., 2.], requires_grad=True)
    a = x + 1
    b = a + 2            # add reads only shapes
    a.mul_(3)
    b.sum().backward()
    assert x.grad.tolist() == [1., 1.]


def test_inplace_on_leaf_errors():
    w = sg.tensor([1., 2.], requires_grad=True)
    for f in (lambda: w.add_(1), lambda: w.zero_(), lambda: w.mul_(2)):
        with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad is being "
                                               "used in an in-place operation.$"):
            f()
    with pytest.raises(RuntimeError, match="^a view of a leaf Variable"):
        w[0] = 1.
    with pytest.raises(RuntimeError, match="^a view of a leaf Variable"):
        w[0].add_(1)
    with sg.no_grad():
        w -= 0.5
        w[1] = 4.
    assert w.tolist() == [0.5, 4.] and w.is_leaf and w.requires_grad and w._version == 2


def test_inplace_ops_and_versions():
    t = sg.tensor([1., 2., 3.])
    t.add_(1).mul_(2).sub_(1).div_(2)
    assert t.tolist() == [1.5, 2.5, 3.5] and t._version == 4
    same = t
    t += 1
    t *= 2
    assert same is t and t._version == 6
    t.zero_()
    t.fill_(2.)
    assert t.tolist() == [2., 2., 2.] and t._version == 8
    v = t.view(3, 1)
    v.mul_(2)
    assert t._version == 9 == v._version and t.tolist() == [4., 4., 4.]
    i = sg.tensor([1, 2])
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired "
                                           "output type Long$"):
        i.add_(1.5)


def test_inplace_rebases_history():
    x = sg.tensor([1., 2., 3.], requires_grad=True)
    y = x * 2
    y.add_(1)
    assert y.grad_fn.name() == "AddBackward0"
    w = sg.tensor(2., requires_grad=True)
    c = sg.ones(3)
    c.mul_(w)
    assert c.requires_grad and not c.is_leaf
    (c.sum() + y.sum()).backward()
    assert w.grad.item() == 3. and x.grad.tolist() == [2., 2., 2.]


# -- grad modes ---------------------------------------------------------------------------

def test_no_grad_enable_grad_set_grad_enabled():
    x = sg.tensor([1.], requires_grad=True)
    with sg.no_grad():
        assert not (x * 2).requires_grad and not sg.is_grad_enabled()
        with sg.enable_grad():
            assert (x * 2).requires_grad
    assert sg.is_grad_enabled()
    sg.set_grad_enabled(False)
    assert not (x * 2).requires_grad
    sg.set_grad_enabled(True)
    with sg.set_grad_enabled(False):
        assert not sg.is_grad_enabled()
    assert sg.is_grad_enabled()

    @sg.no_grad()
    def f():
        return sg.is_grad_enabled()

    @sg.no_grad
    def g():
        return sg.is_grad_enabled()

    @sg.set_grad_enabled(False)
    def h():
        return sg.is_grad_enabled()

    @sg.no_grad()
    def gen():
        yield sg.is_grad_enabled()

    assert f() is False and g() is False and h() is False and list(gen()) == [False]
    assert sg.is_grad_enabled()


def test_grad_mode_is_thread_local():
    seen = {}

    def worker():
        seen["enabled"] = sg.is_grad_enabled()
        with sg.no_grad():
            barrier.wait()
            barrier.wait()

    barrier = threading.Barrier(2)
    t = threading.Thread(target=worker)
    with sg.no_grad():
        t.start()
        barrier.wait()
        inner = sg.is_grad_enabled()
        barrier.wait()
    t.join()
    assert seen["enabled"] is True and inner is False


# -- the graph --------------------------------------------------------------------------------

NODE_NAMES = [
    (lambda x, y: x + y, "AddBackward0"), (lambda x, y: x - 2, "SubBackward0"),
    (lambda x, y: 2 - x, "RsubBackward1"), (lambda x, y: x * y, "MulBackward0"),
    (lambda x, y: x / y, "DivBackward0"), (lambda x, y: x ** 2, "PowBackward0"),
    (lambda x, y: x ** y, "PowBackward1"), (lambda x, y: 2 ** x, "PowBackward2"),
    (lambda x, y: -x, "NegBackward0"), (lambda x, y: x @ y, "MmBackward0"),
    (lambda x, y: x.sum(), "SumBackward0"), (lambda x, y: x.sum(0), "SumBackward1"),
    (lambda x, y: x.mean(), "MeanBackward0"), (lambda x, y: x.mean(1), "MeanBackward1"),
    (lambda x, y: x.exp(), "ExpBackward0"), (lambda x, y: x.tanh(), "TanhBackward0"),
    (lambda x, y: x.sigmoid(), "SigmoidBackward0"), (lambda x, y: x.relu(), "ReluBackward0"),
    (lambda x, y: x.view(4), "ViewBackward0"), (lambda x, y: x.t(), "TBackward0"),
    (lambda x, y: x.T, "PermuteBackward0"), (lambda x, y: x.transpose(0, 1),
                                             "TransposeBackward0"),
    (lambda x, y: x.max(), "MaxBackward1"), (lambda x, y: x.max(0)[0], "MaxBackward0"),
    (lambda x, y: x[0], "SelectBackward0"), (lambda x, y: x[1:], "SliceBackward0"),
    (lambda x, y: x[[0, 1]], "IndexBackward0"), (lambda x, y: x.norm(),
                                                 "LinalgVectorNormBackward0"),
    (lambda x, y: x.unsqueeze(0), "UnsqueezeBackward0"), (lambda x, y: x.clone(),
                                                          "CloneBackward0"),
    (lambda x, y: x.double(), "ToCopyBackward0"), (lambda x, y: x.abs(), "AbsBackward0"),
    (lambda x, y: sg.cat([x, y]), "CatBackward0"), (lambda x, y: x.softmax(1),
                                                     "SoftmaxBackward0"),
]


@pytest.mark.parametrize("fn,name", NODE_NAMES, ids=[n for _, n in NODE_NAMES])
def test_node_names(fn, name):
    x = sg.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    y = sg.tensor([[0.5, 1.], [2., 0.25]], requires_grad=True)
    node = fn(x, y).grad_fn
    assert node.name() == name and type(node).__name__ == name
    assert repr(node).startswith(f"<{name} object at 0x")


def test_next_functions_and_source():
    a = sg.tensor([1., 2.], requires_grad=True)
    b = a * 2
    nf = b.grad_fn.next_functions
    assert len(nf) == 2 and nf[1] == (None, 0)
    acc, idx = nf[0]
    assert idx == 0 and type(acc).__name__ == "AccumulateGrad"
    assert acc.name() == "torch::autograd::AccumulateGrad" and acc.variable is a
    assert acc is (a + 1).grad_fn.next_functions[0][0], "one AccumulateGrad per leaf"
    assert acc.next_functions == ()
    assert "def " in b.grad_fn.source and "needs" in b.grad_fn.source
    assert ((a * 2).exp().grad_fn.next_functions[0][0].name() == "MulBackward0")


def test_autograd_grad_hooks_and_function():
    x = sg.tensor([1., 2.], requires_grad=True)
    (g,) = sg.autograd.grad((x ** 2).sum(), x)
    assert g.tolist() == [2., 4.] and x.grad is None
    seen = []
    x.register_hook(lambda grad: seen.append(grad.tolist()))
    y = x * 3
    y.register_hook(lambda grad: grad * 10)
    y.sum().backward()
    assert seen == [[30., 30.]] and x.grad.tolist() == [30., 30.]

    class Square(sg.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            return t * t

        @staticmethod
        def backward(ctx, grad):
            (t,) = ctx.saved_tensors
            return 2 * t * grad

    z = sg.tensor([3.], requires_grad=True)
    out = Square.apply(z)
    assert out.grad_fn.name() == "SquareBackward"
    out.sum().backward()
    assert z.grad.tolist() == [6.]


# -- factories, dtypes, conversions -----------------------------------------------------------

def test_dtype_inference_and_promotion():
    assert sg.tensor(2.0).dtype is sg.float32 and sg.tensor([1, 2]).dtype is sg.int64
    assert sg.tensor([True]).dtype is sg.bool and sg.tensor([1, 2.5]).dtype is sg.float32
    assert sg.tensor(np.array([1., 2.])).dtype is sg.float64
    assert sg.float is sg.float32 and sg.double is sg.float64 and sg.long is sg.int64
    assert repr(sg.float32) == "torch.float32" and repr(sg.ones(2).shape) == "torch.Size([2])"
    i, f = sg.tensor([1, 2]), sg.tensor([1., 2.])
    assert (i / 2).dtype is sg.float32 and (i * 2.5).dtype is sg.float32
    assert (i + f).dtype is sg.float32 and (i + 1).dtype is sg.int64
    assert (f * sg.tensor(2., dtype=sg.float64)).dtype is sg.float32
    assert (f * sg.tensor([2., 1.], dtype=sg.float64)).dtype is sg.float64
    assert i.exp().dtype is sg.float32 and i.sum().dtype is sg.int64


def test_factories():
    assert sg.ones(2, 3).shape == (2, 3) and sg.zeros((2,)).tolist() == [0., 0.]
    assert sg.full((2,), 3).dtype is sg.int64 and sg.arange(3).tolist() == [0, 1, 2]
    assert sg.arange(0, 1, 0.25).tolist() == [0., 0.25, 0.5, 0.75]
    assert sg.linspace(0, 1, 5).tolist() == [0., 0.25, 0.5, 0.75, 1.]
    a = np.zeros(2)
    t = sg.from_numpy(a)
    a[0] = 5
    assert t[0].item() == 5.
    sg.manual_seed(0)
    r1 = sg.randn(3)
    sg.manual_seed(0)
    assert sg.randn(3).tolist() == r1.tolist() and sg.rand(2).dtype is sg.float32


def test_conversions():
    x = sg.tensor([[1.5, 2.]], requires_grad=True)
    assert x[0, 0].item() == 1.5 and isinstance(sg.tensor([3]).item(), int)
    assert x.tolist() == [[1.5, 2.]]
    with pytest.raises(RuntimeError, match=r"^Can't call numpy\(\) on Tensor that requires "
                                           r"grad. Use tensor.detach\(\).numpy\(\) instead.$"):
        x.numpy()
    with pytest.raises(RuntimeError, match="^a Tensor with 2 elements cannot be converted "
                                           "to Scalar$"):
        x.item()
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(sg.tensor([1., 2.]))
    assert float(sg.tensor(2.5)) == 2.5 and f"{sg.tensor(3.14159):.2f}" == "3.14"


def test_shape_errors():
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(2\) must match the size of "
                                           r"tensor b \(3\) at non-singleton dimension 0$"):
        sg.ones(2) + sg.ones(3)
    with pytest.raises(RuntimeError, match=r"^mat1 and mat2 shapes cannot be multiplied "
                                           r"\(2x3 and 2x3\)$"):
        sg.ones(2, 3) @ sg.ones(2, 3)
    with pytest.raises(RuntimeError, match=r"^shape '\[4\]' is invalid for input of size 6$"):
        sg.ones(2, 3).view(4)
    with pytest.raises(RuntimeError, match="^view size is not compatible"):
        sg.ones(2, 3).t().view(6)
    with pytest.raises(IndexError, match="^index 5 is out of bounds for dimension 1 with "
                                         "size 3$"):
        sg.ones(2, 3)[0, 5]


# -- printing -------------------------------------------------------------------------------------

REPRS = [
    (lambda: sg.tensor(2.5), "tensor(2.5000)"),
    (lambda: sg.tensor(1.), "tensor(1.)"),
    (lambda: sg.tensor([1, 2]), "tensor([1, 2])"),
    (lambda: sg.tensor([True, False]), "tensor([ True, False])"),
    (lambda: sg.tensor([1e-5, 1.]), "tensor([1.0000e-05, 1.0000e+00])"),
    (lambda: sg.tensor([1e9]), "tensor([1.0000e+09])"),
    (lambda: sg.tensor([1., float("nan"), -float("inf")]), "tensor([1., nan, -inf])"),
    (lambda: sg.tensor([1., 2.], dtype=sg.float64), "tensor([1., 2.], dtype=torch.float64)"),
    (lambda: sg.tensor([1, 2], dtype=sg.int32), "tensor([1, 2], dtype=torch.int32)"),
    (lambda: sg.ones(2, 2, requires_grad=True),
     "tensor([[1., 1.],\n        [1., 1.]], requires_grad=True)"),
    (lambda: sg.ones(2, 2, requires_grad=True) + 2,
     "tensor([[3., 3.],\n        [3., 3.]], grad_fn=<AddBackward0>)"),
    (lambda: sg.zeros(0, 3), "tensor([], size=(0, 3))"),
    (lambda: sg.tensor([], dtype=sg.int64), "tensor([], dtype=torch.int64)"),
    (lambda: sg.arange(12.).reshape(2, 3, 2),
     "tensor([[[ 0.,  1.],\n         [ 2.,  3.],\n         [ 4.,  5.]],\n\n"
     "        [[ 6.,  7.],\n         [ 8.,  9.],\n         [10., 11.]]])"),
    (lambda: sg.arange(1001.), "tensor([   0.,    1.,    2.,  ...,  998.,  999., 1000.])"),
    (lambda: sg.arange(20.) / 3,
     "tensor([0.0000, 0.3333, 0.6667, 1.0000, 1.3333, 1.6667, 2.0000, 2.3333, 2.6667,\n"
     "        3.0000, 3.3333, 3.6667, 4.0000, 4.3333, 4.6667, 5.0000, 5.3333, 5.6667,\n"
     "        6.0000, 6.3333])"),
]


@pytest.mark.parametrize("make,text", REPRS, ids=[t.split("\n")[0][:40] for _, t in REPRS])
def test_repr(make, text):
    assert repr(make()) == text and str(make()) == text


def test_repr_matches_pytorch_on_random_tensors():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    for _ in range(300):
        shape = tuple(int(n) for n in rng.integers(1, 6, rng.integers(0, 4)))
        scale = 10.0 ** rng.integers(-6, 10)
        a = rng.standard_normal(shape) * scale
        if rng.random() < 0.3:
            a = np.round(a)
        for arr in (a.astype(np.float32), a, np.round(a).clip(-1e12, 1e12).astype(np.int64)):
            assert repr(sg.tensor(arr)) == repr(torch.tensor(arr))


# -- devices --------------------------------------------------------------------------------------

def _cupy_gpu():
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def test_cpu_device():
    x = sg.tensor([1., 2.])
    assert str(x.device) == "cpu" and repr(x.device) == "device(type='cpu')"
    assert x.to("cpu") is x and x.cpu() is x and not x.is_cuda
    assert str(sg.device("cuda:1")) == "cuda:1"


@pytest.mark.skipif(_cupy_gpu(), reason="a GPU is available")
def test_cuda_unavailable_is_reported():
    assert sg.cuda.is_available() is False
    with pytest.raises((AssertionError, RuntimeError)):
        sg.ones(2, device="cuda")
    with pytest.raises((AssertionError, RuntimeError)):
        sg.ones(2).cuda()


@pytest.mark.skipif(not _cupy_gpu(), reason="needs cupy and a GPU")
def test_cuda_tensors_with_cupy():
    x = sg.tensor([[1., 2.], [3., 4.]], device="cuda", requires_grad=True)
    assert x.is_cuda and str(x.device) == "cuda:0"
    y = (x * x + 1).tanh().sum()
    y.backward()
    assert x.grad.is_cuda
    xc = sg.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    (xc * xc + 1).tanh().sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), xc.grad.numpy(), rtol=1e-5)
    assert repr(x.detach()).endswith("device='cuda:0')")
    with pytest.raises(RuntimeError, match="same device"):
        x + xc


# -- @compile ------------------------------------------------------------------------------------

def _loss(inp, w1, w2):
    return np.mean(np.tanh(inp * w1 + w2) ** 2)


def test_compile_matches_eager():
    api = pytest.importorskip("srcgrad.api.gradients")
    if not hasattr(api, "make_vjp"):
        pytest.skip("the compiler's make_vjp is not available")
    from srcgrad.api.compiled import compile
    f = compile(_loss)
    args = [sg.tensor([[1., 2.], [3., 4.]], requires_grad=True),
            sg.tensor(0.2, requires_grad=True), sg.tensor(0.3)]
    out = f(*args)
    assert isinstance(out.grad_fn, CompiledFunctionBackward)
    assert out.grad_fn.name() == "CompiledFunctionBackward"
    assert [n is not None for n, _ in out.grad_fn.next_functions] == [True, True]
    out.backward()
    eager = [sg.tensor(a.detach().numpy(), requires_grad=a.requires_grad) for a in args]
    ((eager[0] * eager[1] + eager[2]).tanh() ** 2).mean().backward()
    for a, e in zip(args[:2], eager[:2]):
        np.testing.assert_allclose(a.grad.numpy(), e.grad.numpy(), rtol=1e-5)
    assert "def " in out.grad_fn.source
    with sg.no_grad():
        assert f(*args).grad_fn is None
    w = sg.tensor([1., 2.], requires_grad=True)
    c = sg.tensor([3., 4.])
    out = f(w, c, 0.5)
    c.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.backward()


# A stand-in for cupy (an ndarray subclass that calls itself cupy), to exercise the device
# paths of the runtime on machines without a GPU: creation, ops, backward, moves, errors.

class _FakeGPUArray(np.ndarray):
    """Like a cupy array: NumPy functions and ufuncs applied to it return arrays of its kind
    (0-d arrays for full reductions, as cupy does)."""

    def get(self):
        return self.view(np.ndarray).copy()

    def __array_function__(self, func, types, args, kwargs):
        return _on_fake_gpu(super().__array_function__(func, types, args, kwargs))

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        plain = [i.view(np.ndarray) if isinstance(i, _FakeGPUArray) else i for i in inputs]
        if "out" in kwargs:
            kwargs["out"] = tuple(o.view(np.ndarray) for o in kwargs["out"])
        return _on_fake_gpu(getattr(ufunc, method)(*plain, **kwargs))

    @property
    def device(self):
        return type("Dev", (), {"id": 0})()


_FakeGPUArray.__module__ = "cupy._core.core"


def _on_fake_gpu(value):
    if isinstance(value, (np.ndarray, np.generic)) and not isinstance(value, _FakeGPUArray):
        return np.asarray(value).view(_FakeGPUArray)
    if isinstance(value, (tuple, list)):
        return type(value)(_on_fake_gpu(v) for v in value)
    return value


def _fake_cupy():
    import contextlib
    import types
    mod = types.ModuleType("cupy")

    def on_gpu(f):
        return lambda *a, **k: np.array(f(*a, **k), copy=False, subok=True).view(_FakeGPUArray)

    for name in ("asarray", "array", "ones_like", "zeros_like", "zeros", "ones", "empty",
                 "full", "arange"):
        setattr(mod, name, on_gpu(getattr(np, name)))
    mod.may_share_memory = np.may_share_memory
    mod.copyto = np.copyto
    mod.cuda = types.SimpleNamespace(
        runtime=types.SimpleNamespace(getDeviceCount=lambda: 1, getDevice=lambda: 0),
        Device=lambda i=0: contextlib.nullcontext())
    mod.random = types.SimpleNamespace(seed=lambda s: None)
    return mod


@pytest.fixture
def fake_gpu(monkeypatch):
    if _cupy_gpu():
        pytest.skip("a real GPU is present: test_cuda_tensors_with_cupy covers it")
    import sys
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy())


def test_device_paths_with_a_stand_in_for_cupy(fake_gpu):
    assert sg.cuda.is_available()
    x = sg.tensor([[1., 2.], [3., 4.]], device="cuda", requires_grad=True)
    assert x.is_cuda and str(x.device) == "cuda:0" and type(x._data) is _FakeGPUArray
    assert repr(x) == ("tensor([[1., 2.],\n        [3., 4.]], device='cuda:0', "
                       "requires_grad=True)")
    y = (x * x + 1).tanh().mean()
    y.backward()
    assert x.grad.is_cuda
    ref = sg.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    (ref * ref + 1).tanh().mean().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), ref.grad.numpy(), rtol=1e-6)
    with pytest.raises(RuntimeError, match="^Expected all tensors to be on the same device"):
        x + ref
    with pytest.raises(TypeError, match="can't convert cuda:0 device type tensor to numpy"):
        x.detach().numpy()
    # a move between devices is recorded; the gradient comes back to the CPU leaf
    w = sg.tensor([1., 2.], requires_grad=True)
    wg = w.cuda()
    assert wg.grad_fn.name() == "ToCopyBackward0" and wg.is_cuda
    (wg * 3).sum().backward()
    assert w.grad.tolist() == [3., 3.] and not w.grad.is_cuda
    assert x.detach().cpu().tolist() == [[1., 2.], [3., 4.]]
    x.grad = None
    z = (x.double().clone()[0] * 2).sum()
    assert z.dtype is sg.float64 and z.is_cuda
    z.backward()
    assert x.grad.is_cuda and x.grad.dtype is sg.float32
    assert x.grad.cpu().tolist() == [[2., 2.], [0., 0.]]


def test_cuda_without_cupy_says_what_to_install():
    """PyTorch's type and first words (scripts catch it), then what srcgrad needs for a GPU:
    the same error from .cuda(), .to("cuda"), a factory's device= and Module.cuda()."""
    import importlib.util
    if importlib.util.find_spec("cupy") is not None:
        pytest.skip("CuPy is installed here")
    x = sg.ones(2)
    for make in (x.cuda, lambda: x.to("cuda"), lambda: x.to("cuda:0"),
                 lambda: sg.zeros(2, device="cuda"), lambda: sg.nn.Linear(2, 2).cuda()):
        with pytest.raises(AssertionError) as info:
            make()
        message = str(info.value)
        assert message.startswith("Torch not compiled with CUDA enabled: ")
        assert "CuPy" in message and "pip install cupy-cuda12x" in message
    assert not sg.cuda.is_available() and sg.cuda.device_count() == 0
