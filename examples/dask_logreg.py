"""Logistic regression and a small MLP trained on a chunked Dask array with srcgrad.

The parameters are NumPy arrays, the data a Dask array of several chunks: each step's
gradient is a lazy Dask graph (nothing is computed while srcgrad builds it), computed
once with ``dask.compute``.  The first step is checked against the same gradient on
NumPy data.  With ``--distributed`` (needs ``pip install distributed``) the steps run on
a ``dask.distributed.LocalCluster``; ``--bench`` times a gradient on NumPy, on Dask's
threads and (if installed) on the cluster.

    python examples/dask_logreg.py [--n 2000000] [--chunks 250000] [--steps 5]
                                   [--distributed] [--bench]
"""
import argparse
import time

import numpy as np
import dask
import dask.array as da

import srcgrad as sg


def logreg_loss(w, b, X, y):
    p = 1 / (1 + np.exp(-(X @ w + b)))
    eps = 1e-9
    return -np.mean(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps))


def mlp_loss(W1, b1, w2, X, y):
    h = np.tanh(X @ W1 + b1)
    p = 1 / (1 + np.exp(-(h @ w2)))
    return np.mean((p - y) ** 2)


def make_data(n, d, chunks, seed=0):
    rs = da.random.RandomState(seed)
    X = rs.normal(size=(n, d), chunks=(chunks, d))
    w_true = np.linspace(-1, 1, d)
    y = (X @ w_true + 0.1 * rs.normal(size=n, chunks=chunks) > 0).astype(float)
    return X, y


def train(loss, params, X, y, steps, lr):
    grad = sg.grad(loss, argnums=tuple(range(len(params))))
    for step in range(steps):
        lazy = grad(*params, X, y)                  # a Dask graph, not computed yet
        value, grads = dask.compute(loss(*params, X, y), lazy)
        params = [p - lr * np.asarray(g) for p, g in zip(params, grads)]
        print(f"  step {step}: loss {float(value):.5f}")
    return params


def check_first_step(loss, params, X, y, rows=20000):
    Xs, ys = X[:rows], y[:rows]
    lazy = sg.grad(loss, argnums=tuple(range(len(params))))(*params, Xs, ys)
    assert all(isinstance(g, da.Array) for g in lazy)
    Xn, yn = dask.compute(Xs, ys)
    ref = sg.grad(loss, argnums=tuple(range(len(params))))(*params, Xn, yn)
    for g, r in zip(dask.compute(*lazy), ref):
        assert np.allclose(g, r, rtol=1e-10, atol=1e-12), "Dask and NumPy gradients differ"


def bench(X, y, d, client=None):
    w, b = np.zeros(d), 0.0
    grad = sg.grad(logreg_loss, argnums=(0, 1))
    Xn, yn = dask.compute(X, y)
    rows = [("NumPy", lambda: grad(w, b, Xn, yn)),
            ("Dask threads", lambda: dask.compute(grad(w, b, X, y), scheduler="threads"))]
    if client is not None:
        rows.append(("Dask distributed", lambda: client.compute(grad(w, b, X, y), sync=True)))
    print(f"{'logistic gradient, N = ' + str(X.shape[0]):<34} {'seconds':>8}")
    for name, run in rows:
        run()
        t = time.perf_counter()
        run()
        print(f"{name:<34} {time.perf_counter() - t:>8.3f}")


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=2_000_000)
    p.add_argument("--d", type=int, default=8)
    p.add_argument("--chunks", type=int, default=250_000)
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--distributed", action="store_true")
    p.add_argument("--bench", action="store_true")
    args = p.parse_args(argv)
    client = None
    if args.distributed:
        from dask.distributed import Client, LocalCluster
        client = Client(LocalCluster(n_workers=2, threads_per_worker=2, processes=True))
        print("cluster:", client)
    X, y = make_data(args.n, args.d, args.chunks)
    print(f"data: {X.shape} in {X.numblocks[0]} chunks of {args.chunks} rows")
    rs = np.random.RandomState(1)
    check_first_step(logreg_loss, [np.zeros(args.d), 0.0], X, y)
    print("logistic regression")
    train(logreg_loss, [np.zeros(args.d), 0.0], X, y, args.steps, lr=1.0)
    mlp = [rs.normal(size=(args.d, 16)) * 0.3, np.zeros(16), rs.normal(size=16) * 0.3]
    check_first_step(mlp_loss, mlp, X, y)
    print("MLP")
    train(mlp_loss, mlp, X, y, args.steps, lr=2.0)
    if args.bench:
        bench(X, y, args.d, client)
    if client is not None:
        client.close()


if __name__ == "__main__":
    main()
