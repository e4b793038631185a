"""Benchmarks: srcgrad's generated gradients next to hand-written NumPy gradients.

Everything runs in one process, side by side; each row prints medians and the
ratio srcgrad / hand-written (and srcgrad / peer where a peer is installed).
Run: tools/demo-style venv, then `python tools/bench.py [--quick] [SECTION]`, where
SECTION is one of all (the default), compile, tensor, higher, peers (srcgrad, autograd,
torch and jax.jit against hand-written NumPy, as a markdown table), memory (bytes kept
per step), overhead (the cost of sg.grad's wrapper per cached call), nn (an nn.Module
training step, ``import srcgrad as torch`` against PyTorch eager), checkpoint (an RNN
with and without max_memory) and scipy (likelihoods through SciPy: a Gaussian mixture
with logsumexp and norm.logpdf, a Gaussian process with cholesky, cho_solve and slogdet;
tools/bench_scipy.py), specialize (code specialized to the arguments' shapes against
specialize=False).  peers, memory, overhead, nn, checkpoint, scipy and specialize run
pinned to one core with single-threaded BLAS.
"""
import argparse
import array
import importlib.util
import os
import tempfile
import statistics
import sys
import time
import types
import tracemalloc

_ONE_CORE = ("peers", "memory", "overhead", "nn", "checkpoint", "scipy", "specialize")
if any(a in _ONE_CORE for a in sys.argv[1:]):
    # before NumPy, torch and XLA start their thread pools: one thread each, one core
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")
    os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                                       "intra_op_parallelism_threads=1")
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {0})

import numpy as np  # noqa: E402

import srcgrad as sg  # noqa: E402

# the losses and their hand-written gradients, written once (bench_peers: its peers
# run the same NumPy code)
from bench_peers import (mlp_hand, mlp_loss, ode, ode_hand, rnn_hand,  # noqa: E402
                         rnn_loss, seed_loss, seed_loss_hand)


def median_time(fn, min_time=0.2, repeat=7):
    fn()
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t0
        if dt > min_time / repeat or n > 1e6:
            break
        n *= 2
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        samples.append((time.perf_counter() - t0) / n)
    return statistics.median(samples)


def row(name, t_sg, t_ref, extra=""):
    print(f"{name:<34} {t_sg * 1e6:>11.1f} {t_ref * 1e6:>11.1f} {t_sg / t_ref:>7.2f}  {extra}")
    sys.stdout.flush()


