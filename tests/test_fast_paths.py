"""The fast paths added for speed give what the general paths give.

* Records: a value a loop overwrites is saved only when the adjoints of the loop's own
  trips, or of the statements before it, read it (a later statement's adjoint runs
  first and sees the final value).
* Straight-line code keeps a value it overwrites under a name of its own
  (``z_prev = z``), not on a stack.
* Kernels: ``unbroadcast``, ``sum_grad``, ``mean_grad`` and ``minmax_grad`` take
  short paths for NumPy arrays; their results are checked against NumPy's own sums and
  broadcasts and, through ``sg.grad``, against PyTorch and central differences.
* The cached call returns the generated function's result as it is only where the
  full path would not change it (checked on dtypes and structure).
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad import runtime as ad

torch = pytest.importorskip("torch")


def central(f, x, eps=1e-6):
    x = np.asarray(x, dtype=float)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


# -- records --------------------------------------------------------------------

def doubling(x, v):
    y = x * 2
    while np.linalg.norm(y) < 1000:
        y = y * 2
    return np.sum(y * v)


def read_before_the_loop(x):
    y = x * 2.0
    z = np.sin(y)            # its adjoint reads y as it was before the loop
    for i in range(3):
        y = y * 1.5
    return np.sum(z * y)


def read_in_the_loop(x, a, b):
    for i in range(20):
        x = x + 0.01 * (a * x - b * x * x)
    return x


def test_a_loop_saves_nothing_its_adjoint_never_reads():
    x, v = np.array([-0.8, 1.1, 0.75]), np.array([0.1, 1.0, 0.0001])
    g = sg.grad(doubling, wrt=0)
    got = g(x, v)
    np.testing.assert_allclose(got, central(lambda u: doubling(u, v), x), rtol=1e-6)
    tx = torch.tensor(x, requires_grad=True)
    ty = tx * 2
    while torch.linalg.norm(ty) < 1000:
        ty = ty * 2
    (ty * torch.tensor(v)).sum().backward()
    np.testing.assert_allclose(got, tx.grad.numpy(), rtol=1e-12)
    assert "append" not in g.source and "pop" not in g.source


def test_a_value_read_before_the_loop_is_still_restored():
    x = np.array([0.3, -0.7, 1.2])
    g = sg.grad(read_before_the_loop)
    np.testing.assert_allclose(g(x), central(read_before_the_loop, x), rtol=1e-6)
    tx = torch.tensor(x, requires_grad=True)
    ty = tx * 2.0
    tz = torch.sin(ty)
    for _ in range(3):
        ty = ty * 1.5
    (tz * ty).sum().backward()
    np.testing.assert_allclose(g(x), tx.grad.numpy(), rtol=1e-12)
    assert "pop" in g.source


def test_a_value_read_by_the_loop_adjoint_is_saved_each_trip():
    g = sg.grad(read_in_the_loop, wrt=(0, 1, 2))
    got = g(0.5, 1.0, 0.3)
    want = central(lambda u: read_in_the_loop(*u), [0.5, 1.0, 0.3])
    for i in range(3):
        assert got[i] == pytest.approx(float(want[i]), rel=1e-6)
        assert type(got[i]) is float


# -- kernels ----------------------------------------------------------------------

rng = np.random.default_rng(3)


@pytest.mark.parametrize("gshape, xshape", [((4, 3), (3,)), ((2, 4, 3), (4, 3)),
                                            ((4, 3), (4, 1)), ((4, 3), (1, 3)),
                                            ((2, 4, 3), (4, 1)), ((4, 3), (4, 3)),
                                            ((4, 3), ()), ((5,), (1,))])
def test_unbroadcast_sums_what_broadcasting_spread(gshape, xshape):
    g = rng.standard_normal(gshape)
    x = rng.standard_normal(xshape)
    nlead = len(gshape) - len(xshape)
    want = g.sum(axis=tuple(range(nlead))) if nlead else g
    want = want.sum(axis=tuple(i for i, n in enumerate(xshape) if n == 1 and
                               want.shape[i] != 1), keepdims=True).reshape(xshape)
    for target in (x, xshape):          # the operand, or its recorded shape
        got = ad.unbroadcast(g, target)
        assert type(got) is np.ndarray and got.shape == xshape
        np.testing.assert_allclose(got, want, rtol=1e-13)


def test_unbroadcast_to_a_python_scalar_sums_everything():
    g = rng.standard_normal((3, 2))
    assert float(ad.unbroadcast(g, 2.0)) == pytest.approx(float(np.sum(g)), rel=1e-13)
    assert float(ad.unbroadcast(g, 3)) == pytest.approx(float(np.sum(g)), rel=1e-13)
    # a complex cotangent of a real operand keeps its real part
    gc = g + 1j * g
    np.testing.assert_allclose(ad.unbroadcast(gc, np.zeros(2)), g.sum(axis=0), rtol=1e-13)


@pytest.mark.parametrize("shape", [(32, 10), (300, 100)])   # written out; a view
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sum_grad_with_keepdims_spreads_to_the_input(shape, dtype):
    a = rng.standard_normal(shape).astype(dtype)
    for axis in (0, 1):
        g = rng.standard_normal(np.sum(a, axis=axis, keepdims=True).shape)
        got = ad.sum_grad(g, a, axis, True)
        assert got.shape == a.shape and got.dtype == a.dtype
        np.testing.assert_allclose(got, np.broadcast_to(g, shape).astype(dtype), rtol=1e-6)
    m = ad.mean_grad(1.0, a, None, False)
    assert m.dtype == a.dtype and np.all(m == dtype(1.0 / a.size))
    s = ad.sum_grad(2.0, a.astype(np.int64), None, False)
    assert s.dtype == np.float64 and np.all(s == 2.0)


def softmax_loss(z, onehot):
    z = z - np.max(z, axis=1, keepdims=True)
    p = np.exp(z) / np.sum(np.exp(z), axis=1, keepdims=True)
    return -np.sum(onehot * np.log(p)) / z.shape[0] + np.sum(np.max(z * z, axis=0))


def test_max_and_sum_gradients_with_ties_match_torch():
    z = rng.standard_normal((6, 4))
    z[2, 1] = z[2, 3] = z[2].max() + 1.0          # a tie along axis 1
    onehot = np.eye(4)[rng.integers(0, 4, 6)]
    got = sg.grad(softmax_loss, wrt=0)(z, onehot)
    tz = torch.tensor(z, requires_grad=True)
    t = tz - torch.amax(tz, dim=1, keepdim=True)
    p = torch.exp(t) / torch.exp(t).sum(dim=1, keepdim=True)
    loss = -(torch.tensor(onehot) * torch.log(p)).sum() / 6 + torch.amax(t * t, dim=0).sum()
    loss.backward()
    np.testing.assert_allclose(got, tz.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("axis,keepdims", [(None, False), (0, False), (1, True), (-1, False),
                                           ((0, 2), True), ((0, 2), False)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_minmax_grad_shares_ties_as_torch_does(axis, keepdims, dtype):
    x = rng.integers(0, 3, (3, 4, 2)).astype(dtype)          # many ties
    ans = np.max(x, axis=axis, keepdims=keepdims)
    g = rng.standard_normal(np.shape(ans)).astype(dtype)
    got = ad.minmax_grad(g, ans, x, axis, keepdims)
    assert got.dtype == dtype and got.shape == x.shape
    tx = torch.tensor(x.astype(np.float64), requires_grad=True)
    dim = tuple(range(3)) if axis is None else axis
    torch.amax(tx, dim=dim, keepdim=keepdims).backward(torch.tensor(g.astype(np.float64)))
    np.testing.assert_allclose(got, tx.grad.numpy(), rtol=1e-6 if dtype == np.float32 else 1e-15)


# -- the cached call ---------------------------------------------------------------

def seed(x, w1, w2):
    return np.mean(x * w1 + w2)


def test_the_cached_call_keeps_structure_and_dtypes():
    x = np.array([[1., 2.], [3., 4.]])
    g = sg.grad(seed, wrt=("w1", "w2"))
    for _ in range(3):                  # the full path, then the cached one
        d1, d2 = g(x, 2.0, 3.0)
        assert (d1, d2) == pytest.approx((2.5, 1.0))
    h = sg.grad(seed, wrt="w1")
    for _ in range(3):
        assert h(x, 2.0, 3.0) == pytest.approx(2.5)
    x32 = x.astype(np.float32)
    k = sg.grad(seed, wrt="x")
    for _ in range(3):
        out = k(x32, np.float32(2.0), 3.0)
        assert out.dtype == np.float32
        np.testing.assert_allclose(out, np.full((2, 2), 0.5), rtol=1e-6)
    for _ in range(2):                  # another dtype, same types: the full path again
        assert k(x, 2.0, 3.0).dtype == np.float64


def test_unbroadcast_of_a_python_float_cotangent():
    assert ad.unbroadcast(1.5, 2.0) == 1.5 and type(ad.unbroadcast(1.5, 2.0)) is float
    assert ad.unbroadcast(1.5, np.float64(2.0)) == 1.5
    assert ad.unbroadcast(1.5, np.array(2.0)) == 1.5
    assert ad.unbroadcast(1.5, ()) == 1.5
    up = ad.unbroadcast(1.5, np.zeros((2, 3)))       # a scalar spread over an array
    assert up.shape == (2, 3) and np.all(up == 1.5)


@pytest.mark.parametrize("y", [2.0, np.float64(2.0), np.float32(2.0), np.array(2.0)])
def test_seed_of_a_scalar_output_is_one(y):
    s = ad.seed(y)
    assert float(s) == 1.0 and np.ndim(s) == 0


# -- straight-line code: an overwritten value is renamed, not pushed ---------------

def softmax_ce(z, onehot):
    z = z - np.max(z, axis=1, keepdims=True)     # z overwritten; its adjoint reads the old z
    p = np.exp(z) / np.sum(np.exp(z), axis=1, keepdims=True)
    return -np.sum(onehot * np.log(p))


def rebound_in_a_branch(x, flag):
    y = np.sin(x)
    if flag > 0:
        y = y * y             # the old y read by this line's adjoint, only if it ran
    y = np.tanh(y) + x
    return np.sum(y * y)


def test_straight_line_code_keeps_old_values_under_their_own_names():
    rng = np.random.default_rng(5)
    z, onehot = rng.standard_normal((4, 3)), np.eye(3)[[0, 2, 1, 1]]
    g = sg.grad(softmax_ce, wrt=0)
    dz = g(z, onehot)
    assert "stack" not in g.source and "z = z_prev" in g.source
    tz = torch.tensor(z, requires_grad=True)
    (-(torch.tensor(onehot) * torch.log_softmax(tz, dim=1)).sum()).backward()
    np.testing.assert_allclose(dz, tz.grad.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(dz, central(lambda v: softmax_ce(v, onehot), z), rtol=1e-6,
                               atol=1e-8)


@pytest.mark.parametrize("flag", [1.0, -1.0])
def test_a_renamed_value_in_a_branch_and_its_second_derivative(flag):
    x = np.array([0.3, -0.8, 1.1])
    g = sg.grad(rebound_in_a_branch, wrt=0)
    assert "stack" not in g.source
    np.testing.assert_allclose(g(x, flag), central(lambda v: rebound_in_a_branch(v, flag), x),
                               rtol=1e-6, atol=1e-8)
    h = sg.hessian(rebound_in_a_branch, wrt=0)(x, flag)
    fd = np.stack([central(lambda v: g(v, flag)[i], x) for i in range(3)])
    np.testing.assert_allclose(h, fd, rtol=1e-5, atol=1e-7)
