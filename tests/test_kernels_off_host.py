"""The cumprod, svd and qr adjoint kernels off the host: no branch on array values
(which would copy a device array to the host).  Dask stands in for a device here: a
kernel that reads a value computes the graph, which the scheduler below refuses; the
results must then equal NumPy's (checked against finite differences by
tests/test_rules.py) and torch's."""
import numpy as np
import pytest

from srcgrad.rules import namespace
from srcgrad.rules.numpy import reductions
import srcgrad as sg

da = pytest.importorskip("dask.array")
import dask  # noqa: E402

AD = namespace()
RNG = np.random.default_rng(5)


def refuse(*args, **kwargs):
    raise AssertionError("the kernel read an array value (a host copy on a device)")


def lazily(fn, *arrays, chunks=2):
    """``fn`` of the arrays as Dask arrays, built without computing anything, then computed."""
    with dask.config.set(scheduler=refuse):
        out = fn(*(da.from_array(a, chunks=chunks) for a in arrays))
    return dask.compute(out, scheduler="sync")[0]


ZEROS = [[], [(0, 1)], [(0, 1), (0, 3), (2, 0)], [(1, 4), (1, 2), (1, 3)]]


def with_zeros(zeros, shape=(3, 5)):
    x = RNG.normal(size=shape)
    for i, j in zeros:
        x[i, j] = 0.0
    return x


def torch_cumprod_grads(x, axis, g, v):
    """torch's gradient of sum(g * cumprod(x)) and its derivative along v."""
    torch = pytest.importorskip("torch")
    xt = torch.tensor(x, requires_grad=True)
    y = torch.cumprod(xt.reshape(-1) if axis is None else xt, dim=0 if axis is None else axis)
    (grad,) = torch.autograd.grad((torch.tensor(g) * y).sum(), xt, create_graph=True)
    (hv,) = torch.autograd.grad((grad * torch.tensor(v)).sum(), xt)
    return grad.detach().numpy(), hv.numpy()


@pytest.mark.parametrize("zeros", ZEROS, ids=["none", "one", "three", "row"])
@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_cumprod_kernels_read_no_values(zeros, axis):
    x = with_zeros(zeros)
    ans = np.cumprod(x, axis=axis)
    g, dx = RNG.normal(size=ans.shape), RNG.normal(size=x.shape)
    grad = lazily(lambda g_, ans_, x_: AD.cumprod_grad(g_, ans_, x_, axis), g, ans, x)
    tangent = lazily(lambda d_, ans_, x_: AD.cumprod_jvp(d_, ans_, x_, axis), dx, ans, x)
    np.testing.assert_allclose(grad, AD.cumprod_grad(g, ans, x, axis), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(tangent, AD.cumprod_jvp(dx, ans, x, axis), rtol=1e-12, atol=1e-14)
    expect, _ = torch_cumprod_grads(x, axis, g, dx)
    np.testing.assert_allclose(grad, expect, rtol=1e-12, atol=1e-14)


def scan_gradient(x, g):
    """The off-host cumprod adjoint along the last axis, as the kernel computes it."""
    nxt = np.concatenate([x[..., 1:], np.zeros_like(x[..., :1])], axis=-1)
    return reductions._exclusive_cumprod(x) * reductions._affine_scan(g, nxt, reverse=True)


def scan_probe(x, g, v):
    return np.sum(scan_gradient(x, g) * v)


@pytest.mark.parametrize("zeros", ZEROS, ids=["none", "one", "three", "row"])
def test_scan_adjoint_differentiates_again(zeros):
    # the kernels are differentiated through their source for second derivatives
    x = with_zeros(zeros)
    g, v = RNG.normal(size=x.shape), RNG.normal(size=x.shape)
    grad, hv = torch_cumprod_grads(x, 1, g, v)
    np.testing.assert_allclose(scan_gradient(x, g), grad, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(sg.grad(scan_probe, wrt=0)(x, g, v), hv, rtol=1e-10, atol=1e-12)


def svd_case(m, n, zero_extra=True):
    a = RNG.normal(size=(m, n))
    u, s, vt = np.linalg.svd(a, full_matrices=True)
    gu, gs, gvt = RNG.normal(size=u.shape), RNG.normal(size=s.shape), RNG.normal(size=vt.shape)
    k = min(m, n)
    if zero_extra:
        gu[:, k:] = 0
        gvt[k:, :] = 0
    return a, (u, s, vt), (gu, gs, gvt)


def qr_case(zero_extra=True):
    a = RNG.normal(size=(5, 3))
    q, r = np.linalg.qr(a, mode="complete")
    gq, gr = RNG.normal(size=q.shape), RNG.normal(size=r.shape)
    if zero_extra:
        gq[:, 3:] = 0
    return a, (q, r), (gq, gr)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)])
def test_svd_adjoint_reads_no_values(shape):
    a, ans, g = svd_case(*shape)
    out = lazily(lambda a_, u, s, vt, gu, gs, gvt: AD.svd_grad((gu, gs, gvt), (u, s, vt), a_),
                 a, *ans, *g)
    np.testing.assert_allclose(out, AD.svd_grad(g, ans, a), rtol=1e-12, atol=1e-13)


def test_qr_adjoint_reads_no_values():
    a, ans, g = qr_case()
    out = lazily(lambda a_, q, r, gq, gr: AD.qr_grad((gq, gr), (q, r), a_, "complete"),
                 a, *ans, *g, chunks=-1)      # (Dask's solve: square chunks)
    np.testing.assert_allclose(out, AD.qr_grad(g, ans, a, "complete"), rtol=1e-12, atol=1e-13)


def test_extra_vectors_with_a_cotangent_refused():
    # NumPy: the located error; off the host (no value read): a NaN gradient
    a, ans, g = svd_case(5, 3, zero_extra=False)
    with pytest.raises(ValueError, match="full_matrices=False"):
        AD.svd_grad(g, ans, a)
    out = lazily(lambda a_, u, s, vt, gu, gs, gvt: AD.svd_grad((gu, gs, gvt), (u, s, vt), a_),
                 a, *ans, *g)
    assert np.isnan(out).all()
    a, ans, g = qr_case(zero_extra=False)
    with pytest.raises(ValueError, match="mode='reduced'"):
        AD.qr_grad(g, ans, a, "complete")
    out = lazily(lambda a_, q, r, gq, gr: AD.qr_grad((gq, gr), (q, r), a_, "complete"),
                 a, *ans, *g, chunks=-1)
    assert np.isnan(out).all()


def test_array_api_strict_results_equal_numpy():
    xs = pytest.importorskip("array_api_strict")
    x = with_zeros([(0, 1), (2, 3)])
    ans, g = np.cumprod(x, axis=1), RNG.normal(size=x.shape)
    out = AD.cumprod_grad(xs.asarray(g), xs.asarray(ans), xs.asarray(x), 1)
    np.testing.assert_allclose(np.asarray(out), AD.cumprod_grad(g, ans, x, 1), rtol=1e-12)
    a, ans, g = svd_case(5, 3)
    out = AD.svd_grad(tuple(map(xs.asarray, g)), tuple(map(xs.asarray, ans)), xs.asarray(a))
    np.testing.assert_allclose(np.asarray(out), AD.svd_grad(g, ans, a), rtol=1e-12, atol=1e-13)
    a, ans, g = qr_case()
    out = AD.qr_grad(tuple(map(xs.asarray, g)), tuple(map(xs.asarray, ans)), xs.asarray(a),
                     "complete")
    np.testing.assert_allclose(np.asarray(out), AD.qr_grad(g, ans, a, "complete"),
                               rtol=1e-12, atol=1e-13)