def check(a, b, name):
    a = a if isinstance(a, tuple) else (a,)
    b = b if isinstance(b, tuple) else (b,)
    for u, v in zip(a, b):
        if not np.allclose(u, v, rtol=1e-6, atol=1e-9):
            raise SystemExit(f"{name}: srcgrad and the hand-written gradient disagree")


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="smaller sizes, shorter timing")
    p.add_argument("--tensor-only", action="store_true", help="only the Tensor runtime section")
    p.add_argument("--higher-only", action="store_true", help="only the HVP / Jacobian section")
    p.add_argument("section", nargs="?", default="all",
                   choices=("all", "compile", "tensor", "higher") + _ONE_CORE,
                   help="run one section alone (compile: first-call time against size)")
    args = p.parse_args(argv)
    if args.section in _ONE_CORE:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import bench_peers
        import bench_checkpoint
        sections = {"peers": bench_peers.peers_section, "memory": bench_peers.memory_section,
                    "overhead": overhead_section, "nn": nn_section,
                    "checkpoint": bench_checkpoint.checkpoint_section, "scipy": scipy_section,
                    "specialize": bench_peers.specialize_section}
        sections[args.section](args)
        return
    if args.tensor_only or args.section == "tensor":
        tensor_section(args)
        return
    if args.higher_only or args.section == "higher":
        higher_section(args)
        return
    if args.section == "compile":
        compile_section(args)
        return
    rng = np.random.default_rng(0)
    print(f"{'benchmark':<34} {'srcgrad us':>11} {'hand us':>11} {'ratio':>7}")

    x = np.array([[1., 2.], [3., 4.]])
    g = sg.grad(seed_loss, wrt=("w1", "w2"))
    check(g(x, 2.0, 3.0), seed_loss_hand(x, 2.0, 3.0), "seed")
    row("seed loss (2x2)", median_time(lambda: g(x, 2.0, 3.0)),
        median_time(lambda: seed_loss_hand(x, 2.0, 3.0)))

    # compile time and call overhead
    def fresh():
        # the same code in a new function object, with the cache emptied (it is keyed
        # by code): compiled anew, as a first call is
        from srcgrad.compiler import driver
        driver._CACHE.clear()
        return types.FunctionType(mlp_loss.__code__, mlp_loss.__globals__, "mlp_loss")
    d_in, classes, batch = 784, 10, 32
    hiddens = [64, 256] if args.quick else [64, 256, 1024, 4096]
    for hidden in hiddens:
        W1 = rng.standard_normal((d_in, hidden)) / np.sqrt(d_in)
        b1 = np.zeros(hidden)
        W2 = rng.standard_normal((hidden, classes)) / np.sqrt(hidden)
        b2 = np.zeros(classes)
        xb = rng.standard_normal((batch, d_in))
        onehot = np.eye(classes)[rng.integers(0, classes, batch)]
        gm = sg.grad(mlp_loss, wrt=(0, 1, 2, 3))
        a = (W1, b1, W2, b2, xb, onehot)
        check(gm(*a), mlp_hand(*a), "mlp")
        row(f"MLP hidden {hidden} (batch 32)", median_time(lambda: gm(*a)),
            median_time(lambda: mlp_hand(*a)))

    t0 = time.perf_counter()
    f = fresh()
    gf = sg.grad(f, wrt=(0, 1, 2, 3))
    gf(*a)
    compile_ms = (time.perf_counter() - t0) * 1e3
    # the wrapper's cost per call (argument binding, kinds, cache lookup), measured on
    # the seed loss, where the generated code itself is a few microseconds
    gen = g._last
    overhead = median_time(lambda: g(x, 2.0, 3.0)) - median_time(lambda: gen(x, 2.0, 3.0))
    print(f"first compile of the MLP loss: {compile_ms:.1f} ms; cached-call overhead of "
          f"sg.grad's wrapper: {overhead * 1e6:.2f} us")

    T, B = 50, 16
    for H in ([32] if args.quick else [32, 256]):
        W = rng.standard_normal((H, H)) * 0.3 / np.sqrt(H)
        U = rng.standard_normal((H, H)) * 0.3 / np.sqrt(H)
        b = np.zeros(H)
        xs = rng.standard_normal((T, B, H))
        h0 = np.zeros((B, H))
        gr = sg.grad(rnn_loss, wrt=(0, 1, 2))
        a = (W, U, b, xs, h0)
        check(gr(*a), rnn_hand(*a), "rnn")
        row(f"tanh RNN 50 steps hidden {H}", median_time(lambda: gr(*a)),
            median_time(lambda: rnn_hand(*a)))

    go = sg.grad(ode, wrt=0)
    check(go(0.5, 1.0, 0.3), ode_hand(0.5, 1.0, 0.3), "ode")
    row("scalar ODE loop, 100 steps", median_time(lambda: go(0.5, 1.0, 0.3)),
        median_time(lambda: ode_hand(0.5, 1.0, 0.3)))

    # memory: what the record stack of a 10,000-step loop holds
    def ode_long(x, a, b):
        dt = 0.001
        for i in range(10000):
            x = x + dt * (a * x - b * x * x)
        return x
    fwd, bwd = sg.make_vjp(ode_long, (0,), 0.5, 1.0, 0.3)
    out, saved = fwd(0.5, 1.0, 0.3)
    # the records: the stack (a list) and the loop's float tape (an array('d'), unboxed)
    records = [v for v in saved if isinstance(v, (list, array.array))]
    kept = sum(len(v) for v in records)
    kinds = " and ".join(sorted({"an array('d')" if isinstance(v, array.array) else "a list"
                                 for v in records if len(v)}))
    print(f"10,000-step ODE loop: the records hold {kept} floats ({kept / 10000:.0f} per "
          f"step, in {kinds}); the hand-written gradient keeps 10000 (x at each step)")
    H = 64
    W = rng.standard_normal((H, H)) * 0.1
    U = rng.standard_normal((H, H)) * 0.1
    b = np.zeros(H)
    xs = rng.standard_normal((2000, 4, H))
    h0 = np.zeros((4, H))
    tracemalloc.start()
    fwd, bwd = sg.make_vjp(rnn_loss, (0, 1, 2), W, U, b, xs, h0)
    out, saved = fwd(W, U, b, xs, h0)
    cur, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    hidden_bytes = 2000 * h0.nbytes
    print(f"2,000-step RNN (batch 4, hidden 64): forward sweep keeps {cur / 1e6:.2f} MB; "
          f"the hidden states alone are {hidden_bytes / 1e6:.2f} MB")

    tensor_section(args)      # PyTorch's column is left blank when torch is not installed
    higher_section(args)      # HVP and Jacobians, next to autograd and torch.func
    compile_section(args)     # first-call (compile) time against the function's size
    scipy_section(args)       # SciPy's likelihoods (left out when SciPy is not installed)


