"""``python tools/bench.py checkpoint``: a tanh RNN (hidden 256, 1,000 steps, batch 4)
differentiated without a budget and with ``max_memory`` a twentieth of what the plain
gradient's reverse sweep keeps: tracemalloc peaks (minus the forward pass's own), step
counts and medians of time, as ratios.  Not a test: numbers for the notes."""
import statistics
import time
import tracemalloc

import numpy as np

import srcgrad as sg
from srcgrad.rules import checkpoint
from srcgrad.runtime import revolve
from bench_peers import rnn_loss


def _peak(fn):
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    fn()
    top = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return top


def _median(fn, repeat=5):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def checkpoint_section(args):
    H, T, B = 256, (200 if args.quick else 1000), 4
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((H, H)) * 0.3 / np.sqrt(H),
         rng.standard_normal((H, H)) * 0.3 / np.sqrt(H), np.zeros(H),
         rng.standard_normal((T, B, H)), np.zeros((B, H)))
    wrt = (0, 1, 2)
    plain = sg.grad(rnn_loss, wrt=wrt)
    plain(*a)
    forward = _peak(lambda: rnn_loss(*a))
    kept = _peak(lambda: plain(*a)) - forward
    budget = kept // 20
    small = sg.grad(rnn_loss, wrt=wrt, max_memory=budget)
    small(*a)
    kept_small = _peak(lambda: small(*a)) - forward
    one = a[:3] + (a[3][:1], a[4])                 # one step: what does not grow with T
    fixed = _peak(lambda: plain(*one)) - _peak(lambda: rnn_loss(*one))
    same = all(np.array_equal(x, y) for x, y in zip(plain(*a), small(*a)))
    counts = dict(checkpoint.LAST)
    t_plain, t_small = _median(lambda: plain(*a)), _median(lambda: small(*a))
    t_forward = _median(lambda: rnn_loss(*a))
    states = T * B * H * 8
    print()
    print(f"checkpoint: tanh RNN, hidden {H}, {T} steps, batch {B} (hidden states "
          f"{states / 1e6:.1f} MB); peaks by tracemalloc minus the forward pass's")
    print(f"  without a budget: keeps {kept / 1e6:.2f} MB, {t_plain * 1e3:.1f} ms "
          f"({t_plain / t_forward:.1f}x the forward pass)")
    print(f"  max_memory={budget} ({kept / budget:.0f}x less): keeps {kept_small / 1e6:.2f} MB "
          f"({kept_small / kept:.3f}x), {t_small * 1e3:.1f} ms ({t_small / t_plain:.2f}x the "
          f"plain gradient, {t_small / t_forward:.1f}x the forward pass); same gradient bit "
          f"for bit: {same}")
    print(f"  beyond a 1-step loop's gradient (the cotangents of W, U, b, {fixed / 1e6:.2f} MB): "
          f"{(kept - fixed) / 1e6:.2f} MB without a budget, {(kept_small - fixed) / 1e6:.2f} MB "
          f"with it ({(kept_small - fixed) / (kept - fixed):.3f}x; the budget is "
          f"{budget / 1e6:.2f} MB)")
    n, s = counts["steps"], counts["snapshots"]
    print(f"  schedule: {s} snapshots; steps run without records in the reverse sweep "
          f"{counts['advanced']}, with records {counts['recorded']} (the binomial least "
          f"for {n} steps and {s} snapshots, the forward sweep's included: "
          f"{revolve.least_advances(n, s)}); step evaluations in all "
          f"{(n + counts['advanced'] + counts['recorded']) / n:.2f}x the forward's")
