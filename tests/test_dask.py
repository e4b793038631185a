"""Dask: lazy gradients with NumPy parameters and chunked Dask data, values equal to
NumPy's (themselves checked against central differences), one compute per control-flow
decision while the gradient graph is built, none in the reverse sweep."""
import numpy as np
import pytest

import srcgrad as sg

da = pytest.importorskip("dask.array")
from dask.callbacks import Callback  # noqa: E402

RS = np.random.RandomState(0)
XN = RS.randn(400, 5)
YN = (RS.rand(400) > 0.5).astype(float)
W0 = RS.randn(5) * 0.3
X = da.from_array(XN, chunks=100)      # four chunks
Y = da.from_array(YN, chunks=100)


class Computes(Callback):
    """Counts the graphs Dask computes while active."""

    def __init__(self):
        super().__init__()
        self.count = 0

    def _start(self, dsk):
        self.count += 1


def central(f, w, eps=1e-6):
    out = np.zeros_like(w)
    for i in np.ndindex(w.shape):
        e = np.zeros_like(w)
        e[i] = eps
        out[i] = (f(w + e) - f(w - e)) / (2 * eps)
    return out


def logreg(w, X, y):
    p = 1 / (1 + np.exp(-(X @ w)))
    return -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))


def mlp(W1, b1, w2, X, y):
    h = np.tanh(X @ W1 + b1)
    return np.mean((h @ w2 - y) ** 2)


def loop_accumulate(w, X, y):
    loss = 0.0
    for i in range(4):
        loss = loss + np.mean((X @ w - y) ** 2) * (i + 1)
    return loss


def loop_branches(w, X, y):
    total = 0.0
    for i in range(3):
        h = np.tanh(X @ w)
        if np.mean(h) > -10.0:
            total = total + np.var(h) + np.std(h)
        else:
            total = total + np.sum(h)
        w = w * 0.9
    return total


def check_lazy_and_equal(f, args_dask, args_np, argnums, decisions=0):
    with Computes() as c:
        g = sg.grad(f, argnums=argnums)(*args_dask)
        built = c.count
    gs = g if isinstance(g, tuple) else (g,)
    assert all(isinstance(x, da.Array) for x in gs), [type(x) for x in gs]
    assert built == decisions
    gn = sg.grad(f, argnums=argnums)(*args_np)
    gn = gn if isinstance(gn, tuple) else (gn,)
    for a, b in zip(gs, gn):
        assert np.allclose(a.compute(), b, rtol=1e-10, atol=1e-12)
    return gn


def test_logistic_regression_lazy():
    (gn,) = check_lazy_and_equal(logreg, (W0, X, Y), (W0, XN, YN), 0)
    assert np.allclose(gn, central(lambda w: logreg(w, XN, YN), W0), atol=1e-6)


def test_mlp_numpy_parameters_dask_data():
    W1, b1, w2 = RS.randn(5, 7) * 0.3, RS.randn(7) * 0.1, RS.randn(7) * 0.3
    gn = check_lazy_and_equal(mlp, (W1, b1, w2, X, Y), (W1, b1, w2, XN, YN), (0, 1, 2))
    assert np.allclose(gn[0], central(lambda W: mlp(W, b1, w2, XN, YN), W1), atol=1e-6)


def test_loop_accumulates_dask_into_numpy_parameter():
    # ``dw = zeros_like(w)`` then ``dw += <dask>`` in the reverse loop
    (gn,) = check_lazy_and_equal(loop_accumulate, (W0, X, Y), (W0, XN, YN), 0)
    assert np.allclose(gn, central(lambda w: loop_accumulate(w, XN, YN), W0), atol=1e-5)


def test_branch_decisions_computed_once():
    # 3 decisions, each computed once in the forward sweep; var/std add no compute
    (gn,) = check_lazy_and_equal(loop_branches, (W0, X, Y), (W0, XN, YN), 0, decisions=3)
    assert np.allclose(gn, central(lambda w: loop_branches(w, XN, YN), W0), atol=1e-6)


def test_float32_stays_float32():
    X32, Y32, w32 = X.astype(np.float32), Y.astype(np.float32), W0.astype(np.float32)
    g = sg.grad(mlp, argnums=(0, 1, 2))(np.ones((5, 3), np.float32), np.zeros(3, np.float32),
                                        np.ones(3, np.float32), X32, Y32)
    assert all(x.dtype == np.float32 for x in g)
    assert sg.grad(logreg, argnums=0)(w32, X32, Y32).dtype == np.float32


def test_example_trains_on_chunks(capsys):
    import importlib.util
    import pathlib
    path = pathlib.Path(__file__).parent.parent / "examples" / "dask_logreg.py"
    spec = importlib.util.spec_from_file_location("dask_logreg", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.main(["--n", "40000", "--chunks", "10000", "--steps", "2"])   # checks vs NumPy
    out = capsys.readouterr().out
    losses = [float(line.split()[-1]) for line in out.splitlines() if "step" in line]
    assert len(losses) == 4 and losses[1] < losses[0] and losses[3] < losses[2]