def scipy_section(args):
    """tools/bench_scipy.py's table: SciPy's functions inside differentiated code."""
    if importlib.util.find_spec("scipy") is None:
        print("SciPy is not installed: no SciPy benchmarks")
        return
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import bench_scipy
    bench_scipy.scipy_section(quick=args.quick)


# -- (8) the wrapper's cost per cached call ------------------------------------------

class _NeverHit(dict):
    """A cache of cached calls that never answers: every call takes the full path."""

    def get(self, key, default=None):
        return default

    def __setitem__(self, key, value):
        pass


def overhead_section(args):
    """sg.grad(f)(*args) against the generated function called directly, per call, us.

    ``wrapper``: the cached call's own cost, measured with the generated function
    swapped for one that returns its result at once (so the gradient's own time,
    and its noise, are not in it); ``full path``: the same with the short path off
    (what every call did before it: bind, kinds, wrt checks, cache lookup); ``a call``:
    a plain Python function called with the same arguments, for scale."""
    rng = np.random.default_rng(0)
    cases = [("seed loss (2x2), wrt w1, w2", seed_loss, ("w1", "w2"),
              (np.array([[1., 2.], [3., 4.]]), 2.0, 3.0)),
             ("scalar ODE, 100 steps, wrt x", ode, 0, (0.5, 1.0, 0.3)),
             ("MLP hidden 64, wrt W1, b1, W2, b2", mlp_loss, (0, 1, 2, 3),
              (rng.standard_normal((784, 64)) / 28, np.zeros(64),
               rng.standard_normal((64, 10)) / 8, np.zeros(10),
               rng.standard_normal((32, 784)), np.eye(10)[rng.integers(0, 10, 32)]))]
    print()
    print("sg.grad's cached call, us per call (one core)")
    print(f"{'case':<36} {'grad(f)()':>10} {'generated':>10} {'wrapper':>8} {'full path':>10}"
          f" {'a call':>7}")
    for name, f, wrt, a in cases:
        g = sg.grad(f, wrt=wrt)
        full = sg.grad(f, wrt=wrt)
        full._by_types = _NeverHit()
        g(*a)
        full(*a)
        gen = g._last
        result = gen(*a)
        stub_g = sg.grad(f, wrt=wrt)
        stub_g(*a)

        def stub(*_):
            return result
        for hit in stub_g._by_types.values():
            hit.fn, hit.guard = stub, None      # (its guard is built again, calling stub)
        stub_g._hot = stub_g._lookup
        stub_full = sg.grad(f, wrt=wrt)
        stub_full._by_types = _NeverHit()
        stub_full(*a)
        stub_full._fast = {k: (stub,) + v[1:] for k, v in stub_full._fast.items()}
        times = interleaved_medians({
            "call": lambda: g(*a), "gen": lambda: gen(*a),
            "stub call": lambda: stub_g(*a), "stub": lambda: stub(*a),
            "stub full": lambda: stub_full(*a)},
            min_time=0.1 if args.quick else 0.3, repeat=9 if args.quick else 15,
            timer=time.process_time)
        wrapper = times["stub call"] - times["stub"]
        full_path = times["stub full"] - times["stub"]
        print(f"{name:<36} {times['call'] * 1e6:>10.2f} {times['gen'] * 1e6:>10.2f} "
              f"{wrapper * 1e6:>8.2f} {full_path * 1e6:>10.2f} {times['stub'] * 1e6:>7.2f}")
        sys.stdout.flush()


