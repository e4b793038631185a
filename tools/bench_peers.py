"""The ``peers`` and ``memory`` sections of tools/bench.py: srcgrad beside hand-written
NumPy, HIPS autograd, PyTorch (eager, CPU, float64) and jax.jit, in one process.

Each case is one loss with its hand-written NumPy gradient; every candidate's gradient
is checked equal to the hand-written one before it is timed, and the table gives each
one's median time over the hand-written one's (lower is better).  A peer that is not
installed, or cannot take a case (JAX has no reverse-mode ``while_loop``), gets ``-``.
The NumPy loss functions are written once: autograd and JAX run the same code with
``np`` bound to ``autograd.numpy`` / ``jax.numpy``; PyTorch has its own spelling.
"""
import statistics
import sys
import time
import tracemalloc
import types

import numpy as np

import srcgrad as sg


# -- the losses (NumPy) and their hand-written gradients --------------------------

def seed_loss(x, w1, w2):
    l1 = x * w1
    l2 = l1 + w2
    return l2.mean()


def seed_loss_hand(x, w1, w2):
    l1 = x * w1
    l2 = l1 + w2
    g = np.full(l2.shape, 1.0 / l2.size)
    return np.sum(g * x), np.sum(g)


def mlp_loss(W1, b1, W2, b2, x, onehot):
    h = np.tanh(x @ W1 + b1)
    z = h @ W2 + b2
    z = z - np.max(z, axis=1, keepdims=True)
    p = np.exp(z) / np.sum(np.exp(z), axis=1, keepdims=True)
    return -np.sum(onehot * np.log(p)) / x.shape[0]


def mlp_hand(W1, b1, W2, b2, x, onehot):
    n = x.shape[0]
    a = x @ W1 + b1
    h = np.tanh(a)
    z = h @ W2 + b2
    z = z - np.max(z, axis=1, keepdims=True)
    e = np.exp(z)
    p = e / np.sum(e, axis=1, keepdims=True)
    dz = (p - onehot) / n
    dW2 = h.T @ dz
    db2 = dz.sum(axis=0)
    dh = dz @ W2.T
    da = dh * (1 - h * h)
    dW1 = x.T @ da
    db1 = da.sum(axis=0)
    return dW1, db1, dW2, db2


def rnn_loss(W, U, b, xs, h0):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(h @ W + xs[t] @ U + b)
    return np.sum(h * h)


def rnn_hand(W, U, b, xs, h0):
    hs = [h0]
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(h @ W + xs[t] @ U + b)
        hs.append(h)
    dh = 2 * h
    dW = np.zeros_like(W)
    dU = np.zeros_like(U)
    db = np.zeros_like(b)
    for t in reversed(range(xs.shape[0])):
        da = dh * (1 - hs[t + 1] ** 2)
        dW += hs[t].T @ da
        dU += xs[t].T @ da
        db += da.sum(axis=0)
        dh = da @ W.T
    return dW, dU, db


def ode(x, a, b):
    dt = 0.01
    for i in range(100):
        x = x + dt * (a * x - b * x * x)
    return x


def ode_hand(x, a, b):
    dt = 0.01
    xs = []
    for i in range(100):
        xs.append(x)
        x = x + dt * (a * x - b * x * x)
    dx = 1.0
    for x in reversed(xs):
        dx = dx * (1 + dt * (a - 2 * b * x))
    return dx


def doubling(x, v):
    y = x * 2
    while np.linalg.norm(y) < 1000:
        y = y * 2
    return np.sum(y * v)


def doubling_hand(x, v):
    y = x * 2
    k = 1
    while np.linalg.norm(y) < 1000:
        y = y * 2
        k += 1
    return v * 2.0 ** k


def logistic(w, X, y):
    return np.mean(np.logaddexp(0.0, -y * (X @ w)))


def logistic_hand(w, X, y):
    m = -y * (X @ w)
    return X.T @ (-y / (1.0 + np.exp(-m))) / X.shape[0]


# -- the same losses in PyTorch ---------------------------------------------------

