"""torch.linalg's decompositions with several results (svd, eigh, qr, slogdet; eigvalsh
with a gradient): one node, PyTorch's names and return types, values and gradients
against real torch (float64, float32) and central finite differences in float64."""
import numpy as np
import pytest

import srcgrad as sg

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(21)


def _spd(n, batch=()):
    a = RNG.standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


# name -> (input, loss of the library's results: invariant to the sign of singular /
# eigen vectors, so that it is a function of the input), result type, node
CASES = {
    "svd": (RNG.standard_normal((5, 3)),
            lambda L, A: (lambda r: r.S.pow(3).sum() + (r.U[:, :1] @ r.Vh[:1]).pow(2).sum()
                          + (r.U @ L.diag(r.S) @ r.Vh).sum())(
                L.linalg.svd(A, full_matrices=False)),
            "linalg_svd", "LinalgSvdBackward0"),
    "svd_batched": (RNG.standard_normal((2, 3, 4)),
                    lambda L, A: (lambda r: r.S.exp().sum() + (r.U @ r.Vh).pow(2).sum())(
                        L.linalg.svd(A, full_matrices=False)),
                    "linalg_svd", "LinalgSvdBackward0"),
    "eigh": (_spd(4), lambda L, A: (lambda r: (r.eigenvectors @ L.diag(r.eigenvalues.sqrt())
                                               @ r.eigenvectors.mT).sum()
                                    + r.eigenvectors[:, 0].pow(2).sum())(L.linalg.eigh(A)),
             "linalg_eigh", "LinalgEighBackward0"),
    "eigh_upper": (_spd(3, (2,)), lambda L, A: L.linalg.eigh(A, UPLO="U").eigenvalues.pow(2)
                   .sum(), "linalg_eigh", "LinalgEighBackward0"),
    "qr": (RNG.standard_normal((5, 3)),
           lambda L, A: (lambda r: r.Q.sum() + r.R.pow(2).sum())(L.linalg.qr(A)),
           "linalg_qr", "LinalgQrBackward0"),
    "slogdet": (RNG.standard_normal((2, 3, 3)),
                lambda L, A: (lambda r: (r.logabsdet * r.sign).sum())(L.linalg.slogdet(A)),
                "linalg_slogdet", "LinalgSlogdetBackward0"),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", list(CASES))
def test_matches_torch(case, dtype):
    a, loss, kind, node = CASES[case]
    a = a.astype(dtype)
    As, At = sg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    name = case.split("_")[0]
    rs = getattr(sg.linalg, name)(As)
    rt = getattr(torch.linalg, name)(At)
    assert type(rs).__name__ == type(rt).__name__ == kind
    assert len(rs) == len(rt) and all(x.grad_fn is rs[0].grad_fn for x in rs)
    assert rs[0].grad_fn.name() == rt[0].grad_fn.name() == node
    for x, y in zip(rs, rt):
        assert tuple(x.shape) == tuple(y.shape) and x.dtype.is_floating_point
    ls, lt = loss(sg, As), loss(torch, At)
    tol = 1e-9 if dtype == "float64" else 2e-3
    np.testing.assert_allclose(ls.item(), lt.item(), rtol=tol)
    ls.backward()
    lt.backward()
    np.testing.assert_allclose(As.grad.numpy(), At.grad.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("case", list(CASES))
def test_finite_differences(case):
    a, loss, _, _ = CASES[case]
    symmetric = case.startswith("eigh")
    # eigh's input is read as symmetric: differentiate through (X + X^T) / 2
    f = (lambda L, X: loss(L, (X + X.mT) / 2)) if symmetric else loss
    X = sg.tensor(a, requires_grad=True)
    f(sg, X).backward()
    fd = np.zeros_like(a)
    for i in np.ndindex(a.shape):
        d = np.zeros_like(a)
        d[i] = 1e-6
        fd[i] = (f(sg, sg.tensor(a + d)).item() - f(sg, sg.tensor(a - d)).item()) / 2e-6
    np.testing.assert_allclose(X.grad.numpy(), fd, rtol=1e-6, atol=1e-7)


def test_eigvalsh_gradient_is_symmetric_as_torchs():
    a = _spd(4)
    As, At = sg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    ws, wt = sg.linalg.eigvalsh(As), torch.linalg.eigvalsh(At)
    assert ws.grad_fn.name() == wt.grad_fn.name()
    (ws * sg.arange(4.0)).sum().backward()
    (wt * torch.arange(4.0)).sum().backward()
    np.testing.assert_allclose(As.grad.numpy(), At.grad.numpy(), atol=1e-12)
    with sg.no_grad():
        np.testing.assert_allclose(sg.linalg.eigvalsh(As).numpy(), wt.detach().numpy())


def test_errors_and_no_graph():
    A = sg.tensor(RNG.standard_normal((4, 3)), requires_grad=True)
    with sg.no_grad():
        assert not sg.linalg.svd(A).U.requires_grad
    r = sg.linalg.qr(A, mode="r")
    assert tuple(r.Q.shape) == tuple(torch.linalg.qr(torch.tensor(A.detach().numpy()),
                                                     mode="r").Q.shape)
    with pytest.raises(RuntimeError, match="unrecognized mode"):
        sg.linalg.qr(A, mode="full")
    U = sg.linalg.svd(A, full_matrices=False).U
    U.sum().backward(retain_graph=True)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        with sg.no_grad():
            A.mul_(2.0)
        U.sum().backward()
    B = sg.tensor(_spd(3), requires_grad=True)
    g, = sg.autograd.grad(sg.linalg.slogdet(B).logabsdet, B, create_graph=True)
    with pytest.raises(RuntimeError):          # once differentiable: refused, not wrong
        g.sum().backward()