# -- (6) higher order: HVP of the MLP loss, Jacobian of a small map -----------------

def small_map(x, A):
    return np.tanh(A @ x) * x + np.sin(x)


def higher_section(args):
    rng = np.random.default_rng(1)
    try:
        import autograd
        import autograd.numpy as anp
    except ImportError:
        autograd = None
    try:
        import torch
        import torch.func as tf
        torch.set_num_threads(1)
    except ImportError:
        torch = None
    print()
    print(f"{'higher order':<34} {'srcgrad us':>11} {'peer us':>11} {'ratio':>7}  peer")
    d_in, classes, batch = 784, 10, 32
    for hidden in ([256] if args.quick else [256, 1024]):
        W1 = rng.standard_normal((d_in, hidden)) / np.sqrt(d_in)
        b1 = np.zeros(hidden)
        W2 = rng.standard_normal((hidden, classes)) / np.sqrt(hidden)
        b2 = np.zeros(classes)
        xb = rng.standard_normal((batch, d_in))
        onehot = np.eye(classes)[rng.integers(0, classes, batch)]
        v = rng.standard_normal(W1.shape)
        hvp = sg.hvp(mlp_loss, wrt=0)
        grad = sg.grad(mlp_loss, wrt=0)
        a = (W1, b1, W2, b2, xb, onehot)
        t_hvp = median_time(lambda: hvp(*a, v=v))
        t_grad = median_time(lambda: grad(*a))
        row(f"HVP MLP hidden {hidden}", t_hvp, t_grad, "vs srcgrad's own gradient (target <= 3)")
        if autograd is not None:
            def a_loss(W1_):
                h = anp.tanh(xb @ W1_ + b1)
                z = h @ W2 + b2
                z = z - anp.max(z, axis=1, keepdims=True)
                p = anp.exp(z) / anp.sum(anp.exp(z), axis=1, keepdims=True)
                return -anp.sum(onehot * anp.log(p)) / xb.shape[0]
            a_hvp = autograd.hessian_vector_product(a_loss)
            np.testing.assert_allclose(a_hvp(W1, v), hvp(*a, v=v), rtol=1e-6, atol=1e-9)
            row(f"HVP MLP hidden {hidden}", t_hvp, median_time(lambda: a_hvp(W1, v)), "autograd")
        if torch is not None:
            tW1, tb1, tW2, tb2, tx, toh, tv = map(torch.from_numpy, (W1, b1, W2, b2, xb, onehot, v))

            def t_loss(W1_):
                h = torch.tanh(tx @ W1_ + tb1)
                z = h @ tW2 + tb2
                p = torch.softmax(z, dim=1)
                return -(toh * torch.log(p)).sum() / tx.shape[0]
            t_hvp_fn = lambda: tf.jvp(tf.grad(t_loss), (tW1,), (tv,))[1]  # noqa: E731
            np.testing.assert_allclose(t_hvp_fn().numpy(), hvp(*a, v=v), rtol=1e-6, atol=1e-9)
            row(f"HVP MLP hidden {hidden}", t_hvp, median_time(t_hvp_fn), "torch.func")
    x = rng.standard_normal(50)
    A = rng.standard_normal((50, 50)) / 7
    for mode in ("reverse", "forward"):
        jac = sg.jacobian(small_map, wrt=0, mode=mode)
        J = jac(x, A)
        t_j = median_time(lambda: jac(x, A))
        if autograd is not None:
            aj = autograd.jacobian(lambda x_: anp.tanh(A @ x_) * x_ + anp.sin(x_))
            np.testing.assert_allclose(aj(x), J, rtol=1e-10, atol=1e-12)
            row(f"Jacobian R^50->R^50 ({mode})", t_j, median_time(lambda: aj(x)), "autograd")
        if torch is not None:
            tA, tx50 = torch.from_numpy(A), torch.from_numpy(x)
            tfn = (lambda x_: torch.tanh(tA @ x_) * x_ + torch.sin(x_))
            tj = (tf.jacrev if mode == "reverse" else tf.jacfwd)(tfn)
            np.testing.assert_allclose(tj(tx50).numpy(), J, rtol=1e-10, atol=1e-12)
            row(f"Jacobian R^50->R^50 ({mode})", t_j, median_time(lambda: tj(tx50)),
                f"torch.func.{'jacrev' if mode == 'reverse' else 'jacfwd'}")