def _torch_losses(torch):
    def seed(x, w1, w2):
        return (x * w1 + w2).mean()

    def mlp(W1, b1, W2, b2, x, onehot):
        h = torch.tanh(x @ W1 + b1)
        z = h @ W2 + b2
        z = z - z.max(dim=1, keepdim=True).values
        p = torch.exp(z) / torch.exp(z).sum(dim=1, keepdim=True)
        return -(onehot * torch.log(p)).sum() / x.shape[0]

    def rnn(W, U, b, xs, h0):
        h = h0
        for t in range(xs.shape[0]):
            h = torch.tanh(h @ W + xs[t] @ U + b)
        return (h * h).sum()

    def ode_t(x, a, b):
        dt = 0.01
        for i in range(100):
            x = x + dt * (a * x - b * x * x)
        return x

    def doubling_t(x, v):
        y = x * 2
        while torch.linalg.norm(y) < 1000:
            y = y * 2
        return (y * v).sum()

    def logistic_t(w, X, y):
        return torch.logaddexp(torch.zeros((), dtype=w.dtype), -y * (X @ w)).mean()
    return {"seed": seed, "mlp": mlp, "rnn": rnn, "ode": ode_t, "doubling": doubling_t,
            "logistic": logistic_t}


def _with_np(f, module):
    """``f``'s code with its global ``np`` bound to ``module`` (autograd.numpy, jax.numpy)."""
    return types.FunctionType(f.__code__, {**f.__globals__, "np": module}, f.__name__)


class Case:
    def __init__(self, name, key, loss, hand, args, wrt, jit=True):
        self.name, self.key, self.loss, self.hand = name, key, loss, hand
        self.args, self.wrt, self.jit = args, tuple(wrt), jit


def cases(quick=False):
    rng = np.random.default_rng(0)
    out = [Case("seed loss (2x2)", "seed", seed_loss, seed_loss_hand,
                (np.array([[1., 2.], [3., 4.]]), 2.0, 3.0), (1, 2))]
    d_in, classes, batch = 784, 10, 32
    for hidden in ([64, 256] if quick else [64, 256, 1024, 4096]):
        args = (rng.standard_normal((d_in, hidden)) / np.sqrt(d_in), np.zeros(hidden),
                rng.standard_normal((hidden, classes)) / np.sqrt(hidden), np.zeros(classes),
                rng.standard_normal((batch, d_in)), np.eye(classes)[rng.integers(0, classes,
                                                                             batch)])
        out.append(Case(f"MLP softmax CE, hidden {hidden}", "mlp", mlp_loss, mlp_hand, args,
                        (0, 1, 2, 3)))
    for H in ([32] if quick else [32, 256]):
        args = (rng.standard_normal((H, H)) * 0.3 / np.sqrt(H),
                rng.standard_normal((H, H)) * 0.3 / np.sqrt(H), np.zeros(H),
                rng.standard_normal((50, 16, H)), np.zeros((16, H)))
        out.append(Case(f"tanh RNN 50 steps, hidden {H}", "rnn", rnn_loss, rnn_hand, args,
                        (0, 1, 2)))
    out.append(Case("scalar Euler ODE, 100 steps", "ode", ode, ode_hand, (0.5, 1.0, 0.3), (0,)))
    out.append(Case("while norm(y) < 1000: y = y * 2", "doubling", doubling, doubling_hand,
                    (np.array([-0.8, 1.1, 0.75]), np.array([0.1, 1.0, 0.0001])), (0,),
                    jit=False))
    n, d = (20000, 50) if quick else (200000, 50)
    X = rng.standard_normal((n, d))
    w_true = rng.standard_normal(d)
    y = np.where(X @ w_true + rng.standard_normal(n) > 0, 1.0, -1.0)
    out.append(Case(f"logistic regression N={n:.0e} D={d}", "logistic", logistic,
                    logistic_hand, (rng.standard_normal(d) * 0.1, X, y), (0,)))
    return out


# -- the peers: each returns a no-argument gradient step, or None --------------------

def _peers():
    found = {}
    try:
        import autograd
        import autograd.numpy as anp
        found["autograd"] = (autograd, anp)
    except ImportError:
        pass
    try:
        import torch
        torch.set_num_threads(1)
        found["torch"] = torch
    except ImportError:
        pass
    try:
        import jax
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp
        found["jax"] = (jax, jnp)
    except ImportError:
        pass
    return found


