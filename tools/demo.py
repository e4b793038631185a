"""tools/demo: each example function beside the gradient srcgrad generates for it, each
gradient checked against central finite differences, and the MLP's training loss
(a PNG when matplotlib is installed)."""
import importlib.util
import inspect
import os
import shutil
import sys

import numpy as np

import srcgrad as sg

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLOT = os.path.join(ROOT, "build", "demo", "mlp_loss.png")


def _example(name):
    path = os.path.join(ROOT, "examples", name)
    spec = importlib.util.spec_from_file_location(f"example_{name[:-3]}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cases():
    """(title, function, args, wrt) for each example, with the inputs its script uses."""
    seed, loop, rnn, mlp = (_example(n) for n in ("seed_loss.py", "while_loop.py",
                                                  "rnn.py", "mlp.py"))
    rng = np.random.default_rng(0)
    H, D, T, B = 8, 4, 5, 3
    rnn_args = (rng.standard_normal((H, H)) * 0.3, rng.standard_normal((D, H)) * 0.3,
                np.zeros(H), rng.standard_normal((T, B, D)), np.zeros((B, H)))
    params = mlp.init(np.random.default_rng(0))
    x = np.random.default_rng(1).standard_normal((32, 20))
    labels = np.random.default_rng(2).integers(0, 10, size=32)
    return [
        ("examples/seed_loss.py: a mean of a broadcast product",
         seed.loss.__srcgrad_wrapped__, (np.array([[1., 2.], [3., 4.]]), 2.0, 3.0),
         ("w1", "w2")),
        ("examples/while_loop.py: a data-dependent while loop", loop.doubling,
         (np.array([-0.8, 1.1, 0.75]), np.array([0.1, 1.0, 0.0001])), "x"),
        ("examples/rnn.py: a tanh RNN over a Python for loop", rnn.rnn_loss, rnn_args,
         ("W", "U", "b")),
        ("examples/mlp.py: a 2-layer MLP, gradient of its parameter dict", mlp.mlp_loss,
         (params, x, labels), "params"),
    ], mlp


# -- finite differences ------------------------------------------------------------------

def _leaves(v, path=()):
    if isinstance(v, dict):
        return [leaf for k in v for leaf in _leaves(v[k], path + (k,))]
    return [(path, v)]


def _get(v, path):
    for k in path:
        v = v[k]
    return v


def _with(v, path, new):
    if not path:
        return new
    out = dict(v)
    out[path[0]] = _with(v[path[0]], path[1:], new)
    return out


def finite_difference_error(f, args, wrt, grads, eps=1e-6):
    """The largest |analytic - numeric| / (1 + |numeric|) over every entry of ``wrt``."""
    names = list(inspect.signature(f).parameters)
    wrt = (wrt,) if isinstance(wrt, str) else wrt
    grads = (grads,) if len(wrt) == 1 else grads
    worst = 0.0
    for w, g in zip(wrt, grads):
        i = names.index(w)
        for path, value in _leaves(args[i]):
            value = np.asarray(value, dtype=np.float64)
            analytic = np.asarray(_get(g, path), dtype=np.float64)
            for idx in np.ndindex(*value.shape):
                def at(delta):
                    moved = value.copy()
                    moved[idx] += delta
                    new = moved if moved.shape else float(moved)
                    a = list(args)
                    a[i] = _with(args[i], path, new)
                    return f(*a)
                numeric = (at(eps) - at(-eps)) / (2 * eps)
                worst = max(worst, abs(analytic[idx] - numeric) / (1 + abs(numeric)))
    return worst


# -- printing ------------------------------------------------------------------------------

def side_by_side(left, right, width):
    """Two texts in columns (or one after the other when the terminal is narrow)."""
    ll, rl = left.rstrip("\n").split("\n"), right.rstrip("\n").split("\n")
    lw = max(len(s) for s in ll) + 2
    if lw + 3 + max(len(s) for s in rl) > width:
        return left.rstrip("\n") + "\n\n" + right.rstrip("\n")
    rows = []
    for i in range(max(len(ll), len(rl))):
        a = ll[i] if i < len(ll) else ""
        b = rl[i] if i < len(rl) else ""
        rows.append(f"{a:<{lw}} │ {b}".rstrip())
    return "\n".join(rows)


def main():
    width = shutil.get_terminal_size((160, 40)).columns
    cases, mlp = _cases()
    failures = 0
    for title, f, args, wrt in cases:
        print("=" * min(width, 100))
        print(title)
        print("=" * min(width, 100))
        print(side_by_side(inspect.getsource(f), sg.source(f, wrt=wrt), width))
        grads = sg.grad(f, wrt=wrt)(*args)
        err = finite_difference_error(f, args, wrt, grads)
        ok = err < 1e-5
        failures += not ok
        print(f"\n{'✓' if ok else '✗'} gradient {'matches' if ok else 'DOES NOT match'} "
              f"central finite differences (largest relative difference {err:.1e})\n")
    train(mlp)
    print("all gradients check out" if not failures else f"{failures} gradient(s) wrong")
    return 1 if failures else 0


def train(mlp, steps=60, lr=0.5):
    rng = np.random.default_rng(0)
    params = mlp.init(rng)
    x = rng.standard_normal((64, 20))
    labels = (x[:, 0] > 0).astype(int) + 2 * (x[:, 1] > 0).astype(int)
    step = sg.value_and_grad(mlp.mlp_loss, wrt="params")
    losses = []
    for _ in range(steps):
        value, g = step(params, x, labels)
        losses.append(float(value))
        params = {k: params[k] - lr * g[k] for k in params}
    print(f"MLP training, {steps} steps of gradient descent: loss {losses[0]:.3f} -> "
          f"{losses[-1]:.3f}")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(matplotlib is not installed, so no plot: `.venv/bin/python -m pip install "
              "matplotlib` and run tools/demo again for a PNG of the loss)")
        return
    os.makedirs(os.path.dirname(PLOT), exist_ok=True)
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(range(1, steps + 1), losses)
    ax.set_xlabel("step")
    ax.set_ylabel("cross-entropy loss")
    ax.set_title("examples/mlp.py trained with sg.value_and_grad")
    fig.tight_layout()
    fig.savefig(PLOT, dpi=120)
    print(f"wrote {os.path.relpath(PLOT, ROOT)}")


if __name__ == "__main__":
    sys.exit(main())