# -- (5) the Tensor runtime: eager and @sg.compile, next to PyTorch and NumPy --------

def seed_loss_tensor(x, w1, w2):
    """The seed loss on tensors: runs on srcgrad and PyTorch tensors alike."""
    l1 = x * w1
    l2 = l1 + w2
    return l2.mean()


def mlp_loss_tensor(W1, b1, W2, b2, x, onehot):
    """``mlp_loss`` written with tensor methods (srcgrad and PyTorch alike)."""
    h = (x @ W1 + b1).tanh()
    z = h @ W2 + b2
    z = z - z.max(dim=1, keepdim=True).values
    p = z.exp() / z.exp().sum(dim=1, keepdim=True)
    return -(onehot * p.log()).sum() / x.shape[0]


def _train_step(loss_fn, args, wrt):
    """What a training loop does each step: loss, backward, read the grads, zero them."""
    params = [args[i] for i in wrt]

    def step():
        loss = loss_fn(*args)
        loss.backward()
        grads = [p.grad for p in params]
        for p in params:
            p.grad = None
        return loss, grads
    return step


def interleaved_medians(fns, min_time=0.2, repeat=9, timer=time.perf_counter):
    """``median_time`` for several functions at once, their samples taken in turn.

    On a shared machine the load drifts; sampling the candidates round-robin
    exposes them to the same drift, so the ratios between them stay meaningful.
    (``timer=time.process_time`` counts only this process's CPU time: for
    microsecond differences on a loaded machine.)
    """
    counts = {}
    for key, fn in fns.items():          # calibrate: loops per sample, as median_time does
        fn()
        n = 1
        while True:
            t0 = timer()
            for _ in range(n):
                fn()
            if timer() - t0 > min_time / repeat or n > 1e6:
                break
            n *= 2
        counts[key] = n
    samples = {key: [] for key in fns}
    for _ in range(repeat):
        for key, fn in fns.items():
            n = counts[key]
            t0 = timer()
            for _ in range(n):
                fn()
            samples[key].append((timer() - t0) / n)
    return {key: statistics.median(v) for key, v in samples.items()}


def tensor_row(name, times):
    """One row: each timing in us, then compile/hand and eager/torch."""
    cells = "".join(f" {times[k] * 1e6:>9.1f}" if times.get(k) is not None else f" {'-':>9}"
                    for k in ("eager", "compile", "torch", "hand"))
    ch = times["compile"] / times["hand"]
    et = f"{times['eager'] / times['torch']:>7.2f}" if times.get("torch") else f"{'-':>7}"
    print(f"{name:<28}{cells} {ch:>7.2f} {et}")
    sys.stdout.flush()