def _step(peer, lib, case):
    """A no-argument function computing ``case``'s gradient with ``peer``, or None."""
    args = case.args
    if peer == "srcgrad":
        g = sg.grad(case.loss, wrt=case.wrt)
        return lambda: g(*args)
    if peer == "autograd":
        autograd, anp = lib
        g = autograd.grad(_with_np(case.loss, anp), argnum=case.wrt)
        return lambda: g(*args)
    if peer == "torch":
        torch = lib
        f = _torch_losses(torch)[case.key]
        ts = [torch.tensor(a, dtype=torch.float64, requires_grad=i in case.wrt)
              for i, a in enumerate(args)]
        params = [ts[i] for i in case.wrt]
        return lambda: torch.autograd.grad(f(*ts), params)
    if peer == "jax":
        if not case.jit:
            return None      # (a data-dependent while loop: no reverse mode in JAX)
        jax, jnp = lib
        g = jax.jit(jax.grad(_with_np(case.loss, jnp), argnums=case.wrt))
        jargs = [jnp.asarray(a) for a in args]
        return lambda: jax.block_until_ready(g(*jargs))
    raise ValueError(peer)


def _as_numpy(grads):
    grads = grads if isinstance(grads, (tuple, list)) else (grads,)
    out = []
    for g in grads:
        if hasattr(g, "detach"):
            g = g.detach().numpy()
        out.append(np.asarray(g, dtype=float))
    return out


def _agrees(got, want):
    want = want if isinstance(want, tuple) else (want,)
    return len(got) == len(want) and all(
        np.allclose(u, v, rtol=1e-6, atol=1e-9) for u, v in zip(got, want))


def interleaved(fns, min_time, repeat, summary=statistics.median):
    """Median (or ``summary``) seconds per call of each function, samples taken
    round-robin."""
    counts = {}
    for key, fn in fns.items():
        n = 1
        while True:
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            if time.perf_counter() - t0 > min_time / repeat or n > 1e6:
                break
            n *= 2
        counts[key] = n
    samples = {key: [] for key in fns}
    for _ in range(repeat):
        for key, fn in fns.items():
            t0 = time.perf_counter()
            for _ in range(counts[key]):
                fn()
            samples[key].append((time.perf_counter() - t0) / counts[key])
    return {key: summary(v) for key, v in samples.items()}


def peers_section(args):
    """The markdown table: hand-written NumPy in us, every other column a ratio to it."""
    found = _peers()
    columns = ["srcgrad", "autograd", "torch", "jax"]
    missing = [c for c in columns[1:] if c not in found]
    print()
    print("gradient time / hand-written NumPy gradient time (lower is better), one core")
    if missing:
        print(f"(not installed: {', '.join(missing)})")
    print()
    print("| case | NumPy by hand (us) | srcgrad | autograd | torch eager | jax.jit |")
    print("|---|---:|---:|---:|---:|---:|")
    for case in cases(args.quick):
        want = case.hand(*case.args)
        fns = {"hand": lambda c=case: c.hand(*c.args)}
        for peer in columns:
            if peer != "srcgrad" and peer not in found:
                continue
            step = _step(peer, found.get(peer), case)
            if step is None:
                continue
            got = _as_numpy(step())
            if not _agrees(got, want):
                raise SystemExit(f"{case.name}: {peer}'s gradient differs from the "
                                 f"hand-written one")
            fns[peer] = step
        times = interleaved(fns, min_time=0.1 if args.quick else 0.3,
                            repeat=5 if args.quick else 9)
        t0 = times["hand"]
        cells = [f"{times[p] / t0:.2f}" if p in times else "-" for p in columns]
        print(f"| {case.name} | {t0 * 1e6:.1f} | " + " | ".join(cells) + " |")
        sys.stdout.flush()