def tensor_section(args):
    """Seed loss and MLP: srcgrad eager, srcgrad @compile, PyTorch eager, NumPy by hand.

    Same process, same float64 inputs.  Each srcgrad / PyTorch step is a training
    step (forward, ``.backward()``, read and zero ``.grad``); the hand-written step
    is the NumPy forward plus the hand-derived gradient.
    """
    try:
        import torch
    except ImportError:
        torch = None
    # NumPy's BLAS and PyTorch should use the same number of threads; on a small or
    # shared machine, run with OMP_NUM_THREADS=1 (or OPENBLAS_NUM_THREADS=1): oversubscribed
    # BLAS threads give timings that jump by whole scheduler slices.
    threads = os.environ.get("OPENBLAS_NUM_THREADS") or os.environ.get("OMP_NUM_THREADS")
    if torch is not None and threads:
        torch.set_num_threads(int(threads))
    print()
    print("Tensor runtime: one training step (forward + backward + read/zero .grad), us")
    print(f"{'benchmark':<28} {'eager':>9} {'compile':>9} {'torch':>9} {'hand':>9} "
          f"{'cmp/hand':>7} {'eag/trch':>7}")
    rng = np.random.default_rng(0)

    def run(name, loss_tensor, loss_numpy, hand, arrays, wrt):
        """Time one loss four ways; ``wrt``: the positions of the parameters."""
        sga = [sg.tensor(a, requires_grad=i in wrt) for i, a in enumerate(arrays)]
        compiled = sg.compile(loss_numpy)
        steps = {"eager": _train_step(loss_tensor, sga, wrt),
                 "compile": _train_step(compiled, sga, wrt),
                 "hand": lambda: hand(*arrays)}
        if torch is not None:
            ta = [torch.tensor(a, requires_grad=i in wrt) for i, a in enumerate(arrays)]
            steps["torch"] = _train_step(loss_tensor, ta, wrt)
        ref = hand(*arrays)
        for k in ("eager", "compile", "torch"):
            if k in steps:
                _, grads = steps[k]()
                check(tuple(np.asarray(g.detach().numpy()) for g in grads), ref,
                      f"{name} ({k})")
        times = interleaved_medians(steps, min_time=0.1 if args.quick else 0.4,
                                    repeat=9 if args.quick else 15)
        tensor_row(name, times)

    x = np.array([[1., 2.], [3., 4.]])
    run("seed loss (2x2)", seed_loss_tensor, seed_loss, seed_loss_hand,
        [x, np.array(2.0), np.array(3.0)], (1, 2))
    d_in, classes, batch = 784, 10, 32
    hiddens = [64, 256] if args.quick else [64, 256, 1024, 4096]
    for hidden in hiddens:
        W1 = rng.standard_normal((d_in, hidden)) / np.sqrt(d_in)
        b1 = np.zeros(hidden)
        W2 = rng.standard_normal((hidden, classes)) / np.sqrt(hidden)
        b2 = np.zeros(classes)
        xb = rng.standard_normal((batch, d_in))
        onehot = np.eye(classes)[rng.integers(0, classes, batch)]
        run(f"MLP hidden {hidden} (batch 32)", mlp_loss_tensor, mlp_loss, mlp_hand,
            [W1, b1, W2, b2, xb, onehot], (0, 1, 2, 3))
    nn_section(args)


_NN_OPTIMIZERS = {"Adam": lambda lib, params: lib.optim.Adam(params, lr=1e-3),
                  "SGD momentum": lambda lib, params: lib.optim.SGD(params, lr=1e-2,
                                                                    momentum=0.9)}


def _nn_training_step(lib, hidden, optimizer="Adam", d_in=784, classes=10, batch=64):
    """A tutorial's step on ``lib`` (srcgrad or torch): Linear, ReLU, Linear in float32,
    CrossEntropyLoss, an optimizer of ``_NN_OPTIMIZERS``: zero_grad, forward, backward,
    step.  Same data and (PyTorch's random stream in both) the same initial weights."""
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(d_in, hidden), lib.nn.ReLU(),
                              lib.nn.Linear(hidden, classes))
    opt = _NN_OPTIMIZERS[optimizer](lib, model.parameters())
    loss_fn = lib.nn.CrossEntropyLoss()
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((batch, d_in)).astype(np.float32))
    y = lib.tensor(rng.integers(0, classes, batch))

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step


def nn_section(args):
    """nn.Module training steps: srcgrad eager against PyTorch eager (CPU, float32)."""
    try:
        import torch
    except ImportError:
        print("nn: PyTorch is not installed; nothing to compare with")
        return
    torch.set_num_threads(1)
    print()
    print("nn training step (Linear-ReLU-Linear, CrossEntropyLoss; float32, batch 64), us")
    print(f"{'benchmark':<34} {'srcgrad':>9} {'torch':>9} {'ratio':>7}")
    for optimizer in _NN_OPTIMIZERS:
        for hidden in (128, 256, 512):
            ours = _nn_training_step(sg, hidden, optimizer)
            theirs = _nn_training_step(torch, hidden, optimizer)
            first = ours().item(), theirs().item()      # same weights: the same first loss
            if abs(first[0] - first[1]) > 1e-5 * abs(first[1]):
                raise AssertionError(f"nn hidden {hidden}: first losses differ {first}")
            times = interleaved_medians({"srcgrad": ours, "torch": theirs},
                                        min_time=0.1 if args.quick else 0.4,
                                        repeat=9 if args.quick else 15)
            label = f"MLP 784-{hidden}-10, {optimizer}"
            print(f"{label:<34} {times['srcgrad'] * 1e6:>9.0f} "
                  f"{times['torch'] * 1e6:>9.0f} {times['srcgrad'] / times['torch']:>7.2f}")
            sys.stdout.flush()