def specialize_section(args):
    """srcgrad's code specialized to the arguments' shapes (the default) against
    ``specialize=False`` (one code for every shape), side by side in one process, each
    a ratio to the hand-written gradient; the minimum of the samples (the machine's
    other jobs only ever add time)."""
    print()
    print("specialized to the shapes / specialize=False, each over the hand-written "
          "gradient (min of round-robin samples), one core")
    print()
    print("| case | NumPy by hand (us) | specialized | specialize=False | un-broadcasts |")
    print("|---|---:|---:|---:|---|")
    for case in cases(args.quick):
        want = case.hand(*case.args)
        spec = sg.grad(case.loss, wrt=case.wrt)
        general = sg.grad(case.loss, wrt=case.wrt, specialize=False)
        for g in (spec, general):
            if not _agrees(_as_numpy(g(*case.args)), want):
                raise SystemExit(f"{case.name}: srcgrad's gradient differs from the "
                                 f"hand-written one")
        fns = {"hand": lambda c=case: c.hand(*c.args),
               "spec": lambda c=case, g=spec: g(*c.args),
               "general": lambda c=case, g=general: g(*c.args)}
        times = interleaved(fns, min_time=0.1 if args.quick else 0.3,
                            repeat=5 if args.quick else 11, summary=min)
        t0 = times["hand"]
        kept = f"{spec.source.count('unbroadcast(')} of {general.source.count('unbroadcast(')}"
        print(f"| {case.name} | {t0 * 1e6:.1f} | {times['spec'] / t0:.2f} | "
              f"{times['general'] / t0:.2f} | {kept} |")
        sys.stdout.flush()


# -- memory: bytes kept per step ---------------------------------------------------

def long_ode(x, a, b):
    dt = 0.0001
    for i in range(10000):
        x = x + dt * (a * x - b * x * x)
    return x


def _peak(fn):
    """tracemalloc's peak (bytes above what was allocated before) while ``fn()`` runs."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    out = fn()
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    del out
    return peak


def memory_section(args):
    """Bytes per step the gradient keeps beyond the forward pass, against one step's
    state: tracemalloc's peak during the gradient minus its peak during the forward."""
    found = _peers()
    print()
    print("memory: (peak of the gradient - peak of the forward) / steps, by tracemalloc")
    g = sg.grad(long_ode, wrt=0)
    g(0.5, 1.0, 0.3)
    fwd = _peak(lambda: long_ode(0.5, 1.0, 0.3))
    per = (_peak(lambda: g(0.5, 1.0, 0.3)) - fwd) / 10000
    report = sg.memory_report(long_ode, 0.5, 1.0, 0.3, wrt=0)
    line = (f"10,000-step scalar loop: srcgrad keeps {per:.0f} B per step "
            f"(sg.memory_report: {report.total_bytes / 10000:.0f} B per step); the state is "
            f"one float (24 B, 8 of them the number)")
    if "autograd" in found:
        autograd, anp = found["autograd"]
        ga = autograd.grad(_with_np(long_ode, anp))
        ga(0.5, 1.0, 0.3)
        line += f"; autograd keeps {(_peak(lambda: ga(0.5, 1.0, 0.3)) - fwd) / 10000:.0f} B"
    print(line)
    rng = np.random.default_rng(0)
    T, B = 50, 16
    for H in ([32] if args.quick else [32, 256]):
        a = (rng.standard_normal((H, H)) * 0.3 / np.sqrt(H),
             rng.standard_normal((H, H)) * 0.3 / np.sqrt(H), np.zeros(H),
             rng.standard_normal((T, B, H)), np.zeros((B, H)))
        g = sg.grad(rnn_loss, wrt=(0, 1, 2))
        g(*a)
        fwd = _peak(lambda: rnn_loss(*a))
        per = (_peak(lambda: g(*a)) - fwd) / T
        hand = (_peak(lambda: rnn_hand(*a)) - fwd) / T
        report = sg.memory_report(rnn_loss, *a, wrt=(0, 1, 2))
        state = a[4].nbytes
        print(f"tanh RNN 50 steps, batch {B}, hidden {H}: srcgrad keeps {per / 1e3:.1f} kB per "
              f"step ({per / state:.2f} hidden states; sg.memory_report: "
              f"{report.total_bytes / T / 1e3:.1f} kB); the hand-written gradient "
              f"{hand / 1e3:.1f} kB ({hand / state:.2f}); one hidden state is "
              f"{state / 1e3:.1f} kB")
        sys.stdout.flush()