# -- (7) compile time: the first call of grad / jvp against the function's size ------

# one source statement of the generated functions, by i % 4: elementwise rules, a
# reduction broadcast back, constants, and a reach two statements back
_STATEMENTS = ("v{i} = np.sin(v{a}) * w + v{b}",
               "v{i} = np.tanh(v{a} - 0.5 * v{b})",
               "v{i} = v{a} * v{b} / (1.0 + np.exp(-v{a}))",
               "v{i} = np.cos(v{a}) + np.sum(v{b}) * 0.01")


def generated_source(n, loop):
    """``f(x, w)`` of ``n`` statements (each one line), straight-line or in a 3-trip loop."""
    lines = ["import numpy as np", "", "", "def f(x, w):", "    v0 = x", "    v1 = x * w"]
    pad = "    "
    if loop:
        lines.append("    for _ in range(3):")
        pad = "        "
    for i in range(2, n):
        lines.append(pad + _STATEMENTS[i % 4].format(i=i, a=i - 1, b=i - 2))
    if loop:   # carry the last two values into the next trip
        lines.append(pad + f"v0, v1 = v{n - 2}, v{n - 1}")
        lines.append("    return np.sum(v1 * v1)")
    else:
        lines.append(f"    return np.sum(v{n - 1} * v{n - 1})")
    return "\n".join(lines) + "\n"


def _generated_function(n, loop, folder, tag):
    """A fresh function in a fresh file: nothing compiled for it yet."""
    path = os.path.join(folder, f"gen_{tag}_{n}_{int(loop)}.py")
    with open(path, "w") as fh:
        fh.write(generated_source(n, loop))
    spec = importlib.util.spec_from_file_location(f"srcgrad_bench_gen_{tag}_{n}_{int(loop)}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.f


def fitted_exponent(ns, ts):
    """The slope of log t against log n (least squares): t ~ n**slope."""
    lx = np.log(np.asarray(ns, float))
    ly = np.log(np.asarray(ts, float))
    return float(np.polyfit(lx, ly, 1)[0])


def compile_section(args, sizes=None):
    """First-call time (parse, analyse, transform, generate, compile) of sg.grad and
    sg.jvp on generated functions of n statements: straight-line, and inside a
    3-trip ``for`` loop.  Each timing is one first call of a function never seen
    before (its own file); the exponent is fitted over all sizes."""
    sizes = sizes or ((10, 30, 100, 300) if args.quick else (10, 30, 100, 300, 1000))
    print()
    print("compile time: first call, seconds")
    print(f"{'n statements':>12} {'grad':>9} {'grad loop':>10} {'jvp':>9} {'jvp loop':>9}")
    x = np.linspace(0.1, 0.9, 5)
    cols = {k: [] for k in ("grad", "grad loop", "jvp", "jvp loop")}
    with tempfile.TemporaryDirectory() as folder:
        for n in sizes:
            cells = []
            for name in cols:
                loop = name.endswith("loop")
                f = _generated_function(n, loop, folder, name.replace(" ", "_"))
                t0 = time.perf_counter()
                if name.startswith("grad"):
                    sg.grad(f, wrt=(0, 1))(x, 0.7)
                else:
                    sg.jvp(f, (x, 0.7), (np.ones_like(x), 1.0))
                dt = time.perf_counter() - t0
                cols[name].append(dt)
                cells.append(dt)
            print(f"{n:>12} {cells[0]:>9.3f} {cells[1]:>10.3f} {cells[2]:>9.3f} {cells[3]:>9.3f}")
            sys.stdout.flush()
    exps = [fitted_exponent(sizes, cols[k]) for k in cols]
    print(f"{'exponent':>12} {exps[0]:>9.2f} {exps[1]:>10.2f} {exps[2]:>9.2f} {exps[3]:>9.2f}"
          f"   (t ~ n**exponent, log-log least squares over n = {', '.join(map(str, sizes))})")


if __name__ == "__main__":
    main()
